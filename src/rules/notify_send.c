/*
 * notify_send.c - the notifier's sender thread: it takes batches for the
 * sinks, posts them through one libcurl multi handle (every sink's request
 * at once, none waiting on another), writes the log's lines, and backs off
 * a failing sink (see notify.c for the policy).
 *
 * The thread sleeps in curl_multi_poll, which send() and free() interrupt
 * with curl_multi_wakeup; when no sink posts (the log alone) libcurl is
 * not loaded and it sleeps on the notifier's condition variable instead.
 */
#include "rules/notify_int.h"

#include "core/logq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 10000
#define IDLE_WAIT_MS 1000 /* the longest sleep: a missed wake-up costs at most this */
#define LOG_LINE_LIMIT ((size_t)1 << 20)

int64_t notify_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double notify_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t real_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define LOG(n, level, ...)                                                                                   \
	do {                                                                                                 \
		if ((n)->logf)                                                                               \
			(n)->logf(level, __VA_ARGS__);                                                       \
	} while (0)

/* The alerts q .. q+k-1 into the sink's body. 0, or the body's error (the batch is lost). */
static int build(struct gw_notifier *n, struct notify_sink *s, uint64_t q, size_t k, int64_t now_ms)
{
	struct notify_alert *batch[NOTIFY_BATCH_MAX];
	for (size_t i = 0; i < k; i++)
		batch[i] = n->ring[(q + i) % n->cap];
	if (s->kind == NOTIFY_AM)
		return notify_body_am(&s->body, batch, k);
	if (s->kind == NOTIFY_WEBHOOK)
		return notify_body_webhook(&s->body, batch, k, now_ms, n->external_url);
	gw_buf_reset(&s->body);
	for (size_t i = 0; i < k; i++) {
		int rc = notify_log_line(&n->line, batch[i], now_ms);
		if (!rc)
			rc = gw_buf_append(&s->body, n->line.data, n->line.len + 1); /* with its NUL */
		if (rc)
			return rc;
	}
	return 0;
}

/* Under the lock: a batch for every sink that has none and has alerts to take. */
static void take(struct gw_notifier *n)
{
	int64_t now = real_ms();
	for (size_t i = 0; i < n->nsinks; i++) {
		struct notify_sink *s = &n->sinks[i];
		if (s->nbatch || s->next >= n->tail)
			continue;
		size_t k =
		    n->tail - s->next < NOTIFY_BATCH_MAX ? (size_t)(n->tail - s->next) : NOTIFY_BATCH_MAX;
		int rc = build(n, s, s->next, k, now);
		s->next += k;
		if (rc) {
			n->dropped += k;
			s->unbuilt += k; /* logged once the lock is released */
			s->unbuilt_rc = rc;
			continue;
		}
		s->nbatch = k;
	}
	notify_queue_trim(n);
}

static void write_log(struct gw_notifier *n, struct notify_sink *s)
{
	const char *line = s->body.data;
	for (size_t i = 0; i < s->nbatch; i++) {
		LOG(n, "info", "%s", line);
		line += strlen(line) + 1;
	}
	s->nbatch = 0;
}

static void start(struct gw_notifier *n, struct notify_sink *s)
{
	const struct gw_curl *c = &n->curl;
	c->curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body.data);
	c->curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->body.len);
	s->answer_len = 0;
	s->answer[0] = '\0';
	s->started_s = notify_mono_s();
	if (c->curl_multi_add_handle(n->multi, s->easy) == CURLM_OK)
		s->in_flight = true;
	else /* as a failed request: backed off and tried again */
		s->retry_at_ms = notify_mono_ms() + BACKOFF_MAX_MS;
}

/* A request ended: count it, and either let the sink move on or back it off. */
static void finish(struct gw_notifier *n, struct notify_sink *s, CURLcode cc)
{
	const struct gw_curl *c = &n->curl;
	long status = 0;
	if (cc == CURLE_OK)
		c->curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	bool ok = cc == CURLE_OK && status / 100 == 2;
	bool refused = cc == CURLE_OK && status / 100 == 4;
	double took = notify_mono_s() - s->started_s;
	s->in_flight = false;
	pthread_mutex_lock(&n->lock);
	s->sent += s->nbatch;
	s->latency_sum_s += took;
	s->latency_count++;
	if (!ok)
		s->errors++;
	pthread_mutex_unlock(&n->lock);
	char why[NOTIFY_ANSWER_MAX + 64], q[2 * sizeof(why)];
	if (cc != CURLE_OK)
		snprintf(why, sizeof(why), "%s", c->curl_easy_strerror(cc));
	else
		snprintf(why, sizeof(why), "HTTP %ld: %s", status, s->answer);
	if (ok || refused) {
		if (refused) /* Prometheus does not send a body again that the receiver refused */
			LOG(n, "error",
			    "msg=\"alerts refused; not sent again\" alertmanager=%s count=%zu err=\"%s\"",
			    s->url, s->nbatch, gw_logq(q, sizeof(q), why));
		s->nbatch = 0;
		s->backoff_ms = 0;
		return;
	}
	s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (s->backoff_ms > BACKOFF_MAX_MS)
		s->backoff_ms = BACKOFF_MAX_MS;
	s->retry_at_ms = notify_mono_ms() + s->backoff_ms;
	LOG(n, "error",
	    "msg=\"error sending alerts; retrying\" alertmanager=%s count=%zu err=\"%s\" retry_in_ms=%lld",
	    s->url, s->nbatch, gw_logq(q, sizeof(q), why), (long long)s->backoff_ms);
}

/* Run the transfers; returns how many ended. */
static int perform(struct gw_notifier *n)
{
	const struct gw_curl *c = &n->curl;
	int running = 0, ended = 0, left = 0;
	c->curl_multi_perform(n->multi, &running);
	CURLMsg *m;
	while ((m = c->curl_multi_info_read(n->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		CURL *e = m->easy_handle;
		CURLcode cc = m->data.result; /* m dies with the handle's removal */
		char *priv = NULL;
		c->curl_easy_getinfo(e, CURLINFO_PRIVATE, &priv);
		struct notify_sink *s = (struct notify_sink *)priv;
		c->curl_multi_remove_handle(n->multi, e);
		finish(n, s, cc);
		ended++;
	}
	return ended;
}

/* Under the lock: every alert taken and delivered (or given up). */
static bool all_done(const struct gw_notifier *n)
{
	for (size_t i = 0; i < n->nsinks; i++)
		if (n->sinks[i].nbatch || n->sinks[i].next < n->tail)
			return false;
	return true;
}

static int64_t wait_ms(const struct gw_notifier *n, int64_t now, int64_t drain_until)
{
	int64_t w = IDLE_WAIT_MS;
	for (size_t i = 0; i < n->nsinks; i++) {
		const struct notify_sink *s = &n->sinks[i];
		if (s->nbatch && !s->in_flight && s->retry_at_ms - now < w)
			w = s->retry_at_ms - now;
	}
	if (drain_until && drain_until - now < w)
		w = drain_until - now;
	return w < 0 ? 0 : w;
}

static void wait_for(struct gw_notifier *n, int64_t ms)
{
	if (n->multi) {
		n->curl.curl_multi_poll(n->multi, NULL, 0, (int)ms, NULL);
		return;
	}
	pthread_mutex_lock(&n->lock);
	if (!n->kick && ms > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += ms / 1000;
		ts.tv_nsec += (ms % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&n->wake, &n->lock, &ts);
	}
	n->kick = false;
	pthread_mutex_unlock(&n->lock);
}

/* The drain ran out: stop what is in flight and say what was not delivered. */
static void abandon(struct gw_notifier *n)
{
	for (size_t i = 0; i < n->nsinks; i++) {
		struct notify_sink *s = &n->sinks[i];
		if (s->in_flight)
			n->curl.curl_multi_remove_handle(n->multi, s->easy);
		s->in_flight = false;
		pthread_mutex_lock(&n->lock);
		uint64_t left = s->nbatch + (n->tail - s->next);
		pthread_mutex_unlock(&n->lock);
		if (left)
			LOG(n, "warn", "msg=\"alerts not delivered at shutdown\" sink=%s count=%llu",
			    s->url ? s->url : "log", (unsigned long long)left);
	}
}

static void *run(void *arg)
{
	struct gw_notifier *n = arg;
	for (;;) {
		int64_t now = notify_mono_ms();
		pthread_mutex_lock(&n->lock);
		int64_t drain_until = n->stopping ? n->drain_until_ms : 0;
		bool done = n->stopping && (now >= drain_until || all_done(n));
		if (!done)
			take(n);
		pthread_mutex_unlock(&n->lock);
		if (done)
			break;
		int ended = 0;
		for (size_t i = 0; i < n->nsinks; i++) {
			struct notify_sink *s = &n->sinks[i];
			if (s->unbuilt)
				LOG(n, "error",
				    "msg=\"alerts dropped: their body could not be written\" sink=%s "
				    "count=%zu err=\"%s\"",
				    s->url ? s->url : "log", s->unbuilt, gw_strerror(s->unbuilt_rc));
			s->unbuilt = 0;
			if (s->kind == NOTIFY_LOG && s->nbatch)
				write_log(n, s);
			else if (s->nbatch && !s->in_flight && now >= s->retry_at_ms)
				start(n, s);
		}
		if (n->multi)
			ended = perform(n);
		if (!ended)
			wait_for(n, wait_ms(n, now, drain_until));
	}
	abandon(n);
	return NULL;
}

static size_t on_answer(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct notify_sink *s = ctx;
	size_t len = size * nmemb, room = sizeof(s->answer) - 1 - s->answer_len;
	size_t k = len < room ? len : room;
	memcpy(s->answer + s->answer_len, data, k);
	s->answer_len += k;
	s->answer[s->answer_len] = '\0';
	return len; /* the rest of a long answer is not needed */
}

static int easy_open(struct gw_notifier *n, struct notify_sink *s, struct gw_err *err)
{
	const struct gw_curl *c = &n->curl;
	CURL *e = s->easy = c->curl_easy_init();
	if (!e)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	c->curl_easy_setopt(e, CURLOPT_URL, s->url);
	c->curl_easy_setopt(e, CURLOPT_POST, 1L);
	c->curl_easy_setopt(e, CURLOPT_HTTPHEADER, n->headers);
	c->curl_easy_setopt(e, CURLOPT_USERAGENT, n->user_agent);
	c->curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_answer);
	c->curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
	c->curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)s);
	c->curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	c->curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)n->timeout_ms);
	c->curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)n->timeout_ms);
	if (n->user) {
		c->curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		c->curl_easy_setopt(e, CURLOPT_USERNAME, n->user);
		c->curl_easy_setopt(e, CURLOPT_PASSWORD, n->password ? n->password : "");
	}
	return 0;
}

static int curl_setup(struct gw_notifier *n, struct gw_err *err)
{
	int rc = gw_curl_open(&n->curl, err);
	if (rc)
		return rc;
	n->multi = n->curl.curl_multi_init();
	n->headers = n->curl.curl_slist_append(NULL, "Content-Type: application/json");
	/* no "Expect: 100-continue" round trip before a large body */
	struct curl_slist *h = n->headers ? n->curl.curl_slist_append(n->headers, "Expect:") : NULL;
	if (!n->multi || !h)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < n->nsinks && !rc; i++)
		if (n->sinks[i].kind != NOTIFY_LOG)
			rc = easy_open(n, &n->sinks[i], err);
	return rc;
}

int notify_send_open(struct gw_notifier *n, struct gw_err *err)
{
	gw_buf_init(&n->line, LOG_LINE_LIMIT);
	bool posts = false;
	for (size_t i = 0; i < n->nsinks; i++)
		posts |= n->sinks[i].kind != NOTIFY_LOG;
	int rc = posts ? curl_setup(n, err) : 0;
	if (!rc && pthread_create(&n->thread, NULL, run, n) != 0)
		rc = gw_err_set(err, GW_ENOMEM, "cannot start the notifier's thread");
	if (rc) {
		notify_send_close(n);
		return rc;
	}
	n->started = true;
	return 0;
}

void notify_send_wake(struct gw_notifier *n)
{
	if (n->multi)
		n->curl.curl_multi_wakeup(n->multi);
	pthread_mutex_lock(&n->lock);
	pthread_cond_signal(&n->wake);
	pthread_mutex_unlock(&n->lock);
}

void notify_send_close(struct gw_notifier *n)
{
	if (n->started) {
		notify_send_wake(n);
		pthread_join(n->thread, NULL);
		n->started = false;
	}
	for (size_t i = 0; i < n->nsinks; i++) {
		if (n->sinks[i].easy)
			n->curl.curl_easy_cleanup(n->sinks[i].easy);
		n->sinks[i].easy = NULL;
	}
	if (n->multi)
		n->curl.curl_multi_cleanup(n->multi);
	n->multi = NULL;
	if (n->headers)
		n->curl.curl_slist_free_all(n->headers);
	n->headers = NULL;
	gw_buf_release(&n->line);
}
