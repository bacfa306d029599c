/*
 * tsdb.h - the embedded history store: series of (time, value) samples kept
 * in a data directory, compressed per series in chunks, queryable through
 * the PromQL engine's querier interface.
 *
 * Layout. One SQLite database (DIR/gpuwatch.db) in WAL mode holds the
 * series (labels in a canonical text form), compressed chunk blobs (see
 * codec.h) and a format version; docs/STORE.md and tsdb_int.h describe the
 * tables. SQLite gives crash safety and lets queries read while the
 * flusher writes.
 *
 * Head and flush. Each series keeps its open chunk in memory (the head).
 * Appends only touch the head: no I/O, no SQLite. Every flush interval
 * (default 1 s) a background thread writes what the head gained since the
 * last flush in one SQLite transaction: full chunks (chunk_samples
 * samples, or chunk_span_ms of time) are sealed as chunk rows, the rest as
 * small "partial" rows that the sealed chunk later replaces. Durability:
 * a process crash (kill -9) loses at most the samples appended after the
 * last completed flush; every sample older than that is there on reopen.
 * With sync_full the same holds for power loss (synchronous=FULL), at the
 * cost of an fsync per flush.
 *
 * Duplicates and order: per series, time stamps must strictly increase;
 * an older or equal time stamp is refused with GW_EINVAL (so the first
 * write of a time stamp wins). Queries return samples strictly ascending.
 *
 * Failures. When the directory becomes unwritable or the disk fills,
 * appends keep going in memory up to head_max_samples (then GW_EOVERFLOW
 * and the drop counter), each failed flush is recorded in the status, and
 * the next flush tries again from scratch (reopening the database), so
 * writing resumes by itself. A chunk whose checksum fails is skipped and
 * counted, never returned; a query says so through its warnings
 * (gw_querier.with_warnings), and a damaged row count or a damaged page
 * costs the query that chunk or the rest of that series, not its answer.
 * With opts.recover a database SQLite cannot use (a broken header, a
 * truncated file, damaged b-tree pages) is moved aside at open as
 * <file>.corrupt-<UTC time> with its -wal and -shm, and a fresh one is
 * started; the status says so (moved_to, moved_why).
 *
 * Ownership: the caller opens and closes the store; labels passed in are
 * copied. Series returned by queries borrow the store's label strings
 * (valid until gw_tsdb_close) and put samples in the query's arena.
 * Threading: one appender thread (gw_tsdb_series, gw_tsdb_append) plus any
 * number of query threads, concurrently with the background flusher.
 * gw_tsdb_flush, gw_tsdb_retain and gw_tsdb_status may be called from any
 * thread.
 */
#ifndef GW_STORE_TSDB_H
#define GW_STORE_TSDB_H

#include "core/arena.h"
#include "core/err.h"
#include "model/storage.h"

#include <stdbool.h>
#include <stdint.h>

#define GW_TSDB_FORMAT_VERSION 3
#define GW_TSDB_FILE "gpuwatch.db"

struct gw_tsdb;

#define GW_TSDB_RELABEL_MAX 512 /* the longest value a relabel rule may write, with its NUL */

/*
 * A rename of one label's values, applied by a writer at open before the
 * series are read (tsdb_relabel.c): for each series holding label `name`,
 * map(arg, value, out, len) returns true and writes the new value to out,
 * or false to leave the series alone. A series renamed onto another's
 * label set is merged into it. One transaction: all or nothing.
 */
struct gw_tsdb_relabel {
	const char *name; /* NULL: no rule */
	bool (*map)(void *arg, const char *value, char *out, size_t len);
	void *arg;
};

/* Zero means "default" for every field. */
struct gw_tsdb_opts {
	const char *path;          /* data directory, created if missing (required) */
	int64_t flush_interval_ms; /* background flush period; default 1000; < 0: no thread, caller flushes */
	unsigned chunk_samples;    /* samples per sealed chunk, 2..4096; default (0): ~2,600 bytes, 256..4096 */
	int64_t chunk_span_ms;     /* seal a chunk once it covers this much time; default 6 h */
	size_t head_max_samples;   /* unflushed (raw, 16 B) samples held at most; default 16 M */
	int64_t retention_ms;      /* drop chunks older than newest sample minus this; 0: keep */
	uint64_t retention_bytes;  /* drop oldest chunks while the database is larger; 0: no limit */
	bool sync_full;            /* fsync every flush: survive power loss, not only crashes */
	/* Cut each series' first chunk early by up to half a chunk, differently
	 * per series, so series that start together (a whole frame's) are not
	 * all sealed by one flush: steadier memory and write load. */
	bool stagger;
	/* Called on the flushing thread after each background flush: rc 0, or
	 * the failure with e saying why. NULL: nobody is told (the status is). */
	void (*on_flush)(void *arg, int rc, const struct gw_err *e);
	void *on_flush_arg;
	/* At open, check the database (its header, SQLite's quick_check, the
	 * format, every chunk's CRC) and move one that cannot be used aside
	 * instead of failing (the agent: history must not stop it). Without
	 * it a damaged database fails the open (query, export, import). */
	bool recover;
	/* Readers (query, export): the database must exist already; a path
	 * without one fails the open (GW_ENOTFOUND) and nothing is created. */
	bool must_exist;
	/* Writers that start now (the agent, sim record, import): a directory
	 * that cannot be created or written fails the open at once, instead
	 * of the open succeeding degraded (appends held in memory, flushes
	 * retrying the directory: what a store already open does when its
	 * disk goes away). */
	bool must_write;
	/* Renames at open (a writer's new name for itself); failing, it fails the open. */
	struct gw_tsdb_relabel relabel;
	/*
	 * Writers also take the store's lock: an exclusive flock(2) on
	 * DIR/gpuwatch.lock for as long as the store is open, with the pid and
	 * this name ("agent", "import", "sim record"; NULL: "writer") written
	 * in it. A second writer's open fails with GW_EBUSY and a message
	 * naming the holder; a holder killed (kill -9) holds nothing, since
	 * the kernel drops the lock with its last descriptor. Readers
	 * (must_exist) take no lock: SQLite's WAL lets them read beside the
	 * writer.
	 */
	const char *holder;
};

struct gw_tsdb_status {
	uint64_t series;           /* series known */
	uint64_t appended;         /* samples accepted since open */
	uint64_t dropped;          /* samples refused because the head was full */
	uint64_t head_samples;     /* samples in the heads (open chunks) now */
	uint64_t unflushed;        /* of which not yet on disk (kept raw; the rest compressed) */
	uint64_t head_bytes;       /* memory the heads hold: compressed pieces and raw tails */
	uint64_t flushes;          /* successful flushes */
	uint64_t flush_errors;     /* failed flushes */
	uint64_t chunks_written;   /* sealed chunks written */
	uint64_t chunks_deleted;   /* chunks removed by retention */
	uint64_t corrupt_chunks;   /* chunks skipped because they failed to decode */
	uint64_t db_bytes;         /* database pages in use (bytes), as of the last flush */
	int64_t last_flush_t;      /* newest sample time (ms) covered by the last good flush */
	int last_error;            /* GW_E* of the last failure, 0 if the last flush worked */
	char last_error_msg[GW_ERR_MSG_MAX];
	/* opts.recover: where a database that could not be used went at open
	 * ("" if none) and why; corrupt_chunks counts the damaged chunks an
	 * open that kept the database found */
	char moved_to[GW_ERR_MSG_MAX];
	char moved_why[GW_ERR_MSG_MAX];
	/* opts.relabel at open: series renamed, and of those merged into a
	 * series that already had the new labels */
	uint64_t relabelled, relabel_merged;
};

int gw_tsdb_open(struct gw_tsdb **out, const struct gw_tsdb_opts *opts, struct gw_err *err);
/* Stops the flusher, flushes once more, closes. NULL is a no-op. */
void gw_tsdb_close(struct gw_tsdb *db);

/*
 * Find or create the series with these labels (copied; order does not
 * matter, names must be unique); *ref names it for gw_tsdb_append. The
 * series reaches disk with its first flushed sample.
 */
int gw_tsdb_series(struct gw_tsdb *db, const struct gw_lpair *labels, size_t n, uint64_t *ref);

/* t_ms must be newer than the series' last sample: else GW_EINVAL. */
int gw_tsdb_append(struct gw_tsdb *db, uint64_t ref, int64_t t_ms, double v);

/* Write the heads now (what the background thread does every interval). */
int gw_tsdb_flush(struct gw_tsdb *db, struct gw_err *err);

/* Apply retention now (flushes also do, after writing). */
int gw_tsdb_retain(struct gw_tsdb *db, struct gw_err *err);

void gw_tsdb_status(struct gw_tsdb *db, struct gw_tsdb_status *out);

/*
 * The newest time stamp (ms) the last good flush wrote: what a reader may
 * treat as on disk, a crash no longer able to take it (last_flush_t
 * without gw_tsdb_status' walk over every head; at open, the newest
 * stored). INT64_MIN before anything was written. A remote writer sends
 * only up to it, so that after a crash the store still holds what it sent.
 * Samples of one frame are appended series by series, so a flush may
 * start between two of them: readers keep a margin below it.
 */
int64_t gw_tsdb_durable_t(struct gw_tsdb *db);

/* The querier: select() and series() over disk and heads; thread-safe. */
struct gw_querier gw_tsdb_querier(struct gw_tsdb *db);

/*
 * For the HTTP API. Sorted, unique strings borrowed from the store, array
 * in the arena. Only series with samples in [mint, maxt] (ms) and accepted
 * by all nm matchers count; nm may be 0.
 */
int gw_tsdb_label_names(struct gw_tsdb *db, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
			struct gw_arena *arena, const char ***names, size_t *n, struct gw_err *err);
int gw_tsdb_label_values(struct gw_tsdb *db, const char *name, const struct gw_matcher *m, size_t nm,
			 int64_t mint, int64_t maxt, struct gw_arena *arena, const char ***values, size_t *n,
			 struct gw_err *err);

#endif
