/*
 * tsdb_flush.c - moving heads to disk, loading them back, and retention.
 *
 * A flush snapshots each series' head under its lock and encodes there
 * (microseconds: at most a chunk's worth of samples), then writes all of
 * them in one SQLite transaction with no head lock held, then trims the
 * heads. Failure anywhere rolls the whole flush back and closes the writer
 * connection; nothing is dropped from memory, and the next flush reopens
 * the database and writes everything still pending.
 */
#include "store/codec.h"
#include "store/rollup.h"
#include "store/tsdb_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>


struct piece {
	size_t off, len;   /* in the flush's byte buffer */
	size_t roff, rlen; /* sealed: its minute buckets (rollup.h), same buffer */
	int64_t mint, maxt;
	size_t count;
	int kind; /* 1 sealed, 0 partial */
};

struct job {
	size_t ref;
	size_t nsnap; /* tail length at the snapshot: what this flush writes */
	bool cut;     /* the open chunk was cut: sealed pieces, then the remainder */
	int64_t id;
	struct piece *pc;
	size_t npc;
};

static size_t lower_bound(const int64_t *t, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_piece(struct job *j, struct gw_buf *b, const int64_t *t, const double *v, size_t n, int kind)
{
	struct piece *p = &j->pc[j->npc];
	p->off = b->len;
	int rc = gw_chunk_encode(t, v, n, b);
	if (rc)
		return rc;
	p->len = b->len - p->off;
	p->mint = t[0];
	p->maxt = t[n - 1];
	p->count = n;
	p->kind = kind;
	p->roff = b->len;
	p->rlen = 0;
	if (kind == 1) {
		struct gw_bucket *bk = malloc(n * sizeof(*bk));
		if (!bk)
			return GW_ENOMEM;
		size_t nb = gw_rollup_build(t, v, n, GW_ROLLUP_MINUTE_MS, bk);
		/* Worth its bytes only when a bucket stands for several samples; else the tier reads the chunk. */
		rc = nb * 4 <= n ? gw_rollup_encode(bk, nb, b) : 0;
		free(bk);
		if (rc)
			return rc;
		/* Also for a chunk of a few runs (a series that sits still): its
		 * buckets (~70 B for 4096 samples, repeated columns by reference)
		 * spare a day's query folding 86,400 samples a series. */
		p->rlen = b->len - p->roff;
	}
	j->npc++;
	return 0;
}

/*
 * Samples per sealed chunk. By default a chunk holds about CHUNK_BYTES,
 * between 256 and the codec's 4096 samples:
 *  - a cheap series (a value that sits still, a steady counter) gets long
 *    chunks: 1024 samples of a constant were ~30 bytes of data under ~170
 *    of row, index entries and rollup;
 *  - rows of about one sixth of a 16 KiB page pack it: a row that does not
 *    fit the page's end starts a new one, and noisy series' 1024-sample
 *    rows (2.4-4.7 KB) had left 10 % of the pages empty (a day of the
 *    8-GPU simulation at 1 s: 46.99 MB at 3,000 bytes and 1024 samples or
 *    more, 44.6 MB at 2,000, 43.9 MB at 2,600, 45.6 MB at 3,250).
 * The head's pieces tell the bytes per sample, else the last sealed chunk;
 * series with the same samples get the same length, so their chunks still
 * match.
 */
#define CHUNK_BYTES 2600

static size_t chunk_len(const struct gw_tsdb *db, const struct ts_series *s)
{
	size_t c = db->o.chunk_samples, want;
	if (!db->chunk_grow)
		return c;
	if (s->nenc >= TS_PIECE && s->enc.len)
		want = CHUNK_BYTES * s->nenc / s->enc.len;
	else if (s->seal_bps) /* a flush of many samples at once (sim record, import) */
		want = (size_t)CHUNK_BYTES * 256 / s->seal_bps;
	else
		return c;
	if (want > GW_CHUNK_MAX_SAMPLES)
		want = GW_CHUNK_MAX_SAMPLES;
	return want > 256 ? want : 256;
}

/*
 * What to write for one series, under s->mu. Usually the tail alone, as a
 * partial row. When the open chunk is due (chunk_samples samples,
 * chunk_span_ms of time, or the series quiet for a span), it is decoded and
 * cut into sealed chunks plus a remainder, which replaces the partial rows.
 */
static int plan(struct gw_tsdb *db, struct ts_series *s, struct job *j, struct gw_buf *b)
{
	size_t c = chunk_len(db, s), total = s->nenc + s->n, s0 = 0;
	/* Staggered: a series' first chunk is cut early by up to half a chunk
	 * (by its first samples, else by ref), so series that started together
	 * do not all seal at once, while series with the same samples do. */
	uint64_t key = s->nskey ? s->skey ^ (s->skey >> 29) : j->ref * 2654435761u;
	size_t c0 = db->o.stagger && !s->cut_once ? c - (size_t)(key % (c / 2)) : c;
	int64_t span = db->o.chunk_span_ms;
	int64_t first = s->nenc ? s->enc_first : s->t[0];
	int64_t last = s->n ? s->t[s->n - 1] : s->enc_last;
	bool quiet = atomic_load(&db->max_t) - last >= span;
	j->nsnap = s->n;
	j->id = s->id;
	j->npc = 0;
	j->cut = false;
	size_t cappc = 4; /* grown below if a cut makes more pieces */
	j->pc = malloc(cappc * sizeof(*j->pc));
	if (!j->pc)
		return GW_ENOMEM;
	if (total < c0 && last - first < span && !quiet) {
		int rc = s->n ? add_piece(j, b, s->t, s->v, s->n, 0) : 0;
		return rc ? rc : s->n ? ts_enc_reserve(s, j->pc[0].len) : 0;
	}
	int64_t *t = malloc(total * sizeof(*t));
	double *v = t ? malloc(total * sizeof(*v)) : NULL;
	size_t got = 0;
	int rc = v ? ts_enc_decode(s, t, v, total, &got) : GW_ENOMEM;
	if (!rc && s->n) {
		memcpy(t + got, s->t, s->n * sizeof(*t));
		memcpy(v + got, s->v, s->n * sizeof(*v));
	}
	while (!rc && s0 < total) {
		size_t cc = s0 ? c : c0;
		size_t lim = total - s0 < cc ? total : s0 + cc;
		size_t e = s0 + lower_bound(t + s0, lim - s0, t[s0] + span);
		if (!(e < total || e - s0 == cc || quiet))
			break;
		if (j->npc + 1 >= cappc) {
			struct piece *np = realloc(j->pc, (cappc *= 2) * sizeof(*np));
			if (!np) {
				rc = GW_ENOMEM;
				break;
			}
			j->pc = np;
		}
		rc = add_piece(j, b, t + s0, v + s0, e - s0, 1);
		if (!rc)
			s->seal_bps = (uint32_t)((j->pc[j->npc - 1].len * 256 + (e - s0) - 1) / (e - s0));
		s0 = e;
	}
	j->cut = s0 > 0;
	if (!rc && s0 < total) {
		/* a cut rewrites the remainder whole; no cut: the tail alone */
		size_t from = s0 ? s0 : got;
		if (from < total) {
			rc = add_piece(j, b, t + from, v + from, total - from, 0);
			rc = rc ? rc : ts_enc_reserve(s, j->pc[j->npc - 1].len);
		}
	}
	free(t);
	free(v);
	return rc;
}

static int step_done(sqlite3 *c, sqlite3_stmt *st, const char *what, struct gw_err *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : ts_sql_err(c, rc, what, err);
}

enum { ST_INS_SERIES, ST_GET_SERIES, ST_DEL_PARTIAL, ST_INS_PARTIAL, ST_INS_CHUNK, ST_INS_ROLLUP, ST__N };
static const char *const STMT_SQL[ST__N] = {
	"INSERT INTO series(hash, labels) VALUES(?1, ?2)",
	"SELECT id FROM series WHERE hash = ?1 AND labels = ?2",
	"DELETE FROM partials WHERE series_id = ?1",
	"INSERT INTO partials(series_id, mint, maxt, count, data, same) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
	"INSERT INTO chunks(series_id, kind, mint, maxt, count, data, same) VALUES(?1, 1, ?2, ?3, ?4, ?5, ?6)",
	"INSERT INTO rollups(chunk_id, data) VALUES(?1, ?2)",
};

/*
 * The pieces of this flush by content: a sealed chunk (or a partial row)
 * with the same time range, count and bytes as one already written (the
 * same samples under another series) is stored as a reference to it.
 */
struct dedup {
	struct dd_slot {
		uint64_t h;
		const struct piece *p;
		int64_t id; /* 0: empty */
	} * s;
	size_t cap;
};

static uint64_t piece_hash(const struct piece *p, const struct gw_buf *b)
{
	uint64_t h = (uint64_t)p->mint * 0x9e3779b97f4a7c15ULL ^ (uint64_t)p->maxt ^ p->count << 40 ^
		     (uint64_t)p->kind << 60;
	return (h ^ gw_hash_bytes(b->data + p->off, p->len)) | 1;
}

/* The row id of a piece written earlier in this flush with p's kind and content, or 0. */
static int64_t dedup_find(struct dedup *dd, const struct piece *p, const struct gw_buf *b, uint64_t h)
{
	if (!dd->cap)
		return 0;
	for (size_t i = h & (dd->cap - 1);; i = (i + 1) & (dd->cap - 1)) {
		struct dd_slot *sl = &dd->s[i];
		if (!sl->id)
			return 0;
		const struct piece *q = sl->p;
		if (sl->h == h && q->kind == p->kind && q->mint == p->mint && q->maxt == p->maxt &&
		    q->count == p->count && q->len == p->len && memcmp(b->data + q->off, b->data + p->off, p->len) == 0)
			return sl->id;
	}
}

static void dedup_note(struct dedup *dd, const struct piece *p, uint64_t h, int64_t id)
{
	if (!dd->cap)
		return;
	size_t i = h & (dd->cap - 1);
	while (dd->s[i].id)
		i = (i + 1) & (dd->cap - 1);
	dd->s[i] = (struct dd_slot){h, p, id};
}

static int write_job(struct gw_tsdb *db, sqlite3_stmt **st, struct job *j, const struct gw_buf *b,
		     struct dedup *dd, struct gw_err *err)
{
	sqlite3 *c = db->w;
	int rc = 0;
	if (!j->id) {
		/* Another writer (an import next to the agent) may have written
		 * it: the write lock is held from BEGIN IMMEDIATE, so look, then add. */
		const char *key = ts_get(db, j->ref)->key;
		int64_t h = ts_labels_hash(key);
		sqlite3_bind_int64(st[ST_GET_SERIES], 1, h);
		sqlite3_bind_text(st[ST_GET_SERIES], 2, key, -1, SQLITE_STATIC);
		int step = sqlite3_step(st[ST_GET_SERIES]);
		if (step == SQLITE_ROW)
			j->id = sqlite3_column_int64(st[ST_GET_SERIES], 0);
		else if (step != SQLITE_DONE)
			rc = ts_sql_err(c, step, "find series", err);
		sqlite3_reset(st[ST_GET_SERIES]);
		if (!rc && !j->id) {
			sqlite3_bind_int64(st[ST_INS_SERIES], 1, h);
			sqlite3_bind_text(st[ST_INS_SERIES], 2, key, -1, SQLITE_STATIC);
			rc = step_done(c, st[ST_INS_SERIES], "insert series", err);
			if (!rc)
				j->id = sqlite3_last_insert_rowid(c);
		}
	}
	if (!rc && j->cut) {
		sqlite3_bind_int64(st[ST_DEL_PARTIAL], 1, j->id);
		rc = step_done(c, st[ST_DEL_PARTIAL], "delete partial chunks", err);
	}
	for (size_t i = 0; i < j->npc && !rc; i++) {
		const struct piece *p = &j->pc[i];
		sqlite3_stmt *s = st[p->kind == 1 ? ST_INS_CHUNK : ST_INS_PARTIAL];
		uint64_t h = piece_hash(p, b);
		int64_t same = dedup_find(dd, p, b, h);
		sqlite3_bind_int64(s, 1, j->id);
		sqlite3_bind_int64(s, 2, p->mint);
		sqlite3_bind_int64(s, 3, p->maxt);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)p->count);
		sqlite3_bind_blob(s, 5, same ? "" : b->data + p->off, same ? 0 : (int)p->len, SQLITE_STATIC);
		if (same)
			sqlite3_bind_int64(s, 6, same);
		else
			sqlite3_bind_null(s, 6);
		rc = step_done(c, s, "insert chunk", err);
		if (!rc && !same)
			dedup_note(dd, p, h, sqlite3_last_insert_rowid(c));
		if (!rc && p->rlen && !same) {
			s = st[ST_INS_ROLLUP];
			sqlite3_bind_int64(s, 1, sqlite3_last_insert_rowid(c));
			sqlite3_bind_blob(s, 2, b->data + p->roff, (int)p->rlen, SQLITE_STATIC);
			rc = step_done(c, s, "insert rollup", err);
		}
	}
	return rc;
}

static int write_all(struct gw_tsdb *db, struct job *jobs, size_t nj, const struct gw_buf *b, struct gw_err *err)
{
	sqlite3_stmt *st[ST__N] = {0};
	int rc = sqlite3_exec(db->w, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(db->w, rc, "begin", err);
	int ret = 0;
	for (int i = 0; i < ST__N && !ret; i++) {
		rc = sqlite3_prepare_v2(db->w, STMT_SQL[i], -1, &st[i], NULL);
		if (rc != SQLITE_OK)
			ret = ts_sql_err(db->w, rc, "prepare", err);
	}
	size_t pieces = 0;
	for (size_t i = 0; i < nj; i++)
		pieces += jobs[i].npc;
	struct dedup dd = {0};
	if (pieces > 1) { /* without room, every piece is simply stored */
		size_t cap = 16;
		while (cap < 2 * pieces)
			cap *= 2;
		dd.s = calloc(cap, sizeof(*dd.s));
		dd.cap = dd.s ? cap : 0;
	}
	for (size_t i = 0; i < nj && !ret; i++)
		ret = write_job(db, st, &jobs[i], b, &dd, err);
	free(dd.s);
	for (int i = 0; i < ST__N; i++)
		sqlite3_finalize(st[i]);
	if (!ret) {
		rc = sqlite3_exec(db->w, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			ret = ts_sql_err(db->w, rc, "commit", err);
	}
	if (ret)
		sqlite3_exec(db->w, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/*
 * After the commit: the written tail leaves memory for the compressed part
 * of the head (room for it was reserved in plan(), so this cannot fail); a
 * cut empties that part down to the remainder.
 */
static void trim(struct gw_tsdb *db, struct job *jobs, size_t nj, const struct gw_buf *b)
{
	uint64_t sealed = 0, moved = 0;
	for (size_t i = 0; i < nj; i++) {
		struct job *j = &jobs[i];
		struct ts_series *s = ts_get(db, j->ref);
		pthread_mutex_lock(&s->mu);
		s->id = j->id;
		const struct piece *p = j->npc ? &j->pc[j->npc - 1] : NULL;
		if (j->cut) {
			/* A fresh buffer sized for the remainder: a sealed chunk's room
			 * is not kept for the life of the series. Where that cannot be
			 * had, the old one (room reserved in plan()) is reused. */
			struct gw_buf nb;
			gw_buf_init(&nb, TS_ENC_LIMIT);
			if (gw_buf_reserve(&nb, p && p->kind == 0 ? p->len + 10 : 1) == 0) {
				gw_buf_release(&s->enc);
				s->enc = nb;
			} else {
				gw_buf_reset(&s->enc);
			}
			s->cut_once = true;
			s->nenc = s->npieces = s->nfull = 0;
		}
		if (p && p->kind == 0) {
			ts_enc_put(s, b->data + p->off, p->len, p->count, p->mint, p->maxt);
			ts_enc_compact(s);
		}
		if (j->nsnap && s->n > j->nsnap) {
			memmove(s->t, s->t + j->nsnap, (s->n - j->nsnap) * sizeof(*s->t));
			memmove(s->v, s->v + j->nsnap, (s->n - j->nsnap) * sizeof(*s->v));
		}
		s->n -= j->nsnap;
		moved += j->nsnap;
		if (!s->n && s->cap > 64) { /* a backlog's room (a stalled disk) is not kept */
			free(s->t);
			free(s->v);
			s->t = NULL;
			s->v = NULL;
			s->cap = 0;
		}
		pthread_mutex_unlock(&s->mu);
		for (size_t k = 0; k < j->npc; k++)
			sealed += j->pc[k].kind == 1;
	}
	atomic_fetch_sub(&db->head_samples, moved);
	atomic_fetch_add(&db->chunks_written, sealed);
}

static int flush_locked(struct gw_tsdb *db, struct gw_err *err)
{
	if (!db->w) {
		int rc = ts_make_dirs(db->dir, err);
		rc = rc ? rc : ts_sql_open(db, true, &db->w, err);
		if (rc)
			return rc;
	}
	if (!db->loaded) {
		/* Opened degraded: partial rows of the last run are not in the heads,
		 * so they must not be replaced by cuts; keep them as sealed chunks. */
		int rc = sqlite3_exec(db->w,
				      "BEGIN IMMEDIATE;"
				      "INSERT INTO chunks(series_id, kind, mint, maxt, count, data)"
				      " SELECT p.series_id, 1, p.mint, p.maxt, p.count, coalesce(q.data, p.data)"
				      " FROM partials p LEFT JOIN partials q ON q.id = p.same ORDER BY p.series_id, p.mint;"
				      "DELETE FROM partials; COMMIT;",
				      NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			sqlite3_exec(db->w, "ROLLBACK", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			return ts_sql_err(db->w, rc, "adopt partial chunks", err);
		db->loaded = true;
	}
	int64_t upto = atomic_load(&db->max_t);
	size_t ns = atomic_load_explicit(&db->nseries, memory_order_acquire);
	struct job *jobs = calloc(ns ? ns : 1, sizeof(*jobs));
	struct gw_buf b;
	gw_buf_init(&b, (size_t)1 << 31);
	size_t nj = 0;
	int rc = jobs ? 0 : gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < ns && !rc; i++) {
		struct ts_series *s = ts_get(db, i);
		pthread_mutex_lock(&s->mu);
		bool quiet = s->nenc && !s->n && upto - s->enc_last >= db->o.chunk_span_ms;
		if (s->n || quiet) {
			jobs[nj].ref = i;
			rc = plan(db, s, &jobs[nj], &b);
			nj++;
		}
		pthread_mutex_unlock(&s->mu);
		if (rc)
			gw_err_set(err, rc, "encode chunk: %s", gw_strerror(rc));
	}
	if (!rc && nj)
		rc = write_all(db, jobs, nj, &b, err);
	if (!rc) {
		trim(db, jobs, nj, &b);
		atomic_fetch_add(&db->flushes, 1);
		if (upto != INT64_MIN)
			atomic_store(&db->last_flush_t, upto);
	}
	for (size_t i = 0; i < nj; i++)
		free(jobs[i].pc);
	free(jobs);
	gw_buf_release(&b);
	if (!rc && (db->o.retention_ms > 0 || db->o.retention_bytes > 0 || ++db->nflush_since_retain >= 60)) {
		db->nflush_since_retain = 0;
		struct gw_err e2 = {0};
		rc = ts_retain_locked(db, &e2);
		if (rc && err)
			*err = e2;
	}
	return rc;
}

int gw_tsdb_flush(struct gw_tsdb *db, struct gw_err *err)
{
	struct gw_err e = {0};
	pthread_mutex_lock(&db->wmu);
	int rc = flush_locked(db, &e);
	if (rc) {
		/* Start over next time: a fresh connection sees a fixed directory. */
		sqlite3_close(db->w);
		db->w = NULL;
		atomic_fetch_add(&db->flush_errors, 1);
	}
	pthread_mutex_unlock(&db->wmu);
	ts_set_error(db, rc ? &e : NULL);
	if (rc && err)
		*err = e;
	return rc;
}

void *ts_flusher_main(void *arg)
{
	struct gw_tsdb *db = arg;
	pthread_mutex_lock(&db->stop_mu);
	while (!db->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		int64_t ns = until.tv_nsec + (db->o.flush_interval_ms % 1000) * 1000000;
		until.tv_sec += db->o.flush_interval_ms / 1000 + ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		pthread_cond_timedwait(&db->stop_cv, &db->stop_mu, &until);
		if (db->stop)
			break;
		pthread_mutex_unlock(&db->stop_mu);
		struct gw_err e = {0};
		int rc = gw_tsdb_flush(db, &e); /* errors land in the status too */
		if (db->o.on_flush)
			db->o.on_flush(db->o.on_flush_arg, rc, &e);
		pthread_mutex_lock(&db->stop_mu);
	}
	pthread_mutex_unlock(&db->stop_mu);
	return NULL;
}
