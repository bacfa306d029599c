/*
 * report_url.c - the report's querier over HTTP: each select() is one
 * instant query of a range selector at the window's end, whose answer
 * (a matrix of raw samples) is copied into the caller's arena.
 */
#include "cmd/report_url.h"

#include "core/buf.h"
#include "http/curl.h"
#include "model/labels.h"
#include "model/match.h"
#include "ui/promresp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gw_report_url {
	struct gw_curl curl;
	char *base; /* without a trailing '/' */
	struct gw_buf answer;
};

/* The labels the report reads; an answer's others are not kept. */
static const char *const kept[] = {GW_METRIC_NAME, "gpu",      "instance", "uuid", "UUID",   "model",
				   "modelName",	   "err_code", "xid",	   "job",  "hpc_job"};

static size_t on_answer(char *p, size_t size, size_t n, void *ctx)
{
	struct gw_report_url *u = ctx;
	return gw_buf_append(&u->answer, p, size * n) == 0 ? size * n : 0;
}

int gw_report_url_open(struct gw_report_url **out, const char *url, struct gw_err *err)
{
	*out = NULL;
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return gw_err_set(err, GW_EINVAL, "--url %s: not an http:// or https:// address", url);
	struct gw_report_url *u = calloc(1, sizeof(*u));
	if (!u)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = gw_curl_open(&u->curl, err);
	if (rc) {
		free(u);
		return rc;
	}
	u->base = strdup(url);
	if (!u->base) {
		free(u);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	size_t n = strlen(u->base);
	while (n && u->base[n - 1] == '/')
		u->base[--n] = 0;
	gw_buf_init(&u->answer, GW_UI_PROMRESP_SIZE_MAX);
	*out = u;
	return 0;
}

void gw_report_url_close(struct gw_report_url *u)
{
	if (!u)
		return;
	gw_buf_release(&u->answer);
	free(u->base);
	free(u);
}

/* GET /api/v1/query?query=Q&time=T into r. */
static int query(struct gw_report_url *u, const char *q, int64_t t_ms, struct gw_ui_promresp *r,
		 struct gw_err *err)
{
	const struct gw_curl *c = &u->curl;
	CURL *h = c->curl_easy_init();
	if (!h)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	char *eq = c->curl_easy_escape(h, q, 0);
	struct gw_buf url;
	gw_buf_init(&url, 1 << 20);
	int brc = eq ? gw_buf_printf(&url, "%s/api/v1/query?query=%s&time=%" PRId64 ".%03d", u->base, eq,
				     t_ms / 1000, (int)(t_ms % 1000))
		     : GW_ENOMEM;
	c->curl_free(eq);
	if (brc) {
		c->curl_easy_cleanup(h);
		gw_buf_release(&url);
		return gw_err_set(err, brc, "out of memory");
	}
	gw_buf_reset(&u->answer);
	c->curl_easy_setopt(h, CURLOPT_URL, url.data);
	c->curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_answer);
	c->curl_easy_setopt(h, CURLOPT_WRITEDATA, u);
	c->curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	c->curl_easy_setopt(h, CURLOPT_TIMEOUT, 300L);
	CURLcode cc = c->curl_easy_perform(h);
	long status = 0;
	if (cc == CURLE_OK)
		c->curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	c->curl_easy_cleanup(h);
	gw_buf_release(&url);
	if (cc != CURLE_OK)
		return gw_err_set(err, GW_EIO, "cannot reach %s: %s", u->base, c->curl_easy_strerror(cc));
	if (status == 401)
		return gw_err_set(err, GW_EPERM, "%s wants a user and password: http://USER:PASS@HOST:PORT",
				  u->base);
	if (status != 200 && status != 400 && status != 422)
		return gw_err_set(err, GW_EIO, "%s answered HTTP %ld to %s", u->base, status, q);
	return gw_ui_promresp_parse(r, u->answer.data ? u->answer.data : "", u->answer.len, err);
}

/* `{a="x",b=~"y"}` */
static int selector(struct gw_buf *b, const struct gw_matcher *m, size_t nm)
{
	static const char *const ops[] = {"=", "!=", "=~", "!~"};
	int rc = gw_buf_putc(b, '{');
	for (size_t i = 0; !rc && i < nm; i++) {
		rc = gw_buf_printf(b, "%s%s%s\"", i ? "," : "", m[i].name, ops[m[i].op]);
		for (const char *v = m[i].value; !rc && *v; v++)
			rc = *v == '"' || *v == '\\' ? gw_buf_printf(b, "\\%c", *v)
			     : *v == '\n'	     ? gw_buf_puts(b, "\\n")
						     : gw_buf_putc(b, *v);
		if (!rc)
			rc = gw_buf_putc(b, '"');
	}
	return rc ? rc : gw_buf_putc(b, '}');
}

static int url_select(void *ctx, const struct gw_matcher *m, size_t nm, int64_t mint, int64_t maxt,
		      struct gw_arena *arena, struct gw_series_set *out, struct gw_err *err)
{
	struct gw_report_url *u = ctx;
	*out = (struct gw_series_set){0};
	struct gw_buf q;
	gw_buf_init(&q, 1 << 20);
	/* Prometheus' range selector is [T - range, T]: the window, to the millisecond */
	int rc = selector(&q, m, nm);
	if (!rc)
		rc = gw_buf_printf(&q, "[%" PRId64 "ms]", maxt - mint > 0 ? maxt - mint : 1);
	struct gw_ui_promresp r = {0};
	if (!rc)
		rc = query(u, q.data, maxt, &r, err);
	gw_buf_release(&q);
	if (rc)
		return rc;
	out->s = gw_arena_alloc(arena, (r.nseries ? r.nseries : 1) * sizeof(*out->s));
	for (size_t i = 0; out->s && i < r.nseries; i++) {
		const struct gw_ui_series *s = &r.series[i];
		struct gw_lpair *l = gw_arena_alloc(arena, sizeof(kept) / sizeof(kept[0]) * sizeof(*l));
		int64_t *t = gw_arena_alloc_uninit(arena, (s->npts ? s->npts : 1) * sizeof(int64_t));
		double *v = gw_arena_alloc_uninit(arena, (s->npts ? s->npts : 1) * sizeof(double));
		if (!l || !t || !v) {
			rc = GW_ENOMEM;
			break;
		}
		size_t nl = 0;
		for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++) {
			const char *val = gw_ui_promresp_label(&r, s, kept[k]);
			if (val)
				l[nl++] = (struct gw_lpair){kept[k], gw_arena_strdup(arena, val)};
		}
		size_t n = 0;
		for (size_t k = 0; k < s->npts; k++) {
			if (s->pts[k].t_ms < mint || s->pts[k].t_ms > maxt)
				continue;
			t[n] = s->pts[k].t_ms;
			v[n++] = s->pts[k].v;
		}
		out->s[out->n++] = (struct gw_series){{l, nl}, t, v, n};
	}
	gw_ui_promresp_release(&r);
	if (rc || !out->s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	return 0;
}

struct gw_querier gw_report_url_querier(struct gw_report_url *u)
{
	struct gw_querier q = {u, url_select, NULL, NULL, NULL};
	return q;
}

int gw_report_url_last(struct gw_report_url *u, int64_t *t_ms, struct gw_err *err)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t t = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	struct gw_ui_promresp r = {0};
	int rc = query(u, "max(timestamp(gpuwatch_utilization_gpu_ratio))", t, &r, err);
	if (rc)
		return rc;
	bool found = r.nseries && r.series[0].npts;
	if (found)
		*t_ms = (int64_t)(r.series[0].pts[0].v * 1000.0);
	gw_ui_promresp_release(&r);
	return found ? 0
		     : gw_err_set(err, GW_ENOTFOUND,
				  "no GPU utilisation sample in the last 5 minutes; give --from "
				  "and --to");
}
