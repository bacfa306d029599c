/*
 * The history store as the PromQL engine and the HTTP API see it: query
 * results equal the in-memory store's on the same data, label names and
 * values, series listing, and queries running while a thread appends.
 */
#include "harness.h"
#include "promql/engine.h"
#include "store/memstore.h"
#include "store/tsdb.h"

#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
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

/* A querier that counts how often the tier was asked. */
struct counting {
	struct gw_querier inner;
	int tier_calls;
};

static int c_select(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
		    struct gw_arena *a, struct gw_series_set *out, struct gw_err *err)
{
	struct counting *c = ctx;
	return c->inner.select(c->inner.ctx, m, nm, mint, maxt, a, out, err);
}

static int c_tier(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt, int64_t res,
		  int agg, struct gw_arena *a, struct gw_series_set *out, struct gw_err *err)
{
	struct counting *c = ctx;
	c->tier_calls++;
	return c->inner.select_tier(c->inner.ctx, m, nm, mint, maxt, res, agg, a, out, err);
}

static bool near_matrix(const struct gw_matrix *a, const struct gw_matrix *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		if (!gw_labels_equal(&a->s[i].labels, &b->s[i].labels) || a->s[i].n != b->s[i].n)
			return false;
		for (size_t j = 0; j < a->s[i].n; j++) {
			double x = a->s[i].v[j], y = b->s[i].v[j];
			if (a->s[i].t[j] != b->s[i].t[j] || (isnan(x) != isnan(y)) ||
			    (!isnan(x) && fabs(x - y) > 1e-9 * fmax(1, fabs(y))))
				return false;
		}
	}
	return true;
}

/*
 * The downsampled tier stands in only where it gives the raw answer: 36 h of
 * 5 s samples with steps, gaps, NaN, staleness markers and off-schedule time
 * stamps, sealed chunks (some with their rollups deleted, as in a store
 * written before tiers), compressed head and raw tail; every query through
 * the tier equals the same query on raw samples.
 */
static void test_tiers_match_raw(void)
{
	char tdir[64];
	snprintf(tdir, sizeof(tdir), "/tmp/gw-tier-XXXXXX");
	CHECK(mkdtemp(tdir) != NULL);
	struct gw_tsdb_opts o = {.path = tdir, .flush_interval_ms = -1, .chunk_samples = 200};
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(gw_tsdb_open(&db, &o, NULL), 0);
	uint64_t ref[2][2];
	static const char *const names[] = {"gauge", "counter"};
	for (int m = 0; m < 2; m++)
		for (int g = 0; g < 2; g++) {
			struct gw_lpair l[2] = {{"__name__", names[m]}, {"gpu", GPUS[g]}};
			CHECK_INT_EQ(gw_tsdb_series(db, l, 2, &ref[m][g]), 0);
		}
	/* Two samples a minute: its chunks carry no buckets, so the tier
	 * answers from its samples directly. */
	uint64_t sparse;
	struct gw_lpair sl[2] = {{"__name__", "sparse"}, {"gpu", "0"}};
	CHECK_INT_EQ(gw_tsdb_series(db, sl, 2, &sparse), 0);
	/* Twelve samples a minute that sit still for hours: chunks too small to
	 * carry buckets, so the tier folds their samples into minutes itself. */
	uint64_t still;
	struct gw_lpair stl[2] = {{"__name__", "still"}, {"gpu", "0"}};
	CHECK_INT_EQ(gw_tsdb_series(db, stl, 2, &still), 0);
	unsigned int seed = 9;
	double level[2] = {40, 60}, ctr[2] = {0, 1e6};
	int64_t end = 36 * 3600000LL, n = 0;
	for (int64_t t = 0; t <= end; t += 5000) {
		for (int g = 0; g < 2; g++) {
			int64_t tt = t + (rand_r(&seed) % 50 == 0 ? 1 + rand_r(&seed) % 3000 : 0); /* off schedule */
			if (t > 20 * 3600000LL && t < 21 * 3600000LL + 7000 * g)
				continue; /* a gap */
			if (rand_r(&seed) % 40 == 0)
				level[g] = rand_r(&seed) % 100;
			double gv = rand_r(&seed) % 500 == 0 ? NAN : level[g];
			if (rand_r(&seed) % 700 == 0)
				gv = gw_stale_nan();
			ctr[g] += rand_r(&seed) % 1000;
			if (rand_r(&seed) % 5000 == 0)
				ctr[g] = 0; /* reset */
			CHECK_INT_EQ(gw_tsdb_append(db, ref[0][g], tt, gv), 0);
			CHECK_INT_EQ(gw_tsdb_append(db, ref[1][g], tt, ctr[g]), 0);
		}
		CHECK_INT_EQ(gw_tsdb_append(db, still, t, (double)(700 + 15 * (t / 7200000) % 4)), 0);
		if (t % 30000 == 0) {
			int k = rand_r(&seed) % 60;
			double sv = k == 0 ? gw_stale_nan() : k == 1 ? NAN : (double)(rand_r(&seed) % 200) - 50;
			CHECK_INT_EQ(gw_tsdb_append(db, sparse, t + (k == 2 ? 1234 : 0), sv), 0);
		}
		if (++n % 700 == 0 && t < end - 3600000)
			CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK(st.chunks_written > 100 && st.head_samples > 0 && st.unflushed > 0);
	/* Half the chunks lose their rollups: the tier falls back to their samples. */
	char path[128];
	snprintf(path, sizeof(path), "%s/gpuwatch.db", tdir);
	sqlite3 *c = NULL;
	CHECK_INT_EQ(sqlite3_open(path, &c), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(c, "DELETE FROM rollups WHERE chunk_id % 2 = 0", NULL, NULL, NULL), SQLITE_OK);
	CHECK(sqlite3_changes(c) > 50);
	sqlite3_close(c);

	struct counting cq = {gw_tsdb_querier(db), 0};
	struct gw_querier q = {&cq, c_select, NULL, c_tier, NULL};
	static const char *const queries[] = {
		"gauge",
		"counter",
		"max_over_time(gauge[5m])",
		"min_over_time(gauge[1h])",
		"sum_over_time(counter[10m])",
		"count_over_time(gauge[2m])",
		"sum by (gpu) (gauge) + max_over_time(counter[1h])",
		"timestamp(gauge)",
		"gauge offset 1h",
		"rate(counter[10m])",
		"sparse",
		"max_over_time(sparse[5m])",
		"min_over_time(sparse[1h])",
		"sum_over_time(sparse[10m])",
		"count_over_time(sparse[2m])",
		"count_over_time(sparse[1h])",
		"sparse offset 1h",
		"still",
		"max_over_time(still[5m])",
		"sum_over_time(still[10m])",
		"count_over_time(still[2m])",
		"still offset 1h",
	};
	struct {
		int64_t start, step;
		bool tiered;
	} runs[] = {{0, 60000, true}, {3600000, 3600000, true}, {0, 120000, true}, {30000, 60000, false}};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
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
			struct gw_pq_opts tiers = {.tier_min_span_ms = 1}, raw = {.no_tiers = true};
			cq.tier_calls = 0;
			CHECK_INT_EQ(gw_promql_range(root, &q, runs[r].start, end, runs[r].step, &tiers, &a1, &r1, &err), 0);
			int calls = cq.tier_calls;
			CHECK_INT_EQ(gw_promql_range(root, &q, runs[r].start, end, runs[r].step, &raw, &a2, &r2, &err), 0);
			CHECK_INT_EQ(cq.tier_calls, calls); /* raw run: no tier */
			/* rate() and sum_over_time() (whose compensated sum of the samples
			 * partial sums would round otherwise) never; at an hourly step
			 * only the ranges that are whole hours */
			bool rate = strncmp(queries[i], "rate", 4) == 0 || strncmp(queries[i], "sum_over_time", 13) == 0;
			bool short_range = runs[r].step == 3600000 && (strstr(queries[i], "m])") != NULL);
			CHECK(runs[r].tiered && !rate && !short_range ? calls > 0 : calls == 0);
			CHECK(r1.n > 0);
			bool same = near_matrix(&r1, &r2);
			if (!same)
				fprintf(stderr, "tier differs: %s (start %lld step %lld)\n", queries[i],
					(long long)runs[r].start, (long long)runs[r].step);
			CHECK(same);
			gw_arena_release(&a1);
			gw_arena_release(&a2);
			gw_promql_free(root);
		}
	gw_tsdb_close(db);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	CHECK_INT_EQ(system(cmd), 0);
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
	CHECK_INT_EQ(gw_matcher_init(&m, "gpu", "[12]", GW_MATCH_RE, NULL), 0);
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

	/* A selector naming the metric goes through the name index: series
	 * loaded at open, and one created since, in creation order, with the
	 * other matchers applied; an unknown name finds nothing. */
	struct gw_lpair l2[3] = {{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"gpu", "7"}, {"Hostname", "node2"}};
	CHECK_INT_EQ(gw_tsdb_series(db, l2, 3, &ref), 0);
	CHECK_INT_EQ(gw_tsdb_append(db, ref, 7000000, 2), 0);
	struct gw_matcher nm[2];
	CHECK_INT_EQ(gw_matcher_init(&nm[0], "__name__", "DCGM_FI_DEV_GPU_UTIL", GW_MATCH_EQ, NULL), 0);
	CHECK_INT_EQ(gw_matcher_init(&nm[1], "Hostname", "node1", GW_MATCH_NEQ, NULL), 0);
	CHECK_INT_EQ(q.series(q.ctx, nm, 1, 0, INT64_MAX, &a, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 5);
	CHECK_INT_EQ(q.series(q.ctx, nm, 2, 0, INT64_MAX, &a, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 1);
	if (set.n == 1)
		CHECK_STR_EQ(gw_labels_get(&set.s[0].labels, "gpu"), "7");
	gw_matcher_release(&nm[0]);
	CHECK_INT_EQ(gw_matcher_init(&nm[0], "__name__", "DCGM_FI_DEV_GPU_UTILX", GW_MATCH_EQ, NULL), 0);
	CHECK_INT_EQ(q.series(q.ctx, nm, 1, 0, INT64_MAX, &a, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 0);
	gw_matcher_release(&nm[0]);
	gw_matcher_release(&nm[1]);
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
	gw_matcher_init(&m, "__name__", "conc", GW_MATCH_EQ, NULL);
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

/* A sealed chunk that is a few runs (a still series) carries minute buckets
 * too, small ones (its columns repeat each other); a day's query would
 * otherwise fold all its samples. */
static void test_still_series_rollups(void)
{
	char tdir[64];
	snprintf(tdir, sizeof(tdir), "/tmp/gw-still-XXXXXX");
	CHECK(mkdtemp(tdir) != NULL);
	struct gw_tsdb_opts o = {.path = tdir, .flush_interval_ms = -1, .chunk_samples = 1024};
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(gw_tsdb_open(&db, &o, NULL), 0);
	uint64_t still, busy;
	struct gw_lpair l1[1] = {{"__name__", "still"}}, l2[1] = {{"__name__", "busy"}};
	CHECK_INT_EQ(gw_tsdb_series(db, l1, 1, &still), 0);
	CHECK_INT_EQ(gw_tsdb_series(db, l2, 1, &busy), 0);
	unsigned int seed = 3;
	for (int64_t i = 0; i < 3000; i++) {
		CHECK_INT_EQ(gw_tsdb_append(db, still, i * 1000, 700), 0);
		CHECK_INT_EQ(gw_tsdb_append(db, busy, i * 1000, 300 + rand_r(&seed) % 4000 / 8.0), 0);
	}
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_close(db);
	char path[128], q[256];
	snprintf(path, sizeof(path), "%s/gpuwatch.db", tdir);
	sqlite3 *c = NULL;
	CHECK_INT_EQ(sqlite3_open(path, &c), SQLITE_OK);
	const char *names[2] = {"still", "busy"};
	int want_min[2] = {2, 2}, want_max[2] = {2, 2};
	for (int k = 0; k < 2; k++) {
		snprintf(q, sizeof(q),
			 "SELECT count(*) FROM rollups r JOIN chunks c ON c.id = r.chunk_id JOIN series s ON s.id = c.series_id"
			 " WHERE s.labels LIKE '%%\"%s\"%%'",
			 names[k]);
		sqlite3_stmt *st = NULL;
		CHECK_INT_EQ(sqlite3_prepare_v2(c, q, -1, &st, NULL), SQLITE_OK);
		CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
		int n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		CHECK(n >= want_min[k] && n <= want_max[k]); /* two sealed chunks of 1,024 */
	}
	sqlite3_stmt *sz = NULL;
	CHECK_INT_EQ(sqlite3_prepare_v2(c,
					"SELECT max(length(r.data)) FROM rollups r JOIN chunks c ON c.id = r.chunk_id"
					" JOIN series s ON s.id = c.series_id WHERE s.labels LIKE '%\"still\"%'",
					-1, &sz, NULL),
		     SQLITE_OK);
	CHECK_INT_EQ(sqlite3_step(sz), SQLITE_ROW);
	CHECK(sqlite3_column_int(sz, 0) > 0 && sqlite3_column_int(sz, 0) < 80); /* 17 buckets of one value */
	sqlite3_finalize(sz);
	sqlite3_close(c);
	/* and both read back whole, through the tier too */
	CHECK_INT_EQ(gw_tsdb_open(&db, &o, NULL), 0);
	struct gw_querier qr = gw_tsdb_querier(db);
	for (int k = 0; k < 2; k++) {
		struct gw_matcher m;
		CHECK_INT_EQ(gw_matcher_init(&m, "__name__", names[k], GW_MATCH_EQ, NULL), 0);
		struct gw_arena a;
		gw_arena_init(&a, 1 << 24);
		struct gw_series_set set = {0};
		CHECK_INT_EQ(qr.select(qr.ctx, &m, 1, 0, INT64_MAX, &a, &set, NULL), 0);
		CHECK_INT_EQ(set.n, 1);
		if (set.n)
			CHECK_INT_EQ(set.s[0].n, 3000);
		gw_arena_release(&a);
		gw_matcher_release(&m);
	}
	gw_tsdb_close(db);
	snprintf(q, sizeof(q), "rm -rf %s", tdir);
	CHECK_INT_EQ(system(q), 0);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gw_tsdbq_XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN(test_promql_matches_memstore);
	RUN(test_tiers_match_raw);
	RUN(test_still_series_rollups);
	RUN(test_labels_and_series);
	RUN(test_query_while_appending);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
	return harness_done();
}
