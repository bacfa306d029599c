/*
 * trend.c - the Theil-Sen estimator and time-to-bound (trend.h).
 */
#include "analysis/trend.h"

#include "core/err.h"
#include "core/select.h"

/* The median of v[0..n), n > 0; reorders v. */
static double median(double *v, size_t n)
{
	gw_select_kth(v, n, n / 2);
	double upper = v[n / 2];
	if (n % 2)
		return upper;
	double lower = v[0]; /* the largest of the lower half */
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > lower)
			lower = v[i];
	return (lower + upper) / 2.0;
}

size_t gw_trend_scratch(size_t n)
{
	size_t pairs = n * (n ? n - 1 : 0) / 2;
	return pairs > n ? pairs : n;
}

int gw_trend_theil_sen(const double *t, const double *y, size_t n, double *scratch, double *slope,
		       double *level)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (t[j] != t[i])
				scratch[m++] = (y[j] - y[i]) / (t[j] - t[i]);
	if (m == 0)
		return GW_EINVAL;
	double s = median(scratch, m);
	for (size_t i = 0; i < n; i++)
		scratch[i] = y[i] + s * (t[n - 1] - t[i]);
	*slope = s;
	*level = median(scratch, n);
	return 0;
}

double gw_trend_time_to(double level, double slope, double capacity)
{
	if (level >= capacity)
		return 0;
	if (!(slope > 0))
		return -1;
	return (capacity - level) / slope;
}

double gw_trend_time_to_full(const double *t, const double *y, size_t n, double window_s, double capacity,
			     double *scratch)
{
	double slope, level;
	if (n < GW_TREND_MIN_POINTS || t[n - 1] - t[0] < window_s / 2 ||
	    gw_trend_theil_sen(t, y, n, scratch, &slope, &level) != 0)
		return -1;
	if (slope * window_s < GW_TREND_MIN_GROWTH)
		return -1;
	return gw_trend_time_to(level, slope, capacity);
}

long long gw_trend_step_ms(long long window_ms, long long interval_ms)
{
	long long step = window_ms / GW_TREND_POINTS;
	if (step < interval_ms)
		step = interval_ms;
	return step < 100 ? 100 : step;
}

double gw_trend_ring_add(struct gw_trend_ring *r, double t_s, double used, double capacity, double window_s,
			 double *scratch)
{
	size_t at = (r->head + r->n) % GW_TREND_POINTS;
	if (r->n == GW_TREND_POINTS)
		r->head = (r->head + 1) % GW_TREND_POINTS;
	else
		r->n++;
	r->t[at] = t_s;
	r->y[at] = used;
	/* the points of the window, oldest first, times relative to the newest */
	double t[GW_TREND_POINTS], y[GW_TREND_POINTS];
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t k = (r->head + i) % GW_TREND_POINTS;
		if (t_s - r->t[k] <= window_s) {
			t[n] = r->t[k] - t_s;
			y[n++] = r->y[k];
		}
	}
	return gw_trend_time_to_full(t, y, n, window_s, capacity, scratch);
}
