/*
 * codec_int.h - what the chunk codec's files share: decimal conversion and
 * the adaptive decimal value coding (codec_rice.c) that codec.c frames.
 *
 * Threading: pure functions.
 */
#ifndef GW_STORE_CODEC_INT_H
#define GW_STORE_CODEC_INT_H

#include "store/bits.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define CODEC_MAX_SCALE 9

/* Powers of ten, exact as doubles. */
static const double codec_p10[CODEC_MAX_SCALE + 1] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

static inline uint64_t codec_dbits(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

static inline double codec_bitsd(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* x such that x / 10^k reproduces v bit for bit, if there is one. */
static inline bool codec_to_decimal(double v, unsigned int k, int64_t *x)
{
	if (!isfinite(v))
		return false;
	double s = v * codec_p10[k];
	if (!(fabs(s) < 9007199254740992.0)) /* 2^53: integers exact below */
		return false;
	int64_t r = llround(s);
	if (codec_dbits((double)r / codec_p10[k]) != codec_dbits(v))
		return false;
	*x = r;
	return true;
}

/* How a chunk's decimal integers are predicted (mode GW_CHUNK_DECIMAL_ADAPT). */
enum codec_pred {
	PRED_PREV,   /* the previous value: random walks, steps */
	PRED_LINEAR, /* extrapolated from the last two: counters, ramps */
	PRED_MEAN,   /* the mean of the last two: noise around a level */
	PRED_BASE,   /* the chunk's median: values that jump among a few levels */
};

/* A chunk's adaptive decimal coding: x = base + step * y, y predicted, residual Rice coded. */
struct codec_plan {
	unsigned int scale; /* x = v * 10^scale */
	unsigned int pred;  /* enum codec_pred */
	bool runs;          /* zero residuals as runs (Elias gamma) */
	unsigned int k0;    /* the Rice parameter the chunk starts with */
	uint64_t step;      /* >= 1: every x - base is a multiple */
	int64_t base;
};

/* A chunk's values prepared for the decimal coding (the planner's and encoder's scratch). */
struct codec_values {
	const double *v; /* borrowed */
	size_t n;
	int64_t *y;      /* (x - first) / step; unused where raw */
	uint8_t *raw;    /* 1: no decimal form at the scale, written raw */
	int64_t first;   /* the first decimal x */
	int64_t center;  /* the median y: what PRED_BASE predicts */
	uint64_t step;
};

/*
 * Prepare v[0..n) at scale and find the smallest plan; *bits gets the size
 * of its value stream. 0 or GW_ENOMEM; call codec_rice_release either way.
 */
int codec_rice_plan(struct codec_values *c, const double *v, size_t n, unsigned int scale, struct codec_plan *p,
		    uint64_t *bits);
/* Write the values by a plan from codec_rice_plan on c. */
void codec_rice_encode(struct gw_bitw *w, const struct codec_values *c, const struct codec_plan *p);
void codec_rice_release(struct codec_values *c);
/* Read n values written by plan p; corrupt input sets r->overrun. */
void codec_rice_decode(struct gw_bitr *r, double *v, size_t n, const struct codec_plan *p);

/* The stream coders codec.c frames (see codec.h for the layouts). */
void codec_times_encode(struct gw_bitw *w, const int64_t *t, size_t n);
void codec_times_decode(struct gw_bitr *r, int64_t *t, size_t n); /* t[0], t[1] set by the caller */
void codec_xor_encode(struct gw_bitw *w, const double *v, size_t n);
void codec_xor_decode(struct gw_bitr *r, double *v, size_t n, uint64_t first);
/* The decimal scale of v[0..n), or -1: XOR suits them better. */
int codec_pick_scale(const double *v, size_t n);

/* A chunk's trailing CRC-32 (little-endian) of the bytes from start; whether p[0..len) ends with the right one. */
int codec_crc_put(struct gw_buf *out, size_t start);
bool codec_crc_ok(const uint8_t *p, size_t len);

/* Mode headers: a decimal plan, or XOR's first value (8 bytes, little-endian). */
int codec_plan_put(struct gw_buf *out, const struct codec_plan *plan);
int codec_plan_get(const uint8_t *p, size_t len, size_t *off, struct codec_plan *plan);
int codec_first_put(struct gw_buf *out, double v);
int codec_first_get(const uint8_t *p, size_t len, size_t *off, uint64_t *first);

#endif
