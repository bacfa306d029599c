/*
 * status.c - what the agent tells Prometheus clients about itself: its
 * flags, its configuration as YAML, its retention and itself as the one
 * scrape target of its history (the sampler's ticks are its scrapes), for
 * /api/v1/status/{flags,config,runtimeinfo} and /api/v1/targets
 * (api/prom_status.c), and Prometheus' /-/healthy and /-/ready.
 */
#include "agent/agent_int.h"

#include "collect/sampler.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Sampling stands for scraping: up while the last tick is fresh and read some GPU. */
static void target(void *ctx, struct gw_api_target *t)
{
	struct gw_agent *a = ctx;
	const struct gw_frame *f = gw_sampler_acquire(a->sampler);
	if (f) {
		t->last_ms = f->t_ms;
		t->duration_s = f->sample_seconds;
		bool all_stalled = f->stalled_gpus && f->stalled_gpus == f->ngpus;
		bool fresh = gw_now_ms() - f->t_ms <= 3 * (int64_t)a->interval_ms + 2000;
		t->up = fresh && !all_stalled;
		snprintf(t->error, sizeof(t->error), "%s",
			 all_stalled ? "every GPU is stuck in NVML" : fresh ? "" : "sampling stalled");
	}
	gw_sampler_release(a->sampler, f);
}

/* Appends "name\0value\0" to the status text buffer; the flag table points into it. */
static void flag(struct agent_status *s, const char *name, const char *fmt, ...)
{
	if (s->nflags + 3 > sizeof(s->flags) / sizeof(s->flags[0]))
		return;
	size_t room = sizeof(s->text) - s->used;
	int n = snprintf(s->text + s->used, room, "%s", name);
	if (n < 0 || (size_t)n + 1 >= room)
		return;
	s->flags[s->nflags] = s->text + s->used;
	s->used += (size_t)n + 1;
	room -= (size_t)n + 1;
	va_list ap;
	va_start(ap, fmt);
	n = vsnprintf(s->text + s->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 >= room)
		return;
	s->flags[s->nflags + 1] = s->text + s->used;
	s->used += (size_t)n + 1;
	s->nflags += 2;
	s->flags[s->nflags] = NULL;
}

static void duration(char *out, size_t n, int64_t ms)
{
	if (ms % 1000)
		snprintf(out, n, "%lldms", (long long)ms);
	else if (ms % 86400000 == 0 && ms)
		snprintf(out, n, "%lldd", (long long)(ms / 86400000));
	else if (ms % 3600000 == 0 && ms)
		snprintf(out, n, "%lldh", (long long)(ms / 3600000));
	else if (ms % 60000 == 0 && ms)
		snprintf(out, n, "%lldm", (long long)(ms / 60000));
	else
		snprintf(out, n, "%llds", (long long)(ms / 1000));
}

void agent_status_init(struct gw_agent *a)
{
	struct agent_status *s = &a->status;
	const struct gw_agent_opts *o = &a->o;
	char iv[32], ret[32], qt[32];
	duration(iv, sizeof(iv), a->interval_ms);
	duration(ret, sizeof(ret), o->retention_ms);
	duration(qt, sizeof(qt), o->query_timeout_ms);
	if (o->retention_bytes)
		snprintf(s->retention, sizeof(s->retention), "%s or %lluB", ret, (unsigned long long)o->retention_bytes);
	else
		snprintf(s->retention, sizeof(s->retention), "%s", ret);
	flag(s, "web.listen-address", "%s", o->address);
	flag(s, "collect-interval", "%ums", a->interval_ms);
	flag(s, "collectors", "%s", o->counters ? o->counters : "");
	flag(s, "storage.path", "%s", o->storage_path ? o->storage_path : "");
	flag(s, "storage.retention.time", "%s", ret);
	flag(s, "storage.retention.size", "%lluB", (unsigned long long)o->retention_bytes);
	flag(s, "instance", "%s", a->history.instance);
	flag(s, "query.max-concurrency", "%u", o->query_concurrency);
	flag(s, "query.timeout", "%s", qt);
	flag(s, "query.max-samples", "%u", o->query_max_samples ? o->query_max_samples : 50000000u);
	flag(s, "query.lookback-delta", "5m");
	flag(s, "web.max-connections", "%u", o->max_conns);
	flag(s, "web.max-connections-per-ip", "%u", o->max_conns_per_ip);
	flag(s, "simulated", "%s", a->nv->simulated ? "true" : "false");
	const char *port = strrchr(o->address, ':');
	char host[256];
	snprintf(host, sizeof(host), "%.*s", port ? (int)(port - o->address) : 0, o->address);
	snprintf(s->address, sizeof(s->address), "%s:%s", *host ? host : "localhost", port ? port + 1 : o->address);
	snprintf(s->scrape_url, sizeof(s->scrape_url), "%s://%s/metrics", a->web.cert_pem ? "https" : "http",
		 s->address);
	/* The target is the listen address; its instance label is the history's
	 * (the host name by default, which a scrape config sets by relabelling). */
	snprintf(s->yaml, sizeof(s->yaml),
		 "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n"
		 "scrape_configs:\n- job_name: %s\n  scrape_interval: %s\n  scrape_timeout: %s\n"
		 "  metrics_path: /metrics\n  scheme: http\n  static_configs:\n  - targets:\n    - %s\n"
		 "  relabel_configs:\n  - target_label: instance\n    replacement: %s\n",
		 iv, iv, iv, a->history.job, iv, iv, s->address, a->history.instance);
	s->api = (struct gw_api_status){.start_ms = gw_now_ms(),
					.flags = (const char *const *)s->flags,
					.config_yaml = s->yaml,
					.retention = s->retention,
					.job = a->history.job,
					.instance = a->history.instance,
					.address = s->address,
					.scrape_url = s->scrape_url,
					.interval_ms = a->interval_ms,
					.target = target,
					.ctx = a};
	a->history.api.status = &s->api;
}

void agent_h_healthy(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	(void)req;
	gw_http_reply_text(resp, 200, "gpuwatch is Healthy.\n");
}

void agent_h_ready(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	(void)req;
	gw_http_reply_text(resp, 200, "gpuwatch is Ready.\n");
}
