/* Importing nvidia-smi CSV logs: headers, units, blocks, mess, bad lines. */
#include "harness.h"
#include "ingest/import_smi.h"
#include "promql/engine.h"
#include "store/memstore.h"

#include <stdlib.h>

struct sink {
	struct gw_memstore *m;
	size_t bad;
	size_t bad_lines[16];
	char why[16][160];
};

static int to_mem(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	struct sink *s = ctx;
	long id = gw_memstore_series(s->m, l, n);
	return id < 0 ? (int)id : gw_memstore_append(s->m, id, t, v);
}

static void on_bad(void *ctx, size_t line, const char *why)
{
	struct sink *s = ctx;
	if (s->bad < 16) {
		s->bad_lines[s->bad] = line;
		snprintf(s->why[s->bad], sizeof(s->why[0]), "%s", why);
	}
	s->bad++;
}

static int run(const char *text, const char *fields, struct sink *s, struct gw_import_stats *st)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct gw_import_opts o = {.fields = fields, .instance = "node1", .job = "import", .emit = to_mem,
				   .ctx = s, .on_bad_line = on_bad};
	struct gw_err err;
	int rc = gw_import_smi(f, &o, st, &err);
	fclose(f);
	return rc;
}

/* Value of one series at time t (ms), via PromQL. */
static double query(struct gw_memstore *m, const char *q, int64_t t)
{
	struct gw_pq_node *root = NULL;
	struct gw_err err;
	if (gw_promql_parse(q, &root, &err) != 0)
		return -12345;
	struct gw_arena a;
	gw_arena_init(&a, 1 << 24);
	struct gw_querier qr = gw_memstore_querier(m);
	struct gw_pq_result r;
	double v = -1;
	if (gw_promql_instant(root, &qr, t, NULL, &a, &r, &err) == 0 && r.type == GW_PQ_T_VECTOR && r.vector.n == 1)
		v = r.vector.s[0].v;
	gw_promql_free(root);
	gw_arena_release(&a);
	return v;
}

static void test_timestamped_csv(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const char *log = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\r\n"
			  "2026/07/03 22:11:09.763, 0, NVIDIA H200, 100 %, 32362 MiB, 627.40 W\r\n"
			  "2026/07/03 22:11:09.763, 1, NVIDIA H200, [N/A], 0 MiB, 77.00 W\r\n"
			  "2026/07/03 22:11:10.763, 0, NVIDIA H200, 99 %, 32400 MiB, [Not Supported]\r\n"
			  "2026/07/03 22:11:11.763, 0, NVIDIA H2"; /* truncated last line */
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	CHECK_INT_EQ(run(log, NULL, &s, &st), 0);
	CHECK_INT_EQ(st.rows, 3);
	CHECK_INT_EQ(st.bad_lines, 1);
	CHECK_INT_EQ(s.bad_lines[0], 5);
	int64_t t0 = 1783116669763LL; /* 2026-07-03 22:11:09.763 UTC */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",instance=\"node1\",job=\"import\"}", t0), 100, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", t0), 627.4, 1e-9);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_memory_used_bytes{gpu=\"0\"}", t0 + 1000), 32400.0 * 1048576, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"1\"}", t0), 0, 0);
	/* [N/A] is absent, not 0. */
	CHECK_DBL_NEAR(query(s.m, "count(DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"})", t0), -1, 0);
	gw_memstore_free(s.m);
}

static void test_article_blocks(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	/* The reference article's loop: date blocks, a GPU query, then a compute-apps query. */
	const char *log = "======= Wed Dec  2 17:58:17 UTC 2026 =======\n"
			  "index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"
			  "0, NVIDIA H100 80GB HBM3, 97 %, 70000 MiB, 81559 MiB\n"
			  "1, NVIDIA H100 80GB HBM3, 95 %, 69000 MiB, 81559 MiB\n"
			  "pid, process_name, used_gpu_memory [MiB]\n"
			  "4242, python, 69990 MiB\n"
			  "======= 2026-12-02 17:58:27 =======\n"
			  "index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"
			  "0, NVIDIA H100 80GB HBM3, 12 %, 70000 MiB, 81559 MiB\n"
			  "0, NVIDIA H100 80GB HBM3, bogus %, 70000 MiB, 81559 MiB\n";
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	CHECK_INT_EQ(run(log, NULL, &s, &st), 0);
	CHECK_INT_EQ(st.rows, 3);
	CHECK_INT_EQ(st.skipped_lines, 2);
	CHECK_INT_EQ(st.bad_lines, 1);
	CHECK_INT_EQ(s.bad_lines[0], 10);
	int64_t t = 1796234297000LL; /* 2026-12-02 17:58:17 UTC */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"}", t), 95, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}", t + 10000), 12, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"0\"} / DCGM_FI_DEV_FB_TOTAL{gpu=\"0\"}", t), 70000.0 / 81559, 1e-12);
	gw_memstore_free(s.m);
}

static void test_noheader_nounits(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const char *log = "======= 2026-12-02T10:00:00Z =======\n0, 55, 300.5\n1, 60, 301\n"
			  "======= 2026-12-02T12:00:05+02:00 =======\n0, 56, 299\n";
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	CHECK_INT_EQ(run(log, "index,temperature.gpu,power.draw", &s, &st), 0);
	CHECK_INT_EQ(st.rows, 3);
	CHECK_INT_EQ(st.bad_lines, 0);
	int64_t t = 1796205600000LL; /* 2026-12-02T10:00:00Z */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}", t), 60, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", t + 5000), 56, 0);
	/* Without a header or --fields: every line is reported, nothing imported. */
	struct sink s2 = {.m = gw_memstore_new()};
	CHECK_INT_EQ(run("0, 55, 300.5\n1, 60, 301\n", NULL, &s2, &st), 0);
	CHECK_INT_EQ(st.bad_lines, 2);
	CHECK_INT_EQ(gw_memstore_nseries(s2.m), 0);
	/* An unknown --fields name is refused up front. */
	FILE *f = fmemopen((void *)"x", 1, "r");
	struct gw_import_opts o = {.fields = "index,nosuch.field", .emit = to_mem, .ctx = &s2};
	struct gw_err err;
	CHECK_INT_EQ(gw_import_smi(f, &o, &st, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "nosuch.field") != NULL);
	fclose(f);
	gw_memstore_free(s.m);
	gw_memstore_free(s2.m);
}

struct stopper {
	struct sink s;
	int calls, fail_at;
};

static int stop_at(void *ctx, struct gw_err *err)
{
	struct stopper *st = ctx;
	return ++st->calls == st->fail_at ? gw_err_set(err, GW_EIO, "writing the store: disk full") : 0;
}

static int to_mem_stopper(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	return to_mem(&((struct stopper *)ctx)->s, l, n, t, v);
}

/* The sink's checkpoint runs after each line that gave samples; a failure stops the import. */
static void test_checkpoint(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const char *log = "timestamp, temperature.gpu\n"
			  "2026/07/03 22:11:09.000, 50\n"
			  "2026/07/03 22:11:09.500, [N/A]\n" /* no sample: no checkpoint */
			  "2026/07/03 22:11:10.000, 51\n"
			  "2026/07/03 22:11:11.000, 52\n"
			  "2026/07/03 22:11:12.000, 53\n";
	struct stopper st = {.s = {.m = gw_memstore_new()}, .fail_at = 3};
	FILE *f = fmemopen((void *)log, strlen(log), "r");
	struct gw_import_opts o = {.emit = to_mem_stopper, .ctx = &st, .checkpoint = stop_at};
	struct gw_import_stats stats;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_import_smi(f, &o, &stats, &err), GW_EIO);
	fclose(f);
	CHECK_INT_EQ(st.calls, 3);
	CHECK_INT_EQ(stats.lines, 5); /* stopped after the 3rd row with samples, line 5 */
	CHECK(strstr(err.msg, "disk full") != NULL);
	CHECK_INT_EQ(stats.samples, 6); /* 3 rows, a native and a DCGM series each */
	gw_memstore_free(st.s.m);
}


/* A timestamp that is no time is a bad line with its number and the value,
 * not the start of a process list: an empty cell named no compute-apps
 * column, so "-1", "" and "1e300" once turned every later line into
 * "lines skipped (process lists)". */
static void test_bad_timestamps(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const char *log = "timestamp, index, temperature.gpu\n"
			  "2026/07/03 22:11:09.763, 0, 40\n"
			  "-1, 0, 41\n"
			  ", 0, 42\n"
			  "1e300, 0, 43\n"
			  "2026/02/31 22:11:10.000, 0, 44\n"  /* no such day */
			  "2200/01/01 00:00:00.000, 0, 45\n"  /* past the range */
			  "2026/07/03 22:11:10.000x, 0, 46\n" /* trailing junk */
			  "2026/07/03 22:11:11.5, 0, 47\n";
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	CHECK_INT_EQ(run(log, NULL, &s, &st), 0);
	CHECK_INT_EQ(st.rows, 2);
	CHECK_INT_EQ(st.skipped_lines, 0);
	CHECK_INT_EQ(st.bad_lines, 6);
	for (size_t i = 0; i < 6; i++) {
		CHECK_INT_EQ(s.bad_lines[i], i + 3);
		CHECK(strstr(s.why[i], "bad timestamp \"") == s.why[i]);
	}
	CHECK(strstr(s.why[0], "\"-1\"") != NULL);
	CHECK(strstr(s.why[1], "\"\"") != NULL);
	CHECK(strstr(s.why[2], "\"1e300\"") != NULL);
	/* ".5" is half a second, not 5 ms */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", 1783116671500LL), 47, 0);
	CHECK_DBL_NEAR(query(s.m, "timestamp(DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"})", 1783116671600LL), 1783116671.5, 1e-9);
	gw_memstore_free(s.m);
}

/* A GPU index is 0..1023: anything else would become a label, a set of
 * series per distinct value. */
static void test_gpu_index_bound(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const char *log = "timestamp, index, temperature.gpu\n"
			  "2026/07/03 22:11:09.000, 4294967296, 40\n"
			  "2026/07/03 22:11:09.000, -1, 41\n"
			  "2026/07/03 22:11:09.000, 1024, 42\n"
			  "2026/07/03 22:11:09.000, 0x1, 43\n"
			  "2026/07/03 22:11:09.000, , 44\n"
			  "2026/07/03 22:11:09.000, 1023, 45\n"
			  "2026/07/03 22:11:09.000, 0, 46\n";
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	CHECK_INT_EQ(run(log, NULL, &s, &st), 0);
	CHECK_INT_EQ(st.rows, 2);
	CHECK_INT_EQ(st.bad_lines, 5);
	CHECK_INT_EQ(s.bad_lines[0], 2);
	CHECK_INT_EQ(s.bad_lines[4], 6);
	CHECK(strstr(s.why[0], "GPU index \"4294967296\" is not 0..1023") != NULL);
	CHECK(strstr(s.why[1], "GPU index \"-1\"") != NULL);
	CHECK_DBL_NEAR(query(s.m, "count(DCGM_FI_DEV_GPU_TEMP)", 1783116669000LL), 2, 0); /* GPUs 0 and 1023 */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1023\"}", 1783116669000LL), 45, 0);
	gw_memstore_free(s.m);
	/* Without an index column a row's place in its block numbers it: bounded the same way. */
	size_t cap = 64 + 1100 * 8;
	char *big = malloc(cap), *p = big;
	p += snprintf(p, cap, "======= 2026-12-02T10:00:00Z =======\n");
	for (int i = 0; i < 1100; i++)
		p += snprintf(p, cap - (size_t)(p - big), "40\n");
	struct sink s2 = {.m = gw_memstore_new()};
	CHECK_INT_EQ(run(big, "temperature.gpu", &s2, &st), 0);
	CHECK_INT_EQ(st.rows, 1024);
	CHECK_INT_EQ(st.bad_lines, 1100 - 1024);
	CHECK_INT_EQ(s2.bad_lines[0], 1 + 1024 + 1);
	CHECK(strstr(s2.why[0], "more than 1024 GPU rows") != NULL);
	gw_memstore_free(s2.m);
	free(big);
}

static void test_dates(void)
{
	int64_t ms;
	setenv("TZ", "UTC", 1);
	tzset();
	CHECK_INT_EQ(gw_import_parse_date("Wed Dec  2 17:58:17 UTC 2026", &ms), 0);
	CHECK_INT_EQ(ms, 1796234297000LL);
	CHECK_INT_EQ(gw_import_parse_date("Wed Dec  2 17:58:17 2026", &ms), 0);
	CHECK_INT_EQ(ms, 1796234297000LL);
	CHECK_INT_EQ(gw_import_parse_date("2026-12-02 17:58:17", &ms), 0);
	CHECK_INT_EQ(ms, 1796234297000LL);
	CHECK_INT_EQ(gw_import_parse_date("2026/12/02 17:58:17.250", &ms), 0);
	CHECK_INT_EQ(ms, 1796234297250LL);
	CHECK(gw_import_parse_date("yesterday at noon", &ms) != 0);
	/* fractions are milliseconds by place; zones bounded; days the calendar has */
	CHECK_INT_EQ(gw_import_parse_date("2026-12-02T17:58:17.5Z", &ms), 0);
	CHECK_INT_EQ(ms, 1796234297500LL);
	CHECK_INT_EQ(gw_import_parse_date("2026-12-02T19:58:17.2501+0200", &ms), 0);
	CHECK_INT_EQ(ms, 1796234297250LL);
	CHECK(gw_import_parse_date("2026-12-02T17:58:17+99:00", &ms) != 0);
	CHECK(gw_import_parse_date("2026-02-30 17:58:17", &ms) != 0);
	CHECK(gw_import_parse_date("2026-12-02 25:58:17", &ms) != 0);
	CHECK(gw_import_parse_date("Wed Dec 99 17:58:17 UTC 2026", &ms) != 0);
	CHECK(gw_import_parse_date("Wed Dec  2 17:99:17 UTC 2026", &ms) != 0);
	CHECK(gw_import_parse_date("1969-12-31T23:59:59Z", &ms) != 0);
	CHECK(gw_import_parse_date("2200-01-01T00:00:00Z", &ms) != 0);
	CHECK_INT_EQ(gw_import_parse_date("2199-12-31T23:59:59Z", &ms), 0);
	CHECK_INT_EQ(ms, 7258118399000LL);
}

int main(void)
{
	RUN(test_timestamped_csv);
	RUN(test_article_blocks);
	RUN(test_noheader_nounits);
	RUN(test_checkpoint);
	RUN(test_dates);
	RUN(test_bad_timestamps);
	RUN(test_gpu_index_bound);
	return harness_done();
}
