/*
 * tsdb_reader.h - what tsdb_query.c shares with tsdb_reader.c (not a public
 * header): one query's reader of sealed chunks, opened on first use and
 * closed with the query. Threading: a reader belongs to one query.
 */
#ifndef GW_STORE_TSDB_READER_H
#define GW_STORE_TSDB_READER_H

#include "store/tsdb_int.h"

struct ts_reader {
	struct gw_tsdb *db;
	sqlite3 *c;
	sqlite3_stmt *chunks, *any, *tier, *count;
	int64_t *dt; /* decode scratch, GW_CHUNK_MAX_SAMPLES each */
	double *dv;
	/* What the current series lost to damage, told to w (may be NULL) by
	 * ts_tell(): chunks failing their CRC or decoding, rows whose count was
	 * wrong (read in full all the same), SQLite's error if a damaged page
	 * ended the series' rows early. */
	struct gw_warnings *w;
	size_t bad_crc, bad_code, bad_count;
	char broken[160];
};

void ts_qr_init(struct ts_reader *r, const struct ts_qctx *qc);
/* The connection and its statements, and the decode scratch: on first use. */
int ts_qr_start(struct ts_reader *r, struct gw_err *err);
int ts_qr_open(struct ts_reader *r, struct gw_err *err);
void ts_qr_close(struct ts_reader *r);
void ts_bind_range(sqlite3_stmt *st, int64_t id, int64_t mint, int64_t maxt, int64_t before);
/* A chunk that would not decode: counted for the status and for ts_tell(). */
void ts_bad_chunk(struct ts_reader *r, const uint8_t *p, size_t len);
/* SQLite's error on a read: damage ends the series with what was read (0); else the query fails. */
int ts_read_failed(struct ts_reader *r, int rc, const char *what, struct gw_err *err);
/* The series' losses, in the query's warnings; the tallies start again. */
void ts_tell(struct ts_reader *r, const struct ts_series *s);

#endif
