/*
 * tsdb_head.c - the compressed part of a series' head (see struct
 * ts_series in tsdb_int.h): the pieces of the open chunk already flushed as
 * partial rows, kept in memory in the codec's form. All under s->mu.
 */
#include "store/bits.h"
#include "store/codec.h"
#include "store/tsdb_int.h"

#include <stdlib.h>
#include <string.h>

int ts_enc_reserve(struct ts_series *s, size_t len)
{
	return gw_buf_reserve(&s->enc, len + 10);
}

int ts_enc_put(struct ts_series *s, const char *piece, size_t len, size_t count, int64_t mint, int64_t maxt)
{
	int rc = gw_varint_put(&s->enc, len);
	rc = rc ? rc : gw_buf_append(&s->enc, piece, len);
	if (rc)
		return rc;
	if (!s->nenc)
		s->enc_first = mint;
	s->enc_last = maxt;
	s->nenc += count;
	s->npieces++;
	return 0;
}

#define COMPACT_PIECES 8

void ts_enc_compact(struct ts_series *s)
{
	if (s->npieces < COMPACT_PIECES || s->nenc > GW_CHUNK_MAX_SAMPLES)
		return;
	int64_t *t = malloc(s->nenc * sizeof(*t));
	double *v = t ? malloc(s->nenc * sizeof(*v)) : NULL;
	struct gw_buf c, b;
	gw_buf_init(&c, TS_ENC_LIMIT);
	gw_buf_init(&b, TS_ENC_LIMIT);
	size_t n = 0;
	if (v && ts_enc_decode(s, t, v, s->nenc, &n) == 0 && gw_chunk_encode(t, v, n, &c) == 0 &&
	    gw_varint_put(&b, c.len) == 0 && gw_buf_append(&b, c.data, c.len) == 0) {
		struct gw_buf old = s->enc;
		s->enc = b;
		b = old; /* released below */
		s->npieces = 1;
	}
	gw_buf_release(&c);
	gw_buf_release(&b);
	free(t);
	free(v);
}

int ts_enc_decode(const struct ts_series *s, int64_t *t, double *v, size_t cap, size_t *n)
{
	const uint8_t *p = (const uint8_t *)s->enc.data;
	size_t off = 0, got = 0;
	*n = 0;
	while (off < s->enc.len) {
		uint64_t len;
		if (gw_varint_get(p, s->enc.len, &off, &len) || len > s->enc.len - off)
			return GW_EPARSE;
		size_t k;
		int rc = gw_chunk_decode(p + off, (size_t)len, t + got, v + got, cap - got, &k);
		if (rc)
			return rc;
		got += k;
		off += (size_t)len;
	}
	if (got != s->nenc)
		return GW_EPARSE;
	*n = got;
	return 0;
}

int ts_enc_absorb_tail(struct ts_series *s)
{
	struct gw_buf b;
	gw_buf_init(&b, TS_ENC_LIMIT);
	size_t i = 0; /* samples absorbed */
	int rc = 0;
	while (i < s->n && !rc) {
		size_t k = s->n - i < GW_CHUNK_MAX_SAMPLES ? s->n - i : GW_CHUNK_MAX_SAMPLES;
		gw_buf_reset(&b);
		rc = gw_chunk_encode(s->t + i, s->v + i, k, &b);
		rc = rc ? rc : ts_enc_reserve(s, b.len);
		rc = rc ? rc : ts_enc_put(s, b.data, b.len, k, s->t[i], s->t[i + k - 1]);
		if (!rc)
			i += k;
	}
	gw_buf_release(&b);
	if (i && i < s->n) {
		memmove(s->t, s->t + i, (s->n - i) * sizeof(*s->t));
		memmove(s->v, s->v + i, (s->n - i) * sizeof(*s->v));
	}
	s->n -= i;
	return rc;
}
