/*
 * remote_send.c - one remote-write request and its retries, as Prometheus
 * 2.42's queue manager sends one: 2xx is done; 5xx, a failed connection,
 * and 429 when retry_on_429 is set are retried after a backoff that starts
 * at min_backoff and doubles up to max_backoff (the answer's Retry-After,
 * when it gives one, instead), for as long as it takes; any other answer is final and
 * the request's samples count as failed.
 */
#include "agent/agent_int.h"
#include "agent/remote_int.h"

#include "core/logq.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The answer's first bytes, for the log; the rest is read and dropped. */
static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct rw_conn *c = arg;
	size_t len = size * n, room = sizeof(c->answer) - 1 - c->answer_len;
	size_t take = len < room ? len : room;
	memcpy(c->answer + c->answer_len, p, take);
	c->answer_len += take;
	c->answer[c->answer_len] = '\0';
	return len;
}

/* Retry-After in seconds (receivers do not send the HTTP-date form). */
static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct rw_conn *c = arg;
	size_t len = size * n;
	static const char name[] = "retry-after:";
	if (len > sizeof(name) - 1 && strncasecmp(p, name, sizeof(name) - 1) == 0) {
		const char *v = p + sizeof(name) - 1;
		while (v < p + len && (*v == ' ' || *v == '\t'))
			v++;
		if (v < p + len && isdigit((unsigned char)*v))
			c->retry_after_ms = strtoll(v, NULL, 10) * 1000;
	}
	return len;
}

/* An agent that stops abandons the request in flight (its window is sent again at the next start). */
static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct rw_writer *w = arg;
	(void)dt, (void)dn, (void)ut, (void)un;
	return atomic_load(&w->rw->stop) ? 1 : 0;
}

int rw_conn_setup(struct rw_writer *w, struct rw_conn *c, struct gw_err *err)
{
	const struct gw_curl *cu = &w->rw->curl;
	const struct gw_rw_opts *o = w->o;
	gw_buf_init(&c->pb, (size_t)256 << 20);
	gw_buf_init(&c->body, (size_t)256 << 20);
	CURL *e = c->easy = cu->curl_easy_init();
	if (!e)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	cu->curl_easy_setopt(e, CURLOPT_URL, o->url);
	cu->curl_easy_setopt(e, CURLOPT_POST, 1L);
	cu->curl_easy_setopt(e, CURLOPT_HTTPHEADER, w->headers);
	cu->curl_easy_setopt(e, CURLOPT_USERAGENT, w->rw->user_agent);
	cu->curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	cu->curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	cu->curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	cu->curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
	cu->curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	cu->curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	cu->curl_easy_setopt(e, CURLOPT_XFERINFODATA, w);
	cu->curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	cu->curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
	cu->curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)o->timeout_ms);
	if (o->username) {
		cu->curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		cu->curl_easy_setopt(e, CURLOPT_USERNAME, o->username);
		cu->curl_easy_setopt(e, CURLOPT_PASSWORD, w->password);
	}
	if (o->ca_file)
		cu->curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
	if (o->cert_file)
		cu->curl_easy_setopt(e, CURLOPT_SSLCERT, o->cert_file);
	if (o->key_file)
		cu->curl_easy_setopt(e, CURLOPT_SSLKEY, o->key_file);
	if (o->insecure_skip_verify) {
		cu->curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		cu->curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return 0;
}

void rw_conn_release(struct agent_rw *rw, struct rw_conn *c)
{
	if (c->easy)
		rw->curl.curl_easy_cleanup(c->easy);
	c->easy = NULL;
	gw_buf_release(&c->pb);
	gw_buf_release(&c->body);
}

bool rw_sleep(struct agent_rw *rw, int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&rw->mu);
	while (!atomic_load(&rw->stop))
		if (pthread_cond_timedwait(&rw->cv, &rw->mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&rw->mu);
	return !atomic_load(&rw->stop);
}

/* The first failure at once, then one line a minute while they go on. */
void rw_log_failure(struct rw_writer *w, const char *what)
{
	struct gw_agent *a = w->rw->a;
	int64_t now = gw_now_ms();
	pthread_mutex_lock(&w->log_mu);
	bool say = !w->failing || now - w->logged_ms >= 60000;
	if (say) {
		w->failing = true;
		w->logged_ms = now;
	}
	pthread_mutex_unlock(&w->log_mu);
	if (say) {
		char q[600];
		a->o.log("warn",
			 "msg=\"remote write failing\" url=%s err=\"%s\" failures=%llu hint=\"retried until "
			 "answered; the samples wait in the store\"",
			 w->url, gw_logq(q, sizeof(q), what), (unsigned long long)atomic_load(&w->failures));
	}
}

/* A refusal: the first at once, then one line a minute saying how many samples went since. */
static void log_refused(struct rw_writer *w, uint64_t samples, const char *why)
{
	int64_t now = gw_now_ms();
	pthread_mutex_lock(&w->log_mu);
	w->refused_since += samples;
	uint64_t n = w->refused_since;
	bool say = !w->refused_logged_ms || now - w->refused_logged_ms >= 60000;
	if (say) {
		w->refused_logged_ms = now;
		w->refused_since = 0;
	}
	pthread_mutex_unlock(&w->log_mu);
	if (!say)
		return;
	char q[GW_ERR_MSG_MAX + 64];
	w->rw->a->o.log(
	    "error",
	    "msg=\"remote write refused; samples dropped\" url=%s samples=%llu err=\"%s\" "
	    "hint=\"logged at most once a minute; gpuwatch_remote_write_samples_failed_total counts them\"",
	    w->url, (unsigned long long)n, gw_logq(q, sizeof(q), why));
}

static void log_recovered(struct rw_writer *w)
{
	pthread_mutex_lock(&w->log_mu);
	bool was = w->failing;
	w->failing = false;
	pthread_mutex_unlock(&w->log_mu);
	if (was)
		w->rw->a->o.log("info", "msg=\"remote write resumed\" url=%s", w->url);
}

enum rw_outcome rw_send(struct rw_writer *w, struct rw_conn *c, uint64_t samples)
{
	const struct gw_curl *cu = &w->rw->curl;
	const struct gw_rw_opts *o = w->o;
	int64_t backoff = o->min_backoff_ms;
	cu->curl_easy_setopt(c->easy, CURLOPT_POSTFIELDS, c->body.data);
	cu->curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body.len);
	for (;;) {
		if (atomic_load(&w->rw->stop))
			return RW_STOPPED;
		c->answer_len = 0;
		c->answer[0] = '\0';
		c->retry_after_ms = -1;
		CURLcode cc = cu->curl_easy_perform(c->easy);
		long code = 0;
		cu->curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
		if (cc == CURLE_ABORTED_BY_CALLBACK || atomic_load(&w->rw->stop))
			return RW_STOPPED;
		char why[GW_ERR_MSG_MAX];
		bool retry;
		if (cc != CURLE_OK) {
			snprintf(why, sizeof(why), "%s", cu->curl_easy_strerror(cc));
			retry = true;
		} else if (code / 100 == 2) {
			atomic_fetch_add(&w->sent, samples);
			atomic_fetch_add(&w->bytes, (uint64_t)c->body.len);
			log_recovered(w);
			return RW_SENT;
		} else {
			/* the receiver's first line says why */
			char *nl = strchr(c->answer, '\n');
			if (nl)
				*nl = '\0';
			snprintf(why, sizeof(why), "server returned HTTP status %ld: %s", code, c->answer);
			retry = code / 100 == 5 || (code == 429 && o->retry_on_429);
		}
		atomic_fetch_add(&w->failures, 1);
		if (!retry) {
			/* refused for good: Prometheus drops such a request and counts its samples */
			atomic_fetch_add(&w->failed, samples);
			log_refused(w, samples, why);
			return RW_REFUSED;
		}
		atomic_fetch_add(&w->retried, samples);
		rw_log_failure(w, why);
		int64_t wait = c->retry_after_ms >= 0 && code ? c->retry_after_ms : backoff;
		if (!rw_sleep(w->rw, wait))
			return RW_STOPPED;
		backoff = backoff * 2 > o->max_backoff_ms ? o->max_backoff_ms : backoff * 2;
	}
}
