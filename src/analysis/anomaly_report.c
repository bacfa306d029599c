/*
 * anomaly_report.c - the anomaly tests (anomaly.h) over a built report's
 * per-GPU grids of utilisation, memory, temperature and power (the SM
 * clock too: throttling shows there first): each finding with its GPU,
 * metric, time, value, baseline and score, kept in the report and written
 * as text or JSON. The window adapts to short ranges (a quarter of the range).
 */
#include "analysis/anomaly_report.h"

#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const enum gw_report_stat_id gw_anom_metrics[GW_ANOM_NMETRICS] = {GW_RS_UTIL, GW_RS_MEM, GW_RS_TEMP,
								  GW_RS_POWER, GW_RS_SM_CLOCK};
#define ANOM_CAP 64 /* findings kept per GPU and metric */

/* The joint tests: y against x, and how far apart two x must lie for a slope between them. */
static const struct {
	enum gw_report_stat_id y, x;
	double x_tol;
} joints[] = {
    {GW_RS_POWER, GW_RS_UTIL, 0.1}, /* power drawn without the work to show for it, or the reverse */
};

double gw_anom_floor(enum gw_report_stat_id id, double mem_total, double power_limit)
{
	switch (id) {
	case GW_RS_UTIL:
		return 0.05;
	case GW_RS_MEM:
		return mem_total > 0 ? 0.01 * mem_total : 268435456.0;
	case GW_RS_TEMP:
		return 2;
	case GW_RS_POWER:
		return power_limit > 0 && 0.03 * power_limit > 10 ? 0.03 * power_limit : 10;
	case GW_RS_SM_CLOCK:
		return 50e6;
	default:
		return 0;
	}
}

void gw_anom_params_window(struct gw_anom_params *p, double window_s)
{
	gw_anom_params_default(p);
	p->window_s = window_s;
	p->short_s = window_s / 12;
	p->step_s = window_s / 60;
	p->memory_s = 6 * window_s;
}

/* Parameters for a range of span_s: the defaults, the window shrunk to a quarter of short ranges. */
static void fit_params(struct gw_anom_params *p, double sensitivity, double span_s, double grid_s)
{
	gw_anom_params_default(p);
	if (sensitivity > 0)
		p->sensitivity = sensitivity;
	if (span_s < 4 * p->window_s)
		p->window_s = span_s / 4;
	p->short_s = p->window_s / 12;
	p->step_s = p->window_s / 60;
	if (p->step_s < grid_s)
		p->step_s = grid_s;
	if (p->short_s < 3 * grid_s)
		p->short_s = 3 * grid_s;
	if (p->window_s < 2 * p->step_s)
		p->window_s = 2 * p->step_s;
	if (p->short_s > p->window_s)
		p->short_s = p->window_s;
}

/* The grid of one metric as (t, v) without its gaps; returns the count. */
static size_t grid_points(const struct gw_report *r, const double *grid, double *t, double *v)
{
	size_t m = 0;
	for (size_t k = 0; grid && k < r->ngrid; k++) {
		if (isnan(grid[k]))
			continue;
		t[m] = (double)(r->from + (int64_t)k * r->step) / 1000.0;
		v[m] = grid[k];
		m++;
	}
	return m;
}

/* The times where both grids have a value, as (t, x, y); returns the count. */
static size_t joint_points(const struct gw_report *r, const double *gx, const double *gy, double *t,
			   double *x, double *y)
{
	size_t m = 0;
	for (size_t k = 0; gx && gy && k < r->ngrid; k++) {
		if (isnan(gx[k]) || isnan(gy[k]))
			continue;
		t[m] = (double)(r->from + (int64_t)k * r->step) / 1000.0;
		x[m] = gx[k];
		y[m] = gy[k];
		m++;
	}
	return m;
}

/* Appends f (GPU gi, metric id, judged against other) to r->anom, growing it in the arena. */
static int keep(struct gw_report *r, size_t gi, enum gw_report_stat_id id, enum gw_report_stat_id other,
		const struct gw_anom_finding *f)
{
	if (r->nanom % 16 == 0) {
		struct gw_report_anomaly *a = gw_arena_alloc(&r->arena, (r->nanom + 16) * sizeof(*a));
		if (!a)
			return GW_ENOMEM;
		if (r->nanom)
			memcpy(a, r->anom, r->nanom * sizeof(*a));
		r->anom = a;
	}
	r->anom[r->nanom++] = (struct gw_report_anomaly){.gpu = gi, .metric = id, .other = other, .f = *f};
	return 0;
}

int gw_anom_find(struct gw_report *r, double sensitivity)
{
	struct gw_anom_params *p = &r->anom_params;
	fit_params(p, sensitivity, (double)(r->to - r->from) / 1000.0, (double)r->step / 1000.0);
	r->anom = NULL;
	r->nanom = 0;
	double *t = malloc((r->ngrid + 1) * sizeof(double)), *v = malloc((r->ngrid + 1) * sizeof(double));
	double *x = malloc((r->ngrid + 1) * sizeof(double));
	struct gw_anom_finding *f = malloc(ANOM_CAP * sizeof(*f));
	int rc = t && v && x && f ? 0 : GW_ENOMEM;
	for (size_t gi = 0; gi < r->ngpus && !rc; gi++) {
		const struct gw_report_gpu *g = &r->gpu[gi];
		for (size_t mi = 0; mi < GW_ANOM_NMETRICS && !rc; mi++) {
			enum gw_report_stat_id id = gw_anom_metrics[mi];
			size_t m = grid_points(r, g->grid[id], t, v), nf = 0;
			p->floor = gw_anom_floor(id, g->mem_total, g->power_limit);
			rc = gw_anom_detect(t, v, m, p, f, ANOM_CAP, &nf);
			for (size_t i = 0; !rc && i < nf && i < ANOM_CAP; i++)
				rc = keep(r, gi, id, id, &f[i]);
		}
		for (size_t j = 0; j < sizeof(joints) / sizeof(joints[0]) && !rc; j++) {
			size_t m = joint_points(r, g->grid[joints[j].x], g->grid[joints[j].y], t, x, v),
			       nf = 0;
			p->floor = gw_anom_floor(joints[j].y, g->mem_total, g->power_limit);
			rc = gw_anom_detect_joint(t, x, v, m, joints[j].x_tol, p, f, ANOM_CAP, &nf);
			for (size_t i = 0; !rc && i < nf && i < ANOM_CAP; i++)
				rc = keep(r, gi, joints[j].y, joints[j].x, &f[i]);
		}
	}
	p->floor = 0; /* each metric had its own */
	free(t);
	free(x);
	free(v);
	free(f);
	return rc;
}

void gw_anom_evidence(const struct gw_report *r, const struct gw_report_anomaly *a, char *out, size_t len)
{
	const struct gw_report_stat_info *in = &gw_report_stat_info[a->metric];
	const struct gw_anom_finding *f = &a->f;
	double k = in->scale;
	int n;
	if (f->kind == GW_ANOM_MISMATCH) {
		const struct gw_report_stat_info *xi = &gw_report_stat_info[a->other];
		n = snprintf(out, len, "%.4g %s at %s %.4g %s, where the last %.0f s give %.4g %s",
			     f->value * k, in->unit, xi->words, f->other * xi->scale, xi->unit,
			     r->anom_params.window_s, f->baseline * k, in->unit);
	} else if (f->kind == GW_ANOM_DRIFT)
		n = snprintf(out, len, "%+.4g %s over %.0f s from %.4g %s", f->value * k, in->unit,
			     r->anom_params.window_s, f->baseline * k, in->unit);
	else
		n = snprintf(out, len, "%.4g %s against a baseline of %.4g %s", f->value * k, in->unit,
			     f->baseline * k, in->unit);
	if (n >= 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n, " (%.1f robust deviations of %.3g %s)", f->score,
			 f->scale * k, in->unit);
}

static void put_time(struct gw_buf *b, double t)
{
	time_t s = (time_t)t;
	struct tm tm;
	char when[32];
	gmtime_r(&s, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	gw_buf_puts(b, when);
}

static void put_finding(struct gw_buf *b, const struct gw_report *r, const struct gw_report_anomaly *a,
			bool json, bool first)
{
	const struct gw_report_gpu *g = &r->gpu[a->gpu];
	const struct gw_anom_finding *f = &a->f;
	const char *key = gw_report_stat_info[a->metric].key;
	if (json) {
		gw_buf_printf(
		    b, "%s\n    {\"gpu\": \"%s\", \"uuid\": \"%s\", \"metric\": \"%s\", \"kind\": \"%s\", ",
		    first ? "" : ",", g->index, g->uuid, key, gw_anom_kind_name(f->kind));
		gw_buf_printf(b, "\"start\": %.3f, \"end\": %.3f, \"peak\": %.3f, ", f->t_start, f->t_end,
			      f->t_peak);
		if (f->kind == GW_ANOM_MISMATCH)
			gw_buf_printf(b, "\"against\": \"%s\", \"against_value\": %.6g, ",
				      gw_report_stat_info[a->other].key, f->other);
		gw_buf_printf(b, "\"value\": %.6g, \"baseline\": %.6g, \"scale\": %.6g, \"score\": %.2f}",
			      f->value, f->baseline, f->scale, f->score);
		return;
	}
	char ev[256];
	gw_anom_evidence(r, a, ev, sizeof(ev));
	gw_buf_puts(b, "  ");
	put_time(b, f->t_start);
	gw_buf_puts(b, " .. ");
	put_time(b, f->t_end);
	gw_buf_printf(b, "  GPU %s  %s %s: %s\n", g->index, gw_report_stat_info[a->metric].words,
		      gw_anom_kind_name(f->kind), ev);
}

void gw_anom_report(const struct gw_report *r, bool json, struct gw_buf *b)
{
	const struct gw_anom_params *p = &r->anom_params;
	if (json)
		gw_buf_printf(b, "{\"window_s\": %.0f, \"sensitivity\": %.2f, \"anomalies\": [", p->window_s,
			      p->sensitivity);
	else
		gw_buf_printf(b, "Anomalies (window %.0f s, sensitivity %.1f):\n", p->window_s,
			      p->sensitivity);
	for (size_t i = 0; i < r->nanom; i++)
		put_finding(b, r, &r->anom[i], json, i == 0);
	if (json)
		gw_buf_puts(b, r->nanom ? "\n  ]}\n" : "]}\n");
	else if (!r->nanom)
		gw_buf_puts(b, "  none\n");
}
