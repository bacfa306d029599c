/*
 * anomaly.c - robust, explainable anomaly tests over one series (see
 * anomaly.h): a trailing baseline of raw points gives the quantile range
 * and the median/MAD scale; bucket medians give the Theil-Sen drift.
 */
#include "analysis/anomaly.h"

#include "analysis/trend.h"
#include "core/err.h"
#include "core/sort.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#define MAD_TO_SIGMA 1.4826
#define RANGE_Q 0.005
#define MIN_REF_POINTS 10
#define MIN_DRIFT_BUCKETS 10
#define SEEN_K 2 /* a value seen this often in memory_s is part of the rhythm */

const char *gw_anom_kind_name(enum gw_anom_kind k)
{
	switch (k) {
	case GW_ANOM_SPIKE:
		return "spike";
	case GW_ANOM_SHIFT:
		return "shift";
	case GW_ANOM_DRIFT:
		return "drift";
	case GW_ANOM_MISMATCH:
		return "mismatch";
	}
	return "?";
}

void gw_anom_params_default(struct gw_anom_params *p)
{
	p->sensitivity = 6;
	p->window_s = 3600;
	p->short_s = 300;
	p->step_s = 60;
	p->floor = 0;
	p->memory_s = 6 * 3600;
}

/* Scratch shared by every bucket of one series. */
struct anom_ctx {
	const double *t, *v;
	size_t n;
	const struct gw_anom_params *p;
	double *sorted;	 /* n: the baseline's values, sorted */
	double *dev;	 /* n: absolute deviations */
	double *mem;	 /* n: the values of the last memory_s, sorted */
	double *bt, *bm; /* buckets: first time and median */
	double *rm;	 /* buckets: median of the short_s ending with the bucket */
	unsigned char *rm_ok;
	size_t *bfirst; /* buckets + 1: index of each bucket's first point */
	size_t nb;
	double *ts_scratch; /* gw_trend_scratch(drift buckets) */
	double *dt, *dm;    /* drift buckets */
};

/* The baseline of one bucket: quantile range, median and scale. */
struct anom_base {
	double lo, hi, median, scale;
	int ok;
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile_sorted(const double *s, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
}

/* Median of v[a..b) using out as scratch (sorted on return). */
static double median_of(const double *v, size_t a, size_t b, double *out)
{
	size_t m = b - a;
	gw_memcpy(out, v + a, m * sizeof(double));
	gw_qsort(out, m, sizeof(double), cmp_dbl);
	return quantile_sorted(out, m, 0.5);
}

/* First index with t >= x, in [lo, n]. */
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

static double min_scale(const struct gw_anom_params *p, double median)
{
	double s = 1e-9 * (1 + fabs(median));
	return p->floor > s ? p->floor : s;
}

/* The baseline over points [a, b): the raw values before the bucket. */
static struct anom_base baseline(struct anom_ctx *c, size_t a, size_t b)
{
	struct anom_base r = {0};
	size_t m = b - a;
	if (m < MIN_REF_POINTS)
		return r;
	r.median = median_of(c->v, a, b, c->sorted);
	r.lo = quantile_sorted(c->sorted, m, RANGE_Q);
	r.hi = quantile_sorted(c->sorted, m, 1 - RANGE_Q);
	for (size_t i = 0; i < m; i++)
		c->dev[i] = fabs(c->v[a + i] - r.median);
	gw_qsort(c->dev, m, sizeof(double), cmp_dbl);
	r.scale = MAD_TO_SIGMA * quantile_sorted(c->dev, m, 0.5);
	double fl = min_scale(c->p, r.median);
	if (r.scale < fl)
		r.scale = fl;
	r.ok = 1;
	return r;
}

/*
 * Spike: how far x lies beyond the SEEN_K-th smallest or largest of the
 * sorted values s[0..m) (the memory), in robust deviations, or in the
 * spacing of that tail (its SEEN_K-th to 2 SEEN_K-th extreme) where that
 * is wider: values as low or as high as the series went a few times lately
 * (an eval pause, a checkpoint) are not news, however rare, and a tail
 * that a rhythm only samples now and then (a pause straddling a grid's
 * buckets) is wide, so its next sample is not news either.
 */
static double unseen(const double *s, size_t m, double x, double scale)
{
	if (m < 4 * SEEN_K)
		return 0;
	double lo = s[SEEN_K - 1], hi = s[m - SEEN_K];
	if (x > hi)
		return (x - hi) / fmax(scale, hi - s[m - 2 * SEEN_K]);
	if (x < lo)
		return (lo - x) / fmax(scale, s[2 * SEEN_K - 1] - lo);
	return 0;
}

/* Robust deviations of x outside [lo, hi]. */
static double outside(const struct anom_base *base, double x)
{
	double d = x > base->hi ? x - base->hi : x < base->lo ? base->lo - x : 0;
	return d / base->scale;
}

/*
 * Shift: x, the median of the last short_s, against the range of the same
 * rolling median at every bucket [ba, bb) of the baseline, in robust
 * deviations of a point. A training rhythm's pauses shorter than short_s / 2
 * never move that median; a stall or a new level does.
 */
static double shift_score(struct anom_ctx *c, size_t ba, size_t bb, const struct anom_base *base, double x)
{
	size_t m = 0;
	for (size_t b = ba; b < bb; b++)
		if (c->rm_ok[b])
			c->dev[m++] = c->rm[b];
	if (m < MIN_DRIFT_BUCKETS / 2)
		return 0;
	gw_qsort(c->dev, m, sizeof(double), cmp_dbl);
	struct anom_base r = *base;
	r.lo = quantile_sorted(c->dev, m, RANGE_Q);
	r.hi = quantile_sorted(c->dev, m, 1 - RANGE_Q);
	return outside(&r, x);
}

/*
 * Drift over the baseline's buckets [ba, bb): the Theil-Sen rise over
 * window_s in robust deviations of the points around that line; *rise
 * gets the rise itself. Points [ra, rb) are the baseline's.
 */
static double drift_score(struct anom_ctx *c, size_t ba, size_t bb, size_t ra, size_t rb, double *rise)
{
	size_t m = 0;
	for (size_t b = ba; b < bb; b++) {
		if (c->bfirst[b + 1] > c->bfirst[b]) {
			c->dt[m] = c->bt[b];
			c->dm[m] = c->bm[b];
			m++;
		}
	}
	*rise = 0;
	if (m < MIN_DRIFT_BUCKETS || c->dt[m - 1] - c->dt[0] < 0.9 * (c->p->window_s - c->p->step_s))
		return 0;
	double slope, level;
	if (gw_trend_theil_sen(c->dt, c->dm, m, c->ts_scratch, &slope, &level) != 0)
		return 0;
	*rise = slope * c->p->window_s;
	double t_end = c->dt[m - 1];
	for (size_t i = ra; i < rb; i++)
		c->sorted[i - ra] = fabs(c->v[i] - (level + slope * (c->t[i] - t_end)));
	gw_qsort(c->sorted, rb - ra, sizeof(double), cmp_dbl);
	double scale = MAD_TO_SIGMA * quantile_sorted(c->sorted, rb - ra, 0.5);
	double fl = min_scale(c->p, level);
	if (scale < fl)
		scale = fl;
	return fabs(*rise) / scale;
}

/* Scores of bucket b; the spike score's first and last alarmed points go to *first, *last. */
struct anom_scores {
	double spike, shift, drift;
	double spike_value, shift_value, rise;
	double t_spike;
	size_t first, last; /* alarmed spike points, first > last when none */
	struct anom_base base;
};

static struct anom_scores bucket_scores(struct anom_ctx *c, size_t b)
{
	struct anom_scores s = {0};
	s.first = 1;
	const struct gw_anom_params *p = c->p;
	size_t a0 = c->bfirst[b], a1 = c->bfirst[b + 1];
	double tb = c->t[0] + (double)b * p->step_s;
	size_t ra = lower_bound(c->t, c->n, tb - p->window_s);
	s.base = baseline(c, ra, a0);
	if (!s.base.ok || a1 == a0)
		return s;
	size_t ma = lower_bound(c->t, c->n, tb - p->memory_s);
	gw_memcpy(c->mem, c->v + ma, (a0 - ma) * sizeof(double));
	gw_qsort(c->mem, a0 - ma, sizeof(double), cmp_dbl);
	for (size_t i = a0; i < a1; i++) {
		double z = unseen(c->mem, a0 - ma, c->v[i], s.base.scale);
		if (z > s.spike) {
			s.spike = z;
			s.spike_value = c->v[i];
			s.t_spike = c->t[i];
		}
		if (z >= p->sensitivity) {
			if (s.first > s.last)
				s.first = i;
			s.last = i;
		}
	}
	size_t nbw = (size_t)ceil(p->window_s / p->step_s);
	size_t ba = b > nbw ? b - nbw : 0;
	if (c->rm_ok[b]) {
		s.shift_value = c->rm[b];
		s.shift = shift_score(c, ba, b, &s.base, s.shift_value);
	}
	s.drift = drift_score(c, ba, b, ra, a0, &s.rise);
	return s;
}

/* last_only: only the last bucket is judged, so only its baseline's rolling medians are needed. */
static int ctx_init(struct anom_ctx *c, const double *t, const double *v, size_t n,
		    const struct gw_anom_params *p, bool last_only)
{
	*c = (struct anom_ctx){.t = t, .v = v, .n = n, .p = p};
	if (!(p->sensitivity > 0) || !(p->step_s > 0) || !(p->window_s >= 2 * p->step_s) ||
	    !(p->short_s > 0) || p->short_s > p->window_s || p->floor < 0 || !(p->memory_s >= p->window_s))
		return GW_EINVAL;
	for (size_t i = 1; i < n; i++)
		if (!(t[i] >= t[i - 1]))
			return GW_EINVAL;
	if (n == 0)
		return 0;
	double span = t[n - 1] - t[0];
	if (span / p->step_s > 1e7)
		return GW_EINVAL;
	c->nb = (size_t)(span / p->step_s) + 1;
	size_t nbw = (size_t)ceil(p->window_s / p->step_s) + 1;
	c->sorted = malloc(n * sizeof(double));
	c->dev = malloc(n * sizeof(double));
	c->mem = malloc(n * sizeof(double));
	c->bt = malloc(c->nb * sizeof(double));
	c->bm = malloc(c->nb * sizeof(double));
	c->bfirst = malloc((c->nb + 1) * sizeof(size_t));
	c->rm = malloc(c->nb * sizeof(double));
	c->rm_ok = malloc(c->nb);
	c->dt = malloc(nbw * sizeof(double));
	c->dm = malloc(nbw * sizeof(double));
	c->ts_scratch = malloc(gw_trend_scratch(nbw) * sizeof(double));
	if (!c->sorted || !c->dev || !c->mem || !c->bt || !c->bm || !c->bfirst || !c->rm || !c->rm_ok ||
	    !c->dt || !c->dm || !c->ts_scratch)
		return GW_ENOMEM;
	size_t i = 0;
	for (size_t b = 0; b < c->nb; b++) {
		c->bfirst[b] = i;
		double end = t[0] + (double)(b + 1) * p->step_s;
		while (i < n && (t[i] < end || b + 1 == c->nb))
			i++;
		c->bt[b] = t[0] + ((double)b + 0.5) * p->step_s;
		c->bm[b] = i > c->bfirst[b] ? median_of(v, c->bfirst[b], i, c->sorted) : 0;
	}
	c->bfirst[c->nb] = n;
	size_t from = last_only && c->nb > nbw ? c->nb - nbw : 0;
	for (size_t b = 0; b < from; b++)
		c->rm_ok[b] = 0;
	for (size_t b = from; b < c->nb; b++) {
		size_t a1 = c->bfirst[b + 1];
		c->rm_ok[b] = 0;
		if (a1 == c->bfirst[b])
			continue;
		size_t sa = lower_bound(t, a1, t[a1 - 1] - p->short_s);
		if (a1 - sa >= MIN_REF_POINTS / 2 && t[a1 - 1] - t[sa] >= 0.5 * p->short_s) {
			c->rm[b] = median_of(v, sa, a1, c->sorted);
			c->rm_ok[b] = 1;
		}
	}
	return 0;
}

static void ctx_free(struct anom_ctx *c)
{
	free(c->sorted);
	free(c->dev);
	free(c->mem);
	free(c->bt);
	free(c->bm);
	free(c->bfirst);
	free(c->rm);
	free(c->rm_ok);
	free(c->dt);
	free(c->dm);
	free(c->ts_scratch);
}

/* The strongest test of s as a finding over bucket [a0, a1). */
static struct gw_anom_finding finding_of(const struct anom_ctx *c, const struct anom_scores *s, size_t a0,
					 size_t a1)
{
	struct gw_anom_finding f = {.baseline = s->base.median, .scale = s->base.scale};
	f.t_start = c->t[a0];
	f.t_end = c->t[a1 - 1];
	f.t_peak = f.t_end;
	if (s->spike >= s->shift && s->spike >= s->drift) {
		f.kind = GW_ANOM_SPIKE;
		f.score = s->spike;
		f.value = s->spike_value;
		f.t_peak = s->t_spike;
		if (s->first <= s->last) {
			f.t_start = c->t[s->first];
			f.t_end = c->t[s->last];
		}
	} else if (s->shift >= s->drift) {
		f.kind = GW_ANOM_SHIFT;
		f.score = s->shift;
		f.value = s->shift_value;
	} else {
		f.kind = GW_ANOM_DRIFT;
		f.score = s->drift;
		f.value = s->rise;
	}
	return f;
}

int gw_anom_detect(const double *t, const double *v, size_t n, const struct gw_anom_params *p,
		   struct gw_anom_finding *out, size_t cap, size_t *found)
{
	*found = 0;
	struct anom_ctx c;
	int rc = ctx_init(&c, t, v, n, p, false);
	if (rc != 0 || n == 0) {
		ctx_free(&c);
		return rc;
	}
	size_t warm = (size_t)ceil(p->window_s / p->step_s);
	struct gw_anom_finding cur = {0};
	size_t last_b = 0;
	int open = 0;
	for (size_t b = warm; b < c.nb; b++) {
		struct anom_scores s = bucket_scores(&c, b);
		double best = fmax(s.spike, fmax(s.shift, s.drift));
		if (best < p->sensitivity)
			continue;
		struct gw_anom_finding f = finding_of(&c, &s, c.bfirst[b], c.bfirst[b + 1]);
		if (open && b == last_b + 1) {
			cur.t_end = f.t_end;
			if (f.score > cur.score) {
				double t0 = cur.t_start;
				cur = f;
				cur.t_start = t0;
			}
		} else {
			if (open && *found < cap)
				out[*found] = cur;
			if (open)
				(*found)++;
			cur = f;
			open = 1;
		}
		last_b = b;
	}
	if (open) {
		if (*found < cap)
			out[*found] = cur;
		(*found)++;
	}
	ctx_free(&c);
	return 0;
}

double gw_anom_score_now(const double *t, const double *v, size_t n, const struct gw_anom_params *p)
{
	struct anom_ctx c;
	double best = 0;
	if (ctx_init(&c, t, v, n, p, true) == 0 && n > 0) {
		size_t b = c.nb - 1;
		struct anom_scores s = bucket_scores(&c, b);
		double last_spike =
		    s.base.ok
			? unseen(c.mem,
				 c.bfirst[b] - lower_bound(t, n, t[0] + (double)b * p->step_s - p->memory_s),
				 v[n - 1], s.base.scale)
			: 0;
		best = fmax(last_spike, fmax(s.shift, s.drift));
	}
	ctx_free(&c);
	return best;
}
