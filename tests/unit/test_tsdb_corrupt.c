/*
 * The history store on damaged files: a database SQLite cannot use is
 * moved aside at open (opts.recover) and a fresh one started; damage
 * inside chunks keeps the store, and queries skip what they cannot read
 * and say so in their warnings; a damaged count column costs nothing.
 */
#include "harness.h"
#include "store/tsdb.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char file[128];

static void fresh_dir(void)
{
	char cmd[256];
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CHECK_INT_EQ(system(cmd), 0);
	}
	snprintf(dir, sizeof(dir), "/tmp/gw_tsdbc_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/" GW_TSDB_FILE, dir);
}

static int open_db(bool recover, struct gw_tsdb **db)
{
	struct gw_tsdb_opts o = {.path = dir, .flush_interval_ms = -1, .chunk_samples = 100, .recover = recover};
	struct gw_err err = {0};
	return gw_tsdb_open(db, &o, &err);
}

/* Series "c" with 1000 samples at 1 s (t = 1..1000 s, value t), in chunks of 100, on disk. */
static void write_store(void)
{
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(open_db(false, &db), 0);
	struct gw_lpair l[] = {{"__name__", "c"}, {"gpu", "0"}};
	uint64_t ref = 0;
	CHECK_INT_EQ(gw_tsdb_series(db, l, 2, &ref), 0);
	int bad = 0;
	for (int64_t t = 1000; t <= 1000000; t += 1000)
		bad += gw_tsdb_append(db, ref, t, (double)t) != 0;
	CHECK_INT_EQ(bad, 0);
	gw_tsdb_close(db);
}

static int sql_exec(const char *sql)
{
	sqlite3 *c = NULL;
	CHECK_INT_EQ(sqlite3_open(file, &c), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(c, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fprintf(stderr, "%s: %s\n", sql, msg ? msg : "?");
	sqlite3_free(msg);
	int n = rc == SQLITE_OK ? sqlite3_changes(c) : -1;
	sqlite3_close(c);
	return n;
}

/* Samples of "c" over everything, with the query's warnings in *w. */
static size_t count_c(struct gw_tsdb *db, struct gw_warnings *w)
{
	struct gw_arena a;
	gw_arena_init(&a, 1 << 28);
	struct gw_matcher m;
	CHECK_INT_EQ(gw_matcher_init(&m, "__name__", "c", GW_MATCH_EQ, NULL), 0);
	struct gw_querier q = gw_tsdb_querier(db);
	CHECK(q.with_warnings != NULL);
	CHECK_INT_EQ(q.with_warnings(q.ctx, w, &a, &q), 0);
	struct gw_series_set set = {0};
	struct gw_err err = {0};
	CHECK_INT_EQ(q.select(q.ctx, &m, 1, 0, INT64_MAX, &a, &set, &err), 0);
	size_t n = set.n ? set.s[0].n : 0, wrong = 0;
	for (size_t i = 1; i < n; i++)
		wrong += set.s[0].t[i] <= set.s[0].t[i - 1] || set.s[0].v[i] != (double)set.s[0].t[i];
	CHECK_INT_EQ(wrong, 0);
	gw_matcher_release(&m);
	gw_arena_release(&a);
	return n;
}

/* Files in dir whose names start with prefix. */
static int files_like(const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

/* Open with recover on a broken file: moved aside, fresh, writable, and said so. */
static void check_moved_aside(const char *why_part)
{
	struct gw_tsdb *db = NULL;
	CHECK(open_db(false, &db) != 0); /* without recover the damage fails the open, as before */
	CHECK_INT_EQ(open_db(true, &db), 0);
	if (!db)
		return;
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK(strstr(st.moved_to, GW_TSDB_FILE ".corrupt-") != NULL);
	CHECK(strstr(st.moved_why, why_part) != NULL);
	if (!strstr(st.moved_why, why_part))
		fprintf(stderr, "why: %s\n", st.moved_why);
	CHECK(access(st.moved_to, F_OK) == 0);
	/* the -wal and -shm went with it, named after it */
	char side[600];
	snprintf(side, sizeof(side), "%s-wal", st.moved_to);
	CHECK_INT_EQ(files_like(GW_TSDB_FILE ".corrupt-"), access(side, F_OK) == 0 ? 3 : 1);
	CHECK_INT_EQ(st.series, 0);
	struct gw_warnings w = {0};
	CHECK_INT_EQ(count_c(db, &w), 0);
	/* the fresh store takes samples and keeps them */
	struct gw_lpair l[] = {{"__name__", "c"}, {"gpu", "0"}};
	uint64_t ref = 0;
	CHECK_INT_EQ(gw_tsdb_series(db, l, 2, &ref), 0);
	CHECK_INT_EQ(gw_tsdb_append(db, ref, 5000, 5000), 0);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_close(db);
	CHECK_INT_EQ(open_db(true, &db), 0);
	gw_tsdb_status(db, &st);
	CHECK_STR_EQ(st.moved_to, "");
	CHECK_INT_EQ(count_c(db, &w), 1);
	CHECK_INT_EQ(w.n, 0);
	gw_tsdb_close(db);
}

static void test_broken_header(void)
{
	fresh_dir();
	write_store();
	FILE *f = fopen(file, "r+b");
	CHECK(f != NULL);
	fwrite("not a database!!", 1, 16, f);
	fclose(f);
	check_moved_aside("magic");
}

static void test_truncated(void)
{
	fresh_dir();
	write_store();
	FILE *f = fopen(file, "rb");
	CHECK(f != NULL);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	CHECK_INT_EQ(truncate(file, size / 2), 0);
	check_moved_aside("truncated");
}

/* A damaged format row is damage; a newer format is not (that store is kept and refused). */
static void test_format_row(void)
{
	fresh_dir();
	write_store();
	CHECK_INT_EQ(sql_exec("UPDATE meta SET value = 'x3' WHERE key = 'format'"), 1);
	check_moved_aside("format");

	fresh_dir();
	write_store();
	CHECK_INT_EQ(sql_exec("UPDATE meta SET value = '9' WHERE key = 'format'"), 1);
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(open_db(true, &db), GW_ENOTSUP);
	CHECK_INT_EQ(files_like(GW_TSDB_FILE ".corrupt-"), 0);
}

/* Damage in one chunk's bytes: kept, counted at open, skipped by queries with a warning. */
static void test_damaged_chunk_warns(void)
{
	fresh_dir();
	write_store();
	CHECK_INT_EQ(sql_exec("UPDATE chunks SET data = substr(data, 1, length(data) / 2) || "
			      "x'5a' || substr(data, length(data) / 2 + 2) WHERE kind = 1 AND mint = 101000"),
		     1);
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(open_db(true, &db), 0);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_STR_EQ(st.moved_to, "");
	CHECK_INT_EQ(st.corrupt_chunks, 1);
	struct gw_warnings w = {0};
	CHECK_INT_EQ(count_c(db, &w), 900);
	CHECK_INT_EQ(w.n, 1);
	CHECK_STR_EQ(w.msg[0], "store: 1 chunks of series {__name__=\"c\",gpu=\"0\"} skipped: crc mismatch");
	gw_tsdb_close(db);
}

/* Counts far too high, zero, negative and too low: every sample answers, with a warning. */
static void test_damaged_count(void)
{
	fresh_dir();
	write_store();
	CHECK_INT_EQ(sql_exec("UPDATE chunks SET count = CASE mint WHEN 1000 THEN 1 << 40 WHEN 101000 THEN 0 "
			      "WHEN 201000 THEN -5 ELSE 3 END WHERE kind = 1 AND mint <= 301000"),
		     4);
	struct gw_tsdb *db = NULL;
	CHECK_INT_EQ(open_db(true, &db), 0);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_STR_EQ(st.moved_to, "");
	CHECK_INT_EQ(st.corrupt_chunks, 4);
	struct gw_warnings w = {0};
	CHECK_INT_EQ(count_c(db, &w), 1000);
	CHECK_INT_EQ(w.n, 1);
	CHECK_STR_EQ(w.msg[0], "store: 4 chunks of series {__name__=\"c\",gpu=\"0\"} have a damaged sample count");
	gw_tsdb_close(db);
}

int main(void)
{
	RUN(test_broken_header);
	RUN(test_truncated);
	RUN(test_format_row);
	RUN(test_damaged_chunk_warns);
	RUN(test_damaged_count);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT_EQ(system(cmd), 0);
	return harness_done();
}
