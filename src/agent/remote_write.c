/*
 * remote_write.c - the agent's remote writers (remote_write.h): each URL's
 * thread reads the store window by window, shards and batches the window,
 * sends the shards at once (remote_send.c) and moves its position when all
 * were answered; the position's file; the gpuwatch_remote_write_* families.
 */
#include "agent/agent_int.h"
#include "agent/remote_int.h"

#include "core/logq.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Samples of one frame are appended series by series, and the parts that
 * evaluate frames on threads of their own (rules, the OOM forecast, the
 * health watches) append a little after their time stamp, up to a frame
 * late; a flush may start in between. Reading only up to this far, plus
 * one sampling interval, below the durable time leaves them time to land.
 */
#define SETTLE_MS 1000
/*
 * A window holds about this many requests' worth of samples: bounded
 * memory when catching up. Each window decodes the chunks it overlaps
 * whole, so short windows decode a chunk many times: catching up an hour
 * of 8 GPUs took 7 s of CPU at 16 requests a window, 2 s at 64.
 */
#define WINDOW_BATCHES 64

/* ---- the position's file ------------------------------------------------------- */

/* FNV-1a of the URL: the file's name, so each URL keeps its own position. */
static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* "acked MS\ninflight MS\nurl URL\n": written to a temporary file, then renamed over the old. */
static int state_write(const struct rw_writer *w, int64_t acked, int64_t inflight)
{
	if (!w->state[0])
		return 0;
	char tmp[620], text[700];
	snprintf(tmp, sizeof(tmp), "%s.tmp", w->state);
	int n = snprintf(text, sizeof(text), "acked %lld\ninflight %lld\nurl %s\n", (long long)acked,
			 (long long)inflight, w->url);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return GW_EIO;
	bool ok = write(fd, text, (size_t)n) == n;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, w->state) != 0) {
		unlink(tmp);
		return GW_EIO;
	}
	return 0;
}

/* The position saved by an earlier run; false when there is none. */
static bool state_read(const struct rw_writer *w, int64_t *acked, int64_t *inflight)
{
	FILE *f = w->state[0] ? fopen(w->state, "re") : NULL;
	if (!f)
		return false;
	long long a = 0, i = 0;
	bool ok = fscanf(f, "acked %lld\ninflight %lld\n", &a, &i) == 2;
	fclose(f);
	*acked = a;
	*inflight = i;
	return ok;
}

/* ---- a window -------------------------------------------------------------------- */

struct shard {
	struct rw_writer *w;
	unsigned int idx;
	const struct gw_series *s; /* the window's series, sorted */
	const size_t *mine;	   /* this shard's of them, in order */
	size_t n;
	const struct gw_labels *ext;
	enum rw_outcome out;
	int rc;
	pthread_t th;
	bool threaded; /* th runs it (else it ran on the writer's thread) */
};

static uint64_t labels_hash(const struct gw_labels *l)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < l->n; i++) {
		for (const char *p = l->p[i].name; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
		for (const char *p = l->p[i].value; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return h;
}

/* Send one request of b[0..nb) and account for it. */
static enum rw_outcome flush_batch(struct shard *sh, struct rw_conn *c, const struct gw_rw_series *b,
				   size_t nb, uint64_t samples)
{
	struct rw_writer *w = sh->w;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_rw_encode(&w->rw->snappy, b, nb, sh->ext, &c->pb, &c->body, &err) != 0) {
		/* cannot happen short of memory: counted as failed, as a refusal would be */
		atomic_fetch_add(&w->failed, samples);
		rw_log_failure(w, err.msg);
		atomic_fetch_sub(&w->pending, samples);
		return RW_REFUSED;
	}
	enum rw_outcome o = rw_send(w, c, samples);
	if (o != RW_STOPPED)
		atomic_fetch_sub(&w->pending, samples);
	return o;
}

/*
 * A shard's series cut into requests of at most max_samples_per_send
 * samples, sent in order: a series' samples in a later request are later
 * ones. The cut depends only on the window's content, so a window sent
 * again after a crash is cut the same way.
 */
static void *shard_run(void *arg)
{
	struct shard *sh = arg;
	struct rw_writer *w = sh->w;
	struct rw_conn *c = &w->conns[sh->idx];
	unsigned int max = w->o->max_samples_per_send;
	sh->out = RW_SENT;
	if (!c->easy && (sh->rc = rw_conn_setup(w, c, NULL)) != 0)
		return NULL;
	struct gw_rw_series *b = malloc(((size_t)max + 1) * sizeof(*b));
	if (!b) {
		sh->rc = GW_ENOMEM;
		return NULL;
	}
	size_t nb = 0;
	uint64_t fill = 0;
	for (size_t i = 0; i < sh->n && sh->out != RW_STOPPED; i++) {
		const struct gw_series *s = &sh->s[sh->mine[i]];
		size_t off = 0;
		while (off < s->n && sh->out != RW_STOPPED) {
			size_t take = s->n - off < max - fill ? s->n - off : max - fill;
			b[nb++] = (struct gw_rw_series){s->labels, s->t + off, s->v + off, take};
			off += take;
			fill += take;
			if (fill == max) {
				enum rw_outcome o = flush_batch(sh, c, b, nb, fill);
				sh->out = o == RW_STOPPED ? o : sh->out;
				nb = 0;
				fill = 0;
			}
		}
	}
	if (fill && sh->out != RW_STOPPED)
		sh->out = flush_batch(sh, c, b, nb, fill) == RW_STOPPED ? RW_STOPPED : sh->out;
	free(b);
	return NULL;
}

static int cmp_series(const void *x, const void *y)
{
	return gw_labels_cmp(&((const struct gw_series *)x)->labels, &((const struct gw_series *)y)->labels);
}

/*
 * Send every sample in (from, to]: the window's series sorted by labels,
 * as many shards as its samples fill requests (at least 1, at most
 * max_shards), a series' shard by its labels' hash. 0 when every request
 * was answered (sent or refused), GW_EINTR-like 1 when the agent stopped,
 * or a negative GW_E* when the store could not be read.
 */
static int send_window(struct rw_writer *w, int64_t from, int64_t to, uint64_t *nsamples, struct gw_err *err)
{
	struct gw_agent *a = w->rw->a;
	struct gw_arena arena;
	gw_arena_init(&arena, (size_t)1 << 30);
	struct gw_querier q = gw_tsdb_querier(a->history.db);
	struct gw_series_set set = {0};
	int rc = q.select(q.ctx, w->m, w->nm, from + 1, to, &arena, &set, err);
	size_t total = 0;
	for (size_t i = 0; !rc && i < set.n; i++)
		total += set.s[i].n;
	*nsamples = total;
	if (rc || !total) {
		gw_arena_release(&arena);
		return rc;
	}
	qsort(set.s, set.n, sizeof(*set.s), cmp_series);
	unsigned int max = w->o->max_samples_per_send;
	size_t want = (total + max - 1) / max;
	unsigned int ns = want > w->o->max_shards ? w->o->max_shards : (unsigned int)want;
	atomic_store(&w->shards, ns);
	atomic_store(&w->pending, (uint64_t)total);
	struct shard *sh = calloc(ns, sizeof(*sh));
	size_t *order = malloc(set.n * sizeof(*order));
	size_t *count = calloc(ns + 1, sizeof(*count));
	if (!sh || !order || !count) {
		free(sh);
		free(order);
		free(count);
		gw_arena_release(&arena);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	/* counting sort of the series by shard, keeping their label order within one */
	unsigned int *which = (unsigned int *)gw_arena_alloc(&arena, set.n * sizeof(*which));
	for (size_t i = 0; which && i < set.n; i++) {
		which[i] = (unsigned int)(labels_hash(&set.s[i].labels) % ns);
		count[which[i] + 1]++;
	}
	for (unsigned int k = 0; k < ns; k++)
		count[k + 1] += count[k];
	for (unsigned int k = 0; k < ns; k++) {
		sh[k] = (struct shard){
		    .w = w, .idx = k, .s = set.s, .mine = order + count[k], .ext = &a->alerting.external};
	}
	for (size_t i = 0; which && i < set.n; i++)
		order[count[which[i]] + sh[which[i]].n++] = i;
	if (!which)
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	for (unsigned int k = 1; !rc && k < ns; k++) {
		sh[k].threaded = pthread_create(&sh[k].th, NULL, shard_run, &sh[k]) == 0;
		if (!sh[k].threaded)
			shard_run(&sh[k]); /* no thread to spare: sent from here */
	}
	if (!rc)
		shard_run(&sh[0]);
	bool stopped = false;
	for (unsigned int k = 0; k < ns; k++) {
		if (sh[k].threaded)
			pthread_join(sh[k].th, NULL); /* every one, whatever the others did */
		stopped |= sh[k].out == RW_STOPPED;
		if (sh[k].rc && !rc)
			rc = gw_err_set(err, sh[k].rc, "cannot send: %s", gw_strerror(sh[k].rc));
	}
	free(sh);
	free(order);
	free(count);
	gw_arena_release(&arena);
	return rc ? rc : stopped ? 1 : 0;
}

/* ---- each URL's thread --------------------------------------------------------------- */

/* How far the store may be read now: what the last flush wrote, less the settling margin. */
static int64_t readable_until(struct rw_writer *w)
{
	int64_t d = gw_tsdb_durable_t(w->rw->a->history.db), now = gw_now_ms();
	if (d == INT64_MIN)
		return INT64_MIN;
	return (d < now ? d : now) - SETTLE_MS - (int64_t)w->rw->a->interval_ms;
}

static void *writer_run(void *arg)
{
	struct rw_writer *w = arg;
	struct agent_rw *rw = w->rw;
	const struct gw_rw_opts *o = w->o;
	int64_t acked = w->acked, inflight = INT64_MIN, last_send = gw_now_ms();
	double per_ms = 0; /* samples a millisecond of the store holds, from the last window */
	/* The longest window, so that one holds about WINDOW_BATCHES requests when catching up:
	 * unknown at first (a short one tells), grown while windows come back empty (the agent
	 * was stopped: nothing stored), from the last window's density otherwise. */
	int64_t span = 10000;
	const double cap = (double)o->max_samples_per_send * WINDOW_BATCHES;
	int64_t tmp;
	if (state_read(w, &tmp, &inflight) && inflight <= acked)
		inflight = INT64_MIN;
	while (!atomic_load(&rw->stop)) {
		int64_t until = readable_until(w);
		int64_t to = inflight;
		if (to == INT64_MIN) {
			if (until <= acked) {
				rw_sleep(rw, 250);
				continue;
			}
			/* A request's worth waiting, or the deadline passed: read. */
			bool full = per_ms > 0 && per_ms * (double)(until - acked) >= o->max_samples_per_send;
			if (!full && gw_now_ms() - last_send < o->batch_send_deadline_ms &&
			    until - acked < o->batch_send_deadline_ms) {
				rw_sleep(rw, 250);
				continue;
			}
			to = until - acked > span ? acked + span : until;
			if (state_write(w, acked, to) != 0)
				rw_log_failure(w, "cannot write the position file");
		}
		struct gw_err err;
		gw_err_clear(&err);
		uint64_t n = 0;
		atomic_store(&w->read_to, to);
		int rc = send_window(w, acked, to, &n, &err);
		if (rc == 1)
			break; /* stopping: the window stays in flight for the next start */
		if (rc < 0) {
			/* the same window again, cut the same way: some of its requests may have gone */
			inflight = to;
			rw_log_failure(w, err.msg);
			if (!rw_sleep(rw, 1000))
				break;
			continue;
		}
		if (n) {
			per_ms = (double)n / (double)(to - acked);
			span = cap / per_ms >= 1 ? (int64_t)(cap / per_ms) : 1;
		} else {
			span = span < 86400000 / 4 ? span * 4 : 86400000;
		}
		acked = to;
		inflight = INT64_MIN;
		last_send = gw_now_ms();
		w->acked = acked;
		atomic_store(&w->acked_pub, acked);
		atomic_store(&w->pending, 0);
		if (state_write(w, acked, acked) != 0)
			rw_log_failure(w, "cannot write the position file");
	}
	return NULL;
}

/* ---- open, close, render ---------------------------------------------------------- */

/* A secret from a file: its first line. */
static int read_secret(const char *path, char *out, size_t len, struct gw_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return gw_err_set(err, GW_EIO, "open %s: %s", path, strerror(errno));
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\r\n")] = '\0';
	return 0;
}

/* The URL without user:password@, for labels and logs. */
static void url_public(const char *url, char *out, size_t len)
{
	const char *s = strstr(url, "://");
	const char *host = s ? s + 3 : url;
	const char *at = strchr(host, '@'), *slash = strchr(host, '/');
	if (at && (!slash || at < slash))
		snprintf(out, len, "%.*s%s", (int)(host - url), url, at + 1);
	else
		snprintf(out, len, "%s", url);
}

static int writer_open(struct agent_rw *rw, struct rw_writer *w, const struct gw_rw_opts *o,
		       struct gw_err *err)
{
	struct gw_agent *a = rw->a;
	w->o = o;
	w->rw = rw;
	pthread_mutex_init(&w->log_mu, NULL);
	url_public(o->url, w->url, sizeof(w->url));
	int rc = 0;
	if (o->password)
		snprintf(w->password, sizeof(w->password), "%s", o->password);
	if (o->password_file &&
	    (rc = read_secret(o->password_file, w->password, sizeof(w->password), err)) != 0)
		return rc;
	if (o->bearer_token)
		snprintf(w->token, sizeof(w->token), "%s", o->bearer_token);
	if (o->bearer_token_file &&
	    (rc = read_secret(o->bearer_token_file, w->token, sizeof(w->token), err)) != 0)
		return rc;
	const char *fixed[] = {"Content-Encoding: " GW_RW_ENCODING, "Content-Type: " GW_RW_CONTENT_TYPE,
			       "X-Prometheus-Remote-Write-Version: " GW_RW_VERSION, "Expect:"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		w->headers = rw->curl.curl_slist_append(w->headers, fixed[i]);
	if (w->token[0]) {
		char h[1100];
		snprintf(h, sizeof(h), "Authorization: Bearer %s", w->token);
		w->headers = rw->curl.curl_slist_append(w->headers, h);
	}
	for (unsigned int i = 0; i < o->nheaders; i++)
		w->headers = rw->curl.curl_slist_append(w->headers, o->headers[i]);
	if (!w->headers)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	const char *re[2] = {o->keep, o->drop};
	for (int i = 0; i < 2; i++) {
		if (!re[i])
			continue;
		struct gw_err e;
		gw_err_clear(&e);
		if ((rc = gw_matcher_init(&w->m[w->nm], GW_METRIC_NAME, re[i], i ? GW_MATCH_NRE : GW_MATCH_RE,
					  &e)) != 0)
			return gw_err_set(err, rc, "--remote-write.%s: %s", i ? "drop" : "keep", e.msg);
		w->nm++;
	}
	w->conns = calloc(o->max_shards, sizeof(*w->conns));
	if (!w->conns)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	/* Where the position lives: DIR/remote_write/<hash of the URL>. */
	if (a->o.storage_path && *a->o.storage_path) {
		char dir[520];
		snprintf(dir, sizeof(dir), "%s/remote_write", a->o.storage_path);
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return gw_err_set(err, GW_EIO, "mkdir %s: %s", dir, strerror(errno));
		snprintf(w->state, sizeof(w->state), "%s/%016llx", dir, (unsigned long long)fnv(o->url));
	}
	/*
	 * No position yet: what this run stores, as Prometheus starts a new
	 * queue at its WAL's end: after the newest sample an earlier run wrote
	 * (the sampler has already started; its first frames come after it).
	 * A new store holds nothing older than this run.
	 */
	int64_t inflight, d = gw_tsdb_durable_t(a->history.db);
	if (!state_read(w, &w->acked, &inflight))
		w->acked = d != INT64_MIN ? d : gw_now_ms() - 3600 * 1000;
	atomic_store(&w->acked_pub, w->acked);
	atomic_store(&w->read_to, w->acked);
	a->o.log("info", "msg=\"remote write\" url=%s from_ms=%lld position_file=%s", w->url,
		 (long long)w->acked, w->state[0] ? w->state : "none");
	if (pthread_create(&w->thread, NULL, writer_run, w) != 0)
		return gw_err_set(err, GW_ENOMEM, "cannot start the remote writer's thread");
	w->started = true;
	return 0;
}

static void defaults(struct gw_rw_opts *o)
{
	/* Prometheus 2.42's remote_timeout and queue_config defaults */
	if (!o->timeout_ms)
		o->timeout_ms = 30000;
	if (!o->max_shards)
		o->max_shards = 200;
	if (!o->max_samples_per_send)
		o->max_samples_per_send = 500;
	if (!o->batch_send_deadline_ms)
		o->batch_send_deadline_ms = 5000;
	if (!o->min_backoff_ms)
		o->min_backoff_ms = 30;
	if (!o->max_backoff_ms)
		o->max_backoff_ms = 5000;
}

int agent_rw_open(struct gw_agent *a, struct gw_err *err)
{
	if (!a->o.nremote_writes)
		return 0;
	if (!a->history.db)
		return gw_err_set(err, GW_EINVAL,
				  "--remote-write.url sends from the history store: drop --no-history");
	struct agent_rw *rw = calloc(1, sizeof(*rw));
	if (!rw)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	a->rw = rw;
	rw->a = a;
	pthread_mutex_init(&rw->mu, NULL);
	pthread_cond_init(&rw->cv, NULL);
	snprintf(rw->user_agent, sizeof(rw->user_agent), "gpuwatch/%s", GW_VERSION);
	int rc = gw_curl_open(&rw->curl, err);
	if (rc == 0)
		rc = gw_snappy_open(&rw->snappy, err);
	if (rc == 0 && !(rw->w = calloc(a->o.nremote_writes, sizeof(*rw->w))))
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < a->o.nremote_writes; i++) {
		defaults(&a->o.remote_writes[i]);
		rc = writer_open(rw, &rw->w[i], &a->o.remote_writes[i], err);
		rw->n = i + 1;
	}
	return rc;
}

void agent_rw_stop(struct gw_agent *a)
{
	struct agent_rw *rw = a->rw;
	if (!rw)
		return;
	pthread_mutex_lock(&rw->mu);
	atomic_store(&rw->stop, true);
	pthread_cond_broadcast(&rw->cv);
	pthread_mutex_unlock(&rw->mu);
	for (size_t i = 0; i < rw->n; i++) {
		struct rw_writer *w = &rw->w[i];
		if (w->started)
			pthread_join(w->thread, NULL);
		w->started = false;
	}
}

void agent_rw_close(struct gw_agent *a)
{
	struct agent_rw *rw = a->rw;
	if (!rw)
		return;
	agent_rw_stop(a);
	for (size_t i = 0; i < rw->n; i++) {
		struct rw_writer *w = &rw->w[i];
		for (unsigned int k = 0; w->conns && k < w->o->max_shards; k++)
			rw_conn_release(rw, &w->conns[k]);
		free(w->conns);
		if (w->headers)
			rw->curl.curl_slist_free_all(w->headers);
		for (size_t k = 0; k < w->nm; k++)
			gw_matcher_release(&w->m[k]);
		pthread_mutex_destroy(&w->log_mu);
	}
	free(rw->w);
	pthread_cond_destroy(&rw->cv);
	pthread_mutex_destroy(&rw->mu);
	free(rw);
	a->rw = NULL;
}

void agent_rw_note_append(struct gw_agent *a, int64_t t)
{
	struct agent_rw *rw = a->rw;
	for (size_t i = 0; rw && i < rw->n; i++)
		if (t <= atomic_load(&rw->w[i].read_to))
			atomic_fetch_add(&rw->w[i].late, 1);
}

/* One family, one sample per URL. */
static void per_url(struct gw_expfmt *w, const struct agent_rw *rw, const char *name, const char *help,
		    enum gw_metric_type type, double (*get)(const struct rw_writer *, int64_t), int64_t until)
{
	gw_expfmt_family(w, name, help, type);
	for (size_t i = 0; i < rw->n; i++) {
		struct gw_label l = {"url", rw->w[i].url};
		gw_expfmt_sample(w, &l, 1, get(&rw->w[i], until));
	}
}

static double g_sent(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->sent);
}
static double g_failed(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->failed);
}
static double g_retried(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->retried);
}
static double g_failures(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->failures);
}
static double g_bytes(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->bytes);
}
static double g_late(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->late);
}
static double g_pending(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->pending);
}
static double g_shards(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->shards);
}
static double g_sent_ts(const struct rw_writer *w, int64_t u)
{
	(void)u;
	return (double)atomic_load(&w->acked_pub) / 1000;
}
/* The newest sample the store has written, shared by every URL (as Prometheus' is by its queues). */
static double g_highest(const struct rw_writer *w, int64_t until)
{
	(void)w;
	return until == INT64_MIN ? 0 : (double)until / 1000;
}
/* How far behind the store the position is: 0 while it keeps up to what may be read. */
static double g_lag(const struct rw_writer *w, int64_t until)
{
	int64_t acked = atomic_load(&w->acked_pub);
	return until > acked ? (double)(until - acked) / 1000 : 0;
}

void agent_rw_render(struct gw_agent *a, struct gw_expfmt *w)
{
	const struct agent_rw *rw = a->rw;
	if (!rw || !rw->n)
		return;
	const enum gw_metric_type G = GW_METRIC_GAUGE, C = GW_METRIC_COUNTER;
	int64_t d = gw_tsdb_durable_t(a->history.db), now = gw_now_ms();
	int64_t until = d == INT64_MIN ? INT64_MIN : d < now ? d : now;
	per_url(w, rw, "gpuwatch_remote_write_samples_total",
		"Total number of samples sent to the remote storage and acknowledged.", C, g_sent, until);
	per_url(w, rw, "gpuwatch_remote_write_samples_failed_total",
		"Total number of samples dropped because the remote storage refused them (non-recoverable: a "
		"4xx answer).",
		C, g_failed, until);
	per_url(w, rw, "gpuwatch_remote_write_samples_retried_total",
		"Total number of samples sent again after a recoverable error (5xx, 429 if retried, no "
		"connection).",
		C, g_retried, until);
	per_url(w, rw, "gpuwatch_remote_write_failures_total",
		"Total number of requests that failed, at any attempt.", C, g_failures, until);
	per_url(w, rw, "gpuwatch_remote_write_bytes_total",
		"Total number of bytes of compressed requests acknowledged by the remote storage.", C,
		g_bytes, until);
	per_url(w, rw, "gpuwatch_remote_write_samples_late_total",
		"Total number of rule results, forecasts and health statuses stored after the writer had "
		"read past their time: not sent.",
		C, g_late, until);
	per_url(w, rw, "gpuwatch_remote_write_samples_pending",
		"Samples of the window being sent that are not yet answered.", G, g_pending, until);
	per_url(w, rw, "gpuwatch_remote_write_shards", "Shards the last window was sent with.", G, g_shards,
		until);
	per_url(w, rw, "gpuwatch_remote_write_queue_highest_sent_timestamp_seconds",
		"Up to this time every sample was answered by the remote storage (the position).", G,
		g_sent_ts, until);
	per_url(w, rw, "gpuwatch_remote_write_highest_timestamp_in_seconds",
		"The newest sample time the store has written, which remote write may send.", G, g_highest,
		until);
	per_url(w, rw, "gpuwatch_remote_write_lag_seconds",
		"How far the position is behind the newest sample written to the store.", G, g_lag, until);
}
