/*
 * tsdb_int.h - the store's insides, shared by tsdb.c (open, series, append),
 * tsdb_flush.c (heads to disk), tsdb_load.c (open-time load, retention), tsdb_query.c (reads)
 * with tsdb_reader.c (a query's chunk reader and the damage it meets),
 * tsdb_sql.c (schema, connections, label text), tsdb_check.c (damaged files, at open)
 * and tsdb_relabel.c (renaming a label's values, at open).
 *
 * On disk (format 2), in DIR/gpuwatch.db:
 *   meta(key TEXT PRIMARY KEY, value TEXT)     "format" = "2"
 *   series(id INTEGER PRIMARY KEY, hash, labels TEXT)
 *       labels in canonical text: {a="x",b="y"}, names ascending, values
 *       escaped as in the exposition format (\\, \", \n); hash is
 *       ts_labels_hash(labels), indexed, to find a series' row when it is
 *       first written.
 *   chunks(id INTEGER PRIMARY KEY, series_id, kind, mint, maxt, count, data, same)
 *       sealed chunks (kind 1): data is one codec.h chunk (ends in its
 *       CRC-32); mint/maxt in ms. Indexes: (series_id, maxt), (maxt).
 *       same: NULL, or the id of a chunk with the same bytes (another
 *       series with the same samples), whose data stands for this row's
 *       (empty); a trigger gives the data to such rows before that chunk
 *       is deleted.
 *   partials(id INTEGER PRIMARY KEY, series_id, mint, maxt, count, data)
 *       pieces of each series' open chunk, replaced by the sealed chunk
 *       when it is cut, read back into the head on open.
 *   rollups(chunk_id, series_id, mint, maxt, data): the minute tier.
 * Format 1 (labels UNIQUE, partial rows as chunks of kind 0) is migrated
 * on open by the writer.
 *
 * Locking, outermost first:
 *   wmu       one flush or retention pass at a time; owns the writer
 *             connection and its statements.
 *   reg_mu    series creation and the key hash; the page table itself is
 *             read lock-free (pages never move, nseries is published with
 *             release/acquire).
 *   series mu the head of one series. Held only for memory work.
 *   idx_lock  (rwlock) the metric-name index; written under reg_mu.
 *   stat_mu   the last error text.
 *   pool_mu   idle reader connections.
 */
#ifndef GW_STORE_TSDB_INT_H
#define GW_STORE_TSDB_INT_H

#include "core/buf.h"
#include "core/arena.h"
#include "model/labels.h"
#include "store/tsdb.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>

#define TS_PAGE_BITS 10
#define TS_PAGE (1u << TS_PAGE_BITS)
#define TS_MAX_PAGES 4096 /* 4 M series */
#define TS_POOL 8         /* idle reader connections kept */

struct ts_series {
	pthread_mutex_t mu;
	struct gw_lpair *labels; /* sorted by name; strings owned; immutable */
	size_t nlabels;
	char *key; /* canonical label text, owned; immutable */
	/*
	 * Under mu. The head is the open (not yet sealed) chunk: its first nenc
	 * samples are already on disk as partial rows and kept here in the same
	 * compressed form (enc: pieces, each a varint length and a codec chunk,
	 * in time order); the tail t/v holds the samples appended since the
	 * last flush. So a head costs its compressed size plus one flush
	 * interval of raw samples, not 16 bytes a sample for a whole chunk.
	 */
	int64_t id;      /* series.id on disk; 0 until first written */
	struct gw_buf enc;
	size_t nenc, npieces;
	size_t nfull; /* leading pieces re-encoded by the last compaction (TS_PIECE samples each) */
	int64_t enc_first, enc_last; /* time span of enc, when nenc > 0 */
	int64_t *t;      /* tail, ms ascending, after enc_last */
	double *v;
	size_t n, cap;
	int64_t last_t;  /* newest sample, head or disk; INT64_MIN if none */
	bool cut_once;   /* a chunk was sealed since open (opts.stagger) */
	uint32_t seal_bps; /* bytes per 256 samples of the last sealed chunk; 0: none yet */
	/* The first samples appended since open, hashed: the stagger's key, so
	 * series fed the same samples (a metric under two names) cut the same
	 * chunks, which the flush then stores once. */
	uint64_t skey;
	unsigned nskey;
};

/* tsdb_head.c: the compressed part of a head */
#define TS_ENC_LIMIT ((size_t)64 << 20)
/* Append one encoded piece (count samples, times [mint, maxt]) to s->enc; room reserved beforehand. */
int ts_enc_put(struct ts_series *s, const char *piece, size_t len, size_t count, int64_t mint, int64_t maxt);
/* Room for a piece of len bytes, so the put after a commit cannot fail. */
int ts_enc_reserve(struct ts_series *s, size_t len);
/* Decode s->enc into t/v (capacity cap, at least s->nenc); GW_EPARSE if memory went bad. */
int ts_enc_decode(const struct ts_series *s, int64_t *t, double *v, size_t cap, size_t *n);
/* The same from the piece holding mint on: earlier pieces (all before mint) are skipped. */
int ts_enc_decode_from(const struct ts_series *s, int64_t mint, int64_t *t, double *v, size_t cap, size_t *n);
/* Samples a piece holds after compaction: a query of the last hour decodes
 * from the piece holding its start, not the whole open chunk (up to 6 h). */
#define TS_PIECE 128
/* Re-encode enc as pieces of TS_PIECE samples once it has many small ones
 * (each piece repeats a header); best effort. */
void ts_enc_compact(struct ts_series *s);
/* Move the tail into enc (encoded), as after loading partial rows at open. */
int ts_enc_absorb_tail(struct ts_series *s);

/* The refs of the series of one metric name, ascending. */
struct ts_post {
	uint32_t *refs;
	size_t n, cap;
};

struct ts_hslot {
	uint64_t hash;
	uint32_t ref1; /* ref + 1; 0 = empty */
};

/* The querier's context: the store, and where one query's warnings go
 * (NULL: the shared querier of gw_tsdb_querier, which warns nobody). */
struct ts_qctx {
	struct gw_tsdb *db;
	struct gw_warnings *w;
};

struct gw_tsdb {
	struct gw_tsdb_opts o;
	struct ts_qctx qctx; /* {this store, NULL} */
	char *dbpath;
	char *dir;
	bool loaded;     /* the database was read at open; false after a degraded open */
	bool chunk_grow; /* chunk_samples was defaulted: cheap series get longer chunks */

	pthread_mutex_t reg_mu;
	struct ts_series **pages[TS_MAX_PAGES];
	_Atomic size_t nseries;
	struct ts_hslot *hash;
	size_t hcap;

	/* Metric name -> its series, so a selector that names a metric reads
	 * a few refs instead of every series' labels. Keys borrow the series'
	 * own name strings. */
	pthread_rwlock_t idx_lock;
	struct gw_arena idx_arena;
	struct gw_strmap idx_names; /* name -> index into posts */
	struct ts_post *posts;
	size_t nposts, posts_cap;
	bool idx_broken; /* out of memory once: selectors scan */

	pthread_mutex_t wmu;
	sqlite3 *w; /* writer; NULL after a failure until the next flush reopens it */
	unsigned nflush_since_retain;

	pthread_mutex_t pool_mu;
	sqlite3 *pool[TS_POOL];
	size_t npool;

	_Atomic uint64_t appended, dropped, head_samples, flushes, flush_errors;
	_Atomic uint64_t chunks_written, chunks_deleted, corrupt, db_bytes;
	_Atomic int64_t max_t, last_flush_t;
	pthread_mutex_t stat_mu;
	int last_error;
	char last_error_msg[GW_ERR_MSG_MAX];
	char moved_to[GW_ERR_MSG_MAX], moved_why[GW_ERR_MSG_MAX]; /* written at open only */
	uint64_t relabelled, relabel_merged;                       /* written at open only */

	pthread_t flusher;
	bool has_flusher, stop;
	bool discard; /* an open that failed: close writes nothing (creates no store) */
	int lock_fd;  /* DIR/gpuwatch.lock, flock'd by a writer; -1: none */
	pthread_mutex_t stop_mu;
	pthread_cond_t stop_cv;
};

static inline struct ts_series *ts_get(struct gw_tsdb *db, size_t ref)
{
	return db->pages[ref >> TS_PAGE_BITS][ref & (TS_PAGE - 1)];
}

/* tsdb_sql.c */
int ts_sql_open(struct gw_tsdb *db, bool writer, sqlite3 **out, struct gw_err *err);
int ts_sql_err(sqlite3 *c, int rc, const char *what, struct gw_err *err);
int ts_labels_text(const struct gw_lpair *p, size_t n, struct gw_buf *out);
int ts_labels_parse(const char *s, struct gw_lpair **p, size_t *n);
/* series.hash of a label text: FNV-1a, non-negative. */
int64_t ts_labels_hash(const char *key);
sqlite3 *ts_reader_get(struct gw_tsdb *db, struct gw_err *err);
void ts_reader_put(struct gw_tsdb *db, sqlite3 *c);
/* Close a reader connection, with the statements kept on it. */
void ts_reader_close(sqlite3 *c);
/* The connection's statement for sql, prepared once and kept with it (reset,
 * bindings cleared); NULL with *rc set on failure. Never finalize it. */
sqlite3_stmt *ts_reader_stmt(sqlite3 *c, const char *sql, int *rc);

/* tsdb_lock.c: a writer's exclusive lock on DIR/gpuwatch.lock (tsdb.h, must_write). */
int ts_lock_take(struct gw_tsdb *db, struct gw_err *err);
void ts_lock_release(struct gw_tsdb *db);

/* tsdb.c */
int ts_make_dirs(const char *path, struct gw_err *err);
int ts_series_add(struct gw_tsdb *db, struct gw_lpair *sorted, size_t n, char *key, uint64_t *ref);
/*
 * The series named name, by the index: a malloc'd copy of their refs (at
 * least one element allocated) in *out, their number in *n; 0 or GW_ENOMEM.
 */
int ts_index_name(struct gw_tsdb *db, const char *name, size_t **out, size_t *n);
void ts_set_error(struct gw_tsdb *db, const struct gw_err *e);

/* tsdb_check.c (opts.recover, at open, before the writer connects) */
/* 0 if the database can be used (or is new); GW_EPARSE with why if SQLite
 * reports it damaged or our header checks fail; other errors (busy,
 * permissions, I/O) as they come: those are not the file's fault. */
int ts_check(struct gw_tsdb *db, struct gw_err *why);
/* Rename the database and its -wal and -shm to <file>.corrupt-<UTC time>;
 * notes the new name and why in db->moved_to/moved_why. */
int ts_move_aside(struct gw_tsdb *db, const char *why, struct gw_err *err);
/* Count (db->corrupt) the sealed and partial chunks that fail their CRC. */
int ts_scan_chunks(struct gw_tsdb *db, struct gw_err *err);

/* tsdb_flush.c */
void *ts_flusher_main(void *arg);

/* tsdb_load.c: reading the store back on open; retention (under wmu, writer open) */
int ts_load(struct gw_tsdb *db, struct gw_err *err);
/* tsdb_relabel.c: opts.relabel, before ts_load */
int ts_relabel(struct gw_tsdb *db, struct gw_err *err);
int ts_retain_locked(struct gw_tsdb *db, struct gw_err *err);

#endif
