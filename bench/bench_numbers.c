/*
 * bench_numbers - what writing a double costs, in the two forms gpuwatch
 * writes (model/number.h): the exposition's %g form and the API's 'f'
 * form, against printf's "%.17g" (the peer every other formatter here is
 * measured against) and the exposition's formatter before the two were
 * one engine (printf trials from %.6g, kept below as the reference).
 *
 *   build/bench/bench_numbers [--iterations N]
 *
 * Values: the mix a GPU exposition carries: integers (bytes, MHz, counts),
 * watts with three decimals, ratios, and computed rates. Prints ns per
 * value for each formatter and checks that the %g form writes what the
 * old formatter wrote, byte for byte.
 */
#include "model/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVALUES 4096

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The exposition's formatter before: integers by "%.0f", the rest by the
 * shortest "%.Ng" from N = 6 that reads back. */
static size_t old_g(char *out, double v)
{
	if (isnan(v))
		return (size_t)snprintf(out, 64, "NaN");
	if (isinf(v))
		return (size_t)snprintf(out, 64, v > 0 ? "+Inf" : "-Inf");
	if (v == floor(v) && fabs(v) < 1e15)
		return (size_t)snprintf(out, 64, "%.0f", v);
	if (v == floor(v))
		return (size_t)snprintf(out, 64, "%.17g", v);
	int n = 0;
	for (int prec = 6; prec <= 17; prec++) {
		n = snprintf(out, 64, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	return (size_t)n;
}

static size_t peer(char *out, double v)
{
	return (size_t)snprintf(out, 64, "%.17g", v);
}

static size_t new_g(char *out, double v)
{
	return gw_num_format_g(out, v);
}

static size_t new_f(char *out, double v)
{
	return isfinite(v) ? gw_num_format_f(out, 400, v) : 0;
}

static double run(size_t (*fmt)(char *, double), const double *v, long iterations)
{
	char out[512];
	volatile size_t sink = 0;
	double t0 = now_ns();
	for (long it = 0; it < iterations; it++)
		for (int i = 0; i < NVALUES; i++)
			sink += fmt(out, v[i]);
	(void)sink;
	return (now_ns() - t0) / ((double)iterations * NVALUES);
}

int main(int argc, char **argv)
{
	long iterations = 200;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = atol(argv[++i]);
	static double v[NVALUES];
	srand(7);
	for (int i = 0; i < NVALUES; i++) {
		switch (i % 4) {
		case 0: v[i] = (double)(rand() % 150000) * 1048576; break;  /* bytes */
		case 1: v[i] = (double)(rand() % 700000) / 1000; break;     /* watts, mW precision */
		case 2: v[i] = (double)(rand() % 1000) / 1000; break;       /* ratios */
		default: v[i] = (double)rand() / RAND_MAX * 1e4 / 7; break; /* computed rates */
		}
	}
	char a[512], b[512];
	int bad = 0;
	for (int i = 0; i < NVALUES; i++) {
		size_t na = old_g(a, v[i]), nb = new_g(b, v[i]);
		if (na != nb || memcmp(a, b, na) != 0)
			bad++;
	}
	printf("values %d, iterations %ld; %%g form differs from the old formatter on %d values\n", NVALUES,
	       iterations, bad);
	printf("%-34s %8s\n", "formatter", "ns/value");
	printf("%-34s %8.1f\n", "printf %.17g (peer)", run(peer, v, iterations));
	printf("%-34s %8.1f\n", "printf trials from %.6g (old method)", run(old_g, v, iterations));
	printf("%-34s %8.1f\n", "exposition now (gw_num_format_g)", run(new_g, v, iterations));
	printf("%-34s %8.1f\n", "API 'f' (gw_num_format_f)", run(new_f, v, iterations));
	return bad != 0;
}
