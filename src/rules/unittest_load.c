/*
 * unittest_load.c - a unit-test file's input series into the memory store:
 * each series' labels as Prometheus' ParseMetric reads them, and its
 * values in the PromQL test notation ("1 2 _ 3+4x5 _x3 stale"), loaded at
 * multiples of the test's interval as promtool's lazy loader loads them.
 */
#include "rules/unittest_int.h"

#include "promql/ast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARENA_MAX (1u << 30)

/* A series notation ("name{a=\"b\"}") into sorted labels, as ParseMetric reads it. */
int gw_ut_parse_metric(const char *text, struct gw_arena *a, struct gw_labels *out, struct gw_err *err)
{
	const char *t = text;
	while (*t == ' ')
		t++;
	if (t[0] == '{') {
		/* "{}": no labels at all, which a selector may not be but a metric may */
		const char *q = t + 1;
		while (*q == ' ')
			q++;
		if (*q == '}' && !q[1 + strspn(q + 1, " ")]) {
			*out = (struct gw_labels){0};
			return 0;
		}
	}
	struct gw_pq_node *n;
	int rc = gw_promql_parse_selector(text, &n, err);
	if (rc == GW_EINVAL) /* {} or only empty matchers: a metric with no labels is fine here */
		rc = gw_promql_parse(text, &n, err);
	if (rc)
		return rc;
	if (n->kind != GW_PQ_VECTOR_SEL) {
		gw_promql_free(n);
		return gw_err_set(err, GW_EPARSE, "1:1: parse error: not a series: %s", text);
	}
	struct gw_lpair *p = gw_arena_alloc(a, (n->u.sel.nmatchers + 1) * sizeof(*p));
	size_t k = 0;
	if (p && n->u.sel.name)
		p[k++] = (struct gw_lpair){GW_METRIC_NAME, gw_arena_strdup(a, n->u.sel.name)};
	for (size_t i = 0; p && i < n->u.sel.nmatchers; i++) {
		const struct gw_pq_matcher *m = &n->u.sel.matchers[i];
		if (m->op != GW_MATCH_EQ) {
			gw_promql_free(n);
			return gw_err_set(err, GW_EPARSE, "1:1: parse error: unexpected matcher in a series: %s", m->name);
		}
		if (*m->value)
			p[k++] = (struct gw_lpair){gw_arena_strdup(a, m->name), gw_arena_strdup(a, m->value)};
	}
	gw_promql_free(n);
	if (!p || a->err)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	*out = gw_labels_from(a, p, k);
	return 0;
}

/* One value of a series' notation: omitted ("_") or a value (maybe the staleness marker). */
struct seqval {
	bool omitted;
	double v;
};

struct seq {
	struct seqval *v;
	size_t n, cap;
};

static int seq_add(struct seq *s, bool omitted, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		if (cap > (size_t)1 << 26)
			return GW_ERANGE;
		struct seqval *p = realloc(s->v, cap * sizeof(*p));
		if (!p)
			return GW_ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = (struct seqval){omitted, v};
	return 0;
}

/* A number as PromQL's lexer reads one in series values: decimal (no hex: "0x5" is 0 five times), Inf, NaN, signed. */
static const char *number(const char *s, double *v)
{
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!strncasecmp(p, "inf", 3) || !strncasecmp(p, "nan", 3)) {
		bool neg = *s == '-';
		*v = (p[0] == 'i' || p[0] == 'I') ? (neg ? -INFINITY : INFINITY) : NAN;
		return p + 3;
	}
	const char *digits = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (p == digits || (p == digits + 1 && *digits == '.'))
		return NULL;
	if ((*p == 'e' || *p == 'E') && ((p[1] >= '0' && p[1] <= '9') ||
					 ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
		p += 2;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	char buf[128];
	size_t n = (size_t)(p - s) < sizeof(buf) - 1 ? (size_t)(p - s) : sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return p;
}

static bool parse_count(const char *s, const char **end, uint64_t *n)
{
	if (*s < '0' || *s > '9')
		return false;
	char *e;
	unsigned long long x = strtoull(s, &e, 10);
	*n = x;
	*end = e;
	return true;
}

/* The values notation of promtool's input_series: "1 2 _ 3+4x5 _x3 stale". */
static int parse_values(const char *line, size_t col0, const char *text, struct seq *out, struct gw_err *err)
{
	const char *s = text;
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		size_t col = col0 + (size_t)(s - text) + 1;
		const char *tok = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
		size_t len = (size_t)(s - tok);
		char buf[256];
		if (len >= sizeof(buf))
			return gw_err_set(err, GW_EPARSE, "1:%zu: parse error: series value too long", col);
		memcpy(buf, tok, len);
		buf[len] = '\0';
		const char *e;
		uint64_t times = 0;
		int rc = 0;
		if (buf[0] == '_') {
			if (!buf[1]) {
				rc = seq_add(out, true, 0);
			} else if (buf[1] == 'x' && parse_count(buf + 2, &e, &times) && !*e) {
				for (uint64_t i = 0; i < times && rc == 0; i++)
					rc = seq_add(out, true, 0);
			} else {
				return gw_err_set(err, GW_EPARSE, "1:%zu: parse error: unexpected \"%s\" in series values",
						  col, buf);
			}
		} else if (!strcmp(buf, "stale")) {
			rc = seq_add(out, false, gw_stale_nan());
		} else {
			double v, d = 0;
			const char *p = number(buf, &v);
			if (!p) {
				const char *kind = (buf[0] >= 'a' && buf[0] <= 'z') || (buf[0] >= 'A' && buf[0] <= 'Z')
							   ? "identifier"
							   : "character";
				return gw_err_set(
					err, GW_EPARSE,
					"1:%zu: parse error: unexpected %s \"%s\" in series values, expected number or \"stale\"",
					col, kind, buf);
			}
			if (*p == '+' || *p == '-') {
				p = number(p, &d);
				if (!p || *p != 'x')
					return gw_err_set(err, GW_EPARSE,
							  "1:%zu: parse error: unexpected \"%s\" in series values", col, buf);
			}
			if (*p == 'x') {
				if (!parse_count(p + 1, &e, &times) || *e)
					return gw_err_set(err, GW_EPARSE,
							  "1:%zu: parse error: unexpected \"%s\" in series values", col, buf);
				/* NxK is K+1 values: the first and K more */
				for (uint64_t i = 0; i <= times && rc == 0; i++, v += d)
					rc = seq_add(out, false, v);
			} else if (*p) {
				return gw_err_set(err, GW_EPARSE, "1:%zu: parse error: unexpected \"%s\" in series values",
						  col, buf);
			} else {
				rc = seq_add(out, false, v);
			}
		}
		if (rc == GW_ERANGE)
			return gw_err_set(err, rc, "%s: too many values", line);
		if (rc)
			return gw_err_set(err, rc, "out of memory");
	}
	return 0;
}

/*
 * Load the input series at multiples of interval from time 0, up to until:
 * promtool loads samples only as far as its last evaluation, so a query
 * between evaluations does not see the samples after it.
 */
int gw_ut_load_series(struct gw_memstore *m, const struct gw_ut_group *g, int64_t interval, int64_t until,
		       struct gw_err *err)
{
	for (size_t i = 0; i < g->ninput; i++) {
		const struct gw_ut_series *in = &g->input[i];
		struct gw_arena a;
		gw_arena_init(&a, ARENA_MAX);
		struct gw_labels l;
		const char *series = in->series ? in->series : "";
		int rc = gw_ut_parse_metric(series, &a, &l, err);
		struct seq seq = {0};
		if (rc == 0)
			rc = parse_values(series, strlen(series) + 1, in->values ? in->values : "", &seq, err);
		long id = rc == 0 ? gw_memstore_series(m, l.p, l.n) : 0;
		if (rc == 0 && id < 0)
			rc = gw_err_set(err, (int)id, "out of memory");
		for (size_t k = 0; rc == 0 && k < seq.n; k++)
			if (!seq.v[k].omitted && (int64_t)k * interval <= until &&
			    gw_memstore_append(m, id, (int64_t)k * interval, seq.v[k].v) != 0)
				rc = gw_err_set(err, GW_EINVAL, "series %s: out of order or duplicate samples", series);
		free(seq.v);
		gw_arena_release(&a);
		if (rc)
			return rc;
	}
	return 0;
}

