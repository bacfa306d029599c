/*
 * eval_bin.c - binary operators: arithmetic, comparison (with bool), set
 * operators, and vector matching (on/ignoring, group_left/group_right), with
 * Prometheus 2.42's rules for result labels and its matching errors.
 */
#include "promql/eval_int.h"

#include "core/buf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool is_cmp(enum gw_pq_binop op)
{
	return op >= GW_PQ_CMP_EQ && op <= GW_PQ_CMP_LE;
}

static bool drops_name(enum gw_pq_binop op)
{
	return op <= GW_PQ_POW; /* arithmetic, but not atan2 (as in Prometheus 2.42) */
}

/* The value of "l op r", and for comparisons whether the element is kept. */
static double apply(enum gw_pq_binop op, double l, double r, bool *keep)
{
	*keep = true;
	switch (op) {
	case GW_PQ_ADD:
		return l + r;
	case GW_PQ_SUB:
		return l - r;
	case GW_PQ_MUL:
		return l * r;
	case GW_PQ_DIV:
		return l / r;
	case GW_PQ_MOD:
		return fmod(l, r);
	case GW_PQ_POW:
		return pow(l, r);
	case GW_PQ_ATAN2:
		return atan2(l, r);
	case GW_PQ_CMP_EQ:
		*keep = l == r;
		return l;
	case GW_PQ_CMP_NE:
		*keep = l != r;
		return l;
	case GW_PQ_CMP_GT:
		*keep = l > r;
		return l;
	case GW_PQ_CMP_LT:
		*keep = l < r;
		return l;
	case GW_PQ_CMP_GE:
		*keep = l >= r;
		return l;
	case GW_PQ_CMP_LE:
		*keep = l <= r;
		return l;
	default:
		*keep = false;
		return 0;
	}
}

static int scalar_scalar(struct ev *e, const struct gw_pq_node *n, double l, double r, struct pq_val *out)
{
	bool keep;
	double v = apply(n->u.bin.op, l, r, &keep);
	if (is_cmp(n->u.bin.op))
		v = keep ? 1 : 0;
	out->type = GW_PQ_T_SCALAR;
	out->scalar = v;
	return 0;
}

/* A vector against a scalar; swap means the scalar was on the left. */
static int vector_scalar(struct ev *e, const struct gw_pq_node *n, const struct gw_vector *vec, double s,
			 bool swap, int64_t ts, struct pq_val *out)
{
	enum gw_pq_binop op = n->u.bin.op;
	bool rb = n->u.bin.return_bool;
	struct vbuild b = {0};
	for (size_t i = 0; i < vec->n; i++) {
		double lv = vec->s[i].v, rv = s;
		if (swap) {
			lv = s;
			rv = vec->s[i].v;
		}
		bool keep;
		double v = apply(op, lv, rv, &keep);
		/* A comparison always yields the vector element's value. */
		if (is_cmp(op) && swap)
			v = rv;
		if (rb) {
			v = keep ? 1 : 0;
			keep = true;
		}
		if (!keep)
			continue;
		struct gw_labels l = vec->s[i].labels;
		if (drops_name(op) || rb)
			l = ev_drop_name(e, &l);
		if (vb_push(e, &b, l, ts, v))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return drops_name(op) || rb ? ev_check_unique(e, &out->vec) : 0;
}

/* The matching signature of a sample's labels. */
static const char *make_sig(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l, size_t *len)
{
	if (n->u.bin.on)
		return gw_labels_key(e->a, l, n->u.bin.labels, n->u.bin.nlabels, true, len);
	return gw_labels_key(e->a, l, n->u.bin.labels, n->u.bin.nlabels, false, len);
}

static const char *sig(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l, size_t *len)
{
	return ev_memo_key(e, n, l, len, make_sig);
}

static long sig_id(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l)
{
	return ev_memo_sig_id(e, n, l, make_sig);
}

static int set_op(struct ev *e, const struct gw_pq_node *n, const struct gw_vector *l, const struct gw_vector *r,
		  int64_t ts, struct pq_val *out)
{
	struct gw_strmap rs;
	gw_strmap_init(&rs, e->a);
	size_t len;
	struct vbuild b = {0};
	enum gw_pq_binop op = n->u.bin.op;
	if (op == GW_PQ_OR) {
		struct gw_strmap ls;
		gw_strmap_init(&ls, e->a);
		for (size_t i = 0; i < l->n; i++) {
			const char *k = sig(e, n, &l->s[i].labels, &len);
			gw_strmap_get_or_put(&ls, k, len, 1);
			if (vb_push(e, &b, l->s[i].labels, ts, l->s[i].v))
				return e->rc;
		}
		for (size_t i = 0; i < r->n; i++) {
			const char *k = sig(e, n, &r->s[i].labels, &len);
			if (gw_strmap_get(&ls, k, len) < 0 && vb_push(e, &b, r->s[i].labels, ts, r->s[i].v))
				return e->rc;
		}
	} else {
		for (size_t i = 0; i < r->n; i++) {
			const char *k = sig(e, n, &r->s[i].labels, &len);
			gw_strmap_get_or_put(&rs, k, len, 1);
		}
		for (size_t i = 0; i < l->n; i++) {
			const char *k = sig(e, n, &l->s[i].labels, &len);
			bool found = gw_strmap_get(&rs, k, len) >= 0;
			if (found == (op == GW_PQ_AND) && vb_push(e, &b, l->s[i].labels, ts, l->s[i].v))
				return e->rc;
		}
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return 0;
}

/* Labels of a result element, as Prometheus' resultMetric() builds them. */
static struct gw_labels make_result_labels(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l,
					   const struct gw_labels *r)
{
	enum gw_pq_card card = n->u.bin.card;
	struct gw_lbuilder b;
	gw_lb_init(&b, e->a, l);
	if (drops_name(n->u.bin.op))
		gw_lb_del(&b, GW_METRIC_NAME);
	if (card == GW_PQ_CARD_ONE_TO_ONE) {
		if (n->u.bin.on) {
			gw_lb_keep(&b, n->u.bin.labels, n->u.bin.nlabels);
		} else {
			for (size_t i = 0; i < n->u.bin.nlabels; i++)
				gw_lb_del(&b, n->u.bin.labels[i]);
		}
	}
	for (size_t i = 0; i < n->u.bin.ninclude; i++) {
		const char *v = gw_labels_get(r, n->u.bin.include[i]);
		gw_lb_set(&b, n->u.bin.include[i], v ? v : "");
	}
	return gw_lb_done(&b);
}

static void labels_text(const struct gw_labels *l, char *buf, size_t n)
{
	struct gw_buf b;
	gw_buf_init(&b, n - 1);
	gw_buf_putc(&b, '{');
	for (size_t i = 0; i < l->n; i++)
		gw_buf_printf(&b, "%s%s=\"%s\"", i ? ", " : "", l->p[i].name, l->p[i].value);
	gw_buf_putc(&b, '}');
	snprintf(buf, n, "%s", b.data ? b.data : "{...}");
	gw_buf_release(&b);
}

static int vector_vector(struct ev *e, const struct gw_pq_node *n, const struct gw_vector *lv,
			 const struct gw_vector *rv, int64_t ts, struct pq_val *out)
{
	enum gw_pq_card card = n->u.bin.card;
	const struct gw_vector *l = lv, *r = rv;
	if (card == GW_PQ_CARD_ONE_TO_MANY) { /* make the left side the "many" side */
		l = rv;
		r = lv;
	}
	/* Signatures as ids; each id marks the right-hand element it came from
	 * (val) and, one-to-one, whether a left element matched it (val2). */
	long stack[64], *rid = r->n <= 64 ? stack : gw_arena_alloc(e->a, r->n * sizeof(*rid));
	if (!rid)
		return ev_fail(e, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->n; i++)
		if ((rid[i] = sig_id(e, n, &r->s[i].labels)) < 0)
			return ev_fail(e, GW_ENOMEM, "out of memory");
	if (ev_sig_round(e))
		return ev_fail(e, GW_ENOMEM, "out of memory");
	uint64_t stamp = e->sig_stamp;
	for (size_t i = 0; i < r->n; i++) {
		struct ev_seen *m = &e->sig_seen[rid[i]];
		if (m->stamp == stamp) {
			char a[256], b2[256];
			labels_text(&r->s[m->val].labels, a, sizeof(a));
			labels_text(&r->s[i].labels, b2, sizeof(b2));
			return ev_fail(e, GW_EINVAL,
				       "found duplicate series for the match group on the %s hand-side of the "
				       "operation: [%s, %s];many-to-many matching not allowed: matching labels must be "
				       "unique on one side",
				       card == GW_PQ_CARD_ONE_TO_MANY ? "left" : "right", a, b2);
		}
		m->stamp = stamp;
		m->val = (long)i;
		m->val2 = -1;
	}
	struct gw_strmap matched; /* many-to-one: result labels -> seen */
	gw_strmap_init(&matched, e->a);
	struct vbuild b = {0};
	for (size_t i = 0; i < l->n; i++) {
		long lid = sig_id(e, n, &l->s[i].labels);
		if (lid < 0)
			return ev_fail(e, GW_ENOMEM, "out of memory");
		if ((size_t)lid >= e->sig_seen_cap || e->sig_seen[lid].stamp != stamp)
			continue;
		struct ev_seen *mk = &e->sig_seen[lid];
		long ri = mk->val;
		double a = l->s[i].v, c = r->s[ri].v;
		if (card == GW_PQ_CARD_ONE_TO_MANY) {
			a = r->s[ri].v;
			c = l->s[i].v;
		}
		bool keep;
		double v = apply(n->u.bin.op, a, c, &keep);
		if (n->u.bin.return_bool) {
			v = keep ? 1 : 0;
			keep = true;
		}
		if (!keep)
			continue;
		struct gw_labels res = ev_memo_labels(e, n, &l->s[i].labels, &r->s[ri].labels, make_result_labels);
		if (n->u.bin.return_bool)
			res = ev_drop_name(e, &res);
		if (card == GW_PQ_CARD_ONE_TO_ONE) {
			if (mk->val2 >= 0)
				return ev_fail(e, GW_EINVAL, "multiple matches for labels: many-to-one matching must "
							     "be explicit (group_left/group_right)");
			mk->val2 = (long)i;
		} else {
			size_t rl;
			const char *rk = ev_key_all(e, &res, &rl);
			if (gw_strmap_get_or_put(&matched, rk, rl, (long)i) != (long)i)
				return ev_fail(e, GW_EINVAL, "multiple matches for labels: grouping labels must ensure "
							     "unique matches");
		}
		if (vb_push(e, &b, res, ts, v))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return ev_check_unique(e, &out->vec);
}

int ev_binary(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	struct pq_val l, r;
	if (ev_eval(e, n->u.bin.lhs, ts, &l) || ev_eval(e, n->u.bin.rhs, ts, &r))
		return e->rc;
	enum gw_pq_binop op = n->u.bin.op;
	if (op == GW_PQ_AND || op == GW_PQ_OR || op == GW_PQ_UNLESS)
		return set_op(e, n, &l.vec, &r.vec, ts, out);
	if (l.type == GW_PQ_T_SCALAR && r.type == GW_PQ_T_SCALAR)
		return scalar_scalar(e, n, l.scalar, r.scalar, out);
	if (l.type == GW_PQ_T_VECTOR && r.type == GW_PQ_T_SCALAR)
		return vector_scalar(e, n, &l.vec, r.scalar, false, ts, out);
	if (l.type == GW_PQ_T_SCALAR && r.type == GW_PQ_T_VECTOR)
		return vector_scalar(e, n, &r.vec, l.scalar, true, ts, out);
	return vector_vector(e, n, &l.vec, &r.vec, ts, out);
}
