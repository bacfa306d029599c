/*
 * remote.h - top's remote source: GPUs of other machines through
 * Prometheus' HTTP API, asked by a worker thread so the screen never waits.
 *
 * Two kinds, one mechanism: with --remote every gpuwatch agent is asked
 * directly (its /api/v1/query over its history store) and is one node;
 * with --prometheus one server is asked and the series are grouped into
 * nodes by their instance label. Every refresh each source gets the same
 * instant query (rsnap.h's table); the first refresh also asks for the
 * chart window's history (query_range). Requests run concurrently on
 * libcurl's multi interface with a short connect and total timeout; the
 * worker publishes a snapshot when all answers of a refresh are in, or at
 * half the refresh interval with the late ones marked pending (a hung
 * agent delays nobody). Sources that fail are retried every refresh.
 *
 * Ownership: gw_ui_remote_new/_free; snapshots taken with
 * gw_ui_remote_take belong to the caller (gw_ui_rsnap_free).
 * Threading: all functions are for the one thread that created the
 * source (the UI thread); the worker is internal. The worker blocks
 * SIGINT, SIGTERM, SIGHUP and SIGWINCH so the UI thread gets them.
 */
#ifndef GW_UI_REMOTE_H
#define GW_UI_REMOTE_H

#include "core/err.h"
#include "ui/rsnap.h"

#include <stdbool.h>
#include <stdint.h>

struct gw_ui_remote;

struct gw_ui_remote_opts {
	const char *const *targets; /* --remote: HOST:PORT or URLs; --prometheus: one URL */
	unsigned int ntargets;
	bool prometheus;
	unsigned int interval_ms;
	int64_t window_ms;       /* history asked for at start; 0: none */
	unsigned int timeout_ms; /* connect and answer, per request; 0: 1000 */
};

/* Load libcurl (GW_ENOLIB when missing) and check the targets (GW_EINVAL); starts nothing. */
int gw_ui_remote_new(struct gw_ui_remote **out, const struct gw_ui_remote_opts *o, struct gw_err *err);

/* Start the worker. */
int gw_ui_remote_start(struct gw_ui_remote *r, struct gw_err *err);

/* Stop the worker (waits for it; requests in flight are abandoned) and free everything. NULL is a no-op. */
void gw_ui_remote_free(struct gw_ui_remote *r);

/* A new refresh interval, from the next refresh on. */
void gw_ui_remote_set_interval(struct gw_ui_remote *r, unsigned int interval_ms);

/* A descriptor that becomes readable when a snapshot is published (for poll). */
int gw_ui_remote_fd(const struct gw_ui_remote *r);

/* The newest snapshot published since the last call (older ones are dropped), or NULL. */
struct gw_ui_rsnap *gw_ui_remote_take(struct gw_ui_remote *r);

#endif
