/*
 * Importing the other things nvidia-smi logs: the default table, -q
 * reports, dmon and pmon; telling every format apart by its first lines.
 * Fixtures in tests/data/import/; the captures in
 * $GW_SHARED_DIR/reference/nvidia-smi-captures are compared when present.
 */
#include "harness.h"
#include "ingest/import_text.h"
#include "promql/engine.h"
#include "store/memstore.h"

#include <dirent.h>
#include <stdlib.h>

struct sink {
	struct gw_memstore *m;
	size_t bad;
	size_t bad_lines[16];
	char why[16][256];
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

typedef int (*import_fn)(FILE *, const struct gw_import_opts *, struct gw_import_stats *, struct gw_err *);

static int run_text(import_fn fn, const char *text, size_t len, struct gw_import_opts *o, struct sink *s,
		    struct gw_import_stats *st, struct gw_err *err)
{
	FILE *f = fmemopen((void *)text, len, "r");
	o->instance = "node1";
	o->job = "import";
	o->emit = to_mem;
	o->ctx = s;
	o->on_bad_line = on_bad;
	gw_err_clear(err);
	int rc = fn(f, o, st, err);
	fclose(f);
	return rc;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *fixture(const char *name, size_t *len)
{
	const char *dir = getenv("GW_TEST_DATA");
	char path[1024];
	snprintf(path, sizeof(path), "%s/data/import/%s", dir ? dir : "tests", name);
	char *t = slurp(path, len);
	if (!t)
		fprintf(stderr, "missing fixture %s\n", path);
	return t;
}

static int run_fixture(import_fn fn, const char *name, struct gw_import_opts *o, struct sink *s,
		       struct gw_import_stats *st, struct gw_err *err)
{
	size_t len = 0;
	char *t = fixture(name, &len);
	if (!t)
		return -999;
	int rc = run_text(fn, t, len, o, s, st, err);
	free(t);
	return rc;
}

/* Value of one series at time t (ms), via PromQL; -1 when the answer is not one series. */
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

#define T0 1796205600000LL /* 2026-12-02 10:00:00 UTC */

static void utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_table_loop(void)
{
	utc();
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	struct gw_err err;
	struct gw_import_opts o = {0};
	CHECK_INT_EQ(run_fixture(gw_import_table, "table_loop.txt", &o, &s, &st, &err), 0);
	CHECK_INT_EQ(st.rows, 3); /* two GPUs, then GPU 0 again; GPU 1's "hot" is reported */
	CHECK_INT_EQ(st.bad_lines, 1);
	CHECK_INT_EQ(s.bad_lines[0], 38);
	CHECK(strstr(s.why[0], "temperature.gpu") != NULL);
	CHECK(st.skipped_lines >= 4); /* the processes tables' headers, "No running processes found" */
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_process_memory_used_bytes{gpu=\"0\",pid=\"4242\",process=\"python3\",type=\"C\"}",
			     T0), 40100.0 * 1048576, 0);
	CHECK_DBL_NEAR(query(s.m, "count_over_time(gpuwatch_process_memory_used_bytes[5m])", T0 + 60000), 1, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",instance=\"node1\",job=\"import\"}", T0), 52, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", T0 + 60000), 54, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", T0), 288, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT{gpu=\"1\"}", T0), 350, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"0\",modelName=\"NVIDIA L40S\"}", T0), 40112, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_TOTAL{gpu=\"1\",pci_bus_id=\"00000000:31:00.0\"}", T0), 46068, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}", T0 + 60000), 97, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FAN_SPEED{gpu=\"0\"}", T0), 30, 0);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_pstate{gpu=\"1\"}", T0), 8, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"1\"}", T0), 2, 0);
	/* N/A is absent, not 0 */
	CHECK_DBL_NEAR(query(s.m, "count(DCGM_FI_DEV_FAN_SPEED{gpu=\"1\"})", T0), -1, 0);
	/* the bad line loses GPU 1's second table, not its first */
	CHECK_DBL_NEAR(query(s.m, "count_over_time(DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}[5m])", T0 + 60000), 1, 0);
	gw_memstore_free(s.m);
}

static void test_query_loop(void)
{
	utc();
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	struct gw_err err;
	struct gw_import_opts o = {0};
	CHECK_INT_EQ(run_fixture(gw_import_query, "query_loop.txt", &o, &s, &st, &err), 0);
	CHECK_INT_EQ(st.rows, 3); /* GPU reports */
	CHECK_INT_EQ(st.bad_lines, 1);
	CHECK_INT_EQ(s.bad_lines[0], 63);
	CHECK(strstr(s.why[0], "fifty C") != NULL);
	const char *g0 = "{gpu=\"0\",UUID=\"GPU-11111111-2222-3333-4444-555555555555\",modelName=\"NVIDIA L40S\","
			 "pci_bus_id=\"00000000:17:00.0\"}";
	char q[512];
	snprintf(q, sizeof(q), "DCGM_FI_DEV_GPU_TEMP%s", g0);
	CHECK_DBL_NEAR(query(s.m, q, T0), 52, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"0\"}", T0), 40112, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_RESERVED{gpu=\"0\"}", T0), 512, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_FREE{gpu=\"0\"}", T0), 5444, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_MEM_COPY_UTIL{gpu=\"0\"}", T0), 40, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"}", T0), 2475, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_MEM_CLOCK{gpu=\"0\"}", T0), 9001, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT{gpu=\"0\"}", T0), 350, 0);
	/* power.draw: the average where there is one, else the instantaneous draw, else "Power Draw" */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", T0), 287.5, 1e-9);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE_INSTANT{gpu=\"0\"}", T0), 290.12, 1e-9);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"}", T0), 31.02, 1e-9);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", T0 + 60000), 301.25, 1e-9);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_pstate{gpu=\"1\",uuid=\"GPU-66666666-7777-8888-9999-000000000000\"}", T0), 8, 0);
	/* N/A and deprecated texts are absent; the second report's GPU is GPU 0 again */
	CHECK_DBL_NEAR(query(s.m, "count(DCGM_FI_DEV_MEMORY_TEMP)", T0), -1, 0);
	CHECK_DBL_NEAR(query(s.m, "count(DCGM_FI_DEV_FAN_SPEED{gpu=\"1\"})", T0), -1, 0);
	CHECK_DBL_NEAR(query(s.m, "count(count by (gpu) (DCGM_FI_DEV_POWER_USAGE))", T0 + 60000), 2, 0);
	gw_memstore_free(s.m);
}

static void test_dmon(void)
{
	utc();
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	struct gw_err err;
	struct gw_import_opts o = {0};
	CHECK_INT_EQ(run_fixture(gw_import_dmon, "dmon_dt.txt", &o, &s, &st, &err), 0);
	CHECK_INT_EQ(st.rows, 4);
	CHECK_INT_EQ(st.bad_lines, 1);
	CHECK_INT_EQ(s.bad_lines[0], 7);
	CHECK(strstr(s.why[0], "3O1") != NULL);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",job=\"import\"}", T0), 288, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", T0 + 1000), 54, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}", T0 + 1000), 97, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_MEM_COPY_UTIL{gpu=\"0\"}", T0), 40, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_MEM_CLOCK{gpu=\"1\"}", T0), 405, 0);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_clock_graphics_hertz{gpu=\"0\"}", T0 + 1000), 2490e6, 0);
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"0\"}", T0), 40112, 0);
	/* dmon's MB/s are the field's KB/s times 1000 */
	CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_PCIE_RX_THROUGHPUT{gpu=\"0\"}", T0 + 1000), 14000, 0);
	CHECK_DBL_NEAR(query(s.m, "count(DCGM_FI_DEV_MEMORY_TEMP)", T0), -1, 0); /* "-" */
	gw_memstore_free(s.m);

	/* No time columns: refused at the first row with what to do, unless --start */
	struct sink s2 = {.m = gw_memstore_new()};
	struct gw_import_opts o2 = {0};
	CHECK_INT_EQ(run_fixture(gw_import_dmon, "dmon_plain.txt", &o2, &s2, &st, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "-o DT") != NULL && strstr(err.msg, "--start") != NULL);
	CHECK_INT_EQ(s2.bad, 0);
	CHECK_INT_EQ(gw_memstore_nseries(s2.m), 0);
	struct gw_import_opts o3 = {.has_start = true, .start_ms = T0, .interval_ms = 5000};
	CHECK_INT_EQ(run_fixture(gw_import_dmon, "dmon_plain.txt", &o3, &s2, &st, &err), 0);
	CHECK_INT_EQ(st.rows, 6);
	CHECK_DBL_NEAR(query(s2.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"}", T0 + 5000), 32, 0);
	CHECK_DBL_NEAR(query(s2.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", T0 + 10000), 299, 0);
	CHECK_DBL_NEAR(query(s2.m, "count_over_time(DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}[1m])", T0 + 10000), 3, 0);
	gw_memstore_free(s2.m);

	/* dmon --format csv -o DT */
	const char *csv = "#Date, Time, gpu, pwr, gtemp\n#YYYYMMDD, HH:MM:SS, Idx, W, C\n"
			  "20261202, 10:00:00, 0, 288, 52\n20261202, 10:00:00, 1, 31, 38\n";
	struct sink s3 = {.m = gw_memstore_new()};
	struct gw_import_opts o4 = {0};
	CHECK_INT_EQ(run_text(gw_import_dmon, csv, strlen(csv), &o4, &s3, &st, &err), 0);
	CHECK_INT_EQ(st.rows, 2);
	CHECK_DBL_NEAR(query(s3.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}", T0), 38, 0);
	gw_memstore_free(s3.m);
}

static void test_pmon(void)
{
	utc();
	struct sink s = {.m = gw_memstore_new()};
	struct gw_import_stats st;
	struct gw_err err;
	struct gw_import_opts o = {0};
	/* -o T alone: the day comes from --start */
	CHECK_INT_EQ(run_fixture(gw_import_pmon, "pmon_t.txt", &o, &s, &st, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "--start") != NULL);
	struct gw_import_opts o2 = {.has_start = true, .start_ms = T0 - 3600 * 1000}; /* 2026-12-02 09:00 */
	o2.start_ms -= 10 * 3600 * 1000LL; /* 2026-12-01 23:00 */
	CHECK_INT_EQ(run_fixture(gw_import_pmon, "pmon_t.txt", &o2, &s, &st, &err), 0);
	CHECK_INT_EQ(st.rows, 4); /* the idle GPU's row is no process */
	CHECK_INT_EQ(st.bad_lines, 0);
	int64_t before = T0 - 10 * 3600 * 1000LL - 1000; /* 2026-12-01 23:59:59 */
	int64_t after = T0 - 10 * 3600 * 1000LL;         /* 2026-12-02 00:00:00: the day moved on */
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_process_sm_utilization_ratio{pid=\"4242\",process=\"python3\",type=\"C\",gpu=\"0\"}",
			     before), 0.91, 0);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_process_sm_utilization_ratio{pid=\"4242\"}", after), 0.95, 0);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_process_memory_used_bytes{pid=\"4243\"}", before), 512.0 * 1048576, 0);
	CHECK_DBL_NEAR(query(s.m, "gpuwatch_process_memory_used_bytes{pid=\"5151\",type=\"G\",gpu=\"1\"}", after),
		       64.0 * 1048576, 0);
	CHECK_DBL_NEAR(query(s.m, "count(gpuwatch_process_sm_utilization_ratio{pid=\"5151\"})", after), -1, 0);
	CHECK_DBL_NEAR(query(s.m, "count(gpuwatch_process_memory_used_bytes{pid=\"\"})", after), -1, 0);
	gw_memstore_free(s.m);
}

static enum gw_import_format sniff(const char *text, const char **seen)
{
	return gw_import_sniff(text, strlen(text), seen);
}

static void test_sniff(void)
{
	const char *seen = NULL;
	const char *names[] = {"table_loop.txt", "query_loop.txt", "dmon_dt.txt", "dmon_plain.txt", "pmon_t.txt"};
	enum gw_import_format want[] = {GW_IMPORT_TABLE, GW_IMPORT_QUERY, GW_IMPORT_DMON, GW_IMPORT_DMON,
					GW_IMPORT_PMON};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len;
		char *t = fixture(names[i], &len);
		CHECK(t != NULL);
		if (t)
			CHECK_STR_EQ(gw_import_format_name(gw_import_sniff(t, len, &seen)), gw_import_format_name(want[i]));
		free(t);
	}
	CHECK_INT_EQ(sniff("======= Wed Dec  2 10:00:00 UTC 2026 =======\nindex, temperature.gpu\n0, 40\n", &seen),
		     GW_IMPORT_CSV);
	CHECK_INT_EQ(sniff("timestamp, index\n", &seen), GW_IMPORT_CSV);
	CHECK_INT_EQ(sniff("pid, process_name, used_gpu_memory [MiB]\n", &seen), GW_IMPORT_CSV);
	CHECK_INT_EQ(sniff("# HELP x y\n# TYPE x gauge\nx 1 1000\n", &seen), GW_IMPORT_OPENMETRICS);
	CHECK_INT_EQ(sniff("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 41 1796205600\n", &seen), GW_IMPORT_OPENMETRICS);
	/* what `gpuwatch export` writes: labels with commas */
	CHECK_INT_EQ(sniff("DCGM_FI_DEV_GPU_TEMP{Hostname=\"a\",gpu=\"0\"} 41 1796205600.000\n", &seen),
		     GW_IMPORT_OPENMETRICS);
	CHECK_INT_EQ(sniff("Wed Dec  2 10:00:00 2026\n+------+\n", &seen), GW_IMPORT_TABLE);
	CHECK_INT_EQ(sniff("\n\n==============NVSMI LOG==============\n", &seen), GW_IMPORT_QUERY);
	/* only a loop's date lines so far: read on */
	CHECK_INT_EQ(sniff("\n======= Wed Dec  2 10:00:00 UTC 2026 =======\n", &seen), GW_IMPORT_MORE);
	CHECK_INT_EQ(sniff("GPU 0: NVIDIA L40S (UUID: GPU-11111111-2222-3333-4444-555555555555)\n", &seen),
		     GW_IMPORT_UNKNOWN);
	CHECK_STR_EQ(seen, "nvidia-smi -L output");
	CHECK_INT_EQ(sniff("<?xml version=\"1.0\" ?>\n", &seen), GW_IMPORT_UNKNOWN);
	CHECK(strstr(seen, "XML") != NULL);
	CHECK_INT_EQ(sniff("{\"gpus\": []}\n", &seen), GW_IMPORT_UNKNOWN);
	CHECK_STR_EQ(seen, "JSON");
	CHECK_INT_EQ(sniff("0, 55, 300.5\n", &seen), GW_IMPORT_UNKNOWN);
	CHECK(strstr(seen, "--fields") != NULL);
	CHECK_INT_EQ(sniff("hello world\n", &seen), GW_IMPORT_UNKNOWN);
	CHECK_INT_EQ(sniff("", &seen), GW_IMPORT_UNKNOWN);
	CHECK_STR_EQ(seen, "an empty file");
	CHECK_INT_EQ(gw_import_format_parse("smi"), GW_IMPORT_CSV);
	CHECK_INT_EQ(gw_import_format_parse("query"), GW_IMPORT_QUERY);
	CHECK_INT_EQ(gw_import_format_parse("xml"), GW_IMPORT_UNKNOWN);
}

/* The text of one "# load :: NAME" section of a capture (malloc'd), or NULL. */
static char *section(const char *cap, const char *name)
{
	char marker[128];
	snprintf(marker, sizeof(marker), "# load :: %s\n", name);
	const char *p = strstr(cap, marker);
	if (!p)
		return NULL;
	p = strstr(p, "\n####");
	if (!p || !(p = strchr(p + 1, '\n')))
		return NULL;
	p++;
	const char *e = strstr(p, "\n####");
	size_t n = e ? (size_t)(e - p + 1) : strlen(p);
	char *out = malloc(n + 1);
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* The number after the first "key ... : " at or after from (a -q report), or -1. */
static double q_number(const char *text, const char *from, const char *key)
{
	const char *p = from ? strstr(text, from) : text;
	if (!p || !(p = strstr(p, key)) || !(p = strstr(p, " : ")))
		return -1;
	char *end;
	double v = strtod(p + 3, &end);
	return end == p + 3 ? -1 : v;
}

/* Compare what the importers read from each capture's -q, table and dmon sections with the text itself. */
static void test_captures(void)
{
	const char *shared = getenv("GW_SHARED_DIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/reference/nvidia-smi-captures", shared ? shared : "/nonexistent");
	DIR *d = opendir(dir);
	if (!d) {
		printf("  captures not found in %s: comparison skipped\n", dir);
		return;
	}
	utc();
	int compared = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strstr(de->d_name, ".txt"))
			continue;
		char path[2048];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		size_t len;
		char *cap = slurp(path, &len);
		if (!cap)
			continue;
		char *q = section(cap, "query (-q)"), *tab = section(cap, "nvidia-smi (default table)"),
		     *dm = section(cap, "dmon (per-device monitor, incl. PCIe rx/tx)");
		struct gw_import_stats st;
		struct gw_err err;
		if (q) {
			struct sink s = {.m = gw_memstore_new()};
			struct gw_import_opts o = {0};
			CHECK_INT_EQ(run_text(gw_import_query, q, strlen(q), &o, &s, &st, &err), 0);
			CHECK_INT_EQ(st.bad_lines, 0);
			const char *ts = strstr(q, "Timestamp");
			char tbuf[64] = "";
			int64_t t = 0;
			if (ts && (ts = strstr(ts, ": ")))
				snprintf(tbuf, sizeof(tbuf), "%.*s", (int)strcspn(ts + 2, "\n"), ts + 2);
			CHECK_INT_EQ(gw_import_parse_date(tbuf, &t), 0);
			double temp = q_number(q, "Temperature", "GPU Current Temp");
			double used = q_number(q, "\n    FB Memory Usage\n", "Used"); /* the GPU's, not a MIG device's */
			double util = q_number(q, "\n    Utilization", "GPU");
			double sm = q_number(q, "\n    Clocks\n", "SM");
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", t), temp, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"0\"}", t), used, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"}", t), sm, 0);
			if (util >= 0) /* MIG GPUs say N/A */
				CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}", t), util, 0);
			gw_memstore_free(s.m);
			compared++;
		}
		if (tab) {
			struct sink s = {.m = gw_memstore_new()};
			struct gw_import_opts o = {0};
			CHECK_INT_EQ(run_text(gw_import_table, tab, strlen(tab), &o, &s, &st, &err), 0);
			CHECK_INT_EQ(st.bad_lines, 0);
			CHECK(st.rows >= 1);
			char date[64];
			snprintf(date, sizeof(date), "%.*s", (int)strcspn(tab, "\n"), tab);
			int64_t t = 0;
			CHECK_INT_EQ(gw_import_parse_date(date, &t), 0);
			/* "| N/A   59C    P0            629W /  700W |   19818MiB /  81559MiB |" */
			const char *l2 = strstr(tab, "|======");
			l2 = l2 ? strchr(l2, '\n') : NULL;
			l2 = l2 ? strchr(l2 + 1, '\n') : NULL;
			char fan[16], perf[8];
			int temp = -1, pw = -1, cap_w = -1, used = -1, total = -1;
			if (l2)
				sscanf(l2 + 1, "| %15s %dC %7s %dW / %dW | %dMiB / %dMiB", fan, &temp, perf, &pw, &cap_w,
				       &used, &total);
			CHECK(temp >= 0 && total > 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", t), temp, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", t), pw, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_USED{gpu=\"0\"}", t), used, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_FB_TOTAL{gpu=\"0\"}", t), total, 0);
			gw_memstore_free(s.m);
			compared++;
		}
		if (dm) {
			struct sink s = {.m = gw_memstore_new()};
			struct gw_import_opts o = {.has_start = true, .start_ms = T0};
			CHECK_INT_EQ(run_text(gw_import_dmon, dm, strlen(dm), &o, &s, &st, &err), 0);
			CHECK_INT_EQ(st.bad_lines, 0);
			CHECK_INT_EQ(st.rows, 5);
			/* the first row: "    0     69     41     47      0 ..." (gpu pwr gtemp ...) */
			const char *r = strstr(dm, "\n ");
			int gpu = -1, pwr = -1, gtemp = -1;
			if (r)
				sscanf(r + 1, "%d %d %d", &gpu, &pwr, &gtemp);
			CHECK_INT_EQ(gpu, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", T0), pwr, 0);
			CHECK_DBL_NEAR(query(s.m, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}", T0), gtemp, 0);
			gw_memstore_free(s.m);
			compared++;
		}
		free(q);
		free(tab);
		free(dm);
		free(cap);
	}
	closedir(d);
	printf("  %d capture sections compared\n", compared);
	CHECK(compared > 0);
}

int main(void)
{
	RUN(test_sniff);
	RUN(test_table_loop);
	RUN(test_query_loop);
	RUN(test_dmon);
	RUN(test_pmon);
	RUN(test_captures);
	return harness_done();
}
