/*
 * report_train.c - the work the GPUs did, where a training job counts it:
 * each job that pushed gpuwatch_training_tokens_total (or that `sim record`
 * wrote), its GPUs (the gpus label of its gpuwatch_training_model_info,
 * else every GPU of the instance it pushed to), its tokens, tokens a second,
 * its GPUs' energy and the energy a token; and where the GPUs ran under
 * several power limits in the range, the same at each limit, which is what
 * the power_limit finding reads.
 *
 * Energy here is, for each rise of the job's counter, its GPUs' mean power
 * in the grid bucket of that sample times the time since the previous one,
 * so tokens and joules cover the same time.
 */
#include "analysis/report_int.h"

#include "core/sort.h"
#include "model/labels.h"
#include "model/match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRAIN_MAX 64
#define LIMITS_MAX 16
/* power_limit: limits that keep this share of the best measured throughput are proposed ... */
#define KEEP_THROUGHPUT 0.90
/* ... when they give at least this much more tokens a joule than the latest limit */
#define MIN_GAIN 1.05

struct job_acc {
	double *tok;	 /* [grid]: tokens counted in the bucket, NaN: none */
	double *sec;	 /* [grid]: the time they were counted over, s */
	bool *gpu;	 /* [ngpus]: the job's GPUs */
	bool gpus_named; /* a model_info named them */
};

static size_t bucket_of(const struct gw_report *r, int64_t t)
{
	int64_t rel = t - r->from + r->step / 2;
	size_t b = rel < 0 ? 0 : (size_t)(rel / r->step);
	return b >= r->ngrid ? r->ngrid - 1 : b;
}

static long train_index(struct gw_report *r, struct job_acc *acc, const char *job)
{
	for (size_t i = 0; i < r->ntrain; i++)
		if (strcmp(r->train[i].job, job) == 0)
			return (long)i;
	if (r->ntrain == TRAIN_MAX)
		return GW_ERANGE; /* the rest are left out */
	struct gw_report_train *t = &r->train[r->ntrain];
	memset(t, 0, sizeof(*t));
	struct job_acc *a = &acc[r->ntrain];
	t->job = gw_arena_strdup(&r->arena, job);
	a->tok = gw_arena_alloc_uninit(&r->arena, r->ngrid * sizeof(double));
	a->sec = gw_arena_alloc(&r->arena, r->ngrid * sizeof(double));
	a->gpu = gw_arena_alloc(&r->arena, (r->ngpus ? r->ngpus : 1) * sizeof(bool));
	t->gpus = gw_arena_alloc(&r->arena, (r->ngpus ? r->ngpus : 1) * sizeof(size_t));
	t->lim = gw_arena_alloc(&r->arena, LIMITS_MAX * sizeof(*t->lim));
	if (!t->job || !a->tok || !a->sec || !a->gpu || !t->gpus || !t->lim)
		return GW_ENOMEM;
	for (size_t k = 0; k < r->ngrid; k++)
		a->tok[k] = NAN;
	a->gpus_named = false;
	return (long)r->ntrain++;
}

/*
 * Each rise of the counter and the time since the sample before, into the
 * bucket of its sample; after a reset, the value it restarted from. A rise
 * over a gap longer than GAP_MS is left out: the GPUs' power over it is not
 * known well enough to set against it.
 */
#define GAP_MS 300000
static void add_tokens(const struct gw_report *r, const struct gw_series *s, const struct job_acc *a)
{
	for (size_t i = 1; i < s->n; i++) {
		double d = s->v[i] - s->v[i - 1];
		int64_t dt = s->t[i] - s->t[i - 1];
		if (isnan(d) || dt <= 0 || dt > GAP_MS)
			continue;
		if (d < 0)
			d = s->v[i];
		size_t b = bucket_of(r, s->t[i]);
		a->tok[b] = (isnan(a->tok[b]) ? 0 : a->tok[b]) + d;
		a->sec[b] += (double)dt / 1000.0;
	}
}

/* The GPUs of an instance; "a,b": by index or UUID. */
static void mark_gpus(const struct gw_report *r, const char *instance, const char *list, bool *gpu)
{
	for (size_t i = 0; i < r->ngpus; i++) {
		const struct gw_report_gpu *g = &r->gpu[i];
		if (instance && strcmp(g->instance, instance) != 0)
			continue;
		if (!list) {
			gpu[i] = true;
			continue;
		}
		for (const char *p = list; *p;) {
			size_t n = strcspn(p, ",");
			if ((strlen(g->index) == n && strncmp(g->index, p, n) == 0) ||
			    (g->uuid[0] && strlen(g->uuid) == n && strncmp(g->uuid, p, n) == 0))
				gpu[i] = true;
			p += n + (p[n] == ',');
		}
	}
}

/* The latest limit the job's GPUs agree on at grid point k (whole watts), or NaN. */
static double limit_at(const struct gw_report *r, const struct gw_report_train *t, size_t k)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < t->ngpus; i++) {
		const double *lg = r->gpu[t->gpus[i]].grid_limit;
		double v = lg ? lg[k] : NAN;
		if (isnan(v))
			return NAN;
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	return t->ngpus && hi - lo < 1.0 ? round(lo) : NAN;
}

static void add_at_limit(struct gw_report_train *t, double w, double secs, double tok, double joules)
{
	size_t i = 0;
	while (i < t->nlim && t->lim[i].watts != w)
		i++;
	if (i == t->nlim) {
		if (t->nlim == LIMITS_MAX)
			return;
		t->lim[t->nlim++] = (struct gw_report_plimit){.watts = w};
	}
	t->lim[i].seconds += secs;
	t->lim[i].tokens += tok;
	t->lim[i].energy_j += joules;
}

/* Totals of one job over the points where its tokens were counted and every GPU's power is known. */
static void job_totals(struct gw_report *r, struct gw_report_train *t, const struct job_acc *a)
{
	for (size_t k = 0; k < r->ngrid; k++) {
		if (isnan(a->tok[k]))
			continue;
		double j = 0, secs = a->sec[k];
		for (size_t i = 0; i < t->ngpus && !isnan(j); i++) {
			const double *pw = r->gpu[t->gpus[i]].grid[GW_RS_POWER];
			j += pw ? pw[k] * secs : NAN;
		}
		t->tokens += a->tok[k];
		t->seconds += secs;
		if (isnan(j)) {
			t->energy_partial = true;
			continue;
		}
		t->energy_j += j;
		t->tokens_metered += a->tok[k];
		double w = limit_at(r, t, k);
		if (!isnan(w)) {
			add_at_limit(t, w, secs, a->tok[k], j);
			t->last_limit = w;
		}
	}
	/* a limit held for less than the detectors' minimum run says nothing on its own */
	size_t kept = 0;
	for (size_t i = 0; i < t->nlim; i++)
		if (t->lim[i].seconds >= GW_RPT_MIN_RUN_S && t->lim[i].energy_j > 0)
			t->lim[kept++] = t->lim[i];
	t->nlim = kept;
}

static int read_info(struct gw_report *r, const struct gw_querier *q, struct job_acc *acc, struct gw_arena *tmp,
		     struct gw_err *err)
{
	struct gw_series_set set = {0};
	int rc = gw_rpt_select_name(q, r, "gpuwatch_training_model_info", tmp, &set, err);
	for (size_t i = 0; !rc && i < set.n; i++) {
		const char *job = gw_labels_get(&set.s[i].labels, "job");
		const char *gpus = gw_labels_get(&set.s[i].labels, "gpus");
		for (size_t ti = 0; job && gpus && gpus[0] && ti < r->ntrain; ti++)
			if (strcmp(r->train[ti].job, job) == 0) {
				mark_gpus(r, gw_labels_get(&set.s[i].labels, "instance"), gpus, acc[ti].gpu);
				acc[ti].gpus_named = true;
			}
	}
	return rc;
}

int gw_rpt_read_train(struct gw_report *r, const struct gw_querier *q, struct gw_err *err)
{
	struct gw_arena tmp;
	gw_arena_init(&tmp, (size_t)1 << 32);
	struct gw_series_set set = {0};
	struct job_acc *acc = gw_arena_alloc(&tmp, TRAIN_MAX * sizeof(*acc));
	r->train = gw_arena_alloc(&r->arena, TRAIN_MAX * sizeof(*r->train));
	int rc = !acc || !r->train ? GW_ENOMEM : gw_rpt_select_name(q, r, "gpuwatch_training_tokens_total", &tmp, &set, err);
	for (size_t i = 0; !rc && i < set.n; i++) {
		const char *job = gw_labels_get(&set.s[i].labels, "job");
		long ti = set.s[i].n >= 2 ? train_index(r, acc, job ? job : "") : GW_ERANGE;
		if (ti == GW_ENOMEM)
			rc = GW_ENOMEM;
		else if (ti >= 0)
			add_tokens(r, &set.s[i], &acc[ti]);
	}
	if (!rc && r->ntrain)
		rc = read_info(r, q, acc, &tmp, err);
	/* without a model_info naming them, a job's GPUs are those of the instances it pushed to */
	for (size_t i = 0; !rc && i < set.n; i++) {
		const char *job = gw_labels_get(&set.s[i].labels, "job");
		for (size_t ti = 0; ti < r->ntrain; ti++)
			if (!acc[ti].gpus_named && strcmp(r->train[ti].job, job ? job : "") == 0)
				mark_gpus(r, gw_labels_get(&set.s[i].labels, "instance"), NULL, acc[ti].gpu);
	}
	for (size_t ti = 0; !rc && ti < r->ntrain; ti++) {
		struct gw_report_train *t = &r->train[ti];
		for (size_t g = 0; g < r->ngpus; g++)
			if (acc[ti].gpu[g])
				t->gpus[t->ngpus++] = g;
		job_totals(r, t, &acc[ti]);
	}
	if (rc && !err->msg[0])
		gw_err_set(err, rc, "reading gpuwatch_training_tokens_total: %s", gw_strerror(rc));
	gw_arena_release(&tmp);
	return rc;
}

/* ---- the power_limit finding -------------------------------------------------- */

static double tps(const struct gw_report_plimit *l)
{
	return l->tokens / l->seconds;
}

static double tpj(const struct gw_report_plimit *l)
{
	return l->tokens / l->energy_j;
}

static int cmp_watts(const void *a, const void *b)
{
	const struct gw_report_plimit *x = a, *y = b;
	return (x->watts > y->watts) - (x->watts < y->watts);
}

static void evidence(const struct gw_report_train *t, char *out, size_t len)
{
	size_t o = (size_t)snprintf(out, len, "job %s at each power limit:", t->job);
	for (size_t i = 0; i < t->nlim && o < len; i++) {
		const struct gw_report_plimit *l = &t->lim[i];
		char d[32];
		gw_rpt_duration(l->seconds, d, sizeof(d));
		o += (size_t)snprintf(out + o, len - o, "%s %.0f W: %.0f tokens/s, %.2f tokens/J over %s", i ? ";" : "",
				      l->watts, tps(l), tpj(l), d);
	}
}

static int find_one(struct gw_report *r, struct gw_report_train *t)
{
	if (t->nlim < 2 || !t->ngpus)
		return 0;
	gw_qsort(t->lim, t->nlim, sizeof(*t->lim), cmp_watts);
	double best_tps = 0;
	const struct gw_report_plimit *cur = NULL, *pick = NULL;
	for (size_t i = 0; i < t->nlim; i++) {
		best_tps = fmax(best_tps, tps(&t->lim[i]));
		if (t->lim[i].watts == t->last_limit)
			cur = &t->lim[i];
	}
	for (size_t i = 0; i < t->nlim; i++)
		if (tps(&t->lim[i]) >= KEEP_THROUGHPUT * best_tps && (!pick || tpj(&t->lim[i]) > tpj(pick)))
			pick = &t->lim[i];
	if (!cur || !pick || pick == cur || tpj(pick) < MIN_GAIN * tpj(cur))
		return 0;
	struct gw_report_finding *f = gw_rpt_finding_add(r, GW_RK_POWER_LIMIT, t->ngpus);
	if (!f)
		return GW_ENOMEM;
	memcpy(f->gpus, t->gpus, t->ngpus * sizeof(size_t));
	f->ngpus = t->ngpus;
	f->from = r->first;
	f->to = r->last;
	evidence(t, f->evidence, sizeof(f->evidence));
	char ids[160];
	size_t o = 0;
	ids[0] = '\0';
	for (size_t i = 0; i < t->ngpus && o + 8 < sizeof(ids); i++)
		o += (size_t)snprintf(ids + o, sizeof(ids) - o, "%s%s", i ? "," : "", r->gpu[t->gpus[i]].index);
	snprintf(f->advice, sizeof(f->advice),
		 "Run at %.0f W instead of %.0f W (nvidia-smi -i %s -pl %.0f): %+.0f%% tokens per joule for "
		 "%+.0f%% tokens a second, as measured here. Only limits keeping %.0f%% of the best measured "
		 "throughput are proposed; limits outside those tried are not extrapolated.",
		 pick->watts, cur->watts, ids, pick->watts, 100 * (tpj(pick) / tpj(cur) - 1),
		 100 * (tps(pick) / tps(cur) - 1), 100 * KEEP_THROUGHPUT);
	return 0;
}

int gw_rpt_find_power_limit(struct gw_report *r)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < r->ntrain; i++)
		rc = find_one(r, &r->train[i]);
	return rc;
}
