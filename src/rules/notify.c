/*
 * notify.c - the notifier (notify.h): its queue, its sinks and its metrics.
 * The sender thread and the HTTP requests are in notify_send.c; the bodies
 * in notify_body.c.
 *
 * Per-sink progress. Every sink (each Alertmanager, each webhook, the log)
 * has its own position in one queue of alerts, numbered in the order they
 * were sent. A sink takes up to 64 alerts from its position into a body of
 * its own and moves on; an alert leaves the queue once every sink has taken
 * it. A failed request (no connection, timeout, 5xx) is sent again, the
 * same body, after a backoff of 100 ms doubling to 10 s, while that sink
 * takes nothing new; the other sinks go on. So a dead Alertmanager delays
 * nobody else: the alerts it has not taken stay queued until the queue's
 * bound, and then the oldest of them are dropped (and counted) as
 * Prometheus drops its queue's oldest. A 4xx is logged, counted as an
 * error and not sent again: the receiver will not take that body.
 *
 * Counting follows Prometheus' notifier, so its mixins' alerts read our
 * families alike: _sent_total adds a batch's alerts at every attempt,
 * _errors_total counts failed requests, _latency_seconds observes each
 * request. Webhooks are counted too, labelled with their URL.
 */
#include "rules/notify_int.h"

#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_DEFAULT 10000
#define TIMEOUT_DEFAULT_MS 10000
#define ALERTMANAGER_PATH "/api/v2/alerts"

static char *url_join(const char *base, const char *path)
{
	size_t len = strlen(base);
	while (len && base[len - 1] == '/')
		len--;
	size_t size = len + strlen(path) + 1;
	char *u = malloc(size);
	if (u)
		snprintf(u, size, "%.*s%s", (int)len, base, path);
	return u;
}

static int add_sink(struct gw_notifier *n, enum notify_sink_kind kind, const char *url, struct gw_err *err)
{
	struct notify_sink *s = &n->sinks[n->nsinks];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	gw_buf_init(&s->body, NOTIFY_BODY_LIMIT);
	n->nsinks++;
	if (kind == NOTIFY_LOG)
		return 0;
	if (!url || !*url)
		return gw_err_set(err, GW_EINVAL, "empty %s URL",
				  kind == NOTIFY_AM ? "alertmanager" : "webhook");
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return gw_err_set(err, GW_EINVAL, "%s URL \"%s\" is not http:// or https://",
				  kind == NOTIFY_AM ? "alertmanager" : "webhook", url);
	s->url = kind == NOTIFY_AM ? url_join(url, ALERTMANAGER_PATH) : strdup(url);
	if (!s->url)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	return 0;
}

static int copy_opts(struct gw_notifier *n, const struct gw_notifier_opts *o, struct gw_err *err)
{
	n->cap = o->queue_capacity ? o->queue_capacity : QUEUE_DEFAULT;
	n->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : TIMEOUT_DEFAULT_MS;
	n->logf = o->logf;
	n->ring = calloc(n->cap, sizeof(*n->ring));
	n->sinks = calloc(o->nalertmanagers + o->nwebhooks + 1, sizeof(*n->sinks));
	/* the external labels, owned: a copy of an alert that has only them */
	struct gw_alert_msg ext = {.labels = o->external};
	struct gw_labels none = {NULL, 0};
	n->external = notify_alert_copy(&ext, &none);
	if (!n->ring || !n->sinks || !n->external)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (o->basic_user && !(n->user = strdup(o->basic_user)))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (o->basic_password && !(n->password = strdup(o->basic_password)))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (o->external_url && !(n->external_url = strdup(o->external_url)))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < o->nalertmanagers && !rc; i++)
		rc = add_sink(n, NOTIFY_AM, o->alertmanagers[i], err);
	n->nalertmanagers = o->nalertmanagers;
	for (size_t i = 0; i < o->nwebhooks && !rc; i++)
		rc = add_sink(n, NOTIFY_WEBHOOK, o->webhooks[i], err);
	if (!rc && o->log)
		rc = add_sink(n, NOTIFY_LOG, NULL, err);
	return rc;
}

static void release(struct gw_notifier *n)
{
	for (uint64_t q = n->head; n->ring && q < n->tail; q++)
		free(n->ring[q % n->cap]);
	free(n->ring);
	for (size_t i = 0; i < n->nsinks; i++) {
		free(n->sinks[i].url);
		gw_buf_release(&n->sinks[i].body);
	}
	free(n->sinks);
	free(n->external);
	free(n->user);
	free(n->password);
	free(n->external_url);
	pthread_cond_destroy(&n->wake);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

int gw_notifier_new(struct gw_notifier **out, const struct gw_notifier_opts *o, struct gw_err *err)
{
	*out = NULL;
	struct gw_notifier *n = calloc(1, sizeof(*n));
	if (!n)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	pthread_mutex_init(&n->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->wake, &ca);
	pthread_condattr_destroy(&ca);
	snprintf(n->user_agent, sizeof(n->user_agent), "gpuwatch/%s", GW_VERSION);
	int rc = copy_opts(n, o, err);
	if (!rc)
		rc = notify_send_open(n, err);
	if (rc) {
		release(n);
		return rc;
	}
	*out = n;
	return 0;
}

void gw_notifier_free(struct gw_notifier *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->lock);
	n->stopping = true;
	n->kick = true;
	n->drain_until_ms = notify_mono_ms() + n->timeout_ms;
	pthread_mutex_unlock(&n->lock);
	notify_send_close(n);
	release(n);
}

/* The first alert some sink has yet to take. */
static uint64_t first_untaken(const struct gw_notifier *n)
{
	uint64_t m = n->tail;
	for (size_t i = 0; i < n->nsinks; i++)
		if (n->sinks[i].next < m)
			m = n->sinks[i].next;
	return m;
}

void notify_queue_trim(struct gw_notifier *n)
{
	uint64_t keep = first_untaken(n);
	for (; n->head < keep; n->head++) {
		free(n->ring[n->head % n->cap]);
		n->ring[n->head % n->cap] = NULL;
	}
}

/* Make room for one alert: the oldest goes, untaken by some sink (else trim had freed it). */
static void drop_oldest(struct gw_notifier *n)
{
	free(n->ring[n->head % n->cap]);
	n->ring[n->head % n->cap] = NULL;
	n->head++;
	n->dropped++;
	for (size_t i = 0; i < n->nsinks; i++)
		if (n->sinks[i].next < n->head)
			n->sinks[i].next = n->head;
}

#define SEND_CHUNK 256 /* copies made outside the lock at a time */

void gw_notifier_send(struct gw_notifier *n, const struct gw_alert_msg *a, size_t na)
{
	struct notify_alert *copies[SEND_CHUNK];
	for (size_t at = 0; at < na; at += SEND_CHUNK) {
		size_t k = na - at < SEND_CHUNK ? na - at : SEND_CHUNK;
		for (size_t i = 0; i < k; i++)
			copies[i] = notify_alert_copy(&a[at + i], &n->external->labels);
		pthread_mutex_lock(&n->lock);
		for (size_t i = 0; i < k; i++) {
			if (!copies[i]) {
				n->dropped++; /* out of memory: as good as dropped */
				continue;
			}
			if (n->tail - n->head == n->cap)
				drop_oldest(n);
			n->ring[n->tail % n->cap] = copies[i];
			n->tail++;
		}
		notify_queue_trim(n); /* no sinks: nothing keeps the alerts */
		n->kick = true;
		pthread_mutex_unlock(&n->lock);
	}
	notify_send_wake(n);
}

static void family(struct gw_expfmt *w, const char *name, const char *help, enum gw_metric_type type,
		   double v)
{
	gw_expfmt_family(w, name, help, type);
	gw_expfmt_sample(w, NULL, 0, v);
}

enum sink_metric { SENT, ERRORS, LATENCY };

/* One family with a sample per sink that posts. */
static void per_sink(struct gw_expfmt *w, const struct gw_notifier *n, const char *name, const char *help,
		     enum gw_metric_type type, enum sink_metric m)
{
	gw_expfmt_family(w, name, help, type);
	for (size_t i = 0; i < n->nsinks; i++) {
		const struct notify_sink *s = &n->sinks[i];
		if (s->kind == NOTIFY_LOG)
			continue;
		struct gw_label l = {"alertmanager", s->url};
		if (m == SENT)
			gw_expfmt_sample(w, &l, 1, (double)s->sent);
		else if (m == ERRORS)
			gw_expfmt_sample(w, &l, 1, (double)s->errors);
		else {
			gw_expfmt_sample_suffix(w, "_sum", &l, 1, s->latency_sum_s);
			gw_expfmt_sample_suffix(w, "_count", &l, 1, (double)s->latency_count);
		}
	}
}

void gw_notifier_render(void *arg, struct gw_expfmt *w)
{
	struct gw_notifier *n = arg;
	const enum gw_metric_type G = GW_METRIC_GAUGE, C = GW_METRIC_COUNTER;
	pthread_mutex_lock(&n->lock);
	family(w, "gpuwatch_notifications_queue_length", "The number of alert notifications in the queue.", G,
	       (double)(n->tail - n->head));
	family(w, "gpuwatch_notifications_queue_capacity", "The capacity of the alert notifications queue.",
	       G, (double)n->cap);
	family(w, "gpuwatch_notifications_dropped_total",
	       "Total number of alerts dropped: the queue was full (its oldest go first) or out of memory.",
	       C, (double)n->dropped);
	per_sink(w, n, "gpuwatch_notifications_sent_total",
		 "Total number of alerts sent, at every attempt (as Prometheus counts them).", C, SENT);
	per_sink(w, n, "gpuwatch_notifications_errors_total",
		 "Total number of errors sending alert notifications.", C, ERRORS);
	per_sink(w, n, "gpuwatch_notifications_latency_seconds", "Latency of sending alert notifications.",
		 GW_METRIC_SUMMARY, LATENCY);
	family(w, "gpuwatch_notifications_alertmanagers_discovered",
	       "The number of alertmanagers discovered and active.", G, (double)n->nalertmanagers);
	pthread_mutex_unlock(&n->lock);
}
