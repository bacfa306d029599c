/*
 * anomaly_joint.c - the joint test of anomaly.h ("mismatch"): one metric
 * against another at the same times, judged by a robust line through the
 * trailing baseline's pairs, so that a value normal on its own but not
 * for the other metric's value (full power at 0 % utilisation) is found
 * and explained by both values and what the line expected.
 */
#include "analysis/anomaly.h"

#include "core/err.h"
#include "core/sort.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#define MAD_TO_SIGMA 1.4826
#define RANGE_Q 0.005
#define MIN_REF_POINTS 10
#define MIN_SLOPES 10
#define SEEN_SCALES 3
#define MAX_REF 64 /* baseline pairs the slopes are taken between, evenly spaced: 2,016 slopes at most */

/* The baseline's line y = a + b x, its residuals' scale and y's own range. */
struct line {
	double a, b, scale, lo, hi;
	size_t ra, rb; /* the baseline's points */
	int ok;
};

struct joint_ctx {
	const double *t, *x, *y;
	size_t n;
	double x_tol;
	const struct gw_anom_params *p;
	double *s; /* MAX_REF * (MAX_REF - 1) / 2: slopes */
	double *r; /* n: the baseline's y sorted, then residuals */
};

static int cmp_dbl(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;
	return (u > v) - (u < v);
}

static double quantile_sorted(const double *s, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
}

static double median_sorting(double *v, size_t n)
{
	gw_qsort(v, n, sizeof(double), cmp_dbl);
	return quantile_sorted(v, n, 0.5);
}

static size_t lower_bound(const double *t, size_t n, double x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The line through the baseline's pairs [ra, rb). */
static struct line fit(struct joint_ctx *c, size_t ra, size_t rb)
{
	struct line l = {0};
	size_t m = rb - ra;
	if (m < MIN_REF_POINTS)
		return l;
	size_t stride = (m + MAX_REF - 1) / MAX_REF, k = 0;
	for (size_t i = ra; i < rb; i += stride)
		for (size_t j = i + stride; j < rb; j += stride) {
			double dx = c->x[j] - c->x[i];
			if (fabs(dx) >= c->x_tol)
				c->s[k++] = (c->y[j] - c->y[i]) / dx;
		}
	if (k < MIN_SLOPES)
		return l; /* x hardly moved: the baseline says nothing about y against it */
	l.b = median_sorting(c->s, k);
	for (size_t i = 0; i < m; i++)
		c->r[i] = c->y[ra + i] - l.b * c->x[ra + i];
	l.a = median_sorting(c->r, m);
	for (size_t i = 0; i < m; i++)
		c->r[i] = fabs(c->y[ra + i] - l.a - l.b * c->x[ra + i]);
	l.scale = MAD_TO_SIGMA * median_sorting(c->r, m);
	double fl = c->p->floor > 1e-9 * (1 + fabs(l.a)) ? c->p->floor : 1e-9 * (1 + fabs(l.a));
	if (l.scale < fl)
		l.scale = fl;
	for (size_t i = 0; i < m; i++)
		c->r[i] = c->y[ra + i];
	gw_qsort(c->r, m, sizeof(double), cmp_dbl);
	l.lo = quantile_sorted(c->r, m, RANGE_Q);
	l.hi = quantile_sorted(c->r, m, 1 - RANGE_Q);
	l.ra = ra;
	l.rb = rb;
	l.ok = 1;
	return l;
}

/*
 * Whether the baseline holds a pair like point i (x within x_tol / 2, y
 * within SEEN_SCALES deviations): a phase the workload went through
 * before (a checkpoint write at half utilisation and low power) is its
 * rhythm, however far from the line, as a spike seen before is.
 */
static bool seen(const struct joint_ctx *c, const struct line *l, size_t i)
{
	for (size_t j = l->ra; j < l->rb; j++)
		if (fabs(c->x[j] - c->x[i]) <= c->x_tol / 2 &&
		    fabs(c->y[j] - c->y[i]) <= SEEN_SCALES * l->scale)
			return true;
	return false;
}

/* The score of point i against l: 0 when y is outside its own range (the one-metric tests' case) or seen. */
static double score_at(const struct joint_ctx *c, const struct line *l, size_t i)
{
	if (!l->ok || c->y[i] < l->lo || c->y[i] > l->hi)
		return 0;
	double z = fabs(c->y[i] - l->a - l->b * c->x[i]) / l->scale;
	return z >= c->p->sensitivity && seen(c, l, i) ? 0 : z;
}

/*
 * Point i's score when it is not alone: a grid mean that mixes two states
 * (half a bucket of stall, half of work), or a short phase of the
 * workload (a collective at full utilisation and low power), lands off
 * the line for a moment; a joint anomaly holds for step_s at least.
 */
static double held_score(const struct joint_ctx *c, const struct line *l, size_t i)
{
	double z = score_at(c, l, i), s = c->p->sensitivity;
	if (z < s)
		return z;
	size_t a = i, b = i;
	while (a > 0 && c->t[i] - c->t[a] < c->p->step_s && score_at(c, l, a - 1) >= s)
		a--;
	while (b + 1 < c->n && c->t[b] - c->t[a] < c->p->step_s && score_at(c, l, b + 1) >= s)
		b++;
	return c->t[b] - c->t[a] >= c->p->step_s ? z : 0;
}

/* Bucket b's strongest point as a finding (score 0 when none alarmed). */
static struct gw_anom_finding bucket(struct joint_ctx *c, size_t a0, size_t a1, double tb)
{
	struct gw_anom_finding f = {.kind = GW_ANOM_MISMATCH};
	size_t ra = lower_bound(c->t, c->n, tb - c->p->window_s);
	struct line l = fit(c, ra, a0);
	bool any = false;
	for (size_t i = a0; i < a1 && l.ok; i++) {
		double z = held_score(c, &l, i);
		if (z < c->p->sensitivity)
			continue;
		if (!any)
			f.t_start = c->t[i];
		f.t_end = c->t[i];
		any = true;
		if (z > f.score) {
			f.score = z;
			f.t_peak = c->t[i];
			f.value = c->y[i];
			f.other = c->x[i];
			f.baseline = l.a + l.b * c->x[i];
			f.scale = l.scale;
		}
	}
	return f;
}

static void emit(struct gw_anom_finding *out, size_t cap, size_t *found, const struct gw_anom_finding *f)
{
	if (*found < cap)
		out[*found] = *f;
	(*found)++;
}

int gw_anom_detect_joint(const double *t, const double *x, const double *y, size_t n, double x_tol,
			 const struct gw_anom_params *p, struct gw_anom_finding *out, size_t cap,
			 size_t *found)
{
	*found = 0;
	if (!(p->sensitivity > 0) || !(p->step_s > 0) || !(p->window_s >= 2 * p->step_s) || !(x_tol > 0))
		return GW_EINVAL;
	for (size_t i = 1; i < n; i++)
		if (!(t[i] >= t[i - 1]))
			return GW_EINVAL;
	if (n == 0 || (t[n - 1] - t[0]) / p->step_s > 1e7)
		return n == 0 ? 0 : GW_EINVAL;
	struct joint_ctx c = {.t = t, .x = x, .y = y, .n = n, .x_tol = x_tol, .p = p};
	c.s = malloc(MAX_REF * (MAX_REF - 1) / 2 * sizeof(double));
	c.r = malloc(n * sizeof(double));
	if (!c.s || !c.r) {
		free(c.s);
		free(c.r);
		return GW_ENOMEM;
	}
	size_t nb = (size_t)((t[n - 1] - t[0]) / p->step_s) + 1, warm = (size_t)ceil(p->window_s / p->step_s);
	size_t a0 = lower_bound(t, n, t[0] + (double)warm * p->step_s), last_b = 0;
	struct gw_anom_finding cur = {0};
	bool open = false;
	for (size_t b = warm; b < nb && a0 < n; b++) {
		double tb = t[0] + (double)b * p->step_s;
		size_t a1 = b + 1 == nb ? n : lower_bound(t, n, tb + p->step_s);
		struct gw_anom_finding f = bucket(&c, a0, a1, tb);
		a0 = a1;
		if (f.score < p->sensitivity)
			continue;
		if (open && b == last_b + 1) {
			double t0 = cur.t_start;
			if (f.score > cur.score)
				cur = f;
			cur.t_start = t0;
			cur.t_end = f.t_end;
		} else {
			if (open)
				emit(out, cap, found, &cur);
			cur = f;
			open = true;
		}
		last_b = b;
	}
	if (open)
		emit(out, cap, found, &cur);
	free(c.s);
	free(c.r);
	return 0;
}
