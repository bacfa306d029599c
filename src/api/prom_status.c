/*
 * prom_status.c - the parts of Prometheus' HTTP API that clients call
 * besides queries: build and runtime information, configuration and flags,
 * targets, and exemplars (which gpuwatch does not keep: always none). The
 * shapes are Prometheus 2.42's; the contents are the server's own.
 *
 * buildinfo's "version" is the Prometheus release whose API the server
 * follows (2.42.0: the one the differential tests run against), because
 * clients decide from it what they may ask: Grafana's Prometheus data
 * source, without a version set, enables its query features by it, and a
 * version below 2 would switch them off. gpuwatch's own version is in
 * "revision" and "branch" says "gpuwatch".
 */
#include "api/prom_api_int.h"

#include "api/json.h"
#include "promql/ast.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

void api_h_buildinfo(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	(void)req;
	struct gw_api *api = ctx;
	api_success_begin(r);
	/* No "features" key: Grafana would take its presence for Mimir. */
	gw_buf_puts(&r->body, "{\"version\":");
	gw_json_str(&r->body, api->version ? api->version : "");
	gw_buf_puts(&r->body, ",\"revision\":");
	gw_json_str(&r->body, api->server_version ? api->server_version : "");
	gw_buf_puts(&r->body, ",\"branch\":\"gpuwatch\",\"buildUser\":\"\",\"buildDate\":\"\",\"goVersion\":\"\"}");
	api_success_end(r);
}

/* RFC 3339 in UTC as Go prints a time.Time: fractions without trailing zeros. */
static void rfc3339(struct gw_buf *b, int64_t ms)
{
	time_t s = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int frac = (int)(ms - (int64_t)s * 1000);
	struct tm tm;
	gmtime_r(&s, &tm);
	char t[64];
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	gw_buf_putc(b, '"');
	gw_buf_puts(b, t);
	if (frac) {
		char f[8];
		snprintf(f, sizeof(f), ".%03d", frac);
		for (size_t n = strlen(f); f[n - 1] == '0'; n--)
			f[n - 1] = '\0';
		gw_buf_puts(b, f);
	}
	gw_buf_puts(b, "Z\"");
}

/* Exemplars: none are kept, but the query and times are checked as Prometheus checks them. */
void api_h_exemplars(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	(void)ctx;
	int64_t start, end;
	if (!api_time_param(req, r, "start", INT64_MIN / 4, &start) ||
	    !api_time_param(req, r, "end", INT64_MAX / 4, &end))
		return;
	if (end < start) {
		api_bad_param(r, "end", "end timestamp must not be before start time");
		return;
	}
	const char *q = gw_http_arg(req, "query");
	struct gw_pq_node *root = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_promql_parse(q ? q : "", &root, &err) != 0) {
		api_error(r, 400, "bad_data", err.msg); /* Prometheus names no parameter here */
		return;
	}
	gw_promql_free(root);
	api_success_begin(r);
	gw_buf_puts(&r->body, "[]");
	api_success_end(r);
}

void api_h_config(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	(void)req;
	const struct gw_api *api = ctx;
	api_success_begin(r);
	gw_buf_puts(&r->body, "{\"yaml\":");
	gw_json_str(&r->body, api->status && api->status->config_yaml ? api->status->config_yaml : "");
	gw_buf_putc(&r->body, '}');
	api_success_end(r);
}

void api_h_flags(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	(void)req;
	const struct gw_api *api = ctx;
	api_success_begin(r);
	gw_buf_putc(&r->body, '{');
	const char *const *f = api->status ? api->status->flags : NULL;
	for (size_t i = 0; f && f[i] && f[i + 1]; i += 2) {
		gw_buf_puts(&r->body, i ? "," : "");
		gw_json_str(&r->body, f[i]);
		gw_buf_putc(&r->body, ':');
		gw_json_str(&r->body, f[i + 1]);
	}
	gw_buf_putc(&r->body, '}');
	api_success_end(r);
}

/* Threads of this process: what Prometheus reports as goroutines. */
static long thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	long n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

void api_h_runtimeinfo(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	(void)req;
	const struct gw_api *api = ctx;
	const struct gw_api_status *st = api->status;
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	api_success_begin(r);
	gw_buf_puts(&r->body, "{\"startTime\":");
	rfc3339(&r->body, st ? st->start_ms : 0);
	gw_buf_puts(&r->body, ",\"CWD\":");
	gw_json_str(&r->body, cwd);
	/* the configuration is the command line: loaded once, at the start */
	gw_buf_puts(&r->body, ",\"reloadConfigSuccess\":true,\"lastConfigTime\":");
	rfc3339(&r->body, st ? st->start_ms / 1000 * 1000 : 0);
	gw_buf_printf(&r->body, ",\"corruptionCount\":0,\"goroutineCount\":%ld,\"GOMAXPROCS\":%ld,", thread_count(),
		      sysconf(_SC_NPROCESSORS_ONLN));
	gw_buf_puts(&r->body, "\"GOGC\":\"\",\"GODEBUG\":\"\",\"storageRetention\":");
	gw_json_str(&r->body, st && st->retention ? st->retention : "");
	gw_buf_putc(&r->body, '}');
	api_success_end(r);
}

static void duration(char *out, size_t n, int64_t ms)
{
	if (ms % 1000)
		snprintf(out, n, "%lldms", (long long)ms);
	else if (ms % 60000 || ms == 0)
		snprintf(out, n, "%llds", (long long)(ms / 1000));
	else
		snprintf(out, n, "%lldm", (long long)(ms / 60000));
}

/* The server itself as the one active target: its sampling is its scrape. */
static void self_target(struct gw_buf *b, const struct gw_api_status *st)
{
	struct gw_api_target t = {0};
	if (st->target)
		st->target(st->ctx, &t);
	char iv[32];
	duration(iv, sizeof(iv), st->interval_ms);
	const char *job = st->job ? st->job : "", *inst = st->instance ? st->instance : "";
	gw_buf_puts(b, "{\"discoveredLabels\":{\"__address__\":");
	gw_json_str(b, st->address ? st->address : inst);
	gw_buf_puts(b, ",\"__metrics_path__\":\"/metrics\",\"__scheme__\":\"http\",\"__scrape_interval__\":");
	gw_json_str(b, iv);
	gw_buf_puts(b, ",\"__scrape_timeout__\":");
	gw_json_str(b, iv);
	gw_buf_puts(b, ",\"job\":");
	gw_json_str(b, job);
	gw_buf_puts(b, "},\"labels\":{\"instance\":");
	gw_json_str(b, inst);
	gw_buf_puts(b, ",\"job\":");
	gw_json_str(b, job);
	gw_buf_puts(b, "},\"scrapePool\":");
	gw_json_str(b, job);
	gw_buf_puts(b, ",\"scrapeUrl\":");
	gw_json_str(b, st->scrape_url ? st->scrape_url : "");
	gw_buf_puts(b, ",\"globalUrl\":");
	gw_json_str(b, st->scrape_url ? st->scrape_url : "");
	gw_buf_puts(b, ",\"lastError\":");
	gw_json_str(b, t.up ? "" : t.error);
	gw_buf_puts(b, ",\"lastScrape\":");
	rfc3339(b, t.last_ms);
	gw_buf_printf(b, ",\"lastScrapeDuration\":%.9g", t.duration_s);
	gw_buf_printf(b, ",\"health\":\"%s\",\"scrapeInterval\":", !t.last_ms ? "unknown" : t.up ? "up" : "down");
	gw_json_str(b, iv);
	gw_buf_puts(b, ",\"scrapeTimeout\":");
	gw_json_str(b, iv);
	gw_buf_putc(b, '}');
}

void api_h_targets(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	const struct gw_api *api = ctx;
	const struct gw_api_status *st = api->status;
	const char *state = gw_http_arg(req, "state"), *pool = gw_http_arg(req, "scrapePool");
	bool active = !state || !*state || strcasecmp(state, "active") == 0 || strcasecmp(state, "any") == 0;
	if (st && pool && *pool && strcmp(pool, st->job ? st->job : "") != 0)
		active = false;
	api_success_begin(r);
	gw_buf_puts(&r->body, "{\"activeTargets\":[");
	if (active && st && st->job)
		self_target(&r->body, st);
	gw_buf_puts(&r->body, "],\"droppedTargets\":[]}");
	api_success_end(r);
}
