#include "store/bits.h"

#include "core/err.h"

#include <string.h>

void gw_bitw_init(struct gw_bitw *w, struct gw_buf *out)
{
	w->out = out;
	w->acc = 0;
	w->nacc = 0;
	w->err = 0;
}

void gw_bitw_put(struct gw_bitw *w, uint64_t bits, unsigned int n)
{
	if (n > 32) {
		/* Split so the accumulator (< 8 pending bits) never overflows. */
		gw_bitw_put(w, bits >> 32, n - 32);
		gw_bitw_put(w, bits & 0xffffffffu, 32);
		return;
	}
	if (n < 64)
		bits &= (1ULL << n) - 1;
	w->acc = (w->acc << n) | bits; /* < 8 pending + n <= 32: fits */
	w->nacc += n;
	if (w->nacc < 8)
		return;
	uint8_t tmp[5];
	unsigned int nb = w->nacc / 8;
	for (unsigned int i = 0; i < nb; i++)
		tmp[i] = (uint8_t)(w->acc >> (w->nacc - 8 * (i + 1)));
	if (w->err == 0)
		w->err = gw_buf_append(w->out, tmp, nb);
	w->nacc -= 8 * nb;
	w->acc &= (1ULL << w->nacc) - 1;
}

int gw_bitw_flush(struct gw_bitw *w)
{
	if (w->nacc)
		gw_bitw_put(w, 0, 8 - w->nacc);
	return w->err;
}

void gw_bitr_init(struct gw_bitr *r, const uint8_t *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->overrun = false;
}

uint64_t gw_bitr_get(struct gw_bitr *r, unsigned int n)
{
	if (n == 0)
		return 0;
	if (r->overrun || r->pos + n > r->len * 8) {
		r->overrun = true;
		return 0;
	}
	if (n > 57) { /* a window holds at least 57 bits past any position */
		uint64_t hi = gw_bitr_get(r, n - 32);
		return (hi << 32) | gw_bitr_get(r, 32);
	}
	uint64_t v = gw_bitr_window(r) >> (64 - n);
	r->pos += n;
	return v;
}

unsigned int gw_bitr_ones(struct gw_bitr *r, unsigned int max)
{
	unsigned int k = 0;
	while (k < max) {
		size_t left = r->overrun ? 0 : r->len * 8 - r->pos;
		if (!left) {
			r->overrun = true;
			return k;
		}
		uint64_t w = gw_bitr_window(r);
		unsigned int lim = left < 57 ? (unsigned int)left : 57;
		unsigned int ones = ~w ? (unsigned int)__builtin_clzll(~w) : 64;
		if (ones > lim)
			ones = lim;
		if (ones > max - k)
			ones = max - k;
		r->pos += ones;
		k += ones;
		if (k == max)
			return k;
		if (ones < lim) { /* the terminating 0 */
			r->pos++;
			return k;
		}
	}
	return k;
}

void gw_bitw_gamma(struct gw_bitw *w, uint64_t x)
{
	unsigned int nb = 64 - (unsigned int)__builtin_clzll(x); /* significant bits */
	gw_bitw_put(w, 0, nb - 1);
	gw_bitw_put(w, x, nb);
}

uint64_t gw_bitr_gamma(struct gw_bitr *r)
{
	/* Fast path: the whole code inside one window (runs up to 2^28). */
	uint64_t w = gw_bitr_window(r);
	unsigned int lz = w ? (unsigned int)__builtin_clzll(w) : 64;
	if (lz < 28 && 2 * lz + 1 <= gw_bitr_left(r)) {
		r->pos += 2 * lz + 1;
		return w >> (63 - 2 * lz);
	}
	unsigned int zeros = 0;
	while (gw_bitr_get(r, 1) == 0) {
		if (r->overrun || ++zeros > 62) {
			r->overrun = true;
			return 1;
		}
	}
	return (1ULL << zeros) | gw_bitr_get(r, zeros);
}

int gw_varint_put(struct gw_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		tmp[n++] = (uint8_t)(byte | (v ? 0x80 : 0));
	} while (v);
	return gw_buf_append(b, tmp, n);
}

int gw_varint_get(const uint8_t *p, size_t len, size_t *off, uint64_t *v)
{
	uint64_t out = 0;
	for (unsigned int shift = 0; shift < 64; shift += 7) {
		if (*off >= len)
			return GW_EPARSE;
		uint8_t byte = p[(*off)++];
		out |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = out;
			return 0;
		}
	}
	return GW_EPARSE;
}
