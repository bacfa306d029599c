/*
 * prom_api.h - Prometheus' HTTP query API over any querier, so Grafana and
 * other Prometheus clients can use gpuwatch directly as a data source:
 * /api/v1/query, /api/v1/query_range, /api/v1/series, /api/v1/labels,
 * /api/v1/label/<name>/values, /api/v1/metadata, /api/v1/status/buildinfo;
 * GET and form-encoded POST; Prometheus' JSON shapes, error types and
 * statuses (400 bad_data, 422 execution, 503 timeout), and its limit of
 * 11,000 points per series.
 *
 * Ownership: the caller owns struct gw_api and whatever its querier and
 * metadata callback point at; they must outlive the HTTP server.
 * Threading: handlers run concurrently; each query has its own arena, so
 * the querier must be safe for concurrent select() calls.
 */
#ifndef GW_API_PROM_API_H
#define GW_API_PROM_API_H

#include "core/arena.h"
#include "http/server.h"
#include "promql/engine.h"

struct gw_api {
	struct gw_querier q;
	struct gw_pq_opts opts; /* lookback, default and maximum timeout */
	size_t arena_limit;     /* bytes one query may use (default 512 MiB) */
	struct gw_arena_pool *pool; /* memory kept between queries (NULL: none) */
	/* Writes the JSON object of /api/v1/metadata's "data" (may be NULL: {}). */
	void (*metadata)(void *ctx, const char *metric, struct gw_buf *out);
	void *metadata_ctx;
	const char *version;
	/* The clock for defaults (query time, series ranges): ms since the epoch. */
	int64_t (*now_ms)(void);
};

#define GW_API_NROUTES 7

/* Fill routes (GW_API_NROUTES entries) whose handlers use api. */
void gw_api_routes(struct gw_api *api, struct gw_http_route *routes);

/* The "data" object of an API answer: an instant result, or a range matrix (sorted by labels). */
void gw_api_json_result(struct gw_buf *b, struct gw_pq_result *res);
void gw_api_json_matrix(struct gw_buf *b, struct gw_matrix *m);

/* Parse a Prometheus time parameter: float seconds or RFC 3339. */
int gw_api_parse_time(const char *s, int64_t *ms);
/* Parse a duration parameter: float seconds or a PromQL duration ("15s"). */
int gw_api_parse_duration(const char *s, int64_t *ms);

#endif
