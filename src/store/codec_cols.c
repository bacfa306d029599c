/*
 * codec_cols.c - several value columns on one time axis in one chunk
 * (mode GW_CHUNK_COLUMNS): the minute tier's buckets, whose seven numbers
 * each had a chunk of their own, each with a header, a copy of the time
 * stamps and a CRC, ~150 bytes a row before any value.
 *
 * Layout: magic | mode | varint n | varint zigzag t0 | [varint zigzag first
 * delta] | varint ncols | per column a mode header (0xFF and XOR's 8-byte
 * first value; 0xFE and the index of an earlier column whose values it
 * repeats bit for bit, with no values of its own; or a decimal plan as in
 * GW_CHUNK_DECIMAL_ADAPT) | bit stream: time stamps, then each column's
 * values | CRC-32. (A bucket of a value that sits still has first = last =
 * min = max.)
 */
#include "core/err.h"
#include "store/codec.h"
#include "store/codec_int.h"

#include <stdlib.h>
#include <string.h>

#define COL_XOR 0xFF
#define COL_SAME 0xFE

struct col {
	int same; /* >= 0: the earlier column this one repeats */
	bool xor;
	struct codec_values vals; /* decimal: the planner's scratch */
	struct codec_plan plan;
};

/* XOR's size in bits, written to a scratch buffer. */
static int xor_bits(const double *v, size_t n, uint64_t *bits)
{
	struct gw_buf b;
	gw_buf_init(&b, 16 * n + 64);
	struct gw_bitw w;
	gw_bitw_init(&w, &b);
	codec_xor_encode(&w, v, n);
	int rc = gw_bitw_flush(&w);
	*bits = 8 * (uint64_t)b.len;
	gw_buf_release(&b);
	return rc;
}

static bool same_bits(const double *a, const double *b, size_t n)
{
	return memcmp(a, b, n * sizeof(*a)) == 0;
}

static int col_plan(struct col *c, const double *const *cols, size_t k, size_t n)
{
	const double *v = cols[k];
	c->same = -1;
	c->vals = (struct codec_values){0};
	for (size_t j = 0; j < k; j++) {
		if (same_bits(cols[j], v, n)) {
			c->same = (int)j;
			return 0;
		}
	}
	int scale = codec_pick_scale(v, n);
	c->xor = scale < 0;
	if (c->xor)
		return 0;
	uint64_t bits, xbits;
	int rc = codec_rice_plan(&c->vals, v, n, (unsigned int)scale, &c->plan, &bits);
	/* As in gw_chunk_encode: XOR can win only on long decimals. */
	if (!rc && bits > 24 * (uint64_t)n && (rc = xor_bits(v, n, &xbits)) == 0 && xbits < bits)
		c->xor = true;
	return rc;
}

int gw_chunk_encode_cols(const int64_t *t, const double *const *cols, size_t ncols, size_t n, struct gw_buf *out)
{
	if (n == 0 || n > GW_CHUNK_MAX_SAMPLES || ncols == 0 || ncols > GW_CHUNK_MAX_COLS)
		return GW_EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return GW_EINVAL;
	struct col c[GW_CHUNK_MAX_COLS];
	size_t planned = 0;
	int rc = 0;
	for (; planned < ncols && !rc; planned++)
		rc = col_plan(&c[planned], cols, planned, n);
	size_t start = out->len;
	uint8_t head[2] = {GW_CHUNK_MAGIC, GW_CHUNK_COLUMNS};
	rc = rc ? rc : gw_buf_append(out, head, 2);
	rc = rc ? rc : gw_varint_put(out, n);
	rc = rc ? rc : gw_varint_put(out, gw_zigzag(t[0]));
	if (n > 1)
		rc = rc ? rc : gw_varint_put(out, gw_zigzag(t[1] - t[0]));
	rc = rc ? rc : gw_varint_put(out, ncols);
	for (size_t k = 0; k < ncols && !rc; k++) {
		if (c[k].same >= 0) {
			uint8_t x[2] = {COL_SAME, (uint8_t)c[k].same};
			rc = gw_buf_append(out, x, 2);
		} else if (c[k].xor) {
			uint8_t x = COL_XOR;
			rc = gw_buf_append(out, &x, 1);
			rc = rc ? rc : codec_first_put(out, cols[k][0]);
		} else {
			rc = codec_plan_put(out, &c[k].plan);
		}
	}
	if (!rc) {
		struct gw_bitw w;
		gw_bitw_init(&w, out);
		codec_times_encode(&w, t, n);
		for (size_t k = 0; k < ncols; k++) {
			if (c[k].same >= 0)
				continue;
			if (c[k].xor)
				codec_xor_encode(&w, cols[k], n);
			else
				codec_rice_encode(&w, &c[k].vals, &c[k].plan);
		}
		rc = gw_bitw_flush(&w);
	}
	for (size_t k = 0; k < planned; k++)
		codec_rice_release(&c[k].vals);
	if (rc)
		return rc;
	return codec_crc_put(out, start);
}

int gw_chunk_decode_cols(const uint8_t *p, size_t len, int64_t *t, double *const *cols, size_t ncols, size_t cap,
			 size_t *n)
{
	*n = 0;
	if (len < 2 + 4 || p[0] != GW_CHUNK_MAGIC || p[1] != GW_CHUNK_COLUMNS || ncols > GW_CHUNK_MAX_COLS)
		return GW_EPARSE;
	if (!codec_crc_ok(p, len))
		return GW_EPARSE;
	size_t off = 2, end = len - 4;
	uint64_t count, u, nc;
	if (gw_varint_get(p, end, &off, &count) || count == 0 || count > GW_CHUNK_MAX_SAMPLES ||
	    gw_varint_get(p, end, &off, &u))
		return GW_EPARSE;
	t[0] = gw_unzigzag(u);
	if (count > cap)
		return GW_EOVERFLOW;
	if (count > 1) {
		if (gw_varint_get(p, end, &off, &u))
			return GW_EPARSE;
		t[1] = (int64_t)((uint64_t)t[0] + (uint64_t)gw_unzigzag(u));
	}
	if (gw_varint_get(p, end, &off, &nc) || nc != ncols)
		return GW_EPARSE;
	struct col c[GW_CHUNK_MAX_COLS];
	uint64_t first[GW_CHUNK_MAX_COLS];
	for (size_t k = 0; k < ncols; k++) {
		c[k].same = -1;
		c[k].xor = off < end && p[off] == COL_XOR;
		if (off + 1 < end && p[off] == COL_SAME) {
			if (p[off + 1] >= k)
				return GW_EPARSE; /* only an earlier column */
			c[k].same = p[off + 1];
			off += 2;
		} else if (c[k].xor ? (off++, codec_first_get(p, end, &off, &first[k]))
				    : codec_plan_get(p, end, &off, &c[k].plan)) {
			return GW_EPARSE;
		}
	}
	struct gw_bitr r;
	gw_bitr_init(&r, p + off, end - off);
	codec_times_decode(&r, t, count);
	for (size_t k = 0; k < ncols && !r.overrun; k++) {
		if (c[k].same >= 0)
			memcpy(cols[k], cols[c[k].same], count * sizeof(*cols[k]));
		else if (c[k].xor)
			codec_xor_decode(&r, cols[k], count, first[k]);
		else
			codec_rice_decode(&r, cols[k], count, &c[k].plan);
	}
	if (r.overrun)
		return GW_EPARSE;
	*n = count;
	return 0;
}
