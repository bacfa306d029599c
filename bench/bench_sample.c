/*
 * bench_sample - the cost of one full sample: every field of the table read
 * and formatted for every GPU of a simulated fleet.
 *
 *   build/bench/bench_sample [--sim SPEC] [--iterations N] [--no-format]
 *
 * Prints wall-clock ns per full sample and per field value. Run it under
 * `valgrind --tool=callgrind` (bench/sample.sh does) to split the instruction
 * count between the simulator (time "inside NVML") and gpuwatch's own work.
 */
#include "fields/fields.h"

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

int main(int argc, char **argv)
{
	const char *sim = "8xH200:training";
	long iterations = 200;
	int format = 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--sim") == 0 && i + 1 < argc)
			sim = argv[++i];
		else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = strtol(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--no-format") == 0)
			format = 0;
		else {
			fprintf(stderr, "usage: bench_sample [--sim SPEC] [--iterations N] [--no-format]\n");
			return 2;
		}
	}
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.sim = sim};
	if (gw_nvml_open(&nv, &opts, &err) != 0) {
		fprintf(stderr, "bench_sample: %s\n", err.msg);
		return 1;
	}
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	if (gw_nvml_gpus_list(nv, &gpus, &n, &err) != 0) {
		fprintf(stderr, "bench_sample: %s\n", err.msg);
		return 1;
	}
	size_t nf = gw_fields_count();
	char buf[256];
	size_t sink = 0, values = 0, valid = 0;
	double t0 = now_ns();
	for (long it = 0; it < iterations; it++) {
		for (unsigned int g = 0; g < n; g++) {
			struct gw_read_ctx ctx = {.nv = nv, .gpu = &gpus[g], .gpu_count = n};
			clock_gettime(CLOCK_REALTIME, &ctx.now);
			for (size_t f = 0; f < nf; f++) {
				struct gw_value v;
				const struct gw_field *fd = gw_field_at(f);
				gw_field_read(fd, &ctx, &v);
				if (format)
					sink += gw_field_format(fd, &v, 0, buf, sizeof(buf));
				values++;
				valid += v.state == GW_V_OK;
			}
		}
	}
	double dt = now_ns() - t0;
	printf("sim=%s gpus=%u fields=%zu iterations=%ld format=%d\n", sim, n, nf, iterations, format);
	printf("per full sample: %.1f us; per field value: %.1f ns; valid values: %zu of %zu per sample\n",
	       dt / (double)iterations / 1e3, dt / (double)values, valid / (size_t)iterations,
	       values / (size_t)iterations);
	free(gpus);
	gw_nvml_close(nv);
	return format && sink == 0 ? 1 : 0;
}
