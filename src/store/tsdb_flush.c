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
#include "store/tsdb_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct piece {
	size_t off, len; /* in the flush's byte buffer */
	int64_t mint, maxt;
	size_t count;
	int kind; /* 1 sealed, 0 partial */
};

struct job {
	size_t ref;
	size_t nsnap, nseal; /* head length at the snapshot; samples sealed */
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
	j->npc++;
	return 0;
}

/*
 * Cut the head into sealed chunks (chunk_samples samples, chunk_span_ms of
 * time, or everything once the series has gone quiet for a span) and a
 * partial remainder, and encode them. Under s->mu.
 */
static int plan(struct gw_tsdb *db, struct ts_series *s, struct job *j, struct gw_buf *b)
{
	size_t n = s->n, c = db->o.chunk_samples, s0 = 0;
	int64_t span = db->o.chunk_span_ms;
	bool quiet = n && atomic_load(&db->max_t) - s->t[n - 1] >= span;
	j->nsnap = n;
	j->id = s->id;
	j->npc = 0;
	j->pc = malloc((n / 2 + 2) * sizeof(*j->pc)); /* a chunk has >= 2 samples unless cut by span */
	if (!j->pc)
		return GW_ENOMEM;
	size_t cappc = n / 2 + 2;
	while (s0 < n) {
		size_t lim = n - s0 < c ? n : s0 + c;
		size_t e = s0 + lower_bound(s->t + s0, lim - s0, s->t[s0] + span);
		if (!(e < n || e - s0 == c || quiet))
			break;
		if (j->npc + 1 >= cappc) {
			struct piece *np = realloc(j->pc, (cappc *= 2) * sizeof(*np));
			if (!np)
				return GW_ENOMEM;
			j->pc = np;
		}
		int rc = add_piece(j, b, s->t + s0, s->v + s0, e - s0, 1);
		if (rc)
			return rc;
		s0 = e;
	}
	j->nseal = s0;
	size_t from = s0 ? s0 : s->nflushed; /* a cut rewrites the remainder whole */
	if (from < n)
		return add_piece(j, b, s->t + from, s->v + from, n - from, 0);
	return 0;
}

static int step_done(sqlite3 *c, sqlite3_stmt *st, const char *what, struct gw_err *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : ts_sql_err(c, rc, what, err);
}

enum { ST_INS_SERIES, ST_GET_SERIES, ST_DEL_PARTIAL, ST_INS_CHUNK, ST__N };
static const char *const STMT_SQL[ST__N] = {
	"INSERT OR IGNORE INTO series(labels) VALUES(?1)",
	"SELECT id FROM series WHERE labels = ?1",
	"DELETE FROM chunks WHERE series_id = ?1 AND kind = 0",
	"INSERT INTO chunks(series_id, kind, mint, maxt, count, data) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
};

static int write_job(struct gw_tsdb *db, sqlite3_stmt **st, struct job *j, const struct gw_buf *b,
		     struct gw_err *err)
{
	sqlite3 *c = db->w;
	int rc = 0;
	if (!j->id) {
		const char *key = ts_get(db, j->ref)->key;
		sqlite3_bind_text(st[ST_INS_SERIES], 1, key, -1, SQLITE_STATIC);
		rc = step_done(c, st[ST_INS_SERIES], "insert series", err);
		sqlite3_bind_text(st[ST_GET_SERIES], 1, key, -1, SQLITE_STATIC);
		if (!rc && sqlite3_step(st[ST_GET_SERIES]) == SQLITE_ROW)
			j->id = sqlite3_column_int64(st[ST_GET_SERIES], 0);
		sqlite3_reset(st[ST_GET_SERIES]);
		if (!rc && !j->id)
			rc = gw_err_set(err, GW_EIO, "series id not found after insert");
	}
	if (!rc && j->nseal) {
		sqlite3_bind_int64(st[ST_DEL_PARTIAL], 1, j->id);
		rc = step_done(c, st[ST_DEL_PARTIAL], "delete partial chunks", err);
	}
	for (size_t i = 0; i < j->npc && !rc; i++) {
		const struct piece *p = &j->pc[i];
		sqlite3_stmt *s = st[ST_INS_CHUNK];
		sqlite3_bind_int64(s, 1, j->id);
		sqlite3_bind_int(s, 2, p->kind);
		sqlite3_bind_int64(s, 3, p->mint);
		sqlite3_bind_int64(s, 4, p->maxt);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)p->count);
		sqlite3_bind_blob(s, 6, b->data + p->off, (int)p->len, SQLITE_STATIC);
		rc = step_done(c, s, "insert chunk", err);
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
	for (size_t i = 0; i < nj && !ret; i++)
		ret = write_job(db, st, &jobs[i], b, err);
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

/* After the commit: drop sealed samples from the heads, note what is on disk. */
static void trim(struct gw_tsdb *db, struct job *jobs, size_t nj)
{
	uint64_t sealed = 0, dropped = 0;
	for (size_t i = 0; i < nj; i++) {
		struct job *j = &jobs[i];
		struct ts_series *s = ts_get(db, j->ref);
		pthread_mutex_lock(&s->mu);
		s->id = j->id;
		if (j->nseal) {
			memmove(s->t, s->t + j->nseal, (s->n - j->nseal) * sizeof(*s->t));
			memmove(s->v, s->v + j->nseal, (s->n - j->nseal) * sizeof(*s->v));
			s->n -= j->nseal;
			dropped += j->nseal;
		}
		s->nflushed = j->nsnap - j->nseal;
		pthread_mutex_unlock(&s->mu);
		for (size_t k = 0; k < j->npc; k++)
			sealed += j->pc[k].kind == 1;
	}
	atomic_fetch_sub(&db->head_samples, dropped);
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
		int rc = sqlite3_exec(db->w, "UPDATE chunks SET kind = 1 WHERE kind = 0", NULL, NULL, NULL);
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
		bool quiet = s->n && upto - s->t[s->n - 1] >= db->o.chunk_span_ms;
		if (s->n > s->nflushed || (quiet && s->n)) {
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
		trim(db, jobs, nj);
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
		gw_tsdb_flush(db, NULL); /* errors land in the status */
		pthread_mutex_lock(&db->stop_mu);
	}
	pthread_mutex_unlock(&db->stop_mu);
	return NULL;
}
