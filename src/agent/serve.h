/*
 * serve.h - `gpuwatch serve`: Prometheus' query API, metadata and status
 * over a store that no agent is writing (imported nvidia-smi logs, a store
 * copied off a node, `sim record`'s), without touching a GPU. The same
 * routes as the agent's history (agent/history.c, api/), on the same
 * bounded query pool, with /-/healthy, /-/ready, /health and a landing page.
 *
 * Ownership: gw_serve_start() borrows opts' strings for the server's life
 * and takes the web config (released by gw_serve_free()).
 */
#ifndef GW_AGENT_SERVE_H
#define GW_AGENT_SERVE_H

#include "agent/agent.h"

struct gw_serve_opts {
	const char *address;      /* host:port */
	const char *storage_path; /* an existing store */
	unsigned int max_conns, max_conns_per_ip; /* per-ip 0: no limit */
	int64_t read_header_timeout_ms;           /* 0: none */
	unsigned int query_concurrency;
	int64_t query_timeout_ms;
	unsigned int query_max_samples;
	gw_agent_log_fn log;
};

struct gw_serve;

/* Open the store (it must exist) and start serving; logs where. */
int gw_serve_start(struct gw_serve **out, struct gw_webcfg *web, const struct gw_serve_opts *o, struct gw_err *err);
/* Stop serving and close the store; NULL is a no-op. */
void gw_serve_free(struct gw_serve *s);

#endif
