#include "store/codec.h"

#include "core/crc32.h"
#include "core/err.h"
#include "store/bits.h"

#include <math.h>
#include <string.h>

#define MAX_SCALE 9

/* Powers of ten, exact as doubles up to 1e22. */
static const double p10[MAX_SCALE + 1] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

static uint64_t dbits(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

static double bitsd(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* x such that x / 10^k reproduces v bit for bit, if there is one. */
static bool to_decimal(double v, unsigned int k, int64_t *x)
{
	if (!isfinite(v))
		return false;
	double s = v * p10[k];
	if (!(fabs(s) < 9007199254740992.0)) /* 2^53: integers exact below */
		return false;
	int64_t r = llround(s);
	if (dbits((double)r / p10[k]) != dbits(v))
		return false;
	*x = r;
	return true;
}

/* Smallest scale that represents all but few values; -1 means use XOR. */
static int pick_scale(const double *v, size_t n)
{
	size_t best_fail = n + 1;
	int best = -1;
	for (unsigned int k = 0; k <= MAX_SCALE; k++) {
		size_t fail = 0;
		int64_t x;
		for (size_t i = 0; i < n && fail < best_fail; i++)
			fail += !to_decimal(v[i], k, &x);
		if (fail < best_fail) {
			best_fail = fail;
			best = (int)k;
		}
		if (fail == 0)
			break;
	}
	/* Raw escapes cost ~70 bits each; past a quarter XOR does better. */
	return best_fail * 4 > n ? -1 : best;
}

static void put_dod(struct gw_bitw *w, int64_t dod)
{
	uint64_t z = gw_zigzag(dod);
	if (z == 0)
		gw_bitw_put(w, 0, 1);
	else if (z < (1u << 8))
		gw_bitw_put(w, (0x2ULL << 8) | z, 10);
	else if (z < (1u << 14))
		gw_bitw_put(w, (0x6ULL << 14) | z, 17);
	else if (z < (1u << 20))
		gw_bitw_put(w, (0xEULL << 20) | z, 24);
	else {
		gw_bitw_put(w, 0xF, 4);
		gw_bitw_put(w, z, 64);
	}
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

static void put_dec(struct gw_bitw *w, int64_t delta)
{
	uint64_t z = gw_zigzag(delta);
	if (z == 0) {
		gw_bitw_put(w, 0, 1);
		return;
	}
	unsigned int k = 1;
	while (k < 5 && z >= (1ULL << dec_widths[k]))
		k++;
	/* k ones, a zero, then the payload */
	gw_bitw_put(w, ((1ULL << k) - 1) << 1, k + 1);
	gw_bitw_put(w, z, dec_widths[k]);
}

static void encode_decimal(struct gw_bitw *w, const double *v, size_t n, unsigned int k)
{
	int64_t prev = 0, x;
	for (size_t i = 0; i < n; i++) {
		if (to_decimal(v[i], k, &x)) {
			put_dec(w, (int64_t)((uint64_t)x - (uint64_t)prev));
			prev = x;
		} else {
			gw_bitw_put(w, 0x3F, DEC_RAW);
			gw_bitw_put(w, dbits(v[i]), 64);
		}
	}
}

static void encode_xor(struct gw_bitw *w, const double *v, size_t n)
{
	uint64_t prev = dbits(v[0]);
	unsigned int lead = 64, trail = 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t cur = dbits(v[i]), x = cur ^ prev;
		prev = cur;
		if (!x) {
			gw_bitw_put(w, 0, 1);
			continue;
		}
		unsigned int l = (unsigned int)__builtin_clzll(x), t = (unsigned int)__builtin_ctzll(x);
		if (l > 31)
			l = 31;
		if (lead != 64 && l >= lead && t >= trail) {
			gw_bitw_put(w, 0x2, 2);
			gw_bitw_put(w, x >> trail, 64 - lead - trail);
		} else {
			lead = l;
			trail = t;
			unsigned int sig = 64 - l - t; /* 1..64; 64 stored as 0 */
			gw_bitw_put(w, 0x3, 2);
			gw_bitw_put(w, l, 5);
			gw_bitw_put(w, sig & 63, 6);
			gw_bitw_put(w, x >> t, sig);
		}
	}
}

int gw_chunk_encode(const int64_t *t, const double *v, size_t n, struct gw_buf *out)
{
	if (n == 0 || n > GW_CHUNK_MAX_SAMPLES)
		return GW_EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return GW_EINVAL;
	size_t start = out->len;
	int scale = pick_scale(v, n);
	uint8_t head[2] = {GW_CHUNK_MAGIC, scale < 0 ? GW_CHUNK_XOR : GW_CHUNK_DECIMAL};
	int rc = gw_buf_append(out, head, 2);
	rc = rc ? rc : gw_varint_put(out, n);
	rc = rc ? rc : gw_varint_put(out, gw_zigzag(t[0]));
	if (n > 1)
		rc = rc ? rc : gw_varint_put(out, gw_zigzag(t[1] - t[0]));
	if (scale >= 0) {
		uint8_t k = (uint8_t)scale;
		rc = rc ? rc : gw_buf_append(out, &k, 1);
	} else {
		uint64_t b = dbits(v[0]);
		uint8_t le[8];
		for (int i = 0; i < 8; i++)
			le[i] = (uint8_t)(b >> (8 * i));
		rc = rc ? rc : gw_buf_append(out, le, 8);
	}
	if (rc)
		return rc;
	struct gw_bitw w;
	gw_bitw_init(&w, out);
	/* Time stamps first, then values: each stream stays tight and simple. */
	for (size_t i = 2; i < n; i++)
		put_dod(&w, (t[i] - t[i - 1]) - (t[i - 1] - t[i - 2]));
	if (scale >= 0)
		encode_decimal(&w, v, n, (unsigned int)scale);
	else
		encode_xor(&w, v, n);
	rc = gw_bitw_flush(&w);
	if (rc)
		return rc;
	uint32_t crc = gw_crc32(0, out->data + start, out->len - start);
	uint8_t c[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
	return gw_buf_append(out, c, 4);
}

struct header {
	unsigned int mode;
	uint64_t n;
	int64_t t0, d1;
	unsigned int scale;
	uint64_t first;
	size_t body; /* offset of the bit stream */
};

static int read_header(const uint8_t *p, size_t len, struct header *h)
{
	if (len < 2 + 1 + 1 + 4 || p[0] != GW_CHUNK_MAGIC || p[1] > GW_CHUNK_XOR)
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
	if (h->mode == GW_CHUNK_DECIMAL) {
		if (off >= len || p[off] > MAX_SCALE)
			return GW_EPARSE;
		h->scale = p[off++];
	} else {
		if (off + 8 > len)
			return GW_EPARSE;
		h->first = 0;
		for (int i = 0; i < 8; i++)
			h->first |= (uint64_t)p[off + (size_t)i] << (8 * i);
		off += 8;
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

static void decode_decimal(struct gw_bitr *r, double *v, size_t n, unsigned int k)
{
	int64_t prev = 0;
	for (size_t i = 0; i < n && !r->overrun; i++) {
		unsigned int ones = gw_bitr_ones(r, DEC_RAW);
		if (ones == DEC_RAW) {
			v[i] = bitsd(gw_bitr_get(r, 64));
			continue;
		}
		prev = (int64_t)((uint64_t)prev + (uint64_t)gw_unzigzag(gw_bitr_get(r, dec_widths[ones])));
		v[i] = (double)prev / p10[k];
	}
}

static void decode_xor(struct gw_bitr *r, double *v, size_t n, uint64_t first)
{
	uint64_t prev = first;
	unsigned int lead = 0, trail = 0;
	v[0] = bitsd(first);
	for (size_t i = 1; i < n && !r->overrun; i++) {
		if (gw_bitr_get(r, 1) == 0) {
			v[i] = bitsd(prev);
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
		v[i] = bitsd(prev);
	}
}

int gw_chunk_decode(const uint8_t *data, size_t len, int64_t *t, double *v, size_t cap, size_t *n)
{
	*n = 0;
	struct header h;
	if (read_header(data, len, &h))
		return GW_EPARSE;
	uint32_t want = (uint32_t)data[len - 4] | (uint32_t)data[len - 3] << 8 | (uint32_t)data[len - 2] << 16 |
			(uint32_t)data[len - 1] << 24;
	if (gw_crc32(0, data, len - 4) != want)
		return GW_EPARSE;
	if (h.n > cap)
		return GW_EOVERFLOW;
	struct gw_bitr r;
	gw_bitr_init(&r, data + h.body, len - 4 - h.body);
	t[0] = h.t0;
	if (h.n > 1)
		t[1] = h.t0 + h.d1;
	for (size_t i = 2; i < h.n && !r.overrun; i++)
		t[i] = 2 * t[i - 1] - t[i - 2] + get_dod(&r);
	if (h.mode == GW_CHUNK_DECIMAL)
		decode_decimal(&r, v, h.n, h.scale);
	else
		decode_xor(&r, v, h.n, h.first);
	if (r.overrun)
		return GW_EPARSE;
	*n = h.n;
	return 0;
}
