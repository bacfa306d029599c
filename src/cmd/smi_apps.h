/*
 * smi_apps.h - `smi --query-compute-apps=... --format=csv` and its help.
 *
 * One row per compute process per GPU, in the order the driver lists them
 * (nvidia-smi does not sort this query). Process fields are not GPU metrics,
 * so they live in a small table here rather than in the field table; the
 * GPU's own serial goes through the field table.
 *
 * Ownership: caller-owned arguments. Threading: reentrant.
 */
#ifndef GW_CMD_SMI_APPS_H
#define GW_CMD_SMI_APPS_H

#include "cmd/smi_query.h"

#define GW_SMI_APPS_MAX 32

/* Parse the field list into column ids; GW_EINVAL with the bad name in bad. */
int gw_smi_apps_parse(const char *list, int *cols, size_t *n, char *bad, size_t badlen);

void gw_smi_apps_header(FILE *out, const int *cols, size_t n, const struct gw_smi_format *fmt);

/* Rows for one GPU; GW_EGPULOST when it is lost (then nothing is printed). */
int gw_smi_apps_rows(FILE *out, const int *cols, size_t n, const struct gw_smi_format *fmt,
		     const struct gw_read_ctx *ctx);

void gw_smi_help_query_compute_apps(FILE *out);

#endif
