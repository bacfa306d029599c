/*
 * scrape.c - the agent as a small Prometheus (--scrape): each target (an
 * inference server's /metrics beside the GPUs) fetched on a thread of its
 * own every interval, its body parsed whole (ingest/scrape.h) and stored
 * at the scrape's start time with the target's job and instance, so one
 * query relates GPU utilisation to requests and tokens per second. Each
 * scrape also stores up, scrape_duration_seconds and
 * scrape_samples_scraped, and a staleness marker for every series the
 * previous scrape had and this one lacks (all of them when the target is
 * down), as Prometheus does.
 *
 * A target that is down, slow or answers garbage costs only its own
 * thread's time (each request is bounded by the target's timeout, each
 * body by BODY_MAX): up is 0, its failures are counted and logged at once,
 * then once a minute while they go on.
 *
 * Threading: one thread a target; each appends under the history's
 * append_mu. The counters are atomics read by /metrics renders.
 */
#include "agent/agent_int.h"

#include "core/logq.h"
#include "version.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BODY_MAX ((size_t)16 << 20)
#define SAMPLES_MAX 200000 /* a body's samples; more fails the scrape (Prometheus' sample_limit) */
#define LOG_EVERY_MS 60000

/*
 * Each series' store ref by its labels, kept between scrapes: finding a
 * series in the store sorts and keys its labels, most of a scrape's cost
 * (bench/RESULTS.md). Keys are the pairs as "name\0value\0..." (a body
 * holds no NUL); open addressing, at most half full; emptied when it holds
 * more than REFS_MAX (labels that change every scrape).
 */
#define REFS_MAX (2 * SAMPLES_MAX)
struct ref_slot {
	uint64_t hash, ref;
	char *key; /* NULL: empty */
	size_t len;
};
struct ref_cache {
	struct ref_slot *slot;
	size_t cap, n; /* cap a power of two */
	struct gw_buf key;
};

struct scrape_target {
	struct gw_scrape_target t;
	struct agent_scrape *s;
	pthread_t thread;
	bool started;
	CURL *easy;
	struct gw_buf body;
	bool too_big; /* the body passed BODY_MAX */
	struct gw_scrape_batch batch;
	uint64_t *cur, *prev; /* this scrape's and the last one's series refs, sorted */
	size_t ncur, nprev, cap;
	uint64_t up_ref, dur_ref, samples_ref;
	struct ref_cache refs;
	int64_t logged_ms; /* the last failure logged; 0: not failing */
	/* for /metrics */
	_Atomic uint64_t scrapes, failures, samples;
	atomic_bool up;
	_Atomic int64_t duration_us;
};

struct agent_scrape {
	struct gw_agent *a;
	struct gw_curl curl;
	char user_agent[64];
	atomic_bool stop;
	pthread_mutex_t mu; /* with cv: the threads' sleeps, cut short by stop */
	pthread_cond_t cv;
	struct scrape_target *t;
	size_t n;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct scrape_target *st = arg;
	size_t len = size * n;
	if (gw_buf_append(&st->body, p, len) != 0) {
		st->too_big = true;
		return 0; /* curl stops with CURLE_WRITE_ERROR */
	}
	return len;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct scrape_target *st = arg;
	(void)dt, (void)dn, (void)ut, (void)un;
	return atomic_load(&st->s->stop) ? 1 : 0;
}

static int target_setup(struct scrape_target *st, struct gw_err *err)
{
	const struct gw_curl *cu = &st->s->curl;
	CURL *e = st->easy = cu->curl_easy_init();
	if (!e)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	cu->curl_easy_setopt(e, CURLOPT_URL, st->t.url);
	cu->curl_easy_setopt(e, CURLOPT_USERAGENT, st->s->user_agent);
	cu->curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* every encoding libcurl decodes: gzip */
	cu->curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	cu->curl_easy_setopt(e, CURLOPT_WRITEDATA, st);
	cu->curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	cu->curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	cu->curl_easy_setopt(e, CURLOPT_XFERINFODATA, st);
	cu->curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	cu->curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)st->t.timeout_ms);
	cu->curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)st->t.timeout_ms);
	cu->curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	return 0;
}

/* Fetch the body. 0, or non-zero with why in err. */
static int fetch(struct scrape_target *st, struct gw_err *err)
{
	const struct gw_curl *cu = &st->s->curl;
	gw_buf_reset(&st->body);
	st->too_big = false;
	CURLcode cc = cu->curl_easy_perform(st->easy);
	if (st->too_big)
		return gw_err_set(err, GW_EOVERFLOW, "body over %zu MiB", BODY_MAX >> 20);
	if (cc != CURLE_OK)
		return gw_err_set(err, GW_EIO, "%s", cu->curl_easy_strerror(cc));
	long code = 0;
	cu->curl_easy_getinfo(st->easy, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200)
		return gw_err_set(err, GW_EIO, "server returned HTTP status %ld", code);
	return 0;
}

/* ---- refs by labels ---------------------------------------------------------------- */

static void refs_clear(struct ref_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->slot[i].key);
	free(c->slot);
	c->slot = NULL;
	c->cap = c->n = 0;
}

static struct ref_slot *refs_probe(struct ref_cache *c, uint64_t h, const char *key, size_t len)
{
	size_t i = (size_t)h & (c->cap - 1);
	while (c->slot[i].key &&
	       !(c->slot[i].hash == h && c->slot[i].len == len && !memcmp(c->slot[i].key, key, len)))
		i = (i + 1) & (c->cap - 1);
	return &c->slot[i];
}

static int refs_grow(struct ref_cache *c)
{
	struct ref_cache bigger = {.cap = c->cap ? c->cap * 2 : 1024, .key = c->key};
	if (!(bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot))))
		return GW_ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slot[i].key)
			*refs_probe(&bigger, c->slot[i].hash, c->slot[i].key, c->slot[i].len) = c->slot[i];
	free(c->slot);
	bigger.n = c->n;
	*c = bigger;
	return 0;
}

/* The store ref of the series with these labels: from the cache, else found (or made) in the store. */
static int refs_get(struct ref_cache *c, struct gw_tsdb *db, const struct gw_lpair *l, size_t n,
		    uint64_t *ref)
{
	gw_buf_reset(&c->key);
	for (size_t i = 0; i < n; i++)
		if (gw_buf_append(&c->key, l[i].name, strlen(l[i].name) + 1) ||
		    gw_buf_append(&c->key, l[i].value, strlen(l[i].value) + 1))
			return gw_tsdb_series(db, l, n, ref); /* too long to keep: the store alone */
	uint64_t h = 1469598103934665603ULL;		      /* FNV-1a */
	for (size_t i = 0; i < c->key.len; i++)
		h = (h ^ (unsigned char)c->key.data[i]) * 1099511628211ULL;
	if (c->cap) {
		struct ref_slot *sl = refs_probe(c, h, c->key.data, c->key.len);
		if (sl->key) {
			*ref = sl->ref;
			return 0;
		}
	}
	int rc = gw_tsdb_series(db, l, n, ref);
	if (rc)
		return rc;
	if (c->n >= REFS_MAX)
		refs_clear(c);
	if ((c->n + 1) * 2 > c->cap && refs_grow(c) != 0)
		return 0; /* not kept: found again next time */
	char *key = malloc(c->key.len);
	if (!key)
		return 0;
	memcpy(key, c->key.data, c->key.len);
	*refs_probe(c, h, key, c->key.len) = (struct ref_slot){h, *ref, key, c->key.len};
	c->n++;
	return 0;
}

/* ---- storing a scrape ------------------------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* A staleness marker for every series of the last scrape this one lacks; then this one is the last. */
static void mark_stale(struct scrape_target *st, struct gw_tsdb *db, int64_t t)
{
	if (st->ncur > 1)
		qsort(st->cur, st->ncur, sizeof(*st->cur), cmp_u64);
	size_t j = 0;
	for (size_t i = 0; i < st->nprev; i++) {
		while (j < st->ncur && st->cur[j] < st->prev[i])
			j++;
		if (j == st->ncur || st->cur[j] != st->prev[i])
			gw_tsdb_append(db, st->prev[i], t, gw_stale_nan());
	}
	uint64_t *swap = st->prev;
	st->prev = st->cur;
	st->nprev = st->ncur;
	st->cur = swap;
	st->ncur = 0;
}

static int meta_series(struct scrape_target *st, struct gw_tsdb *db, const char *name, uint64_t *ref,
		       int64_t t, double v)
{
	const struct gw_lpair l[] = {
	    {GW_METRIC_NAME, name}, {"job", st->t.job}, {"instance", st->t.instance}};
	if (!*ref && gw_tsdb_series(db, l, 3, ref) != 0)
		return -1;
	return gw_tsdb_append(db, *ref, t, v);
}

/* The batch (empty when the scrape failed), the staleness markers and the scrape's own series. */
static void store(struct scrape_target *st, int64_t t, bool up, double seconds)
{
	struct agent_history *h = &st->s->a->history;
	uint64_t refused = 0;
	pthread_mutex_lock(&h->append_mu);
	for (size_t i = 0; i < st->batch.ns; i++) {
		const struct gw_scrape_sample *s = &st->batch.s[i];
		uint64_t ref;
		if (refs_get(&st->refs, h->db, st->batch.l + s->first, s->n, &ref) != 0 ||
		    gw_tsdb_append(h->db, ref, t, s->v) != 0) {
			refused++; /* a series twice in one body, or the store full */
			continue;
		}
		st->cur[st->ncur++] = ref;
	}
	mark_stale(st, h->db, t);
	refused += meta_series(st, h->db, "up", &st->up_ref, t, up) != 0;
	refused += meta_series(st, h->db, "scrape_duration_seconds", &st->dur_ref, t, seconds) != 0;
	refused +=
	    meta_series(st, h->db, "scrape_samples_scraped", &st->samples_ref, t, (double)st->batch.ns) != 0;
	pthread_mutex_unlock(&h->append_mu);
	atomic_fetch_add(&h->append_errors, refused);
	/* a slow scrape's samples may come after remote write read past t */
	agent_rw_note_append(st->s->a, t);
}

static void log_failure(struct scrape_target *st, int64_t now, const char *why)
{
	if (st->logged_ms && now - st->logged_ms < LOG_EVERY_MS)
		return;
	st->logged_ms = now;
	char q[600];
	st->s->a->o.log("warn", "msg=\"scrape failed\" job=%s instance=%s err=\"%s\" failures=%llu",
			st->t.job, st->t.instance, gw_logq(q, sizeof(q), why),
			(unsigned long long)atomic_load(&st->failures));
}

/* Room for n refs in this scrape's and the last one's arrays. */
static int fit_refs(struct scrape_target *st, size_t n)
{
	if (n <= st->cap)
		return 0;
	uint64_t *c = realloc(st->cur, n * sizeof(*c));
	if (c)
		st->cur = c;
	uint64_t *p = c ? realloc(st->prev, n * sizeof(*p)) : NULL;
	if (p)
		st->prev = p;
	if (!c || !p)
		return GW_ENOMEM;
	st->cap = n;
	return 0;
}

static void scrape_once(struct scrape_target *st)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int64_t start = gw_now_ms();
	struct gw_err err;
	gw_err_clear(&err);
	int rc = fetch(st, &err);
	if (rc == 0) {
		char empty[1];
		char *text = st->body.len ? st->body.data : empty;
		rc = gw_scrape_parse(&st->batch, text, st->body.len, &st->t, &err);
	}
	if (rc == 0 && fit_refs(st, st->batch.ns) != 0)
		rc = gw_err_set(&err, GW_ENOMEM, "out of memory");
	if (rc)
		st->batch.ns = st->batch.nl = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	store(st, start, rc == 0, seconds);
	atomic_fetch_add(&st->scrapes, 1);
	atomic_store(&st->up, rc == 0);
	atomic_store(&st->samples, st->batch.ns);
	atomic_store(&st->duration_us, (int64_t)(seconds * 1e6));
	if (rc) {
		atomic_fetch_add(&st->failures, 1);
		log_failure(st, start, err.msg);
	} else if (st->logged_ms) {
		st->logged_ms = 0;
		st->s->a->o.log("info", "msg=\"scrape recovered\" job=%s instance=%s", st->t.job,
				st->t.instance);
	}
}

/* Sleep until the wall-clock ms `until`, or stop; false on stop. */
static bool sleep_until(struct agent_scrape *s, int64_t until)
{
	struct timespec ts = {.tv_sec = until / 1000, .tv_nsec = (long)(until % 1000) * 1000000L};
	pthread_mutex_lock(&s->mu);
	while (!atomic_load(&s->stop))
		if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&s->mu);
	return !atomic_load(&s->stop);
}

static void *run(void *arg)
{
	struct scrape_target *st = arg;
	int64_t next = gw_now_ms();
	do {
		scrape_once(st);
		next += st->t.interval_ms;
		int64_t now = gw_now_ms();
		/* a scrape longer than the interval: the next one starts a whole interval on */
		if (next < now)
			next = now + st->t.interval_ms;
	} while (sleep_until(st->s, next));
	return NULL;
}

int agent_scrape_start(struct gw_agent *a, struct gw_err *err)
{
	if (!a->o.nscrapes)
		return 0;
	if (!a->history.db)
		return gw_err_set(
		    err, GW_EINVAL,
		    "--scrape stores what it scrapes: it needs the history (drop --no-history)");
	struct agent_scrape *s = a->scrape = calloc(1, sizeof(*s));
	if (!s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	s->a = a;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (!(s->t = calloc(a->o.nscrapes, sizeof(*s->t))))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	snprintf(s->user_agent, sizeof(s->user_agent), "gpuwatch/%s", GW_VERSION);
	int rc = gw_curl_open(&s->curl, err);
	for (size_t i = 0; rc == 0 && i < a->o.nscrapes; i++) {
		struct scrape_target *st = &s->t[i];
		st->t = a->o.scrapes[i];
		st->s = s;
		gw_buf_init(&st->body, BODY_MAX);
		gw_scrape_batch_init(&st->batch, SAMPLES_MAX);
		gw_buf_init(&st->refs.key, 64 << 10);
		s->n++;
		if ((rc = target_setup(st, err)) != 0)
			break;
		if (pthread_create(&st->thread, NULL, run, st) != 0)
			rc = gw_err_set(err, GW_ENOMEM, "cannot start a scrape thread");
		st->started = rc == 0;
		a->o.log("info", "msg=scraping job=%s instance=%s interval_ms=%lld timeout_ms=%lld",
			 st->t.job, st->t.instance, (long long)st->t.interval_ms,
			 (long long)st->t.timeout_ms);
	}
	return rc;
}

void agent_scrape_stop(struct agent_scrape *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	atomic_store(&s->stop, true);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < s->n; i++) {
		struct scrape_target *st = &s->t[i];
		if (st->started)
			pthread_join(st->thread, NULL);
		if (st->easy)
			s->curl.curl_easy_cleanup(st->easy);
		gw_buf_release(&st->body);
		gw_scrape_batch_release(&st->batch);
		refs_clear(&st->refs);
		gw_buf_release(&st->refs.key);
		free(st->cur);
		free(st->prev);
	}
	free(s->t);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* One family with a sample per target. */
static void family(struct gw_expfmt *w, const struct agent_scrape *s, const char *name, const char *help,
		   enum gw_metric_type type, double (*get)(const struct scrape_target *))
{
	gw_expfmt_family(w, name, help, type);
	for (size_t i = 0; i < s->n; i++) {
		const struct gw_label l[] = {{"job", s->t[i].t.job}, {"instance", s->t[i].t.instance}};
		gw_expfmt_sample(w, l, 2, get(&s->t[i]));
	}
}

static double g_up(const struct scrape_target *t)
{
	return atomic_load(&t->up);
}
static double g_scrapes(const struct scrape_target *t)
{
	return (double)atomic_load(&t->scrapes);
}
static double g_failures(const struct scrape_target *t)
{
	return (double)atomic_load(&t->failures);
}
static double g_samples(const struct scrape_target *t)
{
	return (double)atomic_load(&t->samples);
}
static double g_duration(const struct scrape_target *t)
{
	return (double)atomic_load(&t->duration_us) / 1e6;
}

void agent_scrape_render(struct gw_agent *a, struct gw_expfmt *w)
{
	const struct agent_scrape *s = a->scrape;
	if (!s || !s->n)
		return;
	const enum gw_metric_type G = GW_METRIC_GAUGE, C = GW_METRIC_COUNTER;
	family(w, s, "gpuwatch_scrape_target_up", "1 if the last scrape of the target (--scrape) succeeded.",
	       G, g_up);
	family(w, s, "gpuwatch_scrape_total", "Scrapes of the target, successful or not.", C, g_scrapes);
	family(w, s, "gpuwatch_scrape_failures_total",
	       "Scrapes of the target that failed: no answer, not 200, a body that does not parse or is too "
	       "big.",
	       C, g_failures);
	family(w, s, "gpuwatch_scrape_samples", "Samples the last scrape of the target stored.", G,
	       g_samples);
	family(w, s, "gpuwatch_scrape_duration_seconds", "How long the last scrape of the target took.", G,
	       g_duration);
}
