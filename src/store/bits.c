#include "store/bits.h"

#include "core/err.h"

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
	w->acc = (w->acc << n) | bits;
	w->nacc += n;
	while (w->nacc >= 8) {
		uint8_t byte = (uint8_t)(w->acc >> (w->nacc - 8));
		if (w->err == 0)
			w->err = gw_buf_append(w->out, &byte, 1);
		w->nacc -= 8;
	}
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
	uint64_t v = 0;
	while (n) {
		size_t byte = r->pos >> 3;
		unsigned int bit = (unsigned int)(r->pos & 7);
		unsigned int avail = 8 - bit;
		unsigned int take = n < avail ? n : avail;
		uint8_t b = (uint8_t)(r->p[byte] << bit);
		v = (v << take) | (uint64_t)(b >> (8 - take));
		r->pos += take;
		n -= take;
	}
	return v;
}

unsigned int gw_bitr_ones(struct gw_bitr *r, unsigned int max)
{
	unsigned int k = 0;
	while (k < max && gw_bitr_get(r, 1) == 1 && !r->overrun)
		k++;
	return k;
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
