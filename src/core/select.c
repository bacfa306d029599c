/*
 * select.c - selection of the k-th smallest double (select.h).
 */
#include "core/select.h"

#include "core/sort.h"

#include <math.h>
#include <stdbool.h>

static inline bool before(double x, double y)
{
	return isnan(x) ? !isnan(y) : x < y;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return before(x, y) ? -1 : before(y, x);
}

static inline void swap(double *v, ptrdiff_t i, ptrdiff_t j)
{
	double t = v[i];
	v[i] = v[j];
	v[j] = t;
}

void gw_select_kth(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;
	int budget = 64;
	while (hi > lo) {
		if (budget-- == 0) {
			gw_qsort(v + lo, (size_t)(hi - lo + 1), sizeof(*v), cmp);
			return;
		}
		ptrdiff_t mid = lo + (hi - lo) / 2;
		if (before(v[mid], v[lo]))
			swap(v, mid, lo);
		if (before(v[hi], v[lo]))
			swap(v, hi, lo);
		if (before(v[hi], v[mid]))
			swap(v, hi, mid);
		double p = v[mid];
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (before(v[i], p))
				i++;
			while (before(p, v[j]))
				j--;
			if (i <= j)
				swap(v, i++, j--);
		}
		/* [lo, j] not after p, [i, hi] not before it, and between them equal to it */
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			return;
	}
}

double gw_quantile_select(double q, double *v, size_t n)
{
	if (n == 0 || isnan(q))
		return NAN;
	if (q < 0)
		return -INFINITY;
	if (q > 1)
		return INFINITY;
	double rank = q * (double)(n - 1);
	size_t lower = (size_t)fmax(0, floor(rank));
	size_t upper = (size_t)fmin((double)(n - 1), (double)lower + 1);
	double weight = rank - floor(rank);
	gw_select_kth(v, n, lower);
	double hi = v[lower];
	if (upper > lower) { /* the next in order: the first of what follows lower */
		hi = v[upper];
		for (size_t i = upper + 1; i < n; i++)
			if (before(v[i], hi))
				hi = v[i];
	}
	/* as Prometheus computes it, weight 0 included (0 x Inf is NaN there too) */
	return v[lower] * (1 - weight) + hi * weight;
}
