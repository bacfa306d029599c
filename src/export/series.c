#include "export/series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * x as dcgm-exporter's "%f" prints it and a scraper reads it back: rounded
 * to six decimals. Fast where x * 1e6 is exact enough to tell which way a
 * value rounds (|x| < 1e6, not within 1e-3 of a tie); printf and strtod
 * otherwise, so the answer is always the printed one.
 */
double gw_series_round6(double x)
{
	if (isfinite(x) && fabs(x) < 1e6) {
		double s = x * 1e6, k = nearbyint(s);
		if (fabs(fabs(s - k) - 0.5) > 1e-3)
			return k / 1e6;
	}
	if (!isfinite(x))
		return x;
	char buf[400];
	snprintf(buf, sizeof(buf), "%f", x);
	return strtod(buf, NULL);
}

double gw_series_dcgm_value(const struct gw_field *f, const struct gw_value *v)
{
	switch (f->cunit) {
	case GW_CU_BYTES:
		return (double)(v->i / 1048576); /* MiB, truncated as nvidia-smi and DCGM report */
	case GW_CU_MW:
		return gw_series_round6((v->kind == GW_VK_FLOAT ? v->d : (double)v->i) / 1000.0);
	default:
		if (v->kind == GW_VK_FLOAT && (f->flags & GW_FL_DCGM_INT))
			return (double)llround(v->d); /* an int64 field of DCGM's: dcgm-exporter prints it whole */
		return v->kind == GW_VK_FLOAT ? gw_series_round6(v->d) : (double)v->i;
	}
}

static int emit(const char *name, const struct gw_series_gpu *g, bool dcgm, const struct gw_lpair *extra,
		size_t nextra, int64_t t, double v, gw_series_emit_fn fn, void *ctx)
{
	struct gw_lpair l[48];
	size_t n = 0;
	char device[32];
	l[n++] = (struct gw_lpair){GW_METRIC_NAME, name};
	l[n++] = (struct gw_lpair){"gpu", g->index};
	if (dcgm) { /* the label set /metrics gives a DCGM series (gpu_metrics.c dcgm_labels) */
		snprintf(device, sizeof(device), "nvidia%s", g->index);
		l[n++] = (struct gw_lpair){"UUID", g->uuid};
		l[n++] = (struct gw_lpair){"pci_bus_id", g->bus_id};
		l[n++] = (struct gw_lpair){"device", device};
		l[n++] = (struct gw_lpair){"modelName", g->model};
		if (g->hostname)
			l[n++] = (struct gw_lpair){"Hostname", g->hostname};
		for (size_t i = 0; i < g->nlabels && i < 32; i++)
			l[n++] = g->labels[i];
		if (g->hpc_job)
			l[n++] = (struct gw_lpair){"hpc_job", g->hpc_job};
		if (g->pod) {
			l[n++] = (struct gw_lpair){"container", g->container};
			l[n++] = (struct gw_lpair){"namespace", g->ns};
			l[n++] = (struct gw_lpair){"pod", g->pod};
		}
	} else {
		l[n++] = (struct gw_lpair){"uuid", g->uuid};
		l[n++] = (struct gw_lpair){"pci_bus_id", g->bus_id};
		l[n++] = (struct gw_lpair){"model", g->model};
	}
	for (size_t i = 0; i < nextra && n < 48; i++)
		l[n++] = extra[i];
	/* Drop empty values: Prometheus treats an empty label as absent. */
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (l[i].value && *l[i].value)
			l[w++] = l[i];
	return fn(ctx, l, w, t, v);
}

int gw_series_emit(const struct gw_field *f, const struct gw_value *v, const struct gw_series_gpu *g,
		   const struct gw_lpair *extra, size_t nextra, int64_t t_ms, gw_series_emit_fn fn, void *ctx)
{
	if (v->state != GW_V_OK || v->kind == GW_VK_STR)
		return 0;
	int rc = 0;
	if (f->prom && (f->ptype == GW_PT_GAUGE || f->ptype == GW_PT_COUNTER))
		rc = emit(f->prom, g, false, extra, nextra, t_ms, gw_field_prom_value(f, v), fn, ctx);
	if (rc == 0 && f->dcgm)
		rc = emit(f->dcgm, g, true, extra, nextra, t_ms, gw_series_dcgm_value(f, v), fn, ctx);
	return rc;
}

int gw_series_emit_dcgm(const struct gw_field *f, const struct gw_value *v, const struct gw_series_gpu *g,
			const struct gw_lpair *extra, size_t nextra, int64_t t_ms, gw_series_emit_fn fn, void *ctx)
{
	if (v->state != GW_V_OK || v->kind == GW_VK_STR || !f->dcgm)
		return 0;
	return emit(f->dcgm, g, true, extra, nextra, t_ms, gw_series_dcgm_value(f, v), fn, ctx);
}

int gw_series_emit_dcgm_named(const char *name, double v, const struct gw_series_gpu *g,
			      const struct gw_lpair *extra, size_t nextra, int64_t t_ms, gw_series_emit_fn fn, void *ctx)
{
	return emit(name, g, true, extra, nextra, t_ms, v, fn, ctx);
}

int gw_series_label_source(const char *dcgm_field)
{
	if (strcmp(dcgm_field, "DCGM_FI_DRIVER_VERSION") == 0)
		return GW_SERIES_LABEL_DRIVER;
	if (strcmp(dcgm_field, "DCGM_FI_NVML_VERSION") == 0)
		return GW_SERIES_LABEL_NVML;
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->dcgm && f->fmt == GW_FMT_STR && f->read != gw_rd_none && strcmp(f->dcgm, dcgm_field) == 0)
			return (int)i;
	}
	return GW_SERIES_LABEL_NONE;
}

const char *gw_series_label_value(int src, const struct gw_value *v, const char *driver, const char *nvml)
{
	if (src == GW_SERIES_LABEL_DRIVER)
		return driver ? driver : "";
	if (src == GW_SERIES_LABEL_NVML)
		return nvml ? nvml : "";
	if (src < 0 || !v || v[src].state != GW_V_OK || v[src].kind != GW_VK_STR)
		return "";
	return v[src].s;
}
