/*
 * prom_api.h - Prometheus' HTTP query API over any querier, so Grafana and
 * other Prometheus clients can use gpuwatch directly as a data source:
 * /api/v1/query, /api/v1/query_range, /api/v1/series, /api/v1/labels,
 * /api/v1/label/<name>/values, /api/v1/metadata, /api/v1/query_exemplars
 * (none), /api/v1/status/{buildinfo,config,flags,runtimeinfo},
 * /api/v1/targets;
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
#include "core/buf.h"
#include "http/server.h"
#include "promql/engine.h"

/* The server as a scrape target of its own: /api/v1/targets. */
struct gw_api_target {
	int64_t last_ms;   /* the last sample's time; 0: none yet */
	double duration_s; /* how long taking it took */
	bool up;
	char error[256]; /* why not, when not up */
};

/*
 * What the status endpoints say about the server; every member may be
 * left zero. Prometheus' shapes with the server's own contents:
 * /api/v1/status/config (config_yaml), /api/v1/status/flags (its flags),
 * /api/v1/status/runtimeinfo, /api/v1/targets (itself, as job/instance).
 */
struct gw_api_status {
	int64_t start_ms;
	const char *const *flags; /* name, value, name, value, ..., NULL */
	const char *config_yaml;
	const char *retention; /* "15d", "15d or 10GiB" */
	const char *job, *instance, *scrape_url;
	const char *address; /* host:port scraped (the target's __address__); NULL: instance */
	int64_t interval_ms;
	void (*target)(void *ctx, struct gw_api_target *out);
	void *ctx;
};

struct gw_api {
	struct gw_querier q;
	struct gw_pq_opts opts; /* lookback, default and maximum timeout */
	size_t arena_limit;     /* bytes one query may use (default 512 MiB) */
	struct gw_arena_pool *pool; /* memory kept between queries (NULL: none) */
	/* Writes the JSON object of /api/v1/metadata's "data": metric NULL for
	 * every family, at most limit families (below 0: all). May be NULL: {}. */
	void (*metadata)(void *ctx, const char *metric, long limit, struct gw_buf *out);
	void *metadata_ctx;
	const char *version; /* what buildinfo calls the version (a Prometheus release: see prom_status.c) */
	const char *server_version; /* the server's own version, in buildinfo's "revision" */
	const struct gw_api_status *status; /* NULL: the status endpoints answer with what they can */
	/* The clock for defaults (query time, series ranges): ms since the epoch. */
	int64_t (*now_ms)(void);
};

#define GW_API_NROUTES 12

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
