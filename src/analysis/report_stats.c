/*
 * report_stats.c - the arithmetic of a report over plain sample arrays:
 * statistics, the time each sample stands for, counter increases and a
 * least-squares line. No I/O, no allocation.
 */
#include "analysis/report_int.h"

#include "core/select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double gw_rpt_quantile(double *s, size_t n, double q)
{
	return n ? gw_quantile_select(q, s, n) : NAN;
}

void gw_rpt_stat(const double *v, size_t n, double *scratch, struct gw_report_stat *out)
{
	size_t k = 0;
	double sum = 0, lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		scratch[k++] = v[i];
		sum += v[i];
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	out->n = k;
	if (!k) {
		out->mean = out->p50 = out->p95 = out->min = out->max = NAN;
		return;
	}
	out->mean = sum / (double)k;
	out->p50 = gw_quantile_select(0.5, scratch, k); /* selections, not a sort */
	out->p95 = gw_quantile_select(0.95, scratch, k);
	out->min = lo;
	out->max = hi;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void gw_rpt_weights(const int64_t *t, size_t n, int64_t gap_ms, double *w)
{
	if (!n)
		return;
	/* the median interval, from up to 255 intervals spread over the series */
	int64_t d[255];
	size_t nd = 0, stride = n / 255 + 1;
	for (size_t i = 1; i < n && nd < 255; i += stride)
		d[nd++] = t[i] - t[i - 1];
	int64_t median = 1000;
	if (nd) {
		qsort(d, nd, sizeof(*d), cmp_i64);
		median = d[nd / 2];
	}
	if (median > gap_ms)
		median = gap_ms;
	for (size_t i = 0; i + 1 < n; i++) {
		int64_t dt = t[i + 1] - t[i];
		w[i] = (double)(dt < gap_ms ? dt : gap_ms) / 1000.0;
	}
	w[n - 1] = (double)median / 1000.0;
}

double gw_rpt_increase(const int64_t *t, const double *v, size_t n, int64_t *first, int64_t *last)
{
	double inc = 0, prev = NAN;
	int64_t f = 0, l = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (!isnan(prev) && v[i] != prev) {
			double d =
			    v[i] >= prev ? v[i] - prev : v[i]; /* after a reset: what it counted since */
			if (d > 0) {
				inc += d;
				if (!f)
					f = t[i];
				l = t[i];
			}
		}
		prev = v[i];
	}
	if (first)
		*first = f;
	if (last)
		*last = l;
	return inc;
}

bool gw_rpt_linfit(const double *x, const double *y, size_t n, struct gw_rpt_fit *out)
{
	double sx = 0, sy = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(x[i]) && isfinite(y[i])) {
			sx += x[i];
			sy += y[i];
			k++;
		}
	}
	out->n = k;
	if (k < 3)
		return false;
	double mx = sx / (double)k, my = sy / (double)k, sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		double dx = x[i] - mx, dy = y[i] - my;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (sxx <= 0)
		return false;
	out->b = sxy / sxx;
	out->a = my - out->b * mx;
	out->r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1;
	return true;
}

void gw_rpt_duration(double seconds, char *out, size_t len)
{
	if (!(seconds >= 0 && seconds < 1e12)) { /* no sample, or no sense */
		snprintf(out, len, "-");
		return;
	}
	long s = (long)llround(seconds);
	if (s < 60)
		snprintf(out, len, "%lds", s);
	else if (s < 3600)
		snprintf(out, len, "%ldm %02lds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(out, len, "%ldh %02ldm", s / 3600, s / 60 % 60);
	else
		snprintf(out, len, "%ldd %02ldh", s / 86400, s / 3600 % 24);
}

void gw_rpt_time(int64_t ms, char *out, size_t len)
{
	time_t s = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	struct tm tm;
	if (!gmtime_r(&s, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(out, len, "%lld ms", (long long)ms);
}
