/*
 * import_om.h - read OpenMetrics / Prometheus text with time stamps (what
 * `gpuwatch export` writes, and what `promtool tsdb create-blocks-from
 * openmetrics` reads) into any sample sink. Comment lines (# HELP, # TYPE,
 * # UNIT, # EOF) are skipped; every sample needs a time stamp, in seconds
 * (OpenMetrics; a fraction allowed). A bad line is reported with its number
 * and skipped. Lines are read one at a time (at most 64 KiB each), so memory
 * stays bounded. Threading: none.
 */
#ifndef GW_INGEST_IMPORT_OM_H
#define GW_INGEST_IMPORT_OM_H

#include "ingest/import_smi.h"

int gw_import_om(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err);

/* Parse one sample line; returns 0, or GW_EPARSE with a reason in why. */
int gw_import_om_line(char *line, struct gw_lpair *labels, size_t max, size_t *n, double *v, int64_t *t_ms,
		      const char **why);

/* The same, with the time stamp optional (*has_t false without one): Pushgateway's bodies. */
int gw_import_om_sample(char *line, struct gw_lpair *labels, size_t max, size_t *n, double *v, bool *has_t,
			int64_t *t_ms, const char **why);

#endif
