#include "collect/sampler.h"

#include "collect/workers.h"
#include "nvml/dsamples.h"
#include "nvml/gpm.h"
#include "fields/fields_table.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL 4 /* frames in rotation: latest, one being built, two held by slow readers */
#define EVENT_WAIT_MS 500 /* the event thread's wait per call: at most this long to stop */

struct gw_sampler {
	struct gw_nvml *nv;
	struct gw_gpu *gpus;
	unsigned int ngpus;
	struct gw_sampler_opts o;
	size_t nfields;

	pthread_mutex_t lock; /* guards refs, latest, events below */
	struct gw_frame *pool[POOL];
	struct gw_frame *latest;
	pthread_mutex_t consumer_mu; /* held while the consumer runs, and to change it */
	gw_frame_fn consumer;
	void *consumer_arg;
	uint64_t consumer_seq; /* the newest frame it was given */

	/* event thread state, copied into each frame */
	struct gw_frame_gpu ev[64];
	nvmlEventSet_t set;
	uint64_t ev_failed;	  /* nvmlEventSetWait failures; the tick moves them into the tally */
	nvmlReturn_t ev_last_ret; /* the latest one's code */

	pthread_t thread, ev_thread;
	bool running, ev_running;
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	bool stop;

	struct gw_workers workers; /* one read thread per GPU */
	unsigned int read_timeout_ms; /* each tick waits this long for the GPUs' reads */
	uint64_t seq, ticks, missed;
	/* Written by the sampling thread only (and before it starts). */
	struct gw_nvml_tally tally; /* failed NVML calls */
	uint64_t ev_counted;	    /* ev_failed already in the tally */
	struct gw_nvml_log log;	    /* which failures were reported */
	struct gw_window *win;	    /* [gpu]: XID and clock event counts over count_window_ms */
	long active_field;	    /* table index of clocks_event_reasons.active; -1: none */
	uint8_t *p2p;		    /* frames' p2p_nvlink */
	_Atomic unsigned char *want; /* per field: GW_FL_ON_DEMAND rows asked for (gw_sampler_want) */
};

/* dcgm-exporter's DCGM_EXP_P2P_STATUS, as DCGM reads it: each ordered pair of GPUs' NVLink P2P status. */
static uint8_t *read_p2p(struct gw_sampler *s)
{
	uint8_t *m = malloc((size_t)s->ngpus * s->ngpus + 1);
	if (!m)
		return NULL;
	memset(m, GW_P2P_UNREAD, (size_t)s->ngpus * s->ngpus + 1);
	for (unsigned int i = 0; s->nv->nvmlDeviceGetP2PStatus && i < s->ngpus; i++)
		for (unsigned int j = 0; j < s->ngpus; j++) {
			nvmlGpuP2PStatus_t st = NVML_P2P_STATUS_UNKNOWN;
			if (i == j || s->gpus[i].lost || s->gpus[j].lost)
				continue;
			nvmlReturn_t r = GW_NVML_CALL(&s->tally, &s->gpus[i], s->nv, nvmlDeviceGetP2PStatus, s->gpus[i].dev,
						      s->gpus[j].dev, NVML_P2P_CAPS_INDEX_NVLINK, &st);
			if (r == NVML_SUCCESS && st >= 0 && st < GW_P2P_UNREAD)
				m[i * s->ngpus + j] = (uint8_t)st;
		}
	return m;
}

void gw_sampler_want(struct gw_sampler *s, const bool *want)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (gw_field_at(i)->flags & GW_FL_ON_DEMAND)
			atomic_store_explicit(&s->want[i], want && want[i], memory_order_relaxed);
}

int64_t gw_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct gw_frame *frame_new(const struct gw_sampler *s)
{
	struct gw_frame *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->ngpus = s->ngpus;
	f->gpus = calloc(s->ngpus ? s->ngpus : 1, sizeof(*f->gpus));
	if (!f->gpus) {
		free(f);
		return NULL;
	}
	for (unsigned int g = 0; g < s->ngpus; g++) {
		f->gpus[g].gpu = &s->gpus[g];
		f->gpus[g].v = calloc(s->nfields, sizeof(struct gw_value));
		if (!f->gpus[g].v)
			return f; /* caller checks every v */
	}
	return f;
}

static void frame_free(struct gw_frame *f)
{
	if (!f)
		return;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		free(f->gpus[g].v);
		gw_procs_release(&f->gpus[g].procs);
		gw_migs_release(&f->gpus[g].migs);
		gw_hpcjobs_unref(f->gpus[g].jobs);
	}
	gw_pods_unref(f->pods);
	free(f->gpus);
	free(f);
}

/* dcgm-exporter's DCGM_EXP_* counts: XIDs by code and clock event reasons, over the window. */
static void count_window(struct gw_sampler *s, struct gw_frame_gpu *fg, unsigned int g, int64_t t_ms)
{
	uint64_t cum[GW_XID_TRACKED];
	for (unsigned int i = 0; i < fg->nxid; i++)
		cum[i] = fg->xid[i].count;
	const struct gw_value *a = s->active_field >= 0 ? &fg->v[s->active_field] : NULL;
	fg->clock_window_valid = a && a->state == GW_V_OK && a->kind == GW_VK_INT;
	gw_window_tick(&s->win[g], t_ms, s->o.count_window_ms, cum, fg->nxid,
		       fg->clock_window_valid ? (uint64_t)a->i : 0, fg->clock_window_valid, fg->xid_window,
		       fg->clock_window);
}

int gw_sampler_new(struct gw_sampler **out, struct gw_nvml *nv, struct gw_gpu *gpus, unsigned int ngpus,
		   const struct gw_sampler_opts *opts, struct gw_err *err)
{
	*out = NULL;
	if (ngpus > 64)
		return gw_err_set(err, GW_ERANGE, "%u GPUs: at most 64 are supported per agent", ngpus);
	struct gw_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	s->nv = nv;
	s->gpus = gpus;
	s->ngpus = ngpus;
	if (opts)
		s->o = *opts;
	if (!s->o.interval_ms)
		s->o.interval_ms = 1000;
	if (s->o.interval_ms < 10)
		s->o.interval_ms = 10;
	if (!s->o.slow_interval_ms)
		s->o.slow_interval_ms = 10000;
	if (!s->o.proc_interval_ms)
		s->o.proc_interval_ms = 5000;
	if (!s->o.count_window_ms)
		s->o.count_window_ms = GW_WINDOW_DEFAULT_MS;
	s->nfields = gw_fields_count();
	s->active_field = -1;
	for (size_t i = 0; i < s->nfields; i++)
		if (strcmp(gw_field_at(i)->name, "clocks_event_reasons.active") == 0)
			s->active_field = (long)i;
	/* A hung GPU is let go before the next tick is due; the rest of the tick is quick. */
	s->read_timeout_ms = s->o.read_timeout_ms ? s->o.read_timeout_ms : s->o.interval_ms * 4 / 5;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->consumer_mu, NULL);
	pthread_mutex_init(&s->stop_lock, NULL);
	pthread_cond_init(&s->stop_cond, NULL);
	gw_nvml_log_init(&s->log, s->o.nvml_log_interval_ms);
	s->win = calloc(ngpus ? ngpus : 1, sizeof(*s->win));
	for (unsigned int g = 0; s->win && g < ngpus; g++)
		if (gw_window_init(&s->win[g], s->o.count_window_ms) != 0) {
			gw_sampler_free(s);
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		}
	s->want = calloc(s->nfields ? s->nfields : 1, sizeof(*s->want));
	if (!s->win || !s->want || gw_nvml_tally_init(&s->tally, ngpus) != 0 || !(s->p2p = read_p2p(s))) {
		gw_sampler_free(s);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	for (int i = 0; i < POOL; i++) {
		s->pool[i] = frame_new(s);
		bool ok = s->pool[i] != NULL;
		for (unsigned int g = 0; ok && g < ngpus; g++)
			ok = s->pool[i]->gpus[g].v != NULL;
		if (!ok) {
			gw_sampler_free(s);
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		}
	}
	for (unsigned int g = 0; g < ngpus; g++) {
		s->ev[g].gpu = &gpus[g];
		/* Hopper and newer: SM/tensor/DRAM activity; any GPU: the driver's sample buffers */
		if (gw_gpm_open(nv, &gpus[g], &s->tally) != 0 ||
		    gw_dsamples_open(nv, &gpus[g], s->o.interval_ms, &s->tally) != 0) {
			gw_sampler_free(s);
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		}
	}
	struct gw_workers_cfg wc = {.nv = nv,
				    .gpu_count = ngpus,
				    .slow_interval_ms = s->o.slow_interval_ms,
				    .proc_interval_ms = s->o.proc_interval_ms,
				    .attr = s->o.attr,
				    .want = s->want};
	if (gw_workers_init(&s->workers, &wc, gpus, ngpus) != 0) {
		gw_sampler_free(s);
		return gw_err_set(err, GW_ENOMEM, "cannot start the GPU read threads");
	}
	*out = s;
	return 0;
}

/* A pool frame nobody references and that is not the latest. */
static struct gw_frame *free_frame(struct gw_sampler *s)
{
	struct gw_frame *f = NULL;
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < POOL && !f; i++)
		if (s->pool[i] != s->latest && s->pool[i]->refs == 0)
			f = s->pool[i];
	if (f)
		f->refs = 1; /* ours while we build it */
	pthread_mutex_unlock(&s->lock);
	return f;
}

static void copy_procs(struct gw_procs *dst, const struct gw_procs *src)
{
	gw_procs_release(dst);
	if (!src->n)
		return;
	dst->v = malloc(src->n * sizeof(*dst->v));
	if (!dst->v)
		return;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = src->n;
}

static void copy_migs(struct gw_migs *dst, const struct gw_migs *src)
{
	gw_migs_release(dst);
	if (!src->n)
		return;
	dst->v = malloc(src->n * sizeof(*dst->v));
	if (!dst->v)
		return;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = src->n;
}

/* A worker's last read into the frame: it is idle, so its buffers hold still. */
static void take_fresh(struct gw_sampler *s, struct gw_frame_gpu *fg, const struct gw_worker *w)
{
	memcpy(fg->v, w->v, s->nfields * sizeof(*fg->v));
	copy_procs(&fg->procs, &w->procs);
	copy_migs(&fg->migs, &w->migs);
	fg->lost = w->gpu->lost;
	fg->stalled = false;
	fg->stalled_seconds = 0;
}

/*
 * A GPU whose read is stuck: nothing it had would be fresh, so its values
 * are not available this tick; only its identity (static and unexported
 * fields, read once) carries over, for the info labels.
 */
static void take_stalled(struct gw_sampler *s, struct gw_frame_gpu *fg, const struct gw_frame_gpu *prev,
			 const struct gw_worker *w)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const struct gw_field *f = gw_field_at(i);
		bool keep = prev && (((f->flags & GW_FL_STATIC) && prev->v[i].state == GW_V_OK) || (!f->prom && !f->dcgm));
		if (keep)
			fg->v[i] = prev->v[i];
		else
			fg->v[i] = (struct gw_value){.state = GW_V_NA, .kind = prev ? prev->v[i].kind : 0};
	}
	gw_procs_release(&fg->procs);
	gw_migs_release(&fg->migs);
	fg->lost = prev && prev->lost;
	fg->stalled = true;
	fg->stalled_seconds = w->stalled_seconds;
}

/* Each GPU's jobs into the frame: the lists are shared, not copied. */
static void set_jobs(struct gw_sampler *s, struct gw_frame *f)
{
	gw_hpcjob_poll(s->o.hpcjob);
	for (unsigned int g = 0; g < s->ngpus; g++) {
		struct gw_hpcjobs *j = gw_hpcjob_get(s->o.hpcjob, s->gpus[g].index);
		if (j)
			gw_hpcjobs_ref(j);
		gw_hpcjobs_unref(f->gpus[g].jobs); /* from this frame's last use */
		f->gpus[g].jobs = j;
	}
}

/* The watcher's current pods into the frame: shared, not copied (NULL while List fails). */
static void set_pods(struct gw_sampler *s, struct gw_frame *f)
{
	gw_pods_unref(f->pods); /* from this frame's last use */
	f->pods = gw_podres_get(s->o.podres);
	for (unsigned int g = 0; g < s->ngpus; g++)
		f->gpus[g].pods = f->pods;
}

/* The tally's counts into the frame; counts only grow, so equal totals mean nothing to copy. */
static void copy_nvml_errors(const struct gw_sampler *s, struct gw_frame *f)
{
	const struct gw_nvml_tally *t = &s->tally;
	if (f->nvml_errors_total == t->total)
		return;
	for (unsigned int g = 0; g < s->ngpus; g++)
		memcpy(f->gpus[g].nvml_errors, t->rows[g], sizeof(f->gpus[g].nvml_errors));
	memcpy(f->nvml_errors, t->rows[s->ngpus], sizeof(f->nvml_errors));
	f->nvml_errors_total = t->total;
}

int gw_sampler_tick(struct gw_sampler *s, int64_t t_ms)
{
	struct gw_frame *f = free_frame(s);
	if (!f)
		return GW_EOVERFLOW; /* every frame held by readers: skip this tick */
	pthread_mutex_lock(&s->lock);
	const struct gw_frame *prev = s->latest;
	if (prev)
		((struct gw_frame *)prev)->refs++;
	pthread_mutex_unlock(&s->lock);

	double t0 = mono_s();
	f->stalled_gpus = gw_workers_run(&s->workers, t_ms, s->read_timeout_ms);
	for (unsigned int g = 0; g < s->ngpus; g++) {
		const struct gw_worker *w = &s->workers.w[g];
		if (w->fresh)
			take_fresh(s, &f->gpus[g], w);
		else
			take_stalled(s, &f->gpus[g], prev ? &prev->gpus[g] : NULL, w);
		f->gpus[g].read_timeouts = w->timeouts;
	}
	f->read_errors_total = gw_workers_merge(&s->workers, &s->tally);
	if (s->o.hpcjob)
		set_jobs(s, f);
	if (s->o.podres)
		set_pods(s, f);
	f->t_ms = t_ms;
	f->p2p_nvlink = s->p2p;
	f->sample_seconds = mono_s() - t0;
	f->seq = ++s->seq;
	f->ticks_total = ++s->ticks;
	f->missed_ticks_total = s->missed;

	pthread_mutex_lock(&s->lock);
	for (unsigned int g = 0; g < s->ngpus; g++) {
		struct gw_frame_gpu *fg = &f->gpus[g];
		memcpy(fg->xid, s->ev[g].xid, sizeof(fg->xid));
		fg->nxid = s->ev[g].nxid;
		fg->last_xid = s->ev[g].last_xid;
		fg->sbe_events = s->ev[g].sbe_events;
		fg->dbe_events = s->ev[g].dbe_events;
	}
	pthread_mutex_unlock(&s->lock);
	for (unsigned int g = 0; g < s->ngpus; g++)
		count_window(s, &f->gpus[g], g, t_ms);
	pthread_mutex_lock(&s->lock);
	uint64_t ev_failed = s->ev_failed;
	nvmlReturn_t ev_ret = s->ev_last_ret;
	pthread_mutex_unlock(&s->lock);
	if (ev_failed > s->ev_counted) {
		gw_nvml_tally_add(&s->tally, NULL, GW_NVML_FN_nvmlEventSetWait_v2, ev_ret, ev_failed - s->ev_counted);
		s->ev_counted = ev_failed;
	}
	copy_nvml_errors(s, f);
	if (s->o.nvml_log)
		gw_nvml_log_check(&s->log, &s->tally, t_ms, s->o.nvml_log, s->o.nvml_log_arg);

	pthread_mutex_lock(&s->lock);
	if (prev)
		((struct gw_frame *)prev)->refs--;
	s->latest = f;
	pthread_mutex_unlock(&s->lock);
	/* Still holding our reference: the consumer reads the frame as published. */
	pthread_mutex_lock(&s->consumer_mu);
	if (s->consumer && f->seq > s->consumer_seq) {
		s->consumer_seq = f->seq;
		s->consumer(s->consumer_arg, f);
	}
	pthread_mutex_unlock(&s->consumer_mu);
	gw_sampler_release(s, f); /* published: only readers hold it now */
	return 0;
}

void gw_sampler_set_consumer(struct gw_sampler *s, gw_frame_fn fn, void *arg)
{
	pthread_mutex_lock(&s->consumer_mu);
	s->consumer = fn;
	s->consumer_arg = arg;
	if (fn) {
		const struct gw_frame *f = gw_sampler_acquire(s);
		if (f && f->seq > s->consumer_seq) {
			s->consumer_seq = f->seq;
			fn(arg, f);
		}
		gw_sampler_release(s, f);
	}
	pthread_mutex_unlock(&s->consumer_mu);
}

const struct gw_frame *gw_sampler_acquire(struct gw_sampler *s)
{
	pthread_mutex_lock(&s->lock);
	struct gw_frame *f = s->latest;
	if (f)
		f->refs++;
	pthread_mutex_unlock(&s->lock);
	return f;
}

void gw_sampler_release(struct gw_sampler *s, const struct gw_frame *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&s->lock);
	((struct gw_frame *)f)->refs--;
	pthread_mutex_unlock(&s->lock);
}

size_t gw_sampler_stalled_text(const struct gw_frame *f, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (unsigned int g = 0; g < f->ngpus && len < n; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		if (!fg->stalled)
			continue;
		int k = snprintf(buf + len, n - len, "%sgpu %u (read stuck %.1f s)", len ? ", " : "", fg->gpu->index,
				 fg->stalled_seconds);
		if (k < 0)
			break;
		len += (size_t)k < n - len ? (size_t)k : n - len - 1;
	}
	return len;
}

/* Sleep until the absolute wall-clock time, or until stop; returns true on stop. */
static bool wait_until(struct gw_sampler *s, int64_t t_ms)
{
	struct timespec ts = {.tv_sec = t_ms / 1000, .tv_nsec = (long)(t_ms % 1000) * 1000000L};
	pthread_mutex_lock(&s->stop_lock);
	while (!s->stop) {
		if (pthread_cond_timedwait(&s->stop_cond, &s->stop_lock, &ts) == ETIMEDOUT)
			break;
	}
	bool stop = s->stop;
	pthread_mutex_unlock(&s->stop_lock);
	return stop;
}

static void *sample_loop(void *arg)
{
	struct gw_sampler *s = arg;
	int64_t iv = s->o.interval_ms;
	int64_t next = (gw_now_ms() / iv + 1) * iv;
	while (!wait_until(s, next)) {
		if (gw_sampler_tick(s, next) == GW_EOVERFLOW)
			s->missed++; /* readers held every frame: this tick is lost too */
		int64_t now = gw_now_ms();
		next += iv;
		if (now >= next) { /* a tick ran long (slow NVML): skip, stay aligned */
			int64_t behind = (now - next) / iv + 1;
			s->missed += (uint64_t)behind;
			next += behind * iv;
		}
	}
	return NULL;
}

static void count_xid(struct gw_frame_gpu *g, unsigned int code)
{
	g->last_xid = code;
	for (unsigned int i = 0; i < g->nxid; i++) {
		if (g->xid[i].code == code) {
			g->xid[i].count++;
			return;
		}
	}
	if (g->nxid < GW_XID_TRACKED) {
		g->xid[g->nxid].code = code;
		g->xid[g->nxid].count = 1;
		g->nxid++;
	}
}

static void *event_loop(void *arg)
{
	struct gw_sampler *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->stop_lock);
		bool stop = s->stop;
		pthread_mutex_unlock(&s->stop_lock);
		if (stop)
			break;
		nvmlEventData_t d;
		memset(&d, 0, sizeof(d));
		/* The driver returns at once with an event; the timeout only bounds how
		 * long gw_sampler_free() waits for this thread: each wake-up for nothing
		 * costs a syscall round trip, so not more often than this. */
		nvmlReturn_t r = s->nv->nvmlEventSetWait_v2(s->set, &d, EVENT_WAIT_MS);
		if (r == NVML_ERROR_TIMEOUT)
			continue; /* no event within the wait: the normal answer, not a failure */
		if (r != NVML_SUCCESS) {
			if (gw_nvml_failed(r)) {
				pthread_mutex_lock(&s->lock);
				s->ev_failed++;
				s->ev_last_ret = r;
				pthread_mutex_unlock(&s->lock);
			}
			struct timespec pause = {0, 200 * 1000000L};
			nanosleep(&pause, NULL);
			continue;
		}
		pthread_mutex_lock(&s->lock);
		for (unsigned int g = 0; g < s->ngpus; g++) {
			if (s->gpus[g].dev != d.device)
				continue;
			if (d.eventType & nvmlEventTypeXidCriticalError)
				count_xid(&s->ev[g], (unsigned int)d.eventData);
			if (d.eventType & nvmlEventTypeSingleBitEccError)
				s->ev[g].sbe_events++;
			if (d.eventType & nvmlEventTypeDoubleBitEccError)
				s->ev[g].dbe_events++;
		}
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

static bool start_events(struct gw_sampler *s)
{
	struct gw_nvml *nv = s->nv;
	if (s->o.no_events || !nv->nvmlEventSetCreate || !nv->nvmlDeviceRegisterEvents || !nv->nvmlEventSetWait_v2)
		return false;
	if (nv->nvmlEventSetCreate(&s->set) != NVML_SUCCESS)
		return false;
	unsigned int registered = 0;
	for (unsigned int g = 0; g < s->ngpus; g++) {
		unsigned long long want = nvmlEventTypeXidCriticalError | nvmlEventTypeSingleBitEccError |
					  nvmlEventTypeDoubleBitEccError,
				   supported = want;
		if (s->gpus[g].lost)
			continue;
		if (nv->nvmlDeviceGetSupportedEventTypes &&
		    nv->nvmlDeviceGetSupportedEventTypes(s->gpus[g].dev, &supported) != NVML_SUCCESS)
			supported = 0;
		if ((want & supported) && nv->nvmlDeviceRegisterEvents(s->gpus[g].dev, want & supported, s->set) ==
						  NVML_SUCCESS)
			registered++;
	}
	if (!registered || pthread_create(&s->ev_thread, NULL, event_loop, s) != 0) {
		if (nv->nvmlEventSetFree)
			nv->nvmlEventSetFree(s->set);
		s->set = NULL;
		return false;
	}
	return true;
}

int gw_sampler_start(struct gw_sampler *s, struct gw_err *err)
{
	s->ev_running = start_events(s);
	gw_sampler_tick(s, gw_now_ms() / s->o.interval_ms * s->o.interval_ms);
	if (pthread_create(&s->thread, NULL, sample_loop, s) != 0)
		return gw_err_set(err, GW_ENOMEM, "cannot start the sampling thread");
	s->running = true;
	return 0;
}

void gw_sampler_stop(struct gw_sampler *s)
{
	pthread_mutex_lock(&s->stop_lock);
	s->stop = true;
	pthread_cond_broadcast(&s->stop_cond);
	pthread_mutex_unlock(&s->stop_lock);
	if (s->running)
		pthread_join(s->thread, NULL);
	s->running = false;
	if (s->ev_running) {
		pthread_join(s->ev_thread, NULL);
		if (s->nv->nvmlEventSetFree)
			s->nv->nvmlEventSetFree(s->set);
	}
	s->ev_running = false;
}

void gw_sampler_free(struct gw_sampler *s)
{
	if (!s)
		return;
	gw_sampler_stop(s);
	gw_workers_release(&s->workers);
	for (int i = 0; i < POOL; i++)
		frame_free(s->pool[i]);
	for (unsigned int g = 0; g < s->ngpus; g++) {
		gw_gpm_close(s->nv, &s->gpus[g]);
		gw_dsamples_close(&s->gpus[g]);
	}
	gw_nvml_tally_release(&s->tally);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->consumer_mu);
	pthread_mutex_destroy(&s->stop_lock);
	pthread_cond_destroy(&s->stop_cond);
	for (unsigned int g = 0; s->win && g < s->ngpus; g++)
		gw_window_release(&s->win[g]);
	free(s->win);
	free(s->p2p);
	free((void *)s->want);
	free(s);
}
