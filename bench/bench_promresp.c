/*
 * bench_promresp - the cost of reading one API answer as `top --remote` and
 * `top --prometheus` do each refresh (gw_ui_promresp_parse: JSON, then the
 * envelope, labels and points checked into series).
 *
 *   build/bench/bench_promresp [--iterations N] [--answer matrix|vector]
 *
 * Two generated answers shaped like the real ones: a query_range matrix for
 * the history panes (8 GPUs x 20 metrics x 300 points) and an agent's
 * /api/v1/query vector of 896 series (8 GPUs x 112 metrics). Prints the
 * answer's size, the median and fastest wall time per parse, MB/s, and the
 * median time to release the answer again (part of every refresh too).
 * For a figure that survives a noisy machine, count instructions:
 *   valgrind --tool=callgrind --toggle-collect=gw_ui_promresp_parse \
 *     --toggle-collect=gw_ui_promresp_release \
 *     build/bench/bench_promresp --iterations 10 --answer matrix
 */
#include "core/buf.h"
#include "ui/promresp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void labels(struct gw_buf *b, int metric, int gpu)
{
	gw_buf_printf(
	    b,
	    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_METRIC_%03d\",\"gpu\":\"%d\",\"UUID\":\"GPU-5f2c9a1e-"
	    "8b3d-"
	    "4c7a-9e61-0d4b7f3a2c%02d\",\"modelName\":\"NVIDIA H200\",\"pci_bus_id\":\"00000000:%02X:00.0\","
	    "\"Hostname\":\"gpu-node-017\",\"instance\":\"10.0.4.17:9400\",\"job\":\"gpuwatch\"}",
	    metric, gpu, gpu, 0x18 + gpu * 0x10);
}

/* 8 GPUs x 20 metrics x 300 points, as query_range answers for the history panes. */
static void matrix(struct gw_buf *b)
{
	gw_buf_printf(b, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
	for (int g = 0; g < 8; g++)
		for (int m = 0; m < 20; m++) {
			gw_buf_printf(b, "%s", g || m ? "," : "");
			labels(b, m, g);
			gw_buf_printf(b, ",\"values\":[");
			for (int p = 0; p < 300; p++)
				gw_buf_printf(b, "%s[%d.%s,\"%d.%d\"]", p ? "," : "", 1733160000 + p,
					      p % 2 ? "5" : "025", (g * 131 + m * 17 + p * 7) % 700, p % 10);
			gw_buf_printf(b, "]}");
		}
	gw_buf_printf(b, "]}}");
}

/* 896 series (8 GPUs x 112 metrics), as an agent's /api/v1/query answers top --remote. */
static void vector(struct gw_buf *b)
{
	gw_buf_printf(b, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
	for (int g = 0; g < 8; g++)
		for (int m = 0; m < 112; m++) {
			gw_buf_printf(b, "%s", g || m ? "," : "");
			labels(b, m, g);
			gw_buf_printf(b, ",\"value\":[1733160000.5,\"%s\"]}",
				      m % 9 == 0   ? "NaN"
				      : m % 5 == 0 ? "150754820096"
						   : "627.4");
		}
	gw_buf_printf(b, "]}}");
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int run(const char *name, const struct gw_buf *b, long iterations)
{
	double *t = calloc((size_t)iterations, sizeof(*t)), *tr = calloc((size_t)iterations, sizeof(*tr));
	if (!t || !tr) {
		free(t);
		free(tr);
		return 1;
	}
	size_t npts = 0;
	for (long i = 0; i < iterations; i++) {
		struct gw_ui_promresp r;
		struct gw_err err;
		gw_err_clear(&err);
		double t0 = now_ns();
		int rc = gw_ui_promresp_parse(&r, b->data, b->len, &err);
		t[i] = now_ns() - t0;
		if (rc) {
			fprintf(stderr, "bench_promresp: %s: %s\n", name, err.msg);
			free(t);
			free(tr);
			return 1;
		}
		npts = r.npts;
		t0 = now_ns();
		gw_ui_promresp_release(&r);
		tr[i] = now_ns() - t0;
	}
	qsort(t, (size_t)iterations, sizeof(*t), cmp);
	qsort(tr, (size_t)iterations, sizeof(*tr), cmp);
	double med = t[iterations / 2];
	printf("%-7s %8zu bytes %6zu points  parse median %7.3f ms  fastest %7.3f ms  %6.1f MB/s  release "
	       "median %6.3f ms\n",
	       name, b->len, npts, med / 1e6, t[0] / 1e6, (double)b->len / med * 1e3,
	       tr[iterations / 2] / 1e6);
	free(t);
	free(tr);
	return 0;
}

int main(int argc, char **argv)
{
	long iterations = 200;
	const char *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = strtol(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--answer") == 0 && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: bench_promresp [--iterations N] [--answer matrix|vector]\n");
			return 2;
		}
	}
	if (iterations < 1)
		iterations = 1;
	struct gw_buf m, v;
	gw_buf_init(&m, 64u << 20);
	gw_buf_init(&v, 64u << 20);
	matrix(&m);
	vector(&v);
	int rc = 0;
	if (!only || strcmp(only, "matrix") == 0)
		rc = run("matrix", &m, iterations);
	if (!rc && (!only || strcmp(only, "vector") == 0))
		rc = run("vector", &v, iterations);
	gw_buf_release(&m);
	gw_buf_release(&v);
	return rc;
}
