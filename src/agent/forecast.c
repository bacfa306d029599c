/*
 * forecast.c - the agent's OOM forecast: each GPU's memory use over the
 * last --memory.forecast-window (default 10 min), kept as up to
 * GW_TREND_POINTS points, its Theil-Sen trend (analysis/trend.h: the
 * median of the pairwise slopes, which a few allocation spikes or frees
 * do not move), and the time until that trend reaches the GPU's usable
 * memory (used + free), exposed and stored as
 * gpuwatch_memory_time_to_full_seconds. The series is absent while memory
 * is not growing (gw_trend_time_to_full: a trend under 1 MiB a window,
 * fewer than 6 points, or points spanning under half the window); going
 * absent writes a staleness marker to the store, as a
 * Prometheus scrape does for a series that disappears, so a rule stops
 * seeing it at once.
 *
 * Its own thread takes the newest frame once a step (window / points, at
 * least the sampling interval): the sampler's one frame consumer is the
 * history's, and the forecast needs a point a step, not every frame.
 * Results are read by /metrics renders under mu.
 */
#include "agent/agent_int.h"

#include "analysis/trend.h"
#include "fields/fields_table.h"
#include "model/storage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FORECAST_NAME "gpuwatch_memory_time_to_full_seconds"

/* The GPU's value of field k in bytes, or -1 when not available. */
static double bytes(const struct gw_frame_gpu *fg, long k)
{
	if (k < 0)
		return -1;
	const struct gw_value *v = &fg->v[k];
	if (v->state != GW_V_OK || v->kind == GW_VK_STR)
		return -1;
	return v->kind == GW_VK_INT ? (double)v->i : v->d;
}

/* Add the frame's point to GPU g's ring and return its time to full in seconds, or -1. */
static double update(struct agent_forecast *fc, unsigned int g, const struct gw_frame *f)
{
	struct agent_forecast_gpu *p = &fc->g[g];
	const struct gw_frame_gpu *fg = &f->gpus[g];
	double used = bytes(fg, fc->used_idx), free_ = bytes(fg, fc->free_idx);
	if (fg->lost || fg->stalled || used < 0 || free_ < 0) {
		p->ring.n = 0; /* a gap: start again rather than join across it */
		return -1;
	}
	return gw_trend_ring_add(&p->ring, (double)f->t_ms / 1000.0, used, used + free_,
				 (double)fc->window_ms / 1000.0, fc->scratch);
}

static int store(struct gw_agent *a, struct gw_gpu *gpu, uint64_t *ref, int64_t t, double v)
{
	struct agent_history *h = &a->history;
	char idx[16];
	snprintf(idx, sizeof(idx), "%u", gpu->index);
	struct gw_lpair l[] = {{GW_METRIC_NAME, FORECAST_NAME},
			       {"gpu", idx},
			       {"uuid", gpu->uuid},
			       {"pci_bus_id", gpu->bus_id},
			       {"model", gpu->name},
			       {"instance", h->instance},
			       {"job", h->job}};
	pthread_mutex_lock(&h->append_mu);
	int rc = *ref ? 0 : gw_tsdb_series(h->db, l, sizeof(l) / sizeof(l[0]), ref);
	if (rc == 0)
		rc = gw_tsdb_append(h->db, *ref, t, v);
	pthread_mutex_unlock(&h->append_mu);
	if (rc == 0)
		agent_rw_note_append(a, t); /* a frame a step, taken after it was published */
	return rc;
}

static void step(struct gw_agent *a, const struct gw_frame *f)
{
	struct agent_forecast *fc = &a->forecast;
	for (unsigned int g = 0; g < f->ngpus && g < fc->ngpus; g++) {
		double s = update(fc, g, f);
		struct agent_forecast_gpu *p = &fc->g[g];
		pthread_mutex_lock(&fc->mu);
		p->seconds = s;
		pthread_mutex_unlock(&fc->mu);
		/* an out-of-order or refused sample is dropped, as the rules' are */
		if (a->history.db && (s >= 0 || p->stored))
			store(a, f->gpus[g].gpu, &p->ref, f->t_ms, s >= 0 ? s : gw_stale_nan());
		p->stored = s >= 0;
	}
}

static void *run(void *arg)
{
	struct gw_agent *a = arg;
	struct agent_forecast *fc = &a->forecast;
	int64_t last = 0;
	pthread_mutex_lock(&fc->mu);
	while (!fc->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t ns = ts.tv_nsec + (int64_t)a->interval_ms * 1000000;
		ts.tv_sec += ns / 1000000000;
		ts.tv_nsec = ns % 1000000000;
		pthread_cond_timedwait(&fc->cv, &fc->mu, &ts);
		if (fc->stop)
			break;
		pthread_mutex_unlock(&fc->mu);
		const struct gw_frame *f = gw_sampler_acquire(a->sampler);
		if (f && f->t_ms - last >= fc->step_ms) {
			last = f->t_ms;
			step(a, f);
		}
		gw_sampler_release(a->sampler, f);
		pthread_mutex_lock(&fc->mu);
	}
	pthread_mutex_unlock(&fc->mu);
	return NULL;
}

int agent_forecast_start(struct gw_agent *a, struct gw_err *err)
{
	struct agent_forecast *fc = &a->forecast;
	fc->window_ms = a->o.forecast_window_ms ? a->o.forecast_window_ms : 10 * 60 * 1000;
	/* at most 10 trends a second a GPU, however short the window or fast the sampling */
	fc->step_ms = gw_trend_step_ms(fc->window_ms, a->interval_ms);
	fc->used_idx = gw_field_index(gw_field_find("memory.used"));
	fc->free_idx = gw_field_index(gw_field_find("memory.free"));
	fc->ngpus = a->ngpus;
	fc->g = calloc(a->ngpus ? a->ngpus : 1, sizeof(*fc->g));
	fc->scratch = malloc(gw_trend_scratch(GW_TREND_POINTS) * sizeof(double));
	if (!fc->g || !fc->scratch) {
		free(fc->g);
		free(fc->scratch);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	for (unsigned int g = 0; g < a->ngpus; g++)
		fc->g[g].seconds = -1;
	pthread_mutex_init(&fc->mu, NULL);
	pthread_cond_init(&fc->cv, NULL);
	int rc = pthread_create(&fc->thread, NULL, run, a);
	if (rc) {
		pthread_cond_destroy(&fc->cv);
		pthread_mutex_destroy(&fc->mu);
		free(fc->g);
		free(fc->scratch);
		return gw_err_set(err, GW_ENOMEM, "cannot start the memory forecast: %s", strerror(rc));
	}
	fc->running = true;
	return 0;
}

void agent_forecast_stop(struct gw_agent *a)
{
	struct agent_forecast *fc = &a->forecast;
	if (!fc->running)
		return;
	pthread_mutex_lock(&fc->mu);
	fc->stop = true;
	pthread_cond_signal(&fc->cv);
	pthread_mutex_unlock(&fc->mu);
	pthread_join(fc->thread, NULL);
	pthread_cond_destroy(&fc->cv);
	pthread_mutex_destroy(&fc->mu);
	free(fc->g);
	free(fc->scratch);
	fc->running = false;
}

void agent_forecast_render(struct gw_agent *a, struct gw_expfmt *w)
{
	struct agent_forecast *fc = &a->forecast;
	if (!fc->running)
		return;
	bool opened = false;
	pthread_mutex_lock(&fc->mu);
	for (unsigned int g = 0; g < fc->ngpus; g++) {
		if (fc->g[g].seconds < 0)
			continue;
		if (!opened)
			gw_expfmt_family(
			    w, FORECAST_NAME,
			    "Seconds until device memory use, at its trend over the forecast window "
			    "(Theil-Sen), reaches the memory usable; absent while it is not growing.",
			    GW_METRIC_GAUGE);
		opened = true;
		char idx[16];
		snprintf(idx, sizeof(idx), "%u", a->gpus[g].index);
		struct gw_label l[] = {{"gpu", idx},
				       {"uuid", a->gpus[g].uuid},
				       {"pci_bus_id", a->gpus[g].bus_id},
				       {"model", a->gpus[g].name}};
		gw_expfmt_sample(w, l, 4, fc->g[g].seconds);
	}
	pthread_mutex_unlock(&fc->mu);
}
