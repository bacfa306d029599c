/*
 * codec_rice.c - the values of a decimal chunk, coded close to their
 * entropy (mode GW_CHUNK_DECIMAL_ADAPT).
 *
 * A fixed prefix code pays for the width of its bucket: a power reading in
 * mW that moves by ~±40 W a second needs 17 bits and paid 24, an NVLink
 * byte rate that needs 37 paid 69. Here each value's integer x (v * 10^scale)
 * is first brought down to y = (x - base) / step, step being the greatest
 * common divisor of the chunk's differences (clocks move in 15 MHz steps,
 * byte rates in KiB), then predicted from the values before it, and the
 * residual is written in a Rice code whose parameter follows the mean size
 * of recent residuals, as JPEG-LS does: noise of any width costs about its
 * entropy plus a bit or two. The encoder tries every predictor with and
 * without run-length coding of zero residuals and keeps the smallest.
 *
 * A value with no decimal form (NaN, the staleness marker, ±Inf) is an
 * escape followed by its 64 bits; it leaves the prediction chain as it was.
 */
#include "store/codec_int.h"

#include "core/err.h"

#include <stdlib.h>
#include <string.h>

#define QMAX 20      /* unary prefixes this long are escapes */
#define ESC_RAW 127  /* escape width field: a raw double follows */
#define A_CAP (1ULL << 56)
#define N_HALVE 64   /* the residual mean forgets at this count */

struct rice {
	uint64_t a; /* sum of recent residuals (zigzag, capped) */
	uint64_t n; /* how many, >= 1 */
};

/* The least k with n * 2^k >= a (JPEG-LS' parameter: about log2 of the mean). */
static inline unsigned int rice_k(const struct rice *s)
{
	if (s->a <= s->n)
		return 0;
	unsigned int k = (unsigned int)(__builtin_clzll(s->n) - __builtin_clzll(s->a));
	return (s->n << k) < s->a ? k + 1 : k;
}

static inline void rice_update(struct rice *s, uint64_t z)
{
	s->a += z < A_CAP ? z : A_CAP;
	if (++s->n == N_HALVE) {
		s->a >>= 1;
		s->n >>= 1;
	}
}

static inline void rice_start(struct rice *s, unsigned int k0)
{
	s->a = 1ULL << k0;
	s->n = 1;
}

/* Overflow-free by construction: the decoder may meet any bits. */
static inline int64_t predict(unsigned int pred, int64_t y1, int64_t y2)
{
	switch (pred) {
	case PRED_PREV:
		return y1;
	case PRED_LINEAR:
		return (int64_t)(2 * (uint64_t)y1 - (uint64_t)y2);
	case PRED_MEAN:
		return y1 / 2 + y2 / 2 + (y1 % 2 + y2 % 2) / 2;
	default:
		return 0;
	}
}

static inline unsigned int bitlen(uint64_t z) /* z > 0 */
{
	return 64 - (unsigned int)__builtin_clzll(z);
}

static inline unsigned int gamma_bits(uint64_t x)
{
	return 2 * bitlen(x) - 1;
}

/* The first Rice parameter: the first symbol's size, so the chunk starts adapted. */
static inline unsigned int first_k(uint64_t z)
{
	unsigned int k = z ? bitlen(z) - 1 : 0;
	return k < 56 ? k : 56;
}

static void put_rice(struct gw_bitw *w, struct rice *st, uint64_t z)
{
	unsigned int k = rice_k(st);
	uint64_t q = z >> k;
	if (q < QMAX) {
		gw_bitw_put(w, ((1ULL << q) - 1) << 1, (unsigned int)q + 1);
		gw_bitw_put(w, z, k);
	} else {
		gw_bitw_put(w, (1ULL << QMAX) - 1, QMAX);
		gw_bitw_put(w, bitlen(z), 7);
		gw_bitw_put(w, z, bitlen(z));
	}
	rice_update(st, z);
}

static unsigned int rice_bits(struct rice *st, uint64_t z)
{
	unsigned int k = rice_k(st);
	uint64_t q = z >> k;
	rice_update(st, z);
	return q < QMAX ? (unsigned int)q + 1 + k : QMAX + 7 + bitlen(z);
}

static void put_raw(struct gw_bitw *w, double v)
{
	gw_bitw_put(w, (1ULL << QMAX) - 1, QMAX);
	gw_bitw_put(w, ESC_RAW, 7);
	gw_bitw_put(w, codec_dbits(v), 64);
}

/* The value stream of plan p (center: the y that PRED_BASE predicts). */
static void code(struct gw_bitw *w, const struct codec_values *c, const struct codec_plan *p, int64_t center)
{
	struct rice st;
	rice_start(&st, p->k0);
	int64_t y1 = 0, y2 = 0;
	size_t run = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->raw[i]) {
			if (p->runs) {
				gw_bitw_gamma(w, run + 1);
				run = 0;
			}
			put_raw(w, c->v[i]);
			continue;
		}
		int64_t y = c->y[i] - center;
		uint64_t z = gw_zigzag(y - predict(p->pred, y1, y2));
		y2 = y1;
		y1 = y;
		if (p->runs) {
			if (!z) {
				run++;
				continue;
			}
			gw_bitw_gamma(w, run + 1);
			run = 0;
			z--;
		}
		put_rice(w, &st, z);
	}
	if (run)
		gw_bitw_gamma(w, run + 1);
}

/* One candidate plan being sized: what code() would write, counted. */
struct cand {
	struct rice st;
	bool started; /* k0 is taken from the first symbol */
	unsigned int k0;
	size_t run;
	uint64_t bits;
};

static inline void cand_symbol(struct cand *k, uint64_t z, bool runs)
{
	if (runs) {
		if (!z) {
			k->run++;
			return;
		}
		k->bits += gamma_bits(k->run + 1);
		k->run = 0;
		z--;
	}
	if (!k->started) {
		k->k0 = first_k(z);
		rice_start(&k->st, k->k0);
		k->started = true;
	}
	k->bits += rice_bits(&k->st, z);
}

/* Every predictor with and without runs, sized in one pass: cand[2 * pred + runs]. */
static void size_all(const struct codec_values *c, struct cand cand[8])
{
	memset(cand, 0, 8 * sizeof(*cand));
	int64_t y1 = 0, y2 = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->raw[i]) {
			for (int j = 0; j < 8; j++) {
				if (j & 1) {
					cand[j].bits += gamma_bits(cand[j].run + 1);
					cand[j].run = 0;
				}
				cand[j].bits += QMAX + 7 + 64;
			}
			continue;
		}
		int64_t y = c->y[i];
		uint64_t z[4] = {gw_zigzag(y - predict(PRED_PREV, y1, y2)), gw_zigzag(y - predict(PRED_LINEAR, y1, y2)),
				 gw_zigzag(y - predict(PRED_MEAN, y1, y2)), gw_zigzag(y - c->center)};
		y2 = y1;
		y1 = y;
		for (int j = 0; j < 8; j++)
			cand_symbol(&cand[j], z[j >> 1], j & 1);
	}
	for (int j = 1; j < 8; j += 2)
		if (cand[j].run)
			cand[j].bits += gamma_bits(cand[j].run + 1);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The k-th smallest of a[0..n) (Hoare's selection: linear on average; a is reordered). */
static int64_t select_kth(int64_t *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t pivot = a[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

/* The median of the decimal values' y (0 when there are none). */
static int median(struct codec_values *c)
{
	int64_t *tmp = malloc(c->n * sizeof(*tmp));
	if (!tmp)
		return GW_ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < c->n; i++)
		if (!c->raw[i])
			tmp[m++] = c->y[i];
	c->center = m ? select_kth(tmp, m, m / 2) : 0;
	free(tmp);
	return 0;
}

static int prepare(struct codec_values *c, const double *v, size_t n, unsigned int scale)
{
	*c = (struct codec_values){.v = v, .n = n, .step = 1};
	c->y = malloc(n * sizeof(*c->y));
	c->raw = malloc(n);
	if (!c->y || !c->raw)
		return GW_ENOMEM;
	bool have = false;
	uint64_t g = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t x = 0;
		c->raw[i] = !codec_to_decimal(v[i], scale, &x);
		if (c->raw[i])
			continue;
		if (!have) {
			c->first = x;
			have = true;
		}
		c->y[i] = x - c->first; /* |x| < 2^53: no overflow */
		g = gcd(c->y[i] < 0 ? (uint64_t)-c->y[i] : (uint64_t)c->y[i], g);
	}
	c->step = g ? g : 1;
	if (c->step > 1)
		for (size_t i = 0; i < n; i++)
			if (!c->raw[i])
				c->y[i] /= (int64_t)c->step;
	return 0;
}

void codec_rice_release(struct codec_values *c)
{
	free(c->y);
	free(c->raw);
	c->y = NULL;
	c->raw = NULL;
}

int codec_rice_plan(struct codec_values *c, const double *v, size_t n, unsigned int scale, struct codec_plan *best,
		    uint64_t *bits)
{
	int rc = prepare(c, v, n, scale);
	rc = rc ? rc : median(c);
	if (rc)
		return rc;
	struct cand cand[8];
	size_all(c, cand);
	int j = 0;
	for (int i = 1; i < 8; i++)
		if (cand[i].bits < cand[j].bits)
			j = i;
	unsigned int pred = (unsigned int)j >> 1;
	*best = (struct codec_plan){.scale = scale, .pred = pred, .runs = j & 1, .k0 = cand[j].k0, .step = c->step,
				    .base = c->first + (pred == PRED_BASE ? c->center * (int64_t)c->step : 0)};
	*bits = cand[j].bits;
	return 0;
}

void codec_rice_encode(struct gw_bitw *w, const struct codec_values *c, const struct codec_plan *p)
{
	code(w, c, p, p->pred == PRED_BASE ? c->center : 0);
}

static inline double value_of(const struct codec_plan *p, int64_t y)
{
	uint64_t x = (uint64_t)p->base + (uint64_t)y * p->step;
	return (double)(int64_t)x / codec_p10[p->scale];
}

void codec_rice_decode(struct gw_bitr *r, double *v, size_t n, const struct codec_plan *p)
{
	struct rice st;
	rice_start(&st, p->k0);
	int64_t y1 = 0, y2 = 0;
	size_t i = 0;
	while (i < n && !r->overrun) {
		if (p->runs) {
			uint64_t run = gw_bitr_gamma(r) - 1;
			if (run > n - i) {
				r->overrun = true;
				return;
			}
			if (run && (p->pred == PRED_PREV || p->pred == PRED_BASE)) {
				/* the value repeats: y stays y1 (the median's 0 for BASE) */
				int64_t y = p->pred == PRED_PREV ? y1 : 0;
				double x = value_of(p, y);
				for (uint64_t j = 0; j < run; j++)
					v[i++] = x;
				y2 = run > 1 ? y : y1;
				y1 = y;
			} else {
				for (uint64_t j = 0; j < run; j++) {
					int64_t y = predict(p->pred, y1, y2);
					y2 = y1;
					y1 = y;
					v[i++] = value_of(p, y);
				}
			}
			if (i == n)
				break;
		}
		unsigned int k = rice_k(&st);
		/* Fast path: prefix, stop bit and k bits inside one 64-bit window
		 * (a window holds 57 bits past any position). */
		uint64_t w = gw_bitr_window(r), z;
		unsigned int q = ~w ? (unsigned int)__builtin_clzll(~w) : 64;
		if (q < QMAX && q + 1 + k <= 57 && q + 1 + k <= gw_bitr_left(r)) {
			z = ((uint64_t)q << k) | (k ? (w << (q + 1)) >> (64 - k) : 0);
			r->pos += q + 1 + k;
		} else if ((q = gw_bitr_ones(r, QMAX)) < QMAX) {
			z = ((uint64_t)q << k) | gw_bitr_get(r, k);
		} else {
			unsigned int len = (unsigned int)gw_bitr_get(r, 7);
			if (len == ESC_RAW) {
				v[i++] = codec_bitsd(gw_bitr_get(r, 64));
				continue;
			}
			if (len == 0 || len > 64) {
				r->overrun = true; /* never written: corrupt */
				return;
			}
			z = gw_bitr_get(r, len);
		}
		rice_update(&st, z);
		if (p->runs && ++z == 0) {
			r->overrun = true;
			return;
		}
		int64_t y = (int64_t)((uint64_t)predict(p->pred, y1, y2) + (uint64_t)gw_unzigzag(z));
		y2 = y1;
		y1 = y;
		v[i++] = value_of(p, y);
	}
}
