/*
 * trend.c - the Theil-Sen estimator and time-to-bound (trend.h).
 */
#include "analysis/trend.h"

#include "core/err.h"
#include "core/sort.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n), n > 0; sorts v. */
static double median(double *v, size_t n)
{
	gw_qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
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
