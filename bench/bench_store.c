/*
 * bench_store - the history store on a day of an 8-GPU training node.
 *
 * The data comes from a generator of the simulator's shape, not from the
 * simulator itself: 8 GPUs x 40 series (DCGM exporter names and labels) at
 * 1 s for 24 h, values like a training job's (integer percentages, °C and
 * MHz with small noise, power in W with one decimal, monotonic energy and
 * byte counters, constant ECC counters and clocks). It reports ingest speed
 * of the append path (one thread; the flusher runs on its own thread),
 * bytes per sample on disk, and PromQL latency over 1 h and 24 h.
 *
 *   bench_store DIR [--hours H] [--openmetrics FILE]
 *
 * --openmetrics also writes the same samples as OpenMetrics text for
 * `promtool tsdb create-blocks-from openmetrics` (see bench/store.sh).
 */
#include "promql/engine.h"
#include "store/tsdb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NGPU 8

enum kind { K_CONST, K_PCT, K_TEMP, K_CLOCK, K_POWER, K_ENERGY, K_BYTES, K_MEM };

struct field {
	const char *name;
	enum kind kind;
	double base;
};

static const struct field FIELDS[] = {
	{"DCGM_FI_DEV_GPU_UTIL", K_PCT, 95},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", K_PCT, 40},
	{"DCGM_FI_DEV_ENC_UTIL", K_CONST, 0},
	{"DCGM_FI_DEV_DEC_UTIL", K_CONST, 0},
	{"DCGM_FI_DEV_SM_CLOCK", K_CLOCK, 1980},
	{"DCGM_FI_DEV_MEM_CLOCK", K_CONST, 2619},
	{"DCGM_FI_DEV_GPU_TEMP", K_TEMP, 62},
	{"DCGM_FI_DEV_MEMORY_TEMP", K_TEMP, 70},
	{"DCGM_FI_DEV_POWER_USAGE", K_POWER, 620},
	{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", K_ENERGY, 620000},
	{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", K_CONST, 0},
	{"DCGM_FI_DEV_XID_ERRORS", K_CONST, 0},
	{"DCGM_FI_DEV_FB_FREE", K_MEM, 2150},
	{"DCGM_FI_DEV_FB_USED", K_MEM, 139000},
	{"DCGM_FI_DEV_FB_RESERVED", K_CONST, 581},
	{"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", K_BYTES, 4e11},
	{"DCGM_FI_DEV_VGPU_LICENSE_STATUS", K_CONST, 0},
	{"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", K_CONST, 0},
	{"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", K_CONST, 0},
	{"DCGM_FI_DEV_ROW_REMAP_FAILURE", K_CONST, 0},
	{"DCGM_FI_PROF_GR_ENGINE_ACTIVE", K_PCT, 88},
	{"DCGM_FI_PROF_SM_ACTIVE", K_PCT, 80},
	{"DCGM_FI_PROF_SM_OCCUPANCY", K_PCT, 45},
	{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", K_PCT, 55},
	{"DCGM_FI_PROF_DRAM_ACTIVE", K_PCT, 60},
	{"DCGM_FI_PROF_PIPE_FP64_ACTIVE", K_CONST, 0},
	{"DCGM_FI_PROF_PIPE_FP32_ACTIVE", K_PCT, 12},
	{"DCGM_FI_PROF_PIPE_FP16_ACTIVE", K_PCT, 30},
	{"DCGM_FI_PROF_PCIE_TX_BYTES", K_BYTES, 2e9},
	{"DCGM_FI_PROF_PCIE_RX_BYTES", K_BYTES, 3e9},
	{"DCGM_FI_PROF_NVLINK_TX_BYTES", K_BYTES, 1e11},
	{"DCGM_FI_PROF_NVLINK_RX_BYTES", K_BYTES, 1e11},
	{"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", K_CONST, 0},
	{"DCGM_FI_DEV_POWER_MGMT_LIMIT", K_CONST, 700},
	{"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", K_CONST, 0},
	{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", K_CONST, 0},
	{"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", K_CONST, 3},
	{"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", K_CONST, 0},
	{"DCGM_FI_DEV_PSTATE", K_CONST, 0},
	{"DCGM_FI_DEV_FAN_SPEED", K_CONST, 0},
};
#define NFIELD (sizeof(FIELDS) / sizeof(FIELDS[0]))

struct gen {
	uint64_t rng;
	double acc[NGPU][NFIELD]; /* counters, memory */
};

static double noise(struct gen *g)
{
	g->rng ^= g->rng << 13, g->rng ^= g->rng >> 7, g->rng ^= g->rng << 17;
	return (double)(g->rng >> 11) / 9007199254740992.0 - 0.5; /* -0.5 .. 0.5 */
}

/* One value of field f on gpu at second s; dips every 20 min for a checkpoint. */
static double value(struct gen *g, int gpu, size_t f, int64_t s)
{
	const struct field *fd = &FIELDS[f];
	bool ckpt = s % 1200 < 30;
	double load = ckpt ? 0.1 : 1.0;
	switch (fd->kind) {
	case K_CONST:
		return fd->base;
	case K_PCT:
		return fmin(100, fmax(0, round(fd->base * load + 4 * noise(g))));
	case K_TEMP:
		return round(fd->base - (ckpt ? 8 : 0) + gpu % 3 + 1.2 * noise(g));
	case K_CLOCK:
		return ckpt ? 1755 : fd->base - 15 * (double)(g->rng % 3 == 0);
	case K_POWER:
		return round((fd->base * load + 100 + 25 * noise(g)) * 10) / 10;
	case K_ENERGY: /* mJ */
		g->acc[gpu][f] += round((fd->base * load + 100000 + 25000 * noise(g)));
		return g->acc[gpu][f];
	case K_BYTES:
		g->acc[gpu][f] += round(fd->base * load * (1 + 0.2 * noise(g)));
		return g->acc[gpu][f];
	case K_MEM:
		return fd->base + (ckpt ? 512 : 0);
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void bench_query(struct gw_tsdb *db, const char *qs, int64_t end, int64_t range, int64_t step)
{
	struct gw_pq_node *root = NULL;
	struct gw_err err = {0};
	if (gw_promql_parse(qs, &root, &err) != 0) {
		fprintf(stderr, "parse %s: %s\n", qs, err.msg);
		return;
	}
	struct gw_querier q = gw_tsdb_querier(db);
	double ms[5];
	size_t pts = 0;
	for (int i = 0; i < 5; i++) {
		struct gw_arena a;
		gw_arena_init(&a, (size_t)8 << 30);
		struct gw_matrix m = {0};
		double t0 = now_s();
		int rc = gw_promql_range(root, &q, end - range, end, step, NULL, &a, &m, &err);
		ms[i] = (now_s() - t0) * 1000;
		if (rc)
			fprintf(stderr, "query %s: %s\n", qs, err.msg);
		pts = m.n ? m.s[0].n : 0;
		gw_arena_release(&a);
	}
	qsort(ms, 5, sizeof(ms[0]), cmp_d);
	printf("query %3lldh step %3llds  %8.2f ms (median of 5, %zu points)  %s\n", (long long)(range / 3600000),
	       (long long)(step / 1000), ms[2], pts, qs);
	gw_promql_free(root);
}

/*
 * The same samples as OpenMetrics text. A metric family's samples must be
 * contiguous, so each family goes to its own part file first (the
 * generator is replayed in the same order, so values match), then the
 * parts are joined under their # TYPE lines and closed with # EOF.
 */
static int write_openmetrics(FILE *out, const char *om, int64_t t0, int64_t secs)
{
	struct gen g = {.rng = 88172645463325252ULL};
	FILE *pf[NFIELD] = {0};
	char path[4096];
	int rc = 0;
	for (size_t f = 0; f < NFIELD && !rc; f++) {
		snprintf(path, sizeof(path), "%s.%zu", om, f);
		pf[f] = fopen(path, "w+");
		rc = pf[f] ? 0 : 1;
	}
	for (int64_t s = 0; s < secs && !rc; s++)
		for (int gpu = 0; gpu < NGPU; gpu++)
			for (size_t f = 0; f < NFIELD; f++) {
				int64_t t = t0 + s * 1000;
				fprintf(pf[f],
					"%s{gpu=\"%d\",UUID=\"GPU-5a1d6c9e-0000-4000-8000-00000000000%d\","
					"Hostname=\"train-node-01\",modelName=\"NVIDIA H200\"} %.17g %lld.%03lld\n",
					FIELDS[f].name, gpu, gpu, value(&g, gpu, f, s), (long long)(t / 1000),
					(long long)(t % 1000));
			}
	static char chunk[1 << 16];
	for (size_t f = 0; f < NFIELD && pf[f]; f++) {
		fprintf(out, "# TYPE %s gauge\n", FIELDS[f].name);
		rewind(pf[f]);
		size_t k;
		while ((k = fread(chunk, 1, sizeof(chunk), pf[f])) > 0)
			fwrite(chunk, 1, k, out);
		fclose(pf[f]);
		snprintf(path, sizeof(path), "%s.%zu", om, f);
		remove(path);
	}
	fputs("# EOF\n", out);
	return fclose(out) != 0 || rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_store DIR [--hours H] [--openmetrics FILE]\n");
		return 2;
	}
	const char *dir = argv[1], *om = NULL;
	int64_t hours = 24;
	for (int i = 2; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--hours") == 0)
			hours = strtoll(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--openmetrics") == 0)
			om = argv[i + 1];
	}
	struct gw_tsdb_opts o = {.path = dir};
	struct gw_tsdb *db = NULL;
	struct gw_err err = {0};
	if (gw_tsdb_open(&db, &o, &err) != 0) {
		fprintf(stderr, "open: %s\n", err.msg);
		return 1;
	}
	uint64_t ref[NGPU][NFIELD];
	for (int gpu = 0; gpu < NGPU; gpu++)
		for (size_t f = 0; f < NFIELD; f++) {
			char gs[4], uuid[64];
			snprintf(gs, sizeof(gs), "%d", gpu);
			snprintf(uuid, sizeof(uuid), "GPU-5a1d6c9e-0000-4000-8000-00000000000%d", gpu);
			struct gw_lpair l[5] = {{"__name__", FIELDS[f].name}, {"gpu", gs}, {"UUID", uuid},
						{"Hostname", "train-node-01"}, {"modelName", "NVIDIA H200"}};
			if (gw_tsdb_series(db, l, 5, &ref[gpu][f]) != 0)
				return 1;
		}
	const int64_t t0 = 1700000000000LL; /* ms */
	int64_t secs = hours * 3600;
	struct gen g = {.rng = 88172645463325252ULL};
	/* Values first (so only the append path is timed), an hour at a time. */
	size_t per = (size_t)NGPU * NFIELD * 3600;
	double *vals = malloc(per * sizeof(*vals));
	FILE *omf = om ? fopen(om, "w") : NULL;
	if (!vals || (om && !omf))
		return 1;
	double append_s = 0, w0 = now_s();
	uint64_t n = 0, waits = 0;
	for (int64_t h0 = 0; h0 < secs; h0 += 3600) {
		size_t k = 0;
		for (int64_t s = h0; s < h0 + 3600; s++)
			for (int gpu = 0; gpu < NGPU; gpu++)
				for (size_t f = 0; f < NFIELD; f++)
					vals[k++] = value(&g, gpu, f, s);
		double a0 = now_s();
		k = 0;
		for (int64_t s = h0; s < h0 + 3600; s++)
			for (int gpu = 0; gpu < NGPU; gpu++)
				for (size_t f = 0; f < NFIELD; f++) {
					int rc = gw_tsdb_append(db, ref[gpu][f], t0 + s * 1000, vals[k]);
					if (rc == GW_EOVERFLOW) {
						/* Appends outran the flush thread and the heads are
						 * full: flush here (not counted as appending) and retry. */
						append_s += now_s() - a0;
						waits++;
						if (gw_tsdb_flush(db, &err) != 0) {
							fprintf(stderr, "flush: %s\n", err.msg);
							return 1;
						}
						a0 = now_s();
						rc = gw_tsdb_append(db, ref[gpu][f], t0 + s * 1000, vals[k]);
					}
					if (rc != 0) {
						fprintf(stderr, "append: %s\n", gw_strerror(rc));
						return 1;
					}
					k++;
				}
		append_s += now_s() - a0;
		n += k;
	}
	double c0 = now_s();
	gw_tsdb_close(db);
	double close_s = now_s() - c0, wall_s = now_s() - w0;
	printf("series %d, samples %llu (%lld h at 1 s)\n", NGPU * (int)NFIELD, (unsigned long long)n,
	       (long long)hours);
	printf("append path: %.3f s, %.2f M samples/s (one thread)\n", append_s, n / append_s / 1e6);
	printf("close (final flush + checkpoint): %.3f s\n", close_s);
	printf("end to end (values made, appends, flushes, close): %.3f s, %.2f M samples/s; heads full %llu times\n",
	       wall_s, n / wall_s / 1e6, (unsigned long long)waits);
	if (omf && write_openmetrics(omf, om, t0, secs) != 0)
		return 1;
	free(vals);

	o.flush_interval_ms = -1;
	if (gw_tsdb_open(&db, &o, &err) != 0) {
		fprintf(stderr, "reopen: %s\n", err.msg);
		return 1;
	}
	int64_t end = t0 + (secs - 1) * 1000;
	static const char *const qs[] = {
		"avg(DCGM_FI_DEV_GPU_UTIL)",
		"max by (gpu) (DCGM_FI_DEV_GPU_TEMP)",
		"sum(rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[5m])) / 1000",
		"avg_over_time(DCGM_FI_DEV_POWER_USAGE{gpu=\"3\"}[5m])",
		"sum by (Hostname) (DCGM_FI_DEV_FB_USED) / sum by (Hostname) (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
	};
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		bench_query(db, qs[i], end, 3600000, 15000);
		if (hours >= 24)
			bench_query(db, qs[i], end, 24 * 3600000LL, 300000);
	}
	gw_tsdb_close(db);
	return 0;
}
