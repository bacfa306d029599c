/*
 * The history store as the PromQL engine and the HTTP API see it: query
 * results equal the in-memory store's on the same data, label names and
 * values, series listing, and queries running while a thread appends.
 */
#include "harness.h"
#include "store/memstore.h"
#include "store/tsdb.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static char dir[64];

static struct gw_tsdb *open_db(int64_t flush_ms, unsigned chunk)
{
	struct gw_tsdb_opts o = {.path = dir, .flush_interval_ms = flush_ms, .chunk_samples = chunk};
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(gw_tsdb_open(&db, &o, NULL), 0);
	return db;
}

static const char *const NAMES[] = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP"};
static const char *const GPUS[] = {"0", "1", "2", "3"};

/* The same 2 h of 10 s samples into both stores; the tsdb is flushed halfway. */
static void load(struct gw_tsdb *db, struct gw_memstore *ms)
{
	uint64_t ref[3][4];
	long id[3][4];
	for (int m = 0; m < 3; m++)
		for (int g = 0; g < 4; g++) {
			struct gw_lpair l[3] = {{"__name__", NAMES[m]}, {"gpu", GPUS[g]}, {"Hostname", "node1"}};
			CHECK_INT_EQ(gw_tsdb_series(db, l, 3, &ref[m][g]), 0);
			id[m][g] = gw_memstore_series(ms, l, 3);
		}
	for (int64_t t = 0; t <= 7200000; t += 10000) {
		for (int m = 0; m < 3; m++)
			for (int g = 0; g < 4; g++) {
				double v = m == 1 ? 300.0 + (double)((t / 10000 * 7 + g * 13) % 400) / 10
					      : (double)((t / 10000 + g * 5) % (m ? 90 : 101));
				CHECK_INT_EQ(gw_tsdb_append(db, ref[m][g], t, v), 0);
				CHECK_INT_EQ(gw_memstore_append(ms, id[m][g], t, v), 0);
			}
		if (t == 3600000)
			CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	}
}

static bool same_matrix(const struct gw_matrix *a, const struct gw_matrix *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		if (!gw_labels_equal(&a->s[i].labels, &b->s[i].labels) || a->s[i].n != b->s[i].n)
			return false;
		for (size_t j = 0; j < a->s[i].n; j++)
			if (a->s[i].t[j] != b->s[i].t[j] || fabs(a->s[i].v[j] - b->s[i].v[j]) > 1e-9)
				return false;
	}
	return true;
}

static void test_promql_matches_memstore(void)
{
	struct gw_tsdb *db = open_db(-1, 128);
	struct gw_memstore *ms = gw_memstore_new();
	load(db, ms);
	struct gw_querier qt = gw_tsdb_querier(db), qm = gw_memstore_querier(ms);
	static const char *const queries[] = {
		"DCGM_FI_DEV_GPU_UTIL",
		"avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)",
		"max_over_time(DCGM_FI_DEV_GPU_TEMP{gpu=~\"1|3\"}[5m])",
		"sum(DCGM_FI_DEV_POWER_USAGE) / count(DCGM_FI_DEV_POWER_USAGE)",
		"rate(DCGM_FI_DEV_GPU_TEMP[10m])",
		"quantile_over_time(0.9, DCGM_FI_DEV_POWER_USAGE{gpu!=\"0\"}[30m])",
	};
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		struct gw_pq_node *root = NULL;
		struct gw_err err = {0};
		CHECK_INT_EQ(gw_promql_parse(queries[i], &root, &err), 0);
		if (!root)
			continue;
		struct gw_arena a1, a2;
		gw_arena_init(&a1, 1 << 28);
		gw_arena_init(&a2, 1 << 28);
		struct gw_matrix r1 = {0}, r2 = {0};
		CHECK_INT_EQ(gw_promql_range(root, &qt, 0, 7200000, 60000, NULL, &a1, &r1, &err), 0);
		CHECK_INT_EQ(gw_promql_range(root, &qm, 0, 7200000, 60000, NULL, &a2, &r2, &err), 0);
		CHECK(r1.n > 0);
		bool same = same_matrix(&r1, &r2);
		if (!same)
			fprintf(stderr, "differs: %s\n", queries[i]);
		CHECK(same);
		struct gw_pq_result i1 = {0}, i2 = {0};
		CHECK_INT_EQ(gw_promql_instant(root, &qt, 3600000, NULL, &a1, &i1, &err), 0);
		CHECK_INT_EQ(gw_promql_instant(root, &qm, 3600000, NULL, &a2, &i2, &err), 0);
		CHECK_INT_EQ(i1.vector.n, i2.vector.n);
		for (size_t k = 0; k < i1.vector.n && k < i2.vector.n; k++)
			CHECK_DBL_NEAR(i1.vector.s[k].v, i2.vector.s[k].v, 1e-9);
		gw_arena_release(&a1);
		gw_arena_release(&a2);
		gw_promql_free(root);
	}
	gw_memstore_free(ms);
	gw_tsdb_close(db);
}

static void test_labels_and_series(void)
{
	struct gw_tsdb *db = open_db(-1, 128); /* the data of the test above, reopened */
	struct gw_arena a;
	gw_arena_init(&a, 1 << 24);
	const char **v = NULL;
	size_t n = 0;
	CHECK_INT_EQ(gw_tsdb_label_names(db, NULL, 0, 0, INT64_MAX, &a, &v, &n, NULL), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK_STR_EQ(v[0], "Hostname");
		CHECK_STR_EQ(v[1], "__name__");
		CHECK_STR_EQ(v[2], "gpu");
	}
	struct gw_matcher m;
	CHECK_INT_EQ(gw_matcher_init(&m, "gpu", "[12]", GW_PQ_RE, NULL), 0);
	CHECK_INT_EQ(gw_tsdb_label_values(db, "__name__", &m, 1, 0, INT64_MAX, &a, &v, &n, NULL), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3)
		CHECK_STR_EQ(v[0], "DCGM_FI_DEV_GPU_TEMP");
	CHECK_INT_EQ(gw_tsdb_label_values(db, "gpu", &m, 1, 0, INT64_MAX, &a, &v, &n, NULL), 0);
	CHECK_INT_EQ(n, 2);
	/* A series with no samples in the range is not listed. */
	struct gw_lpair l[2] = {{"__name__", "late"}, {"gpu", "9"}};
	uint64_t ref;
	CHECK_INT_EQ(gw_tsdb_series(db, l, 2, &ref), 0);
	CHECK_INT_EQ(gw_tsdb_append(db, ref, 9000000, 1), 0);
	CHECK_INT_EQ(gw_tsdb_label_values(db, "gpu", NULL, 0, 0, 7200000, &a, &v, &n, NULL), 0);
	CHECK_INT_EQ(n, 4);
	CHECK_INT_EQ(gw_tsdb_label_values(db, "gpu", NULL, 0, 0, INT64_MAX, &a, &v, &n, NULL), 0);
	CHECK_INT_EQ(n, 5);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_series_set set = {0};
	CHECK_INT_EQ(q.series(q.ctx, &m, 1, 7000000, 8000000, &a, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 6);
	CHECK_INT_EQ(q.series(q.ctx, &m, 1, 7300000, 8000000, &a, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 0);
	gw_matcher_release(&m);
	gw_arena_release(&a);
	gw_tsdb_close(db);
}

#define CN_SERIES 8
#define CN_SAMPLES 60000

struct conc {
	struct gw_tsdb *db;
	atomic_bool done;
	atomic_long bad, queries;
};

static void *appender(void *arg)
{
	struct conc *c = arg;
	uint64_t ref[CN_SERIES];
	for (int i = 0; i < CN_SERIES; i++) {
		char g[8];
		snprintf(g, sizeof(g), "%d", i);
		struct gw_lpair l[2] = {{"__name__", "conc"}, {"gpu", g}};
		gw_tsdb_series(c->db, l, 2, &ref[i]);
	}
	for (int64_t t = 1; t <= CN_SAMPLES; t++)
		for (int i = 0; i < CN_SERIES; i++)
			if (gw_tsdb_append(c->db, ref[i], t, (double)(t * 2)) != 0)
				atomic_fetch_add(&c->bad, 1);
	atomic_store(&c->done, true);
	return NULL;
}

/* Every answer must be a gap-free prefix 1..k of what was appended. */
static void *querier(void *arg)
{
	struct conc *c = arg;
	struct gw_matcher m;
	gw_matcher_init(&m, "__name__", "conc", GW_PQ_EQ, NULL);
	struct gw_querier q = gw_tsdb_querier(c->db);
	while (!atomic_load(&c->done)) {
		struct gw_arena a;
		gw_arena_init(&a, 1 << 28);
		struct gw_series_set set = {0};
		if (q.select(q.ctx, &m, 1, 0, INT64_MAX, &a, &set, NULL) != 0)
			atomic_fetch_add(&c->bad, 1);
		for (size_t i = 0; i < set.n; i++)
			for (size_t j = 0; j < set.s[i].n; j++)
				if (set.s[i].t[j] != (int64_t)j + 1 || set.s[i].v[j] != (double)(2 * (j + 1))) {
					atomic_fetch_add(&c->bad, 1);
					break;
				}
		gw_arena_release(&a);
		atomic_fetch_add(&c->queries, 1);
	}
	gw_matcher_release(&m);
	return NULL;
}

static void test_query_while_appending(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/*", dir);
	CHECK_INT_EQ(system(cmd), 0);
	struct conc c = {.db = open_db(5, 64)}; /* flush every 5 ms, small chunks: many cuts */
	pthread_t w, r[2];
	pthread_create(&w, NULL, appender, &c);
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, querier, &c);
	pthread_join(w, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	CHECK_INT_EQ(atomic_load(&c.bad), 0);
	CHECK(atomic_load(&c.queries) > 0);
	struct gw_tsdb_status st;
	gw_tsdb_status(c.db, &st);
	CHECK_INT_EQ(st.appended, CN_SERIES * CN_SAMPLES);
	CHECK(st.flushes > 0);
	gw_tsdb_close(c.db);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gw_tsdbq_XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN(test_promql_matches_memstore);
	RUN(test_labels_and_series);
	RUN(test_query_while_appending);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
	return harness_done();
}
