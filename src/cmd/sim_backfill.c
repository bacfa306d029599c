/*
 * sim_backfill.c - recording a window before what the store already holds
 * (see sim_backfill.h).
 */
#include "cmd/sim_backfill.h"

#include "model/match.h"

#include <stdio.h>
#include <string.h>

#define FIRST_SERIES 8

/* Equality matchers for every label of a series; *nm set; 0 or GW_E*. */
static int exact(const struct gw_labels *l, struct gw_matcher *m, size_t cap, size_t *nm, struct gw_err *err)
{
	int rc = 0;
	*nm = 0;
	for (size_t i = 0; i < l->n && *nm < cap && !rc; i++)
		if ((rc = gw_matcher_init(&m[*nm], l->p[i].name, l->p[i].value, GW_MATCH_EQ, err)) == 0)
			(*nm)++;
	return rc;
}

int sim_backfill_first(struct gw_tsdb *db, const char *instance, const char *job, int64_t from,
		       int64_t *first, struct gw_err *err)
{
	*first = INT64_MAX;
	struct gw_matcher m[2];
	int rc = gw_matcher_init(&m[0], "instance", instance, GW_MATCH_EQ, err);
	if (rc)
		return rc;
	if ((rc = gw_matcher_init(&m[1], "job", job, GW_MATCH_EQ, err)) != 0) {
		gw_matcher_release(&m[0]);
		return rc;
	}
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena a;
	gw_arena_init(&a, (size_t)1 << 30);
	struct gw_series_set set = {NULL, 0};
	rc = q.series(q.ctx, m, 2, from, INT64_MAX / 4, &a, &set, err);
	for (size_t i = 0; !rc && i < set.n && i < FIRST_SERIES; i++) {
		struct gw_matcher one[32];
		size_t nm = 0;
		rc = exact(&set.s[i].labels, one, 32, &nm, err);
		struct gw_series_set got = {NULL, 0};
		if (!rc)
			rc = q.select(q.ctx, one, nm, from, INT64_MAX / 4, &a, &got, err);
		if (!rc && got.n && got.s[0].n && got.s[0].t[0] < *first)
			*first = got.s[0].t[0];
		for (size_t k = 0; k < nm; k++)
			gw_matcher_release(&one[k]);
	}
	gw_arena_release(&a);
	gw_matcher_release(&m[0]);
	gw_matcher_release(&m[1]);
	return rc;
}

struct rename {
	const char *from, *to;
};

static bool rename_map(void *arg, const char *value, char *out, size_t len)
{
	const struct rename *r = arg;
	if (strcmp(value, r->from) != 0)
		return false;
	snprintf(out, len, "%s", r->to);
	return true;
}

int sim_backfill_merge(const char *path, const char *from, const char *to, uint64_t *n, struct gw_err *err)
{
	struct rename r = {from, to};
	struct gw_tsdb_opts o = {.path = path,
				 .flush_interval_ms = -1,
				 .must_exist = true,
				 .must_write = true,
				 .relabel = {"instance", rename_map, &r}};
	struct gw_tsdb *db = NULL;
	int rc = gw_tsdb_open(&db, &o, err);
	if (rc)
		return rc;
	struct gw_tsdb_status st;
	gw_tsdb_status(db, &st);
	*n = st.relabelled;
	gw_tsdb_close(db);
	return 0;
}
