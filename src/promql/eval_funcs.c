/*
 * eval_funcs.c - PromQL's instant-vector functions (math, clamps, round,
 * label_replace/label_join, date functions, sort, scalar/vector, absent,
 * histogram_quantile) and the dispatch of every call; the range-vector
 * functions are in eval_range.c.
 */
#include "core/sort.h"
#include "promql/eval_int.h"

#include "core/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions that keep the metric name of their input. */
bool ev_keeps_name(enum gw_pq_func_id id)
{
	return id == GW_PQ_F_LAST_OVER_TIME || id == GW_PQ_F_SORT || id == GW_PQ_F_SORT_DESC ||
	       id == GW_PQ_F_LABEL_REPLACE || id == GW_PQ_F_LABEL_JOIN;
}

/* ---- instant-vector functions ------------------------------------------------ */

/*
 * Go's Log2 as Go defines it: exact at powers of two, else the mantissa's
 * ln scaled, plus the exponent (C's log2 rounds once, Go's twice). Go's
 * Log10, ln(x) times log10(e), is not copied so: with C's ln a last bit
 * apart from Go's, the product can land two apart, where C's log10 stays
 * within one.
 */
static double go_log2(double v)
{
	int exp;
	double frac = frexp(v, &exp);
	if (frac == 0.5)
		return exp - 1;
	return log(frac) * M_LOG2E + exp;
}

static double math1(enum gw_pq_func_id id, double v)
{
	switch (id) {
	case GW_PQ_F_ABS:
		return fabs(v);
	case GW_PQ_F_CEIL:
		return ceil(v);
	case GW_PQ_F_FLOOR:
		return floor(v);
	case GW_PQ_F_EXP:
		return exp(v);
	case GW_PQ_F_SQRT:
		return sqrt(v);
	case GW_PQ_F_LN:
		return log(v);
	case GW_PQ_F_LOG2:
		return go_log2(v);
	case GW_PQ_F_LOG10:
		return log10(v);
	case GW_PQ_F_SGN:
		return v > 0 ? 1 : v < 0 ? -1 : v;
	case GW_PQ_F_ACOS:
		return acos(v);
	case GW_PQ_F_ACOSH:
		return acosh(v);
	case GW_PQ_F_ASIN:
		return asin(v);
	case GW_PQ_F_ASINH:
		return asinh(v);
	case GW_PQ_F_ATAN:
		return atan(v);
	case GW_PQ_F_ATANH:
		return atanh(v);
	case GW_PQ_F_COS:
		return cos(v);
	case GW_PQ_F_COSH:
		return cosh(v);
	case GW_PQ_F_SIN:
		return sin(v);
	case GW_PQ_F_SINH:
		return sinh(v);
	case GW_PQ_F_TAN:
		return tan(v);
	case GW_PQ_F_TANH:
		return tanh(v);
	case GW_PQ_F_DEG:
		return v * 180 / M_PI;
	case GW_PQ_F_RAD:
		return v * M_PI / 180;
	default:
		return NAN;
	}
}

/*
 * Date parts as 2.42 gets them from Go's time.Unix(int64(v), 0).UTC(): the
 * proleptic Gregorian calendar over any int64 of seconds, reckoned as Go
 * does, in unsigned 64-bit seconds since 1 January of the year
 * GO_ABS_YEAR (a Monday, a year 1 mod 400), where the Unix epoch is
 * GO_UNIX_TO_ABS; what passes the end wraps, as it does in Go. Go turns a
 * NaN, an infinity or a value beyond int64 into INT64_MIN (the x86
 * conversion's answer), so NaN's year is 292277026596 there, and here.
 */
#define GO_ABS_YEAR (-292277022399LL)
#define GO_UNIX_TO_ABS 9223372028715321600ULL

static bool leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static double date_part(enum gw_pq_func_id id, double v)
{
	int64_t secs = v >= -0x1p63 && v < 0x1p63 ? (int64_t)v : INT64_MIN;
	uint64_t abs = (uint64_t)secs + GO_UNIX_TO_ABS;
	switch (id) {
	case GW_PQ_F_HOUR:
		return (double)(abs % 86400 / 3600);
	case GW_PQ_F_MINUTE:
		return (double)(abs % 3600 / 60);
	case GW_PQ_F_DAY_OF_WEEK:
		return (double)((abs + 86400) % 604800 / 86400); /* day 0 a Monday; Sunday is 0 */
	default:
		break;
	}
	/* Whole 400-, 100-, 4- and 1-year spans from the start of a 400-year
	 * cycle; the last of each may be a day longer (it ends in a leap year). */
	uint64_t d = abs / 86400;
	uint64_t years = d / 146097 * 400;
	d %= 146097;
	uint64_t n = d / 36524;
	n -= n >> 2;
	years += n * 100;
	d -= n * 36524;
	years += d / 1461 * 4;
	d %= 1461;
	n = d / 365;
	n -= n >> 2;
	years += n;
	d -= n * 365; /* day of the year, from 0 */
	int64_t y = GO_ABS_YEAR + (int64_t)years;
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = leap_year(y);
	int m = 0;
	uint64_t left = d;
	while (m < 11 && left >= (uint64_t)(mdays[m] + (m == 1 && leap))) {
		left -= (uint64_t)(mdays[m] + (m == 1 && leap));
		m++;
	}
	switch (id) {
	case GW_PQ_F_DAY_OF_MONTH:
		return (double)(left + 1);
	case GW_PQ_F_DAY_OF_YEAR:
		return (double)(d + 1);
	case GW_PQ_F_DAYS_IN_MONTH:
		return mdays[m] + (m == 1 && leap);
	case GW_PQ_F_MONTH:
		return m + 1;
	case GW_PQ_F_YEAR:
		return (double)y;
	default:
		return NAN;
	}
}

static bool is_date(enum gw_pq_func_id id)
{
	return id == GW_PQ_F_DAY_OF_MONTH || id == GW_PQ_F_DAY_OF_WEEK || id == GW_PQ_F_DAY_OF_YEAR ||
	       id == GW_PQ_F_DAYS_IN_MONTH || id == GW_PQ_F_HOUR || id == GW_PQ_F_MINUTE || id == GW_PQ_F_MONTH ||
	       id == GW_PQ_F_YEAR;
}

/*
 * sort() and sort_desc() order as Go's sort.Sort orders 2.42's vectors: by
 * value, equal values in input order, NaNs last and among themselves in
 * reverse input order (its "less" puts a NaN before anything, and the
 * sort is reversed). Go's insertion sort, which it uses up to 12 elements,
 * gives exactly this order; larger vectors with ties or NaNs may come out
 * of Go's pattern-defeating quicksort in another order. The sample's time,
 * overwritten after the sort, holds its input position meanwhile.
 */
static int sort_cmp(const struct gw_vsample *a, const struct gw_vsample *b, bool desc)
{
	double x = a->v, y = b->v;
	if (isnan(x) || isnan(y)) {
		if (isnan(x) && isnan(y))
			return a->t > b->t ? -1 : a->t < b->t;
		return isnan(x) ? 1 : -1;
	}
	if (x != y)
		return (x < y) != desc ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

static int sort_cmp_asc(const void *a, const void *b)
{
	return sort_cmp(a, b, false);
}

static int sort_cmp_desc(const void *a, const void *b)
{
	return sort_cmp(a, b, true);
}

/* Go's math.Max and math.Min: +Inf (-Inf) wins, then NaN, then +0 (-0). */
static double go_max(double x, double y)
{
	if (isinf(x) && x > 0)
		return x;
	if (isinf(y) && y > 0)
		return y;
	if (isnan(x) || isnan(y))
		return NAN;
	if (x == 0 && x == y)
		return signbit(x) ? y : x;
	return x > y ? x : y;
}

static double go_min(double x, double y)
{
	if (isinf(x) && x < 0)
		return x;
	if (isinf(y) && y < 0)
		return y;
	if (isnan(x) || isnan(y))
		return NAN;
	if (x == 0 && x == y)
		return signbit(x) ? x : y;
	return x < y ? x : y;
}

/* Expand $1, ${1}, $name in a label_replace replacement. */
static const char *expand(struct ev *e, const char *tmpl, const char *src, const size_t *ov, int ngroups,
			  void *re)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	for (const char *p = tmpl; *p; p++) {
		if (*p != '$') {
			gw_buf_putc(&b, *p);
			continue;
		}
		if (p[1] == '$') {
			gw_buf_putc(&b, '$');
			p++;
			continue;
		}
		const char *start = p + 1, *end;
		bool braced = *start == '{';
		if (braced)
			start++;
		end = start;
		while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') ||
		       *end == '_')
			end++;
		if (braced && *end != '}') {
			gw_buf_putc(&b, '$');
			continue;
		}
		size_t len = (size_t)(end - start);
		if (len == 0) {
			gw_buf_putc(&b, '$');
			continue;
		}
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), start);
		char *num_end;
		long g = strtol(name, &num_end, 10);
		if (*num_end != '\0')
			g = gw_regex_group_number(re, name);
		if (g >= 0 && g < ngroups && ov[2 * g] != (size_t)-1)
			gw_buf_append(&b, src + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
		p = braced ? end : end - 1;
	}
	const char *s = gw_arena_strdup(e->a, b.data ? b.data : "");
	gw_buf_release(&b);
	return s;
}

static bool valid_label_name(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int label_replace(struct ev *e, const struct gw_vector *in, const char *const *sargs, int64_t ts,
			 struct pq_val *out)
{
	const char *dst = sargs[0], *repl = sargs[1], *src = sargs[2], *regex = sargs[3];
	void *re = gw_regex_compile(regex, NULL);
	if (!re)
		return ev_fail(e, GW_EINVAL, "invalid regular expression in label_replace(): %s", regex);
	if (!valid_label_name(dst)) {
		gw_regex_free(re);
		return ev_fail(e, GW_EINVAL, "invalid destination label name in label_replace(): %s", dst);
	}
	struct vbuild b = {0};
	for (size_t i = 0; i < in->n; i++) {
		const char *v = gw_labels_get(&in->s[i].labels, src);
		size_t ov[40];
		int ng = gw_regex_match_groups(re, v ? v : "", ov, 20);
		struct gw_labels l = in->s[i].labels;
		if (ng > 0) {
			const char *res = expand(e, repl, v ? v : "", ov, ng, re);
			struct gw_lbuilder lb;
			gw_lb_init(&lb, e->a, &l);
			gw_lb_set(&lb, gw_arena_strdup(e->a, dst), res);
			l = gw_lb_done(&lb);
		}
		if (vb_push(e, &b, l, ts, in->s[i].v))
			break;
	}
	gw_regex_free(re);
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return e->rc ? e->rc : ev_check_unique(e, &out->vec);
}

static int label_join(struct ev *e, const struct gw_vector *in, const char *const *sargs, size_t ns, int64_t ts,
		      struct pq_val *out)
{
	const char *dst = sargs[0], *sep = sargs[1];
	if (!valid_label_name(dst))
		return ev_fail(e, GW_EINVAL, "invalid destination label name in label_join(): %s", dst);
	for (size_t k = 2; k < ns; k++)
		if (!valid_label_name(sargs[k]))
			return ev_fail(e, GW_EINVAL, "invalid source label name in label_join(): %s", sargs[k]);
	struct vbuild b = {0};
	for (size_t i = 0; i < in->n; i++) {
		struct gw_buf j;
		gw_buf_init(&j, 1 << 16);
		for (size_t k = 2; k < ns; k++) {
			const char *v = gw_labels_get(&in->s[i].labels, sargs[k]);
			if (k > 2)
				gw_buf_puts(&j, sep);
			gw_buf_puts(&j, v ? v : "");
		}
		struct gw_lbuilder lb;
		gw_lb_init(&lb, e->a, &in->s[i].labels);
		gw_lb_set(&lb, gw_arena_strdup(e->a, dst), gw_arena_strdup(e->a, j.data ? j.data : ""));
		gw_buf_release(&j);
		if (vb_push(e, &b, gw_lb_done(&lb), ts, in->s[i].v))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return ev_check_unique(e, &out->vec);
}

/* ---- histogram_quantile ------------------------------------------------------- */

struct bucket {
	double upper, count;
};

static int bucket_cmp(const void *a, const void *b)
{
	double x = ((const struct bucket *)a)->upper, y = ((const struct bucket *)b)->upper;
	return x < y ? -1 : x > y;
}

static double bucket_quantile(double q, struct bucket *b, size_t n)
{
	if (isnan(q))
		return NAN;
	if (q < 0)
		return -INFINITY;
	if (q > 1)
		return INFINITY;
	gw_qsort(b, n, sizeof(*b), bucket_cmp);
	if (n == 0 || !(isinf(b[n - 1].upper) && b[n - 1].upper > 0))
		return NAN;
	size_t w = 0; /* merge equal bounds */
	for (size_t i = 0; i < n; i++) {
		if (w && b[w - 1].upper == b[i].upper)
			b[w - 1].count += b[i].count;
		else
			b[w++] = b[i];
	}
	n = w;
	/* Counts must not decrease; 2.42 starts from the first bucket's count,
	 * so a NaN there leaves every count as it is. */
	double max = b[0].count;
	for (size_t i = 1; i < n; i++) {
		if (b[i].count > max)
			max = b[i].count;
		else if (b[i].count < max)
			b[i].count = max;
	}
	if (n < 2)
		return NAN;
	double obs = b[n - 1].count;
	if (obs == 0)
		return NAN;
	double rank = q * obs;
	/* The first bucket whose count reaches the rank, found by bisection as
	 * 2.42 finds it: with NaN counts a scan would stop elsewhere. */
	size_t i = 0, j = n - 1;
	while (i < j) {
		size_t h = i + (j - i) / 2;
		if (!(b[h].count >= rank))
			i = h + 1;
		else
			j = h;
	}
	if (i == n - 1)
		return b[n - 2].upper;
	if (i == 0 && b[0].upper <= 0)
		return b[0].upper;
	double start = 0, end = b[i].upper, count = b[i].count;
	if (i > 0) {
		start = b[i - 1].upper;
		count -= b[i - 1].count;
		rank -= b[i - 1].count;
	}
	return start + (end - start) * (rank / count);
}

static int histogram_quantile(struct ev *e, double q, const struct gw_vector *in, int64_t ts, struct pq_val *out)
{
	struct gw_strmap idx;
	gw_strmap_init(&idx, e->a);
	struct hgroup {
		struct gw_labels labels;
		struct bucket *b;
		size_t n, cap;
	} *g = gw_arena_alloc(e->a, (in->n ? in->n : 1) * sizeof(*g));
	size_t ng = 0;
	if (!g)
		return ev_fail(e, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < in->n; i++) {
		const char *le = gw_labels_get(&in->s[i].labels, "le");
		char *end;
		double upper = le ? strtod(le, &end) : 0;
		if (!le || *end || !*le)
			continue;
		struct gw_lbuilder lb;
		gw_lb_init(&lb, e->a, &in->s[i].labels);
		gw_lb_del(&lb, "le");
		gw_lb_del(&lb, GW_METRIC_NAME);
		struct gw_labels l = gw_lb_done(&lb);
		size_t len;
		const char *key = gw_labels_key_all(e->a, &l, &len);
		long gi = gw_strmap_get_or_put(&idx, key, len, (long)ng);
		if (gi < 0)
			return ev_fail(e, GW_ENOMEM, "out of memory");
		if ((size_t)gi == ng) {
			memset(&g[ng], 0, sizeof(g[ng]));
			g[ng++].labels = l;
		}
		struct hgroup *h = &g[gi];
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 16;
			struct bucket *nb = gw_arena_alloc(e->a, cap * sizeof(*nb));
			if (!nb)
				return ev_fail(e, GW_ENOMEM, "out of memory");
			if (h->n)
				gw_memcpy(nb, h->b, h->n * sizeof(*nb));
			h->b = nb;
			h->cap = cap;
		}
		h->b[h->n].upper = upper;
		h->b[h->n].count = in->s[i].v;
		h->n++;
	}
	struct vbuild b = {0};
	for (size_t i = 0; i < ng; i++)
		if (vb_push(e, &b, g[i].labels, ts, bucket_quantile(q, g[i].b, g[i].n)))
			return e->rc;
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return 0;
}

/* ---- dispatch ------------------------------------------------------------------ */

static int map_vector(struct ev *e, const struct gw_pq_node *n, const struct gw_vector *in, const double *args,
		      int64_t ts, struct pq_val *out)
{
	enum gw_pq_func_id id = n->u.call.func->id;
	if (id == GW_PQ_F_CLAMP && args[1] < args[0]) {
		out->type = GW_PQ_T_VECTOR;
		return 0;
	}
	struct vbuild b = {0};
	for (size_t i = 0; i < in->n; i++) {
		double v = in->s[i].v, r;
		switch (id) {
		case GW_PQ_F_CLAMP:
			r = go_max(args[0], go_min(args[1], v));
			break;
		case GW_PQ_F_CLAMP_MAX:
			r = go_min(args[0], v);
			break;
		case GW_PQ_F_CLAMP_MIN:
			r = go_max(args[0], v);
			break;
		case GW_PQ_F_ROUND: {
			double inv = 1.0 / (n->u.call.nargs > 1 ? args[0] : 1.0);
			r = floor(v * inv + 0.5) / inv;
			break;
		}
		case GW_PQ_F_TIMESTAMP:
			r = (double)in->s[i].t / 1000;
			break;
		default:
			r = is_date(id) ? date_part(id, v) : math1(id, v);
			break;
		}
		struct gw_labels l = ev_keeps_name(id) ? in->s[i].labels : ev_drop_name(e, &in->s[i].labels);
		if (vb_push(e, &b, l, ts, r))
			return e->rc;
	}
	out->type = GW_PQ_T_VECTOR;
	out->vec = vb_done(&b);
	return ev_check_unique(e, &out->vec);
}

int ev_call(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out)
{
	const struct gw_pq_func *f = n->u.call.func;
	enum gw_pq_func_id id = f->id;
	switch (id) {
	case GW_PQ_F_TIME:
		out->type = GW_PQ_T_SCALAR;
		out->scalar = (double)ts / 1000;
		return 0;
	case GW_PQ_F_PI:
		out->type = GW_PQ_T_SCALAR;
		out->scalar = M_PI;
		return 0;
	case GW_PQ_F_HOLT_WINTERS: {
		struct pq_val sf, tf;
		if (ev_eval(e, n->u.call.args[1], ts, &sf) || ev_eval(e, n->u.call.args[2], ts, &tf))
			return e->rc;
		if (sf.scalar <= 0 || sf.scalar >= 1)
			return ev_fail(e, GW_EINVAL, "invalid smoothing factor. Expected: 0 < sf < 1, got: %f",
				       sf.scalar);
		if (tf.scalar <= 0 || tf.scalar >= 1)
			return ev_fail(e, GW_EINVAL, "invalid trend factor. Expected: 0 < tf < 1, got: %f", tf.scalar);
		break;
	}
	default:
		break;
	}
	if (id == GW_PQ_F_ABSENT_OVER_TIME) {
		int rc = ev_call_range(e, n, ts, out);
		return rc == 1 ? ev_absent_labels(e, n->u.call.args[0], ts, out) : rc;
	}
	if (f->args[0] == GW_PQ_T_MATRIX || (f->nargs > 1 && f->args[1] == GW_PQ_T_MATRIX))
		return ev_call_range(e, n, ts, out);

	/* Evaluate the arguments: the vector one and scalars/strings. */
	struct pq_val vals[8];
	size_t na = n->u.call.nargs < 8 ? n->u.call.nargs : 8;
	for (size_t i = 0; i < na; i++)
		if (ev_eval(e, n->u.call.args[i], ts, &vals[i]))
			return e->rc;
	if (na == 0 && is_date(id)) {
		struct vbuild b = {0};
		struct gw_labels none = {NULL, 0};
		if (vb_push(e, &b, none, ts, date_part(id, (double)(ts / 1000))))
			return e->rc;
		out->type = GW_PQ_T_VECTOR;
		out->vec = vb_done(&b);
		return 0;
	}
	switch (id) {
	case GW_PQ_F_VECTOR: {
		struct vbuild b = {0};
		struct gw_labels none = {NULL, 0};
		if (vb_push(e, &b, none, ts, vals[0].scalar))
			return e->rc;
		out->type = GW_PQ_T_VECTOR;
		out->vec = vb_done(&b);
		return 0;
	}
	case GW_PQ_F_SCALAR:
		out->type = GW_PQ_T_SCALAR;
		out->scalar = vals[0].vec.n == 1 ? vals[0].vec.s[0].v : NAN;
		return 0;
	case GW_PQ_F_ABSENT:
		if (vals[0].vec.n) {
			out->type = GW_PQ_T_VECTOR;
			return 0;
		}
		return ev_absent_labels(e, n->u.call.args[0], ts, out);
	case GW_PQ_F_SORT:
	case GW_PQ_F_SORT_DESC:
		*out = vals[0];
		for (size_t i = 0; i < out->vec.n; i++)
			out->vec.s[i].t = (int64_t)i;
		gw_qsort(out->vec.s, out->vec.n, sizeof(*out->vec.s), id == GW_PQ_F_SORT ? sort_cmp_asc : sort_cmp_desc);
		for (size_t i = 0; i < out->vec.n; i++)
			out->vec.s[i].t = ts;
		return 0;
	case GW_PQ_F_HISTOGRAM_QUANTILE:
		return histogram_quantile(e, vals[0].scalar, &vals[1].vec, ts, out);
	case GW_PQ_F_LABEL_REPLACE:
	case GW_PQ_F_LABEL_JOIN: {
		const char *s[8];
		for (size_t i = 1; i < na; i++)
			s[i - 1] = vals[i].str;
		return id == GW_PQ_F_LABEL_REPLACE ? label_replace(e, &vals[0].vec, s, ts, out)
						   : label_join(e, &vals[0].vec, s, na - 1, ts, out);
	}
	default: {
		double args[3] = {0, 0, 0};
		for (size_t i = 1; i < na && i < 4; i++)
			args[i - 1] = vals[i].scalar;
		return map_vector(e, n, &vals[0].vec, args, ts, out);
	}
	}
}
