#include "nvml/dsamples.h"

#include <stdlib.h>
#include <string.h>

/* The driver's ring holds ~120 samples per kind; a bigger answer is capped here. */
#define CAP_DEFAULT 256 /* when the driver will not say its ring size */
#define CAP_MAX 4096
#define STALE_US 2000000 /* no new driver sample this long: drop the window, find the position afresh */

static const nvmlSamplingType_t sampling_type[GW_DS__COUNT] = {
    [GW_DS_GPU_UTIL] = NVML_GPU_UTILIZATION_SAMPLES,
    [GW_DS_MEM_UTIL] = NVML_MEMORY_UTILIZATION_SAMPLES,
    [GW_DS_POWER] = NVML_TOTAL_POWER_SAMPLES,
};

/* NVML answers "this GPU or driver has no such samples": stop asking. */
static bool unsupported(nvmlReturn_t r)
{
	return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND ||
	       r == NVML_ERROR_DEPRECATED || r == NVML_ERROR_NO_PERMISSION;
}

/* How many samples the driver keeps for this kind (NULL buffer: NVML reports the size). */
static nvmlReturn_t probe(struct gw_nvml *nv, struct gw_gpu *gpu, enum gw_dsample_kind k, unsigned int *count,
			  struct gw_nvml_tally *tally)
{
	nvmlValueType_t vt;
	*count = 0;
	return GW_NVML_CALL(tally, gpu, nv, nvmlDeviceGetSamples, gpu->dev, sampling_type[k], 0, &vt, count,
			    NULL);
}

int gw_dsamples_open(struct gw_nvml *nv, struct gw_gpu *gpu, unsigned int interval_ms,
		     struct gw_nvml_tally *tally)
{
	gpu->dsamples = NULL;
	if (!nv->nvmlDeviceGetSamples || gpu->lost)
		return 0; /* an old driver: no such metrics, and no calls to fail */
	struct gw_dsamples *d = calloc(1, sizeof(*d));
	if (!d)
		return GW_ENOMEM;
	unsigned int cap = 0, nsupported = 0;
	for (int k = 0; k < GW_DS__COUNT; k++) {
		unsigned int n = 0;
		nvmlReturn_t r = probe(nv, gpu, (enum gw_dsample_kind)k, &n, tally);
		if (r == NVML_ERROR_GPU_IS_LOST)
			gpu->lost = true;
		/* A failed probe is not a verdict: the kind is tried again every tick. */
		d->k[k].supported = !unsupported(r) && r != NVML_ERROR_GPU_IS_LOST;
		nsupported += d->k[k].supported;
		if (r == NVML_SUCCESS && n > cap)
			cap = n;
	}
	if (!nsupported) {
		free(d);
		return 0;
	}
	d->cap = cap ? (cap < CAP_MAX ? cap : CAP_MAX) : CAP_DEFAULT;
	d->buf = calloc(d->cap, sizeof(*d->buf));
	if (!d->buf) {
		free(d);
		return GW_ENOMEM;
	}
	d->first_window_us = (int64_t)(interval_ms ? interval_ms : 1000) * 1000;
	gpu->dsamples = d;
	return 0;
}

void gw_dsamples_close(struct gw_gpu *gpu)
{
	struct gw_dsamples *d = gpu->dsamples;
	if (!d)
		return;
	free(d->buf);
	free(d);
	gpu->dsamples = NULL;
}

static bool value_of(nvmlValueType_t vt, const nvmlValue_t *v, double *out)
{
	switch (vt) {
	case NVML_VALUE_TYPE_DOUBLE:
		*out = v->dVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		*out = v->uiVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		*out = (double)v->ulVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		*out = (double)v->ullVal;
		return true;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		*out = (double)v->sllVal;
		return true;
	case NVML_VALUE_TYPE_SIGNED_INT:
		*out = v->siVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT:
		*out = v->usVal;
		return true;
	default:
		return false;
	}
}

/*
 * The driver's ring outgrew our buffer (INSUFFICIENT_SIZE): grow once to
 * its size, up to CAP_MAX. Rare enough not to count as allocating per tick.
 */
static void grow(struct gw_nvml *nv, struct gw_gpu *gpu, struct gw_dsamples *d, enum gw_dsample_kind k,
		 struct gw_nvml_tally *tally)
{
	unsigned int n = 0;
	if (probe(nv, gpu, k, &n, tally) != NVML_SUCCESS || n <= d->cap || d->cap >= CAP_MAX)
		return;
	n = n < CAP_MAX ? n : CAP_MAX;
	nvmlSample_t *nb = realloc(d->buf, (size_t)n * sizeof(*nb));
	if (!nb)
		return;
	d->buf = nb;
	d->cap = n;
}

/* The statistics of the samples in buf[0..n) newer than the window's start;
 * false when none is new. */
static bool take(struct gw_dsample_window *w, const nvmlSample_t *buf, unsigned int n, nvmlValueType_t vt,
		 int64_t first_window_us)
{
	unsigned long long newest = w->last_seen_us;
	for (unsigned int i = 0; i < n; i++)
		if (buf[i].timeStamp > newest)
			newest = buf[i].timeStamp;
	unsigned long long from = w->last_seen_us;
	if (!from && w->floor_us && w->floor_us <= newest) {
		from = w->floor_us; /* a restart of the position: all after the newest read before */
	} else if (!from) {
		/* The first drain, or the driver's time went back: one interval back from its newest. */
		from = newest > (unsigned long long)first_window_us
			   ? newest - (unsigned long long)first_window_us
			   : 0;
	}
	double max = 0, min = 0, sum = 0;
	unsigned int count = 0;
	for (unsigned int i = 0; i < n; i++) {
		double x;
		/* Older than the position: read before (a driver that ignores lastSeenTimeStamp). */
		if (buf[i].timeStamp <= from)
			continue;
		if (!value_of(vt, &buf[i].sampleValue, &x)) {
			w->supported = w->valid = false; /* a value type we cannot read: never guess */
			return true;
		}
		if (!count || x > max)
			max = x;
		if (!count || x < min)
			min = x;
		sum += x;
		count++;
	}
	w->last_seen_us = newest;
	if (!count)
		return false;
	w->empty = 0;
	w->floor_us = 0;
	w->max = max;
	w->min = min;
	w->mean = sum / count;
	w->n = count;
	w->total += count;
	w->valid = true;
	return true;
}

/*
 * No sample newer than the last one read: the previous window stands, for a
 * while. After STALE_US it is dropped, and the position found afresh: a
 * wall-clock step back would otherwise leave the driver's new time stamps
 * behind it for as long as the step.
 */
static void nothing_new(const struct gw_dsamples *d, struct gw_dsample_window *w)
{
	if (++w->empty < 3 || (int64_t)w->empty * d->first_window_us < STALE_US)
		return;
	w->valid = false;
	if (w->last_seen_us)
		w->floor_us = w->last_seen_us;
	w->last_seen_us = 0;
	w->empty = 0;
}

static void drain(struct gw_nvml *nv, struct gw_gpu *gpu, struct gw_dsamples *d, enum gw_dsample_kind k,
		  struct gw_nvml_tally *tally)
{
	struct gw_dsample_window *w = &d->k[k];
	w->n = 0;
	if (!w->supported)
		return;
	nvmlValueType_t vt = NVML_VALUE_TYPE_UNSIGNED_INT;
	unsigned int n = d->cap;
	nvmlReturn_t r = GW_NVML_CALL(tally, gpu, nv, nvmlDeviceGetSamples, gpu->dev, sampling_type[k],
				      w->last_seen_us, &vt, &n, d->buf);
	switch (r) {
	case NVML_SUCCESS:
		if (!take(w, d->buf, n < d->cap ? n : d->cap, vt, d->first_window_us))
			nothing_new(d, w);
		return;
	case NVML_ERROR_NOT_FOUND:
	case NVML_ERROR_NO_DATA:
		nothing_new(d, w);
		return;
	case NVML_ERROR_INSUFFICIENT_SIZE:
		grow(nv, gpu, d, k, tally); /* read on the next tick: the position did not move */
		return;
	case NVML_ERROR_GPU_IS_LOST:
		gpu->lost = true;
		w->valid = false;
		return;
	default:
		if (unsupported(r))
			w->supported = false;
		w->valid = false; /* unknown for this tick; the next drain covers the gap */
		return;
	}
}

void gw_dsamples_tick(struct gw_nvml *nv, struct gw_gpu *gpu, struct gw_nvml_tally *tally)
{
	struct gw_dsamples *d = gpu->dsamples;
	for (int k = 0; d && k < GW_DS__COUNT && !gpu->lost; k++)
		drain(nv, gpu, d, (enum gw_dsample_kind)k, tally);
}
