/*
 * promresp.c - Prometheus API answers into series, checked on the way.
 */
#include "ui/promresp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A point [seconds, "value"] into *pt; where names it for the message. */
static int point(const struct gw_jdoc *d, const struct gw_jval *a, struct gw_ui_point *pt, const char *where,
		 size_t i, struct gw_err *err)
{
	const struct gw_jval *t = gw_jsonread_at(d, a, 0), *v = gw_jsonread_at(d, a, 1);
	if (!a || a->type != GW_JARR || a->n != 2 || t->type != GW_JNUM || v->type != GW_JSTR)
		return gw_err_set(err, GW_EPARSE, "result[%zu].%s: expected [seconds, \"value\"]", i, where);
	if (gw_jsonread_number(v->s, v->len, &pt->v) != 0)
		return gw_err_set(err, GW_EPARSE, "result[%zu].%s: \"%.40s\" is not a number", i, where, v->s);
	if (!(fabs(t->num) < 1e15)) /* seconds; beyond this it is no time */
		return gw_err_set(err, GW_EPARSE, "result[%zu].%s: time out of range", i, where);
	pt->t_ms = (int64_t)llround(t->num * 1000.0);
	return 0;
}

static int check_labels(const struct gw_jdoc *d, const struct gw_jval *m, size_t i, struct gw_err *err)
{
	if (!m || m->type != GW_JOBJ)
		return gw_err_set(err, GW_EPARSE, "result[%zu]: no \"metric\" object", i);
	for (const struct gw_jval *l = gw_jsonread_first(d, m); l; l = gw_jsonread_next(d, l))
		if (l->type != GW_JSTR)
			return gw_err_set(err, GW_EPARSE, "result[%zu].metric.%.40s: not a string", i, l->key);
	return 0;
}

/* Points of one result entry appended to r->pts. */
static int entry(struct gw_ui_promresp *r, const struct gw_jval *e, size_t i, struct gw_err *err)
{
	const struct gw_jdoc *d = r->doc;
	if (e->type != GW_JOBJ)
		return gw_err_set(err, GW_EPARSE, "result[%zu]: not an object", i);
	const struct gw_jval *m = gw_jsonread_get(d, e, "metric");
	int rc = check_labels(d, m, i, err);
	if (rc)
		return rc;
	struct gw_ui_series *s = &r->series[r->nseries++];
	s->labels = m;
	s->pts = r->pts + r->npts;
	if (!r->matrix) {
		if ((rc = point(d, gw_jsonread_get(d, e, "value"), &r->pts[r->npts], "value", i, err)) != 0)
			return rc;
		r->npts++;
		s->npts = 1;
		return 0;
	}
	const struct gw_jval *vs = gw_jsonread_get(d, e, "values");
	if (!vs || vs->type != GW_JARR)
		return gw_err_set(err, GW_EPARSE, "result[%zu]: no \"values\" array", i);
	for (const struct gw_jval *p = gw_jsonread_first(d, vs); p; p = gw_jsonread_next(d, p)) {
		if ((rc = point(d, p, &r->pts[r->npts], "values", i, err)) != 0)
			return rc;
		r->npts++;
		s->npts++;
	}
	return 0;
}

/* Points in the whole answer, to size one array for all of them. */
static size_t count_points(const struct gw_jdoc *d, const struct gw_jval *res, bool matrix)
{
	size_t n = 0;
	for (const struct gw_jval *e = gw_jsonread_first(d, res); e; e = gw_jsonread_next(d, e)) {
		const struct gw_jval *vs = gw_jsonread_get(d, e, matrix ? "values" : "value");
		n += matrix ? (vs ? vs->n : 0) : 1;
	}
	return n;
}

static int envelope(struct gw_ui_promresp *r, struct gw_err *err)
{
	const struct gw_jdoc *d = r->doc;
	const struct gw_jval *root = gw_jsonread_root(d);
	const char *status = gw_jsonread_str(gw_jsonread_get(d, root, "status"));
	if (!status)
		return gw_err_set(err, GW_EPARSE, "not a Prometheus API answer (no \"status\")");
	if (strcmp(status, "success") != 0) {
		const char *type = gw_jsonread_str(gw_jsonread_get(d, root, "errorType"));
		const char *msg = gw_jsonread_str(gw_jsonread_get(d, root, "error"));
		return gw_err_set(err, GW_EINVAL, "query failed (%.40s): %.200s", type ? type : status,
				  msg ? msg : "no message");
	}
	const struct gw_jval *data = gw_jsonread_get(d, root, "data");
	const char *rt = gw_jsonread_str(gw_jsonread_get(d, data, "resultType"));
	const struct gw_jval *res = gw_jsonread_get(d, data, "result");
	if (!rt || !res || res->type != GW_JARR)
		return gw_err_set(err, GW_EPARSE, "answer without data.resultType and data.result");
	if (strcmp(rt, "vector") != 0 && strcmp(rt, "matrix") != 0)
		return gw_err_set(err, GW_EPARSE, "result type \"%.20s\", expected vector or matrix", rt);
	r->matrix = rt[0] == 'm';
	r->npts = count_points(d, res, r->matrix);
	r->series = calloc(res->n ? res->n : 1, sizeof(*r->series));
	r->pts = calloc(r->npts ? r->npts : 1, sizeof(*r->pts));
	if (!r->series || !r->pts)
		return gw_err_set(err, GW_ENOMEM, "out of memory for %u series", res->n);
	r->npts = 0;
	size_t i = 0;
	for (const struct gw_jval *e = gw_jsonread_first(d, res); e; e = gw_jsonread_next(d, e), i++) {
		int rc = entry(r, e, i, err);
		if (rc)
			return rc;
	}
	return 0;
}

int gw_ui_promresp_parse(struct gw_ui_promresp *r, const char *body, size_t len, struct gw_err *err)
{
	memset(r, 0, sizeof(*r));
	int rc = gw_jsonread_parse(&r->doc, body, len, NULL, err);
	if (rc == 0)
		rc = envelope(r, err);
	if (rc)
		gw_ui_promresp_release(r);
	return rc;
}

void gw_ui_promresp_release(struct gw_ui_promresp *r)
{
	gw_jsonread_free(r->doc);
	free(r->series);
	free(r->pts);
	memset(r, 0, sizeof(*r));
}

const char *gw_ui_promresp_label(const struct gw_ui_promresp *r, const struct gw_ui_series *s, const char *name)
{
	return gw_jsonread_str(gw_jsonread_get(r->doc, s->labels, name));
}
