/*
 * pq_quantile, the selection behind quantile() and quantile_over_time(),
 * against the definition it replaces: sort (NaN first, as Go's sort puts
 * it) and interpolate as Prometheus does. Random windows with duplicates,
 * NaN and infinities, every q from 0 to 1 in steps of 0.05 and the edges.
 */
#include "harness.h"
#include "promql/eval_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	if (isnan(x))
		return isnan(y) ? 0 : -1;
	if (isnan(y))
		return 1;
	return x < y ? -1 : x > y;
}

static double reference(double q, const double *in, size_t n)
{
	double *v = malloc(n * sizeof(*v));
	memcpy(v, in, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp);
	double rank = q * (double)(n - 1);
	double lower = fmax(0, floor(rank)), upper = fmin((double)(n - 1), lower + 1), w = rank - floor(rank);
	double r = v[(size_t)lower] * (1 - w) + v[(size_t)upper] * w;
	free(v);
	return r;
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void test_matches_sorting(void)
{
	srand(7);
	double *v = malloc(2000 * sizeof(*v)), *work = malloc(2000 * sizeof(*work));
	int bad = 0;
	for (int round = 0; round < 3000 && bad < 5; round++) {
		size_t n = 1 + (size_t)(rand() % (round < 2000 ? 40 : 2000));
		int kind = rand() % 4;
		for (size_t i = 0; i < n; i++) {
			int r = rand() % 100;
			v[i] = kind == 0 ? (double)(rand() % 5)		      /* many duplicates */
			       : kind == 1 ? (double)i			      /* sorted */
			       : kind == 2 ? (double)(n - i)		      /* reversed */
					   : (double)rand() / RAND_MAX * 100; /* spread */
			if (r < 3)
				v[i] = NAN;
			else if (r < 5)
				v[i] = r == 3 ? INFINITY : -INFINITY;
		}
		for (int k = 0; k <= 20; k++) {
			double q = k / 20.0;
			memcpy(work, v, n * sizeof(*v));
			double got = pq_quantile(q, work, n), want = reference(q, v, n);
			if (!same(got, want) && bad++ < 5)
				fprintf(stderr, "n=%zu kind=%d q=%.2f: got %g, want %g\n", n, kind, q, got, want);
		}
	}
	CHECK_INT_EQ(bad, 0);
	free(v);
	free(work);
}

static void test_edges(void)
{
	double v[] = {3, 1, 2};
	CHECK(isnan(pq_quantile(0.5, v, 0)));
	CHECK(isnan(pq_quantile(NAN, v, 3)));
	CHECK(pq_quantile(-0.1, v, 3) == -INFINITY);
	CHECK(pq_quantile(1.1, v, 3) == INFINITY);
	double w[] = {3, 1, 2};
	CHECK(pq_quantile(0.25, w, 3) == 1.5);
	double one[] = {42};
	CHECK(pq_quantile(0.9, one, 1) == 42);
}

int main(void)
{
	RUN(test_matches_sorting);
	RUN(test_edges);
	return harness_done();
}
