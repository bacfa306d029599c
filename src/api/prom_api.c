/*
 * prom_api.c - handlers of Prometheus' query API (see prom_api.h).
 */
#include "api/prom_api_int.h"

#include "api/json.h"
#include "core/sort.h"
#include "promql/print.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_POINTS 11000

static int64_t default_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t now_of(const struct gw_api *api)
{
	return api->now_ms ? api->now_ms() : default_now();
}

static bool two_digits(const char *p, int *v)
{
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return false;
	*v = (p[0] - '0') * 10 + (p[1] - '0');
	return true;
}

/* Seconds as a float (Prometheus rounds to the millisecond) or RFC 3339 with
 * a 'Z' or a "+hh:mm" / "-hh:mm" offset. GW_ERANGE for a time the engine
 * cannot represent (past GW_PQ_MAX_TIME_MS), GW_EINVAL for anything else. */
int gw_api_parse_time(const char *s, int64_t *ms)
{
	if (!s || !*s)
		return GW_EINVAL;
	char *end;
	double v = strtod(s, &end);
	if (*end == '\0') {
		if (isnan(v))
			return GW_EINVAL;
		if (!(v >= -(double)GW_PQ_MAX_TIME_MS / 1000 && v <= (double)GW_PQ_MAX_TIME_MS / 1000))
			return GW_ERANGE;
		*ms = (int64_t)llround(v * 1000.0);
		return 0;
	}
	/* RFC 3339: 2015-07-01T20:10:51.781Z or with +hh:mm */
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return GW_EINVAL;
	int64_t frac = 0;
	if (*p == '.') {
		int digits = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 3)
				frac = frac * 10 + (*p - '0');
		if (digits == 0)
			return GW_EINVAL;
		while (digits > 0 && digits < 3) {
			frac *= 10;
			digits++;
		}
	}
	int64_t off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		/* Exactly "+hh:mm": each byte is checked before the next is read. */
		int hh, mm;
		if (!two_digits(p + 1, &hh) || p[3] != ':' || !two_digits(p + 4, &mm) || hh > 23 || mm > 59)
			return GW_EINVAL;
		off = (int64_t)(hh * 3600 + mm * 60) * (*p == '+' ? 1 : -1);
		p += 6;
	} else {
		return GW_EINVAL;
	}
	if (*p)
		return GW_EINVAL;
	*ms = ((int64_t)timegm(&tm) - off) * 1000 + frac;
	return 0;
}

int gw_api_parse_duration(const char *s, int64_t *ms)
{
	if (!s || !*s)
		return GW_EINVAL;
	char *end;
	double v = strtod(s, &end);
	if (*end == '\0') {
		if (!(v >= -(double)GW_PQ_MAX_DURATION_MS / 1000 && v <= (double)GW_PQ_MAX_DURATION_MS / 1000))
			return GW_EINVAL;
		*ms = (int64_t)llround(v * 1000.0);
		return 0;
	}
	if (gw_promql_duration(s, strlen(s), ms) != 0 || *ms > GW_PQ_MAX_DURATION_MS)
		return GW_EINVAL;
	return 0;
}

/* ---- responses --------------------------------------------------------------- */

static void error_reply(struct gw_http_response *r, int status, const char *type, const char *msg)
{
	r->status = status;
	r->content_type = "application/json";
	gw_buf_reset(&r->body);
	gw_buf_printf(&r->body, "{\"status\":\"error\",\"errorType\":\"%s\",\"error\":", type);
	gw_json_str(&r->body, msg);
	gw_buf_puts(&r->body, "}");
}

static void bad_param(struct gw_http_response *r, const char *param, const char *why)
{
	char msg[GW_ERR_MSG_MAX + 64];
	snprintf(msg, sizeof(msg), "invalid parameter \"%s\": %s", param, why);
	error_reply(r, 400, "bad_data", msg);
}

static void success_begin(struct gw_http_response *r)
{
	r->status = 200;
	r->content_type = "application/json";
	gw_buf_puts(&r->body, "{\"status\":\"success\",\"data\":");
}

static void success_end(struct gw_http_response *r)
{
	gw_buf_puts(&r->body, "}");
	if (r->body.len >= r->body.limit)
		error_reply(r, 422, "execution", "response too large");
}

/* The querier for one query, telling w what it skipped (damaged data). */
static struct gw_querier warning_querier(const struct gw_api *api, struct gw_warnings *w, struct gw_arena *a)
{
	struct gw_querier q = api->q;
	w->n = w->more = 0;
	if (api->q.with_warnings && api->q.with_warnings(api->q.ctx, w, a, &q) != 0)
		q = api->q;
	return q;
}

/* Prometheus' "warnings" beside "data", then the answer's end. */
static void success_end_warnings(struct gw_http_response *r, const struct gw_warnings *w)
{
	if (w->n) {
		gw_buf_puts(&r->body, ",\"warnings\":[");
		for (size_t i = 0; i < w->n; i++) {
			gw_buf_puts(&r->body, i ? "," : "");
			gw_json_str(&r->body, w->msg[i]);
		}
		if (w->more)
			gw_buf_printf(&r->body, ",\"store: %zu more warnings left out\"", w->more);
		gw_buf_puts(&r->body, "]");
	}
	success_end(r);
}

static void eval_error(struct gw_http_response *r, int rc, const struct gw_err *err)
{
	if (rc == GW_ETIMEOUT)
		error_reply(r, 503, "timeout", err->msg[0] ? err->msg : "query timed out");
	else if (rc == GW_EPARSE)
		error_reply(r, 400, "bad_data", err->msg);
	else
		error_reply(r, 422, "execution", err->msg[0] ? err->msg : gw_strerror(rc));
}

/*
 * The series of a range answer share their time stamps (the steps): the
 * first series' stamps are formatted and where each landed in the answer is
 * noted, and later series copy the text of an equal stamp from there.
 */
struct tref {
	const int64_t *t; /* the first series' stamps */
	uint32_t *off;    /* where each one's text starts in the answer */
	unsigned char *len;
	size_t n, j; /* count; the next one to compare with */
};

static void write_points(struct gw_buf *b, const struct gw_series *s, struct tref *tr, bool first)
{
	gw_buf_putc(b, '[');
	if (tr)
		tr->j = 0;
	/* The bulk of a range answer: room reserved once a point. */
	for (size_t i = 0; i < s->n; i++) {
		if (gw_buf_reserve(b, GW_JSON_TIME_MAX + GW_JSON_VALUE_MAX + 4) != 0)
			return; /* the buffer's limit: the caller sees b's error on its next append */
		char *p = b->data + b->len, *p0 = p;
		if (i)
			*p++ = ',';
		*p++ = '[';
		int64_t t = s->t[i];
		if (tr && !first) {
			while (tr->j < tr->n && tr->t[tr->j] < t)
				tr->j++;
		}
		if (tr && !first && tr->j < tr->n && tr->t[tr->j] == t) {
			memcpy(p, b->data + tr->off[tr->j], 16); /* fixed size: no call; the text is shorter */
			if (tr->len[tr->j] > 16)
				memcpy(p + 16, b->data + tr->off[tr->j] + 16, (size_t)tr->len[tr->j] - 16);
			p += tr->len[tr->j];
		} else {
			size_t n = gw_json_time_fmt(p, t);
			if (tr && first && b->len + (size_t)(p - p0) <= UINT32_MAX) {
				tr->off[i] = (uint32_t)(b->len + (size_t)(p - p0));
				tr->len[i] = (unsigned char)n;
			} else if (tr && first) {
				tr->n = i; /* beyond 4 GiB: stop noting */
			}
			p += n;
		}
		*p++ = ',';
		p += gw_json_value_fmt(p, s->v[i]);
		*p++ = ']';
		b->len += (size_t)(p - p0);
		b->data[b->len] = '\0';
	}
	gw_buf_putc(b, ']');
}

static int series_cmp(const void *a, const void *b)
{
	return gw_labels_cmp(&((const struct gw_series *)a)->labels, &((const struct gw_series *)b)->labels);
}

void gw_api_json_matrix(struct gw_buf *b, struct gw_matrix *m)
{
	gw_qsort(m->s, m->n, sizeof(*m->s), series_cmp);
	struct tref tr = {0}, *trp = NULL;
	if (m->n > 1 && m->s[0].n) {
		tr.t = m->s[0].t;
		tr.n = m->s[0].n;
		tr.off = malloc(tr.n * sizeof(*tr.off));
		tr.len = malloc(tr.n);
		trp = tr.off && tr.len ? &tr : NULL; /* without: each time formatted */
	}
	gw_buf_puts(b, "{\"resultType\":\"matrix\",\"result\":[");
	for (size_t i = 0; i < m->n; i++) {
		if (i)
			gw_buf_putc(b, ',');
		gw_buf_puts(b, "{\"metric\":");
		gw_json_labels(b, &m->s[i].labels);
		gw_buf_puts(b, ",\"values\":");
		write_points(b, &m->s[i], trp, i == 0);
		gw_buf_putc(b, '}');
	}
	gw_buf_puts(b, "]}");
	free(tr.off);
	free(tr.len);
}

void gw_api_json_result(struct gw_buf *b, struct gw_pq_result *res)
{
	switch (res->type) {
	case GW_PQ_T_SCALAR:
	case GW_PQ_T_STRING:
		gw_buf_printf(b, "{\"resultType\":\"%s\",\"result\":[", res->type == GW_PQ_T_SCALAR ? "scalar" : "string");
		gw_json_time(b, res->t);
		gw_buf_putc(b, ',');
		if (res->type == GW_PQ_T_SCALAR)
			gw_json_scalar(b, res->scalar);
		else
			gw_json_str(b, res->string);
		gw_buf_puts(b, "]}");
		break;
	case GW_PQ_T_VECTOR:
		gw_buf_puts(b, "{\"resultType\":\"vector\",\"result\":[");
		for (size_t i = 0; i < res->vector.n; i++) {
			if (i)
				gw_buf_putc(b, ',');
			gw_buf_puts(b, "{\"metric\":");
			gw_json_labels(b, &res->vector.s[i].labels);
			gw_buf_puts(b, ",\"value\":[");
			gw_json_time(b, res->t);
			gw_buf_putc(b, ',');
			gw_json_value(b, res->vector.s[i].v);
			gw_buf_puts(b, "]}");
		}
		gw_buf_puts(b, "]}");
		break;
	default:
		gw_api_json_matrix(b, &res->matrix);
		break;
	}
}

/* ---- parameters -------------------------------------------------------------- */

static bool opts_with_timeout(const struct gw_api *api, const struct gw_http_request *req,
			      struct gw_http_response *r, struct gw_pq_opts *o)
{
	*o = api->opts;
	const char *t = gw_http_arg(req, "timeout");
	if (t) {
		int64_t ms;
		if (gw_api_parse_duration(t, &ms) != 0 || ms <= 0) {
			char why[160];
			snprintf(why, sizeof(why), "cannot parse \"%.100s\" to a valid duration", t);
			bad_param(r, "timeout", why);
			return false;
		}
		if (!o->timeout_ms || ms < o->timeout_ms)
			o->timeout_ms = ms;
	}
	return true;
}

/*
 * A time parameter. Optional ones (def used when absent) are worded as
 * Prometheus' parseTimeParam words them ("Invalid time value for 'time':
 * ..."); query_range's start and end, which must be given, as its
 * parseTime does (an absent one "cannot parse \"\"").
 */
static bool time_param_as(const struct gw_http_request *req, struct gw_http_response *r, const char *name,
			  const int64_t *def, int64_t *out)
{
	const char *s = gw_http_arg(req, name);
	if (def && (!s || !*s)) {
		*out = *def;
		return true;
	}
	int rc = s ? gw_api_parse_time(s, out) : GW_EINVAL;
	if (rc == 0)
		return true;
	char why[256], pre[64] = "";
	if (def)
		snprintf(pre, sizeof(pre), "Invalid time value for '%s': ", name);
	if (rc == GW_ERANGE)
		snprintf(why, sizeof(why), "%stimestamp \"%.100s\" out of range: times are limited to +-%lld s", pre, s,
			 (long long)(GW_PQ_MAX_TIME_MS / 1000));
	else
		snprintf(why, sizeof(why), "%scannot parse \"%.100s\" to a valid timestamp", pre, s ? s : "");
	bad_param(r, name, why);
	return false;
}

static bool time_param(const struct gw_http_request *req, struct gw_http_response *r, const char *name,
		       int64_t def, int64_t *out)
{
	return time_param_as(req, r, name, &def, out);
}

/* range: a range query's parse error, which 2.42 words without naming the
 * parameter (an instant query's names it). */
static struct gw_pq_node *parse_query(const struct gw_http_request *req, struct gw_http_response *r, bool range)
{
	const char *q = gw_http_arg(req, "query");
	if (!q)
		q = ""; /* "no expression found in input", as Prometheus answers */
	struct gw_pq_node *root = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_promql_parse(q, &root, &err) != 0) {
		if (range)
			error_reply(r, 400, "bad_data", err.msg);
		else
			bad_param(r, "query", err.msg);
		return NULL;
	}
	return root;
}

/* ---- handlers ------------------------------------------------------------------ */

/*
 * Ends a query's arena. After a heavy query (more than 64 MiB), the freed
 * memory is handed back to the system at once: glibc keeps what a worker
 * thread's malloc arena freed below its top, so a 1 GB answer otherwise left
 * the agent at 0.5-1 GB for good. Light queries skip the trim (it walks
 * every malloc arena) and keep the pool's warm blocks.
 */
static void query_arena_release(struct gw_arena *a)
{
	bool heavy = a->used > ((size_t)64 << 20);
	gw_arena_release(a);
	if (heavy)
		malloc_trim(0);
}

static void h_query(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	struct gw_api *api = ctx;
	struct gw_pq_opts o;
	int64_t t;
	if (!opts_with_timeout(api, req, r, &o) || !time_param(req, r, "time", now_of(api), &t))
		return;
	struct gw_pq_node *root = parse_query(req, r, false);
	if (!root)
		return;
	struct gw_arena a;
	gw_arena_init_pool(&a, api->arena_limit ? api->arena_limit : (size_t)512 << 20, api->pool);
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_pq_result res;
	struct gw_warnings w;
	struct gw_querier q = warning_querier(api, &w, &a);
	int rc = gw_promql_instant(root, &q, t, &o, &a, &res, &err);
	if (rc) {
		eval_error(r, rc, &err);
	} else {
		success_begin(r);
		gw_api_json_result(&r->body, &res);
		success_end_warnings(r, &w);
	}
	gw_promql_free(root);
	query_arena_release(&a);
}

static void h_query_range(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	struct gw_api *api = ctx;
	struct gw_pq_opts o;
	int64_t start, end, step;
	if (!opts_with_timeout(api, req, r, &o))
		return;
	const char *st = gw_http_arg(req, "step");
	if (!time_param_as(req, r, "start", NULL, &start) || !time_param_as(req, r, "end", NULL, &end))
		return;
	if (end < start) {
		bad_param(r, "end", "end timestamp must not be before start time");
		return;
	}
	if (!st || gw_api_parse_duration(st, &step) != 0) {
		char why[160];
		snprintf(why, sizeof(why), "cannot parse \"%.100s\" to a valid duration", st ? st : "");
		bad_param(r, "step", why);
		return;
	}
	if (step <= 0) {
		bad_param(r, "step", "zero or negative query resolution step widths are not accepted. Try a positive integer");
		return;
	}
	if ((end - start) / step > MAX_POINTS) {
		error_reply(r, 400, "bad_data",
			    "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query "
			    "resolution (?step=XX)");
		return;
	}
	struct gw_pq_node *root = parse_query(req, r, true);
	if (!root)
		return;
	if (root->type != GW_PQ_T_SCALAR && root->type != GW_PQ_T_VECTOR) {
		char msg[160];
		snprintf(msg, sizeof(msg), "invalid expression type \"%s\" for range query, must be Scalar or instant Vector",
			 gw_pq_type_name(root->type));
		error_reply(r, 400, "bad_data", msg);
		gw_promql_free(root);
		return;
	}
	struct gw_arena a;
	gw_arena_init_pool(&a, api->arena_limit ? api->arena_limit : (size_t)512 << 20, api->pool);
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_matrix m;
	struct gw_warnings w;
	struct gw_querier q = warning_querier(api, &w, &a);
	int rc = gw_promql_range(root, &q, start, end, step, &o, &a, &m, &err);
	if (rc) {
		eval_error(r, rc, &err);
	} else {
		success_begin(r);
		gw_api_json_matrix(&r->body, &m);
		success_end_warnings(r, &w);
	}
	gw_promql_free(root);
	query_arena_release(&a);
}

/* ---- series and labels ------------------------------------------------------------ */

/* Series matching every match[] selector (union), with samples in [start, end]. */
static int match_series(struct gw_api *api, const struct gw_http_request *req, struct gw_http_response *r,
			bool required, struct gw_arena *a, struct gw_series **out, size_t *nout)
{
	int64_t start, end;
	*out = NULL;
	*nout = 0;
	if (!time_param(req, r, "start", INT64_MIN / 4, &start) || !time_param(req, r, "end", INT64_MAX / 4, &end))
		return -1;
	size_t nsel = 0;
	for (size_t i = 0; i < req->nargs; i++)
		nsel += strcmp(req->args[i].name, "match[]") == 0;
	if (nsel == 0 && required) {
		error_reply(r, 400, "bad_data", "no match[] parameter provided");
		return -1;
	}
	struct gw_strmap seen;
	gw_strmap_init(&seen, a);
	size_t cap = 0;
	for (size_t i = 0; i < req->nargs || (nsel == 0 && i == 0); i++) {
		const char *sel = nsel ? req->args[i].value : "{__name__=~\".+\"}";
		if (nsel && strcmp(req->args[i].name, "match[]") != 0)
			continue;
		struct gw_pq_node *n = NULL;
		struct gw_err err;
		gw_err_clear(&err);
		if (gw_promql_parse_selector(sel, &n, &err) != 0) {
			/* /api/v1/series names the parameter; labels and label values do not */
			if (required)
				bad_param(r, "match[]", err.msg);
			else
				error_reply(r, 400, "bad_data", err.msg);
			return -1;
		}
		size_t nm = n->u.sel.nmatchers + (n->u.sel.name ? 1 : 0), k = 0;
		struct gw_matcher *m = gw_arena_alloc(a, (nm ? nm : 1) * sizeof(*m));
		int rc = m ? 0 : GW_ENOMEM;
		if (rc == 0 && n->u.sel.name)
			rc = gw_matcher_init(&m[k++], GW_METRIC_NAME, n->u.sel.name, GW_MATCH_EQ, &err);
		for (size_t j = 0; rc == 0 && j < n->u.sel.nmatchers; j++)
			rc = gw_matcher_init(&m[k++], n->u.sel.matchers[j].name, n->u.sel.matchers[j].value,
					     n->u.sel.matchers[j].op, &err);
		struct gw_series_set set = {NULL, 0};
		if (rc == 0)
			rc = (api->q.series ? api->q.series : api->q.select)(api->q.ctx, m, k, start, end, a, &set, &err);
		for (size_t j = 0; j < k; j++)
			gw_matcher_release(&m[j]);
		gw_promql_free(n);
		if (rc) {
			eval_error(r, rc == GW_EPARSE ? GW_EPARSE : rc, &err);
			return -1;
		}
		for (size_t j = 0; j < set.n; j++) {
			if (!api->q.series && set.s[j].n == 0)
				continue; /* select() fallback: no samples in the range */
			size_t len;
			const char *key = gw_labels_key_all(a, &set.s[j].labels, &len);
			if (gw_strmap_get_or_put(&seen, key, len, (long)*nout) != (long)*nout)
				continue;
			if (*nout == cap) {
				cap = cap ? cap * 2 : 64;
				struct gw_series *ns = gw_arena_alloc(a, cap * sizeof(*ns));
				if (!ns) {
					error_reply(r, 422, "execution", "too many series");
					return -1;
				}
				if (*nout)
					memcpy(ns, *out, *nout * sizeof(*ns));
				*out = ns;
			}
			(*out)[(*nout)++] = set.s[j];
		}
		if (nsel == 0)
			break;
	}
	return 0;
}

static void h_series(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	struct gw_arena a;
	gw_arena_init_pool(&a, (size_t)256 << 20, ((const struct gw_api *)ctx)->pool);
	struct gw_series *s;
	size_t n;
	if (match_series(ctx, req, r, true, &a, &s, &n) == 0) {
		gw_qsort(s, n, sizeof(*s), series_cmp);
		success_begin(r);
		gw_buf_putc(&r->body, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				gw_buf_putc(&r->body, ',');
			gw_json_labels(&r->body, &s[i].labels);
		}
		gw_buf_putc(&r->body, ']');
		success_end(r);
	}
	gw_arena_release(&a);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted distinct strings: label names (name == NULL) or the values of one label. */
static void write_distinct(struct gw_http_response *r, struct gw_arena *a, const struct gw_series *s, size_t n,
			   const char *name)
{
	struct gw_strmap seen;
	gw_strmap_init(&seen, a);
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += name ? 1 : s[i].labels.n;
	const char **v = gw_arena_alloc(a, (total ? total : 1) * sizeof(*v));
	size_t nv = 0;
	for (size_t i = 0; v && i < n; i++) {
		for (size_t j = 0; j < s[i].labels.n; j++) {
			const struct gw_lpair *p = &s[i].labels.p[j];
			const char *str = name ? (strcmp(p->name, name) == 0 ? p->value : NULL) : p->name;
			if (str && gw_strmap_get_or_put(&seen, str, strlen(str), (long)nv) == (long)nv)
				v[nv++] = str;
		}
	}
	gw_qsort(v, nv, sizeof(*v), str_cmp);
	success_begin(r);
	gw_buf_putc(&r->body, '[');
	for (size_t i = 0; i < nv; i++) {
		if (i)
			gw_buf_putc(&r->body, ',');
		gw_json_str(&r->body, v[i]);
	}
	gw_buf_putc(&r->body, ']');
	success_end(r);
}

static void h_labels(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	struct gw_arena a;
	gw_arena_init_pool(&a, (size_t)256 << 20, ((const struct gw_api *)ctx)->pool);
	struct gw_series *s;
	size_t n;
	if (match_series(ctx, req, r, false, &a, &s, &n) == 0)
		write_distinct(r, &a, s, n, NULL);
	gw_arena_release(&a);
}

static bool label_name_ok(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void h_label_values(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	const char *rest = req->path + strlen("/api/v1/label/");
	const char *slash = strchr(rest, '/');
	if (!slash || strcmp(slash, "/values") != 0) {
		error_reply(r, 404, "not_found", "unknown endpoint");
		return;
	}
	char name[256];
	snprintf(name, sizeof(name), "%.*s", (int)(slash - rest < 255 ? slash - rest : 255), rest);
	if (!label_name_ok(name)) {
		char msg[300];
		snprintf(msg, sizeof(msg), "invalid label name: \"%s\"", name);
		error_reply(r, 400, "bad_data", msg);
		return;
	}
	struct gw_arena a;
	gw_arena_init_pool(&a, (size_t)256 << 20, ((const struct gw_api *)ctx)->pool);
	struct gw_series *s;
	size_t n;
	if (match_series(ctx, req, r, false, &a, &s, &n) == 0)
		write_distinct(r, &a, s, n, name);
	gw_arena_release(&a);
}

static void h_metadata(void *ctx, const struct gw_http_request *req, struct gw_http_response *r)
{
	struct gw_api *api = ctx;
	long limit = -1; /* Prometheus: a limit below 0 is none; 0 answers {} */
	const char *ls = gw_http_arg(req, "limit");
	if (ls && *ls) {
		char *end;
		errno = 0;
		limit = strtol(ls, &end, 10);
		if (*end || errno || end == ls) {
			error_reply(r, 400, "bad_data", "limit must be a number");
			return;
		}
	}
	success_begin(r);
	if (api->metadata)
		api->metadata(api->metadata_ctx, gw_http_arg(req, "metric"), limit, &r->body);
	else
		gw_buf_puts(&r->body, "{}");
	success_end(r);
}

/* ---- for prom_status.c -------------------------------------------------------- */

void api_error(struct gw_http_response *r, int status, const char *type, const char *msg)
{
	error_reply(r, status, type, msg);
}

void api_bad_param(struct gw_http_response *r, const char *param, const char *why)
{
	bad_param(r, param, why);
}

void api_success_begin(struct gw_http_response *r)
{
	success_begin(r);
}

void api_success_end(struct gw_http_response *r)
{
	success_end(r);
}

bool api_time_param(const struct gw_http_request *req, struct gw_http_response *r, const char *name, int64_t def,
		    int64_t *out)
{
	return time_param(req, r, name, def, out);
}

void gw_api_routes(struct gw_api *api, struct gw_http_route *routes)
{
	const unsigned int gp = GW_HTTP_GET | GW_HTTP_POST;
	struct gw_http_route r[GW_API_NROUTES] = {
		{"/api/v1/query", gp, false, h_query, api},
		{"/api/v1/query_range", gp, false, h_query_range, api},
		{"/api/v1/series", gp, false, h_series, api},
		{"/api/v1/labels", gp, false, h_labels, api},
		{"/api/v1/label/", GW_HTTP_GET, true, h_label_values, api},
		{"/api/v1/metadata", GW_HTTP_GET, false, h_metadata, api},
		{"/api/v1/query_exemplars", gp, false, api_h_exemplars, api},
		{"/api/v1/status/buildinfo", GW_HTTP_GET, false, api_h_buildinfo, api},
		{"/api/v1/status/config", GW_HTTP_GET, false, api_h_config, api},
		{"/api/v1/status/flags", GW_HTTP_GET, false, api_h_flags, api},
		{"/api/v1/status/runtimeinfo", GW_HTTP_GET, false, api_h_runtimeinfo, api},
		{"/api/v1/targets", GW_HTTP_GET, false, api_h_targets, api},
	};
	memcpy(routes, r, sizeof(r));
}
