/*
 * bits.h - MSB-first bit writer and reader for the chunk codec.
 *
 * The writer appends into a capped gw_buf; the reader walks a borrowed byte
 * range and reports running off its end instead of reading past it, so a
 * truncated or corrupt chunk decodes to an error, never to a crash.
 * Threading: none.
 */
#ifndef GW_STORE_BITS_H
#define GW_STORE_BITS_H

#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct gw_bitw {
	struct gw_buf *out;
	uint64_t acc;      /* pending bits, right-aligned */
	unsigned int nacc; /* how many, < 8 after each write */
	int err;
};

void gw_bitw_init(struct gw_bitw *w, struct gw_buf *out);
void gw_bitw_put(struct gw_bitw *w, uint64_t bits, unsigned int n); /* n <= 64 */
int gw_bitw_flush(struct gw_bitw *w);                                 /* pad to a byte */

struct gw_bitr {
	const uint8_t *p;
	size_t len;  /* bytes */
	size_t pos;  /* bits consumed */
	bool overrun;
};

void gw_bitr_init(struct gw_bitr *r, const uint8_t *p, size_t len);

/* The 64 bits from r->pos on, MSB first; zeros past the end. For decoders' fast paths. */
static inline uint64_t gw_bitr_window(const struct gw_bitr *r)
{
	size_t byte = r->pos >> 3;
	uint64_t w = 0;
	if (byte + 8 <= r->len) {
		memcpy(&w, r->p + byte, 8);
		w = __builtin_bswap64(w);
	} else {
		for (size_t i = 0; byte + i < r->len; i++)
			w |= (uint64_t)r->p[byte + i] << (56 - 8 * i);
	}
	return w << (r->pos & 7);
}

/* Bits left to read. */
static inline size_t gw_bitr_left(const struct gw_bitr *r)
{
	return r->overrun ? 0 : r->len * 8 - r->pos;
}
uint64_t gw_bitr_get(struct gw_bitr *r, unsigned int n); /* n <= 64; 0 and overrun past the end */
/* Count leading 1 bits up to max, consuming them and the terminating 0 (if < max). */
unsigned int gw_bitr_ones(struct gw_bitr *r, unsigned int max);

/* Elias gamma code of x >= 1: (bit length - 1) zeros, then x. */
void gw_bitw_gamma(struct gw_bitw *w, uint64_t x);
/* Reads one; a run of more than 62 zeros is corrupt (overrun set, 1 returned). */
uint64_t gw_bitr_gamma(struct gw_bitr *r);

/* LEB128 varints for chunk headers. */
int gw_varint_put(struct gw_buf *b, uint64_t v);
int gw_varint_get(const uint8_t *p, size_t len, size_t *off, uint64_t *v);

static inline uint64_t gw_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t gw_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
