/*
 * The history store: round trips through disk and head, order, merges,
 * reopen, retention, corrupt chunks, and failing disks (an unwritable
 * directory, a file size limit standing in for a full disk).
 */
#include "harness.h"
#include "store/codec.h"
#include "store/tsdb.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void fresh_dir(void)
{
	char cmd[256];
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", dir, dir);
		CHECK_INT_EQ(system(cmd), 0);
	}
	snprintf(dir, sizeof(dir), "/tmp/gw_tsdb_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
}

static struct gw_tsdb *open_db(const struct gw_tsdb_opts *base)
{
	struct gw_tsdb_opts o = {0};
	if (base)
		o = *base;
	o.path = dir;
	if (!o.flush_interval_ms)
		o.flush_interval_ms = -1; /* tests flush by hand */
	if (!o.chunk_samples)
		o.chunk_samples = 100;
	struct gw_tsdb *db = NULL;
	struct gw_err err = {0};
	int rc = gw_tsdb_open(&db, &o, &err);
	if (rc)
		fprintf(stderr, "open: %s\n", err.msg);
	CHECK_INT_EQ(rc, 0);
	return db;
}

static uint64_t series(struct gw_tsdb *db, const char *name, const char *gpu)
{
	struct gw_lpair l[2] = {{"gpu", gpu}, {"__name__", name}};
	uint64_t ref = 0;
	CHECK_INT_EQ(gw_tsdb_series(db, l, 2, &ref), 0);
	return ref;
}

static double val(int64_t t, int k)
{
	return (double)((t / 1000) % 97) + k * 0.5;
}

/* name{} over [mint, maxt], in arena a (released by the caller). */
static struct gw_series_set select_name(struct gw_tsdb *db, const char *name, int64_t mint, int64_t maxt,
					struct gw_arena *a)
{
	struct gw_matcher m;
	CHECK_INT_EQ(gw_matcher_init(&m, "__name__", name, GW_MATCH_EQ, NULL), 0);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_series_set set = {0};
	struct gw_err err = {0};
	CHECK_INT_EQ(q.select(q.ctx, &m, 1, mint, maxt, a, &set, &err), 0);
	gw_matcher_release(&m);
	return set;
}

/* Select name{} over [mint, maxt] and check it holds exactly t = from..to step 1 s with val(). */
static void expect_range(struct gw_tsdb *db, const char *name, int k, int64_t mint, int64_t maxt, int64_t from,
			 int64_t to)
{
	struct gw_arena a;
	gw_arena_init(&a, 1 << 28);
	struct gw_series_set set = select_name(db, name, mint, maxt, &a);
	size_t want = to >= from ? (size_t)((to - from) / 1000 + 1) : 0;
	CHECK_INT_EQ(set.n, want ? 1 : 0);
	if (set.n == 1) {
		const struct gw_series *s = &set.s[0];
		CHECK_INT_EQ(s->n, want);
		size_t bad = 0;
		for (size_t i = 0; i < s->n && i < want; i++) {
			int64_t t = from + (int64_t)i * 1000;
			bad += s->t[i] != t || s->v[i] != val(t, k);
		}
		CHECK_INT_EQ(bad, 0);
		CHECK_STR_EQ(gw_labels_get(&s->labels, "__name__"), name);
	}
	gw_arena_release(&a);
}

static void append_range(struct gw_tsdb *db, uint64_t ref, int k, int64_t from, int64_t to)
{
	int bad = 0;
	for (int64_t t = from; t <= to; t += 1000)
		bad += gw_tsdb_append(db, ref, t, val(t, k)) != 0;
	CHECK_INT_EQ(bad, 0);
}

static void test_roundtrip_reopen(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "temp", "0"), b = series(db, "power", "0");
	CHECK_INT_EQ(series(db, "temp", "0"), a); /* same labels, same series */
	CHECK(a != b);
	append_range(db, a, 0, 1000, 1050000); /* 1050 samples: 10 sealed chunks + 50 in the head */
	append_range(db, b, 1, 1000, 99000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.chunks_written, 10);
	CHECK_INT_EQ(st.unflushed, 0);
	CHECK_INT_EQ(st.head_samples, 50 + 99);
	expect_range(db, "temp", 0, 0, INT64_MAX, 1000, 1050000);
	expect_range(db, "temp", 0, 95500, 120000, 96000, 120000); /* across a chunk edge */
	gw_tsdb_close(db);

	db = open_db(NULL);
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.series, 2);
	CHECK_INT_EQ(st.head_samples, 50 + 99); /* partial rows came back as heads */
	expect_range(db, "temp", 0, 0, INT64_MAX, 1000, 1050000);
	expect_range(db, "power", 1, 0, INT64_MAX, 1000, 99000);
	/* Appends continue after reopen; older time stamps are refused. */
	uint64_t a2 = series(db, "temp", "0");
	CHECK_INT_EQ(gw_tsdb_append(db, a2, 1050000, 1.0), GW_EINVAL);
	append_range(db, a2, 0, 1051000, 1200000);
	gw_tsdb_close(db); /* close flushes */
	db = open_db(NULL);
	expect_range(db, "temp", 0, 0, INT64_MAX, 1000, 1200000);
	gw_tsdb_close(db);
}

/* What is durable: nothing before a flush, the newest flushed after one, the newest stored after reopen. */
static void test_durable_time(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "temp", "0");
	CHECK_INT_EQ(gw_tsdb_durable_t(db), INT64_MIN);
	append_range(db, a, 0, 1000, 5000);
	CHECK_INT_EQ(gw_tsdb_durable_t(db), INT64_MIN);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	CHECK_INT_EQ(gw_tsdb_durable_t(db), 5000);
	append_range(db, a, 0, 6000, 9000);
	CHECK_INT_EQ(gw_tsdb_durable_t(db), 5000); /* appended, not yet written */
	gw_tsdb_close(db);
	db = open_db(NULL);
	CHECK_INT_EQ(gw_tsdb_durable_t(db), 9000); /* close flushed */
	gw_tsdb_close(db);
}

/* Flushed samples of an open chunk stay in memory compressed, not 16 B each. */
static void test_head_memory_compressed(void)
{
	fresh_dir();
	struct gw_tsdb_opts o = {.chunk_samples = 1024};
	struct gw_tsdb *db = open_db(&o);
	char name[16];
	uint64_t refs[50];
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		refs[i] = series(db, name, "0");
	}
	/* 100 flushes of 10 samples each: 1000 samples a series, none sealed yet. */
	for (int64_t f = 0; f < 100; f++) {
		for (int i = 0; i < 50; i++)
			append_range(db, refs[i], i, 1000 + f * 10000, 10000 + f * 10000);
		CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.head_samples, 50 * 1000);
	CHECK_INT_EQ(st.unflushed, 0);
	CHECK_INT_EQ(st.chunks_written, 0);
	/* val() steps every sample: well under 2 bytes a sample, against 16 raw. */
	CHECK(st.head_bytes < 50 * 1000 * 2);
	expect_range(db, "m7", 7, 0, INT64_MAX, 1000, 1000000);
	expect_range(db, "m7", 7, 333000, 777000, 333000, 777000);
	/* From around a compacted piece's edge (128 samples a piece: the
	 * second starts at 129 s): earlier pieces are skipped, not the wanted. */
	for (int64_t from = 127000; from <= 131000; from += 1000)
		expect_range(db, "m7", 7, from, 300000, from, 300000);
	expect_range(db, "m7", 7, 999000, INT64_MAX, 999000, 1000000);
	/* Past 1024 samples the open chunk is cut: sealed rows, and the remainder stays compressed. */
	for (int i = 0; i < 50; i++)
		append_range(db, refs[i], i, 1001000, 1100000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.chunks_written, 50);
	CHECK_INT_EQ(st.head_samples, 50 * (1100 - 1024));
	/* The sealed chunk's room is given back (the remainder needs less than a
	 * buffer's smallest size, 256 B), and so is the 100-sample raw tail's. */
	CHECK(st.head_bytes <= 50 * 256);
	expect_range(db, "m7", 7, 0, INT64_MAX, 1000, 1100000);
	expect_range(db, "m7", 7, 1020000, 1030000, 1020000, 1030000); /* across the cut */
	gw_tsdb_close(db);
	db = open_db(&o);
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.head_samples, 50 * (1100 - 1024)); /* partial rows back as compressed heads */
	CHECK_INT_EQ(st.unflushed, 0);
	expect_range(db, "m49", 49, 0, INT64_MAX, 1000, 1100000);
	gw_tsdb_close(db);
}

/* Staggered: series started together seal their first chunks over several
 * flushes instead of all in one, and every sample is kept. */
static void test_stagger(void)
{
	for (int stagger = 0; stagger < 2; stagger++) {
		fresh_dir();
		struct gw_tsdb_opts o = {.chunk_samples = 100, .stagger = stagger};
		struct gw_tsdb *db = open_db(&o);
		char name[16];
		uint64_t refs[40];
		for (int i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "m%d", i);
			refs[i] = series(db, name, "0");
		}
		int sealing = 0; /* flushes that sealed a chunk */
		uint64_t sealed = 0, min_step = 40, max_step = 0;
		for (int64_t f = 0; f < 20; f++) {
			for (int i = 0; i < 40; i++)
				append_range(db, refs[i], i, 1000 + f * 10000, 10000 + f * 10000);
			CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
			struct gw_tsdb_status st;
			gw_tsdb_status(db, &st);
			uint64_t step = st.chunks_written - sealed;
			sealed = st.chunks_written;
			if (step) {
				sealing++;
				min_step = step < min_step ? step : min_step;
				max_step = step > max_step ? step : max_step;
			}
		}
		if (stagger) {
			CHECK(sealing >= 5); /* first cuts after 50..100 samples: flushes 5..10, then each 10 later */
			CHECK(max_step <= 20);
		} else {
			CHECK_INT_EQ(sealing, 2); /* all 40 at 100 samples, again at 200 */
			CHECK_INT_EQ(min_step, 40);
		}
		CHECK(sealed >= 40);
		for (int i = 0; i < 40; i += 13) {
			snprintf(name, sizeof(name), "m%d", i);
			expect_range(db, name, i, 0, INT64_MAX, 1000, 200000);
		}
		gw_tsdb_close(db);
		db = open_db(&o); /* partial rows and sealed chunks read back alike */
		expect_range(db, "m39", 39, 0, INT64_MAX, 1000, 200000);
		gw_tsdb_close(db);
	}
}

static void test_order(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "x", "0");
	CHECK_INT_EQ(gw_tsdb_append(db, a, 10, 1), 0);
	CHECK_INT_EQ(gw_tsdb_append(db, a, 5, 2), GW_EINVAL);
	CHECK_INT_EQ(gw_tsdb_append(db, a, 10, 3), GW_EINVAL); /* duplicate: first write wins */
	CHECK_INT_EQ(gw_tsdb_append(db, a + 7, 20, 3), GW_EINVAL);
	struct gw_lpair dup[2] = {{"a", "1"}, {"a", "2"}};
	uint64_t ref;
	CHECK_INT_EQ(gw_tsdb_series(db, dup, 2, &ref), GW_EINVAL);
	gw_tsdb_close(db);
}

/* Sealed chunks, partial rows and unflushed head samples in one answer. */
static void test_merge_head_and_disk(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "m", "0");
	append_range(db, a, 0, 1000, 250000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	append_range(db, a, 0, 251000, 280000); /* head only */
	expect_range(db, "m", 0, 50000, 270000, 50000, 270000);
	expect_range(db, "m", 0, 0, INT64_MAX, 1000, 280000);
	expect_range(db, "m", 0, 400000, 500000, 0, -1); /* nothing there: no series */
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	expect_range(db, "m", 0, 0, INT64_MAX, 1000, 280000);
	gw_tsdb_close(db);
}

/* A series that stops is sealed once it has been quiet for a chunk span. */
static void test_quiet_series_sealed(void)
{
	fresh_dir();
	struct gw_tsdb_opts o = {.chunk_span_ms = 60000};
	struct gw_tsdb *db = open_db(&o);
	uint64_t a = series(db, "quiet", "0"), b = series(db, "busy", "0");
	append_range(db, a, 0, 1000, 10000);
	append_range(db, b, 0, 1000, 200000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	/* busy: 200 samples cut every 60 s -> 3 sealed + head; quiet: sealed whole */
	CHECK_INT_EQ(st.chunks_written, 4);
	expect_range(db, "quiet", 0, 0, INT64_MAX, 1000, 10000);
	expect_range(db, "busy", 0, 0, INT64_MAX, 1000, 200000);
	gw_tsdb_close(db);
}

static void test_retention_time(void)
{
	fresh_dir();
	struct gw_tsdb_opts o = {.retention_ms = 300000};
	struct gw_tsdb *db = open_db(&o);
	uint64_t a = series(db, "r", "0");
	append_range(db, a, 0, 1000, 1000000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	/* Cutoff 700 s: chunks ending at 100..600 s go, the one ending at 700 s stays (maxt not < cutoff). */
	CHECK_INT_EQ(st.chunks_deleted, 6);
	expect_range(db, "r", 0, 0, INT64_MAX, 601000, 1000000);
	gw_tsdb_close(db);
}

static void test_retention_size(void)
{
	fresh_dir();
	struct gw_tsdb_opts o = {.retention_bytes = 256 * 1024};
	struct gw_tsdb *db = open_db(&o);
	uint64_t a = series(db, "noise", "0");
	uint64_t x = 88172645463325252ULL;
	for (int64_t t = 1; t <= 200000; t++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* incompressible values: ~8 B each */
		CHECK_INT_EQ(gw_tsdb_append(db, a, t * 1000, (double)x / 3.0), 0);
		if (t % 20000 == 0)
			CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK(st.db_bytes <= 256 * 1024);
	CHECK(st.db_bytes > 64 * 1024);
	CHECK(st.chunks_deleted > 0);
	struct stat sb;
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, GW_TSDB_FILE);
	CHECK_INT_EQ(stat(path, &sb), 0);
	CHECK(sb.st_size < 512 * 1024); /* incremental vacuum gives pages back */
	/* The newest data is all there, the oldest gone. */
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 28);
	struct gw_series_set set = select_name(db, "noise", 0, INT64_MAX, &ar);
	CHECK_INT_EQ(set.n, 1);
	if (set.n == 1) {
		CHECK(set.s[0].t[0] > 1000);
		CHECK_INT_EQ(set.s[0].t[set.s[0].n - 1], 200000 * 1000LL);
		CHECK_INT_EQ((set.s[0].t[set.s[0].n - 1] - set.s[0].t[0]) / 1000 + 1, (int64_t)set.s[0].n);
	}
	gw_arena_release(&ar);
	gw_tsdb_close(db);
}

static long sql_count(const char *sql)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, GW_TSDB_FILE);
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;
	CHECK_INT_EQ(sqlite3_open(path, &c), SQLITE_OK);
	if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(c);
	return n;
}

/* Run SQL on the store's file directly (as an older build or damage
 * would have left it); the count of rows the last statement changed. */
static int sql_exec(const char *sql)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, GW_TSDB_FILE);
	sqlite3 *c = NULL;
	CHECK_INT_EQ(sqlite3_open(path, &c), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
	int n = sqlite3_changes(c);
	sqlite3_close(c);
	return n;
}

static void test_corrupt_chunk_skipped(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "c", "0");
	append_range(db, a, 0, 1000, 300000);
	gw_tsdb_close(db);

	/* Flip one byte in the middle of the second sealed chunk (t = 101..200 s). */
	CHECK_INT_EQ(sql_exec("UPDATE chunks SET data = substr(data, 1, length(data) / 2) || "
			      "x'5a' || substr(data, length(data) / 2 + 2) WHERE kind = 1 AND mint = 101000"),
		     1);

	db = open_db(NULL);
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 28);
	struct gw_series_set set = select_name(db, "c", 0, INT64_MAX, &ar);
	CHECK_INT_EQ(set.n, 1);
	if (set.n == 1) {
		CHECK_INT_EQ(set.s[0].n, 200);
		CHECK_INT_EQ(set.s[0].t[99], 100000);
		CHECK_INT_EQ(set.s[0].t[100], 201000);
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.corrupt_chunks, 1);
	gw_arena_release(&ar);
	gw_tsdb_close(db);
}

/*
 * A format-1 store (labels UNIQUE, partial rows among the chunks as kind 0)
 * opens as format 2 with every sample, its heads back, and appends going on.
 * The format-1 layout is made from a format-2 store by the inverse steps.
 */
/* "noisy" holds nv[0..n) and "still" 42 at t = 1 s, 2 s, ... */
static void check_still_noisy(struct gw_tsdb *db, const double *nv, size_t n)
{
	for (int which = 0; which < 2; which++) {
		struct gw_arena a;
		gw_arena_init(&a, 1 << 26);
		struct gw_series_set set = select_name(db, which ? "still" : "noisy", 0, INT64_MAX, &a);
		CHECK_INT_EQ(set.n, 1);
		size_t wrong = set.n == 1 && set.s[0].n == n ? 0 : 1;
		for (size_t i = 0; !wrong && i < n; i++)
			wrong += set.s[0].t[i] != 1000 * (int64_t)(i + 1) || set.s[0].v[i] != (which ? 42.0 : nv[i]);
		CHECK_INT_EQ(wrong, 0);
		gw_arena_release(&a);
	}
}

/*
 * With the default chunk length a chunk holds about 2,600 bytes: a value
 * that sits still gets the codec's 4096 samples a chunk, a noisy one fewer
 * than 1024; both read back exactly, whether flushed every minute (the
 * agent) or all at once (sim record).
 */
static size_t tier_samples(struct gw_tsdb *db, const char *name, struct gw_arena *a);

/* A format-2 store (rollups repeating their chunk's series and times, an index by time alone) opens as format 3. */
static void test_migrates_format_2(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "power", "0");
	unsigned int seed = 3;
	static double pv[1000];
	int bad = 0;
	for (int i = 0; i < 1000; i++) { /* 10 sealed chunks of 100, each with its minute buckets */
		pv[i] = (double)(610000 + rand_r(&seed) % 80000) / 1000.0;
		bad += gw_tsdb_append(db, a, 1000 * (int64_t)(i + 1), pv[i]) != 0;
	}
	CHECK_INT_EQ(bad, 0);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 24);
	size_t tier = tier_samples(db, "power", &ar);
	CHECK(tier > 0 && tier < 1000); /* buckets, not samples */
	gw_tsdb_close(db);
	long rollups = sql_count("SELECT count(*) FROM rollups");
	CHECK(rollups >= 10);
	sql_exec("BEGIN;"
		 "DROP TRIGGER chunks_drop_rollup;"
		 "CREATE TABLE rollups_v2(chunk_id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL,"
		 " mint INTEGER NOT NULL, maxt INTEGER NOT NULL, data BLOB NOT NULL);"
		 "INSERT INTO rollups_v2 SELECT r.chunk_id, c.series_id, c.mint, c.maxt, r.data"
		 " FROM rollups r JOIN chunks c ON c.id = r.chunk_id;"
		 "DROP TABLE rollups; ALTER TABLE rollups_v2 RENAME TO rollups;"
		 "CREATE INDEX rollups_series_maxt ON rollups(series_id, maxt);"
		 "CREATE TRIGGER chunks_drop_rollup AFTER DELETE ON chunks"
		 " BEGIN DELETE FROM rollups WHERE chunk_id = old.id; END;"
		 "CREATE INDEX chunks_maxt ON chunks(maxt);"
		 "UPDATE meta SET value = '2' WHERE key = 'format'; COMMIT;");
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM pragma_table_info('rollups') WHERE name = 'series_id'"), 1);

	db = open_db(NULL);
	struct gw_series_set set = select_name(db, "power", 0, INT64_MAX, &ar);
	CHECK_INT_EQ(set.n, 1);
	for (size_t i = 0; set.n == 1 && i < 1000; i++)
		bad += set.s[0].n != 1000 || set.s[0].v[i] != pv[i];
	CHECK_INT_EQ(bad, 0);
	CHECK_INT_EQ(tier_samples(db, "power", &ar), tier);
	gw_arena_release(&ar);
	gw_tsdb_close(db);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM meta WHERE key = 'format' AND value = '3'"), 1);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM pragma_table_info('rollups') WHERE name = 'series_id'"), 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM rollups"), rollups);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM sqlite_schema WHERE name IN ('chunks_maxt', 'rollups_series_maxt')"),
		     0);
	/* Rollups still go with their chunks. */
	sql_exec("DELETE FROM chunks WHERE id IN (SELECT id FROM chunks ORDER BY id LIMIT 3)");
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM rollups"), rollups - 3);
}

static void test_chunk_length_follows_bytes(void)
{
	for (int big_flush = 0; big_flush < 2; big_flush++) {
		fresh_dir();
		struct gw_tsdb_opts o = {.path = dir, .flush_interval_ms = -1};
		struct gw_tsdb *db = NULL;
		CHECK_INT_EQ(gw_tsdb_open(&db, &o, NULL), 0);
		uint64_t still = series(db, "still", "0"), noisy = series(db, "noisy", "0");
		unsigned int seed = 5;
		enum { SAMPLES = 5 * 3600 };
		static double nv[SAMPLES];
		int bad = 0;
		for (int i = 0; i < SAMPLES; i++) {
			int64_t t = 1000 * (int64_t)(i + 1);
			nv[i] = (double)(610000 + rand_r(&seed) % 80000) / 1000.0; /* power, mW as W */
			bad += gw_tsdb_append(db, still, t, 42.0) != 0;
			bad += gw_tsdb_append(db, noisy, t, nv[i]) != 0;
			if (big_flush ? (i + 1) % 4096 == 0 : (i + 1) % 60 == 0)
				bad += gw_tsdb_flush(db, NULL) != 0;
		}
		CHECK_INT_EQ(bad, 0);
		check_still_noisy(db, nv, SAMPLES); /* heads in memory, compacted many times */
		gw_tsdb_close(db);
		CHECK_INT_EQ(sql_count("SELECT max(c.count) FROM chunks c JOIN series s ON s.id = c.series_id"
				       " WHERE s.labels LIKE '%still%'"),
			     GW_CHUNK_MAX_SAMPLES);
		/* 17 bits a sample: ~1200 samples, 2.2-3 KB a row */
		CHECK(sql_count("SELECT max(c.count) FROM chunks c JOIN series s ON s.id = c.series_id"
				" WHERE s.labels LIKE '%noisy%'") < 1400);
		CHECK(sql_count("SELECT count(*) FROM chunks c JOIN series s ON s.id = c.series_id"
				" WHERE s.labels LIKE '%noisy%'") >= 12);
		CHECK(sql_count("SELECT max(length(data)) FROM chunks c JOIN series s ON s.id = c.series_id"
				" WHERE s.labels LIKE '%noisy%'") < 3000);
		CHECK(sql_count("SELECT min(length(data)) FROM chunks c JOIN series s ON s.id = c.series_id"
				" WHERE s.labels LIKE '%noisy%'") > 2000);
		db = open_db(NULL);
		check_still_noisy(db, nv, SAMPLES);
		/* "still"'s 4096-sample chunks carry buckets too, a few dozen bytes each */
		CHECK(sql_count("SELECT count(*) FROM rollups r JOIN chunks c ON c.id = r.chunk_id"
				" JOIN series s ON s.id = c.series_id WHERE s.labels LIKE '%still%'") >= 4);
		CHECK(sql_count("SELECT max(length(r.data)) FROM rollups r JOIN chunks c ON c.id = r.chunk_id"
				" JOIN series s ON s.id = c.series_id WHERE s.labels LIKE '%still%'") < 100);
		struct gw_arena ar;
		gw_arena_init(&ar, 1 << 26);
		size_t stand_ins = tier_samples(db, "still", &ar);
		CHECK(stand_ins > 0 && stand_ins <= 2 * (SAMPLES / 60 + 2));
		gw_arena_release(&ar);
		gw_tsdb_close(db);
	}
}

static void test_migrates_format_1(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "temp", "0"), b = series(db, "power", "0");
	append_range(db, a, 0, 1000, 250000); /* 2 sealed chunks + 50 in partial rows */
	append_range(db, b, 1, 1000, 40000);
	gw_tsdb_close(db);
	long sealed = sql_count("SELECT count(*) FROM chunks"), partial = sql_count("SELECT count(*) FROM partials");
	CHECK_INT_EQ(sealed, 2);
	CHECK(partial >= 2);

	sql_exec("BEGIN;"
		 "CREATE TABLE series_v1(id INTEGER PRIMARY KEY, labels TEXT NOT NULL UNIQUE);"
		 "INSERT INTO series_v1 SELECT id, labels FROM series;"
		 "DROP TABLE series; ALTER TABLE series_v1 RENAME TO series;"
		 "INSERT INTO chunks(series_id, kind, mint, maxt, count, data)"
		 " SELECT p.series_id, 0, p.mint, p.maxt, p.count, coalesce(q.data, p.data)"
		 " FROM partials p LEFT JOIN partials q ON q.id = p.same;"
		 "DROP TABLE partials;"
		 "CREATE INDEX chunks_partial ON chunks(series_id, mint) WHERE kind = 0;"
		 "UPDATE chunks SET data = (SELECT d.data FROM chunks d WHERE d.id = chunks.same),"
		 " same = NULL WHERE same IS NOT NULL;"
		 "DROP TRIGGER chunks_hand_over; DROP INDEX chunks_same;"
		 "ALTER TABLE chunks DROP COLUMN same;"
		 "UPDATE meta SET value = '1' WHERE key = 'format'; COMMIT;");

	db = open_db(NULL);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.series, 2);
	CHECK_INT_EQ(st.head_samples, 50 + 40);
	expect_range(db, "temp", 0, 0, INT64_MAX, 1000, 250000);
	expect_range(db, "power", 1, 0, INT64_MAX, 1000, 40000);
	uint64_t a2 = series(db, "temp", "0");
	CHECK_INT_EQ(gw_tsdb_append(db, a2, 250000, 1.0), GW_EINVAL); /* last times known */
	append_range(db, a2, 0, 251000, 400000);
	uint64_t n = series(db, "new", "1");
	append_range(db, n, 2, 1000, 5000);
	gw_tsdb_close(db);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM meta WHERE key = 'format' AND value = '3'"), 1);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_autoindex_series_1'"), 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM chunks WHERE kind = 0"), 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM series"), 3);
	db = open_db(NULL);
	expect_range(db, "temp", 0, 0, INT64_MAX, 1000, 400000);
	expect_range(db, "new", 2, 0, INT64_MAX, 1000, 5000);
	gw_tsdb_close(db);
}

static size_t tier_samples(struct gw_tsdb *db, const char *name, struct gw_arena *a)
{
	struct gw_matcher m;
	CHECK_INT_EQ(gw_matcher_init(&m, "__name__", name, GW_MATCH_EQ, NULL), 0);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_series_set set = {0};
	CHECK_INT_EQ(q.select_tier(q.ctx, &m, 1, 0, INT64_MAX, 60000, GW_TIER_MAX, a, &set, NULL), 0);
	gw_matcher_release(&m);
	return set.n == 1 ? set.s[0].n : 0;
}

/*
 * The same samples under two names (a DCGM field and its native twin) are
 * cut into the same chunks (the stagger is keyed by the first samples) and
 * stored once; both read back whole, through the tier too, and when the
 * chunk holding the bytes is deleted the other keeps them.
 */
static void test_same_samples_stored_once(void)
{
	fresh_dir();
	struct gw_tsdb_opts o = {.chunk_samples = 100, .stagger = true};
	struct gw_tsdb *db = open_db(&o);
	uint64_t a = series(db, "twin_a", "0"), b = series(db, "twin_b", "0"), c = series(db, "other", "0");
	uint64_t na = series(db, "noisy_a", "0"), nb = series(db, "noisy_b", "0"); /* chunks with minute buckets */
	for (int64_t f = 0; f < 6; f++) {
		append_range(db, a, 0, 1000 + f * 50000, 50000 + f * 50000);
		append_range(db, b, 0, 1000 + f * 50000, 50000 + f * 50000);
		append_range(db, c, 1, 1000 + f * 50000, 50000 + f * 50000);
		for (int64_t t = 1000 + f * 50000; t <= 50000 + f * 50000; t += 1000) {
			uint64_t k = (uint64_t)t * 0x9e3779b97f4a7c15ULL;
			double v = (double)((k ^ (k >> 29)) % 1000) / 10;
			CHECK_INT_EQ(gw_tsdb_append(db, na, t, v), 0);
			CHECK_INT_EQ(gw_tsdb_append(db, nb, t, v), 0);
		}
		CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	}
	gw_tsdb_close(db);
	long chunks = sql_count("SELECT count(*) FROM chunks WHERE series_id = 2");
	CHECK(chunks >= 2);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM chunks WHERE same IS NOT NULL"),
		     chunks + sql_count("SELECT count(*) FROM chunks WHERE series_id = 5"));
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM chunks WHERE series_id = 2 AND length(data) = 0"), chunks);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM chunks WHERE series_id = 3 AND same IS NOT NULL"), 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM rollups r JOIN chunks c ON c.id = r.chunk_id WHERE c.series_id = 2"), 0);
	/* the open chunk's rows too */
	CHECK(sql_count("SELECT count(*) FROM partials WHERE series_id = 2") > 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM partials WHERE series_id = 2 AND same IS NULL"), 0);
	CHECK(sql_count("SELECT count(*) FROM rollups r JOIN chunks c ON c.id = r.chunk_id WHERE c.series_id = 4") > 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM rollups r JOIN chunks c ON c.id = r.chunk_id WHERE c.series_id = 5"), 0);

	db = open_db(&o);
	expect_range(db, "twin_a", 0, 0, INT64_MAX, 1000, 300000);
	expect_range(db, "twin_b", 0, 0, INT64_MAX, 1000, 300000);
	expect_range(db, "other", 1, 0, INT64_MAX, 1000, 300000);
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 26);
	size_t ta = tier_samples(db, "noisy_a", &ar), tb = tier_samples(db, "noisy_b", &ar);
	CHECK(ta > 0 && ta < 300); /* buckets, not samples */
	CHECK_INT_EQ(tb, ta);       /* the twin reads the holder's buckets */
	gw_tsdb_close(db);

	/* The holder's chunks go (as size retention would take them): the twin
	 * is handed the bytes first. */
	sql_exec("DELETE FROM chunks WHERE series_id IN (1, 4); DELETE FROM partials WHERE series_id = 1");
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM chunks WHERE same IS NOT NULL"), 0);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM partials WHERE series_id = 2 AND same IS NOT NULL"), 0);
	db = open_db(&o);
	expect_range(db, "twin_b", 0, 0, INT64_MAX, 1000, 300000);
	/* its own bytes now and no stored buckets: folded at read time into the same stand-ins */
	CHECK_INT_EQ(tier_samples(db, "noisy_b", &ar), ta);
	gw_tsdb_close(db);
	gw_arena_release(&ar);
}

/* Two writers on one store (an import beside the agent): a series the other
 * wrote first is found by its labels, not stored twice. (Its open chunk is
 * each writer's own: the first ends on a chunk edge here.) */
static void test_two_writers_share_series(void)
{
	fresh_dir();
	struct gw_tsdb *d1 = open_db(NULL), *d2 = open_db(NULL);
	uint64_t a = series(d1, "shared", "0"), b = series(d2, "shared", "0");
	append_range(d1, a, 0, 1000, 100000);
	CHECK_INT_EQ(gw_tsdb_flush(d1, NULL), 0);
	append_range(d2, b, 0, 101000, 300000);
	CHECK_INT_EQ(gw_tsdb_flush(d2, NULL), 0);
	gw_tsdb_close(d1);
	gw_tsdb_close(d2);
	CHECK_INT_EQ(sql_count("SELECT count(*) FROM series"), 1);
	struct gw_tsdb *db = open_db(NULL);
	expect_range(db, "shared", 0, 0, INT64_MAX, 1000, 300000);
	gw_tsdb_close(db);
}

/* The directory cannot be written at open: appends stay in memory until it can. */
static void test_unwritable_dir(void)
{
	fresh_dir();
	char sub[128], cmd[400];
	snprintf(sub, sizeof(sub), "%s/data", dir);
	bool root = geteuid() == 0;
	/* chmod does not stop root; a file where the directory should be does. */
	if (root)
		snprintf(cmd, sizeof(cmd), "touch %s", sub);
	else
		snprintf(cmd, sizeof(cmd), "chmod 0500 %s", dir);
	CHECK_INT_EQ(system(cmd), 0);
	struct gw_tsdb_opts o = {.path = sub, .flush_interval_ms = -1, .head_max_samples = 150};
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(gw_tsdb_open(&db, &o, NULL), 0);
	if (!db)
		return;
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK(st.last_error != 0);
	CHECK(st.last_error_msg[0] != '\0');
	uint64_t a = series(db, "u", "0");
	append_range(db, a, 0, 1000, 100000);
	CHECK(gw_tsdb_flush(db, NULL) != 0);
	CHECK_INT_EQ(gw_tsdb_append(db, a, 101000, 1), 0);
	append_range(db, a, 0, 102000, 150000);
	CHECK_INT_EQ(gw_tsdb_append(db, a, 151000, 1), GW_EOVERFLOW); /* bounded */
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.dropped, 1);
	CHECK_INT_EQ(st.unflushed, 150);
	CHECK(st.flush_errors >= 2);
	expect_range(db, "u", 0, 0, 100000, 1000, 100000); /* queries still answer from memory */

	snprintf(cmd, sizeof(cmd), root ? "rm %s" : "chmod 0700 %s", root ? sub : dir);
	CHECK_INT_EQ(system(cmd), 0);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.last_error, 0);
	CHECK_INT_EQ(st.unflushed, 0);
	gw_tsdb_close(db);
	struct gw_tsdb_opts o2 = {.path = sub, .flush_interval_ms = -1};
	CHECK_INT_EQ(gw_tsdb_open(&db, &o2, NULL), 0);
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 24);
	struct gw_series_set set = select_name(db, "u", 0, INT64_MAX, &ar);
	CHECK_INT_EQ(set.n, 1);
	if (set.n)
		CHECK_INT_EQ(set.s[0].n, 150);
	gw_arena_release(&ar);
	gw_tsdb_close(db);
}

/* A file size limit makes SQLite's writes fail mid-run, as a full disk does. */
static void test_disk_full_resumes(void)
{
	fresh_dir();
	struct gw_tsdb *db = open_db(NULL);
	uint64_t a = series(db, "f", "0");
	append_range(db, a, 0, 1000, 50000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	CHECK_INT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	append_range(db, a, 0, 51000, 400000);
	struct gw_err err = {0};
	CHECK(gw_tsdb_flush(db, &err) != 0);
	CHECK(err.msg[0] != '\0');
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK(st.last_error != 0);
	CHECK_INT_EQ(st.unflushed, 400 - 50);
	CHECK_INT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.last_error, 0);
	gw_tsdb_close(db);
	db = open_db(NULL);
	expect_range(db, "f", 0, 0, INT64_MAX, 1000, 400000);
	gw_tsdb_close(db);
}

int main(void)
{
	RUN(test_roundtrip_reopen);
	RUN(test_head_memory_compressed);
	RUN(test_order);
	RUN(test_merge_head_and_disk);
	RUN(test_quiet_series_sealed);
	RUN(test_retention_time);
	RUN(test_retention_size);
	RUN(test_stagger);
	RUN(test_corrupt_chunk_skipped);
	RUN(test_migrates_format_1);
	RUN(test_chunk_length_follows_bytes);
	RUN(test_migrates_format_2);
	RUN(test_two_writers_share_series);
	RUN(test_same_samples_stored_once);
	RUN(test_unwritable_dir);
	RUN(test_disk_full_resumes);
	RUN(test_durable_time);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", dir, dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
	return harness_done();
}
