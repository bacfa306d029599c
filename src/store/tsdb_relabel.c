/*
 * tsdb_relabel.c - renaming one label's values at open (gw_tsdb_opts.relabel).
 *
 * A series is its label set, so changing what a writer calls itself (the
 * agent's instance label went from "host:port" to "host") would start new
 * series beside the old ones and every GPU would count twice. The writer
 * rewrites the old values once, at open, before the series are read: one
 * transaction over the series table, so a crash leaves the store either as
 * it was or wholly renamed. A series whose new label set another series
 * already has is merged into that one: its chunks move there, and reads
 * sort chunks that overlap (the first copy of a time stamp wins, as
 * everywhere in the store).
 */
#include "store/tsdb_int.h"

#include <stdlib.h>
#include <string.h>

static void free_pairs(struct gw_lpair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)p[i].name);
		free((char *)p[i].value);
	}
	free(p);
}

/* The series' new canonical text in out, or 0 with out empty when the rule leaves it alone. */
static int renamed(const struct gw_tsdb_relabel *r, const char *text, struct gw_buf *out)
{
	struct gw_lpair *p = NULL;
	size_t n = 0;
	gw_buf_reset(out);
	if (ts_labels_parse(text, &p, &n) != 0)
		return 0; /* a damaged row is left as it is; the load skips it */
	char val[GW_TSDB_RELABEL_MAX];
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(p[i].name, r->name) != 0 || !r->map(r->arg, p[i].value, val, sizeof(val)))
			continue;
		char *nv = strdup(val);
		if (!nv) {
			rc = GW_ENOMEM;
			break;
		}
		free((char *)p[i].value);
		p[i].value = nv;
		rc = ts_labels_text(p, n, out);
		break;
	}
	free_pairs(p, n);
	return rc;
}

enum { Q_ALL, Q_FIND, Q_RENAME, Q_SEAL, Q_DROP_PARTIALS, Q_MOVE_CHUNKS, Q_DROP, Q_N };

/*
 * A merge seals both series' partial rows (the pieces of their open
 * chunks) as chunks of the merged series: a head read back at open must be
 * newer than every sealed chunk of its series (queries read the chunks
 * older than the head's first sample), which two series' pieces side by
 * side would not be. Such chunks have no minute buckets; the tier reads
 * their samples, as for chunks written before tiers.
 */
static const char *const SQL[Q_N] = {
    "SELECT id, labels FROM series ORDER BY id",
    "SELECT id FROM series WHERE hash = ?1 AND labels = ?2",
    "UPDATE series SET hash = ?2, labels = ?3 WHERE id = ?1",
    "INSERT INTO chunks(series_id, kind, mint, maxt, count, data, same) "
    "SELECT ?2, 1, p.mint, p.maxt, p.count, coalesce(q.data, p.data), NULL FROM partials p "
    "LEFT JOIN partials q ON q.id = p.same WHERE p.series_id IN (?1, ?2) ORDER BY p.mint",
    "DELETE FROM partials WHERE series_id IN (?1, ?2)",
    "UPDATE chunks SET series_id = ?2 WHERE series_id = ?1",
    "DELETE FROM series WHERE id = ?1",
};

static int step(sqlite3 *c, sqlite3_stmt *st, const char *what, struct gw_err *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : ts_sql_err(c, rc, what, err);
}

/* One series renamed to text, or merged into the series that has it. */
static int apply(sqlite3 *c, sqlite3_stmt **st, int64_t id, const char *text, uint64_t *merged,
		 struct gw_err *err)
{
	int64_t h = ts_labels_hash(text), into = 0;
	sqlite3_bind_int64(st[Q_FIND], 1, h);
	sqlite3_bind_text(st[Q_FIND], 2, text, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st[Q_FIND]);
	if (rc == SQLITE_ROW)
		into = sqlite3_column_int64(st[Q_FIND], 0);
	sqlite3_reset(st[Q_FIND]);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ts_sql_err(c, rc, "relabel: find series", err);
	if (!into) {
		sqlite3_bind_int64(st[Q_RENAME], 1, id);
		sqlite3_bind_int64(st[Q_RENAME], 2, h);
		sqlite3_bind_text(st[Q_RENAME], 3, text, -1, SQLITE_STATIC);
		return step(c, st[Q_RENAME], "relabel: rename series", err);
	}
	(*merged)++;
	for (int q = Q_SEAL; q <= Q_MOVE_CHUNKS; q++) {
		sqlite3_bind_int64(st[q], 1, id);
		sqlite3_bind_int64(st[q], 2, into);
		if ((rc = step(c, st[q], "relabel: move chunks", err)) != 0)
			return rc;
	}
	sqlite3_bind_int64(st[Q_DROP], 1, id);
	return step(c, st[Q_DROP], "relabel: drop series", err);
}

/* Rename every series the rule changes, in one transaction. */
int ts_relabel(struct gw_tsdb *db, struct gw_err *err)
{
	const struct gw_tsdb_relabel *r = &db->o.relabel;
	if (!r->name || !r->map || !db->w)
		return 0;
	sqlite3 *c = db->w;
	sqlite3_stmt *st[Q_N] = {0};
	int rc = sqlite3_exec(c, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(c, rc, "relabel: begin", err);
	for (int q = 0; q < Q_N && rc == SQLITE_OK; q++)
		rc = sqlite3_prepare_v2(c, SQL[q], -1, &st[q], NULL);
	int ret = rc == SQLITE_OK ? 0 : ts_sql_err(c, rc, "relabel: prepare", err);
	/* Collect first: renaming while the SELECT walks the table could meet a row twice. */
	struct pending {
		int64_t id;
		char *text;
	} *pending = NULL;
	size_t n = 0, cap = 0;
	struct gw_buf b;
	gw_buf_init(&b, (size_t)1 << 20);
	while (!ret && (rc = sqlite3_step(st[Q_ALL])) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st[Q_ALL], 1);
		if (!text || (ret = renamed(r, text, &b)) != 0 || !b.len)
			continue;
		if ((ret = gw_buf_putc(&b, '\0')) != 0)
			break;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct pending *nt = realloc(pending, cap * sizeof(*nt));
			if (!nt) {
				ret = GW_ENOMEM;
				break;
			}
			pending = nt;
		}
		pending[n].id = sqlite3_column_int64(st[Q_ALL], 0);
		if (!(pending[n].text = strdup(b.data))) {
			ret = GW_ENOMEM;
			break;
		}
		n++;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = ts_sql_err(c, rc, "relabel: read series", err);
	else if (ret == GW_ENOMEM)
		gw_err_set(err, ret, "relabel: out of memory");
	sqlite3_reset(st[Q_ALL]);
	uint64_t merged = 0;
	for (size_t i = 0; i < n && !ret; i++)
		ret = apply(c, st, pending[i].id, pending[i].text, &merged, err);
	for (size_t i = 0; i < n; i++)
		free(pending[i].text);
	free(pending);
	gw_buf_release(&b);
	for (int q = 0; q < Q_N; q++)
		sqlite3_finalize(st[q]);
	if (!ret && (rc = sqlite3_exec(c, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		ret = ts_sql_err(c, rc, "relabel: commit", err);
	if (ret) {
		sqlite3_exec(c, "ROLLBACK", NULL, NULL, NULL);
		return ret;
	}
	db->relabelled = n;
	db->relabel_merged = merged;
	return 0;
}
