/*
 * series.h - the stored form of a GPU's values: the same series /metrics
 * exposes, so a query written for the scraped metrics works against the
 * agent's own history (and against imported nvidia-smi logs).
 *
 * For one field value of one GPU, gw_series_emit() calls back once per
 * series it feeds: the native gpuwatch_* family (base units) and the DCGM
 * family (DCGM's units), each with the GPU's labels plus the caller's extra
 * labels (instance, job). Labels are passed in a scratch array valid only
 * during the callback. Threading: reentrant.
 */
#ifndef GW_EXPORT_SERIES_H
#define GW_EXPORT_SERIES_H

#include "fields/fields_table.h"
#include "model/labels.h"

#include <stdint.h>

struct gw_series_gpu {
	const char *index; /* "0" */
	const char *uuid;
	const char *bus_id;
	const char *model;
	const char *hostname;
	/* the labels of the counters file's label rows (DCGM_FI_DRIVER_VERSION,
	 * DCGM_FI_DEV_SERIAL, ...), in file order, after dcgm-exporter's
	 * standard ones; empty values are left out */
	const struct gw_lpair *labels;
	size_t nlabels;
	const char *hpc_job; /* the DCGM series' hpc_job label, as /metrics has it; NULL: none */
	/* the Kubernetes pod container holding the GPU (collect/podres.h), as /metrics has it; NULL: none */
	const char *container, *ns, *pod;
};

typedef int (*gw_series_emit_fn)(void *ctx, const struct gw_lpair *labels, size_t n, int64_t t_ms, double v);

/*
 * Emit the series of one field value (nothing when the value is not valid
 * or is a string). extra: labels added to every series (instance, job).
 * Returns the first non-zero callback result, or 0.
 */
int gw_series_emit(const struct gw_field *f, const struct gw_value *v, const struct gw_series_gpu *g,
		   const struct gw_lpair *extra, size_t nextra, int64_t t_ms, gw_series_emit_fn fn, void *ctx);

/*
 * Only the DCGM series of gw_series_emit(): a GPU with several HPC jobs has
 * one native series and one DCGM series per job (g->hpc_job).
 */
int gw_series_emit_dcgm(const struct gw_field *f, const struct gw_value *v, const struct gw_series_gpu *g,
			const struct gw_lpair *extra, size_t nextra, int64_t t_ms, gw_series_emit_fn fn, void *ctx);

/*
 * One DCGM series that is no field of the table (DCGM_FI_DEV_XID_ERRORS,
 * DCGM_FI_DEV_POWER_LIMIT), named and valued by the caller, with the
 * labels gw_series_emit_dcgm() gives.
 */
int gw_series_emit_dcgm_named(const char *name, double v, const struct gw_series_gpu *g,
			      const struct gw_lpair *extra, size_t nextra, int64_t t_ms, gw_series_emit_fn fn, void *ctx);
/*
 * Where a counters `label` row's value comes from: the field table's string
 * field with that DCGM name (an index >= 0), the system's driver or NVML
 * version, or GW_SERIES_LABEL_NONE where gpuwatch does not read it.
 */
#define GW_SERIES_LABEL_NONE (-1)
#define GW_SERIES_LABEL_DRIVER (-3)
#define GW_SERIES_LABEL_NVML (-4)
int gw_series_label_source(const char *dcgm_field);
/* A label source's value for one GPU (v: its frame values, by table index); "" when not available. */
const char *gw_series_label_value(int src, const struct gw_value *v, const char *driver, const char *nvml);

/* The value of a field in DCGM's units (MiB, W, ...), as /metrics prints it
 * (doubles with six decimals): what a scraper stores, and so the history. */
double gw_series_dcgm_value(const struct gw_field *f, const struct gw_value *v);
/* x rounded to six decimals exactly as printf's "%f" and strtod() do. */
double gw_series_round6(double x);

#endif
