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

/* t/v (n samples) as pieces of TS_PIECE samples appended to out; the piece count. */
static int encode_pieces(const int64_t *t, const double *v, size_t n, struct gw_buf *out, size_t *pieces)
{
	struct gw_buf c;
	gw_buf_init(&c, TS_ENC_LIMIT);
	int rc = 0;
	*pieces = 0;
	for (size_t i = 0; i < n && !rc; i += TS_PIECE) {
		size_t k = n - i < TS_PIECE ? n - i : TS_PIECE;
		gw_buf_reset(&c);
		rc = gw_chunk_encode(t + i, v + i, k, &c);
		rc = rc ? rc : gw_varint_put(out, c.len);
		rc = rc ? rc : gw_buf_append(out, c.data, c.len);
		if (!rc)
			(*pieces)++;
	}
	gw_buf_release(&c);
	return rc;
}

/*
 * Re-cut the pieces after the leading full ones (TS_PIECE samples each,
 * kept byte for byte) into TS_PIECE pieces: the cost follows the pieces
 * added since the last compaction, not the open chunk's length (up to 4096
 * samples for a series that sits still).
 */
void ts_enc_compact(struct ts_series *s)
{
	if (s->npieces - s->nfull < COMPACT_PIECES || s->nenc > GW_CHUNK_MAX_SAMPLES)
		return;
	const uint8_t *p = (const uint8_t *)s->enc.data;
	size_t off = 0, keep = 0, kept = 0; /* bytes and samples of the full pieces kept */
	for (size_t i = 0; i < s->nfull; i++) {
		uint64_t len;
		if (gw_varint_get(p, s->enc.len, &off, &len) || len > s->enc.len - off ||
		    gw_chunk_count(p + off, (size_t)len) != TS_PIECE)
			break;
		off += (size_t)len;
		keep = off;
		kept++;
	}
	size_t rest = s->nenc - kept * TS_PIECE;
	int64_t *t = malloc(rest * sizeof(*t));
	double *v = t ? malloc(rest * sizeof(*v)) : NULL;
	struct gw_buf b;
	gw_buf_init(&b, TS_ENC_LIMIT);
	size_t n = 0, pieces = 0;
	int rc = v ? 0 : GW_ENOMEM;
	for (off = keep; !rc && off < s->enc.len;) {
		uint64_t len;
		size_t k = 0;
		if (gw_varint_get(p, s->enc.len, &off, &len) || len > s->enc.len - off)
			rc = GW_EPARSE;
		else
			rc = gw_chunk_decode(p + off, (size_t)len, t + n, v + n, rest - n, &k);
		off += (size_t)len;
		n += k;
	}
	size_t need = 0;
	if (!rc && n == rest && encode_pieces(t, v, n, &b, &pieces) == 0 &&
	    ((need = keep + b.len > s->enc.len ? keep + b.len - s->enc.len : 0) == 0 ||
	     gw_buf_reserve(&s->enc, need) == 0)) {
		s->enc.len = keep;
		gw_buf_append(&s->enc, b.data, b.len); /* room reserved: cannot fail */
		s->npieces = kept + pieces;
		s->nfull = kept + n / TS_PIECE;
	}
	gw_buf_release(&b);
	free(t);
	free(v);
}

int ts_enc_decode_from(const struct ts_series *s, int64_t mint, int64_t *t, double *v, size_t cap, size_t *n)
{
	const uint8_t *p = (const uint8_t *)s->enc.data;
	size_t off = 0, got = 0, skipped = 0;
	*n = 0;
	while (off < s->enc.len) {
		uint64_t len;
		if (gw_varint_get(p, s->enc.len, &off, &len) || len > s->enc.len - off)
			return GW_EPARSE;
		size_t next = off + (size_t)len;
		if (next < s->enc.len && mint != INT64_MIN) {
			/* All of this piece is before the next one's first time stamp:
			 * if that is not after mint, none of it is wanted. */
			size_t o2 = next;
			uint64_t len2;
			int64_t t2;
			long cnt;
			if (gw_varint_get(p, s->enc.len, &o2, &len2) == 0 && len2 <= s->enc.len - o2 &&
			    gw_chunk_first(p + o2, (size_t)len2, &t2) == 0 && t2 <= mint &&
			    (cnt = gw_chunk_count(p + off, (size_t)len)) > 0) {
				skipped += (size_t)cnt;
				off = next;
				continue;
			}
		}
		size_t k;
		int rc = gw_chunk_decode(p + off, (size_t)len, t + got, v + got, cap - got, &k);
		if (rc)
			return rc;
		got += k;
		off = next;
	}
	if (got + skipped != s->nenc)
		return GW_EPARSE;
	*n = got;
	return 0;
}

int ts_enc_decode(const struct ts_series *s, int64_t *t, double *v, size_t cap, size_t *n)
{
	return ts_enc_decode_from(s, INT64_MIN, t, v, cap, n);
}

int ts_enc_absorb_tail(struct ts_series *s)
{
	struct gw_buf b;
	gw_buf_init(&b, TS_ENC_LIMIT);
	size_t i = 0; /* samples absorbed */
	int rc = 0;
	while (i < s->n && !rc) {
		size_t k = s->n - i < TS_PIECE ? s->n - i : TS_PIECE;
		gw_buf_reset(&b);
		rc = gw_chunk_encode(s->t + i, s->v + i, k, &b);
		rc = rc ? rc : ts_enc_reserve(s, b.len);
		rc = rc ? rc : ts_enc_put(s, b.data, b.len, k, s->t[i], s->t[i + k - 1]);
		if (!rc)
			i += k;
	}
	gw_buf_release(&b);
	s->nfull = s->nenc / TS_PIECE; /* already in TS_PIECE pieces: no compaction due */
	if (i && i < s->n) {
		memmove(s->t, s->t + i, (s->n - i) * sizeof(*s->t));
		memmove(s->v, s->v + i, (s->n - i) * sizeof(*s->v));
	}
	s->n -= i;
	return rc;
}
