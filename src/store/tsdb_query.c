/*
 * tsdb_query.c - reads: the querier's select() and series(), label names
 * and values.
 *
 * Consistency without a global lock: a query copies each matching head
 * first and notes the head's first time stamp F, then reads sealed chunks
 * with mint < F from a fresh SQLite snapshot. Anything the flusher sealed
 * out of the head before the copy was committed before it, so it is in the
 * snapshot; anything sealed after the copy starts at or after F and was in
 * the copy. A sample is therefore never missed, and the merge drops any
 * duplicate time stamp (keeping the older, on-disk one).
 */
#include "store/codec.h"
#include "store/codec_int.h"
#include "store/rollup.h"
#include "store/tsdb_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vec {
	int64_t *t;
	double *v;
	size_t n, cap;
};

static int vec_reserve(struct vec *x, size_t more)
{
	if (x->n + more <= x->cap)
		return 0;
	size_t cap = x->cap ? x->cap : 4096;
	while (cap < x->n + more)
		cap *= 2;
	int64_t *nt = realloc(x->t, cap * sizeof(*nt));
	if (nt)
		x->t = nt;
	double *nv = nt ? realloc(x->v, cap * sizeof(*nv)) : NULL;
	if (!nv)
		return GW_ENOMEM;
	x->v = nv;
	x->cap = cap;
	return 0;
}

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

/* Index past the last element <= x. */
static size_t upper_bound(const int64_t *t, size_t n, int64_t x)
{
	return x == INT64_MAX ? n : lower_bound(t, n, x + 1);
}

static bool matches(const struct ts_series *s, const struct gw_matcher *m, size_t nm)
{
	struct gw_labels l = {s->labels, s->nlabels};
	for (size_t j = 0; j < nm; j++) {
		const char *v = gw_labels_get(&l, m[j].name);
		if (!gw_matcher_matches(&m[j], v ? v : ""))
			return false;
	}
	return true;
}

/*
 * Series accepted by the matchers, ascending; *out is malloc'd. A matcher
 * naming the metric (the usual selector) narrows the search to that name's
 * series by the index; anything else scans every series.
 */
static int candidates(struct gw_tsdb *db, const struct gw_matcher *m, size_t nm, size_t **out, size_t *n)
{
	for (size_t j = 0; j < nm; j++) {
		if (m[j].op != GW_MATCH_EQ || strcmp(m[j].name, GW_METRIC_NAME) != 0 || !m[j].value[0])
			continue;
		size_t *r, cnt, k = 0;
		int rc = ts_index_name(db, m[j].value, &r, &cnt);
		if (rc == GW_ENOMEM)
			return rc;
		if (rc)
			break; /* the index is incomplete: scan */
		for (size_t i = 0; i < cnt; i++)
			if (matches(ts_get(db, r[i]), m, nm))
				r[k++] = r[i];
		*out = r;
		*n = k;
		return 0;
	}
	size_t ns = atomic_load_explicit(&db->nseries, memory_order_acquire), k = 0;
	size_t *r = malloc((ns ? ns : 1) * sizeof(*r));
	if (!r)
		return GW_ENOMEM;
	for (size_t i = 0; i < ns; i++)
		if (matches(ts_get(db, i), m, nm))
			r[k++] = i;
	*out = r;
	*n = k;
	return 0;
}

struct pair {
	int64_t t;
	size_t seq;
	double v;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Strictly ascending, first of equal time stamps kept; rarely has work. */
static int normalise(struct vec *x)
{
	size_t i = 1;
	while (i < x->n && x->t[i] > x->t[i - 1])
		i++;
	if (i >= x->n)
		return 0;
	struct pair *p = malloc(x->n * sizeof(*p));
	if (!p)
		return GW_ENOMEM;
	for (size_t k = 0; k < x->n; k++)
		p[k] = (struct pair){x->t[k], k, x->v[k]};
	qsort(p, x->n, sizeof(*p), pair_cmp);
	size_t o = 0;
	for (size_t k = 0; k < x->n; k++) {
		if (o && p[k].t == x->t[o - 1])
			continue;
		x->t[o] = p[k].t;
		x->v[o] = p[k].v;
		o++;
	}
	x->n = o;
	free(p);
	return 0;
}

/* The samples the series' sealed chunks in range hold (read_disk's rows), in *n. */
static int count_disk(struct ts_reader *r, int64_t id, int64_t mint, int64_t maxt, int64_t before, size_t *n,
		      struct gw_err *err)
{
	int rc = ts_qr_start(r, err);
	if (rc)
		return rc;
	ts_bind_range(r->count, id, mint, maxt, before);
	rc = sqlite3_step(r->count);
	int64_t c = rc == SQLITE_ROW ? sqlite3_column_int64(r->count, 0) : 0;
	sqlite3_reset(r->count);
	*n = c > 0 ? (size_t)c : 0;
	/* a damaged index page: read_disk finds what it can, growing from 0 */
	return rc == SQLITE_ROW ? 0 : ts_read_failed(r, rc, "count chunks", err);
}

/* Room for more samples after x's n in the answer's arena (a row's count was low). */
static int vec_grow_arena(struct vec *x, size_t more, struct gw_arena *arena, struct gw_err *err)
{
	size_t cap = x->cap * 2 > x->n + more ? x->cap * 2 : x->n + more;
	int64_t *t = gw_arena_alloc_uninit(arena, cap * sizeof(*t));
	double *v = t ? gw_arena_alloc_uninit(arena, cap * sizeof(*v)) : NULL;
	if (!v)
		return gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
	if (x->n) {
		memcpy(t, x->t, x->n * sizeof(*t));
		memcpy(v, x->v, x->n * sizeof(*v));
	}
	x->t = t;
	x->v = v;
	x->cap = cap;
	return 0;
}

/*
 * Append the series' sealed samples in [mint, maxt] with t < before to x,
 * whose room count_disk sized: each chunk decodes straight into it (a copy
 * through a scratch buffer and a growing vector had been half of a day's
 * query on 1 s data), and only a chunk at an edge of the range moves. A
 * row whose count disagrees with its chunk (damage: the chunk's own count
 * is under its CRC) is read all the same, x growing in the arena.
 */
static int read_disk(struct ts_reader *r, int64_t id, int64_t mint, int64_t maxt, int64_t before, struct vec *x,
		     bool *sorted, struct gw_arena *arena, struct gw_err *err)
{
	int rc = ts_qr_start(r, err), ret = 0;
	if (rc)
		return rc;
	sqlite3_stmt *st = r->chunks;
	ts_bind_range(st, id, mint, maxt, before);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = 0;
		const uint8_t *blob = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		long want = gw_chunk_count(blob, len);
		if (want > 0 && want != sqlite3_column_int64(st, 1))
			r->bad_count++;
		if (want > 0 && (size_t)want > x->cap - x->n && (ret = vec_grow_arena(x, (size_t)want, arena, err)))
			break;
		bool direct = want > 0 && (size_t)want <= x->cap - x->n;
		int64_t *t = direct ? x->t + x->n : r->dt;
		double *v = direct ? x->v + x->n : r->dv;
		if (gw_chunk_decode(blob, len, t, v, direct ? x->cap - x->n : GW_CHUNK_MAX_SAMPLES, &n) != 0) {
			ts_bad_chunk(r, blob, len); /* skipped; the status and the answer's warnings show it */
			continue;
		}
		size_t a = lower_bound(t, n, mint), b = upper_bound(t, n, maxt);
		while (b > a && t[b - 1] >= before)
			b--;
		if (b - a > x->cap - x->n && (ret = vec_grow_arena(x, b - a, arena, err)))
			break;
		if (b > a && x->n && t[a] <= x->t[x->n - 1])
			*sorted = false; /* chunks overlap (never written so): normalise() sorts */
		if (b > a && (!direct || a > 0)) {
			memmove(x->t + x->n, t + a, (b - a) * sizeof(*t));
			memmove(x->v + x->n, v + a, (b - a) * sizeof(*v));
		}
		x->n += b > a ? b - a : 0;
	}
	sqlite3_reset(st);
	if (!ret && rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = ts_read_failed(r, rc, "read chunks", err);
	return ret;
}

/* Copy the head's samples in [mint, maxt]; *first gets the head's first time (or INT64_MAX). */
static int read_head(struct ts_series *s, int64_t mint, int64_t maxt, struct vec *h, int64_t *first, int64_t *id)
{
	int rc = 0;
	pthread_mutex_lock(&s->mu);
	*first = s->nenc ? s->enc_first : s->n ? s->t[0] : INT64_MAX;
	*id = s->id;
	if (s->nenc && s->enc_first <= maxt && s->enc_last >= mint) {
		size_t got = 0, base = h->n;
		rc = vec_reserve(h, s->nenc);
		rc = rc ? rc : ts_enc_decode_from(s, mint, h->t + base, h->v + base, s->nenc, &got);
		if (rc == GW_EPARSE)
			rc = GW_EIO; /* memory, not a file: never expected */
		if (!rc) {
			size_t a = lower_bound(h->t + base, got, mint), b = upper_bound(h->t + base, got, maxt);
			memmove(h->t + base, h->t + base + a, (b - a) * sizeof(*h->t));
			memmove(h->v + base, h->v + base + a, (b - a) * sizeof(*h->v));
			h->n = base + (b - a);
		}
	}
	size_t a = lower_bound(s->t, s->n, mint), b = upper_bound(s->t, s->n, maxt);
	if (!rc && b > a) {
		rc = vec_reserve(h, b - a);
		if (!rc) {
			memcpy(h->t + h->n, s->t + a, (b - a) * sizeof(*h->t));
			memcpy(h->v + h->n, s->v + a, (b - a) * sizeof(*h->v));
			h->n += b - a;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return rc;
}

struct hcopy {
	size_t off, n; /* in the shared head vector */
	int64_t first, id;
};

static int tsdb_select(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
		       struct gw_arena *arena, struct gw_series_set *out, struct gw_err *err)
{
	const struct ts_qctx *qc = ctx;
	struct gw_tsdb *db = qc->db;
	size_t *refs = NULL, nc = 0;
	out->s = NULL;
	out->n = 0;
	if (candidates(db, m, nm, &refs, &nc) != 0)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct ts_reader r;
	struct vec h = {0};
	struct hcopy *hc = calloc(nc ? nc : 1, sizeof(*hc));
	int rc = hc ? 0 : GW_ENOMEM;
	ts_qr_init(&r, qc);
	/* Every head before the snapshot (see the top of the file). */
	for (size_t i = 0; i < nc && !rc; i++) {
		hc[i].off = h.n;
		rc = read_head(ts_get(db, refs[i]), mint, maxt, &h, &hc[i].first, &hc[i].id);
		hc[i].n = h.n - hc[i].off;
	}
	out->s = rc ? NULL : gw_arena_alloc(arena, (nc ? nc : 1) * sizeof(*out->s));
	if (!rc && !out->s)
		rc = gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
	for (size_t i = 0; i < nc && !rc; i++) {
		struct ts_series *s = ts_get(db, refs[i]);
		size_t disk = 0;
		bool on_disk = hc[i].id && mint < hc[i].first;
		if (on_disk)
			rc = count_disk(&r, hc[i].id, mint, maxt, hc[i].first, &disk, err);
		if (rc)
			break;
		/* a count the damage made unreadable: read_disk looks all the same */
		if (disk + hc[i].n == 0 && !r.broken[0])
			continue;
		/* The answer's own arrays, sized once: samples are decoded into them. */
		size_t room = disk + hc[i].n ? disk + hc[i].n : 1;
		struct vec x = {gw_arena_alloc_uninit(arena, room * sizeof(int64_t)), NULL, 0, room};
		x.v = x.t ? gw_arena_alloc_uninit(arena, x.cap * sizeof(double)) : NULL;
		if (!x.v) {
			rc = gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
			break;
		}
		/* Chunks come in time order and strictly ascending inside, the head
		 * after them: sorted unless a boundary says otherwise. */
		bool sorted = true;
		if (on_disk && (disk || r.broken[0])) {
			rc = read_disk(&r, hc[i].id, mint, maxt, hc[i].first, &x, &sorted, arena, err);
		}
		ts_tell(&r, s);
		if (!rc && hc[i].n && x.cap - x.n < hc[i].n)
			rc = vec_grow_arena(&x, hc[i].n, arena, err);
		if (rc)
			break;
		if (hc[i].n) {
			if (x.n && h.t[hc[i].off] <= x.t[x.n - 1])
				sorted = false;
			memcpy(x.t + x.n, h.t + hc[i].off, hc[i].n * sizeof(*x.t));
			memcpy(x.v + x.n, h.v + hc[i].off, hc[i].n * sizeof(*x.v));
			x.n += hc[i].n;
		}
		rc = sorted ? 0 : normalise(&x);
		if (rc || x.n == 0)
			continue;
		out->s[out->n++] = (struct gw_series){.labels = {s->labels, s->nlabels}, .t = x.t, .v = x.v, .n = x.n};
	}
	if (rc == GW_ENOMEM && (!err || !err->msg[0]))
		gw_err_set(err, rc, "out of memory");
	ts_qr_close(&r);
	free(hc);
	free(h.t);
	free(h.v);
	free(refs);
	return rc;
}

/* ---- the downsampled tier (rollup.h) ---------------------------------------- */

struct bvec {
	struct gw_bucket *b;
	size_t n, cap;
};

static int bvec_reserve(struct bvec *x, size_t more)
{
	if (x->n + more <= x->cap)
		return 0;
	size_t cap = x->cap ? x->cap : 256;
	while (cap < x->n + more)
		cap *= 2;
	struct gw_bucket *nb = realloc(x->b, cap * sizeof(*nb));
	if (!nb)
		return GW_ENOMEM;
	x->b = nb;
	x->cap = cap;
	return 0;
}

/* Samples (t ascending) in [mint, maxt] and before `before`, appended to raw. */
static int keep_samples(const int64_t *t, const double *v, size_t n, int64_t mint, int64_t maxt, int64_t before,
			struct vec *raw)
{
	size_t a = lower_bound(t, n, mint), b = upper_bound(t, n, maxt);
	while (b > a && t[b - 1] >= before)
		b--;
	if (b <= a)
		return 0;
	if (vec_reserve(raw, b - a))
		return GW_ENOMEM;
	memcpy(raw->t + raw->n, t + a, (b - a) * sizeof(*t));
	memcpy(raw->v + raw->n, v + a, (b - a) * sizeof(*v));
	raw->n += b - a;
	return 0;
}

/*
 * A series' sealed chunks in range: the stored minute buckets of those that
 * have them into x (*rolled set), the samples of those that do not into raw.
 */
static int read_disk_tier(struct ts_reader *r, int64_t id, int64_t mint, int64_t maxt, int64_t before, struct bvec *x,
			  struct vec *raw, bool *rolled, struct gw_err *err)
{
	int rc = ts_qr_start(r, err), ret = 0;
	if (rc)
		return rc;
	sqlite3_stmt *st = r->tier;
	ts_bind_range(st, id, mint, maxt, before);
	int64_t lo = gw_rollup_index(mint, GW_ROLLUP_MINUTE_MS), hi = gw_rollup_index(maxt, GW_ROLLUP_MINUTE_MS);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = 0;
		const void *roll = sqlite3_column_blob(st, 0);
		if (roll) {
			if (bvec_reserve(x, GW_CHUNK_MAX_SAMPLES)) {
				ret = gw_err_set(err, GW_ENOMEM, "out of memory");
				break;
			}
			if (gw_rollup_decode(roll, (size_t)sqlite3_column_bytes(st, 0), x->b + x->n,
					     GW_CHUNK_MAX_SAMPLES, &n) != 0) {
				ts_bad_chunk(r, roll, (size_t)sqlite3_column_bytes(st, 0));
				continue;
			}
			/* Whole buckets only: keep those inside [mint, maxt] by index. */
			size_t k = 0;
			for (size_t i = 0; i < n; i++) {
				int64_t idx = gw_rollup_index(x->b[x->n + i].first_t, GW_ROLLUP_MINUTE_MS);
				if (idx >= lo && idx <= hi && x->b[x->n + i].first_t < before)
					x->b[x->n + k++] = x->b[x->n + i];
			}
			x->n += k;
			*rolled = true;
			continue;
		}
		const void *blob = sqlite3_column_blob(st, 1);
		if (!blob || gw_chunk_decode(blob, (size_t)sqlite3_column_bytes(st, 1), r->dt, r->dv,
					     GW_CHUNK_MAX_SAMPLES, &n) != 0) {
			ts_bad_chunk(r, blob, (size_t)sqlite3_column_bytes(st, 1));
			continue;
		}
		if (keep_samples(r->dt, r->dv, n, mint, maxt, before, raw))
			ret = gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	sqlite3_reset(st);
	if (!ret && rc != SQLITE_DONE)
		ret = ts_read_failed(r, rc, "read rollups", err);
	return ret;
}

/*
 * Raw samples as a tier's stand-ins (what gw_rollup_emit gives for buckets
 * of one sample, and the same answers for fuller ones): all of them for
 * the last value; for min, max and sum without staleness markers; for a
 * count each marker-free sample counts 1. Into *o (n 0: none).
 */
static int raw_stand_ins(struct vec *raw, int agg, struct gw_arena *arena, struct gw_series *o, struct gw_err *err)
{
	o->n = 0;
	if (raw->n == 0)
		return 0;
	if (normalise(raw))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int64_t *t = gw_arena_alloc_uninit(arena, raw->n * sizeof(*t));
	double *v = t ? gw_arena_alloc_uninit(arena, raw->n * sizeof(*v)) : NULL;
	if (!v)
		return gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
	size_t n = 0;
	for (size_t k = 0; k < raw->n; k++) {
		if (agg != GW_AGG_LAST && gw_is_stale_nan(raw->v[k]))
			continue;
		t[n] = raw->t[k];
		v[n++] = agg == GW_AGG_COUNT ? 1 : raw->v[k];
	}
	o->t = t;
	o->v = v;
	o->n = n;
	return 0;
}

/*
 * Whether samples are many to a minute: then they are folded into buckets
 * even when none were stored (a series that sits still has chunks too small
 * to carry buckets, and at 1 s a day of it is 86,400 stand-ins instead of
 * 2,880).
 */
static bool dense(const struct vec *raw)
{
	if (raw->n < 8)
		return false;
	int64_t lo = raw->t[0], hi = raw->t[0];
	for (size_t k = 1; k < raw->n; k++) { /* not sorted yet: head and chunks */
		lo = raw->t[k] < lo ? raw->t[k] : lo;
		hi = raw->t[k] > hi ? raw->t[k] : hi;
	}
	uint64_t minutes = (uint64_t)(hi - lo) / GW_ROLLUP_MINUTE_MS + 1;
	return raw->n > 4 * minutes;
}

static int bucket_cmp(const void *a, const void *b)
{
	const struct gw_bucket *x = a, *y = b;
	return (x->first_t > y->first_t) - (x->first_t < y->first_t);
}

static int tsdb_select_tier(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
			    int64_t res, int agg, struct gw_arena *arena, struct gw_series_set *out,
			    struct gw_err *err)
{
	const struct ts_qctx *qc = ctx;
	struct gw_tsdb *db = qc->db;
	size_t *refs = NULL, nc = 0;
	out->s = NULL;
	out->n = 0;
	if (res <= 0 || res % GW_ROLLUP_MINUTE_MS != 0 || agg < GW_AGG_LAST || agg > GW_AGG_COUNT)
		return gw_err_set(err, GW_EINVAL, "tier resolution must be a multiple of a minute");
	if (candidates(db, m, nm, &refs, &nc) != 0)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct ts_reader r;
	struct vec h = {0}, raw = {0};
	struct bvec x = {0};
	struct hcopy *hc = calloc(nc ? nc : 1, sizeof(*hc));
	int rc = hc ? 0 : GW_ENOMEM;
	ts_qr_init(&r, qc);
	for (size_t i = 0; i < nc && !rc; i++) {
		hc[i].off = h.n;
		rc = read_head(ts_get(db, refs[i]), mint, maxt, &h, &hc[i].first, &hc[i].id);
		hc[i].n = h.n - hc[i].off;
	}
	out->s = rc ? NULL : gw_arena_alloc(arena, (nc ? nc : 1) * sizeof(*out->s));
	if (!rc && !out->s)
		rc = gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
	for (size_t i = 0; i < nc && !rc; i++) {
		struct ts_series *s = ts_get(db, refs[i]);
		bool rolled = false;
		x.n = 0;
		raw.n = 0;
		if (hc[i].id && mint < hc[i].first)
			rc = read_disk_tier(&r, hc[i].id, mint, maxt, hc[i].first, &x, &raw, &rolled, err);
		ts_tell(&r, s);
		if (!rc && hc[i].n && keep_samples(h.t + hc[i].off, h.v + hc[i].off, hc[i].n, mint, maxt, INT64_MAX,
						   &raw))
			rc = GW_ENOMEM;
		if (rc)
			continue;
		if (!rolled && !dense(&raw)) {
			/* Nothing stored as buckets (a sparse series, or the head):
			 * the samples are their own stand-ins, which folding them
			 * into buckets first would only copy. */
			rc = raw_stand_ins(&raw, agg, arena, &out->s[out->n], err);
			if (!rc && out->s[out->n].n) {
				out->s[out->n].labels = (struct gw_labels){s->labels, s->nlabels};
				out->n++;
			}
			continue;
		}
		if (raw.n) { /* the chunks without buckets and the head, folded into minutes */
			rc = normalise(&raw) || bvec_reserve(&x, raw.n) ? GW_ENOMEM : 0;
			if (!rc)
				x.n += gw_rollup_build(raw.t, raw.v, raw.n, GW_ROLLUP_MINUTE_MS, x.b + x.n);
		}
		if (rc || x.n == 0)
			continue;
		for (size_t k = 1; k < x.n; k++)
			if (x.b[k].first_t < x.b[k - 1].first_t) {
				qsort(x.b, x.n, sizeof(*x.b), bucket_cmp);
				break;
			}
		size_t nb = gw_rollup_merge(x.b, x.n, res);
		int64_t *t = gw_arena_alloc_uninit(arena, 2 * nb * sizeof(*t));
		double *v = t ? gw_arena_alloc_uninit(arena, 2 * nb * sizeof(*v)) : NULL;
		if (!v) {
			rc = gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
			break;
		}
		size_t n = 0;
		for (size_t k = 0; k < nb; k++) {
			int64_t et[2];
			double evv[2];
			size_t e = gw_rollup_emit(&x.b[k], (enum gw_rollup_agg)agg, et, evv);
			for (size_t j = 0; j < e; j++)
				if (et[j] >= mint && et[j] <= maxt && (n == 0 || et[j] > t[n - 1])) {
					t[n] = et[j];
					v[n++] = evv[j];
				}
		}
		if (n == 0)
			continue;
		out->s[out->n++] = (struct gw_series){.labels = {s->labels, s->nlabels}, .t = t, .v = v, .n = n};
	}
	if (rc == GW_ENOMEM && (!err || !err->msg[0]))
		gw_err_set(err, rc, "out of memory");
	ts_qr_close(&r);
	free(hc);
	free(x.b);
	free(h.t);
	free(h.v);
	free(raw.t);
	free(raw.v);
	free(refs);
	return rc;
}

static bool head_has(struct ts_series *s, int64_t mint, int64_t maxt, int64_t *id)
{
	pthread_mutex_lock(&s->mu);
	size_t a = lower_bound(s->t, s->n, mint);
	bool yes = (a < s->n && s->t[a] <= maxt) || (s->nenc && s->enc_first <= maxt && s->enc_last >= mint);
	*id = s->id;
	pthread_mutex_unlock(&s->mu);
	return yes;
}

/* Series with a sample in [mint, maxt], labels only; *refs is malloc'd. */
static int list_series(const struct ts_qctx *qc, const struct gw_matcher *m, size_t nm, int64_t mint,
		       int64_t maxt, size_t **refs, size_t *n, struct gw_err *err)
{
	struct gw_tsdb *db = qc->db;
	size_t nc = 0;
	if (candidates(db, m, nm, refs, &nc) != 0)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct ts_reader r;
	int rc = 0;
	size_t k = 0;
	ts_qr_init(&r, qc);
	int64_t *ids = malloc((nc ? nc : 1) * sizeof(*ids));
	if (!ids)
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	/* All heads before the snapshot, as in select(); id -1: in the head. */
	for (size_t i = 0; i < nc && !rc; i++)
		if (head_has(ts_get(db, (*refs)[i]), mint, maxt, &ids[i]))
			ids[i] = -1;
	for (size_t i = 0; i < nc && !rc; i++) {
		bool yes = ids[i] == -1;
		if (!yes && ids[i] && (rc = ts_qr_open(&r, err)) == 0) {
			sqlite3_bind_int64(r.any, 1, ids[i]);
			sqlite3_bind_int64(r.any, 2, mint);
			sqlite3_bind_int64(r.any, 3, maxt);
			int sr = sqlite3_step(r.any);
			yes = sr == SQLITE_ROW;
			if (sr != SQLITE_ROW && sr != SQLITE_DONE)
				rc = ts_read_failed(&r, sr, "list series", err);
			sqlite3_reset(r.any);
			ts_tell(&r, ts_get(db, (*refs)[i]));
		}
		if (yes)
			(*refs)[k++] = (*refs)[i];
	}
	free(ids);
	ts_qr_close(&r);
	*n = k;
	return rc;
}

static int tsdb_series(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
		       struct gw_arena *arena, struct gw_series_set *out, struct gw_err *err)
{
	const struct ts_qctx *qc = ctx;
	struct gw_tsdb *db = qc->db;
	size_t *refs = NULL, n = 0;
	out->s = NULL;
	out->n = 0;
	int rc = list_series(qc, m, nm, mint, maxt, &refs, &n, err);
	if (!rc) {
		out->s = gw_arena_alloc(arena, (n ? n : 1) * sizeof(*out->s));
		if (!out->s)
			rc = gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct ts_series *s = ts_get(db, refs[i]);
		out->s[out->n++] = (struct gw_series){.labels = {s->labels, s->nlabels}};
	}
	free(refs);
	return rc;
}

static int tsdb_with_warnings(void *ctx, struct gw_warnings *w, struct gw_arena *arena, struct gw_querier *out)
{
	const struct ts_qctx *qc = ctx;
	struct ts_qctx *c = gw_arena_alloc(arena, sizeof(*c));
	if (!c)
		return arena->err ? arena->err : GW_ENOMEM;
	*c = (struct ts_qctx){qc->db, w};
	*out = gw_tsdb_querier(qc->db);
	out->ctx = c;
	return 0;
}

struct gw_querier gw_tsdb_querier(struct gw_tsdb *db)
{
	struct gw_querier q = {&db->qctx, tsdb_select, tsdb_series, tsdb_select_tier, tsdb_with_warnings};
	return q;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* name == NULL: label names; else the values of that label. */
static int collect(struct gw_tsdb *db, const char *name, const struct gw_matcher *m, size_t nm, int64_t mint,
		   int64_t maxt, struct gw_arena *arena, const char ***out, size_t *n, struct gw_err *err)
{
	size_t *refs = NULL, ns = 0, total = 0, k = 0;
	*out = NULL;
	*n = 0;
	int rc = list_series(&db->qctx, m, nm, mint, maxt, &refs, &ns, err);
	for (size_t i = 0; i < ns && !rc; i++)
		total += name ? 1 : ts_get(db, refs[i])->nlabels;
	const char **v = rc ? NULL : malloc((total ? total : 1) * sizeof(*v));
	if (!rc && !v)
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < ns && !rc; i++) {
		const struct ts_series *s = ts_get(db, refs[i]);
		for (size_t j = 0; j < s->nlabels; j++) {
			if (!name)
				v[k++] = s->labels[j].name;
			else if (strcmp(s->labels[j].name, name) == 0 && s->labels[j].value[0])
				v[k++] = s->labels[j].value;
		}
	}
	free(refs);
	if (rc) {
		free(v);
		return rc;
	}
	qsort(v, k, sizeof(*v), str_cmp);
	const char **a = gw_arena_alloc(arena, (k ? k : 1) * sizeof(*a));
	if (!a) {
		free(v);
		return gw_err_set(err, arena->err ? arena->err : GW_ENOMEM, "query too large");
	}
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || strcmp(a[u - 1], v[i]) != 0)
			a[u++] = v[i];
	free(v);
	*out = a;
	*n = u;
	return 0;
}

int gw_tsdb_label_names(struct gw_tsdb *db, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
			struct gw_arena *arena, const char ***names, size_t *n, struct gw_err *err)
{
	return collect(db, NULL, m, nm, mint, maxt, arena, names, n, err);
}

int gw_tsdb_label_values(struct gw_tsdb *db, const char *name, const struct gw_matcher *m, size_t nm,
			 int64_t mint, int64_t maxt, struct gw_arena *arena, const char ***values, size_t *n,
			 struct gw_err *err)
{
	return collect(db, name, m, nm, mint, maxt, arena, values, n, err);
}
