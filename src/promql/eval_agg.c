/*
 * eval_agg.c - aggregation operators (sum avg min max count stddev stdvar
 * topk bottomk quantile count_values group) with by/without, computed as
 * Prometheus 2.42 computes them (incremental mean, Welford variance, NaN
 * handling of min/max, quantile interpolation).
 */
#include "core/select.h"
#include "core/sort.h"
#include "promql/eval_int.h"

#include "model/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
	struct gw_labels labels;
	double value, mean;
	double count;
	struct vbuild members; /* topk / bottomk / quantile */
};

double pq_quantile(double q, double *v, size_t n)
{
	return gw_quantile_select(q, v, n);
}

/* Group labels: by -> only those labels; without -> all but those and the name. */
static struct gw_labels make_group_labels(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l,
					  const struct gw_labels *unused)
{
	(void)unused;
	struct gw_lbuilder b;
	gw_lb_init(&b, e->a, l);
	if (n->u.agg.without) {
		gw_lb_del(&b, GW_METRIC_NAME);
		for (size_t i = 0; i < n->u.agg.ngrouping; i++)
			gw_lb_del(&b, n->u.agg.grouping[i]);
	} else {
		gw_lb_keep(&b, n->u.agg.grouping, n->u.agg.ngrouping);
	}
	return gw_lb_done(&b);
}

/* Is a "better" than b for topk (greater) / bottomk (smaller), NaN last. */
static bool better(bool top, double a, double b)
{
	if (isnan(a))
		return false;
	if (isnan(b))
		return true;
	return top ? a > b : a < b;
}

/* Keep the k best members, ordered best first (insertion into a short list). */
static int keep_k(struct ev *e, struct group *g, const struct gw_vsample *s, size_t k, bool top)
{
	struct vbuild *m = &g->members;
	if (m->n == k && !better(top, s->v, m->s[m->n - 1].v))
		return 0;
	if (m->n < k && vb_push(e, m, s->labels, s->t, s->v))
		return e->rc;
	size_t pos = m->n - 1;
	while (pos > 0 && better(top, s->v, m->s[pos - 1].v)) {
		m->s[pos] = m->s[pos - 1];
		pos--;
	}
	m->s[pos] = *s;
	return 0;
}

static void format_value(char *buf, size_t n, double v)
{
	/* Go's strconv.FormatFloat(v, 'f', -1, 64): shortest, no exponent (the
	 * API's writer; up to 340 printf tries a value before). */
	if (isnan(v)) {
		snprintf(buf, n, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	buf[gw_num_format_f(buf, n, v)] = '\0';
}

/*
 * Step after step an aggregation sees the same input series in the same
 * order (a selection's, or a function's remembered labels), so its group
 * labels and id are kept by input position and reused while the label set
 * at that position is the same object: two hash lookups an element less.
 */
struct pos_ent {
	const struct gw_lpair *in; /* the input's label array */
	size_t nin;
	struct gw_labels gl;
	long gid;
};

struct ev_aggpos {
	const struct gw_pq_node *node;
	struct pos_ent *ent;
	size_t cap;
	struct ev_aggpos *next;
};

static struct pos_ent *positions(struct ev *e, const struct gw_pq_node *n, size_t need)
{
	struct ev_aggpos *p = e->aggpos;
	while (p && p->node != n)
		p = p->next;
	if (!p) {
		p = gw_arena_alloc(e->a, sizeof(*p));
		if (!p)
			return NULL;
		*p = (struct ev_aggpos){.node = n, .next = e->aggpos};
		e->aggpos = p;
	}
	if (p->cap < need) {
		size_t cap = need < 16 ? 16 : need;
		struct pos_ent *ent = gw_arena_alloc(e->a, cap * sizeof(*ent));
		if (!ent)
			return NULL;
		memset(ent, 0, cap * sizeof(*ent));
		p->ent = ent;
		p->cap = cap;
	}
	return p->ent;
}

int ev_aggregate(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	enum gw_pq_aggop op = n->u.agg.op;
	struct pq_val in, param = {0};
	if (ev_eval(e, n->u.agg.expr, ts, &in))
		return e->rc;
	if (n->u.agg.param && ev_eval(e, n->u.agg.param, ts, &param))
		return e->rc;
	size_t k = 0;
	if (op == GW_PQ_AGG_TOPK || op == GW_PQ_AGG_BOTTOMK) {
		/* 2.42 refuses a k outside int64 (NaN too), then truncates it. */
		double pk = param.scalar;
		if (!(pk >= -0x1p63 && pk < 0x1p63)) {
			char num[GW_NUM_E_MAX + 1] = "NaN";
			if (isinf(pk))
				snprintf(num, sizeof(num), "%s", pk > 0 ? "+Inf" : "-Inf");
			else if (!isnan(pk))
				num[gw_num_format_e(num, pk)] = '\0';
			return ev_fail(e, GW_EINVAL, "Scalar value %s overflows int64", num);
		}
		if (pk < 1) {
			out->type = GW_PQ_T_VECTOR;
			return 0;
		}
		k = (size_t)pk;
	}
	const char *cv_label = op == GW_PQ_AGG_COUNT_VALUES ? param.str : NULL;
	/* Groups by label id, marked in a round of their own (the marks survive
	 * ev_seen_grow; nested evaluations ran before this round began). */
	if (ev_seen_begin(e))
		return ev_fail(e, GW_ENOMEM, "out of memory");
	uint64_t stamp = e->seen_stamp;
	struct group *groups = gw_arena_alloc(e->a, (in.vec.n ? in.vec.n : 1) * sizeof(*groups));
	if (!groups)
		return ev_fail(e, GW_ENOMEM, "out of memory");
	size_t ng = 0;
	struct pos_ent *pos = cv_label ? NULL : positions(e, n, in.vec.n);
	for (size_t i = 0; i < in.vec.n; i++) {
		const struct gw_vsample *s = &in.vec.s[i];
		struct gw_labels gl;
		long gid = -1;
		bool hit = pos && s->labels.p && pos[i].in == s->labels.p && pos[i].nin == s->labels.n;
		if (hit) {
			gl = pos[i].gl;
			gid = pos[i].gid;
		} else if (cv_label) {
			char buf[400];
			format_value(buf, sizeof(buf), s->v);
			struct gw_lbuilder b;
			struct gw_labels base = ev_memo_labels(e, n, &s->labels, NULL, make_group_labels);
			gw_lb_init(&b, e->a, &base);
			gw_lb_set(&b, cv_label, gw_arena_strdup(e->a, buf));
			gl = gw_lb_done(&b);
		} else {
			gl = ev_memo_labels(e, n, &s->labels, NULL, make_group_labels);
		}
		if (!hit) {
			gid = ev_label_id(e, &gl);
			if (pos && gid >= 0)
				pos[i] = (struct pos_ent){s->labels.p, s->labels.n, gl, gid};
		}
		if (gid < 0 || (gid >= (long)e->seen_cap && ev_seen_grow(e)))
			return ev_fail(e, GW_ENOMEM, "out of memory");
		struct ev_seen *mark = &e->seen[gid];
		if (mark->stamp != stamp) {
			mark->stamp = stamp;
			mark->val = (long)ng;
		}
		long gi = mark->val;
		struct group *g = &groups[gi];
		if ((size_t)gi == ng) {
			ng++;
			memset(g, 0, sizeof(*g));
			g->labels = gl;
			g->value = s->v;
			g->mean = s->v;
			g->count = 1;
			if (op == GW_PQ_AGG_STDDEV || op == GW_PQ_AGG_STDVAR)
				g->value = 0;
			if (op == GW_PQ_AGG_TOPK || op == GW_PQ_AGG_BOTTOMK) {
				if (keep_k(e, g, s, k, op == GW_PQ_AGG_TOPK))
					return e->rc;
			} else if (op == GW_PQ_AGG_QUANTILE) {
				if (vb_push(e, &g->members, s->labels, s->t, s->v))
					return e->rc;
			}
			continue;
		}
		double v = s->v;
		switch (op) {
		case GW_PQ_AGG_SUM:
			g->value += v;
			break;
		case GW_PQ_AGG_AVG:
			g->count++;
			if (isinf(g->mean)) {
				if (isinf(v) && (g->mean > 0) == (v > 0))
					break;
				if (!isinf(v) && !isnan(v))
					break;
			}
			g->mean += v / g->count - g->mean / g->count;
			break;
		case GW_PQ_AGG_GROUP:
			break;
		case GW_PQ_AGG_COUNT:
		case GW_PQ_AGG_COUNT_VALUES:
			g->count++;
			break;
		case GW_PQ_AGG_MAX:
			if (g->value < v || isnan(g->value))
				g->value = v;
			break;
		case GW_PQ_AGG_MIN:
			if (g->value > v || isnan(g->value))
				g->value = v;
			break;
		case GW_PQ_AGG_STDVAR:
		case GW_PQ_AGG_STDDEV: {
			g->count++;
			double delta = v - g->mean;
			g->mean += delta / g->count;
			g->value += delta * (v - g->mean);
			break;
		}
		case GW_PQ_AGG_TOPK:
		case GW_PQ_AGG_BOTTOMK:
			if (keep_k(e, g, s, k, op == GW_PQ_AGG_TOPK))
				return e->rc;
			break;
		case GW_PQ_AGG_QUANTILE:
			if (vb_push(e, &g->members, s->labels, s->t, v))
				return e->rc;
			break;
		}
	}
	struct vbuild b = {0};
	for (size_t gi = 0; gi < ng; gi++) {
		struct group *g = &groups[gi];
		double v = g->value;
		switch (op) {
		case GW_PQ_AGG_AVG:
			v = g->mean;
			break;
		case GW_PQ_AGG_COUNT:
		case GW_PQ_AGG_COUNT_VALUES:
			v = g->count;
			break;
		case GW_PQ_AGG_GROUP:
			v = 1;
			break;
		case GW_PQ_AGG_STDVAR:
			v = g->value / g->count;
			break;
		case GW_PQ_AGG_STDDEV:
			v = sqrt(g->value / g->count);
			break;
		case GW_PQ_AGG_TOPK:
		case GW_PQ_AGG_BOTTOMK:
			for (size_t i = 0; i < g->members.n; i++)
				if (vb_push(e, &b, g->members.s[i].labels, ts, g->members.s[i].v))
					return e->rc;
			continue;
		case GW_PQ_AGG_QUANTILE: {
			double *vals = gw_arena_alloc(e->a, (g->members.n ? g->members.n : 1) * sizeof(double));
			if (!vals)
				return ev_fail(e, GW_ENOMEM, "out of memory");
			for (size_t i = 0; i < g->members.n; i++)
				vals[i] = g->members.s[i].v;
			v = pq_quantile(param.scalar, vals, g->members.n);
			break;
		}
		default:
			break;
		}
		if (vb_push(e, &b, g->labels, ts, v))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return 0;
}
