/*
 * tsdb_reader.c - a query's read side of the store (tsdb_reader.h): its
 * pooled SQLite connection in one read transaction, the statements it
 * steps, and what damage it met on the way (chunks that fail their CRC or
 * will not decode, wrong sample counts, pages SQLite calls corrupt),
 * counted for the status and told to the query's warnings per series.
 */
#include "store/tsdb_reader.h"

#include "store/codec.h"
#include "store/codec_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_qr_init(struct ts_reader *r, const struct ts_qctx *qc)
{
	memset(r, 0, sizeof(*r));
	r->db = qc->db;
	r->w = qc->w;
}

static void warn(struct gw_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct gw_warnings *w, const char *fmt, ...)
{
	char m[GW_WARN_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->msg[i], m) == 0)
			return;
	if (w->n == GW_WARN_MAX)
		w->more++;
	else
		memcpy(w->msg[w->n++], m, sizeof(m));
}

/* The series' losses, in the query's warnings; the tallies start again. */
void ts_tell(struct ts_reader *r, const struct ts_series *s)
{
	if (r->w && r->bad_crc)
		warn(r->w, "store: %zu chunks of series %.300s skipped: crc mismatch", r->bad_crc, s->key);
	if (r->w && r->bad_code)
		warn(r->w, "store: %zu chunks of series %.300s skipped: cannot decode", r->bad_code, s->key);
	if (r->w && r->bad_count)
		warn(r->w, "store: %zu chunks of series %.300s have a damaged sample count", r->bad_count, s->key);
	if (r->w && r->broken[0])
		warn(r->w, "store: series %.300s read in part: %s", s->key, r->broken);
	r->bad_crc = r->bad_code = r->bad_count = 0;
	r->broken[0] = '\0';
}

/* A chunk that would not decode: counted for the status and for ts_tell(). */
void ts_bad_chunk(struct ts_reader *r, const uint8_t *p, size_t len)
{
	atomic_fetch_add(&r->db->corrupt, 1);
	if (p && codec_crc_ok(p, len))
		r->bad_code++;
	else
		r->bad_crc++;
}

/*
 * SQLite's error rc on a read: damage (SQLITE_CORRUPT, NOTADB) ends this
 * series' reading with what was read, noted for ts_tell(), and returns 0;
 * anything else (busy, out of memory) fails the query.
 */
int ts_read_failed(struct ts_reader *r, int rc, const char *what, struct gw_err *err)
{
	if ((rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB)
		return ts_sql_err(r->c, rc, what, err);
	atomic_fetch_add(&r->db->corrupt, 1);
	snprintf(r->broken, sizeof(r->broken), "%s: %s", what, sqlite3_errstr(rc));
	return 0;
}

/* Opened on first use: series never flushed need no disk at all. */
int ts_qr_open(struct ts_reader *r, struct gw_err *err)
{
	if (r->c)
		return 0;
	r->c = ts_reader_get(r->db, err);
	if (!r->c)
		return err ? err->code : GW_EIO;
	/* Statements are prepared once per pooled connection and kept with it. */
	int rc = sqlite3_exec(r->c, "BEGIN", NULL, NULL, NULL);
	if (!rc)
		r->chunks = ts_reader_stmt(r->c,
					   "SELECT coalesce(d.data, c.data), c.count FROM chunks c LEFT JOIN chunks d ON d.id = c.same "
					   "WHERE c.series_id = ?1 AND c.kind = 1 AND c.maxt >= ?2 "
					   "AND c.mint <= ?3 AND c.mint < ?4 ORDER BY c.maxt",
					   &rc);
	if (!rc)
		r->any = ts_reader_stmt(r->c, "SELECT 1 FROM chunks WHERE series_id = ?1 AND maxt >= ?2 AND mint <= ?3 LIMIT 1",
					&rc);
	/* How many samples the chunks that read_disk reads hold: room for them
	 * at once. A count out of 1..4096 (damage) stands for a full chunk, so
	 * it can neither ask for the arena's limit nor hide a series' rows;
	 * read_disk grows past one that is too low. */
	_Static_assert(GW_CHUNK_MAX_SAMPLES == 4096, "the count query's bound");
	if (!rc)
		r->count = ts_reader_stmt(r->c,
					  "SELECT coalesce(sum(CASE WHEN count BETWEEN 1 AND 4096 THEN count ELSE 4096 END), 0) "
					  "FROM chunks WHERE series_id = ?1 AND kind = 1 "
					  "AND maxt >= ?2 AND mint <= ?3 AND mint < ?4",
					  &rc);
	/* A sealed chunk's minute buckets, or its samples where it has none (sparse
	 * chunks, older stores); a chunk stored once for two series has them under
	 * the chunk that holds the bytes. */
	if (!rc)
		r->tier = ts_reader_stmt(r->c,
					 "SELECT r.data, CASE WHEN r.data IS NULL THEN coalesce(d.data, c.data) END "
					 "FROM chunks c LEFT JOIN chunks d ON d.id = c.same "
					 "LEFT JOIN rollups r ON r.chunk_id = coalesce(c.same, c.id) WHERE c.series_id = ?1 AND c.kind = 1 "
					 "AND c.maxt >= ?2 AND c.mint <= ?3 AND c.mint < ?4 ORDER BY c.maxt",
					 &rc);
	if (rc)
		return ts_sql_err(r->c, rc, "query", err);
	return 0;
}

void ts_qr_close(struct ts_reader *r)
{
	if (!r->c)
		return;
	/* the statements stay with the connection (ts_reader_stmt); reset them
	 * so that none holds the read transaction open */
	sqlite3_reset(r->chunks);
	sqlite3_reset(r->any);
	sqlite3_reset(r->tier);
	sqlite3_reset(r->count);
	sqlite3_exec(r->c, "COMMIT", NULL, NULL, NULL);
	ts_reader_put(r->db, r->c);
	free(r->dt);
	free(r->dv);
}

/* Open the reader (first use) and its decode scratch. */
int ts_qr_start(struct ts_reader *r, struct gw_err *err)
{
	int rc = ts_qr_open(r, err);
	if (rc)
		return rc;
	if (!r->dt) {
		r->dt = malloc(GW_CHUNK_MAX_SAMPLES * sizeof(*r->dt));
		r->dv = malloc(GW_CHUNK_MAX_SAMPLES * sizeof(*r->dv));
		if (!r->dt || !r->dv)
			return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	return 0;
}

void ts_bind_range(sqlite3_stmt *st, int64_t id, int64_t mint, int64_t maxt, int64_t before)
{
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, mint);
	sqlite3_bind_int64(st, 3, maxt);
	sqlite3_bind_int64(st, 4, before);
}
