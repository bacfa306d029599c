/*
 * trend.h - robust trends of a series: the Theil-Sen estimator (the median
 * of the slopes between every pair of points, which a minority of outliers
 * cannot move, unlike least squares) and the time until a growing quantity
 * reaches a bound; the agent's OOM forecast (agent/forecast.c) runs it
 * over each GPU's recent memory use.
 *
 * Pure functions; the caller owns every array. Reentrant.
 */
#ifndef GW_ANALYSIS_TREND_H
#define GW_ANALYSIS_TREND_H

#include <stddef.h>

/* Scratch doubles gw_trend_theil_sen needs for n points: n (n - 1) / 2, at least n. */
size_t gw_trend_scratch(size_t n);

/*
 * The Theil-Sen line through (t[i], y[i]): *slope is the median of the
 * pairwise slopes (pairs with equal t are skipped), *level the line's
 * value at t[n - 1], the median of y[i] + slope (t[n - 1] - t[i]).
 * Returns 0, or GW_EINVAL with fewer than two distinct times.
 */
int gw_trend_theil_sen(const double *t, const double *y, size_t n, double *scratch, double *slope,
		       double *level);

/*
 * Time until a quantity at level, growing by slope a unit of time, reaches
 * capacity: 0 when it is there already, -1 when it does not grow.
 */
double gw_trend_time_to(double level, double slope, double capacity);

/*
 * The OOM forecast's rule over one window of points (t in seconds, oldest
 * first, y the bytes used): the time until the Theil-Sen line reaches
 * capacity, or -1 when memory is not growing: fewer than
 * GW_TREND_MIN_POINTS points, points spanning under half of window_s, or
 * a line rising less than GW_TREND_MIN_GROWTH bytes a window (noise, not
 * a leak). scratch: gw_trend_scratch(n) doubles.
 */
#define GW_TREND_MIN_POINTS 6
#define GW_TREND_MIN_GROWTH 1048576.0
double gw_trend_time_to_full(const double *t, const double *y, size_t n, double window_s, double capacity,
			     double *scratch);

/*
 * The OOM forecast's points of one GPU, as the agent (agent/forecast.c)
 * and top keep them: up to GW_TREND_POINTS (seconds, bytes used), one a
 * step (gw_trend_step_ms), the oldest dropped first. A trend of 120 points
 * selects the median of 7,140 slopes (about 0.1 ms).
 */
#define GW_TREND_POINTS 120
struct gw_trend_ring {
	double t[GW_TREND_POINTS], y[GW_TREND_POINTS];
	size_t head, n;
};

/* Milliseconds between points for a window: window / points, at least interval_ms and 100. */
long long gw_trend_step_ms(long long window_ms, long long interval_ms);

/*
 * Add a point (t_s seconds, used bytes) and return gw_trend_time_to_full
 * over the points of the last window_s. A gap (no value) is the caller's
 * to mark by setting n to 0, so a trend never joins across it. scratch:
 * gw_trend_scratch(GW_TREND_POINTS) doubles.
 */
double gw_trend_ring_add(struct gw_trend_ring *r, double t_s, double used, double capacity, double window_s,
			 double *scratch);

#endif
