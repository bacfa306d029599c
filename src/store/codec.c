#include "store/codec.h"

#include "core/crc32.h"
#include "core/err.h"
#include "store/bits.h"
#include "store/codec_int.h"

#include <math.h>
#include <string.h>

/*
 * The scale that represents the values: the smallest that serves the value
 * needing the most digits; -1 means use XOR. Each value is tried at the
 * scale found so far and above it only when that fails, then all once more
 * at the final scale to count the misfits.
 */
int codec_pick_scale(const double *v, size_t n)
{
	unsigned int k = 0;
	int64_t x;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || codec_to_decimal(v[i], k, &x))
			continue;
		for (unsigned int k2 = k + 1; k2 <= CODEC_MAX_SCALE; k2++) {
			if (codec_to_decimal(v[i], k2, &x)) {
				k = k2;
				break;
			}
		}
	}
	size_t fail = 0;
	for (size_t i = 0; i < n; i++)
		fail += !codec_to_decimal(v[i], k, &x);
	/* Raw escapes cost ~90 bits each; past a quarter XOR does better. */
	return fail * 4 > n ? -1 : (int)k;
}

static int64_t get_dod(struct gw_bitr *r)
{
	static const unsigned int widths[] = {0, 8, 14, 20, 64};
	unsigned int k = gw_bitr_ones(r, 4);
	return gw_unzigzag(gw_bitr_get(r, widths[k]));
}

/* Value codes of decimal mode: prefix of k ones then a 0, width by k. */
static const unsigned int dec_widths[] = {0, 6, 13, 20, 32, 64};
#define DEC_RAW 6 /* six ones: 64 raw bits of a double follow */

/*
 * Format 2 (modes GW_CHUNK_DECIMAL_RLE, GW_CHUNK_XOR_RLE): runs. GPU series
 * sit still most of the time and the sampler keeps a fixed schedule, so both
 * streams are coded as alternating "run of zeros" (Elias gamma of the run
 * length + 1) and "one non-zero symbol". A constant chunk of 1000 samples
 * takes a few bytes instead of 250.
 */
/* A non-zero delta-of-delta of time stamps: 0+8, 10+14, 110+20, 111+64 bits. */
static void put_dod_nz(struct gw_bitw *w, int64_t dod)
{
	uint64_t z = gw_zigzag(dod);
	if (z < (1u << 8))
		gw_bitw_put(w, z, 9);
	else if (z < (1u << 14))
		gw_bitw_put(w, (0x2ULL << 14) | z, 16);
	else if (z < (1u << 20))
		gw_bitw_put(w, (0x6ULL << 20) | z, 23);
	else {
		gw_bitw_put(w, 0x7, 3);
		gw_bitw_put(w, z, 64);
	}
}

static int64_t get_dod_nz(struct gw_bitr *r)
{
	static const unsigned int widths[] = {8, 14, 20, 64};
	return gw_unzigzag(gw_bitr_get(r, widths[gw_bitr_ones(r, 3)]));
}

void codec_times_encode(struct gw_bitw *w, const int64_t *t, size_t n)
{
	size_t i = 2;
	while (i < n) {
		size_t run = 0;
		while (i + run < n && (t[i + run] - t[i + run - 1]) == (t[i + run - 1] - t[i + run - 2]))
			run++;
		gw_bitw_gamma(w, run + 1);
		i += run;
		if (i < n) {
			put_dod_nz(w, (t[i] - t[i - 1]) - (t[i - 1] - t[i - 2]));
			i++;
		}
	}
}

void codec_times_decode(struct gw_bitr *r, int64_t *t, size_t n)
{
	size_t i = 2;
	while (i < n && !r->overrun) {
		uint64_t run = gw_bitr_gamma(r) - 1;
		if (run > n - i) {
			r->overrun = true;
			return;
		}
		/* A run keeps the last step: t[i-1] + k * step, each on its own (no chain to wait on);
		 * unsigned, so corrupt input wraps instead of overflowing. */
		uint64_t last = (uint64_t)t[i - 1], step = last - (uint64_t)t[i - 2];
		for (uint64_t k = 1; k <= run; k++)
			t[i + k - 1] = (int64_t)(last + k * step);
		i += run;
		if (i < n) {
			int64_t dod = get_dod_nz(r);
			if (dod == 0) { /* never written: corrupt */
				r->overrun = true;
				return;
			}
			t[i] = (int64_t)(2 * (uint64_t)t[i - 1] - (uint64_t)t[i - 2] + (uint64_t)dod);
			i++;
		}
	}
}

/* Decimal symbols after a run (format 2, read only): 0+6, 10+13, 110+20, 1110+32, 11110+64 bits, 11111: a raw double. */
static const unsigned int rle_widths[] = {6, 13, 20, 32, 64};
#define RLE_RAW 5

static void decode_decimal_rle(struct gw_bitr *r, double *v, size_t n, unsigned int k, unsigned int order)
{
	uint64_t px = 0, pd = 0;
	size_t i = 0;
	while (i < n && !r->overrun) {
		uint64_t run = gw_bitr_gamma(r) - 1;
		if (run > n - i) {
			r->overrun = true;
			return;
		}
		for (uint64_t j = 0; j < run; j++, i++) {
			uint64_t d = order == 2 ? pd : 0;
			px += d;
			pd = d;
			v[i] = (double)(int64_t)px / codec_p10[k];
		}
		if (i == n)
			break;
		unsigned int ones = gw_bitr_ones(r, RLE_RAW);
		if (ones == RLE_RAW) {
			v[i++] = codec_bitsd(gw_bitr_get(r, 64));
			continue;
		}
		uint64_t sym = (uint64_t)gw_unzigzag(gw_bitr_get(r, rle_widths[ones]));
		if (sym == 0) {
			r->overrun = true;
			return;
		}
		uint64_t d = order == 2 ? pd + sym : sym;
		px += d;
		pd = d;
		v[i++] = (double)(int64_t)px / codec_p10[k];
	}
}

/* Gorilla XOR with runs of unchanged values; after a run, 0: same window, 1: new window. */
void codec_xor_encode(struct gw_bitw *w, const double *v, size_t n)
{
	uint64_t prev = codec_dbits(v[0]);
	unsigned int lead = 64, trail = 0;
	size_t run = 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t cur = codec_dbits(v[i]), x = cur ^ prev;
		prev = cur;
		if (!x) {
			run++;
			continue;
		}
		gw_bitw_gamma(w, run + 1);
		run = 0;
		unsigned int l = (unsigned int)__builtin_clzll(x), t = (unsigned int)__builtin_ctzll(x);
		if (l > 31)
			l = 31;
		if (lead != 64 && l >= lead && t >= trail) {
			gw_bitw_put(w, 0, 1);
			gw_bitw_put(w, x >> trail, 64 - lead - trail);
		} else {
			lead = l;
			trail = t;
			unsigned int sig = 64 - l - t;
			gw_bitw_put(w, 1, 1);
			gw_bitw_put(w, l, 5);
			gw_bitw_put(w, sig & 63, 6);
			gw_bitw_put(w, x >> t, sig);
		}
	}
	if (run)
		gw_bitw_gamma(w, run + 1);
}

void codec_xor_decode(struct gw_bitr *r, double *v, size_t n, uint64_t first)
{
	uint64_t prev = first;
	unsigned int lead = 0, trail = 0;
	v[0] = codec_bitsd(first);
	size_t i = 1;
	while (i < n && !r->overrun) {
		uint64_t run = gw_bitr_gamma(r) - 1;
		if (run > n - i) {
			r->overrun = true;
			return;
		}
		for (uint64_t j = 0; j < run; j++)
			v[i++] = codec_bitsd(prev);
		if (i == n)
			break;
		if (gw_bitr_get(r, 1) == 1) {
			lead = (unsigned int)gw_bitr_get(r, 5);
			unsigned int sig = (unsigned int)gw_bitr_get(r, 6);
			if (sig == 0)
				sig = 64;
			if (lead + sig > 64) {
				r->overrun = true;
				return;
			}
			trail = 64 - lead - sig;
		}
		uint64_t x = gw_bitr_get(r, 64 - lead - trail) << trail;
		if (!x) {
			r->overrun = true;
			return;
		}
		prev ^= x;
		v[i++] = codec_bitsd(prev);
	}
}

int codec_crc_put(struct gw_buf *out, size_t start)
{
	uint32_t crc = gw_crc32(0, out->data + start, out->len - start);
	uint8_t le[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
	return gw_buf_append(out, le, 4);
}

bool codec_crc_ok(const uint8_t *p, size_t len)
{
	if (len < 4)
		return false;
	uint32_t want = (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 | (uint32_t)p[len - 2] << 16 |
			(uint32_t)p[len - 1] << 24;
	return gw_crc32(0, p, len - 4) == want;
}

int codec_plan_put(struct gw_buf *out, const struct codec_plan *plan)
{
	uint8_t b[2] = {(uint8_t)(plan->scale | plan->pred << 4 | (plan->runs ? 0x40 : 0)), (uint8_t)plan->k0};
	int rc = gw_buf_append(out, b, 2);
	rc = rc ? rc : gw_varint_put(out, plan->step);
	return rc ? rc : gw_varint_put(out, gw_zigzag(plan->base));
}

int codec_plan_get(const uint8_t *p, size_t len, size_t *off, struct codec_plan *pl)
{
	if (*off + 2 > len)
		return GW_EPARSE;
	unsigned int b = p[*off], k0 = p[*off + 1];
	*off += 2;
	pl->scale = b & 0x0f;
	pl->pred = (b >> 4) & 3;
	pl->runs = (b & 0x40) != 0;
	pl->k0 = k0;
	uint64_t u;
	if (pl->scale > CODEC_MAX_SCALE || (b & 0x80) || k0 > 56 || gw_varint_get(p, len, off, &pl->step) ||
	    pl->step == 0 || gw_varint_get(p, len, off, &u))
		return GW_EPARSE;
	pl->base = gw_unzigzag(u);
	return 0;
}

int codec_first_put(struct gw_buf *out, double v)
{
	uint64_t b = codec_dbits(v);
	uint8_t le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(b >> (8 * i));
	return gw_buf_append(out, le, 8);
}

int codec_first_get(const uint8_t *p, size_t len, size_t *off, uint64_t *first)
{
	if (*off + 8 > len)
		return GW_EPARSE;
	*first = 0;
	for (int i = 0; i < 8; i++)
		*first |= (uint64_t)p[*off + (size_t)i] << (8 * i);
	*off += 8;
	return 0;
}

/* One candidate coding of the chunk, appended to out: decimal by plan, or XOR (plan NULL). */
static int encode_as(const int64_t *t, const double *v, size_t n, const struct codec_values *vals,
		     const struct codec_plan *plan, struct gw_buf *out)
{
	size_t start = out->len;
	uint8_t head[2] = {GW_CHUNK_MAGIC, plan ? GW_CHUNK_DECIMAL_ADAPT : GW_CHUNK_XOR_RLE};
	int rc = gw_buf_append(out, head, 2);
	rc = rc ? rc : gw_varint_put(out, n);
	rc = rc ? rc : gw_varint_put(out, gw_zigzag(t[0]));
	if (n > 1)
		rc = rc ? rc : gw_varint_put(out, gw_zigzag(t[1] - t[0]));
	if (plan)
		rc = rc ? rc : codec_plan_put(out, plan);
	else
		rc = rc ? rc : codec_first_put(out, v[0]);
	if (rc)
		return rc;
	struct gw_bitw w;
	gw_bitw_init(&w, out);
	/* Time stamps first, then values: each stream stays tight and simple. */
	codec_times_encode(&w, t, n);
	if (plan)
		codec_rice_encode(&w, vals, plan);
	else
		codec_xor_encode(&w, v, n);
	rc = gw_bitw_flush(&w);
	if (rc)
		return rc;
	return codec_crc_put(out, start);
}

int gw_chunk_encode(const int64_t *t, const double *v, size_t n, struct gw_buf *out)
{
	if (n == 0 || n > GW_CHUNK_MAX_SAMPLES)
		return GW_EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return GW_EINVAL;
	int scale = codec_pick_scale(v, n);
	if (scale < 0)
		return encode_as(t, v, n, NULL, NULL, out);
	struct codec_values vals;
	struct codec_plan plan;
	uint64_t bits;
	size_t start = out->len;
	int rc = codec_rice_plan(&vals, v, n, (unsigned int)scale, &plan, &bits);
	rc = rc ? rc : encode_as(t, v, n, &vals, &plan, out);
	codec_rice_release(&vals);
	/* XOR spends ~13 bits of control and window on a changed value and
	 * ~40 on the mantissa of a typical decimal: it wins only on long decimals. */
	if (rc || bits <= 24 * (uint64_t)n)
		return rc;
	struct gw_buf alt;
	gw_buf_init(&alt, out->limit);
	if (encode_as(t, v, n, NULL, NULL, &alt) == 0 && alt.len < out->len - start) {
		out->len = start;
		rc = gw_buf_append(out, alt.data, alt.len);
	}
	gw_buf_release(&alt);
	return rc;
}

struct header {
	unsigned int mode;
	unsigned int order; /* decimal modes: 1 deltas, 2 deltas of deltas */
	uint64_t n;
	int64_t t0, d1;
	unsigned int scale;
	uint64_t first;
	struct codec_plan plan; /* GW_CHUNK_DECIMAL_ADAPT */
	size_t body;            /* offset of the bit stream */
};

static int read_header(const uint8_t *p, size_t len, struct header *h)
{
	if (len < 2 + 1 + 1 + 4 || p[0] != GW_CHUNK_MAGIC || p[1] > GW_CHUNK_DECIMAL_ADAPT)
		return GW_EPARSE;
	h->mode = p[1];
	size_t off = 2;
	uint64_t u;
	if (gw_varint_get(p, len, &off, &h->n) || h->n == 0 || h->n > GW_CHUNK_MAX_SAMPLES)
		return GW_EPARSE;
	if (gw_varint_get(p, len, &off, &u))
		return GW_EPARSE;
	h->t0 = gw_unzigzag(u);
	h->d1 = 0;
	if (h->n > 1) {
		if (gw_varint_get(p, len, &off, &u))
			return GW_EPARSE;
		h->d1 = gw_unzigzag(u);
	}
	h->order = 1;
	if (h->mode == GW_CHUNK_DECIMAL || h->mode == GW_CHUNK_DECIMAL_RLE) {
		if (off >= len)
			return GW_EPARSE;
		unsigned int b = p[off++];
		if (h->mode == GW_CHUNK_DECIMAL_RLE && (b & 0x80)) {
			h->order = 2;
			b &= 0x7f;
		}
		if (b > CODEC_MAX_SCALE)
			return GW_EPARSE;
		h->scale = b;
	} else if (h->mode == GW_CHUNK_DECIMAL_ADAPT) {
		if (codec_plan_get(p, len, &off, &h->plan))
			return GW_EPARSE;
	} else if (codec_first_get(p, len, &off, &h->first)) {
		return GW_EPARSE;
	}
	h->body = off;
	return off + 4 <= len ? 0 : GW_EPARSE;
}

long gw_chunk_count(const uint8_t *data, size_t len)
{
	struct header h;
	int rc = read_header(data, len, &h);
	return rc ? rc : (long)h.n;
}

int gw_chunk_first(const uint8_t *data, size_t len, int64_t *t0)
{
	struct header h;
	int rc = read_header(data, len, &h);
	if (!rc)
		*t0 = h.t0;
	return rc;
}

static void decode_decimal(struct gw_bitr *r, double *v, size_t n, unsigned int k)
{
	int64_t prev = 0;
	for (size_t i = 0; i < n && !r->overrun; i++) {
		unsigned int ones = gw_bitr_ones(r, DEC_RAW);
		if (ones == DEC_RAW) {
			v[i] = codec_bitsd(gw_bitr_get(r, 64));
			continue;
		}
		prev = (int64_t)((uint64_t)prev + (uint64_t)gw_unzigzag(gw_bitr_get(r, dec_widths[ones])));
		v[i] = (double)prev / codec_p10[k];
	}
}

static void decode_xor(struct gw_bitr *r, double *v, size_t n, uint64_t first)
{
	uint64_t prev = first;
	unsigned int lead = 0, trail = 0;
	v[0] = codec_bitsd(first);
	for (size_t i = 1; i < n && !r->overrun; i++) {
		if (gw_bitr_get(r, 1) == 0) {
			v[i] = codec_bitsd(prev);
			continue;
		}
		if (gw_bitr_get(r, 1) == 1) {
			lead = (unsigned int)gw_bitr_get(r, 5);
			unsigned int sig = (unsigned int)gw_bitr_get(r, 6);
			if (sig == 0)
				sig = 64;
			if (lead + sig > 64) {
				r->overrun = true; /* corrupt: report as such */
				return;
			}
			trail = 64 - lead - sig;
		}
		uint64_t x = gw_bitr_get(r, 64 - lead - trail) << trail;
		prev ^= x;
		v[i] = codec_bitsd(prev);
	}
}

int gw_chunk_decode(const uint8_t *data, size_t len, int64_t *t, double *v, size_t cap, size_t *n)
{
	*n = 0;
	struct header h;
	if (read_header(data, len, &h))
		return GW_EPARSE;
	if (!codec_crc_ok(data, len))
		return GW_EPARSE;
	if (h.n > cap)
		return GW_EOVERFLOW;
	struct gw_bitr r;
	gw_bitr_init(&r, data + h.body, len - 4 - h.body);
	t[0] = h.t0;
	if (h.n > 1)
		t[1] = h.t0 + h.d1;
	if (h.mode == GW_CHUNK_DECIMAL || h.mode == GW_CHUNK_XOR) {
		/* format 1: one code per sample */
		for (size_t i = 2; i < h.n && !r.overrun; i++)
			t[i] = 2 * t[i - 1] - t[i - 2] + get_dod(&r);
		if (h.mode == GW_CHUNK_DECIMAL)
			decode_decimal(&r, v, h.n, h.scale);
		else
			decode_xor(&r, v, h.n, h.first);
	} else {
		codec_times_decode(&r, t, h.n);
		if (h.mode == GW_CHUNK_DECIMAL_ADAPT)
			codec_rice_decode(&r, v, h.n, &h.plan);
		else if (h.mode == GW_CHUNK_DECIMAL_RLE)
			decode_decimal_rle(&r, v, h.n, h.scale, h.order);
		else
			codec_xor_decode(&r, v, h.n, h.first);
	}
	if (r.overrun)
		return GW_EPARSE;
	*n = h.n;
	return 0;
}
