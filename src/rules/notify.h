/*
 * notify.h - delivery of alerts off the evaluation path: to Alertmanager's
 * v2 API as Prometheus' notifier sends them (POST /api/v2/alerts, JSON
 * arrays of at most 64 alerts, the same batch to every Alertmanager, a
 * bounded queue that drops its oldest alerts when full), to generic
 * webhooks (Alertmanager's webhook payload, version "4"), and to the log.
 *
 * gw_notifier_send() only copies the alerts into the queue and wakes the
 * sender thread: a slow, dead or failing receiver never blocks the caller
 * (the rule evaluator), sampling, scrapes or queries. A batch that fails
 * (connection refused, timeout, 5xx) is retried with backoff while newer
 * alerts wait behind it, up to the queue's bound; a 4xx is not retried
 * (the receiver will not take it), as Prometheus does. Drops and errors are
 * counted in the gpuwatch_notifications_* families.
 *
 * Ownership: _new/_free; alerts passed to send are copied. Threading: send
 * and render may be called from any thread; one sender thread per
 * notifier, joined by _free (which gives the queue up to its timeout to
 * drain).
 */
#ifndef GW_RULES_NOTIFY_H
#define GW_RULES_NOTIFY_H

#include "core/err.h"
#include "export/expfmt.h"
#include "model/labels.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One alert as Alertmanager's v2 API takes it. */
struct gw_alert_msg {
	struct gw_labels labels;      /* alertname first is not required; sorted by name */
	struct gw_labels annotations; /* sorted by name */
	int64_t starts_ms;
	int64_t ends_ms;              /* firing: when it lapses unless resent; resolved: when it resolved */
	const char *generator_url;    /* NULL: none */
};

struct gw_notifier_opts {
	const char *const *alertmanagers; /* base URLs ("http://am:9093"; /api/v2/alerts is appended) */
	size_t nalertmanagers;
	const char *const *webhooks; /* URLs posted the webhook payload as is */
	size_t nwebhooks;
	bool log;                    /* also log every alert sent (key=value lines) */
	struct gw_labels external;   /* added to every alert's labels where it lacks them */
	size_t queue_capacity;       /* alerts; default 10000 */
	int64_t timeout_ms;          /* per request; default 10 s */
	const char *basic_user, *basic_password; /* NULL: none */
	const char *external_url;    /* the webhook payload's externalURL (copied); NULL: "" */
	void (*logf)(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

struct gw_notifier;

int gw_notifier_new(struct gw_notifier **out, const struct gw_notifier_opts *o, struct gw_err *err);

/* Queue alerts for every sink (copied); never blocks on a receiver. */
void gw_notifier_send(struct gw_notifier *n, const struct gw_alert_msg *a, size_t na);

/*
 * gpuwatch_notifications_queue_length, _queue_capacity, _dropped_total,
 * _sent_total{alertmanager}, _errors_total{alertmanager},
 * _latency_seconds{alertmanager} (summary), gpuwatch_notifications_alertmanagers_discovered.
 */
void gw_notifier_render(void *n, struct gw_expfmt *w);

/* Stop the sender after at most opts.timeout_ms of draining; NULL is a no-op. */
void gw_notifier_free(struct gw_notifier *n);

#endif
