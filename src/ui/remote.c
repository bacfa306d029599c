/*
 * remote.c - the remote source's worker: one libcurl multi handle, every
 * source asked concurrently each refresh, answers parsed on this thread
 * and published to the UI as one snapshot per refresh.
 *
 * An agent (--remote) is read from its /metrics every refresh: served with
 * or without a history store, with the processes and gpuwatch_build_info
 * (the store keeps GPU series only), rendered once per sample however many
 * ask. Its history store is asked once, for the charts' start, and its
 * /api/v1/health every refresh beside /metrics: the incidents behind the
 * gpuwatch_health_status verdicts /metrics carries. The last good health
 * answer stands until the next one (a late one does not blank the
 * incidents); an agent without the route keeps the verdicts of /metrics.
 */
#include "ui/remote.h"

#include "collect/sampler.h"
#include "core/buf.h"
#include "http/curl.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY_MAX (32u << 20) /* a 64-GPU Prometheus answer is well under 1 MiB */
#define AGENT_PORT "9400"    /* the agent's default, dcgm-exporter's too */
#define PROMETHEUS_PORT "9090"

enum req_kind { REQ_NOW, REQ_HIST, REQ_HEALTH, REQ__COUNT };

struct request {
	enum req_kind kind;
	CURL *easy;
	struct gw_buf body;
	bool busy; /* in the multi handle */
	bool done; /* finished since the last snapshot */
	unsigned int timeout_ms;
	bool text; /* the answer is a text exposition (an agent's /metrics), not the query API's JSON */
	long http; /* the answer's status; 0: none came */
	int err;
	char why[160];
	struct gw_ui_promresp resp; /* the answer, when it came and was good */
	struct gw_ui_rhealth health; /* REQ_HEALTH's answer, read */
};

struct source {
	char url[512]; /* scheme://host:port[/prefix], no trailing slash */
	char name[GW_UI_NODE_NAME_MAX];
	struct request req[REQ__COUNT];
	/* --prometheus: the nodes shown so far, so one that vanishes stays listed, stale */
	struct gw_ui_rnode *known;
	unsigned int nknown;
	/* --remote: the agent's last good /api/v1/health answer (n 0: none) */
	struct gw_ui_rhealth health;
};

struct gw_ui_remote {
	struct gw_curl curl;
	CURLM *multi;
	struct source *src;
	unsigned int nsrc;
	bool prometheus;
	unsigned int timeout_ms;
	char *query, *hist_query; /* URL-escaped, curl_free */
	int64_t hist_t0, hist_step, window_ms;
	unsigned int hist_n;
	int wake[2]; /* the worker writes a byte per snapshot */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	/* under lock */
	unsigned int interval_ms;
	bool stop;
	struct gw_ui_rsnap *published;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct gw_buf *b = arg;
	return gw_buf_append(b, data, size * n) == 0 ? size * n : 0; /* 0 aborts: over BODY_MAX */
}

/*
 * "http://host:port" from HOST:PORT, HOST (the agent's or Prometheus' usual
 * port) or a URL (taken as it is); the name is what the user wrote, less
 * the scheme.
 */
static int target(struct source *s, const char *t, bool prometheus, struct gw_err *err)
{
	size_t len = strlen(t);
	while (len && t[len - 1] == '/')
		len--;
	if (len == 0)
		return gw_err_set(err, GW_EINVAL, "empty address \"%.100s\"", t);
	if (len >= sizeof(s->url) - 32)
		return gw_err_set(err, GW_EINVAL, "address too long: %.40s...", t);
	const char *host = strstr(t, "://") ? strstr(t, "://") + 3 : t;
	bool scheme = host != t;
	bool port = scheme || strchr(host, ':') != NULL;
	snprintf(s->url, sizeof(s->url), "%s%.*s%s", scheme ? "" : "http://", (int)len, t,
		 port ? "" : prometheus ? ":" PROMETHEUS_PORT : ":" AGENT_PORT);
	snprintf(s->name, sizeof(s->name), "%.*s", (int)(len - (size_t)(host - t)), host);
	return 0;
}

static int request_init(struct gw_ui_remote *r, struct request *q, unsigned int timeout_ms, struct gw_err *err)
{
	gw_buf_init(&q->body, BODY_MAX);
	q->timeout_ms = timeout_ms;
	q->easy = r->curl.curl_easy_init();
	if (!q->easy)
		return gw_err_set(err, GW_ENOMEM, "curl_easy_init failed");
	CURL *e = q->easy;
	r->curl.curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L); /* a worker thread: no SIGALRM for DNS timeouts */
	r->curl.curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
	r->curl.curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	r->curl.curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	r->curl.curl_easy_setopt(e, CURLOPT_WRITEDATA, &q->body);
	r->curl.curl_easy_setopt(e, CURLOPT_PRIVATE, q);
	r->curl.curl_easy_setopt(e, CURLOPT_USERAGENT, "gpuwatch-top/" GW_VERSION);
	r->curl.curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	return 0;
}

static int escape_queries(struct gw_ui_remote *r, struct gw_err *err)
{
	char q[2048];
	gw_ui_rmap_query(q, sizeof(q));
	r->query = r->curl.curl_easy_escape(r->src[0].req[REQ_NOW].easy, q, 0);
	gw_ui_rmap_hist_query(q, sizeof(q));
	r->hist_query = r->curl.curl_easy_escape(r->src[0].req[REQ_NOW].easy, q, 0);
	return r->query && r->hist_query ? 0 : gw_err_set(err, GW_ENOMEM, "cannot escape the query");
}

int gw_ui_remote_new(struct gw_ui_remote **out, const struct gw_ui_remote_opts *o, struct gw_err *err)
{
	*out = NULL;
	if (o->ntargets == 0 || (o->prometheus && o->ntargets != 1))
		return gw_err_set(err, GW_EINVAL, o->prometheus ? "one Prometheus URL" : "no agent to ask");
	struct gw_ui_remote *r = calloc(1, sizeof(*r));
	struct source *src = calloc(o->ntargets, sizeof(*src));
	if (!r || !src) {
		free(r);
		free(src);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	r->src = src;
	r->wake[0] = r->wake[1] = -1;
	pthread_mutex_init(&r->lock, NULL);
	r->prometheus = o->prometheus;
	r->interval_ms = o->interval_ms ? o->interval_ms : 1000;
	r->timeout_ms = o->timeout_ms ? o->timeout_ms : 1000;
	r->window_ms = o->window_ms;
	*out = r;
	int rc = 0;
	for (unsigned int i = 0; i < o->ntargets && rc == 0; i++, r->nsrc++)
		rc = target(&src[i], o->targets[i], o->prometheus, err);
	if (rc == 0)
		rc = gw_curl_open(&r->curl, err);
	if (rc == 0 && !(r->multi = r->curl.curl_multi_init()))
		rc = gw_err_set(err, GW_ENOMEM, "curl_multi_init failed");
	for (unsigned int i = 0; i < r->nsrc && rc == 0; i++) {
		for (int k = 0; k < REQ__COUNT; k++)
			src[i].req[k].kind = (enum req_kind)k;
		src[i].req[REQ_NOW].text = !o->prometheus;
		rc = request_init(r, &src[i].req[REQ_NOW], r->timeout_ms, err);
		if (rc == 0) /* the history is bigger and asked once */
			rc = request_init(r, &src[i].req[REQ_HIST], 2 * r->timeout_ms, err);
		if (rc == 0 && !o->prometheus)
			rc = request_init(r, &src[i].req[REQ_HEALTH], r->timeout_ms, err);
	}
	if (rc == 0)
		rc = escape_queries(r, err);
	if (rc == 0 && pipe2(r->wake, O_NONBLOCK | O_CLOEXEC) != 0)
		rc = gw_err_set(err, GW_EIO, "pipe: %s", strerror(errno));
	if (rc) {
		gw_ui_remote_free(r);
		*out = NULL;
	}
	return rc;
}

static void start(struct gw_ui_remote *r, struct source *s, enum req_kind k)
{
	struct request *q = &s->req[k];
	char url[4096];
	if (k == REQ_HEALTH)
		snprintf(url, sizeof(url), "%s/api/v1/health", s->url);
	else if (k == REQ_NOW && q->text)
		snprintf(url, sizeof(url), "%s/metrics", s->url);
	else if (k == REQ_NOW)
		snprintf(url, sizeof(url), "%s/api/v1/query?query=%s", s->url, r->query);
	else
		snprintf(url, sizeof(url), "%s/api/v1/query_range?query=%s&start=%.3f&end=%.3f&step=%.3f", s->url,
			 r->hist_query, r->hist_t0 / 1000.0, (r->hist_t0 + (int64_t)(r->hist_n - 1) * r->hist_step) / 1000.0,
			 r->hist_step / 1000.0);
	gw_buf_reset(&q->body);
	r->curl.curl_easy_setopt(q->easy, CURLOPT_URL, url);
	if (r->curl.curl_multi_add_handle(r->multi, q->easy) == CURLM_OK)
		q->busy = true;
}

static void lower_first(char *s)
{
	if (*s >= 'A' && *s <= 'Z')
		*s = (char)(*s - 'A' + 'a');
}

/* A curl failure as a few words for the screen. */
static void describe(struct gw_ui_remote *r, struct request *q, CURLcode rc, unsigned int timeout_ms)
{
	long oserr = 0;
	r->curl.curl_easy_getinfo(q->easy, CURLINFO_OS_ERRNO, &oserr);
	q->err = rc == CURLE_OPERATION_TIMEDOUT ? GW_ETIMEOUT : GW_EIO;
	if (rc == CURLE_COULDNT_CONNECT && oserr) {
		int len = snprintf(q->why, sizeof(q->why), "unreachable: %s", strerror((int)oserr));
		if (len > 13)
			lower_first(q->why + 13);
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		snprintf(q->why, sizeof(q->why), "no answer within %u ms", timeout_ms);
	} else if (rc == CURLE_COULDNT_RESOLVE_HOST) {
		snprintf(q->why, sizeof(q->why), "unreachable: unknown host");
	} else if (rc == CURLE_WRITE_ERROR) {
		snprintf(q->why, sizeof(q->why), "answer larger than %u MiB", BODY_MAX >> 20);
	} else if (rc == CURLE_GOT_NOTHING) {
		snprintf(q->why, sizeof(q->why), "connection closed without an answer");
	} else {
		snprintf(q->why, sizeof(q->why), "%s", r->curl.curl_easy_strerror(rc));
		lower_first(q->why);
	}
}

static void finished(struct gw_ui_remote *r, struct request *q, CURLcode rc)
{
	q->busy = false;
	q->done = true;
	q->err = 0;
	q->http = 0;
	q->why[0] = '\0';
	gw_ui_promresp_release(&q->resp);
	gw_ui_rhealth_release(&q->health);
	if (rc != CURLE_OK) {
		describe(r, q, rc, q->timeout_ms);
		return;
	}
	long code = 0;
	r->curl.curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &code);
	q->http = code;
	struct gw_err e;
	gw_err_clear(&e);
	const char *body = q->body.data ? q->body.data : "";
	if (q->kind == REQ_HEALTH) {
		q->err = code != 200 ? GW_EIO : gw_ui_health_parse(&q->health, body, q->body.len, &e);
		return;
	}
	int prc = code != 200 && q->text ? GW_EIO /* an error page is no exposition */
		  : q->text		 ? gw_ui_promresp_parse_text(&q->resp, body, q->body.len, gw_now_ms(),
								   gw_ui_rmap_wanted, &e)
					 : gw_ui_promresp_parse(&q->resp, body, q->body.len, &e);
	if (prc == 0 && code == 200)
		return;
	q->err = prc ? prc : GW_EIO;
	if (code == 404 && q->text)
		snprintf(q->why, sizeof(q->why), "HTTP 404 for /metrics: not a gpuwatch agent or exporter?");
	else if (code != 200)
		snprintf(q->why, sizeof(q->why), "HTTP %ld%s%.120s", code, prc == GW_EINVAL ? ": " : "",
			 prc == GW_EINVAL ? e.msg : "");
	else
		snprintf(q->why, sizeof(q->why), "bad answer: %.140s", e.msg);
	gw_ui_promresp_release(&q->resp);
}

static void collect(struct gw_ui_remote *r)
{
	int running, left;
	r->curl.curl_multi_perform(r->multi, &running);
	CURLMsg *msg;
	while ((msg = r->curl.curl_multi_info_read(r->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct request *q = NULL;
		r->curl.curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&q);
		CURLcode rc = msg->data.result;
		r->curl.curl_multi_remove_handle(r->multi, msg->easy_handle);
		if (q)
			finished(r, q, rc);
	}
}

/* A health answer that came replaces the kept one; a failed one (an agent without the route) drops it. */
static void keep_health(struct source *s)
{
	struct request *q = &s->req[REQ_HEALTH];
	if (!q->done)
		return;
	gw_ui_rhealth_release(&s->health);
	if (!q->err) {
		s->health = q->health;
		memset(&q->health, 0, sizeof(q->health));
	}
}

/* A source's nodes into the snapshot: answered, failed, or still pending. */
static void add_source(struct gw_ui_remote *r, struct gw_ui_rbuild *b, struct source *s)
{
	struct request *now = &s->req[REQ_NOW], *hist = &s->req[REQ_HIST];
	int node = -1;
	if (!r->prometheus && (node = gw_ui_rbuild_node(b, s->name, "")) < 0)
		return;
	if (hist->done && !hist->err && r->hist_n)
		gw_ui_rbuild_history(b, &hist->resp, node, r->hist_t0, r->hist_step, r->hist_n);
	else if (hist->done && node >= 0 && now->done && !now->err) { /* it answers, but gave no history */
		char *note = b->s->nodes[node].note;
		if (hist->http == 404)
			snprintf(note, sizeof(b->s->nodes[node].note), "no history (agent run with --no-history?): charts start now");
		else
			snprintf(note, sizeof(b->s->nodes[node].note), "no history (%.40s): charts start now", hist->why);
	}
	unsigned int first = b->s->nnodes;
	if (now->done && !now->err) {
		gw_ui_rbuild_answer(b, &now->resp, node);
		if (!r->prometheus) {
			keep_health(s);
			gw_ui_rbuild_health(b, &s->health, node);
			return;
		}
		/* nodes seen before but absent now: their exporter is down or gone */
		for (unsigned int k = 0; k < s->nknown; k++) {
			bool found = false;
			for (unsigned int i = first; i < b->s->nnodes && !found; i++)
				found = strcmp(b->s->nodes[i].key, s->known[k].key) == 0;
			for (unsigned int i = 0; i < first && !found; i++) /* added by the history */
				found = strcmp(b->s->nodes[i].key, s->known[k].key) == 0;
			int n = found ? -1 : gw_ui_rbuild_node(b, s->known[k].name, s->known[k].key);
			if (n >= 0) {
				b->s->nodes[n] = s->known[k];
				b->s->nodes[n].err = GW_ENOTFOUND;
				snprintf(b->s->nodes[n].why, sizeof(b->s->nodes[n].why), "no samples in Prometheus (target down?)");
			}
		}
		return;
	}
	if (!r->prometheus) {
		b->s->nodes[node].pending = !now->done;
		b->s->nodes[node].err = now->done ? now->err : 0;
		snprintf(b->s->nodes[node].why, sizeof(b->s->nodes[node].why), "%s", now->why);
		return;
	}
	/* the server itself did not answer: every node it had shown shares its fate */
	unsigned int n = s->nknown ? s->nknown : 1;
	for (unsigned int k = 0; k < n; k++) {
		int i = s->nknown ? gw_ui_rbuild_node(b, s->known[k].name, s->known[k].key)
				  : gw_ui_rbuild_node(b, s->name, s->url);
		if (i < 0)
			return;
		if (s->nknown)
			b->s->nodes[i] = s->known[k];
		b->s->nodes[i].pending = !now->done;
		b->s->nodes[i].err = now->done ? now->err : 0;
		snprintf(b->s->nodes[i].why, sizeof(b->s->nodes[i].why), "Prometheus %.140s", now->why);
	}
}

/* Remember a Prometheus source's nodes (those with a key of their own, not the server's stand-in). */
static void remember(struct source *s, const struct gw_ui_rsnap *snap)
{
	struct gw_ui_rnode *k = malloc(sizeof(*k) * (snap->nnodes ? snap->nnodes : 1));
	if (!k)
		return; /* keep the old list */
	unsigned int n = 0;
	for (unsigned int i = 0; i < snap->nnodes; i++)
		if (strcmp(snap->nodes[i].key, s->url) != 0) {
			k[n] = snap->nodes[i];
			k[n].err = 0;
			k[n].pending = false;
			k[n++].why[0] = '\0';
		}
	free(s->known);
	s->known = k;
	s->nknown = n;
}

static void publish(struct gw_ui_remote *r, int64_t t_ms)
{
	struct gw_ui_rbuild b;
	if (gw_ui_rbuild_init(&b, t_ms) != 0)
		return;
	for (unsigned int i = 0; i < r->nsrc; i++)
		add_source(r, &b, &r->src[i]);
	struct gw_ui_rsnap *s = gw_ui_rbuild_finish(&b, r->prometheus);
	gw_ui_rbuild_release(&b);
	for (unsigned int i = 0; i < r->nsrc; i++)
		for (int k = 0; k < REQ__COUNT; k++) {
			struct request *q = &r->src[i].req[k];
			if (q->done) {
				q->done = false;
				gw_ui_promresp_release(&q->resp);
				gw_ui_rhealth_release(&q->health);
			}
		}
	if (!s)
		return;
	if (r->prometheus && r->src[0].req[REQ_NOW].err == 0)
		remember(&r->src[0], s);
	pthread_mutex_lock(&r->lock);
	gw_ui_rsnap_free(r->published); /* the UI did not take it in time: only the newest matters */
	r->published = s;
	pthread_mutex_unlock(&r->lock);
	ssize_t w = write(r->wake[1], "", 1); /* a full pipe already wakes the UI */
	(void)w;
}

static bool any_busy(const struct gw_ui_remote *r)
{
	for (unsigned int i = 0; i < r->nsrc; i++)
		for (int k = 0; k < REQ__COUNT; k++)
			if (r->src[i].req[k].busy)
				return true;
	return false;
}

/* The history grid: the chart window up to now, about 600 points at most. */
static void plan_history(struct gw_ui_remote *r, int64_t now, unsigned int interval_ms)
{
	if (r->window_ms <= 0)
		return;
	int64_t step = r->window_ms / 600;
	if (step < (int64_t)interval_ms)
		step = interval_ms;
	step = (step + 999) / 1000 * 1000; /* whole seconds, as servers like them */
	r->hist_step = step;
	r->hist_n = (unsigned int)(r->window_ms / step);
	r->hist_t0 = (now / step - r->hist_n) * step;
}

static void *worker(void *arg)
{
	struct gw_ui_remote *r = arg;
	int64_t next_tick = 0, round_t = 0, deadline = 0;
	bool round_open = false, first = true;
	for (;;) {
		pthread_mutex_lock(&r->lock);
		bool stop = r->stop;
		unsigned int interval = r->interval_ms;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			break;
		int64_t now = gw_now_ms();
		if (now >= next_tick && !round_open) {
			if (first)
				plan_history(r, now, interval);
			for (unsigned int i = 0; i < r->nsrc; i++) {
				if (!r->src[i].req[REQ_NOW].busy)
					start(r, &r->src[i], REQ_NOW);
				if (!r->prometheus && !r->src[i].req[REQ_HEALTH].busy)
					start(r, &r->src[i], REQ_HEALTH);
				if (first && r->hist_n)
					start(r, &r->src[i], REQ_HIST);
			}
			round_open = true;
			round_t = now;
			/* late answers wait for the next snapshot; the first waits for the history too */
			int64_t wait = first ? 2 * (int64_t)r->timeout_ms : interval / 2;
			deadline = now + (wait < 100 ? 100 : wait);
			next_tick = (now / interval + 1) * interval;
		}
		collect(r);
		now = gw_now_ms();
		if (round_open && (!any_busy(r) || now >= deadline)) {
			publish(r, round_t);
			round_open = false;
			first = false;
		}
		int64_t until = round_open && deadline < next_tick ? deadline : next_tick;
		int timeout = until > now ? (int)(until - now) : 0;
		r->curl.curl_multi_poll(r->multi, NULL, 0, timeout, NULL);
	}
	return NULL;
}

int gw_ui_remote_start(struct gw_ui_remote *r, struct gw_err *err)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(&r->thread, NULL, worker, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return gw_err_set(err, GW_EIO, "cannot start the remote worker: %s", strerror(rc));
	r->running = true;
	return 0;
}

void gw_ui_remote_set_interval(struct gw_ui_remote *r, unsigned int interval_ms)
{
	pthread_mutex_lock(&r->lock);
	r->interval_ms = interval_ms;
	pthread_mutex_unlock(&r->lock);
	r->curl.curl_multi_wakeup(r->multi);
}

int gw_ui_remote_fd(const struct gw_ui_remote *r)
{
	return r->wake[0];
}

struct gw_ui_rsnap *gw_ui_remote_take(struct gw_ui_remote *r)
{
	char drain[64];
	while (read(r->wake[0], drain, sizeof(drain)) > 0)
		;
	pthread_mutex_lock(&r->lock);
	struct gw_ui_rsnap *s = r->published;
	r->published = NULL;
	pthread_mutex_unlock(&r->lock);
	return s;
}

void gw_ui_remote_free(struct gw_ui_remote *r)
{
	if (!r)
		return;
	if (r->running) {
		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_mutex_unlock(&r->lock);
		r->curl.curl_multi_wakeup(r->multi);
		pthread_join(r->thread, NULL);
	}
	for (unsigned int i = 0; i < r->nsrc; i++) {
		for (int k = 0; k < REQ__COUNT; k++) {
			struct request *q = &r->src[i].req[k];
			if (q->busy)
				r->curl.curl_multi_remove_handle(r->multi, q->easy);
			if (q->easy)
				r->curl.curl_easy_cleanup(q->easy);
			gw_buf_release(&q->body);
			gw_ui_promresp_release(&q->resp);
			gw_ui_rhealth_release(&q->health);
		}
		gw_ui_rhealth_release(&r->src[i].health);
		free(r->src[i].known);
	}
	if (r->query)
		r->curl.curl_free(r->query);
	if (r->hist_query)
		r->curl.curl_free(r->hist_query);
	if (r->multi)
		r->curl.curl_multi_cleanup(r->multi);
	for (int k = 0; k < 2; k++)
		if (r->wake[k] >= 0)
			close(r->wake[k]);
	gw_ui_rsnap_free(r->published);
	pthread_mutex_destroy(&r->lock);
	free(r->src);
	free(r);
}
