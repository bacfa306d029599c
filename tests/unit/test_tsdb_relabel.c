/*
 * The store's relabel at open (gw_tsdb_opts.relabel): a store written
 * under the old instance name "HOST:PORT" is renamed to "HOST" when the
 * writer opens it; two old names of one series merge into one series whose
 * samples all read back in order, and whose head keeps taking samples.
 */
#include "harness.h"
#include "store/tsdb.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

/* The agent's rule in small: "node7:<digits>" -> "node7". */
static bool map(void *arg, const char *value, char *out, size_t len)
{
	const char *host = arg;
	size_t n = strlen(host);
	if (strncmp(value, host, n) != 0 || value[n] != ':' || !value[n + 1] ||
	    strspn(value + n + 1, "0123456789") != strlen(value + n + 1))
		return false;
	snprintf(out, len, "%s", host);
	return true;
}

static struct gw_tsdb *open_db(bool relabel)
{
	struct gw_tsdb_opts o = {.path = dir, .flush_interval_ms = -1, .chunk_samples = 100};
	if (relabel)
		o.relabel = (struct gw_tsdb_relabel){"instance", map, "node7"};
	struct gw_tsdb *db = NULL;
	struct gw_err err = {0};
	int rc = gw_tsdb_open(&db, &o, &err);
	if (rc)
		fprintf(stderr, "open: %s\n", err.msg);
	CHECK_INT_EQ(rc, 0);
	return db;
}

static uint64_t series(struct gw_tsdb *db, const char *uuid, const char *instance)
{
	struct gw_lpair l[4] = {{"__name__", "DCGM_FI_DEV_GPU_TEMP"},
				{"UUID", uuid},
				{"instance", instance},
				{"job", "gpuwatch"}};
	uint64_t ref = 0;
	CHECK_INT_EQ(gw_tsdb_series(db, l, 4, &ref), 0);
	return ref;
}

static void append(struct gw_tsdb *db, uint64_t ref, int64_t from, int64_t to)
{
	int bad = 0;
	for (int64_t t = from; t <= to; t += 1000)
		bad += gw_tsdb_append(db, ref, t, (double)(t / 1000 % 50)) != 0;
	CHECK_INT_EQ(bad, 0);
}

/* Every series of the metric: how many, and of the one with this instance, its samples 1 s apart. */
static void expect(struct gw_tsdb *db, size_t nseries, const char *instance, int64_t from, int64_t to)
{
	struct gw_matcher m;
	CHECK_INT_EQ(gw_matcher_init(&m, "__name__", "DCGM_FI_DEV_GPU_TEMP", GW_MATCH_EQ, NULL), 0);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena a;
	gw_arena_init(&a, 1 << 26);
	struct gw_series_set set = {0};
	struct gw_err err = {0};
	CHECK_INT_EQ(q.select(q.ctx, &m, 1, 0, INT64_MAX / 4, &a, &set, &err), 0);
	CHECK_INT_EQ(set.n, nseries);
	const struct gw_series *s = NULL;
	for (size_t i = 0; i < set.n; i++)
		if (strcmp(gw_labels_get(&set.s[i].labels, "instance"), instance) == 0)
			s = &set.s[i];
	CHECK(s != NULL);
	if (s) {
		size_t want = (size_t)((to - from) / 1000 + 1), bad = 0;
		CHECK_INT_EQ(s->n, want);
		for (size_t i = 0; i < s->n && i < want; i++) {
			int64_t t = from + (int64_t)i * 1000;
			bad += s->t[i] != t || s->v[i] != (double)(t / 1000 % 50);
		}
		CHECK_INT_EQ(bad, 0);
	}
	gw_arena_release(&a);
	gw_matcher_release(&m);
}

static void test_old_instance_renamed_and_merged(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gw_relabel_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	/* As an old agent left it: the GPU under node7:9400, then (port moved)
	 * node7:9401, each with sealed chunks and a partial open chunk; and
	 * another host's series, which the rule leaves alone. */
	struct gw_tsdb *db = open_db(false);
	uint64_t a = series(db, "GPU-1", "node7:9400"), b = series(db, "GPU-1", "node7:9401");
	uint64_t other = series(db, "GPU-1", "node8:9400");
	append(db, a, 1000000, 1250000);
	append(db, b, 1300000, 1520000);
	append(db, other, 1000000, 1100000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_close(db);

	db = open_db(false); /* a reader or a writer with no rule sees three series */
	expect(db, 3, "node7:9400", 1000000, 1250000);
	gw_tsdb_close(db);

	db = open_db(true);
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.relabelled, 2);
	CHECK_INT_EQ(st.relabel_merged, 1);
	CHECK_INT_EQ(st.series, 2);
	/* One series for the GPU, holding both ranges in order (with the gap between). */
	struct gw_matcher m[2];
	CHECK_INT_EQ(gw_matcher_init(&m[0], "instance", "node7", GW_MATCH_EQ, NULL), 0);
	CHECK_INT_EQ(gw_matcher_init(&m[1], "UUID", "GPU-1", GW_MATCH_EQ, NULL), 0);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 26);
	struct gw_series_set set = {0};
	CHECK_INT_EQ(q.select(q.ctx, m, 2, 0, INT64_MAX / 4, &ar, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 1);
	if (set.n == 1) {
		CHECK_INT_EQ(set.s[0].n, 251 + 221);
		size_t unordered = 0;
		for (size_t i = 1; i < set.s[0].n; i++)
			unordered += set.s[0].t[i] <= set.s[0].t[i - 1];
		CHECK_INT_EQ(unordered, 0);
		CHECK_INT_EQ(set.s[0].t[0], 1000000);
		CHECK_INT_EQ(set.s[0].t[set.s[0].n - 1], 1520000);
	}
	gw_arena_release(&ar);
	gw_matcher_release(&m[0]);
	gw_matcher_release(&m[1]);
	/* The writer goes on under the new name: the samples follow the merged ones. */
	uint64_t c = series(db, "GPU-1", "node7");
	CHECK_INT_EQ(gw_tsdb_append(db, c, 1520000, 1), GW_EINVAL); /* not newer than what is stored */
	append(db, c, 1521000, 1700000);
	CHECK_INT_EQ(gw_tsdb_flush(db, NULL), 0);
	gw_tsdb_close(db);

	/* Reopened (the rule now finds nothing): one GPU, every sample once. */
	db = open_db(true);
	gw_tsdb_status(db, &st);
	CHECK_INT_EQ(st.relabelled, 0);
	CHECK_INT_EQ(st.series, 2);
	gw_tsdb_close(db);
	db = open_db(false);
	struct gw_matcher one;
	CHECK_INT_EQ(gw_matcher_init(&one, "instance", "node7", GW_MATCH_EQ, NULL), 0);
	q = gw_tsdb_querier(db);
	gw_arena_init(&ar, 1 << 26);
	set = (struct gw_series_set){0};
	CHECK_INT_EQ(q.select(q.ctx, &one, 1, 0, INT64_MAX / 4, &ar, &set, NULL), 0);
	CHECK_INT_EQ(set.n, 1);
	if (set.n == 1)
		CHECK_INT_EQ(set.s[0].n, 251 + 221 + 180);
	gw_arena_release(&ar);
	gw_matcher_release(&one);
	expect(db, 2, "node8:9400", 1000000, 1100000);
	gw_tsdb_close(db);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT_EQ(system(cmd), 0);
}

int main(void)
{
	RUN(test_old_instance_renamed_and_merged);
	return harness_done();
}
