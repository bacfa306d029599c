/*
 * anomaly.c - the agent's live anomaly scores: the tests of
 * analysis/anomaly.h (spike, shift, drift) run continuously over each
 * GPU's utilisation, memory used, temperature, power and SM clock, as
 * `gpuwatch anomalies` runs them over a range, and exposed and stored as
 * gpuwatch_anomaly_score{gpu,uuid,pci_bus_id,model,metric}: the largest
 * test's distance from the metric's recent normal, in robust deviations;
 * 0 while it is normal, from the sensitivity (6) up an anomaly (under 1,
 * within noise of the recent range, reads 0). The value is held for
 * short_s (5 min at the default window; a higher one restarts the hold),
 * so a spike that scores at one grid point is there for every scrape and
 * rule evaluation in those minutes. A series is absent until it has one
 * --anomaly.window (default 1 h) of baseline.
 *
 * Its own thread takes the newest frame once an interval (the sampling
 * thread is never delayed), averages each metric over a grid slot of a
 * 360th of the window (10 s at 1 h, at least the sampling interval) into
 * a ring that holds six windows (the tests' memory), and at each new point
 * scores every series. Results are read by /metrics renders under mu.
 *
 * GET /api/v1/anomalies (with history) answers what `gpuwatch anomalies
 * --format json` prints, over the agent's own store: a report over the
 * range (?window=, default 1 d, or ?since=), its anomalies.
 */
#include "agent/agent_int.h"

#include "analysis/anomaly.h"
#include "api/json.h"
#include "api/prom_api.h"
#include "fields/fields_table.h"
#include "model/storage.h"
#include "store/tsdb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAMILY "gpuwatch_anomaly_score"
#define GRID_PER_WINDOW 360
#define API_WINDOW_MS 86400000LL /* /api/v1/anomalies by default: a day, as the command */

/* The field each metric is read from (the report's ids, gw_anom_metrics' order). */
static const char *const metric_field[GW_ANOM_NMETRICS] = {
    "utilization.gpu", "memory.used", "temperature.gpu", "power.draw", "clocks.current.sm"};

static long field_index(const char *name)
{
	const struct gw_field *f = gw_field_find(name);
	for (size_t i = 0; f && i < gw_fields_count(); i++)
		if (gw_field_at(i) == f)
			return (long)i;
	return -1;
}

/* Field k of a GPU in its Prometheus base unit, or NAN when not available. */
static double value(const struct gw_frame_gpu *fg, long k)
{
	if (k < 0 || fg->lost || fg->stalled)
		return NAN;
	const struct gw_value *v = &fg->v[k];
	if (v->state != GW_V_OK || v->kind == GW_VK_STR)
		return NAN;
	return gw_field_prom_value(gw_field_at((size_t)k), v);
}

/* Closes the grid point being averaged: its mean joins the ring at time t (s). */
static void push_point(struct agent_anom *an, struct agent_anom_series *s, double t)
{
	if (!s->cnt)
		return;
	size_t at = (s->head + s->n) % an->cap;
	if (s->n == an->cap)
		s->head = (s->head + 1) % an->cap;
	else
		s->n++;
	s->t[at] = t;
	s->v[at] = s->sum / s->cnt;
	s->sum = 0;
	s->cnt = 0;
}

/* The score of s at its newest point; -1 while it spans less than a window. */
static double score(struct agent_anom *an, const struct agent_anom_series *s, double floor)
{
	if (s->n < 2)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		size_t k = (s->head + i) % an->cap;
		an->t[i] = s->t[k];
		an->v[i] = s->v[k];
	}
	if (an->t[s->n - 1] - an->t[0] < an->p.window_s)
		return -1;
	struct gw_anom_params p = an->p;
	p.floor = floor;
	return gw_anom_score_now(an->t, an->v, s->n, &p);
}

static void store(struct gw_agent *a, unsigned int g, unsigned int m, struct agent_anom_series *s,
		  int64_t t_ms)
{
	struct agent_history *h = &a->history;
	const struct gw_gpu *gpu = &a->gpus[g];
	char idx[16];
	snprintf(idx, sizeof(idx), "%u", gpu->index);
	struct gw_lpair l[] = {
	    {GW_METRIC_NAME, FAMILY},  {"gpu", idx},
	    {"uuid", gpu->uuid},       {"pci_bus_id", gpu->bus_id},
	    {"model", gpu->name},      {"metric", gw_report_stat_info[gw_anom_metrics[m]].key},
	    {"instance", h->instance}, {"job", h->job}};
	if (!s->ref && gw_tsdb_series(h->db, l, sizeof(l) / sizeof(l[0]), &s->ref) != 0) {
		s->ref = 0;
		return;
	}
	/* an out-of-order sample (a clock stepped back) is dropped, as the frames' are */
	gw_tsdb_append(h->db, s->ref, t_ms, s->score);
}

/* The score s shows after a point scored x at time t: the highest of the last short_s. */
static double hold(const struct agent_anom *an, struct agent_anom_series *s, double x, double t)
{
	if (x >= 0 && x < 1)
		x = 0; /* less than a robust deviation outside the recent range: noise */
	if (x < 0 || x >= s->score || t - s->peak_t > an->p.short_s) {
		s->peak_t = t;
		return x;
	}
	return s->score;
}

/* Scores every series at the point just closed (time t_ms) and stores them. */
static void evaluate(struct gw_agent *a, const struct gw_frame *f, int64_t t_ms)
{
	struct agent_anom *an = &a->anom;
	struct timespec c0, c1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	double sc[GW_ANOM_NMETRICS];
	bool stored = false;
	for (unsigned int g = 0; g < an->ngpus; g++) {
		const struct gw_frame_gpu *fg = g < f->ngpus ? &f->gpus[g] : NULL;
		double mem = fg ? value(fg, an->mem_total) : NAN, lim = fg ? value(fg, an->power_limit) : NAN;
		for (unsigned int m = 0; m < GW_ANOM_NMETRICS; m++)
			sc[m] = score(
			    an, &an->s[g * GW_ANOM_NMETRICS + m],
			    gw_anom_floor(gw_anom_metrics[m], isnan(mem) ? 0 : mem, isnan(lim) ? 0 : lim));
		pthread_mutex_lock(&an->mu);
		for (unsigned int m = 0; m < GW_ANOM_NMETRICS; m++) {
			struct agent_anom_series *s = &an->s[g * GW_ANOM_NMETRICS + m];
			s->score = sc[m] = hold(an, s, sc[m], (double)t_ms / 1000.0);
		}
		pthread_mutex_unlock(&an->mu);
		if (!a->history.db)
			continue;
		pthread_mutex_lock(&a->history.append_mu);
		for (unsigned int m = 0; m < GW_ANOM_NMETRICS; m++)
			if (sc[m] >= 0) {
				store(a, g, m, &an->s[g * GW_ANOM_NMETRICS + m], t_ms);
				stored = true;
			}
		pthread_mutex_unlock(&a->history.append_mu);
	}
	if (stored)
		agent_rw_note_append(a, t_ms);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	pthread_mutex_lock(&an->mu);
	an->evals++;
	an->cpu_s += (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
	pthread_mutex_unlock(&an->mu);
}

/* A new frame: into each series' grid point; a new slot closes the last and scores it. */
static void take(struct gw_agent *a, const struct gw_frame *f)
{
	struct agent_anom *an = &a->anom;
	int64_t slot = f->t_ms / an->grid_ms;
	if (slot < an->slot)
		return; /* the clock stepped back: wait until it passes the slot again */
	if (slot > an->slot && an->slot) {
		double t = (double)(an->slot * an->grid_ms) / 1000.0;
		for (unsigned int i = 0; i < an->ngpus * GW_ANOM_NMETRICS; i++)
			push_point(an, &an->s[i], t);
		evaluate(a, f, an->slot * an->grid_ms);
	}
	an->slot = slot;
	for (unsigned int g = 0; g < an->ngpus && g < f->ngpus; g++)
		for (unsigned int m = 0; m < GW_ANOM_NMETRICS; m++) {
			double x = value(&f->gpus[g], an->field[m]);
			struct agent_anom_series *s = &an->s[g * GW_ANOM_NMETRICS + m];
			if (isfinite(x)) {
				s->sum += x;
				s->cnt++;
			}
		}
}

static void *run(void *arg)
{
	struct gw_agent *a = arg;
	struct agent_anom *an = &a->anom;
	pthread_mutex_lock(&an->mu);
	while (!an->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t ns = ts.tv_nsec + (int64_t)a->interval_ms * 1000000;
		ts.tv_sec += ns / 1000000000;
		ts.tv_nsec = ns % 1000000000;
		pthread_cond_timedwait(&an->cv, &an->mu, &ts);
		if (an->stop)
			break;
		pthread_mutex_unlock(&an->mu);
		const struct gw_frame *f = gw_sampler_acquire(a->sampler);
		if (f && f->seq != an->seq) {
			an->seq = f->seq;
			take(a, f);
		}
		gw_sampler_release(a->sampler, f);
		pthread_mutex_lock(&an->mu);
	}
	pthread_mutex_unlock(&an->mu);
	return NULL;
}

static void release(struct agent_anom *an)
{
	for (unsigned int i = 0; an->s && i < an->ngpus * GW_ANOM_NMETRICS; i++) {
		free(an->s[i].t);
		free(an->s[i].v);
	}
	free(an->s);
	free(an->t);
	free(an->v);
	an->s = NULL;
	an->t = an->v = NULL;
}

static int alloc(struct agent_anom *an)
{
	unsigned int ns = an->ngpus * GW_ANOM_NMETRICS;
	an->s = calloc(ns ? ns : 1, sizeof(*an->s));
	an->t = malloc(an->cap * sizeof(double));
	an->v = malloc(an->cap * sizeof(double));
	if (!an->s || !an->t || !an->v)
		return GW_ENOMEM;
	for (unsigned int i = 0; i < ns; i++) {
		an->s[i].t = malloc(an->cap * sizeof(double));
		an->s[i].v = malloc(an->cap * sizeof(double));
		an->s[i].score = -1;
		if (!an->s[i].t || !an->s[i].v)
			return GW_ENOMEM;
	}
	return 0;
}

int agent_anom_start(struct gw_agent *a, struct gw_err *err)
{
	struct agent_anom *an = &a->anom;
	if (a->o.anomaly_window_ms < 0)
		return 0;
	int64_t window_ms = a->o.anomaly_window_ms ? a->o.anomaly_window_ms : 3600000;
	gw_anom_params_window(&an->p, (double)window_ms / 1000.0);
	an->grid_ms = window_ms / GRID_PER_WINDOW;
	if (an->grid_ms < (int64_t)a->interval_ms)
		an->grid_ms = a->interval_ms;
	an->cap = (size_t)(an->p.memory_s * 1000.0 / (double)an->grid_ms) + 2;
	for (unsigned int m = 0; m < GW_ANOM_NMETRICS; m++)
		an->field[m] = field_index(metric_field[m]);
	an->mem_total = field_index("memory.total");
	an->power_limit = field_index("enforced.power.limit");
	an->ngpus = a->ngpus;
	if (alloc(an) != 0) {
		release(an);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	pthread_mutex_init(&an->mu, NULL);
	pthread_cond_init(&an->cv, NULL);
	int rc = pthread_create(&an->thread, NULL, run, a);
	if (rc) {
		pthread_cond_destroy(&an->cv);
		pthread_mutex_destroy(&an->mu);
		release(an);
		return gw_err_set(err, GW_ENOMEM, "cannot start the anomaly scores: %s", strerror(rc));
	}
	an->running = true;
	return 0;
}

void agent_anom_stop(struct gw_agent *a)
{
	struct agent_anom *an = &a->anom;
	if (!an->running)
		return;
	pthread_mutex_lock(&an->mu);
	an->stop = true;
	pthread_cond_signal(&an->cv);
	pthread_mutex_unlock(&an->mu);
	pthread_join(an->thread, NULL);
	pthread_cond_destroy(&an->cv);
	pthread_mutex_destroy(&an->mu);
	release(an);
	an->running = false;
}

void agent_anom_render(struct gw_agent *a, struct gw_expfmt *w)
{
	struct agent_anom *an = &a->anom;
	if (!an->running)
		return;
	bool opened = false;
	pthread_mutex_lock(&an->mu);
	for (unsigned int g = 0; g < an->ngpus; g++)
		for (unsigned int m = 0; m < GW_ANOM_NMETRICS; m++) {
			double s = an->s[g * GW_ANOM_NMETRICS + m].score;
			if (s < 0)
				continue;
			if (!opened)
				gw_expfmt_family(
				    w, FAMILY,
				    "How far the metric's latest value lies from its own recent behaviour, "
				    "in "
				    "robust deviations (the strongest of the spike, shift and drift tests): "
				    "0 "
				    "normal, 6 or more an anomaly; absent until a window of baseline.",
				    GW_METRIC_GAUGE);
			opened = true;
			char idx[16];
			snprintf(idx, sizeof(idx), "%u", a->gpus[g].index);
			struct gw_label l[] = {{"gpu", idx},
					       {"uuid", a->gpus[g].uuid},
					       {"pci_bus_id", a->gpus[g].bus_id},
					       {"model", a->gpus[g].name},
					       {"metric", gw_report_stat_info[gw_anom_metrics[m]].key}};
			gw_expfmt_sample(w, l, sizeof(l) / sizeof(l[0]), s);
		}
	gw_expfmt_family(w, "gpuwatch_anomaly_evaluations_total",
			 "Evaluations of the live anomaly scores (every series, once a grid point).",
			 GW_METRIC_COUNTER);
	gw_expfmt_sample(w, NULL, 0, (double)an->evals);
	gw_expfmt_family(w, "gpuwatch_anomaly_evaluation_cpu_seconds_total",
			 "CPU time the anomaly scores' thread spent evaluating.", GW_METRIC_COUNTER);
	gw_expfmt_sample(w, NULL, 0, an->cpu_s);
	pthread_mutex_unlock(&an->mu);
}

/* ---- GET /api/v1/anomalies ------------------------------------------------------ */

static void bad(struct gw_http_response *resp, int status, const char *type, const char *msg)
{
	resp->status = status;
	resp->content_type = "application/json";
	gw_buf_reset(&resp->body);
	gw_buf_printf(&resp->body, "{\"status\":\"error\",\"errorType\":\"%s\",\"error\":", type);
	gw_json_str(&resp->body, msg);
	gw_buf_puts(&resp->body, "}\n");
}

/* The range asked for: ?since=TIME up to now, or ?window=DURATION back from now (default a day). */
static int range_of(const struct gw_http_request *req, int64_t now, int64_t *from, char *msg, size_t len)
{
	const char *since = gw_http_arg(req, "since"), *window = gw_http_arg(req, "window");
	int64_t ms = API_WINDOW_MS;
	if (since && window)
		return snprintf(msg, len, "give since or window, not both"), -1;
	if (since) {
		if (gw_api_parse_time(since, from) != 0)
			return snprintf(msg, len, "since=%.64s: not a time (RFC 3339 or Unix seconds)",
					since),
			       -1;
		if (*from >= now)
			return snprintf(msg, len, "since=%.64s: not in the past", since), -1;
		return 0;
	}
	if (window && (gw_api_parse_duration(window, &ms) != 0 || ms <= 0 || ms > 366 * 86400000LL))
		return snprintf(msg, len, "window=%.64s: not a duration from 1ms to 366d (\"1h\", \"3600\")",
				window),
		       -1;
	*from = now - ms;
	return 0;
}

static void h_anomalies(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	char msg[200];
	int64_t now = gw_now_ms(), from = 0;
	if (range_of(req, now, &from, msg, sizeof(msg)) != 0) {
		bad(resp, 400, "bad_data", msg);
		return;
	}
	struct gw_querier q = gw_tsdb_querier(a->history.db);
	struct gw_report_opts o = {.from = from, .to = now, .source = "agent"};
	struct gw_report *r = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_report_build(&q, &o, &r, &err);
	resp->content_type = "application/json";
	if (rc == GW_ENOTFOUND) { /* nothing stored in the range yet: no anomaly either */
		gw_buf_printf(&resp->body, "{\"window_s\": 0, \"sensitivity\": %.2f, \"anomalies\": []}\n",
			      a->anom.p.sensitivity > 0 ? a->anom.p.sensitivity : 6.0);
		return;
	}
	if (rc) {
		bad(resp, 500, "internal", err.msg[0] ? err.msg : gw_strerror(rc));
		return;
	}
	gw_anom_report(r, true, &resp->body);
	gw_report_free(r);
}

const struct gw_http_route agent_anom_route = {"/api/v1/anomalies", GW_HTTP_GET | GW_HTTP_POOLED, false,
					       h_anomalies, NULL};
