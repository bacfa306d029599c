/*
 * codec.h - compression of one series chunk: time stamps and values.
 *
 * A chunk holds up to GW_CHUNK_MAX_SAMPLES samples of one series, sorted by
 * time. Time stamps (ms) are coded as delta-of-delta. Values are coded in
 * one of two ways, whichever gives the smaller chunk:
 *
 *   decimal  every value equals x / 10^k for an integer x (GPU metrics are
 *            mostly such: °C, %, MHz, MiB, mW). x is reduced to
 *            y = (x - base) / step (step: the gcd of the chunk's
 *            differences), y is predicted (previous value, linear from the
 *            last two, mean of the last two, or the chunk's median: the
 *            smallest result wins) and the residual is written in an
 *            adaptive Rice code (codec_rice.c), so noise costs about its
 *            entropy. Values that do not fit (NaN, the staleness marker,
 *            ±Inf, an odd float) are stored raw, bit for bit, without
 *            breaking the chain.
 *   xor      Gorilla-style XOR against the previous value, for the rest.
 *
 * Zero symbols (a time stamp on schedule, a value as predicted) can be
 * run-length coded: a run costs an Elias gamma code of its length, so a
 * fixed-rate sampler and a value that sits still cost almost nothing —
 * most GPU series do both most of the time.
 *
 * Every double round-trips exactly, NaN payloads included. The chunk ends
 * with a CRC-32 of all its bytes, checked on decode: a corrupt or truncated
 * chunk decodes to GW_EPARSE, never to garbage or a crash.
 *
 * Layout: magic (0xC7) | mode | varint n | varint zigzag t0 | [varint zigzag
 * first delta] | mode header | bit stream (time stamps, then values) |
 * 4-byte CRC-32 (little-endian). Mode headers: GW_CHUNK_DECIMAL_ADAPT: a
 * byte scale | predictor << 4 | runs << 6, a byte with the first Rice
 * parameter, varint step, varint zigzag base; XOR: the 8-byte first value.
 * Modes 0 and 1 (format 1: one code per sample) and 2 (format 2: fixed
 * prefix codes) are still decoded, no longer written.
 *
 * Threading: pure functions.
 */
#ifndef GW_STORE_CODEC_H
#define GW_STORE_CODEC_H

#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>

#define GW_CHUNK_MAX_SAMPLES 4096
#define GW_CHUNK_MAGIC 0xC7

/* 0 and 1: format 1 (one code per sample), still read; 2 and 3: what is written now. */
enum gw_chunk_mode {
	GW_CHUNK_DECIMAL = 0,
	GW_CHUNK_XOR = 1,
	GW_CHUNK_DECIMAL_RLE = 2,
	GW_CHUNK_XOR_RLE = 3,
	GW_CHUNK_DECIMAL_ADAPT = 4,
	GW_CHUNK_COLUMNS = 5, /* several value columns, one time axis (codec_cols.c) */
};

#define GW_CHUNK_MAX_COLS 8

/* Append the encoding of n samples (t ascending) to out. */
int gw_chunk_encode(const int64_t *t, const double *v, size_t n, struct gw_buf *out);

/*
 * Decode a chunk into t[] and v[] of capacity cap; *n gets the count.
 * Returns 0, or GW_EPARSE (corrupt, truncated, checksum mismatch) or
 * GW_EOVERFLOW (more samples than cap).
 */
int gw_chunk_decode(const uint8_t *data, size_t len, int64_t *t, double *v, size_t cap, size_t *n);

/*
 * ncols value columns (cols[k][0..n)) on one time axis in one chunk, each
 * column coded as a chunk's values are; decoded into cols[k] of capacity
 * cap, ncols as written. Same errors as gw_chunk_encode/gw_chunk_decode.
 */
int gw_chunk_encode_cols(const int64_t *t, const double *const *cols, size_t ncols, size_t n, struct gw_buf *out);
int gw_chunk_decode_cols(const uint8_t *data, size_t len, int64_t *t, double *const *cols, size_t ncols, size_t cap,
			 size_t *n);

/* The first time stamp, from the header without decoding; 0 or GW_EPARSE. */
int gw_chunk_first(const uint8_t *data, size_t len, int64_t *t0);
/* Sample count from the header without decoding, or a negative GW_E* code. */
long gw_chunk_count(const uint8_t *data, size_t len);

#endif
