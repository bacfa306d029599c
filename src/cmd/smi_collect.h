/*
 * smi_collect.h - fill the table renderers' cells from NVML.
 *
 * Per-GPU values are read through the field table (gw_field_find /
 * gw_field_read) and taken in the text nvidia-smi's CSV would print, so the
 * table, dmon and --query-gpu agree on every number. Processes come from
 * collect/procs. A GPU found lost marks *lost; its cells read "N/A".
 *
 * Ownership: caller-owned structs. Threading: one caller per gw_read_ctx.
 */
#ifndef GW_CMD_SMI_COLLECT_H
#define GW_CMD_SMI_COLLECT_H

#include "cmd/smi_table.h"
#include "fields/fields.h"

#include <stdbool.h>

/*
 * The field's value as --query-gpu would print it without units ("32362",
 * "627.40", "Enabled"). Returns true when the value is valid; sets *lost
 * when the GPU fell off the bus. Unknown field names read as not valid.
 */
bool gw_smi_field_text(const struct gw_read_ctx *c, const char *name, char *buf, size_t n, bool *lost);

void gw_smi_collect_head(struct gw_nvml *nv, struct gw_smi_head *h, const struct timespec *now);

/* One GPU's rows; returns GW_EGPULOST when the GPU was lost (row shows N/A). */
int gw_smi_collect_gpu(const struct gw_read_ctx *c, struct gw_smi_gpu_row *row);

/* Append the GPU's MIG devices (by MIG device index) to *rows (realloc'd). */
int gw_smi_collect_migs(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_smi_mig_row **rows, size_t *n);

/* The -L lines of the GPU's MIG devices. */
int gw_smi_list_migs(FILE *out, struct gw_nvml *nv, const struct gw_gpu *gpu);

/* Append the GPU's processes (sorted by pid) to *rows (realloc'd). */
int gw_smi_collect_procs(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_smi_proc_row **rows, size_t *n);

#endif
