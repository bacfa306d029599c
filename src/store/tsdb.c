/*
 * tsdb.c - the store's lifecycle, series registry and append path.
 *
 * The append path takes one uncontended mutex and writes two array slots;
 * everything that touches SQLite lives in tsdb_flush.c and tsdb_query.c.
 */
#include "store/codec.h"
#include "store/tsdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEF_FLUSH_MS 1000
#define DEF_CHUNK 1024
/* 6 h: a series sampled every minute fills 360 samples a chunk instead of
 * 120, and a day of such a fleet takes a quarter less room (row and index
 * overhead); a short query decodes a few hundred samples more a series. */
#define DEF_SPAN_MS (6 * 3600 * 1000LL)
#define DEF_HEAD_MAX (16u * 1024 * 1024)

static uint64_t hash_str(const char *s)
{
	/* the hash series.hash keeps on disk; never 0: the slot's hash is 0 only when empty */
	return ((uint64_t)ts_labels_hash(s) << 1) | 1;
}

/* Index of the slot holding key, or of the empty slot where it belongs. Under reg_mu. */
static size_t hash_find(struct gw_tsdb *db, const char *key, uint64_t h)
{
	size_t mask = db->hcap - 1, i = h & mask;
	for (;; i = (i + 1) & mask) {
		struct ts_hslot *sl = &db->hash[i];
		if (!sl->ref1 || (sl->hash == h && strcmp(ts_get(db, sl->ref1 - 1)->key, key) == 0))
			return i;
	}
}

static int hash_grow(struct gw_tsdb *db)
{
	size_t cap = db->hcap ? db->hcap * 2 : 1024;
	struct ts_hslot *old = db->hash;
	size_t ocap = db->hcap;
	db->hash = calloc(cap, sizeof(*db->hash));
	if (!db->hash) {
		db->hash = old;
		return GW_ENOMEM;
	}
	db->hcap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].ref1)
			db->hash[hash_find(db, ts_get(db, old[i].ref1 - 1)->key, old[i].hash)] = old[i];
	free(old);
	return 0;
}

static void free_pairs(struct gw_lpair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)p[i].name);
		free((char *)p[i].value);
	}
	free(p);
}

/* Note series ref under its metric name; under reg_mu. Best effort: a
 * series left out of the index for want of memory is still found by a
 * selector, which then scans (ts_index_name reports the index incomplete). */
static void index_add(struct gw_tsdb *db, const struct ts_series *s, size_t ref)
{
	const char *name = NULL;
	for (size_t i = 0; i < s->nlabels; i++)
		if (strcmp(s->labels[i].name, GW_METRIC_NAME) == 0)
			name = s->labels[i].value;
	if (!name)
		name = "";
	pthread_rwlock_wrlock(&db->idx_lock);
	if (db->idx_broken)
		goto out;
	size_t len = strlen(name);
	long k = gw_strmap_get(&db->idx_names, name, len);
	if (k < 0) {
		if (db->nposts == db->posts_cap) {
			size_t cap = db->posts_cap ? db->posts_cap * 2 : 64;
			struct ts_post *np = realloc(db->posts, cap * sizeof(*np));
			if (!np) {
				db->idx_broken = true;
				goto out;
			}
			db->posts = np;
			db->posts_cap = cap;
		}
		k = gw_strmap_get_or_put(&db->idx_names, name, len, (long)db->nposts);
		if (k < 0) {
			db->idx_broken = true;
			goto out;
		}
		db->posts[db->nposts++] = (struct ts_post){0};
	}
	struct ts_post *p = &db->posts[k];
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		uint32_t *nr = realloc(p->refs, cap * sizeof(*nr));
		if (!nr) {
			db->idx_broken = true;
			goto out;
		}
		p->refs = nr;
		p->cap = cap;
	}
	p->refs[p->n++] = (uint32_t)ref;
out:
	pthread_rwlock_unlock(&db->idx_lock);
}

int ts_index_name(struct gw_tsdb *db, const char *name, size_t **out, size_t *n)
{
	pthread_rwlock_rdlock(&db->idx_lock);
	if (db->idx_broken) {
		pthread_rwlock_unlock(&db->idx_lock);
		return GW_EOVERFLOW;
	}
	long k = gw_strmap_get(&db->idx_names, name, strlen(name));
	size_t cnt = k < 0 ? 0 : db->posts[k].n;
	size_t *r = malloc((cnt ? cnt : 1) * sizeof(*r));
	if (r)
		for (size_t i = 0; i < cnt; i++)
			r[i] = db->posts[k].refs[i];
	pthread_rwlock_unlock(&db->idx_lock);
	if (!r)
		return GW_ENOMEM;
	*out = r;
	*n = cnt;
	return 0;
}

/*
 * Register a series whose pairs (sorted) and key the registry takes over;
 * if the key is known they are freed and *ref names the existing one.
 */
int ts_series_add(struct gw_tsdb *db, struct gw_lpair *sorted, size_t n, char *key, uint64_t *ref)
{
	uint64_t h = hash_str(key);
	int rc = 0;
	pthread_mutex_lock(&db->reg_mu);
	size_t ns = atomic_load_explicit(&db->nseries, memory_order_relaxed);
	if ((ns + 1) * 2 > db->hcap)
		rc = hash_grow(db);
	size_t slot = rc ? 0 : hash_find(db, key, h);
	if (rc || db->hash[slot].ref1) {
		if (!rc)
			*ref = db->hash[slot].ref1 - 1;
		pthread_mutex_unlock(&db->reg_mu);
		free_pairs(sorted, n);
		free(key);
		return rc;
	}
	struct ts_series *s = ns < (size_t)TS_MAX_PAGES * TS_PAGE ? calloc(1, sizeof(*s)) : NULL;
	struct ts_series ***page = &db->pages[ns >> TS_PAGE_BITS];
	if (s && !*page)
		*page = calloc(TS_PAGE, sizeof(**page));
	if (!s || !*page) {
		pthread_mutex_unlock(&db->reg_mu);
		free(s);
		free_pairs(sorted, n);
		free(key);
		return s ? GW_ENOMEM : GW_EOVERFLOW;
	}
	pthread_mutex_init(&s->mu, NULL);
	s->labels = sorted;
	s->nlabels = n;
	s->key = key;
	s->last_t = INT64_MIN;
	gw_buf_init(&s->enc, TS_ENC_LIMIT);
	(*page)[ns & (TS_PAGE - 1)] = s;
	db->hash[slot].hash = h;
	db->hash[slot].ref1 = (uint32_t)(ns + 1);
	/* Publish after the slot is filled: readers index up to nseries. */
	atomic_store_explicit(&db->nseries, ns + 1, memory_order_release);
	index_add(db, s, ns);
	pthread_mutex_unlock(&db->reg_mu);
	*ref = ns;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gw_lpair *)a)->name, ((const struct gw_lpair *)b)->name);
}

int gw_tsdb_series(struct gw_tsdb *db, const struct gw_lpair *labels, size_t n, uint64_t *ref)
{
	struct gw_lpair *sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted)
		return GW_ENOMEM;
	if (n)
		memcpy(sorted, labels, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), pair_cmp);
	for (size_t i = 1; i < n; i++)
		if (strcmp(sorted[i].name, sorted[i - 1].name) == 0) {
			free(sorted);
			return GW_EINVAL;
		}
	struct gw_buf key;
	gw_buf_init(&key, 1 << 20);
	int rc = ts_labels_text(sorted, n, &key);
	struct gw_lpair *own = rc ? NULL : calloc(n ? n : 1, sizeof(*own));
	if (!rc && !own)
		rc = GW_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		own[i].name = strdup(sorted[i].name);
		own[i].value = strdup(sorted[i].value);
		if (!own[i].name || !own[i].value)
			rc = GW_ENOMEM;
	}
	free(sorted);
	if (rc) {
		if (own)
			free_pairs(own, n);
		gw_buf_release(&key);
		return rc;
	}
	return ts_series_add(db, own, n, key.data, ref); /* the key's storage moves to the registry */
}

int gw_tsdb_append(struct gw_tsdb *db, uint64_t ref, int64_t t, double v)
{
	if (ref >= atomic_load_explicit(&db->nseries, memory_order_acquire))
		return GW_EINVAL;
	if (atomic_load_explicit(&db->head_samples, memory_order_relaxed) >= db->o.head_max_samples) {
		atomic_fetch_add_explicit(&db->dropped, 1, memory_order_relaxed);
		return GW_EOVERFLOW;
	}
	struct ts_series *s = ts_get(db, ref);
	pthread_mutex_lock(&s->mu);
	if (t <= s->last_t) {
		pthread_mutex_unlock(&s->mu);
		return GW_EINVAL;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16; /* one flush's worth, usually */
		int64_t *nt = realloc(s->t, cap * sizeof(*nt));
		double *nv = nt ? realloc(s->v, cap * sizeof(*nv)) : NULL;
		if (nt)
			s->t = nt;
		if (!nv) {
			pthread_mutex_unlock(&s->mu);
			return GW_ENOMEM;
		}
		s->v = nv;
		s->cap = cap;
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	s->last_t = t;
	if (s->nskey < 16) {
		uint64_t bits;
		memcpy(&bits, &v, sizeof(bits));
		s->skey = (s->skey ^ (uint64_t)t ^ (bits * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
		s->nskey++;
	}
	pthread_mutex_unlock(&s->mu);
	atomic_fetch_add_explicit(&db->appended, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&db->head_samples, 1, memory_order_relaxed);
	if (t > atomic_load_explicit(&db->max_t, memory_order_relaxed))
		atomic_store_explicit(&db->max_t, t, memory_order_relaxed);
	return 0;
}

void ts_set_error(struct gw_tsdb *db, const struct gw_err *e)
{
	pthread_mutex_lock(&db->stat_mu);
	db->last_error = e ? e->code : 0;
	if (e)
		memcpy(db->last_error_msg, e->msg, sizeof(db->last_error_msg));
	else
		db->last_error_msg[0] = '\0';
	pthread_mutex_unlock(&db->stat_mu);
}

int64_t gw_tsdb_durable_t(struct gw_tsdb *db)
{
	return atomic_load(&db->last_flush_t);
}

void gw_tsdb_status(struct gw_tsdb *db, struct gw_tsdb_status *out)
{
	memset(out, 0, sizeof(*out));
	size_t ns = atomic_load_explicit(&db->nseries, memory_order_acquire);
	out->series = ns;
	for (size_t i = 0; i < ns; i++) {
		struct ts_series *s = ts_get(db, i);
		pthread_mutex_lock(&s->mu);
		out->unflushed += s->n;
		out->head_samples += s->nenc + s->n;
		out->head_bytes += s->enc.cap + s->cap * (sizeof(*s->t) + sizeof(*s->v));
		pthread_mutex_unlock(&s->mu);
	}
	out->appended = atomic_load(&db->appended);
	out->dropped = atomic_load(&db->dropped);
	out->flushes = atomic_load(&db->flushes);
	out->flush_errors = atomic_load(&db->flush_errors);
	out->chunks_written = atomic_load(&db->chunks_written);
	out->chunks_deleted = atomic_load(&db->chunks_deleted);
	out->corrupt_chunks = atomic_load(&db->corrupt);
	out->db_bytes = atomic_load(&db->db_bytes);
	out->last_flush_t = atomic_load(&db->last_flush_t);
	pthread_mutex_lock(&db->stat_mu);
	out->last_error = db->last_error;
	memcpy(out->last_error_msg, db->last_error_msg, sizeof(out->last_error_msg));
	pthread_mutex_unlock(&db->stat_mu);
	memcpy(out->moved_to, db->moved_to, sizeof(out->moved_to));
	out->relabelled = db->relabelled;
	out->relabel_merged = db->relabel_merged;
	memcpy(out->moved_why, db->moved_why, sizeof(out->moved_why));
}

/* mkdir -p: the data directory and its missing parents. */
int ts_make_dirs(const char *path, struct gw_err *err)
{
	char *p = strdup(path);
	if (!p)
		return GW_ENOMEM;
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q)
			continue;
		char c = *q;
		*q = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			int e = errno;
			int rc = gw_err_set(err, e == EACCES ? GW_EPERM : GW_EIO, "mkdir %s: %s", p, strerror(e));
			free(p);
			return rc;
		}
		*q = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

static void apply_defaults(struct gw_tsdb_opts *o)
{
	if (o->flush_interval_ms == 0)
		o->flush_interval_ms = DEF_FLUSH_MS;
	if (o->chunk_samples == 0)
		o->chunk_samples = DEF_CHUNK;
	if (o->chunk_span_ms <= 0)
		o->chunk_span_ms = DEF_SPAN_MS;
	if (o->head_max_samples == 0)
		o->head_max_samples = DEF_HEAD_MAX;
}

/* The writer connection; with opts.recover a database that cannot be used is moved aside first. */
static int open_checked(struct gw_tsdb *db, struct gw_err *e)
{
	int rc = db->o.recover ? ts_check(db, e) : 0;
	if (rc == GW_EPARSE) {
		char why[GW_ERR_MSG_MAX];
		snprintf(why, sizeof(why), "%s", e->msg);
		rc = ts_move_aside(db, why, e);
	}
	rc = rc ? rc : ts_sql_open(db, true, &db->w, e);
	if (rc == GW_EPARSE && db->o.recover && !db->moved_to[0]) {
		/* damage the check did not see, found by the writer's first reads */
		char why[GW_ERR_MSG_MAX];
		snprintf(why, sizeof(why), "%s", e->msg);
		rc = ts_move_aside(db, why, e);
		rc = rc ? rc : ts_sql_open(db, true, &db->w, e);
	}
	return rc;
}

/*
 * Forget what a load that failed half-way put in memory: the series stay
 * registered (labels only), without ids on disk, heads or last times.
 */
static void forget_loaded(struct gw_tsdb *db)
{
	size_t ns = atomic_load(&db->nseries);
	for (size_t i = 0; i < ns; i++) {
		struct ts_series *s = ts_get(db, i);
		s->id = 0;
		s->n = s->nenc = s->npieces = s->nfull = 0;
		gw_buf_reset(&s->enc);
		s->last_t = INT64_MIN;
	}
	atomic_store(&db->head_samples, 0);
	atomic_store(&db->max_t, INT64_MIN);
	atomic_store(&db->last_flush_t, INT64_MIN);
}

/*
 * The store read back into memory. With opts.recover, damage SQLite meets
 * only now moves the database aside like damage at the check, and chunks
 * whose bytes fail their CRC are counted (queries skip them and say so).
 */
static int load_checked(struct gw_tsdb *db, struct gw_err *err)
{
	struct gw_err e = {0};
	int rc = ts_relabel(db, &e);
	rc = rc ? rc : ts_load(db, &e);
	if (!rc && db->o.recover)
		rc = ts_scan_chunks(db, &e);
	if (rc == GW_EPARSE && db->o.recover && !db->moved_to[0]) {
		sqlite3_close(db->w);
		db->w = NULL;
		forget_loaded(db);
		char why[GW_ERR_MSG_MAX];
		snprintf(why, sizeof(why), "%s", e.msg);
		rc = ts_move_aside(db, why, &e);
		rc = rc ? rc : ts_sql_open(db, true, &db->w, &e);
	}
	if (rc && err)
		*err = e;
	return rc;
}

int gw_tsdb_open(struct gw_tsdb **out, const struct gw_tsdb_opts *opts, struct gw_err *err)
{
	*out = NULL;
	if (!opts || !opts->path || !*opts->path)
		return gw_err_set(err, GW_EINVAL, "storage path not set");
	if (opts->chunk_samples == 1 || opts->chunk_samples > GW_CHUNK_MAX_SAMPLES)
		return gw_err_set(err, GW_EINVAL, "chunk_samples %u outside 2..%d", opts->chunk_samples,
				  GW_CHUNK_MAX_SAMPLES);
	struct gw_tsdb *db = calloc(1, sizeof(*db));
	if (!db)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	db->o = *opts;
	db->chunk_grow = opts->chunk_samples == 0;
	apply_defaults(&db->o);
	size_t plen = strlen(opts->path);
	db->dbpath = malloc(plen + sizeof(GW_TSDB_FILE) + 1);
	db->dir = strdup(opts->path);
	db->o.path = db->dir;
	if (!db->dbpath || !db->dir) {
		free(db->dbpath);
		free(db->dir);
		free(db);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	memcpy(db->dbpath, opts->path, plen);
	db->dbpath[plen] = '/';
	memcpy(db->dbpath + plen + 1, GW_TSDB_FILE, sizeof(GW_TSDB_FILE));
	pthread_mutex_init(&db->reg_mu, NULL);
	pthread_rwlock_init(&db->idx_lock, NULL);
	gw_arena_init(&db->idx_arena, SIZE_MAX);
	gw_strmap_init(&db->idx_names, &db->idx_arena);
	pthread_mutex_init(&db->wmu, NULL);
	pthread_mutex_init(&db->pool_mu, NULL);
	pthread_mutex_init(&db->stat_mu, NULL);
	pthread_mutex_init(&db->stop_mu, NULL);
	pthread_cond_init(&db->stop_cv, NULL);
	atomic_store(&db->max_t, INT64_MIN);
	atomic_store(&db->last_flush_t, INT64_MIN);
	db->qctx = (struct ts_qctx){db, NULL};
	db->lock_fd = -1;
	struct gw_err e = {0};
	int rc = 0;
	struct stat sb;
	if (db->o.must_exist && stat(db->dbpath, &sb) != 0)
		rc = gw_err_set(&e, GW_ENOTFOUND, "no store in %s (%s: %s)", db->dir, db->dbpath, strerror(errno));
	rc = rc ? rc : ts_make_dirs(db->dir, &e);
	bool no_dir = rc != 0;
	if (!rc && db->o.must_write && access(db->dir, W_OK) != 0)
		rc = gw_err_set(&e, GW_EPERM, "%s is not writable: %s", db->dir, strerror(errno));
	/* before anything reads the database: the agent's recover may move it aside */
	if (!rc && db->o.must_write)
		rc = ts_lock_take(db, &e);
	rc = rc ? rc : open_checked(db, &e);
	/* A directory that cannot be made or written is the operator's to fix
	 * before a writer starts; a database that fails to open in it (a full
	 * disk) may be transient and degrades as a running store would. */
	bool degrade = (rc == GW_EPERM || rc == GW_EIO) && !(db->o.must_write && (no_dir || rc == GW_EPERM)) &&
		       !(db->o.must_write && db->lock_fd < 0);
	if (rc && !degrade && err)
		*err = e;
	if (degrade) {
		/* Degraded: keep appends in memory; flushes retry the directory. */
		ts_set_error(db, &e);
		atomic_fetch_add(&db->flush_errors, 1);
		rc = 0;
	} else if (!rc) {
		rc = load_checked(db, err);
		db->loaded = !rc;
	}
	if (!rc && db->o.flush_interval_ms > 0) {
		if (pthread_create(&db->flusher, NULL, ts_flusher_main, db) != 0)
			rc = gw_err_set(err, GW_ENOMEM, "cannot start the flush thread");
		else
			db->has_flusher = true;
	}
	if (rc) {
		db->discard = true;
		gw_tsdb_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void gw_tsdb_close(struct gw_tsdb *db)
{
	if (!db)
		return;
	if (db->has_flusher) {
		pthread_mutex_lock(&db->stop_mu);
		db->stop = true;
		pthread_cond_signal(&db->stop_cv);
		pthread_mutex_unlock(&db->stop_mu);
		pthread_join(db->flusher, NULL);
	}
	if (!db->discard)
		gw_tsdb_flush(db, NULL);
	sqlite3_close(db->w);
	for (size_t i = 0; i < db->npool; i++)
		ts_reader_close(db->pool[i]);
	size_t ns = atomic_load(&db->nseries);
	for (size_t i = 0; i < ns; i++) {
		struct ts_series *s = ts_get(db, i);
		free_pairs(s->labels, s->nlabels);
		free(s->key);
		free(s->t);
		free(s->v);
		gw_buf_release(&s->enc);
		pthread_mutex_destroy(&s->mu);
		free(s);
	}
	for (size_t i = 0; i < TS_MAX_PAGES && db->pages[i]; i++)
		free(db->pages[i]);
	free(db->hash);
	for (size_t i = 0; i < db->nposts; i++)
		free(db->posts[i].refs);
	free(db->posts);
	gw_arena_release(&db->idx_arena);
	pthread_rwlock_destroy(&db->idx_lock);
	free(db->dbpath);
	free(db->dir);
	pthread_mutex_destroy(&db->reg_mu);
	pthread_mutex_destroy(&db->wmu);
	pthread_mutex_destroy(&db->pool_mu);
	pthread_mutex_destroy(&db->stat_mu);
	pthread_mutex_destroy(&db->stop_mu);
	pthread_cond_destroy(&db->stop_cv);
	ts_lock_release(db); /* last: the store is written out and closed */
	free(db);
}
