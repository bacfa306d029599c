/*
 * report_json.c - the report as JSON (`report --format json`): the shape
 * docs/REPORT.md describes, numbers in base units, NaN as null, times in
 * RFC 3339 UTC.
 */
#include "analysis/report_int.h"

#include "analysis/anomaly_report.h"

#include "model/number.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void str(struct gw_buf *b, const char *s)
{
	gw_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			gw_buf_printf(b, "\\%c", c);
		else if (c == '\n')
			gw_buf_puts(b, "\\n");
		else if (c < 0x20)
			gw_buf_printf(b, "\\u%04x", c);
		else
			gw_buf_putc(b, (char)c);
	}
	gw_buf_putc(b, '"');
}

static void num(struct gw_buf *b, double v)
{
	if (!isfinite(v)) {
		gw_buf_puts(b, "null");
		return;
	}
	char s[GW_NUM_G_MAX];
	size_t n = gw_num_format_g(s, v);
	gw_buf_append(b, s, n);
}

static void key(struct gw_buf *b, bool *first, const char *k)
{
	if (!*first)
		gw_buf_putc(b, ',');
	*first = false;
	str(b, k);
	gw_buf_putc(b, ':');
}

static void knum(struct gw_buf *b, bool *first, const char *k, double v)
{
	key(b, first, k);
	num(b, v);
}

static void ktime(struct gw_buf *b, bool *first, const char *k, int64_t ms)
{
	key(b, first, k);
	time_t s = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	struct tm tm;
	char t[40];
	if (!ms || !gmtime_r(&s, &tm) || !strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm)) {
		gw_buf_puts(b, "null");
		return;
	}
	gw_buf_printf(b, "\"%s.%03dZ\"", t, (int)((ms % 1000 + 1000) % 1000));
}

/* "0" as a number, anything else as a string */
static void index_value(struct gw_buf *b, const char *idx)
{
	bool digits = idx[0] && strspn(idx, "0123456789") == strlen(idx) && strlen(idx) < 10;
	if (digits)
		gw_buf_puts(b, idx);
	else
		str(b, idx);
}

static void stats(struct gw_buf *b, const struct gw_report_stat *st)
{
	gw_buf_putc(b, '{');
	bool first = true;
	for (int id = 0; id < GW_RS_N; id++) {
		if (!st[id].n)
			continue;
		key(b, &first, gw_report_stat_info[id].key);
		bool f2 = true;
		gw_buf_putc(b, '{');
		knum(b, &f2, "mean", st[id].mean);
		knum(b, &f2, "p50", st[id].p50);
		knum(b, &f2, "p95", st[id].p95);
		knum(b, &f2, "min", st[id].min);
		knum(b, &f2, "max", st[id].max);
		knum(b, &f2, "samples", (double)st[id].n);
		gw_buf_putc(b, '}');
	}
	gw_buf_putc(b, '}');
}

static void gpu(struct gw_buf *b, const struct gw_report *r, const struct gw_report_gpu *g)
{
	bool first = true;
	gw_buf_putc(b, '{');
	key(b, &first, "instance");
	str(b, g->instance);
	key(b, &first, "index");
	index_value(b, g->index);
	key(b, &first, "uuid");
	str(b, g->uuid);
	key(b, &first, "name");
	str(b, g->name);
	key(b, &first, "stats");
	stats(b, g->stat);
	knum(b, &first, "seconds", g->seconds);
	knum(b, &first, "idle_seconds", g->idle_s);
	knum(b, &first, "near_full_seconds", g->near_full_s);
	key(b, &first, "throttle_seconds");
	bool f2 = true;
	gw_buf_putc(b, '{');
	for (int k = 0; k < GW_RR_N; k++)
		knum(b, &f2, gw_report_reason_info[k].key, g->throttle_s[k]);
	gw_buf_putc(b, '}');
	knum(b, &first, "memory_total_bytes", g->mem_total > 0 ? g->mem_total : NAN);
	knum(b, &first, "power_limit_watts", g->power_limit > 0 ? g->power_limit : NAN);
	knum(b, &first, "pcie_capacity_bytes_per_second", g->pcie_capacity > 0 ? g->pcie_capacity : NAN);
	knum(b, &first, "energy_joules", g->energy_j);
	knum(b, &first, "energy_kwh", g->energy_j / 3.6e6);
	if (r->price_per_kwh > 0)
		knum(b, &first, "cost", g->energy_j / 3.6e6 * r->price_per_kwh);
	key(b, &first, "hardware");
	f2 = true;
	gw_buf_putc(b, '{');
	knum(b, &f2, "xid", g->hw.xid);
	key(b, &f2, "xid_codes");
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < g->hw.nxid_codes; i++)
		gw_buf_printf(b, "%s%d", i ? "," : "", g->hw.xid_codes[i]);
	gw_buf_putc(b, ']');
	knum(b, &f2, "ecc_uncorrected", g->hw.ecc_uncorrected);
	knum(b, &f2, "ecc_corrected", g->hw.ecc_corrected);
	knum(b, &f2, "retired_pages", g->hw.retired_pages);
	knum(b, &f2, "remapped_rows", g->hw.remapped_rows);
	knum(b, &f2, "pcie_replays", g->hw.pcie_replays);
	gw_buf_putc(b, '}');
	gw_buf_putc(b, '}');
}

static void finding(struct gw_buf *b, const struct gw_report *r, const struct gw_report_finding *f)
{
	bool first = true;
	gw_buf_putc(b, '{');
	key(b, &first, "kind");
	str(b, gw_report_kind_name(f->kind));
	key(b, &first, "gpus");
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < f->ngpus; i++) {
		if (i)
			gw_buf_putc(b, ',');
		index_value(b, r->gpu[f->gpus[i]].index);
	}
	gw_buf_putc(b, ']');
	key(b, &first, "uuids");
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < f->ngpus; i++) {
		if (i)
			gw_buf_putc(b, ',');
		str(b, r->gpu[f->gpus[i]].uuid);
	}
	gw_buf_putc(b, ']');
	key(b, &first, "instance");
	str(b, f->ngpus ? r->gpu[f->gpus[0]].instance : "");
	ktime(b, &first, "from", f->from);
	ktime(b, &first, "to", f->to);
	key(b, &first, "evidence");
	str(b, f->evidence);
	key(b, &first, "advice");
	str(b, f->advice);
	gw_buf_putc(b, '}');
}

/* An anomaly: the `gpuwatch anomalies --format json` fields, times in RFC 3339, and its evidence. */
static void anomaly(struct gw_buf *b, const struct gw_report *r, const struct gw_report_anomaly *a)
{
	bool first = true;
	const struct gw_anom_finding *f = &a->f;
	gw_buf_putc(b, '{');
	key(b, &first, "gpu");
	index_value(b, r->gpu[a->gpu].index);
	key(b, &first, "uuid");
	str(b, r->gpu[a->gpu].uuid);
	key(b, &first, "metric");
	str(b, gw_report_stat_info[a->metric].key);
	key(b, &first, "kind");
	str(b, gw_anom_kind_name(f->kind));
	ktime(b, &first, "from", (int64_t)(f->t_start * 1000));
	ktime(b, &first, "to", (int64_t)(f->t_end * 1000));
	ktime(b, &first, "peak", (int64_t)(f->t_peak * 1000));
	if (f->kind == GW_ANOM_MISMATCH) {
		key(b, &first, "against");
		str(b, gw_report_stat_info[a->other].key);
		knum(b, &first, "against_value", f->other);
	}
	knum(b, &first, "value", f->value);
	knum(b, &first, "baseline", f->baseline);
	knum(b, &first, "scale", f->scale);
	knum(b, &first, "score", f->score);
	char ev[256];
	gw_anom_evidence(r, a, ev, sizeof(ev));
	key(b, &first, "evidence");
	str(b, ev);
	gw_buf_putc(b, '}');
}

void gw_report_render_gpus_json(const struct gw_report *r, struct gw_buf *b)
{
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->ngpus; i++) {
		if (i)
			gw_buf_putc(b, ',');
		gpu(b, r, &r->gpu[i]);
	}
	gw_buf_putc(b, ']');
}

void gw_rpt_train_json(const struct gw_report *r, struct gw_buf *b)
{
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->ntrain; i++) {
		const struct gw_report_train *t = &r->train[i];
		bool f = true;
		gw_buf_puts(b, i ? ",{" : "{");
		key(b, &f, "job");
		str(b, t->job);
		key(b, &f, "gpus");
		gw_buf_putc(b, '[');
		for (size_t k = 0; k < t->ngpus; k++) {
			if (k)
				gw_buf_putc(b, ',');
			index_value(b, r->gpu[t->gpus[k]].index);
		}
		gw_buf_putc(b, ']');
		knum(b, &f, "tokens", t->tokens);
		knum(b, &f, "seconds", t->seconds);
		knum(b, &f, "tokens_per_second", t->seconds > 0 ? t->tokens / t->seconds : NAN);
		knum(b, &f, "energy_joules", t->energy_j);
		knum(b, &f, "joules_per_token", t->tokens_metered > 0 ? t->energy_j / t->tokens_metered : NAN);
		knum(b, &f, "tokens_per_joule", t->energy_j > 0 ? t->tokens_metered / t->energy_j : NAN);
		if (r->price_per_kwh > 0 && t->tokens_metered > 0)
			knum(b, &f, "cost_per_million_tokens", t->energy_j / 3.6e6 * r->price_per_kwh / t->tokens_metered * 1e6);
		key(b, &f, "power_limits");
		gw_buf_putc(b, '[');
		for (size_t k = 0; k < t->nlim; k++) {
			const struct gw_report_plimit *l = &t->lim[k];
			bool fl = true;
			gw_buf_puts(b, k ? ",{" : "{");
			knum(b, &fl, "watts", l->watts);
			knum(b, &fl, "seconds", l->seconds);
			knum(b, &fl, "tokens_per_second", l->tokens / l->seconds);
			knum(b, &fl, "power_watts", l->energy_j / l->seconds);
			knum(b, &fl, "tokens_per_joule", l->tokens / l->energy_j);
			gw_buf_putc(b, '}');
		}
		gw_buf_puts(b, "]}");
	}
	gw_buf_putc(b, ']');
}

/* report --png: [{"id", "title", "unit", "file", "width", "height"}] */
static int charts(struct gw_buf *b, const struct gw_report *r)
{
	gw_buf_putc(b, '[');
	for (size_t k = 0; k < GW_REPORT_NCHARTS; k++) {
		struct gw_chart c;
		char path[4096];
		int rc = gw_report_chart(r, k, &c);
		if (rc)
			return rc;
		int w, h;
		gw_chart_framed_size(&c, &w, &h);
		bool first = true;
		gw_buf_puts(b, k ? ",{" : "{");
		key(b, &first, "id");
		str(b, c.id);
		key(b, &first, "title");
		str(b, c.title);
		key(b, &first, "unit");
		str(b, c.unit);
		key(b, &first, "file");
		str(b, gw_report_chart_file(r, k, path, sizeof(path)) == 0 ? path : "");
		knum(b, &first, "width", w);
		knum(b, &first, "height", h);
		gw_buf_putc(b, '}');
		gw_chart_release(&c);
	}
	return gw_buf_putc(b, ']');
}

/* A job's (or its part on one node's) GPUs, span and totals, as members of an object. */
static void job_fields(struct gw_buf *b, const struct gw_report *r, bool *first,
		       const struct gw_report_job_node *n)
{
	key(b, first, "gpus");
	gw_buf_putc(b, '[');
	for (size_t k = 0; k < n->ngpus; k++) {
		if (k)
			gw_buf_putc(b, ',');
		index_value(b, r->gpu[n->gpus[k]].index);
	}
	gw_buf_putc(b, ']');
	ktime(b, first, "from", n->first);
	ktime(b, first, "to", n->last);
	knum(b, first, "gpu_seconds", n->gpu_seconds);
	knum(b, first, "utilization_ratio_mean", n->util_mean);
	knum(b, first, "memory_used_bytes_max", n->mem_max);
	knum(b, first, "energy_joules", n->energy_j);
	knum(b, first, "energy_kwh", n->energy_j / 3.6e6);
	if (r->price_per_kwh > 0)
		knum(b, first, "cost", n->energy_j / 3.6e6 * r->price_per_kwh);
}

/* The scraped inference servers: [{job, instance, seconds, up_ratio, rates: [...]}]. */
static void inference(struct gw_buf *b, const struct gw_report *r)
{
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->nscrapes; i++) {
		const struct gw_report_scrape *sc = &r->scrape[i];
		bool f = true;
		gw_buf_puts(b, i ? ",{" : "{");
		key(b, &f, "job");
		str(b, sc->job);
		key(b, &f, "instance");
		str(b, sc->instance);
		knum(b, &f, "seconds", sc->seconds);
		knum(b, &f, "up_ratio", sc->up_ratio);
		key(b, &f, "rates");
		gw_buf_putc(b, '[');
		for (size_t k = 0; k < sc->nrate; k++) {
			bool fr = true;
			gw_buf_puts(b, k ? ",{" : "{");
			key(b, &fr, "metric");
			str(b, sc->rate[k].name);
			key(b, &fr, "unit");
			str(b, sc->rate[k].unit);
			knum(b, &fr, "per_second", sc->rate[k].per_s);
			knum(b, &fr, "increase", sc->rate[k].increase);
			gw_buf_putc(b, '}');
		}
		gw_buf_puts(b, "]}");
	}
	gw_buf_putc(b, ']');
}

void gw_rpt_owners_json(const struct gw_report *r, struct gw_buf *b)
{
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->nowners; i++) {
		const struct gw_report_owner *o = &r->owner[i];
		bool f = true;
		gw_buf_puts(b, i ? ",{" : "{");
		key(b, &f, "kind");
		str(b, o->kind);
		key(b, &f, "owner");
		str(b, o->name);
		key(b, &f, "gpus");
		gw_buf_putc(b, '[');
		for (size_t k = 0; k < o->ngpus; k++) {
			if (k)
				gw_buf_putc(b, ',');
			index_value(b, r->gpu[o->gpus[k]].index);
		}
		gw_buf_putc(b, ']');
		knum(b, &f, "gpu_seconds", o->gpu_seconds);
		knum(b, &f, "sm_active_ratio_mean", o->sm_mean);
		knum(b, &f, "memory_used_bytes_max", o->mem_max);
		knum(b, &f, "energy_joules", o->energy_j);
		knum(b, &f, "energy_kwh", o->energy_j / 3.6e6);
		if (r->price_per_kwh > 0)
			knum(b, &f, "cost", o->energy_j / 3.6e6 * r->price_per_kwh);
		gw_buf_putc(b, '}');
	}
	gw_buf_putc(b, ']');
}

int gw_rpt_render_json(const struct gw_report *r, struct gw_buf *b)
{
	bool first = true;
	gw_buf_putc(b, '{');
	key(b, &first, "source");
	str(b, r->source);
	ktime(b, &first, "from", r->from);
	ktime(b, &first, "to", r->to);
	ktime(b, &first, "first_sample", r->first);
	ktime(b, &first, "last_sample", r->last);
	knum(b, &first, "step_seconds", (double)r->step / 1000);
	key(b, &first, "gpus");
	gw_report_render_gpus_json(r, b);
	key(b, &first, "node");
	gw_buf_putc(b, '{');
	bool f2 = true;
	knum(b, &f2, "gpus", (double)r->ngpus);
	key(b, &f2, "stats");
	stats(b, r->node);
	gw_buf_putc(b, '}');
	key(b, &first, "findings");
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->nfind; i++) {
		if (i)
			gw_buf_putc(b, ',');
		finding(b, r, &r->find[i]);
	}
	gw_buf_putc(b, ']');
	key(b, &first, "anomalies");
	gw_buf_putc(b, '{');
	bool fa = true;
	knum(b, &fa, "window_seconds", r->anom_params.window_s);
	knum(b, &fa, "sensitivity", r->anom_params.sensitivity);
	key(b, &fa, "found");
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->nanom; i++) {
		if (i)
			gw_buf_putc(b, ',');
		anomaly(b, r, &r->anom[i]);
	}
	gw_buf_puts(b, "]}");
	if (r->png_dir) {
		key(b, &first, "charts");
		int rc = charts(b, r);
		if (rc)
			return rc;
	}
	key(b, &first, "jobs");
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < r->njobs; i++) {
		const struct gw_report_job *j = &r->job[i];
		bool fj = true;
		gw_buf_puts(b, i ? ",{" : "{");
		key(b, &fj, "hpc_job");
		str(b, j->id);
		const struct gw_report_job_node all = {.gpus = j->gpus,
						       .ngpus = j->ngpus,
						       .gpu_seconds = j->gpu_seconds,
						       .energy_j = j->energy_j,
						       .util_mean = j->util_mean,
						       .mem_max = j->mem_max,
						       .first = j->first,
						       .last = j->last};
		job_fields(b, r, &fj, &all);
		key(b, &fj, "nodes");
		gw_buf_putc(b, '[');
		for (size_t k = 0; k < j->nnodes; k++) {
			bool fn = true;
			gw_buf_puts(b, k ? ",{" : "{");
			key(b, &fn, "instance");
			str(b, j->node[k].instance);
			job_fields(b, r, &fn, &j->node[k]);
			gw_buf_putc(b, '}');
		}
		gw_buf_puts(b, "]}");
	}
	gw_buf_putc(b, ']');
	key(b, &first, "owners");
	gw_rpt_owners_json(r, b);
	key(b, &first, "training");
	gw_rpt_train_json(r, b);
	key(b, &first, "inference");
	inference(b, r);
	knum(b, &first, "energy_joules", r->energy_j);
	knum(b, &first, "energy_kwh", r->energy_j / 3.6e6);
	if (r->price_per_kwh > 0) {
		knum(b, &first, "price_per_kwh", r->price_per_kwh);
		knum(b, &first, "cost", r->energy_j / 3.6e6 * r->price_per_kwh);
		key(b, &first, "currency");
		str(b, r->currency);
	}
	gw_buf_puts(b, "}\n");
	return 0;
}
