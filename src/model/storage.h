/*
 * storage.h - what a store offers a query engine, and the engine asks of a
 * store: series over a time window behind the gw_querier interface, the
 * staleness marker, a tier's stand-in aggregates, and the warnings a store
 * adds when it answers without damaged data (as Prometheus keeps
 * storage.Querier below both promql and tsdb). The store implements it,
 * the engine and the API consume it; neither includes the other.
 *
 * Ownership: a querier's series live in the caller's arena or are borrowed
 * from the store for the arena's life. Threading: a querier may be shared
 * when its store is thread-safe; a gw_warnings belongs to one query.
 */
#ifndef GW_MODEL_STORAGE_H
#define GW_MODEL_STORAGE_H

#include "core/arena.h"
#include "core/err.h"
#include "model/labels.h"
#include "model/match.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Prometheus' staleness marker: a NaN with this exact bit pattern. */
#define GW_STALE_NAN_BITS 0x7ff0000000000002ULL

/* Inline: tested for every sample a query selects. */
static inline bool gw_is_stale_nan(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b == GW_STALE_NAN_BITS;
}
double gw_stale_nan(void);

/* One series over a window: labels and samples ascending in time. */
struct gw_series {
	struct gw_labels labels;
	const int64_t *t; /* ms */
	const double *v;
	size_t n;
};

struct gw_series_set {
	struct gw_series *s;
	size_t n;
};

/*
 * What a query answered without (damaged chunks a store skipped), for the
 * API's "warnings": one per query, written on the query's thread only.
 */
#define GW_WARN_MAX 8
#define GW_WARN_LEN 400
struct gw_warnings {
	size_t n;    /* in msg, distinct */
	size_t more; /* left out once msg was full */
	char msg[GW_WARN_MAX][GW_WARN_LEN];
};

/*
 * The store side. select() returns every series that all matchers accept,
 * with its samples in [mint, maxt] (ms, inclusive), allocated from arena or
 * borrowed from the store for the arena's life.
 */
struct gw_querier {
	void *ctx;
	int (*select)(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
		      struct gw_arena *arena, struct gw_series_set *out, struct gw_err *err);
	/*
	 * Optional: like select() but only the labels of series with samples in
	 * [mint, maxt] (n = 0 in each), for the series and label APIs. NULL:
	 * callers use select() and ignore the samples.
	 */
	int (*series)(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
		      struct gw_arena *arena, struct gw_series_set *out, struct gw_err *err);
	/*
	 * Optional: the downsampled tier at res ms (a multiple of a minute).
	 * Each bucket [kR, (k+1)R) comes back as at most two stand-in samples:
	 * its first sample, and the aggregate `agg` (enum gw_tier_agg) of the
	 * rest at the time of its last sample. Evaluated at multiples of res with
	 * ranges that are too, a selector gives exactly what the raw samples give
	 * (see store/rollup.h); an engine asks only then. NULL: never used.
	 */
	int (*select_tier)(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
			   int64_t res, int agg, struct gw_arena *arena, struct gw_series_set *out,
			   struct gw_err *err);
	/*
	 * Optional: this querier for one query, its calls adding to w what
	 * they skipped; the copy's context lives in arena. NULL: the querier
	 * reports nothing (what it cannot read fails the call or is left out).
	 */
	int (*with_warnings)(void *ctx, struct gw_warnings *w, struct gw_arena *arena, struct gw_querier *out);
};

/* What a tiered selection stands in for. */
enum gw_tier_agg { GW_TIER_LAST, GW_TIER_MIN, GW_TIER_MAX, GW_TIER_SUM, GW_TIER_COUNT };

#endif
