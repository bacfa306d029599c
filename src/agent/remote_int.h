/*
 * remote_int.h - what remote_write.c (windows, position, metrics) and
 * remote_send.c (HTTP: one request and its retries) share. Not public.
 */
#ifndef GW_AGENT_REMOTE_INT_H
#define GW_AGENT_REMOTE_INT_H

#include "agent/remote_write.h"
#include "export/remote_write.h"
#include "export/snappy.h"
#include "http/curl.h"
#include "model/match.h"

#include <pthread.h>
#include <stdatomic.h>

struct rw_writer;

/* One shard's sender: its curl handle (kept, so connections are reused) and scratch buffers. */
struct rw_conn {
	CURL *easy;
	struct gw_buf pb, body;
	char answer[256]; /* the first bytes of a refusal, for the log */
	size_t answer_len;
	int64_t retry_after_ms; /* the answer's Retry-After; -1: none */
};

/* One URL. The counters are written by its threads and read by /metrics. */
struct rw_writer {
	const struct gw_rw_opts *o;
	struct agent_rw *rw;
	char url[512];	 /* without user:password@, for labels and logs */
	char state[600]; /* the position's file; "" without a storage path */
	char password[256], token[1024];
	struct curl_slist *headers;
	struct gw_matcher m[2];
	size_t nm;
	struct rw_conn *conns; /* [max_shards], made when first used */
	pthread_t thread;
	bool started;
	int64_t acked;		   /* position: everything up to it answered */
	_Atomic int64_t acked_pub; /* the same, for /metrics */
	_Atomic int64_t read_to;   /* the end of the window read last: appends at or before it are late */
	_Atomic uint64_t late;
	_Atomic uint64_t sent, failed, retried, failures, bytes, pending;
	_Atomic unsigned int shards;
	/* the failure logged last and when (one line a minute while it lasts) */
	pthread_mutex_t log_mu;
	int64_t logged_ms;
	bool failing;
	int64_t refused_logged_ms; /* the last refusal logged; 0: none yet */
	uint64_t refused_since;	   /* samples refused since then */
};

/* All URLs, and what they share. */
struct agent_rw {
	struct gw_agent *a;
	struct gw_curl curl;
	struct gw_snappy snappy;
	struct rw_writer *w;
	size_t n;
	char user_agent[64];
	pthread_mutex_t mu; /* stop and its condition: sleeps end at once when stopping */
	pthread_cond_t cv;
	_Atomic bool stop;
};

/* remote_send.c */
enum rw_outcome { RW_SENT, RW_REFUSED, RW_STOPPED };
int rw_conn_setup(struct rw_writer *w, struct rw_conn *c, struct gw_err *err);
void rw_conn_release(struct agent_rw *rw, struct rw_conn *c);
/* Send body (samples of them) until it is answered for good or the agent stops. */
enum rw_outcome rw_send(struct rw_writer *w, struct rw_conn *c, uint64_t samples);
/* Sleep up to ms, less when stopping; false when stopping. */
bool rw_sleep(struct agent_rw *rw, int64_t ms);
void rw_log_failure(struct rw_writer *w, const char *what);

#endif
