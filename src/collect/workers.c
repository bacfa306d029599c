#include "collect/workers.h"

#include "nvml/dsamples.h"
#include "nvml/gpm.h"
#include "fields/fields_table.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The fields due this time: slow ones on their cadence, static ones once, unexported ones once. */
static void plan(const struct gw_workers *p, struct gw_worker *w, bool slow)
{
	for (size_t i = 0; i < p->nfields; i++) {
		const struct gw_field *f = gw_field_at(i);
		if ((f->flags & GW_FL_ON_DEMAND) &&
		    !(p->cfg.want && atomic_load_explicit(&p->cfg.want[i], memory_order_relaxed))) {
			w->reading[i] = false; /* nobody asks: no value */
			w->v[i] = (struct gw_value){.state = GW_V_NA};
			w->kib[i].have = false;
			continue;
		}
		bool carry = w->have && (f->flags & GW_FL_SLOW) && !slow;
		if (w->have && w->v[i].state == GW_V_OK && (f->flags & GW_FL_STATIC))
			carry = true;
		if (!f->prom && !f->dcgm)
			carry = carry || w->have; /* not exported: read once, for identity labels */
		w->reading[i] = !carry;
	}
}

/*
 * DCGM's bandwidth from a KiB counter, as its cache manager computes it:
 * the change since the previous read per second, divided by 1000, cut to
 * an integer; 0 on the first read, when the counter reads 0 and when it
 * went backwards (a driver reload).
 */
static void kib_rates(const struct gw_workers *p, struct gw_worker *w, int64_t t_ms)
{
	for (size_t i = 0; i < p->nfields; i++) {
		if (!w->reading[i] || !(gw_field_at(i)->flags & GW_FL_KIB_RATE))
			continue;
		struct gw_value *v = &w->v[i];
		struct gw_kib_prev *k = &w->kib[i];
		if (v->state != GW_V_OK || v->kind != GW_VK_INT) {
			k->have = false;
			continue;
		}
		int64_t now = v->i, rate = 0;
		if (k->have && now != 0 && now >= k->kib && t_ms > k->t_ms)
			rate = (int64_t)((double)(now - k->kib) / ((double)(t_ms - k->t_ms) / 1000.0) / 1000.0);
		*k = (struct gw_kib_prev){.kib = now, .t_ms = t_ms, .have = true};
		v->i = rate;
	}
}

static void read_procs(const struct gw_workers *p, struct gw_worker *w)
{
	struct gw_nvml *nv = p->cfg.nv;
	struct gw_procs l = {0};
	if (gw_procs_list_counted(nv, w->gpu, &l, &w->tally) != 0)
		return;
	/* On the process cadence only: a few small /proc reads per process. */
	for (size_t i = 0; p->cfg.attr && i < l.n; i++)
		gw_cgroup_attribute(p->cfg.attr, l.v[i].pid, &l.v[i].attr);
	gw_procs_util(nv, w->gpu, &l, &w->proc_util_seen_us, &w->tally);
	gw_procs_release(&w->procs);
	w->procs = l;
}

static void read_migs(const struct gw_workers *p, struct gw_worker *w)
{
	struct gw_migs m;
	if (gw_mig_list(p->cfg.nv, w->gpu->dev, &m) != 0)
		return;
	gw_migs_release(&w->migs);
	w->migs = m;
}

/* One read of the worker's GPU for tick t_ms, into its own buffers. */
static void read_gpu(const struct gw_workers *p, struct gw_worker *w, int64_t t_ms)
{
	struct gw_read_ctx ctx = {.nv = p->cfg.nv,
				  .gpu = w->gpu,
				  .gpu_count = p->cfg.gpu_count,
				  .tally = &w->tally,
				  .memo = &w->memo};
	ctx.now.tv_sec = t_ms / 1000;
	ctx.now.tv_nsec = (long)(t_ms % 1000) * 1000000L;
	if (w->gpu->lost && w->have) {
		/* Lost: its series stop; keep nothing stale around. */
		for (size_t i = 0; i < p->nfields; i++)
			w->v[i].state = GW_V_GPU_LOST;
		gw_procs_release(&w->procs);
		gw_migs_release(&w->migs);
		return;
	}
	bool slow = !w->have || t_ms - w->last_slow_ms >= (int64_t)p->cfg.slow_interval_ms;
	bool procs = !w->have || t_ms - w->last_proc_ms >= (int64_t)p->cfg.proc_interval_ms;
	/* The tick's own time, not the real clock: GPM's minimum gap then also
	 * holds on a simulator's virtual clock (`sim record` ticks faster than real time). */
	gw_gpm_tick(p->cfg.nv, w->gpu, t_ms, &w->tally);
	gw_dsamples_tick(p->cfg.nv, w->gpu, &w->tally);
	plan(p, w, slow);
	/* The GPU's shared answers: each call several fields read is made once. */
	gw_read_memo_clear(&w->memo);
	gw_read_prefetch(&ctx, w->reading);
	for (size_t i = 0; i < p->nfields; i++) {
		if (!w->reading[i])
			continue;
		gw_field_read(gw_field_at(i), &ctx, &w->v[i]);
		if (w->v[i].state == GW_V_UNKNOWN_ERROR || w->v[i].state == GW_V_GPU_LOST)
			w->read_errors++;
	}
	kib_rates(p, w, t_ms);
	if (procs && !w->gpu->lost) {
		read_procs(p, w);
		read_migs(p, w);
	}
	if (slow)
		w->last_slow_ms = t_ms;
	if (procs)
		w->last_proc_ms = t_ms;
	w->have = true;
}

/*
 * Hand the next idle worker of this round its read, with its share of the
 * time left to the deadline; p->mu held. The reads go one after another:
 * reads in parallel contend for the driver (and the simulator's lock) and
 * cost more CPU than they save. A read that outlasts its share goes on
 * alongside the next ones, up to the deadline.
 */
static void dispatch_next(struct gw_workers *p, double now)
{
	p->cur = NULL;
	while (p->next < p->n) {
		unsigned int left = p->n - p->next;
		struct gw_worker *w = &p->w[p->next++];
		if (w->busy)
			continue; /* still in an earlier tick's read: no new work */
		w->busy = true;
		w->round = p->round;
		w->t_ms = p->t_ms;
		w->busy_since = now;
		p->pending++;
		p->cur = w;
		p->cur_end = now + (p->end - now) / left;
		pthread_cond_signal(&w->go);
		return;
	}
}

static void *worker_loop(void *arg)
{
	struct gw_worker *w = arg;
	struct gw_workers *p = w->pool;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!w->busy && !p->stop)
			pthread_cond_wait(&w->go, &p->mu);
		if (p->stop)
			break;
		int64_t t_ms = w->t_ms;
		uint64_t round = w->round;
		pthread_mutex_unlock(&p->mu);
		read_gpu(p, w, t_ms);
		pthread_mutex_lock(&p->mu);
		w->busy = false;
		w->read_errors_pub = w->read_errors;
		/* A read of an earlier tick that ran late is no part of this round. */
		if (round == p->round) {
			p->pending--;
			if (p->cur == w)
				dispatch_next(p,
					      mono_s()); /* straight on, without a trip through the sampler */
			if (!p->cur && !p->pending)
				pthread_cond_signal(&p->done);
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int gw_workers_init(struct gw_workers *p, const struct gw_workers_cfg *cfg, struct gw_gpu *gpus,
		    unsigned int n)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->nfields = gw_fields_count();
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->done, &ca);
	pthread_condattr_destroy(&ca);
	p->w = calloc(n ? n : 1, sizeof(*p->w));
	if (!p->w)
		return GW_ENOMEM;
	p->n = n;
	for (unsigned int g = 0; g < n; g++) {
		struct gw_worker *w = &p->w[g];
		w->gpu = &gpus[g];
		w->pool = p;
		pthread_cond_init(&w->go, NULL);
		w->v = calloc(p->nfields ? p->nfields : 1, sizeof(*w->v));
		w->reading = calloc(p->nfields ? p->nfields : 1, sizeof(*w->reading));
		w->kib = calloc(p->nfields ? p->nfields : 1, sizeof(*w->kib));
		if (!w->v || !w->reading || !w->kib || gw_nvml_tally_init(&w->tally, cfg->gpu_count) != 0)
			return GW_ENOMEM;
	}
	for (unsigned int g = 0; g < n; g++) {
		if (pthread_create(&p->w[g].thread, NULL, worker_loop, &p->w[g]) != 0)
			return GW_ENOMEM;
		p->w[g].started = true;
	}
	return 0;
}

void gw_workers_release(struct gw_workers *p)
{
	if (!p->w)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	for (unsigned int g = 0; g < p->n; g++)
		pthread_cond_signal(&p->w[g].go);
	pthread_mutex_unlock(&p->mu);
	for (unsigned int g = 0; g < p->n; g++) {
		struct gw_worker *w = &p->w[g];
		if (w->started)
			pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->go);
		free(w->v);
		free(w->reading);
		free(w->kib);
		gw_procs_release(&w->procs);
		gw_migs_release(&w->migs);
		gw_nvml_tally_release(&w->tally);
	}
	free(p->w);
	p->w = NULL;
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
}

unsigned int gw_workers_run(struct gw_workers *p, int64_t t_ms, unsigned int timeout_ms)
{
	double now = mono_s();
	pthread_mutex_lock(&p->mu);
	p->round++;
	p->pending = 0;
	p->next = 0;
	p->t_ms = t_ms;
	p->end = now + timeout_ms / 1000.0;
	dispatch_next(p, now);
	while ((p->cur || p->pending) && now < p->end) {
		double until = p->cur && p->cur_end < p->end ? p->cur_end : p->end;
		struct timespec ts = {.tv_sec = (time_t)until,
				      .tv_nsec = (long)((until - (double)(time_t)until) * 1e9)};
		pthread_cond_timedwait(&p->done, &p->mu, &ts);
		now = mono_s();
		if (p->cur && p->cur->busy && now >= p->cur_end)
			dispatch_next(p, now); /* it overran its share: the next ones go on meanwhile */
	}
	unsigned int stalled = 0;
	for (unsigned int g = 0; g < p->n; g++) {
		struct gw_worker *w = &p->w[g];
		/* Not handed a read by the deadline (the ones before overran it): not fresh either. */
		w->fresh = !w->busy && w->round == p->round;
		w->stalled_seconds = w->busy ? now - w->busy_since : 0;
		if (w->busy && w->round == p->round)
			w->timeouts++; /* once per read, at the deadline it missed */
		stalled += !w->fresh;
	}
	p->cur = NULL; /* the reads still running finish on their own */
	pthread_mutex_unlock(&p->mu);
	return stalled;
}

uint64_t gw_workers_merge(struct gw_workers *p, struct gw_nvml_tally *t)
{
	uint64_t errors = 0;
	pthread_mutex_lock(&p->mu);
	for (unsigned int g = 0; g < p->n; g++) {
		struct gw_worker *w = &p->w[g];
		errors += w->read_errors_pub;
		if (w->busy || !w->tally.total)
			continue;
		/* A worker counts calls on its own GPU only: one row to add. */
		for (int fn = 0; fn < GW_NVML_FN__COUNT; fn++)
			if (w->tally.by_fn[fn])
				gw_nvml_tally_add(t, w->gpu, (enum gw_nvml_fn)fn, w->tally.last_ret[fn],
						  w->tally.by_fn[fn]);
		for (unsigned int r = 0; r <= w->tally.ngpus; r++)
			memset(w->tally.rows[r], 0, sizeof(w->tally.rows[r]));
		memset(w->tally.by_fn, 0, sizeof(w->tally.by_fn));
		w->tally.total = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return errors;
}
