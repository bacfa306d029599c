/*
 * agent.c - the agent's wiring (see agent.h): the sampler and its
 * attribution and HPC-job sources, the exposition and history parts, the
 * server with the route table they contribute to, and the log lines for
 * what the sampler and the job watcher report.
 */
#include "agent/agent_int.h"

#include "agent/page.h"
#include "api/json.h"
#include "core/logq.h"
#include "version.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/*
 * A failing NVML call, from the sampler (rate limited there: the first
 * failure of a function at once, then at most one summary per minute).
 * Never fatal: the sampler carries on and counts it in
 * gpuwatch_nvml_errors_total.
 */
static void log_nvml(void *arg, const struct gw_nvml_log_line *l)
{
	const struct gw_agent *a = arg;
	char gpu[16];
	if (l->gpu >= 0)
		snprintf(gpu, sizeof(gpu), "%d", l->gpu);
	else
		snprintf(gpu, sizeof(gpu), "none");
	if (l->summary)
		a->o.log("warn",
			 "msg=\"NVML call keeps failing\" function=%s errors=%llu seconds=%lld total=%llu gpu=%s "
			 "err=\"%s\" code=%d",
			 l->function, (unsigned long long)l->errors, (long long)(l->span_ms / 1000),
			 (unsigned long long)l->total, gpu, gw_nvml_strerror(a->nv, l->ret), l->ret);
	else
		a->o.log("warn",
			 "msg=\"NVML call failed\" function=%s errors=%llu total=%llu gpu=%s err=\"%s\" code=%d "
			 "hint=\"further failures of this function are summarised once a minute\"",
			 l->function, (unsigned long long)l->errors, (unsigned long long)l->total, gpu,
			 gw_nvml_strerror(a->nv, l->ret), l->ret);
}

/* What the HPC job mapping reports (collect/hpcjob.h: each problem once, when it appears). */
static void log_hpcjob(void *arg, const struct gw_hpcjob_event *e)
{
	const struct gw_agent *a = arg;
	char path[512], q[GW_HPCJOB_MAX_JOBS * (GW_HPCJOB_ID_MAX + 1) * 2 + 8];
	gw_logq(path, sizeof(path), e->path);
	switch (e->kind) {
	case GW_HPCJOB_DIR_DOWN:
		a->o.log("warn", "msg=\"hpc job mapping directory unavailable; no hpc_job labels until it is back\" "
				 "dir=\"%s\" err=\"%s\"",
			 path, strerror(e->err));
		break;
	case GW_HPCJOB_DIR_UP:
		a->o.log("info", "msg=\"hpc job mapping directory available again\" dir=\"%s\"", path);
		break;
	case GW_HPCJOB_FILE_BAD:
		a->o.log("warn", "msg=\"hpc job mapping file not used; the GPU has no hpc_job label\" gpu=%d file=\"%s\" "
				 "why=\"%s\"%s%s%s",
			 e->gpu, path, e->why, e->err ? " err=\"" : "", e->err ? strerror(e->err) : "",
			 e->err ? "\"" : "");
		break;
	case GW_HPCJOB_LINES_SKIPPED:
		a->o.log("warn", "msg=\"hpc job mapping file: lines skipped\" gpu=%d file=\"%s\" too_long=%u "
				 "not_printable_utf8=%u over_limit=%u hint=\"a job id is 1 to %d bytes of printable UTF-8, "
				 "at most %d per GPU\"",
			 e->gpu, path, e->too_long, e->bad_text, e->over_cap, GW_HPCJOB_ID_MAX, GW_HPCJOB_MAX_JOBS);
		break;
	case GW_HPCJOB_JOBS: {
		char ids[sizeof(q) / 2] = "";
		size_t w = 0;
		for (unsigned int i = 0; e->jobs && i < e->jobs->n && w < sizeof(ids); i++)
			w += (size_t)snprintf(ids + w, sizeof(ids) - w, "%s%s", i ? "," : "", e->jobs->id[i]);
		a->o.log("info", "msg=\"hpc jobs changed\" gpu=%d hpc_jobs=\"%s\"", e->gpu, gw_logq(q, sizeof(q), ids));
		break;
	}
	case GW_HPCJOB_IGNORED:
		a->o.log("info", "msg=\"hpc job mapping: files that name no GPU here are ignored\" dir=\"%s\" count=%u "
				 "first=\"%s\" hint=\"files are named by GPU index (the gpu label); MIG GPU.INSTANCE "
				 "files do not apply to whole GPUs\"",
			 path, e->ignored, gw_logq(q, sizeof(q), e->first_ignored));
		break;
	}
}

/* ---- the agent's own routes ---------------------------------------------------- */

static void h_health(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
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

/* The page (web/src/index.html, built in), with the simulated banner when the GPUs are. */
static void h_root(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	(void)req;
	agent_page_root(resp, a->nv->simulated ? "<div class=\"banner\" id=\"simulated\">SIMULATED GPUs (--sim): not "
						 "real hardware</div>"
					       : NULL);
}

/* /static/NAME: the page's script, style and charting library, built in. */
static void h_static(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	agent_page_static(req, resp);
}

/*
 * POST /api/v1/import (--web.enable-import): OpenMetrics text with time
 * stamps, what `gpuwatch import --agent` sends, into the store the agent
 * holds, so it is queryable at once; an import into the store directly is
 * refused while the agent holds it (store/tsdb.h, holder).
 */
static void h_import(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	struct gw_import_stats st;
	uint64_t refused = 0;
	struct gw_err err;
	gw_err_clear(&err);
	resp->content_type = "application/json";
	if (!req->body_len) {
		resp->status = 400;
		gw_buf_puts(&resp->body, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"empty body: "
					 "post OpenMetrics text with time stamps\"}\n");
		return;
	}
	if (agent_history_import(&a->history, req->body, req->body_len, &st, &refused, &err) != 0) {
		resp->status = 400;
		gw_buf_puts(&resp->body, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":");
		gw_json_str(&resp->body, err.msg);
		gw_buf_puts(&resp->body, "}\n");
		return;
	}
	gw_buf_printf(&resp->body,
		      "{\"status\":\"success\",\"data\":{\"samples\":%zu,\"refused\":%llu,\"bad_lines\":%zu}}\n",
		      st.samples - (size_t)refused, (unsigned long long)refused, st.bad_lines);
}

static const struct gw_http_route import_route = {"/api/v1/import", GW_HTTP_POST | GW_HTTP_POOLED, false, h_import,
						   NULL};

/* The routes of every part: the exposition's, the agent's own, the history's query API. */
static const struct gw_http_route own_routes[] = {
	{"/metrics", GW_HTTP_GET, false, agent_expose_metrics, NULL},
	{"/health", GW_HTTP_GET, false, h_health, NULL},
	{"/", GW_HTTP_GET, false, h_root, NULL},
	{"/static/", GW_HTTP_GET | GW_HTTP_HEAD, true, h_static, NULL},
	{"/-/healthy", GW_HTTP_GET | GW_HTTP_HEAD, false, agent_h_healthy, NULL},
	{"/-/ready", GW_HTTP_GET | GW_HTTP_HEAD, false, agent_h_ready, NULL},
};
#define NOWN (sizeof(own_routes) / sizeof(own_routes[0]))

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

/* ---- wiring ---------------------------------------------------------------------- */

/* err's message prefixed with what failed: "cannot start sampling: ..." (hint may be NULL). */
static int fail(struct gw_err *err, int rc, const char *what, const char *hint)
{
	char why[GW_ERR_MSG_MAX];
	snprintf(why, sizeof(why), "%s", err && err->msg[0] ? err->msg : gw_strerror(rc));
	return gw_err_set(err, rc, "%s: %s%s%s%s", what, why, hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
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
static int open_hpcjob(struct gw_agent *a, struct gw_err *err)
{
	const char *dir = a->o.hpc_dir;
	if (!dir || !*dir)
		return 0;
	unsigned int *idx = malloc((a->ngpus ? a->ngpus : 1) * sizeof(*idx));
	struct gw_hpcjob_opts ho = {.log = log_hpcjob, .log_arg = a};
	for (unsigned int i = 0; idx && i < a->ngpus; i++)
		idx[i] = a->gpus[i].index;
	int rc = idx ? gw_hpcjob_new(&a->hpc, dir, idx, a->ngpus, &ho, err)
		     : gw_err_set(err, GW_ENOMEM, "out of memory");
	free(idx);
	char q[512];
	gw_logq(q, sizeof(q), dir);
	if (rc) {
		char what[600];
		snprintf(what, sizeof(what), "cannot watch the hpc job mapping directory %s", q);
		return fail(err, rc, what, NULL);
	}
	a->o.log("info", "msg=\"hpc job mapping enabled\" dir=\"%s\"", q);
	return 0;
}

static int start_history(struct gw_agent *a, struct gw_err *err)
{
	const struct gw_agent_opts *o = &a->o;
	if (o->no_history)
		return 0;
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
					/* NULL: the host name, which a new port keeps (docs/STORE.md) */
					.instance = o->instance,
					.log = o->log,
					.stagger = true,
					/* as /metrics; a SIGHUP's new counters reach it too (agent_expose_load) */
					.counters = a->counters,
					.holder = "agent"};
	int rc = agent_history_open(&a->history, &ho, a->nv, a->ngpus, err);
	if (rc) {
		char what[600];
		snprintf(what, sizeof(what), "cannot open the history store %s", o->storage_path);
		return fail(err, rc, what, "--storage.path DIR, or --no-history");
	}
	a->history.api.opts.timeout_ms = o->query_timeout_ms; /* --query.timeout */
	a->history.api.opts.max_samples = o->query_max_samples;
	agent_status_init(a);
	agent_history_start(&a->history, a->sampler);
	a->o.log("info", "msg=\"keeping history\" path=%s retention_ms=%lld flush_interval_ms=%lld", o->storage_path,
		 (long long)o->retention_ms, (long long)flush_ms);
	return 0;
}

int gw_agent_new(struct gw_agent **out, struct gw_nvml *nv, struct gw_webcfg *web, const struct gw_agent_opts *o,
		 struct gw_err *err)
{
	struct gw_agent *a = calloc(1, sizeof(*a));
	*out = a;
	if (!a) {
		gw_webcfg_release(web);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	a->o = *o;
	a->nv = nv;
	a->web = *web;
	memset(web, 0, sizeof(*web));
	pthread_rwlock_init(&a->lock, NULL);
	gw_expo_cache_init(&a->expo, (size_t)64 << 20);
	attribution_source(&a->attr_src, nv, o->proc_root);
	a->o.so.attr = &a->attr_src;
	a->o.so.nvml_log = log_nvml;
	a->o.so.nvml_log_arg = a;
	int rc = agent_expose_load(a, err);
	if (rc == 0)
		rc = gw_nvml_gpus_list(nv, &a->gpus, &a->ngpus, err);
	if (rc)
		return fail(err, rc, "cannot start", NULL);
	if ((rc = open_hpcjob(a, err)) != 0)
		return rc;
	a->o.so.hpcjob = a->hpc;
	if ((rc = agent_kubernetes_open(a, err)) != 0)
		return fail(err, rc, "cannot watch the kubelet's pod resources", NULL);
	if ((rc = gw_sampler_new(&a->sampler, nv, a->gpus, a->ngpus, &a->o.so, err)) == 0)
		agent_expose_want(a);
	if (rc != 0 || (rc = gw_sampler_start(a->sampler, err)) != 0)
		return fail(err, rc, "cannot start sampling", NULL);
	a->interval_ms = a->o.so.interval_ms ? a->o.so.interval_ms : 1000;
	a->o.log("info", "msg=sampling gpus=%u", a->ngpus);
	if ((rc = start_history(a, err)) != 0 || (rc = agent_forecast_start(a, err)) != 0 ||
	    (rc = agent_anom_start(a, err)) != 0 || (rc = agent_push_open(a, err)) != 0)
		return rc;
	if ((rc = agent_policy_open(a, err)) != 0)
		return fail(err, rc, "cannot load the policies", NULL);
	if ((rc = agent_policy_start(a, err)) != 0 || (rc = agent_health_start(a, err)) != 0)
		return fail(err, rc, "cannot start the health watches", NULL);
	if ((rc = agent_alerting_open(a, err)) != 0)
		return fail(err, rc, "cannot load the rules", NULL);
	if ((rc = agent_rw_open(a, err)) != 0) /* after alerting: it sends with the external labels */
		return fail(err, rc, "cannot start remote write", NULL);
	if ((rc = agent_scrape_start(a, err)) != 0)
		return fail(err, rc, "cannot start scraping", NULL);
	return 0;
}

/*
 * Connections beyond the open-file limit would fail at accept() with EMFILE
 * while the store, too, needs files: keep a margin of 128 for the rest.
 */
static unsigned int fit_max_conns(const struct gw_agent *a, unsigned int want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)want + 128)
		return want;
	unsigned int fit = rl.rlim_cur > 128 + 16 ? (unsigned int)(rl.rlim_cur - 128) : 16;
	a->o.log("warn", "msg=\"fewer connections than asked: the open-file limit is low\" max_connections=%u asked=%u "
			 "nofile=%llu hint=\"raise it (ulimit -n, LimitNOFILE=)\"",
		 fit, want, (unsigned long long)rl.rlim_cur);
	return fit;
}

int gw_agent_serve(struct gw_agent *a, struct gw_err *err)
{
	const struct gw_agent_opts *o = &a->o;
	struct gw_http_route *all = a->routes;
	_Static_assert(sizeof(a->routes) / sizeof(a->routes[0]) >=
			   NOWN + GW_API_NROUTES + 4 + AGENT_ALERTING_NROUTES,
		       "room for every route");
	size_t nroutes = 0;
	for (size_t i = 0; i < NOWN; i++)
		all[nroutes++] = own_routes[i];
	all[nroutes++] = agent_health_route;
	/*
	 * The routes that read the store run on the server's query pool (at
	 * most --query.max-concurrency at once), never on the threads that
	 * answer /metrics and /health; metadata and buildinfo read no samples.
	 */
	if (a->history.db)
		for (size_t i = 0; i < GW_API_NROUTES; i++) {
			all[nroutes] = a->history.routes[i];
			/* the store's readers; status and metadata answer from memory */
			if (strcmp(all[nroutes].path, "/api/v1/metadata") != 0 &&
			    strncmp(all[nroutes].path, "/api/v1/status/", 15) != 0 &&
			    strcmp(all[nroutes].path, "/api/v1/targets") != 0)
				all[nroutes].methods |= GW_HTTP_POOLED;
			nroutes++;
		}
	if (a->history.db) { /* the anomalies of the agent's own store */
		all[nroutes] = agent_anom_route;
		all[nroutes++].ctx = a;
	}
	if (a->history.db && o->enable_import)
		all[nroutes++] = import_route;
	if (a->push.open) {
		all[nroutes] = agent_push_route;
		all[nroutes++].ctx = a;
	}
	if (a->history.db)
		for (size_t i = 0; i < AGENT_ALERTING_NROUTES; i++) {
			all[nroutes] = agent_alerting_routes[i];
			all[nroutes++].ctx = a;
		}
	struct gw_http_opts ho = {
		.listen = o->address,
		.routes = all,
		.nroutes = nroutes,
		.ctx = a,
		.web = &a->web,
		.max_conns = fit_max_conns(a, o->max_conns),
		.max_conns_per_ip = o->max_conns_per_ip ? o->max_conns_per_ip : GW_HTTP_UNLIMITED,
		.head_timeout_ms = o->read_header_timeout_ms ? (unsigned int)o->read_header_timeout_ms
							     : GW_HTTP_UNLIMITED,
		.pool_threads = o->query_concurrency,
		.pool_wait_ms = (unsigned int)o->query_timeout_ms,
		.pool_refuse = refuse_query,
	};
	struct gw_http *srv = NULL;
	int rc = gw_http_start(&srv, &ho, err);
	if (rc)
		return rc;
	atomic_store(&a->http, srv);
	o->log("info", "msg=listening address=%s port=%u interval_ms=%u simulated=%s tls=%s basic_auth_users=%zu",
	       o->address, gw_http_port(srv), a->interval_ms, a->nv->simulated ? "true" : "false",
	       a->web.cert_pem ? "true" : "false", a->web.nusers);
	agent_expose_check(a);
	if ((rc = agent_alerting_start(a, gw_http_port(srv), err)) != 0)
		return fail(err, rc, "cannot start the rule evaluator", NULL);
	return 0;
}

/* SIGHUP and POST /-/reload: the counters file, the rule files, then the policy file; what fails keeps
 * its previous state. */
int gw_agent_reload(struct gw_agent *a, struct gw_err *err)
{
	int rc = agent_expose_load(a, err);
	if (rc == 0)
		a->o.log("info", "msg=\"reloaded counters\" file=%s", a->o.counters ? a->o.counters : "default");
	else
		a->o.log("error", "msg=\"reload failed; keeping the previous counters\" err=\"%s\"", err->msg);
	struct gw_err rerr;
	gw_err_clear(&rerr);
	int rrc = agent_alerting_reload(a, &rerr);
	if (rrc) {
		a->o.log("error", "msg=\"reload failed; keeping the previous rules\" err=\"%s\"", rerr.msg);
		if (rc == 0)
			*err = rerr;
	}
	struct gw_err perr;
	gw_err_clear(&perr);
	int prc = agent_policy_reload(a, &perr);
	if (prc) {
		a->o.log("error", "msg=\"reload failed; keeping the previous policies\" err=\"%s\"", perr.msg);
		if (rc == 0 && rrc == 0)
			*err = perr;
	} else if (a->o.policy_file) {
		a->o.log("info", "msg=\"reloaded policies\" file=%s policies=%zu", a->o.policy_file, a->policy.set.n);
	}
	return rc ? rc : rrc ? rrc : prc;
}

void gw_agent_free(struct gw_agent *a)
{
	if (!a)
		return;
	struct gw_http *srv = atomic_exchange(&a->http, NULL);
	gw_http_stop(srv);
	agent_rw_stop(a);        /* reads the store, sends with the external labels alerting holds */
	agent_alerting_close(a); /* its evaluator reads and writes the store, and tells remote write */
	agent_forecast_stop(a);	 /* it writes to the store */
	agent_anom_stop(a);	 /* so does it */
	agent_push_close(a);	 /* after the server: no push runs */
	agent_scrape_stop(a->scrape); /* it writes to the store */
	agent_health_stop(a);    /* it appends to the store and reads frames */
	agent_policy_close(a);   /* the actions the watches queued run first */
	agent_rw_close(a);       /* after every part that appends: they tell it */
	if (a->history.db)
		agent_history_close(&a->history); /* stops storing, flushes */
	gw_sampler_free(a->sampler);
	gw_hpcjob_free(a->hpc); /* after the sampler: it polls the watcher */
	agent_kubernetes_close(a);
	agent_expose_release(a);
	pthread_rwlock_destroy(&a->lock);
	gw_webcfg_release(&a->web);
	free(a->gpus);
	free(a);
}
