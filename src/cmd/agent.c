/*
 * agent.c - `gpuwatch agent`: sample every GPU on a schedule and serve a
 * dcgm-exporter compatible /metrics (plus gpuwatch's native metrics),
 * /health and a landing page. Logs go to stderr as key=value lines.
 * SIGTERM/SIGINT stop it cleanly; SIGHUP reloads the counters file (not
 * the web config: TLS and users are read once, at start).
 * Per-process series carry container, pod_uid, slurm_job and user labels
 * from collect/cgroup when known; with --hpc-job-mapping-dir every series of
 * a GPU names its HPC jobs (collect/hpcjob).
 */
#include "cmd/cmd.h"

#include "cmd/agent_args.h"
#include "agent/history.h"
#include "collect/hpcjob.h"
#include "collect/sampler.h"
#include "export/expo_cache.h"
#include "export/gpu_metrics.h"
#include "http/server.h"
#include "version.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct agent {
	struct gw_sampler *sampler;
	pthread_rwlock_t lock; /* guards counters and metrics against a reload */
	struct gw_counters *counters;
	bool native;
	struct gw_metrics metrics;
	struct gw_expo_cache expo; /* each frame's exposition, rendered once per format */
	const char *counters_path;
	unsigned int interval_ms;
	bool simulated;
	const char *sim;
	struct gw_webcfg web;          /* --web.config.file; empty: plain HTTP, no auth */
	struct gw_cgroup_src attr_src; /* where process attribution reads from */
	struct agent_history history;  /* the store and the query API; db NULL with --no-history */
	struct gw_http *_Atomic http;  /* for its gpuwatch_http_* / gpuwatch_query_* families; NULL before it starts */
};

static void logf_(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void logf_(const char *level, const char *fmt, ...)
{
	char ts[40];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "ts=%s.%03ldZ level=%s ", ts, now.tv_nsec / 1000000, level);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A failing NVML call, from the sampler (rate limited there: the first
 * failure of a function at once, then at most one summary per minute).
 * Never fatal: the sampler carries on and counts it in
 * gpuwatch_nvml_errors_total.
 */
static void log_nvml(void *arg, const struct gw_nvml_log_line *l)
{
	const struct gw_nvml *nv = arg;
	char gpu[16];
	if (l->gpu >= 0)
		snprintf(gpu, sizeof(gpu), "%d", l->gpu);
	else
		snprintf(gpu, sizeof(gpu), "none");
	if (l->summary)
		logf_("warn",
		      "msg=\"NVML call keeps failing\" function=%s errors=%llu seconds=%lld total=%llu gpu=%s "
		      "err=\"%s\" code=%d",
		      l->function, (unsigned long long)l->errors, (long long)(l->span_ms / 1000),
		      (unsigned long long)l->total, gpu, gw_nvml_strerror(nv, l->ret), l->ret);
	else
		logf_("warn",
		      "msg=\"NVML call failed\" function=%s errors=%llu total=%llu gpu=%s err=\"%s\" code=%d "
		      "hint=\"further failures of this function are summarised once a minute\"",
		      l->function, (unsigned long long)l->errors, (unsigned long long)l->total, gpu,
		      gw_nvml_strerror(nv, l->ret), l->ret);
}

/* s for a quoted log value: quotes and backslashes escaped, other unprintable bytes as '?'. */
static const char *logq(char *dst, size_t n, const char *s)
{
	size_t w = 0;
	for (; s && *s && w + 3 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			dst[w++] = '\\';
		dst[w++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	dst[w] = '\0';
	return dst;
}

/* What the HPC job mapping reports (collect/hpcjob.h: each problem once, when it appears). */
static void log_hpcjob(void *arg, const struct gw_hpcjob_event *e)
{
	char path[512], q[GW_HPCJOB_MAX_JOBS * (GW_HPCJOB_ID_MAX + 1) * 2 + 8];
	logq(path, sizeof(path), e->path);
	switch (e->kind) {
	case GW_HPCJOB_DIR_DOWN:
		logf_("warn", "msg=\"hpc job mapping directory unavailable; no hpc_job labels until it is back\" dir=\"%s\" "
			      "err=\"%s\"",
		      path, strerror(e->err));
		break;
	case GW_HPCJOB_DIR_UP:
		logf_("info", "msg=\"hpc job mapping directory available again\" dir=\"%s\"", path);
		break;
	case GW_HPCJOB_FILE_BAD:
		logf_("warn", "msg=\"hpc job mapping file not used; the GPU has no hpc_job label\" gpu=%d file=\"%s\" "
			      "why=\"%s\"%s%s%s",
		      e->gpu, path, e->why, e->err ? " err=\"" : "", e->err ? strerror(e->err) : "", e->err ? "\"" : "");
		break;
	case GW_HPCJOB_LINES_SKIPPED:
		logf_("warn", "msg=\"hpc job mapping file: lines skipped\" gpu=%d file=\"%s\" too_long=%u "
			      "not_printable_utf8=%u over_limit=%u hint=\"a job id is 1 to %d bytes of printable UTF-8, "
			      "at most %d per GPU\"",
		      e->gpu, path, e->too_long, e->bad_text, e->over_cap, GW_HPCJOB_ID_MAX, GW_HPCJOB_MAX_JOBS);
		break;
	case GW_HPCJOB_JOBS: {
		char ids[sizeof(q) / 2] = "";
		size_t w = 0;
		for (unsigned int i = 0; e->jobs && i < e->jobs->n && w < sizeof(ids); i++)
			w += (size_t)snprintf(ids + w, sizeof(ids) - w, "%s%s", i ? "," : "", e->jobs->id[i]);
		logf_("info", "msg=\"hpc jobs changed\" gpu=%d hpc_jobs=\"%s\"", e->gpu, logq(q, sizeof(q), ids));
		break;
	}
	case GW_HPCJOB_IGNORED:
		logf_("info", "msg=\"hpc job mapping: files that name no GPU here are ignored\" dir=\"%s\" count=%u "
			      "first=\"%s\" hint=\"files are named by GPU index (the gpu label); MIG GPU.INSTANCE files "
			      "do not apply to whole GPUs\"",
		      path, e->ignored, logq(q, sizeof(q), e->first_ignored));
		break;
	}
	(void)arg;
}

static void h_metrics(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct agent *a = ctx;
	enum gw_expfmt_kind kind = gw_expfmt_negotiate(gw_http_header(req, "Accept"));
	const struct gw_frame *f = gw_sampler_acquire(a->sampler);
	if (!f) {
		gw_http_reply_text(resp, 503, "no sample yet\n");
		return;
	}
	const char *data;
	size_t len;
	void *ref;
	pthread_rwlock_rdlock(&a->lock);
	int rc = gw_expo_cache_get(&a->expo, &a->metrics, f, kind, &data, &len, &ref);
	pthread_rwlock_unlock(&a->lock);
	gw_sampler_release(a->sampler, f);
	if (rc) {
		gw_http_reply_text(resp, 500, rc == GW_EOVERFLOW ? "exposition too large\n" : "out of memory\n");
		return;
	}
	gw_http_reply_shared(resp, data, len, gw_expo_body_unref, ref);
	resp->content_type = kind == GW_EXPFMT_OPENMETRICS ? GW_EXPFMT_CONTENT_TYPE_OPENMETRICS
							   : GW_EXPFMT_CONTENT_TYPE_TEXT;
}

static void h_health(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct agent *a = ctx;
	const struct gw_frame *f = gw_sampler_acquire(a->sampler);
	int64_t age = f ? gw_now_ms() - f->t_ms : -1;
	char msg[512], stuck[480] = "";
	size_t nstuck = f ? gw_sampler_stalled_text(f, stuck, sizeof(stuck)) : 0;
	bool all = f && f->stalled_gpus && f->stalled_gpus == f->ngpus;
	gw_sampler_release(a->sampler, f);
	/* Healthy while samples keep coming: at most a few intervals old. A GPU stuck
	 * in NVML while others are read degrades the agent; every GPU stuck stalls it. */
	snprintf(msg, sizeof(msg), "%s%s%s\n", all ? "sampling stalled" : "degraded", nstuck ? ": " : "", stuck);
	if (f && age <= 3 * (int64_t)a->interval_ms + 2000 && !all)
		gw_http_reply_text(resp, 200, nstuck ? msg : "OK\n");
	else
		gw_http_reply_text(resp, 503, all ? msg : "sampling stalled\n");
}

static void h_root(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct agent *a = ctx;
	resp->content_type = "text/html; charset=utf-8";
	gw_buf_printf(&resp->body,
		      "<!doctype html><html><head><meta charset=\"utf-8\"><title>gpuwatch agent</title></head>"
		      "<body><h1>gpuwatch agent %s</h1>%s"
		      "<ul><li><a href=\"/metrics\">/metrics</a> (dcgm-exporter compatible and native metrics)</li>"
		      "<li><a href=\"/health\">/health</a></li></ul></body></html>\n",
		      GW_VERSION,
		      a->simulated ? "<p><strong>SIMULATED GPUs</strong> (--sim): not real hardware.</p>" : "");
}

static const struct gw_http_route routes[] = {
	{"/metrics", GW_HTTP_GET, false, h_metrics, NULL},
	{"/health", GW_HTTP_GET, false, h_health, NULL},
	{"/", GW_HTTP_GET, false, h_root, NULL},
};

/* The store's families, then the server's: connections refused and cut, queries queued. */
static void render_extra(void *arg, struct gw_expfmt *w)
{
	struct agent *a = arg;
	agent_history_render(&a->history, w);
	struct gw_http *srv = atomic_load(&a->http);
	if (!srv)
		return;
	struct gw_http_stats st;
	gw_http_stats(srv, &st);
	static const struct {
		const char *name, *help;
		enum gw_metric_type type;
		bool query; /* only with the query API */
	} fams[] = {
		{"gpuwatch_http_connections", "Open HTTP connections.", GW_METRIC_GAUGE, false},
		{"gpuwatch_http_connections_rejected_total",
		 "HTTP connections refused at accept: their source address held --web.max-connections-per-ip.",
		 GW_METRIC_COUNTER, false},
		{"gpuwatch_http_read_header_timeouts_total",
		 "HTTP connections closed because a request was not received within --web.read-header-timeout.",
		 GW_METRIC_COUNTER, false},
		{"gpuwatch_query_queue_length", "Queries waiting for one of --query.max-concurrency slots.",
		 GW_METRIC_GAUGE, true},
		{"gpuwatch_query_running", "Queries running now.", GW_METRIC_GAUGE, true},
		{"gpuwatch_query_rejected_total",
		 "Queries answered 503 without running: the queue was full, or they waited longer than --query.timeout.",
		 GW_METRIC_COUNTER, true},
	};
	const double v[] = {st.conns, (double)st.conns_rejected, (double)st.head_timeouts, (double)st.pool_queued,
			    st.pool_running, (double)st.pool_refused};
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		if (fams[i].query && !a->history.db)
			continue;
		gw_expfmt_family(w, fams[i].name, fams[i].help, fams[i].type);
		gw_expfmt_sample(w, NULL, 0, v[i]);
	}
}

/* Build the new counters and metrics aside, then swap them in under the lock. */
static int load_counters(struct agent *a, struct gw_nvml *nv, struct gw_err *err)
{
	struct gw_counters *c = calloc(1, sizeof(*c));
	if (!c)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = a->counters_path ? gw_counters_load(c, a->counters_path, err) : gw_counters_default(c);
	if (rc) {
		free(c);
		return rc;
	}
	for (size_t i = 0; i < c->nwarnings && i < GW_COUNTERS_WARNINGS_MAX; i++)
		logf_("warn", "msg=\"counters file: line skipped\" err=\"%s\"", c->warnings[i]);
	if (c->nwarnings > GW_COUNTERS_WARNINGS_MAX)
		logf_("warn", "msg=\"counters file: more lines skipped\" count=%zu",
		      c->nwarnings - GW_COUNTERS_WARNINGS_MAX);
	struct gw_metrics m;
	if (gw_metrics_prepare(&m, c, nv) != 0) {
		gw_counters_release(c);
		free(c);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	m.version = GW_VERSION;
	m.native = a->native;
	m.extra = render_extra; /* the store's part is empty while no history is kept */
	m.extra_arg = a;
	pthread_rwlock_wrlock(&a->lock);
	struct gw_counters *old_c = a->counters;
	struct gw_metrics old_m = a->metrics;
	a->counters = c;
	a->metrics = m;
	gw_expo_cache_clear(&a->expo); /* rendered with the old config */
	pthread_rwlock_unlock(&a->lock);
	/* the history keeps what /metrics now shows (nothing before it opens) */
	agent_history_reconfigure(&a->history, c, gw_counters_has_label(c, "DCGM_FI_DRIVER_VERSION"));
	if (old_c) {
		gw_metrics_release(&old_m);
		gw_counters_release(old_c);
		free(old_c);
	}
	return 0;
}

/*
 * Real GPUs: the host's /proc (or --proc-root's). Simulated GPUs invent
 * their pids, which may belong to unrelated host processes, so the
 * simulator's cgroup paths stand in unless --proc-root names a fixture tree.
 */
static void attribution_source(struct gw_cgroup_src *src, struct gw_nvml *nv, const char *proc_root)
{
	src->root = proc_root ? proc_root : "/";
	src->read_proc = !nv->simulated || proc_root;
	src->sim_cgroup = NULL;
	if (nv->simulated)
		*(void **)&src->sim_cgroup = dlsym(nv->lib, "gwsim_process_cgroup");
}

/* --hpc-job-mapping-dir (or its variable): the watcher the sampler polls; none without a directory. */
static int open_hpcjob(struct gw_hpcjob **out, const char *dir, const struct gw_gpu *gpus, unsigned int n)
{
	*out = NULL;
	if (!dir || !*dir)
		return 0;
	unsigned int *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct gw_hpcjob_opts ho = {.log = log_hpcjob};
	struct gw_err err;
	gw_err_clear(&err);
	for (unsigned int i = 0; idx && i < n; i++)
		idx[i] = gpus[i].index;
	int rc = idx ? gw_hpcjob_new(out, dir, idx, n, &ho, &err) : gw_err_set(&err, GW_ENOMEM, "out of memory");
	free(idx);
	char q[512];
	if (rc) {
		logf_("error", "msg=\"cannot watch the hpc job mapping directory\" dir=\"%s\" err=\"%s\"",
		      logq(q, sizeof(q), dir), err.msg);
		return 1;
	}
	logf_("info", "msg=\"hpc job mapping enabled\" dir=\"%s\"", logq(q, sizeof(q), dir));
	return 0;
}

static int start_history(struct agent *a, struct gw_nvml *nv, unsigned int ngpus, const struct agent_args *o)
{
	if (o->no_history)
		return 0;
	char instance[300];
	if (!o->instance) {
		/* Prometheus names a target host:port; the agent's own history does the same. */
		char host[256];
		if (gethostname(host, sizeof(host) - 1) != 0)
			snprintf(host, sizeof(host), "localhost");
		const char *port = strrchr(o->address, ':');
		snprintf(instance, sizeof(instance), "%s:%s", host, port ? port + 1 : o->address);
	}
	/* About 25 samples a series between flushes, within 1..5 s: 5 s at the
	 * default 1 s, 2.5 s at 100 ms. Raw samples wait 16 B each (at 100 ms a
	 * 5 s wait held ~0.7 MB more), and each flush writes a row a series (at
	 * 100 ms a 1 s flush cost 2.7 % of a core against 0.9 % at 5 s). */
	int64_t flush_ms = o->flush_interval_ms;
	if (!flush_ms) {
		flush_ms = 25 * (int64_t)a->interval_ms;
		flush_ms = flush_ms < 1000 ? 1000 : flush_ms > 5000 ? 5000 : flush_ms;
	}
	struct agent_history_opts ho = {.path = o->storage_path,
					.retention_ms = o->retention_ms,
					.retention_bytes = o->retention_bytes,
					.flush_interval_ms = flush_ms,
					.instance = o->instance ? o->instance : instance,
					.log = logf_,
					.stagger = true,
					/* as /metrics; a SIGHUP's new counters reach it too (load_counters) */
					.driver_label = gw_counters_has_label(a->counters, "DCGM_FI_DRIVER_VERSION"),
					.counters = a->counters};
	struct gw_err err;
	gw_err_clear(&err);
	if (agent_history_open(&a->history, &ho, nv, ngpus, &err) != 0) {
		logf_("error", "msg=\"cannot open the history store\" path=%s err=\"%s\" hint=\"--storage.path DIR, or "
			       "--no-history\"",
		      o->storage_path, err.msg);
		return 1;
	}
	a->history.api.opts.timeout_ms = o->query_timeout_ms; /* --query.timeout */
	agent_history_start(&a->history, a->sampler);
	logf_("info", "msg=\"keeping history\" path=%s retention_ms=%lld flush_interval_ms=%lld", o->storage_path,
	      (long long)o->retention_ms, (long long)flush_ms);
	return 0;
}

/* A query the pool does not run, answered as Prometheus answers one (503, errorType "unavailable"/"timeout"). */
static void refuse_query(void *ctx, enum gw_http_refusal why, struct gw_http_response *resp)
{
	(void)ctx;
	resp->status = 503;
	resp->content_type = "application/json";
	gw_buf_reset(&resp->body);
	gw_buf_puts(&resp->body,
		    why == GW_HTTP_POOL_TIMEOUT ? "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query "
						   "timed out waiting for a free slot (--query.timeout)\"}"
		    : why == GW_HTTP_POOL_FULL ? "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"too "
						  "many queries waiting (--query.max-concurrency); try again later\"}"
					       : "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"the "
						 "agent is stopping\"}");
}

/*
 * Connections beyond the open-file limit would fail at accept() with EMFILE
 * while the store, too, needs files: keep a margin of 128 for the rest.
 */
static unsigned int fit_max_conns(unsigned int want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)want + 128)
		return want;
	unsigned int fit = rl.rlim_cur > 128 + 16 ? (unsigned int)(rl.rlim_cur - 128) : 16;
	logf_("warn", "msg=\"fewer connections than asked: the open-file limit is low\" max_connections=%u asked=%u "
		      "nofile=%llu hint=\"raise it (ulimit -n, LimitNOFILE=)\"",
	      fit, want, (unsigned long long)rl.rlim_cur);
	return fit;
}

static int serve(struct agent *a, struct gw_nvml *nv, const struct agent_args *o)
{
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_http *srv = NULL;
	/* The agent's own routes, then the query API when history is kept. */
	struct gw_http_route all[3 + GW_API_NROUTES];
	size_t nroutes = 0;
	for (size_t i = 0; i < 3; i++)
		all[nroutes++] = routes[i];
	/*
	 * The routes that read the store run on the server's query pool (at
	 * most --query.max-concurrency at once), never on the threads that
	 * answer /metrics and /health; metadata and buildinfo read no samples.
	 */
	if (a->history.db)
		for (size_t i = 0; i < GW_API_NROUTES; i++) {
			all[nroutes] = a->history.routes[i];
			if (strcmp(all[nroutes].path, "/api/v1/metadata") != 0 &&
			    strcmp(all[nroutes].path, "/api/v1/status/buildinfo") != 0)
				all[nroutes].methods |= GW_HTTP_POOLED;
			nroutes++;
		}
	struct gw_http_opts ho = {
		.listen = o->address,
		.routes = all,
		.nroutes = nroutes,
		.ctx = a,
		.web = &a->web,
		.max_conns = fit_max_conns(o->max_conns),
		.max_conns_per_ip = o->max_conns_per_ip ? o->max_conns_per_ip : GW_HTTP_UNLIMITED,
		.head_timeout_ms = o->read_header_timeout_ms ? (unsigned int)o->read_header_timeout_ms
							     : GW_HTTP_UNLIMITED,
		.pool_threads = o->query_concurrency,
		.pool_wait_ms = (unsigned int)o->query_timeout_ms,
		.pool_refuse = refuse_query,
	};
	if (gw_http_start(&srv, &ho, &err) != 0) {
		logf_("error", "msg=\"cannot serve\" err=\"%s\"", err.msg);
		return 1;
	}
	atomic_store(&a->http, srv);
	logf_("info", "msg=listening address=%s port=%u interval_ms=%u simulated=%s tls=%s basic_auth_users=%zu",
	      o->address, gw_http_port(srv), a->interval_ms, a->simulated ? "true" : "false",
	      a->web.cert_pem ? "true" : "false", a->web.nusers);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	for (;;) {
		int sig = 0;
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			gw_err_clear(&err);
			if (load_counters(a, nv, &err) == 0)
				logf_("info", "msg=\"reloaded counters\" file=%s", o->counters ? o->counters : "default");
			else
				logf_("error", "msg=\"reload failed; keeping the previous counters\" err=\"%s\"", err.msg);
			continue;
		}
		logf_("info", "msg=\"shutting down\" signal=%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
		break;
	}
	atomic_store(&a->http, NULL);
	gw_http_stop(srv);
	return 0;
}

int gw_cmd_agent(int argc, char **argv, const struct gw_cli *cli)
{
	struct agent_args o = {0};
	int rc = agent_parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	/* Signals go to sigwait() in this thread only: block them before any thread starts. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* A file size limit fails the store's writes (EFBIG, as a full disk's
	 * ENOSPC): logged and retried, not a reason to die. */
	signal(SIGXFSZ, SIG_IGN);
	/* Each connection is a file: take the hard limit, as Go programs (Prometheus) do at start. */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
#ifdef __GLIBC__
	/* A few threads that each allocate a little: glibc's arena per thread
	 * held ~0.6 MB more at 100 ms with history, for no speed the agent needs. */
	mallopt(M_ARENA_MAX, 2);
	/*
	 * A range query's arena (blocks of up to 4 MiB) was mmap'ed and
	 * unmapped, or trimmed, every query, so each query page-faulted through
	 * its few MB again: two thirds of a day-long dashboard query's time
	 * (perf). Blocks that size now come from the heap, and up to 8 MiB of
	 * free heap stays for the next query (4 MiB was not enough for a day
	 * of 8 GPUs with unflushed heads).
	 */
	mallopt(M_MMAP_THRESHOLD, (4 << 20) + (64 << 10));
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
#endif

	/* A bad web config stops the agent before anything starts: serving
	 * without the TLS or auth the operator asked for would be worse. */
	struct gw_webcfg web = {0};
	struct gw_err werr;
	gw_err_clear(&werr);
	if (o.web_config && gw_webcfg_load(&web, o.web_config, &werr) != 0) {
		logf_("error", "msg=\"bad web config\" file=%s err=\"%s\"", o.web_config, werr.msg);
		return 1;
	}
	struct gw_nvml *nv = NULL;
	rc = gw_cli_open_nvml(cli, &nv);
	if (rc) {
		gw_webcfg_release(&web);
		return rc;
	}
	struct agent a = {.counters_path = o.counters,
			  .simulated = nv->simulated,
			  .sim = cli->sim,
			  .native = !o.no_native,
			  .web = web};
	attribution_source(&a.attr_src, nv, o.proc_root);
	o.so.attr = &a.attr_src;
	o.so.nvml_log = log_nvml;
	o.so.nvml_log_arg = nv;
	pthread_rwlock_init(&a.lock, NULL);
	gw_expo_cache_init(&a.expo, (size_t)64 << 20);
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	if (load_counters(&a, nv, &err) != 0 || gw_nvml_gpus_list(nv, &gpus, &n, &err) != 0) {
		logf_("error", "msg=\"cannot start\" err=\"%s\"", err.msg);
		gw_nvml_close(nv);
		return 1;
	}
	struct gw_hpcjob *hpc = NULL;
	if (open_hpcjob(&hpc, o.hpc_dir, gpus, n) != 0) {
		rc = 1;
	} else if ((o.so.hpcjob = hpc, gw_sampler_new(&a.sampler, nv, gpus, n, &o.so, &err) != 0) ||
		   gw_sampler_start(a.sampler, &err) != 0) {
		logf_("error", "msg=\"cannot start sampling\" err=\"%s\"", err.msg);
		rc = 1;
	} else {
		a.interval_ms = o.so.interval_ms ? o.so.interval_ms : 1000;
		logf_("info", "msg=sampling gpus=%u", n);
		rc = start_history(&a, nv, n, &o);
		if (rc == 0)
			rc = serve(&a, nv, &o);
	}
	if (a.history.db)
		agent_history_close(&a.history); /* stops storing, flushes */
	gw_sampler_free(a.sampler);
	gw_hpcjob_free(hpc); /* after the sampler: it polls the watcher */
	gw_expo_cache_release(&a.expo);
	gw_metrics_release(&a.metrics);
	if (a.counters) {
		gw_counters_release(a.counters);
		free(a.counters);
	}
	pthread_rwlock_destroy(&a.lock);
	gw_webcfg_release(&a.web);
	free(gpus);
	gw_nvml_close(nv);
	return rc;
}
