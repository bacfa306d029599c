/*
 * rollup.h - the downsampled tier: a series folded into buckets of R ms.
 *
 * Bucket k covers [kR, (k+1)R). It keeps its first sample as it is, and
 * min, max, sum and count of the samples after it (staleness markers left
 * out: Prometheus' range functions never see them), plus the last sample
 * (markers kept: an instant selector must see a series go stale).
 *
 * Why the first sample apart: Prometheus 2.42 windows are closed,
 * [T - range, T] and [T - lookback, T]. For T and range multiples of R such
 * a window holds whole buckets plus at most the first sample of the bucket
 * starting at T. So a query evaluated at multiples of R gets exactly the raw
 * answer from each bucket's two stand-in samples (gw_rollup_emit): the
 * first sample at its own time, and the rest's aggregate at the last
 * sample's time — newest sample, min, max, sum and count alike.
 *
 * On disk each sealed chunk carries the one-minute buckets of its samples
 * (a bucket cut by a chunk edge appears in both; gw_rollup_merge joins
 * them). Coarser resolutions (the hour) are folded from minutes at read time.
 *
 * Threading: pure functions.
 */
#ifndef GW_STORE_ROLLUP_H
#define GW_STORE_ROLLUP_H

#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_ROLLUP_MINUTE_MS 60000

struct gw_bucket {
	int64_t first_t, last_t; /* equal when the bucket has one sample */
	double first, last;
	double min, max, sum; /* over the samples after the first, markers left out */
	uint64_t count;       /* how many those are */
};

/* What a tiered selection asks for (the same order as engine.h's gw_tier_agg). */
enum gw_rollup_agg { GW_AGG_LAST, GW_AGG_MIN, GW_AGG_MAX, GW_AGG_SUM, GW_AGG_COUNT };

/* The bucket index of time t at resolution res: floor(t / res). */
int64_t gw_rollup_index(int64_t t, int64_t res);

/* Fold n samples (t ascending) into buckets of res ms; out needs room for n. Returns the bucket count. */
size_t gw_rollup_build(const int64_t *t, const double *v, size_t n, int64_t res, struct gw_bucket *out);

/* Join neighbours in the same bucket of res (input ascending), in place; returns the new count. */
size_t gw_rollup_merge(struct gw_bucket *b, size_t n, int64_t res);

/* Encode/decode a chunk's buckets (at most GW_CHUNK_MAX_SAMPLES; CRC-checked like chunks). */
int gw_rollup_encode(const struct gw_bucket *b, size_t n, struct gw_buf *out);
int gw_rollup_decode(const uint8_t *data, size_t len, struct gw_bucket *b, size_t cap, size_t *n);

/* The bucket's stand-in samples for agg (0, 1 or 2, ascending time) into t[2], v[2]. */
size_t gw_rollup_emit(const struct gw_bucket *b, enum gw_rollup_agg agg, int64_t *t, double *v);

#endif
