/*
 * eval_range.c - PromQL's range-vector functions, as Prometheus 2.42
 * computes them: extrapolated rate/increase/delta, instant irate/idelta,
 * regression for deriv/predict_linear, holt_winters, changes/resets, the
 * *_over_time family, and absent()/absent_over_time() labels.
 */
#include "promql/eval_int.h"
#include "core/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- range-vector functions (one series in, one value out) ----------------- */

struct rng {
	const struct gw_series *s;
	int64_t ts;        /* evaluation time */
	int64_t range_ms;  /* of the matrix selector */
	int64_t range_end; /* reference time of the selection (ts - offset, or @) */
	double arg;        /* scalar argument (quantile, predict duration) */
	double arg2;
	bool counts;       /* the samples are a tier's counts: count_over_time adds them */
};

static bool extrapolated(const struct rng *r, bool counter, bool rate, double *out)
{
	const struct gw_series *s = r->s;
	if (s->n < 2)
		return false;
	double result = s->v[s->n - 1] - s->v[0];
	if (counter) {
		double last = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (s->v[i] < last)
				result += last;
			last = s->v[i];
		}
	}
	int64_t range_start = r->range_end - r->range_ms;
	double to_start = (double)(s->t[0] - range_start) / 1000;
	double to_end = (double)(r->range_end - s->t[s->n - 1]) / 1000;
	double sampled = (double)(s->t[s->n - 1] - s->t[0]) / 1000;
	double avg_step = sampled / (double)(s->n - 1);
	if (counter && result > 0 && s->v[0] >= 0) {
		double to_zero = sampled * (s->v[0] / result);
		if (to_zero < to_start)
			to_start = to_zero;
	}
	double threshold = avg_step * 1.1, interval = sampled;
	interval += to_start < threshold ? to_start : avg_step / 2;
	interval += to_end < threshold ? to_end : avg_step / 2;
	/* The range divides the factor, not the result: 2.42's rounding. */
	double factor = interval / sampled;
	if (rate)
		factor /= (double)r->range_ms / 1000;
	*out = result * factor;
	return true;
}

static bool instant_value(const struct rng *r, bool rate, double *out)
{
	const struct gw_series *s = r->s;
	if (s->n < 2)
		return false;
	double last = s->v[s->n - 1], prev = s->v[s->n - 2];
	double v = rate && last < prev ? last : last - prev;
	int64_t dt = s->t[s->n - 1] - s->t[s->n - 2];
	if (dt == 0)
		return false;
	if (rate)
		v /= (double)dt / 1000;
	*out = v;
	return true;
}

static void kahan(double x, double *sum, double *c)
{
	double t = *sum + x;
	if (fabs(*sum) >= fabs(x))
		*c += (*sum - t) + x;
	else
		*c += (x - t) + *sum;
	*sum = t;
}

static void regression(const struct gw_series *s, int64_t intercept_time, double *slope, double *intercept)
{
	double n = 0, sx = 0, cx = 0, sy = 0, cy = 0, sxy = 0, cxy = 0, sx2 = 0, cx2 = 0;
	double init = s->v[0];
	bool const_y = true;
	for (size_t i = 0; i < s->n; i++) {
		if (const_y && i > 0 && s->v[i] != init)
			const_y = false;
		n += 1;
		double x = (double)(s->t[i] - intercept_time) / 1e3;
		kahan(x, &sx, &cx);
		kahan(s->v[i], &sy, &cy);
		kahan(x * s->v[i], &sxy, &cxy);
		kahan(x * x, &sx2, &cx2);
	}
	if (const_y) {
		*slope = isinf(init) ? NAN : 0;
		*intercept = isinf(init) ? NAN : init;
		return;
	}
	sx += cx;
	sy += cy;
	sxy += cxy;
	sx2 += cx2;
	double cov = sxy - sx * sy / n, var = sx2 - sx * sx / n;
	*slope = cov / var;
	*intercept = sy / n - *slope * sx / n;
}

static double holt_winters(const struct gw_series *s, double sf, double tf, bool *ok)
{
	*ok = s->n >= 2 && sf > 0 && sf < 1 && tf > 0 && tf < 1;
	if (!*ok)
		return 0;
	double s0 = 0, s1 = s->v[0], b = s->v[1] - s->v[0];
	for (size_t i = 1; i < s->n; i++) {
		double x = sf * s->v[i];
		if (i > 1)
			b = tf * (s1 - s0) + (1 - tf) * b; /* trend from the previous smoothed values */
		double y = (1 - sf) * (s1 + b);
		s0 = s1;
		s1 = x + y;
	}
	return s1;
}

/* Returns false when the function yields no value for this series. */
static bool range_fn(struct ev *e, enum gw_pq_func_id id, const struct rng *r, double *out)
{
	const struct gw_series *s = r->s;
	switch (id) {
	case GW_PQ_F_RATE:
		return extrapolated(r, true, true, out);
	case GW_PQ_F_INCREASE:
		return extrapolated(r, true, false, out);
	case GW_PQ_F_DELTA:
		return extrapolated(r, false, false, out);
	case GW_PQ_F_IRATE:
		return instant_value(r, true, out);
	case GW_PQ_F_IDELTA:
		return instant_value(r, false, out);
	case GW_PQ_F_DERIV: {
		if (s->n < 2)
			return false;
		double icpt;
		regression(s, s->t[0], out, &icpt);
		return true;
	}
	case GW_PQ_F_PREDICT_LINEAR: {
		if (s->n < 2)
			return false;
		double slope, icpt;
		regression(s, r->ts, &slope, &icpt);
		*out = slope * r->arg + icpt;
		return true;
	}
	case GW_PQ_F_HOLT_WINTERS: {
		bool ok;
		*out = holt_winters(s, r->arg, r->arg2, &ok);
		return ok;
	}
	case GW_PQ_F_CHANGES:
	case GW_PQ_F_RESETS: {
		double c = 0;
		for (size_t i = 1; i < s->n; i++) {
			double a = s->v[i - 1], b = s->v[i];
			if (id == GW_PQ_F_CHANGES ? (b != a && !(isnan(a) && isnan(b))) : b < a)
				c++;
		}
		*out = c;
		return true;
	}
	case GW_PQ_F_AVG_OVER_TIME: {
		/* 2.42's incremental mean with a compensated sum, from zero: the
		 * first sample's term sets the compensation too (NaN after an
		 * infinity, which the infinite mean then hides). */
		double mean = 0, c = 0, count = 0;
		for (size_t i = 0; i < s->n; i++) {
			double v = s->v[i];
			count++;
			if (isinf(mean)) {
				if (isinf(v) && (mean > 0) == (v > 0))
					continue;
				if (!isinf(v) && !isnan(v))
					continue;
			}
			kahan(v / count - mean / count, &mean, &c);
		}
		*out = isinf(mean) ? mean : mean + c;
		return true;
	}
	case GW_PQ_F_SUM_OVER_TIME: {
		double sum = 0, c = 0;
		for (size_t i = 0; i < s->n; i++)
			kahan(s->v[i], &sum, &c);
		*out = isinf(sum) ? sum : sum + c; /* an infinity makes c NaN */
		return true;
	}
	case GW_PQ_F_COUNT_OVER_TIME: {
		double c = r->counts ? 0 : (double)s->n;
		for (size_t i = 0; r->counts && i < s->n; i++)
			c += s->v[i];
		*out = c;
		return true;
	}
	case GW_PQ_F_MIN_OVER_TIME:
	case GW_PQ_F_MAX_OVER_TIME: {
		double m = s->v[0];
		for (size_t i = 1; i < s->n; i++) {
			double v = s->v[i];
			if ((id == GW_PQ_F_MAX_OVER_TIME ? v > m : v < m) || isnan(m))
				m = v;
		}
		*out = m;
		return true;
	}
	case GW_PQ_F_LAST_OVER_TIME:
		*out = s->v[s->n - 1];
		return true;
	case GW_PQ_F_PRESENT_OVER_TIME:
		*out = 1;
		return true;
	case GW_PQ_F_STDDEV_OVER_TIME:
	case GW_PQ_F_STDVAR_OVER_TIME: {
		/* Welford's running mean and squares, each a compensated sum. */
		double count = 0, mean = 0, cmean = 0, aux = 0, caux = 0;
		for (size_t i = 0; i < s->n; i++) {
			count++;
			double delta = s->v[i] - (mean + cmean);
			kahan(delta / count, &mean, &cmean);
			kahan(delta * (s->v[i] - (mean + cmean)), &aux, &caux);
		}
		aux += caux;
		*out = id == GW_PQ_F_STDDEV_OVER_TIME ? sqrt(aux / count) : aux / count;
		return true;
	}
	case GW_PQ_F_QUANTILE_OVER_TIME: {
		/* One buffer for the whole query, grown by doubling: a copy per
		 * step would cost steps x window of arena (a 6 h window at 1 s
		 * over a day at 1 min is 2 GB) where the largest window suffices. */
		if (s->n > e->scratch_cap) {
			size_t cap = e->scratch_cap ? e->scratch_cap : 1024;
			while (cap < s->n)
				cap *= 2;
			double *nb = gw_arena_alloc_uninit(e->a, cap * sizeof(double));
			if (!nb)
				return false;
			e->scratch = nb;
			e->scratch_cap = cap;
		}
		gw_memcpy(e->scratch, s->v, s->n * sizeof(double));
		*out = pq_quantile(r->arg, e->scratch, s->n);
		return true;
	}
	default:
		return false;
	}
}

/* The matrix selector (or subquery) argument, for its range and reference time. */
/* ---- max/min_over_time at every step of a range query, one pass a series ---- */

/*
 * Evaluated step by step, max_over_time(x[1h]) at a 1 min step looks at each
 * sample sixty times. At the query's own steps (not inside a subquery) and
 * over a plain selector, the answers for all steps come from one pass over
 * each series instead: a window sliding forward, its maximum kept in a
 * monotonic queue. The answers are the step-by-step ones exactly: the window
 * is [ref - range, ref] without staleness markers, a NaN is a sample but
 * never the answer unless all are NaN, and of equal values the earliest wins.
 */
#define SLIDE_MAX_CELLS ((size_t)2 << 20) /* series x steps answered at once; more: step by step */

/*
 * The other functions of one range vector (rate, increase, delta, deriv,
 * avg_over_time, ...) are answered for every step in one pass too, when no
 * series of the selection holds a staleness marker: each step's window is
 * then a slice of the series, found by two indexes that only move forward,
 * and the function runs on that slice exactly as it would on the window a
 * step-by-step evaluation borrows. What is saved is the per-step work
 * around the function: evaluating the selector, searching each series for
 * its window, and naming and checking the result labels, which are the same
 * at every step and are worked out once.
 */
struct ev_slide {
	const struct gw_pq_node *node; /* the call */
	bool done;                     /* computed (v NULL: too large, step by step) */
	size_t nsteps;
	double *v;    /* [series * nsteps + step] */
	uint8_t *has; /* the window held a sample */
	struct gw_labels *labels; /* each series' result labels */
	bool distinct;            /* no two of them equal: no step can repeat a label set */
};

int ev_slide_mark(struct ev *e, const struct gw_pq_node *n)
{
	const struct gw_pq_func *f = n->u.call.func;
	if (!e->qstep || n->u.call.nargs != 1 || f->args[0] != GW_PQ_T_MATRIX || f->id == GW_PQ_F_ABSENT_OVER_TIME)
		return 0;
	const struct gw_pq_node *m = n->u.call.args[0];
	if (m->kind != GW_PQ_MATRIX_SEL || m->u.range.vs->u.sel.at != GW_PQ_AT_NONE)
		return 0;
	for (size_t i = 0; i < e->nslides; i++)
		if (e->slides[i].node == n)
			return 0;
	if (e->nslides == e->capslides) {
		size_t cap = e->capslides ? e->capslides * 2 : 4;
		struct ev_slide *s = gw_arena_alloc(e->a, cap * sizeof(*s));
		if (!s)
			return ev_fail(e, GW_ENOMEM, "out of memory");
		if (e->nslides)
			gw_memcpy(s, e->slides, e->nslides * sizeof(*s));
		e->slides = s;
		e->capslides = cap;
	}
	e->slides[e->nslides++] = (struct ev_slide){.node = n};
	return 0;
}

/* Each series' result labels, once, and whether they are all distinct. */
static int slide_labels(struct ev *e, struct ev_slide *sl, const struct gw_series_set *set)
{
	bool keep = ev_keeps_name(sl->node->u.call.func->id);
	sl->labels = gw_arena_alloc(e->a, (set->n ? set->n : 1) * sizeof(*sl->labels));
	if (!sl->labels)
		return ev_fail(e, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < set->n; i++)
		sl->labels[i] = keep ? set->s[i].labels : ev_drop_name(e, &set->s[i].labels);
	/* Distinct series keep distinct labels when the name stays. */
	int d = keep ? 1 : ev_labels_distinct(e, sl->labels, set->n);
	if (d < 0)
		return e->rc;
	sl->distinct = d;
	return 0;
}

/* Every step of a range function over slices of the series (no staleness markers). */
static void slide_windows(struct ev *e, struct ev_slide *sl, const struct sel_cache *ce, double *v, uint8_t *has,
			  size_t nk)
{
	const struct gw_pq_node *m = sl->node->u.call.args[0], *vs = m->u.range.vs;
	enum gw_pq_func_id id = sl->node->u.call.func->id;
	struct rng r = {.range_ms = m->u.range.range_ms, .counts = ce->agg == GW_TIER_COUNT};
	for (size_t i = 0; i < ce->set.n; i++) {
		const struct gw_series *s = &ce->set.s[i];
		size_t lo = 0, hi = 0; /* the window [lo, hi) */
		for (size_t k = 0; k < nk; k++) {
			r.ts = e->start + (int64_t)k * e->qstep;
			r.range_end = ev_ref_time(e, vs->u.sel.at, vs->u.sel.at_ms, r.ts, vs->u.sel.offset_ms);
			int64_t from = r.range_end - r.range_ms;
			while (hi < s->n && s->t[hi] <= r.range_end)
				hi++;
			while (lo < hi && s->t[lo] < from)
				lo++;
			struct gw_series w = {s->labels, s->t + lo, s->v + lo, hi - lo};
			r.s = &w;
			double x = 0;
			has[i * nk + k] = hi > lo && range_fn(e, id, &r, &x);
			v[i * nk + k] = x;
		}
	}
}

static int slide_compute(struct ev *e, struct ev_slide *sl)
{
	sl->done = true;
	const struct gw_pq_node *m = sl->node->u.call.args[0], *vs = m->u.range.vs;
	const struct sel_cache *ce = ev_sel_cached(e, vs);
	if (!ce)
		return ev_fail(e, GW_EINVAL, "internal error: selector not prepared");
	enum gw_pq_func_id id = sl->node->u.call.func->id;
	bool max = id == GW_PQ_F_MAX_OVER_TIME, deque = max || id == GW_PQ_F_MIN_OVER_TIME;
	size_t ns = ce->set.n, nk = (size_t)((e->end - e->start) / e->qstep) + 1, longest = 1;
	if (ns && nk > SLIDE_MAX_CELLS / ns)
		return 0; /* step by step */
	for (size_t i = 0; i < ns; i++) {
		longest = ce->set.s[i].n > longest ? ce->set.s[i].n : longest;
		if (!deque && ce->stale[i])
			return 0; /* windows are not slices: step by step */
	}
	size_t cells = ns * nk + 1;
	double *v = gw_arena_alloc(e->a, cells * sizeof(*v));
	uint8_t *has = gw_arena_alloc(e->a, cells);
	size_t *dq = deque ? gw_arena_alloc(e->a, longest * sizeof(*dq)) : NULL;
	if (!v || !has || (deque && !dq))
		return ev_fail(e, GW_ENOMEM, "out of memory");
	if (slide_labels(e, sl, &ce->set))
		return e->rc;
	if (!deque) {
		slide_windows(e, sl, ce, v, has, nk);
		sl->nsteps = nk;
		sl->v = v;
		sl->has = has;
		return e->rc;
	}
	for (size_t i = 0; i < ns; i++) {
		const struct gw_series *s = &ce->set.s[i];
		size_t lo = 0, hi = 0, head = 0, tail = 0, count = 0; /* window [lo, hi); queue dq[head, tail) */
		for (size_t k = 0; k < nk; k++) {
			int64_t ts = e->start + (int64_t)k * e->qstep;
			int64_t ref = ev_ref_time(e, vs->u.sel.at, vs->u.sel.at_ms, ts, vs->u.sel.offset_ms);
			int64_t from = ref - m->u.range.range_ms;
			for (; hi < s->n && s->t[hi] <= ref; hi++) {
				double x = s->v[hi];
				if (gw_is_stale_nan(x))
					continue;
				count++;
				if (isnan(x))
					continue;
				while (tail > head && (max ? s->v[dq[tail - 1]] < x : s->v[dq[tail - 1]] > x))
					tail--;
				dq[tail++] = hi;
			}
			for (; lo < hi && s->t[lo] < from; lo++) {
				if (!gw_is_stale_nan(s->v[lo]))
					count--;
				if (head < tail && dq[head] == lo)
					head++;
			}
			has[i * nk + k] = count > 0;
			v[i * nk + k] = head < tail ? s->v[dq[head]] : NAN;
		}
	}
	sl->nsteps = nk;
	sl->v = v;
	sl->has = has;
	return 0;
}

int ev_slide_cells(struct ev *e, const struct gw_pq_node *n, struct ev_cells *out)
{
	struct ev_slide *sl = NULL;
	for (size_t i = 0; i < e->nslides && !sl; i++)
		if (e->slides[i].node == n)
			sl = &e->slides[i];
	if (!sl)
		return 1;
	if (!sl->done && slide_compute(e, sl))
		return e->rc;
	if (!sl->v || !sl->distinct)
		return 1;
	out->v = sl->v;
	out->has = sl->has;
	out->labels = sl->labels;
	out->nsteps = sl->nsteps;
	return 0;
}

/* The step's answer from a slide; 1: not answered that way (step by step). */
static int slide_answer(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	struct ev_slide *sl = NULL;
	for (size_t i = 0; i < e->nslides && !sl; i++)
		if (e->slides[i].node == n)
			sl = &e->slides[i];
	if (!sl || ts < e->start || (ts - e->start) % e->qstep)
		return 1;
	if (!sl->done && slide_compute(e, sl))
		return e->rc;
	size_t k = (size_t)((ts - e->start) / e->qstep);
	if (!sl->v || k >= sl->nsteps)
		return 1;
	const struct gw_series_set *set = &ev_sel_cached(e, n->u.call.args[0]->u.range.vs)->set;
	struct vbuild b = {0};
	for (size_t i = 0; i < set->n; i++) {
		if (!sl->has[i * sl->nsteps + k])
			continue;
		if (vb_push(e, &b, sl->labels[i], ts, sl->v[i * sl->nsteps + k]))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return sl->distinct ? 0 : ev_check_unique(e, &out->vec);
}

static void matrix_arg_times(struct ev *e, const struct gw_pq_node *m, int64_t ts, int64_t *range, int64_t *end)
{
	while (m->kind == GW_PQ_PAREN)
		m = m->u.paren;
	*range = m->u.range.range_ms;
	if (m->kind == GW_PQ_MATRIX_SEL) {
		const struct gw_pq_node *vs = m->u.range.vs;
		*end = ev_ref_time(e, vs->u.sel.at, vs->u.sel.at_ms, ts, vs->u.sel.offset_ms);
	} else {
		*end = ev_ref_time(e, m->u.range.at, m->u.range.at_ms, ts, m->u.range.offset_ms);
	}
}

int ev_call_range(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	const struct gw_pq_func *f = n->u.call.func;
	if (e->nslides) {
		int rc = slide_answer(e, n, ts, out);
		if (rc != 1)
			return rc;
	}
	size_t mi = f->args[0] == GW_PQ_T_MATRIX ? 0 : 1; /* quantile_over_time(q, m) */
	struct pq_val m, a1 = {0}, a2 = {0};
	if (ev_eval(e, n->u.call.args[mi], ts, &m))
		return e->rc;
	if (f->id == GW_PQ_F_QUANTILE_OVER_TIME && ev_eval(e, n->u.call.args[0], ts, &a1))
		return e->rc;
	if ((f->id == GW_PQ_F_PREDICT_LINEAR || f->id == GW_PQ_F_HOLT_WINTERS) &&
	    ev_eval(e, n->u.call.args[1], ts, &a1))
		return e->rc;
	if (f->id == GW_PQ_F_HOLT_WINTERS && ev_eval(e, n->u.call.args[2], ts, &a2))
		return e->rc;
	struct rng r = {.ts = ts, .arg = a1.scalar, .arg2 = a2.scalar};
	matrix_arg_times(e, n->u.call.args[mi], ts, &r.range_ms, &r.range_end);
	const struct gw_pq_node *ma = n->u.call.args[mi];
	r.counts = ma->kind == GW_PQ_MATRIX_SEL && ev_sel_agg(e, ma->u.range.vs) == GW_TIER_COUNT;
	struct vbuild b = {0};
	if (f->id == GW_PQ_F_ABSENT_OVER_TIME) {
		out->type = GW_PQ_T_VECTOR;
		if (m.mat.n)
			return 0;
		return 1; /* caller builds the absent() labels */
	}
	for (size_t i = 0; i < m.mat.n; i++) {
		r.s = &m.mat.s[i];
		double v;
		if (!range_fn(e, f->id, &r, &v))
			continue;
		struct gw_labels l = ev_keeps_name(f->id) ? r.s->labels : ev_drop_name(e, &r.s->labels);
		if (vb_push(e, &b, l, ts, v))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	/* Distinct inputs keep distinct labels when the name stays: nothing to check. */
	return ev_keeps_name(f->id) ? 0 : ev_check_unique(e, &out->vec);
}

/* absent(): labels from the selector's equality matchers (unless repeated). */
int ev_absent_labels(struct ev *e, const struct gw_pq_node *arg, int64_t ts, struct pq_val *out)
{
	while (arg->kind == GW_PQ_PAREN)
		arg = arg->u.paren;
	if (arg->kind == GW_PQ_MATRIX_SEL)
		arg = arg->u.range.vs;
	struct gw_lbuilder b;
	gw_lb_init(&b, e->a, NULL);
	if (arg->kind == GW_PQ_VECTOR_SEL) {
		for (size_t i = 0; i < arg->u.sel.nmatchers; i++) {
			const struct gw_pq_matcher *m = &arg->u.sel.matchers[i];
			if (m->op != GW_MATCH_EQ || strcmp(m->name, GW_METRIC_NAME) == 0)
				continue;
			bool dup = false;
			for (size_t j = 0; j < arg->u.sel.nmatchers; j++)
				if (j != i && strcmp(arg->u.sel.matchers[j].name, m->name) == 0)
					dup = true;
			if (!dup)
				gw_lb_set(&b, m->name, m->value);
		}
	}
	struct vbuild vb = {0};
	if (vb_push(e, &vb, gw_lb_done(&b), ts, 1))
		return e->rc;
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&vb);
	return 0;
}

