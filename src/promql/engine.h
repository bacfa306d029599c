/*
 * engine.h - PromQL evaluation over any store, as Prometheus 2.42 evaluates.
 *
 * The engine asks a querier for the series a selector matches over a time
 * window, once per selector per query, then evaluates step by step: an
 * instant query is one step, a range query steps from start to end. Lookback
 * (default 5 m) and staleness follow Prometheus 2.42: an instant selector
 * takes the newest sample in [t - lookback, t] unless it is the staleness
 * marker; range selectors take [t - range, t] and skip markers.
 *
 * Every value of one evaluation lives in the caller's arena, including the
 * result; the querier's series must stay valid until the arena is released.
 * Threading: one evaluation per arena; the querier may be shared if it is
 * itself thread-safe.
 */
#ifndef GW_PROMQL_ENGINE_H
#define GW_PROMQL_ENGINE_H

#include "core/arena.h"
#include "core/err.h"
#include "promql/ast.h"
#include "promql/labels.h"
#include "promql/match.h"

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
#define GW_PQ_WARN_MAX 8
#define GW_PQ_WARN_LEN 400
struct gw_pq_warnings {
	size_t n;    /* in msg, distinct */
	size_t more; /* left out once msg was full */
	char msg[GW_PQ_WARN_MAX][GW_PQ_WARN_LEN];
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
	 * its first sample, and the aggregate `agg` (enum gw_pq_tier_agg) of the
	 * rest at the time of its last sample. Evaluated at multiples of res with
	 * ranges that are too, a selector gives exactly what the raw samples give
	 * (see store/rollup.h); the engine asks only then. NULL: never used.
	 */
	int (*select_tier)(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
			   int64_t res, int agg, struct gw_arena *arena, struct gw_series_set *out,
			   struct gw_err *err);
	/*
	 * Optional: this querier for one query, its calls adding to w what
	 * they skipped; the copy's context lives in arena. NULL: the querier
	 * reports nothing (what it cannot read fails the call or is left out).
	 */
	int (*with_warnings)(void *ctx, struct gw_pq_warnings *w, struct gw_arena *arena, struct gw_querier *out);
};

/* What a tiered selection stands in for. */
enum gw_pq_tier_agg { GW_PQ_TIER_LAST, GW_PQ_TIER_MIN, GW_PQ_TIER_MAX, GW_PQ_TIER_SUM, GW_PQ_TIER_COUNT };

struct gw_vsample {
	struct gw_labels labels;
	int64_t t;
	double v;
};

struct gw_vector {
	struct gw_vsample *s;
	size_t n;
};

/* A range query result, or an instant query's range vector. */
struct gw_matrix {
	struct gw_series *s;
	size_t n;
};

struct gw_pq_result {
	enum gw_pq_type type;
	double scalar; /* also the value of a string result's time */
	int64_t t;     /* time of a scalar / string */
	const char *string;
	struct gw_vector vector;
	struct gw_matrix matrix;
};

struct gw_pq_opts {
	int64_t lookback_ms;      /* default 5 m */
	int64_t subquery_step_ms; /* default step of subqueries without one: 1 m */
	size_t max_samples;       /* samples loaded per query (default 50 M) */
	int64_t timeout_ms;       /* 0: none */
	bool no_tiers;            /* read raw samples even where a tier would give the same answer */
	int64_t tier_min_span_ms; /* use a tier only for selections this long (default 6 h) */
};

/* Evaluate at one time (ms). */
int gw_promql_instant(const struct gw_pq_node *root, const struct gw_querier *q, int64_t t,
		      const struct gw_pq_opts *opts, struct gw_arena *arena, struct gw_pq_result *out,
		      struct gw_err *err);

/* Evaluate from start to end by step (ms); the result is a matrix. */
int gw_promql_range(const struct gw_pq_node *root, const struct gw_querier *q, int64_t start, int64_t end,
		    int64_t step, const struct gw_pq_opts *opts, struct gw_arena *arena, struct gw_matrix *out,
		    struct gw_err *err);

#endif
