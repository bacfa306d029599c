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
#include "model/labels.h"
#include "model/match.h"
#include "model/storage.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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
