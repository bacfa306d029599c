/*
 * store_crash - the writer and the checker of tests/integration/store_crash.sh.
 *
 *   store_crash write DIR   append to 8 series without end, t = 1, 2, ... ms,
 *                           v = t / 2 + series; after each explicit flush
 *                           print "flushed T" (every t <= T is on disk)
 *   store_crash check DIR T every series must hold exactly t = 1..max with
 *                           the right values and max >= T; prints "ok MAX"
 *
 * The background flusher runs too (every 7 ms) so kills land in both. The
 * writer resumes where the store ends, so runs add up to one gap-free series.
 */
#include "store/tsdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSERIES 8

static int open_store(const char *dir, struct gw_tsdb **db, int64_t flush_ms)
{
	struct gw_tsdb_opts o = {.path = dir, .flush_interval_ms = flush_ms, .chunk_samples = 64};
	struct gw_err err = {0};
	int rc = gw_tsdb_open(db, &o, &err);
	if (rc)
		fprintf(stderr, "store_crash: open %s: %s\n", dir, err.msg);
	return rc;
}

static int refs(struct gw_tsdb *db, uint64_t *ref)
{
	for (int i = 0; i < NSERIES; i++) {
		char g[8];
		snprintf(g, sizeof(g), "%d", i);
		struct gw_lpair l[2] = {{"__name__", "crash"}, {"gpu", g}};
		if (gw_tsdb_series(db, l, 2, &ref[i]) != 0)
			return 1;
	}
	return 0;
}

static int64_t resume_at(struct gw_tsdb *db)
{
	struct gw_matcher m;
	gw_matcher_init(&m, "__name__", "crash", GW_MATCH_EQ, NULL);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena a;
	gw_arena_init(&a, (size_t)1 << 32);
	struct gw_series_set set = {0};
	int64_t first_end = INT64_MAX;
	if (q.select(q.ctx, &m, 1, 0, INT64_MAX, &a, &set, NULL) != 0)
		first_end = -2;
	for (size_t i = 0; i < set.n && first_end >= 0; i++)
		if (set.s[i].t[set.s[i].n - 1] < first_end)
			first_end = set.s[i].t[set.s[i].n - 1];
	if (set.n < NSERIES && first_end >= 0)
		first_end = 0;
	gw_arena_release(&a);
	gw_matcher_release(&m);
	return first_end + 1;
}

static int writer(const char *dir)
{
	struct gw_tsdb *db = NULL;
	uint64_t ref[NSERIES];
	if (open_store(dir, &db, 7) != 0 || refs(db, ref) != 0)
		return 1;
	/* A flush snapshots series one after another while appends go on, so
	 * series may end some steps apart: restart after the one that ends
	 * first and let the others refuse what they already have. */
	int64_t t = resume_at(db);
	if (t < 0)
		return 1;
	for (;; t++) {
		for (int i = 0; i < NSERIES; i++) {
			int rc = gw_tsdb_append(db, ref[i], t, (double)t / 2 + i);
			if (rc && rc != GW_EINVAL) {
				fprintf(stderr, "store_crash: append: %s\n", gw_strerror(rc));
				return 1;
			}
		}
		if (t % 16 == 0) {
			struct gw_err err = {0};
			if (gw_tsdb_flush(db, &err) != 0) {
				fprintf(stderr, "store_crash: flush: %s\n", err.msg);
				return 1;
			}
			printf("flushed %lld\n", (long long)t);
			fflush(stdout);
		}
		usleep(50);
	}
}

static int checker(const char *dir, int64_t want)
{
	struct gw_tsdb *db = NULL;
	if (open_store(dir, &db, -1) != 0)
		return 1;
	struct gw_matcher m;
	gw_matcher_init(&m, "__name__", "crash", GW_MATCH_EQ, NULL);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena a;
	gw_arena_init(&a, (size_t)1 << 32);
	struct gw_series_set set = {0};
	struct gw_err err = {0};
	int bad = 0;
	int64_t max = 0;
	if (q.select(q.ctx, &m, 1, 0, INT64_MAX, &a, &set, &err) != 0) {
		fprintf(stderr, "store_crash: select: %s\n", err.msg);
		bad = 1;
	}
	if (!bad && want > 0 && set.n != NSERIES) {
		fprintf(stderr, "store_crash: %zu series, want %d\n", set.n, NSERIES);
		bad = 1;
	}
	for (size_t i = 0; i < set.n && !bad; i++) {
		const struct gw_series *s = &set.s[i];
		int g = atoi(gw_labels_get(&s->labels, "gpu"));
		for (size_t j = 0; j < s->n; j++)
			if (s->t[j] != (int64_t)j + 1 || s->v[j] != (double)s->t[j] / 2 + g) {
				fprintf(stderr, "store_crash: gpu %d: sample %zu is (%lld, %g)\n", g, j,
					(long long)s->t[j], s->v[j]);
				bad = 1;
				break;
			}
		int64_t last = s->n ? s->t[s->n - 1] : 0;
		if (last < want) {
			fprintf(stderr, "store_crash: gpu %d ends at %lld, flushed up to %lld\n", g, (long long)last,
				(long long)want);
			bad = 1;
		}
		if (last > max)
			max = last;
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	if (st.corrupt_chunks) {
		fprintf(stderr, "store_crash: %llu corrupt chunks\n", (unsigned long long)st.corrupt_chunks);
		bad = 1;
	}
	gw_arena_release(&a);
	gw_matcher_release(&m);
	gw_tsdb_close(db);
	if (!bad)
		printf("ok %lld\n", (long long)max);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "write") == 0)
		return writer(argv[2]);
	if (argc == 4 && strcmp(argv[1], "check") == 0)
		return checker(argv[2], strtoll(argv[3], NULL, 10));
	fprintf(stderr, "usage: store_crash write DIR | check DIR T\n");
	return 2;
}
