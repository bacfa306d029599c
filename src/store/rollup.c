#include "store/rollup.h"

#include "core/err.h"
#include "model/storage.h"
#include "store/bits.h"
#include "store/codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t gw_rollup_index(int64_t t, int64_t res)
{
	int64_t q = t / res;
	return q - (t % res < 0);
}

/* Prometheus' min/max_over_time: a NaN gives way to any number. */
static double pmin(double a, double b)
{
	return (b < a || isnan(a)) ? b : a;
}

static double pmax(double a, double b)
{
	return (b > a || isnan(a)) ? b : a;
}

static inline void rest_add(struct gw_bucket *b, double v)
{
	if (gw_is_stale_nan(v))
		return;
	if (!b->count) {
		b->min = b->max = b->sum = v;
	} else {
		b->min = pmin(b->min, v);
		b->max = pmax(b->max, v);
		b->sum += v;
	}
	b->count++;
}

/* Fold bucket y (later in time) into x. */
static void bucket_join(struct gw_bucket *x, const struct gw_bucket *y)
{
	rest_add(x, y->first);
	if (y->count) {
		if (!x->count) {
			x->min = y->min;
			x->max = y->max;
			x->sum = y->sum;
		} else {
			x->min = pmin(x->min, y->min);
			x->max = pmax(x->max, y->max);
			x->sum += y->sum;
		}
		x->count += y->count;
	}
	x->last_t = y->last_t;
	x->last = y->last;
}

size_t gw_rollup_build(const int64_t *t, const double *v, size_t n, int64_t res, struct gw_bucket *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		int64_t lo, hi; /* the bucket's [lo, hi): no division a sample */
		if (__builtin_mul_overflow(gw_rollup_index(t[i], res), res, &lo))
			lo = INT64_MIN;
		if (__builtin_add_overflow(lo, res, &hi))
			hi = INT64_MAX;
		/* The rest's aggregates in registers: through the struct, each
		 * sample waited on the last one's stores. */
		double mn = NAN, mx = NAN, sum = NAN;
		uint64_t count = 0;
		size_t j = i + 1;
		for (; j < n && t[j] >= lo && t[j] < hi; j++) {
			double x = v[j];
			if (gw_is_stale_nan(x))
				continue;
			if (count) {
				mn = pmin(mn, x);
				mx = pmax(mx, x);
				sum += x;
			} else {
				mn = mx = sum = x;
			}
			count++;
		}
		out[k++] = (struct gw_bucket){.first_t = t[i], .last_t = t[j - 1], .first = v[i], .last = v[j - 1],
					      .min = mn, .max = mx, .sum = sum, .count = count};
		i = j;
	}
	return k;
}

size_t gw_rollup_merge(struct gw_bucket *b, size_t n, int64_t res)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && gw_rollup_index(b[k - 1].first_t, res) == gw_rollup_index(b[i].first_t, res))
			bucket_join(&b[k - 1], &b[i]);
		else
			b[k++] = b[i];
	}
	return k;
}

size_t gw_rollup_emit(const struct gw_bucket *b, enum gw_rollup_agg agg, int64_t *t, double *v)
{
	size_t k = 0;
	if (agg == GW_AGG_LAST) {
		t[k] = b->first_t;
		v[k++] = b->first;
		if (b->last_t != b->first_t) {
			t[k] = b->last_t;
			v[k++] = b->last;
		}
		return k;
	}
	if (!gw_is_stale_nan(b->first)) {
		t[k] = b->first_t;
		v[k++] = agg == GW_AGG_COUNT ? 1 : b->first;
	}
	if (b->count) {
		t[k] = b->last_t;
		v[k++] = agg == GW_AGG_MIN ? b->min : agg == GW_AGG_MAX ? b->max : agg == GW_AGG_SUM ? b->sum
												: (double)b->count;
	}
	return k;
}

/*
 * Layout: a 0 byte, then one column chunk (codec.h, GW_CHUNK_COLUMNS) on
 * the buckets' first time stamps: last_t - first_t, first, last, min, max,
 * sum, count. One header and CRC instead of six: ~150 bytes less a row.
 *
 * The first layout (still read, never written) had no 0 byte (it began with
 * varint n >= 1), then six codec chunks, each a varint length and the chunk:
 * (first_t, first), (last_t, last), then (last_t, x) for x = min, max, sum,
 * count; their CRCs covered every byte but the lengths, which are
 * bounds-checked.
 */
#define STREAMS 6
#define COLS 7

int gw_rollup_encode(const struct gw_bucket *b, size_t n, struct gw_buf *out)
{
	if (n == 0 || n > GW_CHUNK_MAX_SAMPLES)
		return GW_EINVAL;
	int64_t *t = malloc(n * sizeof(*t));
	double *v = t ? malloc(COLS * n * sizeof(*v)) : NULL;
	if (!v) {
		free(t);
		return GW_ENOMEM;
	}
	const double *cols[COLS];
	for (size_t k = 0; k < COLS; k++)
		cols[k] = v + k * n;
	for (size_t i = 0; i < n; i++) {
		t[i] = b[i].first_t;
		v[i] = (double)(b[i].last_t - b[i].first_t);
		v[n + i] = b[i].first;
		v[2 * n + i] = b[i].last;
		v[3 * n + i] = b[i].min;
		v[4 * n + i] = b[i].max;
		v[5 * n + i] = b[i].sum;
		v[6 * n + i] = (double)b[i].count;
	}
	uint8_t zero = 0;
	int rc = gw_buf_append(out, &zero, 1);
	rc = rc ? rc : gw_chunk_encode_cols(t, cols, COLS, n, out);
	free(t);
	free(v);
	return rc;
}

static int decode_cols(const uint8_t *data, size_t len, struct gw_bucket *b, size_t cap, size_t *n)
{
	size_t off = 3; /* the 0 byte, the chunk's magic and mode */
	uint64_t count;
	if (gw_varint_get(data, len, &off, &count) || count == 0 || count > GW_CHUNK_MAX_SAMPLES)
		return GW_EPARSE;
	if (count > cap)
		return GW_EOVERFLOW;
	int64_t *t = malloc(count * sizeof(*t));
	double *v = t ? malloc(COLS * count * sizeof(*v)) : NULL;
	int rc = v ? 0 : GW_ENOMEM;
	double *cols[COLS];
	for (size_t k = 0; k < COLS && v; k++)
		cols[k] = v + k * count;
	size_t got = 0;
	rc = rc ? rc : gw_chunk_decode_cols(data + 1, len - 1, t, cols, COLS, count, &got);
	if (!rc && got != count)
		rc = GW_EPARSE;
	for (size_t i = 0; i < got && !rc; i++) {
		double dt = v[i], c = v[6 * count + i];
		if (!(dt >= 0 && dt <= 9e15 && dt == floor(dt)) || !(c >= 0 && c <= 1e15 && c == floor(c))) {
			rc = GW_EPARSE;
			break;
		}
		b[i] = (struct gw_bucket){.first_t = t[i], .last_t = t[i] + (int64_t)dt, .first = v[count + i],
					  .last = v[2 * count + i], .min = v[3 * count + i], .max = v[4 * count + i],
					  .sum = v[5 * count + i], .count = (uint64_t)c};
	}
	free(t);
	free(v);
	if (!rc)
		*n = count;
	return rc;
}

int gw_rollup_decode(const uint8_t *data, size_t len, struct gw_bucket *b, size_t cap, size_t *n)
{
	size_t off = 0;
	uint64_t count;
	*n = 0;
	if (len > 0 && data[0] == 0)
		return decode_cols(data, len, b, cap, n);
	if (gw_varint_get(data, len, &off, &count) || count == 0 || count > GW_CHUNK_MAX_SAMPLES)
		return GW_EPARSE;
	if (count > cap)
		return GW_EOVERFLOW;
	int64_t *t = malloc(count * sizeof(*t));
	double *v = t ? malloc(count * sizeof(*v)) : NULL;
	int rc = v ? 0 : GW_ENOMEM;
	for (int s = 0; s < STREAMS && !rc; s++) {
		uint64_t clen;
		size_t got = 0;
		if (gw_varint_get(data, len, &off, &clen) || clen > len - off) {
			rc = GW_EPARSE;
			break;
		}
		rc = gw_chunk_decode(data + off, (size_t)clen, t, v, count, &got);
		if (!rc && got != count)
			rc = GW_EPARSE;
		off += (size_t)clen;
		for (size_t i = 0; i < got && !rc; i++) {
			struct gw_bucket *x = &b[i];
			if (s == 0) {
				x->first_t = t[i];
				x->first = v[i];
				continue;
			}
			if (s == 1) {
				if (t[i] < x->first_t)
					rc = GW_EPARSE;
				x->last_t = t[i];
				x->last = v[i];
				continue;
			}
			if (t[i] != x->last_t)
				rc = GW_EPARSE;
			else if (s == 2)
				x->min = v[i];
			else if (s == 3)
				x->max = v[i];
			else if (s == 4)
				x->sum = v[i];
			else if (!(v[i] >= 0 && v[i] <= 1e15))
				rc = GW_EPARSE;
			else
				x->count = (uint64_t)v[i];
		}
	}
	if (!rc && off != len)
		rc = GW_EPARSE;
	free(t);
	free(v);
	if (!rc)
		*n = count;
	return rc;
}
