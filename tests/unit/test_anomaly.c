/*
 * test_anomaly.c - the anomaly tests (analysis/anomaly.h) on synthetic
 * series: a spike, a level shift and a slow drift must be found at their
 * times; a training rhythm with eval pauses and plain noise must not.
 */
#include "analysis/anomaly.h"
#include "core/err.h"

#include "harness.h"

#include <math.h>
#include <stdlib.h>

#define N (4 * 3600 + 1800) /* four hours at 1 Hz */

/* Deterministic noise in [-1, 1]. */
static double noise(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((double)((*s >> 8) & 0xffff) / 32767.5) - 1;
}

/* Temperature-like: 60 C +- 0.5. */
static void flat(double *t, double *v, unsigned seed)
{
	for (size_t i = 0; i < N; i++) {
		t[i] = 1e9 + (double)i;
		v[i] = 60 + 0.5 * noise(&seed);
	}
}

static struct gw_anom_params params(void)
{
	struct gw_anom_params p;
	gw_anom_params_default(&p);
	p.floor = 1;
	return p;
}

static void test_clean_noise(void)
{
	double *t = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
	flat(t, v, 7);
	struct gw_anom_params p = params();
	struct gw_anom_finding f[8];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 0);
	CHECK(gw_anom_score_now(t, v, N, &p) < 1);
	free(t);
	free(v);
}

static void test_spike(void)
{
	double *t = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
	flat(t, v, 8);
	for (size_t i = 7200; i < 7205; i++)
		v[i] = 85;
	struct gw_anom_params p = params();
	struct gw_anom_finding f[8];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 1);
	CHECK_INT_EQ(f[0].kind, GW_ANOM_SPIKE);
	CHECK_DBL_NEAR(f[0].t_start, t[7200], 0);
	CHECK_DBL_NEAR(f[0].t_end, t[7204], 0);
	CHECK_DBL_NEAR(f[0].value, 85, 0);
	CHECK_DBL_NEAR(f[0].baseline, 60, 0.2);
	CHECK(f[0].score > 20);
	/* live: the spike is the last point */
	CHECK(gw_anom_score_now(t, v, 7201, &p) > 20);
	CHECK(gw_anom_score_now(t, v, 7200, &p) < 1);
	free(t);
	free(v);
}

/* One glitch does not make the next one normal: both are found. */
static void test_repeated_spike(void)
{
	double *t = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
	flat(t, v, 12);
	v[5000] = 80;
	v[9000] = 80;
	struct gw_anom_params p = params();
	struct gw_anom_finding f[8];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 2);
	CHECK_DBL_NEAR(f[0].t_peak, t[5000], 0);
	CHECK_DBL_NEAR(f[1].t_peak, t[9000], 0);
	/* cap: the count is still every finding */
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 1, &n), 0);
	CHECK_INT_EQ((int)n, 2);
	free(t);
	free(v);
}

static void test_level_shift(void)
{
	double *t = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
	flat(t, v, 9);
	for (size_t i = 9000; i < N; i++)
		v[i] += 15;
	struct gw_anom_params p = params();
	struct gw_anom_finding f[8];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK(n >= 1);
	CHECK(f[0].t_start >= t[9000] && f[0].t_start < t[9000] + 60);
	CHECK(f[0].score >= 6);
	CHECK_DBL_NEAR(f[0].baseline, 60, 0.2);
	free(t);
	free(v);
}

/* +20 C over two and a half hours: 0.13 C a minute, within each minute's noise. */
static void test_slow_drift(void)
{
	double *t = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
	flat(t, v, 10);
	for (size_t i = 3600; i < N; i++)
		v[i] += 20.0 * (double)(i - 3600) / (2.5 * 3600);
	struct gw_anom_params p = params();
	struct gw_anom_finding f[8];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK(n >= 1);
	size_t drift = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		if (f[i].kind == GW_ANOM_DRIFT) {
			drift++;
			CHECK(f[i].t_start > t[3600]);
			CHECK(f[i].value > 2); /* rise over the window, in C */
		}
	CHECK(drift >= 1);
	free(t);
	free(v);
}

/*
 * Training: utilisation 97 +- 2 in steps, a 90 s eval pause at 5 % every
 * 20 minutes, a 3-second dip between steps every 30 s. Nothing to find.
 */
static void test_training_rhythm_quiet(void)
{
	double *t = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
	unsigned seed = 11;
	for (size_t i = 0; i < N; i++) {
		t[i] = 1e9 + (double)i;
		v[i] = 97 + 2 * noise(&seed);
		if (i % 1200 >= 1110)
			v[i] = 5 + noise(&seed);
		else if (i % 30 < 3)
			v[i] = 60 + 5 * noise(&seed);
	}
	struct gw_anom_params p = params();
	p.floor = 2;
	struct gw_anom_finding f[8];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 0);
	/* live, in the middle of an eval pause: quiet too */
	CHECK(gw_anom_score_now(t, v, 6 * 1200 + 1150, &p) < p.sensitivity);
	/* a stall that holds utilisation at 0 for ten minutes is found */
	for (size_t i = 10000; i < 10600; i++)
		v[i] = 0;
	CHECK_INT_EQ(gw_anom_detect(t, v, N, &p, f, 8, &n), 0);
	CHECK(n >= 1);
	CHECK(f[0].t_start >= t[10000] && f[0].t_start <= t[10600]);
	/* live: high once the level held short_s / 2, while it is news */
	CHECK(gw_anom_score_now(t, v, 10200, &p) >= p.sensitivity);
	free(t);
	free(v);
}

static void test_bad_input(void)
{
	double t[3] = {3, 2, 1}, v[3] = {0};
	struct gw_anom_params p = params();
	struct gw_anom_finding f[1];
	size_t n;
	CHECK_INT_EQ(gw_anom_detect(t, v, 3, &p, f, 1, &n), GW_EINVAL);
	CHECK_INT_EQ(gw_anom_detect(t, v, 0, &p, f, 1, &n), 0);
	CHECK_INT_EQ((int)n, 0);
	p.sensitivity = 0;
	CHECK_INT_EQ(gw_anom_detect(t, v, 0, &p, f, 1, &n), GW_EINVAL);
	CHECK_DBL_NEAR(gw_anom_score_now(t, v, 0, &p), 0, 0);
	CHECK_STR_EQ(gw_anom_kind_name(GW_ANOM_DRIFT), "drift");
}

/* Eight hours of 60 s grid means: utilisation 0.95, every tenth point a stall at 0.3; power 100 W + 600 W x.
 */
#define NJ 480
static void joint_series(double *t, double *x, double *y, unsigned seed)
{
	for (size_t i = 0; i < NJ; i++) {
		t[i] = 1e9 + 60.0 * (double)i;
		x[i] = i % 10 == 5 ? 0.3 : 0.95 + 0.01 * noise(&seed);
		y[i] = 100 + 600 * x[i] + 5 * noise(&seed);
	}
}

static struct gw_anom_params joint_params(void)
{
	struct gw_anom_params p;
	gw_anom_params_default(&p);
	p.floor = 21;
	return p;
}

static void test_joint_mismatch(void)
{
	double t[NJ], x[NJ], y[NJ];
	struct gw_anom_params p = joint_params();
	struct gw_anom_finding f[8];
	size_t n;
	joint_series(t, x, y, 3);
	CHECK_INT_EQ(gw_anom_detect_joint(t, x, y, NJ, 0.1, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 0); /* the stalls are on the line */
	/* utilisation reads 0 for five points while power stays at work's level */
	for (size_t i = 300; i < 305; i++) {
		x[i] = 0;
		y[i] = 670;
	}
	/* one grid mean off the line alone: a bucket that mixes states */
	x[400] = 0.3;
	y[400] = 660;
	CHECK_INT_EQ(gw_anom_detect_joint(t, x, y, NJ, 0.1, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 1);
	CHECK_INT_EQ(f[0].kind, GW_ANOM_MISMATCH);
	CHECK_DBL_NEAR(f[0].t_start, t[300], 0);
	/* where it began: from the next bucket on, its first point is in the baseline (seen before) */
	CHECK_DBL_NEAR(f[0].t_end, t[300], 0);
	CHECK_DBL_NEAR(f[0].value, 670, 0);
	CHECK_DBL_NEAR(f[0].other, 0, 0);
	CHECK_DBL_NEAR(f[0].baseline, 100, 15);
	CHECK(f[0].score > 20);
}

static void test_joint_needs_spread(void)
{
	double t[NJ], x[NJ], y[NJ];
	struct gw_anom_params p = joint_params();
	struct gw_anom_finding f[8];
	size_t n;
	unsigned seed = 5;
	/* constant full load: the baseline says nothing of power against utilisation */
	for (size_t i = 0; i < NJ; i++) {
		t[i] = 1e9 + 60.0 * (double)i;
		x[i] = 1;
		y[i] = 680 + 10 * noise(&seed);
	}
	for (size_t i = 300; i < 305; i++)
		x[i] = 0;
	CHECK_INT_EQ(gw_anom_detect_joint(t, x, y, NJ, 0.1, &p, f, 8, &n), 0);
	CHECK_INT_EQ((int)n, 0);
	CHECK_INT_EQ(gw_anom_detect_joint(t, x, y, NJ, 0, &p, f, 8, &n), GW_EINVAL);
	t[10] = t[9] - 1;
	CHECK_INT_EQ(gw_anom_detect_joint(t, x, y, NJ, 0.1, &p, f, 8, &n), GW_EINVAL);
}

int main(void)
{
	RUN(test_clean_noise);
	RUN(test_spike);
	RUN(test_repeated_spike);
	RUN(test_level_shift);
	RUN(test_slow_drift);
	RUN(test_training_rhythm_quiet);
	RUN(test_bad_input);
	RUN(test_joint_mismatch);
	RUN(test_joint_needs_spread);
	return harness_done();
}
