/*
 * eval.c - the evaluator's core: selection, subqueries, unary minus, and
 * the instant and range entry points. Functions, aggregations and binary
 * operators live in eval_funcs.c, eval_agg.c and eval_bin.c.
 */
#include "promql/eval_int.h"
#include "core/sort.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int ev_fail(struct ev *e, int code, const char *fmt, ...)
{
	if (e->rc)
		return e->rc;
	e->rc = code;
	if (e->err) {
		va_list ap;
		va_start(ap, fmt);
		e->err->code = code;
		vsnprintf(e->err->msg, sizeof(e->err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

static int arena_fail(struct ev *e)
{
	return ev_fail(e, e->a->err ? e->a->err : GW_ENOMEM,
		       e->a->err == GW_EOVERFLOW ? "query processing would load too much memory" : "out of memory");
}

int vb_push(struct ev *e, struct vbuild *b, struct gw_labels l, int64_t t, double v)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		struct gw_vsample *s = gw_arena_alloc(e->a, cap * sizeof(*s));
		if (!s)
			return arena_fail(e);
		if (b->n)
			gw_memcpy(s, b->s, b->n * sizeof(*s));
		b->s = s;
		b->cap = cap;
	}
	b->s[b->n].labels = l;
	b->s[b->n].t = t;
	b->s[b->n].v = v;
	b->n++;
	return 0;
}

struct gw_vector vb_done(struct vbuild *b)
{
	struct gw_vector v = {b->s, b->n};
	return v;
}

int ev_check_unique(struct ev *e, const struct gw_vector *v)
{
	if (v->n < 2)
		return 0;
	long stack[64], *ids = v->n <= 64 ? stack : gw_arena_alloc(e->a, v->n * sizeof(*ids));
	if (!ids)
		return arena_fail(e);
	for (size_t i = 0; i < v->n; i++)
		if ((ids[i] = ev_label_id(e, &v->s[i].labels)) < 0)
			return arena_fail(e);
	if (ev_seen_begin(e))
		return arena_fail(e);
	for (size_t i = 0; i < v->n; i++) {
		struct ev_seen *s = &e->seen[ids[i]];
		if (s->stamp == e->seen_stamp)
			return ev_fail(e, GW_EINVAL, "vector cannot contain metrics with the same labelset");
		s->stamp = e->seen_stamp;
	}
	return 0;
}

int ev_labels_distinct(struct ev *e, const struct gw_labels *l, size_t n)
{
	if (n < 2)
		return 1;
	long *ids = gw_arena_alloc(e->a, n * sizeof(*ids));
	bool ok = ids != NULL;
	for (size_t i = 0; ok && i < n; i++)
		ok = (ids[i] = ev_label_id(e, &l[i])) >= 0;
	if (!ok || ev_seen_begin(e)) {
		arena_fail(e);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct ev_seen *s = &e->seen[ids[i]];
		if (s->stamp == e->seen_stamp)
			return 0;
		s->stamp = e->seen_stamp;
	}
	return 1;
}

static int too_many_samples(struct ev *e)
{
	return ev_fail(e, GW_EOVERFLOW, "query processing would load too many samples into memory in query execution");
}

int64_t ev_ref_time(const struct ev *e, enum gw_pq_at at, int64_t at_ms, int64_t ts, int64_t offset)
{
	switch (at) {
	case GW_PQ_AT_TIME:
		ts = at_ms;
		break;
	case GW_PQ_AT_START:
		ts = e->start;
		break;
	case GW_PQ_AT_END:
		ts = e->end;
		break;
	default:
		break;
	}
	return ts - offset;
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- preparation: select each selector's series once ---------------------- */

/*
 * Whether a tier can stand in for this selection: every evaluation time a
 * multiple of the tier's resolution, the selector's offset and range too,
 * no @, and a span long enough to be worth it (store/rollup.h says why the
 * answer is then exactly the raw one).
 */
static bool tier_fits(const struct ev *e, const struct gw_pq_node *vs, int64_t mint, int64_t maxt, int64_t range)
{
	int64_t r = e->tier_res;
	return r && vs->u.sel.at == GW_PQ_AT_NONE && vs->u.sel.offset_ms % r == 0 && range % r == 0 &&
	       maxt - mint >= e->tier_min_span;
}

static int series_cmp(const void *a, const void *b)
{
	return gw_labels_cmp(&((const struct gw_series *)a)->labels, &((const struct gw_series *)b)->labels);
}

static int select_series(struct ev *e, const struct gw_pq_node *vs, int64_t mint, int64_t maxt, int agg,
			 int64_t range)
{
	size_t nm = vs->u.sel.nmatchers + (vs->u.sel.name ? 1 : 0);
	struct gw_matcher *m = gw_arena_alloc(e->a, (nm ? nm : 1) * sizeof(*m));
	if (!m)
		return arena_fail(e);
	size_t k = 0;
	int rc = 0;
	if (vs->u.sel.name)
		rc = gw_matcher_init(&m[k++], GW_METRIC_NAME, vs->u.sel.name, GW_MATCH_EQ, e->err);
	for (size_t i = 0; i < vs->u.sel.nmatchers && rc == 0; i++) {
		const struct gw_pq_matcher *pm = &vs->u.sel.matchers[i];
		rc = gw_matcher_init(&m[k++], pm->name, pm->value, pm->op, e->err);
	}
	struct gw_series_set set = {NULL, 0};
	if (agg >= 0 && !tier_fits(e, vs, mint, maxt, range))
		agg = -1;
	if (rc == 0 && agg >= 0)
		rc = e->q->select_tier(e->q->ctx, m, k, mint, maxt, e->tier_res, agg, e->a, &set, e->err);
	else if (rc == 0)
		rc = e->q->select(e->q->ctx, m, k, mint, maxt, e->a, &set, e->err);
	for (size_t i = 0; i < k; i++)
		gw_matcher_release(&m[i]);
	if (rc == GW_EOVERFLOW && e->a->err == GW_EOVERFLOW)
		return too_many_samples(e); /* the samples alone filled the query's memory */
	if (rc) {
		if (!e->rc)
			e->rc = rc;
		return rc;
	}
	/* In label order, as Prometheus' block queriers return series: sums and
	 * means over a vector add in this order, and so round as 2.42 does. */
	gw_qsort(set.s, set.n, sizeof(*set.s), series_cmp);
	for (size_t i = 0; i < set.n; i++)
		e->samples += set.s[i].n;
	if (e->samples > e->max_samples)
		return too_many_samples(e);
	if (e->ncache == e->capcache) {
		size_t cap = e->capcache ? e->capcache * 2 : 8;
		struct sel_cache *c = gw_arena_alloc(e->a, cap * sizeof(*c));
		if (!c)
			return arena_fail(e);
		if (e->ncache)
			gw_memcpy(c, e->cache, e->ncache * sizeof(*c));
		e->cache = c;
		e->capcache = cap;
	}
	/* Which series hold staleness markers, once: a range window of one
	 * that holds none is borrowed as it is at every step, unscanned. */
	bool *stale = gw_arena_alloc(e->a, (set.n ? set.n : 1) * sizeof(*stale));
	if (!stale)
		return arena_fail(e);
	for (size_t i = 0; i < set.n; i++) {
		stale[i] = false;
		for (size_t j = 0; j < set.s[i].n && !stale[i]; j++)
			stale[i] = gw_is_stale_nan(set.s[i].v[j]);
	}
	e->cache[e->ncache].node = vs;
	e->cache[e->ncache].set = set;
	e->cache[e->ncache].agg = agg;
	long *cur = gw_arena_alloc(e->a, (set.n ? 2 * set.n : 1) * sizeof(*cur));
	if (!cur)
		return arena_fail(e);
	for (size_t i = 0; i < 2 * set.n; i++)
		cur[i] = -2;
	e->cache[e->ncache].stale = stale;
	e->cache[e->ncache].cur = cur;
	e->ncache++;
	return 0;
}

int ev_sel_agg(const struct ev *e, const struct gw_pq_node *vs)
{
	for (size_t i = 0; i < e->ncache; i++)
		if (e->cache[i].node == vs)
			return e->cache[i].agg;
	return -1;
}

/*
 * The *_over_time functions a tier answers exactly, and what each asks of
 * it. Not sum_over_time: a sum of the tier's partial sums rounds unlike
 * 2.42's compensated sum of the samples (a sixth of the answers over a day
 * differed in the last digits), so it reads the samples.
 */
static int tier_agg_of(enum gw_pq_func_id id)
{
	switch (id) {
	case GW_PQ_F_MIN_OVER_TIME: return GW_TIER_MIN;
	case GW_PQ_F_MAX_OVER_TIME: return GW_TIER_MAX;
	case GW_PQ_F_COUNT_OVER_TIME: return GW_TIER_COUNT;
	default: return -1;
	}
}

static int prepare_matrix(struct ev *e, const struct gw_pq_node *n, int64_t tmin, int64_t tmax, int agg)
{
	const struct gw_pq_node *vs = n->u.range.vs;
	int64_t lo = ev_ref_time(e, vs->u.sel.at, vs->u.sel.at_ms, tmin, vs->u.sel.offset_ms);
	int64_t hi = ev_ref_time(e, vs->u.sel.at, vs->u.sel.at_ms, tmax, vs->u.sel.offset_ms);
	return select_series(e, vs, lo - n->u.range.range_ms, hi, agg, n->u.range.range_ms);
}

/*
 * Walk the tree knowing the span [tmin, tmax] of times each node is
 * evaluated at. tier: those times are the query's own (not a subquery's),
 * so a tier may stand in where it gives the same answer.
 */
static int prepare(struct ev *e, const struct gw_pq_node *n, int64_t tmin, int64_t tmax, bool tier)
{
	switch (n->kind) {
	case GW_PQ_VECTOR_SEL: {
		int64_t lo = ev_ref_time(e, n->u.sel.at, n->u.sel.at_ms, tmin, n->u.sel.offset_ms);
		int64_t hi = ev_ref_time(e, n->u.sel.at, n->u.sel.at_ms, tmax, n->u.sel.offset_ms);
		return select_series(e, n, lo - e->lookback, hi, tier ? GW_TIER_LAST : -1, 0);
	}
	case GW_PQ_MATRIX_SEL:
		return prepare_matrix(e, n, tmin, tmax, -1);
	case GW_PQ_SUBQUERY: {
		int64_t lo = ev_ref_time(e, n->u.range.at, n->u.range.at_ms, tmin, n->u.range.offset_ms);
		int64_t hi = ev_ref_time(e, n->u.range.at, n->u.range.at_ms, tmax, n->u.range.offset_ms);
		int64_t step = n->u.range.step_ms ? n->u.range.step_ms : e->substep;
		return prepare(e, n->u.range.vs, lo - n->u.range.range_ms - step, hi, false);
	}
	case GW_PQ_CALL: {
		if (tier && ev_slide_mark(e, n))
			return e->rc;
		int agg = tier ? tier_agg_of(n->u.call.func->id) : -1;
		for (size_t i = 0; i < n->u.call.nargs; i++) {
			const struct gw_pq_node *a = n->u.call.args[i];
			int rc = agg >= 0 && a->kind == GW_PQ_MATRIX_SEL ? prepare_matrix(e, a, tmin, tmax, agg)
									 : prepare(e, a, tmin, tmax, tier);
			if (rc)
				return e->rc;
		}
		return 0;
	}
	case GW_PQ_AGGREGATE:
		if (n->u.agg.param && prepare(e, n->u.agg.param, tmin, tmax, tier))
			return e->rc;
		return prepare(e, n->u.agg.expr, tmin, tmax, tier);
	case GW_PQ_BINARY:
		if (prepare(e, n->u.bin.lhs, tmin, tmax, tier))
			return e->rc;
		return prepare(e, n->u.bin.rhs, tmin, tmax, tier);
	case GW_PQ_UNARY:
		return prepare(e, n->u.unary.expr, tmin, tmax, tier);
	case GW_PQ_PAREN:
		return prepare(e, n->u.paren, tmin, tmax, tier);
	default:
		return 0;
	}
}

/* The coarsest tier every evaluation time (start + k·step) falls on, or 0. */
static void choose_tier(struct ev *e, const struct gw_pq_opts *opts, int64_t start, int64_t step)
{
	static const int64_t res[] = {3600000, 60000};
	e->tier_res = 0;
	e->tier_min_span = opts && opts->tier_min_span_ms > 0 ? opts->tier_min_span_ms : 6 * 3600000;
	if (!e->q->select_tier || (opts && opts->no_tiers))
		return;
	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
		if (start % res[i] == 0 && step % res[i] == 0) {
			e->tier_res = res[i];
			return;
		}
}

static const struct sel_cache *cached_ent(const struct ev *e, const struct gw_pq_node *vs)
{
	for (size_t i = 0; i < e->ncache; i++)
		if (e->cache[i].node == vs)
			return &e->cache[i];
	return NULL;
}

const struct sel_cache *ev_sel_cached(const struct ev *e, const struct gw_pq_node *vs)
{
	return cached_ent(e, vs);
}

/* ---- selectors --------------------------------------------------------------- */

/* The first index in [lo, hi) whose time is after t (hi if none). */
static size_t first_after(const struct gw_series *s, size_t lo, size_t hi, int64_t t)
{
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the last sample at or before t, or -1. */
static long last_at_or_before(const struct gw_series *s, int64_t t)
{
	return (long)first_after(s, 0, s->n, t) - 1;
}

/*
 * last_at_or_before() searching on from the answer for the previous time
 * (*cur; -2: none), in steps that double: a range query's times only grow,
 * so each search is short. A time before the last one searches afresh.
 */
static long last_at_or_before_from(const struct gw_series *s, int64_t t, long *cur)
{
	long c = *cur;
	if (c < -1 || (c >= 0 && s->t[c] > t)) {
		*cur = last_at_or_before(s, t);
		return *cur;
	}
	size_t lo = (size_t)(c + 1), hi = lo, step = 1; /* every index below lo is <= t */
	while (hi < s->n && s->t[hi] <= t) {
		lo = hi + 1;
		hi = lo + step;
		step *= 2;
	}
	*cur = (long)first_after(s, lo, hi < s->n ? hi : s->n, t) - 1;
	return *cur;
}

static int eval_vector_sel(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	const struct sel_cache *ce = cached_ent(e, n);
	if (!ce)
		return ev_fail(e, GW_EINVAL, "internal error: selector not prepared");
	const struct gw_series_set *set = &ce->set;
	int64_t ref = ev_ref_time(e, n->u.sel.at, n->u.sel.at_ms, ts, n->u.sel.offset_ms);
	struct vbuild b = {0};
	for (size_t i = 0; i < set->n; i++) {
		const struct gw_series *s = &set->s[i];
		long k = last_at_or_before_from(s, ref, &ce->cur[2 * i]);
		if (k < 0 || s->t[k] < ref - e->lookback || gw_is_stale_nan(s->v[k]))
			continue;
		if (vb_push(e, &b, s->labels, s->t[k], s->v[k]))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return 0;
}

static int eval_matrix_sel(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	const struct gw_pq_node *vs = n->u.range.vs;
	const struct sel_cache *ce = cached_ent(e, vs);
	if (!ce)
		return ev_fail(e, GW_EINVAL, "internal error: selector not prepared");
	const struct gw_series_set *set = &ce->set;
	int64_t ref = ev_ref_time(e, vs->u.sel.at, vs->u.sel.at_ms, ts, vs->u.sel.offset_ms);
	int64_t lo = ref - n->u.range.range_ms;
	struct gw_series *res = gw_arena_alloc(e->a, (set->n ? set->n : 1) * sizeof(*res));
	if (!res)
		return arena_fail(e);
	size_t nres = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct gw_series *s = &set->s[i];
		long end = last_at_or_before_from(s, ref, &ce->cur[2 * i]);
		long start = last_at_or_before_from(s, lo - 1, &ce->cur[2 * i + 1]) + 1; /* first sample >= lo */
		if (end < start)
			continue;
		size_t cnt = (size_t)(end - start + 1);
		long stale = ce->stale[i] ? start : end + 1;
		while (stale <= end && !gw_is_stale_nan(s->v[stale]))
			stale++;
		if (stale > end) {
			/* No staleness marker in the window (the usual case): borrow the samples. */
			res[nres++] = (struct gw_series){s->labels, s->t + start, s->v + start, cnt};
			continue;
		}
		int64_t *t = gw_arena_alloc(e->a, cnt * sizeof(*t));
		double *v = gw_arena_alloc(e->a, cnt * sizeof(*v));
		if (!t || !v)
			return arena_fail(e);
		size_t k = 0;
		for (long j = start; j <= end; j++) {
			if (gw_is_stale_nan(s->v[j]))
				continue;
			t[k] = s->t[j];
			v[k] = s->v[j];
			k++;
		}
		if (!k)
			continue;
		res[nres].labels = s->labels;
		res[nres].t = t;
		res[nres].v = v;
		res[nres].n = k;
		nres++;
	}
	out->type = GW_PQ_T_MATRIX;
	out->mat.s = res;
	out->mat.n = nres;
	return 0;
}

/* Collects step results into series, keyed by label set. */
struct mbuild {
	struct gw_strmap index;
	struct sbuild {
		struct gw_labels labels;
		int64_t *t;
		double *v;
		size_t n, cap;
	} * s;
	size_t n, cap;
	size_t hint; /* where the next sample probably goes: steps list series in the same order */
};

static int mb_add(struct ev *e, struct mbuild *m, const struct gw_labels *l, int64_t t, double v)
{
	long idx;
	/* Each step usually lists the series in the order of the last one: the
	 * next after the last found, or the first again at a step's start. */
	size_t hint = m->hint < m->n ? m->hint : 0;
	const struct gw_labels *h = hint < m->n ? &m->s[hint].labels : NULL;
	if (h && ((h->p == l->p && h->n == l->n) || gw_labels_equal(h, l))) {
		idx = (long)hint;
	} else {
		size_t len;
		const char *k = ev_key_all(e, l, &len);
		idx = gw_strmap_get_or_put(&m->index, k, len, (long)m->n);
		if (idx < 0)
			return arena_fail(e);
	}
	m->hint = (size_t)idx + 1;
	if ((size_t)idx == m->n) {
		if (m->n == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 8;
			struct sbuild *s = gw_arena_alloc(e->a, cap * sizeof(*s));
			if (!s)
				return arena_fail(e);
			if (m->n)
				gw_memcpy(s, m->s, m->n * sizeof(*s));
			m->s = s;
			m->cap = cap;
		}
		memset(&m->s[m->n], 0, sizeof(m->s[0]));
		m->s[m->n].labels = *l;
		m->n++;
	}
	struct sbuild *sb = &m->s[idx];
	if (sb->n && sb->t[sb->n - 1] == t)
		return ev_fail(e, GW_EINVAL, "vector cannot contain metrics with the same labelset");
	if (sb->n == sb->cap) {
		size_t cap = sb->cap ? sb->cap * 2 : 16;
		int64_t *nt = gw_arena_alloc(e->a, cap * sizeof(*nt));
		double *nv = gw_arena_alloc(e->a, cap * sizeof(*nv));
		if (!nt || !nv)
			return arena_fail(e);
		if (sb->n) {
			gw_memcpy(nt, sb->t, sb->n * sizeof(*nt));
			gw_memcpy(nv, sb->v, sb->n * sizeof(*nv));
		}
		sb->t = nt;
		sb->v = nv;
		sb->cap = cap;
	}
	sb->t[sb->n] = t;
	sb->v[sb->n] = v;
	sb->n++;
	return 0;
}

static struct gw_matrix mb_done(struct ev *e, struct mbuild *m)
{
	struct gw_matrix out = {NULL, 0};
	out.s = gw_arena_alloc(e->a, (m->n ? m->n : 1) * sizeof(*out.s));
	if (!out.s)
		return out;
	for (size_t i = 0; i < m->n; i++) {
		out.s[i].labels = m->s[i].labels;
		out.s[i].t = m->s[i].t;
		out.s[i].v = m->s[i].v;
		out.s[i].n = m->s[i].n;
	}
	out.n = m->n;
	return out;
}

static int step_check(struct ev *e)
{
	if (e->deadline_ms && ++e->steps % 64 == 0 && now_ms() > e->deadline_ms)
		return ev_fail(e, GW_ETIMEOUT, "query timed out in expression evaluation");
	return 0;
}

static int eval_subquery(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	int64_t ref = ev_ref_time(e, n->u.range.at, n->u.range.at_ms, ts, n->u.range.offset_ms);
	int64_t step = n->u.range.step_ms ? n->u.range.step_ms : e->substep;
	int64_t lo = ref - n->u.range.range_ms;
	/* The first step-aligned time at or after lo (Go's truncating division). */
	int64_t start = step * (lo / step);
	if (start < lo)
		start += step;
	struct mbuild m = {0};
	gw_strmap_init(&m.index, e->a);
	for (int64_t t = start; t <= ref; t += step) {
		struct pq_val v;
		if (step_check(e) || ev_eval(e, n->u.range.vs, t, &v))
			return e->rc;
		for (size_t i = 0; i < v.vec.n; i++)
			if (mb_add(e, &m, &v.vec.s[i].labels, t, v.vec.s[i].v))
				return e->rc;
	}
	out->type = GW_PQ_T_MATRIX;
	out->mat = mb_done(e, &m);
	if (!out->mat.s)
		return arena_fail(e);
	/* In label order, as 2.42 returns a selector's series evaluated over a
	 * range: a series first seen at a later step comes in its place, so
	 * sums over the result add as Prometheus' do. */
	gw_qsort(out->mat.s, out->mat.n, sizeof(*out->mat.s), series_cmp);
	return 0;
}

static int eval_unary(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	if (ev_eval(e, n->u.unary.expr, ts, out))
		return e->rc;
	if (n->u.unary.op != '-')
		return 0;
	if (out->type == GW_PQ_T_SCALAR) {
		out->scalar = -out->scalar;
		return 0;
	}
	struct vbuild b = {0};
	for (size_t i = 0; i < out->vec.n; i++) {
		const struct gw_vsample *s = &out->vec.s[i];
		if (vb_push(e, &b, ev_drop_name(e, &s->labels), ts, -s->v))
			return e->rc;
	}
	out->vec = vb_done(&b);
	return ev_check_unique(e, &out->vec);
}

int ev_eval(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	memset(out, 0, sizeof(*out));
	if (e->rc)
		return e->rc;
	switch (n->kind) {
	case GW_PQ_NUMBER:
		out->type = GW_PQ_T_SCALAR;
		out->scalar = n->u.number;
		return 0;
	case GW_PQ_STRING:
		out->type = GW_PQ_T_STRING;
		out->str = n->u.string;
		return 0;
	case GW_PQ_PAREN:
		return ev_eval(e, n->u.paren, ts, out);
	case GW_PQ_VECTOR_SEL:
		return eval_vector_sel(e, n, ts, out);
	case GW_PQ_MATRIX_SEL:
		return eval_matrix_sel(e, n, ts, out);
	case GW_PQ_SUBQUERY:
		return eval_subquery(e, n, ts, out);
	case GW_PQ_UNARY:
		return eval_unary(e, n, ts, out);
	case GW_PQ_CALL:
		return ev_call(e, n, ts, out);
	case GW_PQ_AGGREGATE:
		return ev_aggregate(e, n, ts, out);
	case GW_PQ_BINARY:
		return ev_binary(e, n, ts, out);
	}
	return ev_fail(e, GW_EINVAL, "unknown expression");
}

static void ev_init(struct ev *e, const struct gw_querier *q, const struct gw_pq_opts *opts, struct gw_arena *a,
		    struct gw_err *err, int64_t start, int64_t end)
{
	memset(e, 0, sizeof(*e));
	e->q = q;
	e->a = a;
	e->err = err;
	e->lookback = opts && opts->lookback_ms ? opts->lookback_ms : 5 * 60 * 1000;
	e->substep = opts && opts->subquery_step_ms ? opts->subquery_step_ms : 60 * 1000;
	e->max_samples = opts && opts->max_samples ? opts->max_samples : 50000000;
	e->deadline_ms = opts && opts->timeout_ms ? now_ms() + opts->timeout_ms : 0;
	e->start = start;
	e->end = end;
}

int gw_promql_instant(const struct gw_pq_node *root, const struct gw_querier *q, int64_t t,
		      const struct gw_pq_opts *opts, struct gw_arena *arena, struct gw_pq_result *out,
		      struct gw_err *err)
{
	struct ev e;
	ev_init(&e, q, opts, arena, err, t, t);
	memset(out, 0, sizeof(*out));
	struct pq_val v;
	choose_tier(&e, opts, t, 0);
	if (prepare(&e, root, t, t, true) || ev_eval(&e, root, t, &v))
		return e.rc;
	out->type = v.type;
	out->t = t;
	out->scalar = v.scalar;
	out->string = v.str;
	out->vector = v.vec;
	out->matrix = v.mat;
	/* The result carries the evaluation time, as Prometheus reports it. */
	for (size_t i = 0; i < out->vector.n; i++)
		out->vector.s[i].t = t;
	return 0;
}

/* A series' points, from scratch arrays into exact-sized ones; 0 or the error. */
static int direct_put(struct ev *e, struct gw_matrix *out, struct gw_labels labels, const int64_t *t, const double *v,
		      size_t n)
{
	if (!n)
		return 0;
	int64_t *nt = gw_arena_alloc(e->a, n * sizeof(*nt));
	double *nv = gw_arena_alloc(e->a, n * sizeof(*nv));
	if (!nt || !nv)
		return arena_fail(e);
	gw_memcpy(nt, t, n * sizeof(*nt));
	gw_memcpy(nv, v, n * sizeof(*nv));
	out->s[out->n++] = (struct gw_series){labels, nt, nv, n};
	return 0;
}

/*
 * A range query of a plain selector, or of a range function a slide answers,
 * needs no vector a step: each series' points go straight into its result
 * (the same points, in the same series, as step by step). 1: not such a query.
 */
static int direct_range(struct ev *e, const struct gw_pq_node *root, int64_t start, int64_t step, size_t nk,
			struct gw_matrix *out)
{
	while (root->kind == GW_PQ_PAREN)
		root = root->u.paren;
	const struct sel_cache *ce = NULL;
	struct ev_cells c = {0};
	if (root->kind == GW_PQ_VECTOR_SEL) {
		ce = cached_ent(e, root);
		if (!ce)
			return 1;
	} else if (root->kind != GW_PQ_CALL || ev_slide_cells(e, root, &c) != 0) {
		return e->rc ? e->rc : 1;
	} else if (c.nsteps != nk) {
		return 1;
	} else {
		ce = ev_sel_cached(e, root->u.call.args[0]->u.range.vs);
	}
	const struct gw_series_set *set = &ce->set;
	int64_t *t = gw_arena_alloc(e->a, nk * sizeof(*t));
	double *v = gw_arena_alloc(e->a, nk * sizeof(*v));
	out->s = gw_arena_alloc(e->a, (set->n ? set->n : 1) * sizeof(*out->s));
	if (!t || !v || !out->s)
		return arena_fail(e);
	for (size_t i = 0; i < set->n; i++) {
		if (step_check(e))
			return e->rc;
		const struct gw_series *s = &set->s[i];
		size_t n = 0;
		if (c.v) {
			for (size_t k = 0; k < nk; k++)
				if (c.has[i * nk + k]) {
					t[n] = start + (int64_t)k * step;
					v[n++] = c.v[i * nk + k];
				}
			if (direct_put(e, out, c.labels[i], t, v, n))
				return e->rc;
			continue;
		}
		size_t hi = 0; /* samples [0, hi) are at or before the step's time, which only grows */
		for (size_t k = 0; k < nk; k++) {
			int64_t ts = start + (int64_t)k * step;
			int64_t ref = ev_ref_time(e, root->u.sel.at, root->u.sel.at_ms, ts, root->u.sel.offset_ms);
			while (hi < s->n && s->t[hi] <= ref)
				hi++;
			size_t j = hi - 1;
			if (!hi || s->t[j] < ref - e->lookback || gw_is_stale_nan(s->v[j]))
				continue;
			t[n] = ts;
			v[n++] = s->v[j];
		}
		if (direct_put(e, out, s->labels, t, v, n))
			return e->rc;
	}
	return 0;
}

int gw_promql_range(const struct gw_pq_node *root, const struct gw_querier *q, int64_t start, int64_t end,
		    int64_t step, const struct gw_pq_opts *opts, struct gw_arena *arena, struct gw_matrix *out,
		    struct gw_err *err)
{
	struct ev e;
	ev_init(&e, q, opts, arena, err, start, end);
	out->s = NULL;
	out->n = 0;
	if (step <= 0)
		return ev_fail(&e, GW_EINVAL, "zero or negative query resolution step widths are not accepted. "
					      "Try a positive integer");
	if (end < start)
		return ev_fail(&e, GW_EINVAL, "end timestamp must not be before start time");
	if (root->type != GW_PQ_T_SCALAR && root->type != GW_PQ_T_VECTOR)
		return ev_fail(&e, GW_EINVAL,
			       "invalid expression type \"%s\" for range query, must be Scalar or instant Vector",
			       gw_pq_type_name(root->type));
	choose_tier(&e, opts, start, step);
	e.qstep = end > start ? step : 0;
	if (prepare(&e, root, start, end, true))
		return e.rc;
	int rc = direct_range(&e, root, start, step, (size_t)((end - start) / step) + 1, out);
	if (rc == 0) {
		for (size_t i = 0; i < out->n; i++)
			e.samples += out->s[i].n;
		if (e.samples > e.max_samples) {
			out->n = 0;
			return too_many_samples(&e);
		}
	}
	if (rc != 1) {
		if (rc)
			out->n = 0;
		return rc;
	}
	struct mbuild m = {0};
	gw_strmap_init(&m.index, arena);
	struct gw_labels none = {NULL, 0};
	for (int64_t t = start; t <= end; t += step) {
		struct pq_val v;
		if (step_check(&e) || ev_eval(&e, root, t, &v))
			return e.rc;
		/* The answer's points count against the limit as they gather, as
		 * Prometheus counts them: a range answer is held whole in memory. */
		e.samples += v.type == GW_PQ_T_SCALAR ? 1 : v.vec.n;
		if (e.samples > e.max_samples)
			return too_many_samples(&e);
		if (v.type == GW_PQ_T_SCALAR) {
			if (mb_add(&e, &m, &none, t, v.scalar))
				return e.rc;
			continue;
		}
		for (size_t i = 0; i < v.vec.n; i++)
			if (mb_add(&e, &m, &v.vec.s[i].labels, t, v.vec.s[i].v))
				return e.rc;
	}
	*out = mb_done(&e, &m);
	return out->s ? 0 : arena_fail(&e);
}
