/*
 * notify_int.h - what the notifier's parts share (not a public header):
 * notify.c (the queue, the sinks, the metrics), notify_send.c (the sender
 * thread and its requests) and notify_body.c (the alerts' copies and every
 * body the sinks are sent).
 *
 * A queued alert is one heap block: the struct, its label and annotation
 * pairs and their strings, so the queue frees an alert with one free().
 * A time of 0 ms means "not set" and is written as Go's zero time
 * (0001-01-01T00:00:00Z), as Prometheus would send an unset time.Time.
 *
 * Threading: the notifier's lock guards the queue, every sink's position
 * (next) and metrics, kick and stopping; the rest of a sink (its body, its
 * request, its backoff) is the sender thread's alone.
 */
#ifndef GW_RULES_NOTIFY_INT_H
#define GW_RULES_NOTIFY_INT_H

#include "core/buf.h"
#include "http/curl.h"
#include "model/labels.h"
#include "rules/notify.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct notify_alert {
	struct gw_labels labels;      /* with the external labels it lacked; sorted by name */
	struct gw_labels annotations; /* sorted by name */
	int64_t starts_ms, ends_ms;   /* 0: not set */
	const char *generator_url;    /* "" for none */
};

enum notify_sink_kind { NOTIFY_AM, NOTIFY_WEBHOOK, NOTIFY_LOG };

#define NOTIFY_BATCH_MAX 64		     /* alerts a body holds: Prometheus' maxBatchSize */
#define NOTIFY_BODY_LIMIT ((size_t)64 << 20) /* 64 alerts with long annotations fit many times over */
#define NOTIFY_ANSWER_MAX 256		     /* of a receiver's answer, kept for the error log */

struct notify_sink {
	enum notify_sink_kind kind;
	char *url;     /* where it posts (an Alertmanager's with /api/v2/alerts): the metrics' label */
	uint64_t next; /* the queue's number of the next alert it takes */
	/* the batch taken: sent until it succeeds or is refused */
	struct gw_buf body; /* the log's: its lines, each NUL-terminated */
	size_t nbatch;	    /* alerts in body; 0: none taken */
	CURL *easy;	    /* kept across requests: its connection is reused */
	bool in_flight;
	double started_s;    /* monotonic */
	int64_t retry_at_ms; /* monotonic; when a failed batch goes again */
	int64_t backoff_ms;  /* 0 after a success */
	size_t unbuilt;	     /* alerts taken whose body could not be written (out of memory): dropped */
	int unbuilt_rc;
	char answer[NOTIFY_ANSWER_MAX];
	size_t answer_len;
	/* metrics */
	uint64_t sent, errors, latency_count;
	double latency_sum_s;
};

struct gw_notifier {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* monotonic clock; the sender waits on it when no sink needs curl */
	bool kick;	     /* alerts or a stop arrived since the sender last looked */
	bool stopping;
	int64_t drain_until_ms; /* monotonic; the sender's last moment once stopping */
	/* the queue: alerts numbered head .. tail-1, alert q at ring[q % cap] */
	struct notify_alert **ring;
	size_t cap;
	uint64_t head, tail;
	uint64_t dropped;
	struct notify_sink *sinks;
	size_t nsinks, nalertmanagers;
	struct notify_alert *external; /* its labels: the external labels */
	int64_t timeout_ms;
	char *user, *password; /* NULL: no basic auth */
	char *external_url;    /* the webhook payload's externalURL */
	char user_agent[64];
	void (*logf)(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	/* the sender (notify_send.c) */
	struct gw_curl curl;
	CURLM *multi; /* NULL when no sink posts (the log alone) */
	struct curl_slist *headers;
	struct gw_buf line; /* a log line being written */
	pthread_t thread;
	bool started;
};

/* notify.c: free the alerts every sink has taken (under the lock). */
void notify_queue_trim(struct gw_notifier *n);

/* notify_send.c: load curl when a sink posts, set up the handles, start the sender. */
int notify_send_open(struct gw_notifier *n, struct gw_err *err);
/* Wake the sender (after kick or stopping is set). */
void notify_send_wake(struct gw_notifier *n);
/* Join the sender (stopping set) and free the handles; safe after a failed open. */
void notify_send_close(struct gw_notifier *n);
int64_t notify_mono_ms(void);
double notify_mono_s(void);

/* A copy of a with the external labels it lacks; NULL when out of memory. Freed with free(). */
struct notify_alert *notify_alert_copy(const struct gw_alert_msg *a, const struct gw_labels *external);

/* Alertmanager's v2 API body: a JSON array of the alerts, as Prometheus writes it. */
int notify_body_am(struct gw_buf *b, struct notify_alert *const *a, size_t n);

/* Alertmanager's webhook body (version "4") for one batch; resolved means ends_ms at or before now_ms. */
int notify_body_webhook(struct gw_buf *b, struct notify_alert *const *a, size_t n, int64_t now_ms,
			const char *external_url);

/* One key=value log line for an alert (no newline). */
int notify_log_line(struct gw_buf *b, const struct notify_alert *a, int64_t now_ms);

/* Alertmanager's fingerprint of a label set (prometheus/common model.LabelSet.Fingerprint). */
uint64_t notify_fingerprint(const struct gw_labels *l);

/* Times in UTC: Go's time.Time JSON (RFC3339Nano, trailing zeros trimmed) and
 * go-openapi's strfmt.DateTime (always three fraction digits); out holds
 * NOTIFY_TIME_MAX bytes; NUL-terminated; returns the length. */
#define NOTIFY_TIME_MAX 48
size_t notify_time_rfc3339nano(char *out, int64_t ms);
size_t notify_time_millis(char *out, int64_t ms);

#endif
