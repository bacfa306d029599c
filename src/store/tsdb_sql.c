/*
 * tsdb_sql.c - the store's SQLite side: opening connections with the right
 * pragmas, the schema and its version check, the reader pool, and the
 * canonical label text kept in series.labels.
 */
#include "store/tsdb_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const SCHEMA =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
	/* The label text once; found by its hash (ts_labels_hash) when a series is first written. */
	"CREATE TABLE IF NOT EXISTS series(id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, labels TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS series_hash ON series(hash);"
	"CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL,"
	" kind INTEGER NOT NULL, mint INTEGER NOT NULL, maxt INTEGER NOT NULL,"
	" count INTEGER NOT NULL, data BLOB NOT NULL, same INTEGER);"
	/* Queries and retention both go by series (retention: IN over series). */
	"CREATE INDEX IF NOT EXISTS chunks_series_maxt ON chunks(series_id, maxt);"
	/* A chunk stored once for several series (same samples): the others
	 * name it in `same`; before it goes, they get its bytes. */
	"CREATE INDEX IF NOT EXISTS chunks_same ON chunks(same) WHERE same IS NOT NULL;"
	"CREATE TRIGGER IF NOT EXISTS chunks_hand_over BEFORE DELETE ON chunks WHEN old.same IS NULL"
	" BEGIN UPDATE chunks SET data = old.data, same = NULL WHERE same = old.id; END;"
	/* Pieces of open chunks, rewritten as they grow: apart from the sealed
	 * chunks, so their deletions free whole pages instead of leaving holes
	 * between sealed rows that later rows (always appended) never fill. */
	"CREATE TABLE IF NOT EXISTS partials(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL,"
	" mint INTEGER NOT NULL, maxt INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL, same INTEGER);"
	"CREATE INDEX IF NOT EXISTS partials_series ON partials(series_id, mint);"
	"CREATE INDEX IF NOT EXISTS partials_same ON partials(same) WHERE same IS NOT NULL;"
	"CREATE TRIGGER IF NOT EXISTS partials_hand_over BEFORE DELETE ON partials WHEN old.same IS NULL"
	" BEGIN UPDATE partials SET data = old.data, same = NULL WHERE same = old.id; END;"
	/* The minute tier: a sealed chunk's buckets (rollup.h), found by the
	 * chunk's id (series and times are the chunk's), gone with the chunk. */
	"CREATE TABLE IF NOT EXISTS rollups(chunk_id INTEGER PRIMARY KEY, data BLOB NOT NULL);"
	"CREATE TRIGGER IF NOT EXISTS chunks_drop_rollup AFTER DELETE ON chunks"
	" BEGIN DELETE FROM rollups WHERE chunk_id = old.id; END;"
	"INSERT OR IGNORE INTO meta(key, value) VALUES('format', '3');";

int64_t ts_labels_hash(const char *key)
{
	/* FNV-1a a byte at a time: stored on disk, so the same on every machine */
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (int64_t)(h >> 1); /* non-negative: SQLite keeps it in 8 bytes or fewer */
}

int ts_sql_err(sqlite3 *c, int rc, const char *what, struct gw_err *err)
{
	int code = GW_EIO;
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		code = GW_ENOMEM;
		break;
	case SQLITE_PERM:
	case SQLITE_READONLY:
	case SQLITE_AUTH:
	case SQLITE_CANTOPEN:
		code = GW_EPERM;
		break;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		code = GW_EPARSE;
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		code = GW_ETIMEOUT;
		break;
	}
	return gw_err_set(err, code, "%s: %s", what, c ? sqlite3_errmsg(c) : sqlite3_errstr(rc));
}

static int exec(sqlite3 *c, const char *sql, const char *what, struct gw_err *err)
{
	int rc = sqlite3_exec(c, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : ts_sql_err(c, rc, what, err);
}

/* The store's format from meta, or 0 for a new (empty) database. */
static long format_of(sqlite3 *c)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(c, "SELECT value FROM meta WHERE key = 'format'", -1, &st, NULL) != SQLITE_OK)
		return 0; /* no meta table yet */
	long f = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		f = v ? strtol(v, NULL, 10) : -1;
	}
	sqlite3_finalize(st);
	return f;
}

/* Commit a migration that went well (ret 0), else roll it back; ret or the commit's error. */
static int end_migration(sqlite3 *c, int ret, struct gw_err *err)
{
	if (!ret)
		ret = exec(c, "COMMIT", "commit migration", err);
	if (ret)
		sqlite3_exec(c, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/*
 * Format 1 -> 2 in one transaction: the series table loses its UNIQUE
 * label index (the text was kept twice) for a hash column, partial rows
 * move from chunks to their own table, and chunks gain `same`. Sealed
 * chunks' bytes are not touched.
 */
static int migrate_v1(sqlite3 *c, struct gw_err *err)
{
	int ret = exec(c, "BEGIN IMMEDIATE", "begin migration", err);
	if (ret)
		return ret;
	ret = exec(c, "CREATE TABLE series_v2(id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, labels TEXT NOT NULL)",
		   "migrate series", err);
	sqlite3_stmt *rd = NULL, *wr = NULL;
	int rc = ret ? SQLITE_OK : sqlite3_prepare_v2(c, "SELECT id, labels FROM series", -1, &rd, NULL);
	if (rc == SQLITE_OK && !ret)
		rc = sqlite3_prepare_v2(c, "INSERT INTO series_v2(id, hash, labels) VALUES(?1, ?2, ?3)", -1, &wr, NULL);
	if (rc != SQLITE_OK && !ret)
		ret = ts_sql_err(c, rc, "migrate series", err);
	while (!ret && (rc = sqlite3_step(rd)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(rd, 1);
		sqlite3_bind_int64(wr, 1, sqlite3_column_int64(rd, 0));
		sqlite3_bind_int64(wr, 2, ts_labels_hash(text ? text : ""));
		sqlite3_bind_text(wr, 3, text ? text : "", -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(wr);
		sqlite3_reset(wr);
		if (rc != SQLITE_DONE)
			ret = ts_sql_err(c, rc, "migrate series", err);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = ts_sql_err(c, rc, "migrate series", err);
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	ret = ret ? ret
		  : exec(c,
			 "DROP TABLE series; ALTER TABLE series_v2 RENAME TO series;"
			 "CREATE TABLE partials(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL,"
			 " mint INTEGER NOT NULL, maxt INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL,"
			 " same INTEGER);"
			 "INSERT INTO partials(series_id, mint, maxt, count, data)"
			 " SELECT series_id, mint, maxt, count, data FROM chunks WHERE kind = 0 ORDER BY series_id, mint;"
			 "DELETE FROM chunks WHERE kind = 0;"
			 "DROP INDEX IF EXISTS chunks_partial;"
			 "ALTER TABLE chunks ADD COLUMN same INTEGER;"
			 "UPDATE meta SET value = '2' WHERE key = 'format';",
			 "migrate", err);
	return end_migration(c, ret, err);
}

/*
 * Format 2 -> 3 in one transaction: rollups lose the series and times they
 * repeated from their chunk, and the two indexes no query used (by time
 * alone, and rollups by series) go. Chunks and bytes are not touched.
 */
static int migrate_v2(sqlite3 *c, struct gw_err *err)
{
	int ret = exec(c,
		       "BEGIN IMMEDIATE;"
		       "DROP INDEX IF EXISTS chunks_maxt;"
		       "DROP TRIGGER IF EXISTS chunks_drop_rollup;"
		       "CREATE TABLE rollups_v3(chunk_id INTEGER PRIMARY KEY, data BLOB NOT NULL);"
		       "INSERT INTO rollups_v3(chunk_id, data) SELECT chunk_id, data FROM rollups ORDER BY chunk_id;"
		       "DROP TABLE rollups;"
		       "ALTER TABLE rollups_v3 RENAME TO rollups;"
		       "UPDATE meta SET value = '3' WHERE key = 'format';",
		       "migrate to format 3", err);
	return end_migration(c, ret, err);
}

static int check_format(sqlite3 *c, struct gw_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(c, "SELECT value FROM meta WHERE key = 'format'", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(c, rc, "read format", err);
	int ret = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		if (!v || strtol(v, NULL, 10) != GW_TSDB_FORMAT_VERSION)
			ret = gw_err_set(err, GW_ENOTSUP, "store format %s, this build reads %d", v ? v : "?",
					 GW_TSDB_FORMAT_VERSION);
	}
	sqlite3_finalize(st);
	return ret;
}

int ts_sql_open(struct gw_tsdb *db, bool writer, sqlite3 **out, struct gw_err *err)
{
	sqlite3 *c = NULL;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (writer ? SQLITE_OPEN_CREATE : 0);
	int rc = sqlite3_open_v2(db->dbpath, &c, flags, NULL);
	if (rc != SQLITE_OK) {
		int code = ts_sql_err(c, rc, db->dbpath, err);
		sqlite3_close(c);
		return code;
	}
	/* Waits for checkpoints and the other side's locks: the flusher holds
	 * the write lock for a few ms per flush. */
	sqlite3_busy_timeout(c, 5000);
	int ret = 0;
	if (writer) {
		/*
		 * Both must precede the first table; no-ops afterwards. 16 KiB
		 * pages: a sealed chunk (~1 KiB at 1 s) that does not fit a page's
		 * end leaves a hole; on 4 KiB pages those were 19 % of the chunk
		 * pages, on 16 KiB 8 % (an hour of an 8-GPU node: 4.49 -> 4.18 MB).
		 */
		ret = exec(c, "PRAGMA page_size = 16384; PRAGMA auto_vacuum = INCREMENTAL", "page size", err);
		ret = ret ? ret : exec(c, "PRAGMA journal_mode = WAL", "journal_mode", err);
		ret = ret ? ret
			  : exec(c, db->o.sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
				 "synchronous", err);
		/* The writer appends and seldom reads a page twice: a small cache keeps the agent small. */
		ret = ret ? ret : exec(c, "PRAGMA cache_size = -512", "cache_size", err);
		if (!ret && format_of(c) == 1)
			ret = migrate_v1(c, err);
		if (!ret && format_of(c) == 2)
			ret = migrate_v2(c, err);
		ret = ret ? ret : exec(c, SCHEMA, "schema", err);
	} else {
		/* A query reads each chunk once: pages cached beyond the b-tree's inner ones buy little, and every
		 * pooled reader would keep SQLite's default 2 MB */
		ret = exec(c, "PRAGMA query_only = 1; PRAGMA cache_size = -256", "query_only", err);
	}
	ret = ret ? ret : check_format(c, err);
	if (ret) {
		sqlite3_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

sqlite3 *ts_reader_get(struct gw_tsdb *db, struct gw_err *err)
{
	sqlite3 *c = NULL;
	pthread_mutex_lock(&db->pool_mu);
	if (db->npool)
		c = db->pool[--db->npool];
	pthread_mutex_unlock(&db->pool_mu);
	if (!c && ts_sql_open(db, false, &c, err) != 0)
		return NULL;
	return c;
}

void ts_reader_put(struct gw_tsdb *db, sqlite3 *c)
{
	pthread_mutex_lock(&db->pool_mu);
	if (db->npool < TS_POOL) {
		db->pool[db->npool++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&db->pool_mu);
	ts_reader_close(c);
}

void ts_reader_close(sqlite3 *c)
{
	if (!c)
		return;
	sqlite3_stmt *st;
	while ((st = sqlite3_next_stmt(c, NULL)) != NULL) /* the statements kept with it */
		sqlite3_finalize(st);
	sqlite3_close(c);
}

sqlite3_stmt *ts_reader_stmt(sqlite3 *c, const char *sql, int *rc)
{
	for (sqlite3_stmt *st = sqlite3_next_stmt(c, NULL); st; st = sqlite3_next_stmt(c, st)) {
		if (strcmp(sqlite3_sql(st), sql) == 0) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			*rc = SQLITE_OK;
			return st;
		}
	}
	sqlite3_stmt *st = NULL;
	*rc = sqlite3_prepare_v3(c, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
	return st;
}

int ts_labels_text(const struct gw_lpair *p, size_t n, struct gw_buf *out)
{
	int rc = gw_buf_putc(out, '{');
	for (size_t i = 0; i < n && !rc; i++) {
		rc = i ? gw_buf_putc(out, ',') : 0;
		rc = rc ? rc : gw_buf_puts(out, p[i].name);
		rc = rc ? rc : gw_buf_puts(out, "=\"");
		for (const char *s = p[i].value; *s && !rc; s++) {
			if (*s == '\\' || *s == '"')
				rc = gw_buf_putc(out, '\\');
			rc = rc ? rc : (*s == '\n' ? gw_buf_puts(out, "\\n") : gw_buf_putc(out, *s));
		}
		rc = rc ? rc : gw_buf_putc(out, '"');
	}
	return rc ? rc : gw_buf_putc(out, '}');
}

/* Parse what ts_labels_text wrote; *p and its strings are malloc'd. */
int ts_labels_parse(const char *s, struct gw_lpair **p, size_t *n)
{
	size_t cap = 1;
	for (const char *q = s; *q; q++)
		cap += *q == '=';
	struct gw_lpair *lp = calloc(cap, sizeof(*lp));
	if (!lp)
		return GW_ENOMEM;
	size_t k = 0;
	int rc = *s == '{' ? 0 : GW_EPARSE;
	s++;
	while (!rc && *s && *s != '}') {
		const char *eq = strchr(s, '=');
		if (!eq || eq[1] != '"' || k == cap) {
			rc = GW_EPARSE;
			break;
		}
		char *name = strndup(s, (size_t)(eq - s));
		char *val = malloc(strlen(eq) + 1);
		if (!name || !val) {
			free(name);
			free(val);
			rc = GW_ENOMEM;
			break;
		}
		size_t j = 0;
		for (s = eq + 2; *s && *s != '"'; s++) {
			if (*s == '\\' && s[1]) {
				s++;
				val[j++] = *s == 'n' ? '\n' : *s;
			} else {
				val[j++] = *s;
			}
		}
		val[j] = '\0';
		lp[k].name = name;
		lp[k].value = val;
		k++;
		if (*s != '"') {
			rc = GW_EPARSE;
			break;
		}
		s++;
		if (*s == ',')
			s++;
	}
	if (rc) {
		for (size_t i = 0; i < k; i++) {
			free((char *)lp[i].name);
			free((char *)lp[i].value);
		}
		free(lp);
		return rc;
	}
	*p = lp;
	*n = k;
	return 0;
}
