/*
 * anomaly_report.h - the anomaly tests (anomaly.h) run over a report's
 * per-GPU grids (utilisation, memory, temperature, power) and written as
 * text or JSON; gpuwatch anomalies prints it. See docs/ANOMALIES.md.
 */
#ifndef GW_ANALYSIS_ANOMALY_REPORT_H
#define GW_ANALYSIS_ANOMALY_REPORT_H

#include "analysis/report.h"
#include "core/buf.h"

#include <stdbool.h>

/*
 * Appends the anomalies of r to b (JSON when json), *count the findings.
 * sensitivity: robust deviations to alarm, 0 for the default.
 * Returns 0 or GW_ENOMEM.
 */
int gw_anom_report(const struct gw_report *r, double sensitivity, bool json, struct gw_buf *b, size_t *count);

#endif
