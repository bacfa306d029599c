/*
 * remote_write.h - the agent's remote writers (--remote-write.url): every
 * sample the history stores, sent to each URL with Prometheus' remote-write
 * 1.0 protocol (export/remote_write.h), with the store as the write-ahead
 * log.
 *
 * Each URL has a position: the time stamp up to which everything was
 * acknowledged (or refused for good). Its writer reads the store in
 * windows (position, end]: every series' samples in that time range, end
 * never past what the last flush wrote (store/tsdb.h gw_tsdb_durable_t)
 * less a settling margin, so what it sends is on disk and later appends
 * cannot land behind it. A window is split into shards by a hash of each
 * series' labels (a series' samples in a window go to one shard, in
 * time order; windows go one after another) and each shard into requests of at most
 * max_samples_per_send samples, sent one after another; the shards of a
 * window go out at once. When every request of a window was answered, the
 * position moves to its end and is written to DIR/remote_write/<id>
 * (atomically, by rename); before a window is sent its end is written
 * there too, so that an agent killed mid-window re-sends that same window,
 * cut into the same requests, when it starts again: the receiver then
 * refuses (as duplicates) only requests it already holds whole. A receiver
 * that is down for hours gets everything since the position, in order,
 * when it returns, as far as retention kept it.
 *
 * Answers are handled as Prometheus 2.42 handles them: 2xx done; 5xx,
 * and 429 with retry_on_429, and a failed connection retried with backoff
 * (min_backoff doubling up to max_backoff; the answer's Retry-After when given)
 * until answered; any other answer drops the request and counts its
 * samples as failed.
 *
 * Ownership: embedded in the agent (agent_int.h); open/close pair; options
 * borrowed from the agent's. Threading: one thread per URL, plus one per
 * extra shard while a window is sent; render from any thread.
 */
#ifndef GW_AGENT_REMOTE_WRITE_H
#define GW_AGENT_REMOTE_WRITE_H

#include "core/err.h"
#include "export/expfmt.h"

#include <stdbool.h>
#include <stdint.h>

#define GW_RW_MAX_HEADERS 16

/* One --remote-write.url and the options that follow it. Zero: the default. */
struct gw_rw_opts {
	const char *url;
	const char *username, *password, *password_file; /* basic auth */
	const char *bearer_token, *bearer_token_file;	 /* Authorization: Bearer */
	const char *ca_file, *cert_file, *key_file;
	bool insecure_skip_verify;
	const char *headers[GW_RW_MAX_HEADERS]; /* "Name: value" */
	unsigned int nheaders;
	const char *keep, *drop;		/* regexes on the metric name, anchored */
	int64_t timeout_ms;			/* a request's; default 30 s (remote_timeout) */
	unsigned int max_shards;		/* default 200 */
	unsigned int max_samples_per_send;	/* default 500 */
	int64_t batch_send_deadline_ms;		/* default 5 s */
	int64_t min_backoff_ms, max_backoff_ms; /* default 30 ms, 5 s */
	bool retry_on_429;			/* default false, as 2.42 */
};

struct gw_agent;
struct agent_rw;

/* Check the options, load libcurl and libsnappy, start one writer per URL. No URL: nothing. */
int agent_rw_open(struct gw_agent *a, struct gw_err *err);
/* Stop the writers (a request in flight is abandoned; its window is sent again on the next start). */
void agent_rw_stop(struct gw_agent *a);
/* Stop them if still running, and free them: after the rules' evaluator, which notes its appends here. */
void agent_rw_close(struct gw_agent *a);
/*
 * A sample just appended at time t (ms) by other than the sampler (rule
 * results, the OOM forecast, the health watches): counted as late for each
 * URL whose writer has already read past t, since it will not be sent
 * there. Any thread.
 */
void agent_rw_note_append(struct gw_agent *a, int64_t t);
/* gpuwatch_remote_write_* families. */
void agent_rw_render(struct gw_agent *a, struct gw_expfmt *w);

#endif
