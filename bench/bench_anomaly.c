/*
 * bench_anomaly - what the agent's live anomaly scores cost once their
 * rings are full: one evaluation is gw_anom_score_now() over every series
 * (GPUS x 5 metrics), each a ring of six windows of grid means, with the
 * parameters the agent uses (gw_anom_params_window; a grid point is a
 * 360th of the window, at least the sampling interval), as
 * src/agent/anomaly.c runs it once a grid point.
 *
 *   build/bench/bench_anomaly [--gpus N] [--window S] [--interval S] [--evals N]
 *
 * Defaults: 8 GPUs, the agent's 1 h window, 1 s sampling (a grid point of
 * 10 s, 2161 points a series). The series imitate a training run: a level
 * with noise, 2 s steps seen as means, a dip every 10 minutes. Prints the
 * CPU time of one evaluation and the share of a core it takes at one
 * evaluation a grid point.
 */
#include "analysis/anomaly.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define METRICS 5

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A deterministic uniform number in [0, 1). */
static double rnd(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 9007199254740992.0;
}

/* A training-like series of n grid points of grid_s: level, noise, a dip every 600 s. */
static void fill(double *t, double *v, size_t n, double grid_s, double level, double noise,
		 unsigned long long seed)
{
	for (size_t i = 0; i < n; i++) {
		double ts = (double)i * grid_s;
		t[i] = 1.8e9 + ts;
		v[i] = level + noise * (rnd(&seed) - 0.5);
		if (fmod(ts, 600) < 30)
			v[i] = level * 0.3;
	}
}

int main(int argc, char **argv)
{
	int gpus = 8, evals = 30;
	double window = 3600, interval = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--gpus") == 0)
			gpus = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--window") == 0)
			window = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--interval") == 0)
			interval = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--evals") == 0)
			evals = atoi(argv[i + 1]);
	}
	if (gpus < 1 || evals < 1 || !(window >= 2) || !(interval > 0)) {
		fprintf(stderr,
			"bench_anomaly: --gpus, --evals over 0, --window 2 s or more, --interval over 0\n");
		return 2;
	}
	double grid = window / 360 > interval ? window / 360 : interval;
	struct gw_anom_params p;
	gw_anom_params_default(&p);
	p.window_s = window;
	p.short_s = window / 12;
	p.step_s = window / 60;
	p.memory_s = 6 * window;
	size_t n = (size_t)(p.memory_s / grid) + 1, ns = (size_t)gpus * METRICS;
	double *t = malloc(ns * n * sizeof(double)), *v = malloc(ns * n * sizeof(double));
	if (!t || !v)
		return 1;
	static const double level[METRICS] = {0.95, 60e9, 65, 650, 1.98e9};
	static const double noise[METRICS] = {0.04, 0.2e9, 2, 40, 30e6};
	static const double floor_[METRICS] = {0.05, 1.4e9, 2, 21, 50e6};
	for (size_t s = 0; s < ns; s++)
		fill(t + s * n, v + s * n, n, grid, level[s % METRICS], noise[s % METRICS], 7 + s);
	double sum = 0, c0 = cpu_s();
	for (int e = 0; e < evals; e++)
		for (size_t s = 0; s < ns; s++) {
			p.floor = floor_[s % METRICS];
			sum += gw_anom_score_now(t + s * n, v + s * n, n, &p);
		}
	double per = (cpu_s() - c0) / evals;
	printf("gpus %d, series %zu, window %.0f s, grid %.3g s, %zu points a series\n", gpus, ns, window,
	       grid, n);
	printf("one evaluation: %.2f ms CPU; at one a grid point: %.3f %% of a core (scores summed %.3g)\n",
	       per * 1e3, 100 * per / grid, sum);
	free(t);
	free(v);
	return 0;
}
