/*
 * tsdb_load.c - reading the store back on open (series, each series' last
 * time stamp, the partial rows that become the heads again) and retention.
 */
#include "store/codec.h"
#include "store/tsdb_int.h"

#include <stdlib.h>
#include <string.h>

struct idref {
	int64_t id;
	size_t ref;
};

static int idref_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct idref *)a)->id, y = ((const struct idref *)b)->id;
	return (x > y) - (x < y);
}

static struct ts_series *by_id(struct gw_tsdb *db, const struct idref *m, size_t n, int64_t id)
{
	struct idref key = {id, 0};
	const struct idref *f = bsearch(&key, m, n, sizeof(*m), idref_cmp);
	return f ? ts_get(db, f->ref) : NULL;
}

static int load_series(struct gw_tsdb *db, struct idref **map, size_t *nmap, struct gw_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->w, "SELECT id, labels FROM series ORDER BY id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(db->w, rc, "load series", err);
	size_t cap = 0, n = 0;
	struct idref *m = NULL;
	int ret = 0;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 1);
		struct gw_lpair *p = NULL;
		size_t np = 0;
		if (!text || ts_labels_parse(text, &p, &np) != 0)
			continue; /* a damaged label row loses that series, not the store */
		char *key = strdup(text);
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			struct idref *nm = realloc(m, cap * sizeof(*nm));
			if (nm)
				m = nm;
			else
				ret = GW_ENOMEM;
		}
		uint64_t ref = 0;
		if (ret || !key) {
			for (size_t i = 0; i < np; i++) {
				free((char *)p[i].name);
				free((char *)p[i].value);
			}
			free(p);
			free(key);
			ret = GW_ENOMEM;
			break;
		}
		ret = ts_series_add(db, p, np, key, &ref); /* takes p and key */
		if (!ret) {
			ts_get(db, ref)->id = sqlite3_column_int64(st, 0);
			m[n].id = sqlite3_column_int64(st, 0);
			m[n].ref = ref;
			n++;
		}
	}
	sqlite3_finalize(st);
	if (!ret && rc != SQLITE_DONE)
		ret = ts_sql_err(db->w, rc, "load series", err);
	*map = m;
	*nmap = n;
	return ret ? gw_err_set(err, ret, "load series: %s", gw_strerror(ret)) : 0;
}

static int load_last(struct gw_tsdb *db, const struct idref *m, size_t nm, struct gw_err *err)
{
	static const char *const SQL[] = {"SELECT series_id, max(maxt) FROM chunks GROUP BY series_id",
					  "SELECT series_id, max(maxt) FROM partials GROUP BY series_id"};
	int64_t max_t = INT64_MIN;
	for (size_t q = 0; q < sizeof(SQL) / sizeof(SQL[0]); q++) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(db->w, SQL[q], -1, &st, NULL);
		if (rc != SQLITE_OK)
			return ts_sql_err(db->w, rc, "load last times", err);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct ts_series *s = by_id(db, m, nm, sqlite3_column_int64(st, 0));
			int64_t t = sqlite3_column_int64(st, 1);
			if (s && t > s->last_t)
				s->last_t = t;
			if (t > max_t)
				max_t = t;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return ts_sql_err(db->w, rc, "load last times", err);
	}
	atomic_store(&db->max_t, max_t);
	atomic_store(&db->last_flush_t, max_t);
	return 0;
}

/*
 * A series' loaded samples into the compressed part of its head, and its
 * raw room down to what is left (fewer than a piece): loading series by
 * series keeps one series' samples raw at a time, not the whole store's
 * open chunks (a day at 1 s held 16 MB raw at once, and the heap kept it).
 */
static int absorb(struct ts_series *s)
{
	int rc = ts_enc_absorb_tail(s);
	if (rc || s->cap <= 64)
		return rc;
	size_t cap = 64;
	while (cap < s->n)
		cap *= 2;
	int64_t *nt = malloc(cap * sizeof(*nt));
	double *nv = malloc(cap * sizeof(*nv));
	if (!nt || !nv) { /* keep the larger room: nothing is lost */
		free(nt);
		free(nv);
		return 0;
	}
	memcpy(nt, s->t, s->n * sizeof(*nt));
	memcpy(nv, s->v, s->n * sizeof(*nv));
	free(s->t);
	free(s->v);
	s->t = nt;
	s->v = nv;
	s->cap = cap;
	return 0;
}

/* The partial rows of each series, in time order, become its head again. */
static int load_heads(struct gw_tsdb *db, const struct idref *m, size_t nm, struct gw_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->w, "SELECT p.series_id, coalesce(q.data, p.data) FROM partials p "
				    "LEFT JOIN partials q ON q.id = p.same ORDER BY p.series_id, p.mint",
				    -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(db->w, rc, "load heads", err);
	int64_t *t = malloc(GW_CHUNK_MAX_SAMPLES * sizeof(*t));
	double *v = malloc(GW_CHUNK_MAX_SAMPLES * sizeof(*v));
	int ret = t && v ? 0 : GW_ENOMEM;
	struct ts_series *prev = NULL; /* the series the last rows were of (rows come by series) */
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ts_series *s = by_id(db, m, nm, sqlite3_column_int64(st, 0));
		const void *blob = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1), n = 0;
		if (s != prev && prev)
			ret = absorb(prev);
		prev = s;
		if (!s || ret)
			continue;
		if (gw_chunk_decode(blob, len, t, v, GW_CHUNK_MAX_SAMPLES, &n) != 0) {
			atomic_fetch_add(&db->corrupt, 1);
			continue;
		}
		if (s->n + n > s->cap) {
			size_t cap = s->cap ? s->cap : 64;
			while (cap < s->n + n)
				cap *= 2;
			int64_t *nt = realloc(s->t, cap * sizeof(*nt));
			double *nv = nt ? realloc(s->v, cap * sizeof(*nv)) : NULL;
			if (nt)
				s->t = nt;
			if (!nv) {
				ret = GW_ENOMEM;
				break;
			}
			s->v = nv;
			s->cap = cap;
		}
		for (size_t i = 0; i < n; i++) {
			if (s->n && t[i] <= s->t[s->n - 1])
				continue; /* overlap would break the order; first copy wins */
			s->t[s->n] = t[i];
			s->v[s->n] = v[i];
			s->n++;
		}
	}
	sqlite3_finalize(st);
	free(t);
	free(v);
	if (prev && !ret)
		ret = absorb(prev);
	if (ret)
		return gw_err_set(err, ret, "load heads: %s", gw_strerror(ret));
	if (rc != SQLITE_DONE)
		return ts_sql_err(db->w, rc, "load heads", err);
	return 0;
}

int ts_load(struct gw_tsdb *db, struct gw_err *err)
{
	struct idref *m = NULL;
	size_t nm = 0;
	int rc = load_series(db, &m, &nm, err);
	if (nm)
		qsort(m, nm, sizeof(*m), idref_cmp);
	rc = rc ? rc : load_last(db, m, nm, err);
	rc = rc ? rc : load_heads(db, m, nm, err);
	free(m);
	return rc ? rc : ts_retain_locked(db, err);
}

static int pragma_int(sqlite3 *c, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(c, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static int used_bytes(sqlite3 *c, int64_t *used, int64_t *rows)
{
	int64_t pages = 0, free_pages = 0, psize = 0;
	int rc = pragma_int(c, "PRAGMA page_count", &pages);
	rc = rc ? rc : pragma_int(c, "PRAGMA freelist_count", &free_pages);
	rc = rc ? rc : pragma_int(c, "PRAGMA page_size", &psize);
	if (rows)
		rc = rc ? rc : pragma_int(c, "SELECT count(*) FROM chunks WHERE kind = 1", rows);
	*used = (pages - free_pages) * psize;
	return rc;
}

static int exec_changes(sqlite3 *c, sqlite3_stmt *st, uint64_t *deleted)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return rc;
	*deleted += (uint64_t)sqlite3_changes(c);
	return SQLITE_OK;
}

/*
 * Time: sealed chunks wholly older than the newest sample minus
 * retention_ms go (data time, not the wall clock, so a store fed from a
 * simulator or an import ages the same way), found series by series in
 * chunks_series_maxt. Size: the chunks written first go until the pages in
 * use fit retention_bytes (chunks are written as they fill, so the first
 * written hold the oldest samples, give or take a chunk's span).
 */
int ts_retain_locked(struct gw_tsdb *db, struct gw_err *err)
{
	sqlite3 *c = db->w;
	uint64_t deleted = 0;
	int rc = SQLITE_OK;
	int64_t max_t = atomic_load(&db->max_t);
	if (db->o.retention_ms > 0 && max_t != INT64_MIN) {
		sqlite3_stmt *st = NULL;
		rc = sqlite3_prepare_v2(c, "DELETE FROM chunks WHERE series_id IN (SELECT id FROM series) AND kind = 1 AND maxt < ?1", -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, max_t - db->o.retention_ms);
			rc = exec_changes(c, st, &deleted);
		}
		sqlite3_finalize(st);
	}
	int64_t used = 0, rows = 0;
	rc = rc ? rc : used_bytes(c, &used, db->o.retention_bytes ? &rows : NULL);
	while (rc == SQLITE_OK && db->o.retention_bytes && (uint64_t)used > db->o.retention_bytes && rows > 0) {
		/* Rows to drop, in proportion to the excess: pages free up only
		 * when emptied, so aim a little past the limit. */
		int64_t k = rows * (used - (int64_t)db->o.retention_bytes) / used + 1;
		sqlite3_stmt *st = NULL;
		rc = sqlite3_prepare_v2(c,
					"DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE kind = 1 "
					"ORDER BY id LIMIT ?1)",
					-1, &st, NULL);
		uint64_t before = deleted;
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, k);
			rc = exec_changes(c, st, &deleted);
		}
		sqlite3_finalize(st);
		rows -= (int64_t)(deleted - before);
		if (rc == SQLITE_OK && deleted == before)
			break;
		rc = rc ? rc : sqlite3_exec(c, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
		rc = rc ? rc : used_bytes(c, &used, NULL);
	}
	if (rc == SQLITE_OK && deleted)
		rc = sqlite3_exec(c, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(c, rc, "retention", err);
	atomic_fetch_add(&db->chunks_deleted, deleted);
	atomic_store(&db->db_bytes, (uint64_t)used);
	return 0;
}

int gw_tsdb_retain(struct gw_tsdb *db, struct gw_err *err)
{
	pthread_mutex_lock(&db->wmu);
	int rc = db->w ? ts_retain_locked(db, err) : gw_err_set(err, GW_EIO, "store not writable now");
	pthread_mutex_unlock(&db->wmu);
	return rc;
}
