/*
 * anomaly_report.h - the anomaly tests (anomaly.h) run over a report's
 * per-GPU grids (utilisation, memory, temperature, power, SM clock): the
 * findings kept in the report (r->anom, a section of every format) and
 * written as `gpuwatch anomalies` and the agent's /api/v1/anomalies write
 * them. See docs/ANOMALIES.md.
 *
 * Ownership: the findings live in the report's arena. Threading: none.
 */
#ifndef GW_ANALYSIS_ANOMALY_REPORT_H
#define GW_ANALYSIS_ANOMALY_REPORT_H

#include "analysis/report.h"
#include "core/buf.h"

#include <stdbool.h>

/* The metrics the tests run over (the report's ids: utilisation, memory, temperature, power, SM clock). */
#define GW_ANOM_NMETRICS 5
extern const enum gw_report_stat_id gw_anom_metrics[GW_ANOM_NMETRICS];

/*
 * The smallest change of metric id that matters, in its stored unit (a
 * floor under one robust deviation): mem_total in bytes and power_limit in
 * W, 0 when unknown.
 */
double gw_anom_floor(enum gw_report_stat_id id, double mem_total, double power_limit);

/* The defaults scaled to a window_s baseline: short_s a twelfth, step_s a sixtieth, memory 6 windows. */
void gw_anom_params_window(struct gw_anom_params *p, double window_s);

/*
 * Runs the tests over r's grids into r->anom, replacing what was there
 * (gw_report_build runs it with the defaults). sensitivity: robust
 * deviations to alarm, 0 for the default. Returns 0 or GW_ENOMEM.
 */
int gw_anom_find(struct gw_report *r, double sensitivity);

/* What a finding saw: "1100 W against a baseline of 642.9 W (20.7 robust deviations of 21 W)". */
void gw_anom_evidence(const struct gw_report *r, const struct gw_report_anomaly *a, char *out, size_t len);

/* Appends r's anomalies to b as `gpuwatch anomalies` writes them (JSON when json). */
void gw_anom_report(const struct gw_report *r, bool json, struct gw_buf *b);

#endif
