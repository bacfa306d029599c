/*
 * serve.c - the query API over a store, without sampling (see serve.h).
 */
#include "agent/serve.h"

#include "agent/history.h"
#include "agent/page.h"
#include "http/server.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct gw_serve {
	struct gw_serve_opts o;
	struct agent_history history; /* readonly */
	struct gw_webcfg web;
	struct gw_api_status status;
	char *flags[32];
	char text[2048];
	char yaml[256];
	char banner[1024];
	struct gw_http *http;
	struct gw_http_route routes[8 + GW_API_NROUTES];
};

/*
 * The page, over the store: its banner says no GPU is sampled and carries
 * the newest sample's time (data-end, ms) for the page to end its views
 * at, since a store served is history that stopped, often long ago.
 */
static void h_root(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)req;
	struct gw_serve *s = ctx;
	agent_page_root(resp, s->banner);
}

/* s->banner from the store's path and newest time. */
static void banner_init(struct gw_serve *s)
{
	char path[512];
	size_t n = 0;
	for (const char *p = s->o.storage_path; *p && n + 6 < sizeof(path); p++) { /* HTML-escaped */
		const char *e = *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : *p == '&' ? "&amp;" : *p == '"' ? "&quot;" : NULL;
		if (e) {
			memcpy(path + n, e, strlen(e));
			n += strlen(e);
		} else {
			path[n++] = *p;
		}
	}
	path[n] = 0;
	int64_t end = gw_tsdb_durable_t(s->history.db);
	char when[64] = "none: the store is empty", attr[48] = "";
	if (end != INT64_MIN) {
		time_t t = (time_t)(end / 1000);
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		snprintf(attr, sizeof(attr), " data-end=\"%lld\"", (long long)end);
	}
	snprintf(s->banner, sizeof(s->banner),
		 "<div class=\"banner stored\" id=\"stored\"%s>STORED HISTORY (gpuwatch serve) of <code>%s</code>: "
		 "no GPU is sampled; newest sample %s</div>",
		 attr, path, when);
}

static void h_static(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	agent_page_static(req, resp);
}

static void h_text(struct gw_http_response *resp, const char *text)
{
	gw_http_reply_text(resp, 200, text);
}

static void h_health(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	(void)req;
	h_text(resp, "OK\n");
}

static void h_healthy(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	(void)req;
	h_text(resp, "gpuwatch is Healthy.\n");
}

static void h_ready(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)ctx;
	(void)req;
	h_text(resp, "gpuwatch is Ready.\n");
}

static void refuse(void *ctx, enum gw_http_refusal why, struct gw_http_response *resp)
{
	(void)ctx;
	resp->status = 503;
	resp->content_type = "application/json";
	gw_buf_reset(&resp->body);
	gw_buf_puts(&resp->body, why == GW_HTTP_POOL_TIMEOUT
					 ? "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out "
					   "waiting for a free slot (--query.timeout)\"}"
					 : "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"too many queries "
					   "waiting (--query.max-concurrency); try again later\"}");
}

/* name\0value\0 pairs into s->text; s->flags points at them. */
static void status_init(struct gw_serve *s)
{
	const struct gw_serve_opts *o = &s->o;
	char qt[32];
	snprintf(qt, sizeof(qt), "%llds", (long long)(o->query_timeout_ms / 1000));
	char conc[16], samples[16];
	snprintf(conc, sizeof(conc), "%u", o->query_concurrency);
	snprintf(samples, sizeof(samples), "%u", o->query_max_samples ? o->query_max_samples : 50000000u);
	const char *kv[] = {"web.listen-address", o->address, "storage.path", o->storage_path,
			    "query.max-concurrency", conc, "query.timeout", qt, "query.max-samples", samples,
			    "query.lookback-delta", "5m"};
	size_t used = 0, n = 0;
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && n + 1 < sizeof(s->flags) / sizeof(s->flags[0]); i++) {
		size_t len = strlen(kv[i]) + 1;
		if (used + len > sizeof(s->text))
			break;
		memcpy(s->text + used, kv[i], len);
		s->flags[n++] = s->text + used;
		used += len;
	}
	s->flags[n & ~(size_t)1] = NULL;
	snprintf(s->yaml, sizeof(s->yaml), "# gpuwatch serve: the store in %s, read only; nothing is scraped\n",
		 o->storage_path);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	s->status = (struct gw_api_status){.start_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000,
					   .flags = (const char *const *)s->flags,
					   .config_yaml = s->yaml,
					   .retention = "0s"}; /* serve drops nothing */
	s->history.api.status = &s->status;
}

int gw_serve_start(struct gw_serve **out, struct gw_webcfg *web, const struct gw_serve_opts *o, struct gw_err *err)
{
	struct gw_serve *s = calloc(1, sizeof(*s));
	*out = s;
	if (!s) {
		gw_webcfg_release(web);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	s->o = *o;
	s->web = *web;
	memset(web, 0, sizeof(*web));
	struct agent_history_opts ho = {.path = o->storage_path, .log = o->log, .readonly = true};
	int rc = agent_history_open(&s->history, &ho, NULL, 0, err);
	if (rc)
		return rc;
	s->history.api.opts.timeout_ms = o->query_timeout_ms;
	s->history.api.opts.max_samples = o->query_max_samples;
	status_init(s);
	banner_init(s);
	static const struct gw_http_route own[] = {
		{"/", GW_HTTP_GET, false, h_root, NULL},
		{"/static/", GW_HTTP_GET | GW_HTTP_HEAD, true, h_static, NULL},
		{"/health", GW_HTTP_GET, false, h_health, NULL},
		{"/-/healthy", GW_HTTP_GET | GW_HTTP_HEAD, false, h_healthy, NULL},
		{"/-/ready", GW_HTTP_GET | GW_HTTP_HEAD, false, h_ready, NULL},
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		s->routes[n++] = own[i];
	for (size_t i = 0; i < GW_API_NROUTES; i++) {
		s->routes[n] = s->history.routes[i];
		if (strcmp(s->routes[n].path, "/api/v1/metadata") != 0 &&
		    strncmp(s->routes[n].path, "/api/v1/status/", 15) != 0 &&
		    strcmp(s->routes[n].path, "/api/v1/targets") != 0)
			s->routes[n].methods |= GW_HTTP_POOLED;
		n++;
	}
	struct gw_http_opts hopts = {
		.listen = o->address,
		.routes = s->routes,
		.nroutes = n,
		.ctx = s,
		.web = &s->web,
		.max_conns = o->max_conns,
		.max_conns_per_ip = o->max_conns_per_ip ? o->max_conns_per_ip : GW_HTTP_UNLIMITED,
		.head_timeout_ms = o->read_header_timeout_ms ? (unsigned int)o->read_header_timeout_ms : GW_HTTP_UNLIMITED,
		.pool_threads = o->query_concurrency,
		.pool_wait_ms = (unsigned int)o->query_timeout_ms,
		.pool_refuse = refuse,
	};
	if ((rc = gw_http_start(&s->http, &hopts, err)) != 0)
		return rc;
	o->log("info", "msg=listening address=%s port=%u store=%s tls=%s basic_auth_users=%zu", o->address,
	       gw_http_port(s->http), o->storage_path, s->web.cert_pem ? "true" : "false", s->web.nusers);
	return 0;
}

void gw_serve_free(struct gw_serve *s)
{
	if (!s)
		return;
	gw_http_stop(s->http);
	if (s->history.db)
		agent_history_close(&s->history);
	gw_webcfg_release(&s->web);
	free(s);
}
