/*
 * tmpl_prom.c - the functions Prometheus 2.42 gives templates: query and
 * the sample helpers (first, label, value, strvalue, sortByLabel), the
 * humanizers with their string-to-float conversion, time and duration
 * helpers, regexes (PCRE2 for Go's regexp, with Go's $1 / ${name}
 * expansion), string and URL helpers.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "promql/ast.h"
#include "rules/tmpl_int.h"

#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The string argument i, NUL-terminated. */
static const char *arg_str(struct tcall *c, size_t i)
{
	const struct tv *v = &c->args[i];
	if (v->s.p[v->s.n] == 0)
		return v->s.p;
	char *s = gw_arena_strndup(c->arena, v->s.p, v->s.n);
	return s ? s : "";
}

static const char nil_deref[] = "runtime error: invalid memory address or nil pointer dereference";

static int fn_query(struct tcall *c)
{
	if (!c->d->query)
		return gw_tmpl__fail(c, "query not available");
	struct gw_vector vec = {0};
	struct gw_err e = {0};
	if (c->d->query(c->d->query_ctx, arg_str(c, 0), c->arena, &vec, &e) < 0)
		return gw_tmpl__fail(c, "%s", e.msg[0] ? e.msg : "query failed");
	const struct tsample **p = gw_arena_alloc(c->arena, (vec.n + 1) * sizeof(*p));
	struct tsample *s = gw_arena_alloc(c->arena, (vec.n + 1) * sizeof(*s));
	if (!p || !s)
		return gw_tmpl__fail(c, "out of memory");
	for (size_t i = 0; i < vec.n; i++) {
		s[i].labels = vec.s[i].labels;
		s[i].v = vec.s[i].v;
		p[i] = &s[i];
	}
	c->ret = (struct tv){.k = TV_RESULT};
	c->ret.r.p = p;
	c->ret.r.n = vec.n;
	return 0;
}

static int fn_first(struct tcall *c)
{
	if (c->args[0].r.n == 0)
		return gw_tmpl__fail(c, "first() called on vector with no elements");
	c->ret = (struct tv){.k = TV_SAMPLE, .smp = c->args[0].r.p[0]};
	return 0;
}

static int fn_label(struct tcall *c)
{
	const struct tsample *s = c->args[1].smp;
	if (!s)
		return gw_tmpl__fail(c, nil_deref);
	const char *v = gw_labels_get(&s->labels, arg_str(c, 0));
	c->ret = v ? tv_str(v, strlen(v)) : tv_str("", 0);
	return 0;
}

static int fn_value(struct tcall *c)
{
	if (!c->args[0].smp)
		return gw_tmpl__fail(c, nil_deref);
	c->ret = (struct tv){.k = TV_FLOAT, .f = c->args[0].smp->v};
	return 0;
}

static int fn_strvalue(struct tcall *c)
{
	if (!c->args[0].smp)
		return gw_tmpl__fail(c, nil_deref);
	const char *v = gw_labels_get(&c->args[0].smp->labels, "__value__");
	c->ret = v ? tv_str(v, strlen(v)) : tv_str("", 0);
	return 0;
}

static int fn_args(struct tcall *c)
{
	struct tv *a = gw_arena_alloc(c->arena, (c->n + 1) * sizeof(*a));
	if (!a)
		return gw_tmpl__fail(c, "out of memory");
	memcpy(a, c->args, c->n * sizeof(*a));
	c->ret = (struct tv){.k = TV_ARGS};
	c->ret.a.p = a;
	c->ret.a.n = c->n;
	return 0;
}

static int fn_sort_by_label(struct tcall *c)
{
	const char *by = arg_str(c, 0);
	struct tv r = c->args[1];
	/* sort.Stable: insertion sort keeps equal elements in order */
	const struct tsample **p = (const struct tsample **)r.r.p;
	for (size_t i = 1; i < r.r.n; i++)
		for (size_t j = i; j > 0; j--) {
			const char *a = gw_labels_get(&p[j - 1]->labels, by),
				   *b = gw_labels_get(&p[j]->labels, by);
			if (strcmp(b ? b : "", a ? a : "") >= 0)
				break;
			const struct tsample *t = p[j];
			p[j] = p[j - 1];
			p[j - 1] = t;
		}
	c->ret = r;
	return 0;
}

/* strconv's underscoreOK: each underscore between digits (or after a base prefix). */
static bool underscores_ok(const char *s, size_t n)
{
	char saw = '^';
	size_t i = 0;
	if (n && (s[0] == '-' || s[0] == '+'))
		s++, n--;
	bool hex = false;
	if (n >= 2 && s[0] == '0' && strchr("bBoOxX", s[1])) {
		i = 2;
		saw = '0';
		hex = s[1] == 'x' || s[1] == 'X';
	}
	for (; i < n; i++) {
		char c = s[i];
		if ((c >= '0' && c <= '9') || (hex && strchr("abcdefABCDEF", c))) {
			saw = '0';
		} else if (c == '_') {
			if (saw != '0')
				return false;
			saw = '_';
		} else {
			if (saw == '_')
				return false;
			saw = '!';
		}
	}
	return saw != '_';
}

/* strconv.ParseFloat's grammar: no spaces, Inf/NaN spelled Go's ways. */
static int parse_float(struct tcall *c, const char *s, size_t n, double *out)
{
	char *buf = gw_arena_alloc(c->arena, n + 1);
	if (!buf)
		return gw_tmpl__fail(c, "out of memory");
	struct gw_buf q;
	gw_buf_init(&q, 4096);
	gw_tmpl__quote(&q, s, n);
	int rc = -1;
	if (n == 0 || memchr(s, 0, n) || strchr(" \t\n\v\f\r", s[0])) {
		gw_tmpl__fail(c, "strconv.ParseFloat: parsing %s: invalid syntax", q.data);
		goto out;
	}
	/* Go takes underscores between digits and drops them */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '_')
			buf[k++] = s[i];
	buf[k] = 0;
	if (k != n && !underscores_ok(s, n)) {
		gw_tmpl__fail(c, "strconv.ParseFloat: parsing %s: invalid syntax", q.data);
		goto out;
	}
	const char *body = buf + (buf[0] == '+' || buf[0] == '-');
	bool special = !strcasecmp(body, "inf") || !strcasecmp(body, "infinity") || !strcasecmp(body, "nan");
	if (!special && (strpbrk(body, "nNiI") ||
			 ((body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) && !strpbrk(body, "pP")))) {
		gw_tmpl__fail(c, "strconv.ParseFloat: parsing %s: invalid syntax", q.data);
		goto out;
	}
	if (!strcasecmp(body, "nan") && body != buf) {
		gw_tmpl__fail(c, "strconv.ParseFloat: parsing %s: invalid syntax", q.data);
		goto out;
	}
	char *end;
	double v = strtod(buf, &end);
	if (*end) {
		gw_tmpl__fail(c, "strconv.ParseFloat: parsing %s: invalid syntax", q.data);
		goto out;
	}
	if (isinf(v) && !special) {
		gw_tmpl__fail(c, "strconv.ParseFloat: parsing %s: value out of range", q.data);
		goto out;
	}
	*out = v;
	rc = 0;
out:
	gw_buf_release(&q);
	return rc;
}

/* Prometheus' convertToFloat: float64, numeric strings, ints. */
int gw_tmpl__to_float(struct tcall *c, const struct tv *v, double *out)
{
	switch (v->k) {
	case TV_FLOAT:
		*out = v->f;
		return 0;
	case TV_INT:
		*out = (double)v->i;
		return 0;
	case TV_STRING:
		return parse_float(c, v->s.p, v->s.n, out);
	default:
		return gw_tmpl__fail(c, "can't convert %s to float", gw_tmpl__type_name(v));
	}
}

static int ret_g4(struct tcall *c, double v, const char *suffix)
{
	struct gw_buf b;
	gw_buf_init(&b, 256);
	gw_tmpl__fmt_g4(&b, v);
	gw_buf_puts(&b, suffix);
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_humanize(struct tcall *c)
{
	static const char *const big[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
	static const char *const small[] = {"m", "u", "n", "p", "f", "a", "z", "y"};
	double v;
	if (gw_tmpl__to_float(c, &c->args[0], &v))
		return -1;
	if (v == 0 || isnan(v) || isinf(v))
		return ret_g4(c, v, "");
	const char *prefix = "";
	if (fabs(v) >= 1) {
		for (size_t i = 0; i < 8 && fabs(v) >= 1000; i++) {
			prefix = big[i];
			v /= 1000;
		}
	} else {
		for (size_t i = 0; i < 8 && fabs(v) < 1; i++) {
			prefix = small[i];
			v *= 1000;
		}
	}
	return ret_g4(c, v, prefix);
}

static int fn_humanize1024(struct tcall *c)
{
	static const char *const big[] = {"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
	double v;
	if (gw_tmpl__to_float(c, &c->args[0], &v))
		return -1;
	if (fabs(v) <= 1 || isnan(v) || isinf(v))
		return ret_g4(c, v, "");
	const char *prefix = "";
	for (size_t i = 0; i < 8 && fabs(v) >= 1024; i++) {
		prefix = big[i];
		v /= 1024;
	}
	return ret_g4(c, v, prefix);
}

static int fn_humanize_duration(struct tcall *c)
{
	static const char *const small[] = {"m", "u", "n", "p", "f", "a", "z", "y"};
	double v;
	if (gw_tmpl__to_float(c, &c->args[0], &v))
		return -1;
	if (isnan(v) || isinf(v))
		return ret_g4(c, v, "");
	if (v == 0)
		return ret_g4(c, v, "s");
	if (fabs(v) >= 1) {
		const char *sign = "";
		if (v < 0) {
			sign = "-";
			v = -v;
		}
		/* Go's conversion of a float beyond int64 yields its minimum on amd64 */
		int64_t t = v < 9223372036854775808.0 ? (int64_t)v : INT64_MIN;
		int64_t sec = t % 60, min = t / 60 % 60, hours = t / 3600 % 24, days = t / 86400;
		struct gw_buf b;
		gw_buf_init(&b, 256);
		if (days)
			gw_buf_printf(&b, "%s%lldd %lldh %lldm %llds", sign, (long long)days,
				      (long long)hours, (long long)min, (long long)sec);
		else if (hours)
			gw_buf_printf(&b, "%s%lldh %lldm %llds", sign, (long long)hours, (long long)min,
				      (long long)sec);
		else if (min)
			gw_buf_printf(&b, "%s%lldm %llds", sign, (long long)min, (long long)sec);
		else {
			gw_buf_puts(&b, sign);
			gw_tmpl__fmt_g4(&b, v);
			gw_buf_putc(&b, 's');
		}
		return gw_tmpl__ret_buf(c, &b);
	}
	const char *prefix = "";
	for (size_t i = 0; i < 8 && fabs(v) < 1; i++) {
		prefix = small[i];
		v *= 1000;
	}
	char suffix[8];
	snprintf(suffix, sizeof(suffix), "%ss", prefix);
	return ret_g4(c, v, suffix);
}

static int fn_humanize_percentage(struct tcall *c)
{
	double v;
	if (gw_tmpl__to_float(c, &c->args[0], &v))
		return -1;
	return ret_g4(c, v * 100, "%");
}

static int fn_parse_duration(struct tcall *c)
{
	const char *s = arg_str(c, 0);
	int64_t ms;
	if (!*s)
		return gw_tmpl__fail(c, "empty duration string");
	if (strcmp(s, "0") != 0 && gw_promql_duration(s, strlen(s), &ms) < 0) {
		struct gw_buf q;
		gw_buf_init(&q, 4096);
		gw_tmpl__quote(&q, s, strlen(s));
		gw_tmpl__fail(c, "not a valid duration string: %s", q.data);
		gw_buf_release(&q);
		return -1;
	}
	if (!strcmp(s, "0"))
		ms = 0;
	c->ret = (struct tv){.k = TV_FLOAT, .f = (double)ms / 1000};
	return 0;
}

static int fn_safe_html(struct tcall *c)
{
	c->ret = c->args[0];
	c->ret.k = TV_HTML;
	return 0;
}

static int fn_path_prefix(struct tcall *c)
{
	const char *u = c->d->external_url;
	if (!u)
		return gw_tmpl__fail(c, nil_deref);
	const char *p = strstr(u, "://");
	p = p ? strchr(p + 3, '/') : u;
	if (!p)
		p = "";
	size_t n = strcspn(p, "?#");
	c->ret = tv_str(p, n);
	return 0;
}

static int fn_external_url(struct tcall *c)
{
	const char *u = c->d->external_url;
	if (!u)
		return gw_tmpl__fail(c, nil_deref);
	c->ret = tv_str(u, strlen(u));
	return 0;
}

/* net.SplitHostPort: host and port, or -1 where Go reports an error. */
static int split_host_port(const char *s, size_t n, size_t *hs, size_t *hl, size_t *ps)
{
	const char *colon = NULL;
	for (size_t i = n; i-- > 0;)
		if (s[i] == ':') {
			colon = s + i;
			break;
		}
	if (!colon)
		return -1;
	size_t ci = (size_t)(colon - s);
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close || (size_t)(close - s) + 1 != ci)
			return -1;
		*hs = 1;
		*hl = ci - 2;
	} else {
		if (memchr(s, ':', ci) || memchr(s, '[', ci) || memchr(s, ']', ci))
			return -1;
		*hs = 0;
		*hl = ci;
	}
	if (memchr(colon + 1, '[', n - ci - 1) || memchr(colon + 1, ']', n - ci - 1))
		return -1;
	*ps = ci + 1;
	return 0;
}

static int fn_strip_port(struct tcall *c)
{
	const struct tv *v = &c->args[0];
	size_t hs, hl, ps;
	if (split_host_port(v->s.p, v->s.n, &hs, &hl, &ps) < 0)
		c->ret = *v;
	else
		c->ret = tv_str(v->s.p + hs, hl);
	return 0;
}

static bool is_ip(const char *s, size_t n)
{
	char buf[64];
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	int dots = 0, digits = 0, colons = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '.')
			dots++;
		else if (buf[i] == ':')
			colons++;
		else if (buf[i] >= '0' && buf[i] <= '9')
			digits++;
		else if (!strchr("abcdefABCDEF", buf[i]))
			return false;
	}
	if (colons >= 2)
		return true;
	return dots == 3 && digits + dots == (int)n;
}

static int fn_strip_domain(struct tcall *c)
{
	const struct tv *v = &c->args[0];
	size_t hs = 0, hl = v->s.n, ps = 0;
	bool port = split_host_port(v->s.p, v->s.n, &hs, &hl, &ps) == 0;
	if (!port) {
		hs = 0;
		hl = v->s.n;
	}
	if (is_ip(v->s.p + hs, hl)) {
		c->ret = *v;
		return 0;
	}
	const char *dot = memchr(v->s.p + hs, '.', hl);
	size_t short_len = dot ? (size_t)(dot - (v->s.p + hs)) : hl;
	if (!port || ps == v->s.n) {
		if (port && ps == v->s.n) {
			/* an empty port is no port for Prometheus */
		}
		c->ret = tv_str(v->s.p + hs, short_len);
		return 0;
	}
	struct gw_buf b;
	gw_buf_init(&b, 4096);
	bool colon = memchr(v->s.p + hs, ':', short_len) != NULL;
	gw_buf_printf(&b, "%s%.*s%s:%.*s", colon ? "[" : "", (int)short_len, v->s.p + hs, colon ? "]" : "",
		      (int)(v->s.n - ps), v->s.p + ps);
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_graph_link(struct tcall *c, int tab)
{
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	gw_buf_puts(&b, "/graph?g0.expr=");
	const struct tv *v = &c->args[0];
	for (size_t i = 0; i < v->s.n; i++) {
		unsigned char ch = (unsigned char)v->s.p[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~')
			gw_buf_putc(&b, (char)ch);
		else if (ch == ' ')
			gw_buf_putc(&b, '+');
		else
			gw_buf_printf(&b, "%%%02X", ch);
	}
	gw_buf_printf(&b, "&g0.tab=%d", tab);
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_graph(struct tcall *c)
{
	return fn_graph_link(c, 0);
}

static int fn_table(struct tcall *c)
{
	return fn_graph_link(c, 1);
}

int gw_tmpl__fn_match(struct tcall *c);
int gw_tmpl__fn_re_replace_all(struct tcall *c);
int gw_tmpl__fn_title(struct tcall *c);
int gw_tmpl__fn_to_upper(struct tcall *c);
int gw_tmpl__fn_to_lower(struct tcall *c);

const struct tfunc gw_tmpl__prom_funcs[] = {
    {"query", "s", fn_query},
    {"first", "R", fn_first},
    {"label", "sS", fn_label},
    {"value", "S", fn_value},
    {"strvalue", "S", fn_strvalue},
    {"args", "v*", fn_args},
    {"reReplaceAll", "sss", gw_tmpl__fn_re_replace_all},
    {"safeHtml", "s", fn_safe_html},
    {"match", "ss", gw_tmpl__fn_match},
    {"title", "s", gw_tmpl__fn_title},
    {"toUpper", "s", gw_tmpl__fn_to_upper},
    {"toLower", "s", gw_tmpl__fn_to_lower},
    {"graphLink", "s", fn_graph},
    {"tableLink", "s", fn_table},
    {"sortByLabel", "sR", fn_sort_by_label},
    {"humanize", "v", fn_humanize},
    {"humanize1024", "v", fn_humanize1024},
    {"humanizeDuration", "v", fn_humanize_duration},
    {"humanizePercentage", "v", fn_humanize_percentage},
    {"humanizeTimestamp", "v", gw_tmpl__fn_humanize_timestamp},
    {"toTime", "v", gw_tmpl__fn_to_time},
    {"pathPrefix", "", fn_path_prefix},
    {"externalURL", "", fn_external_url},
    {"parseDuration", "s", fn_parse_duration},
    {"stripPort", "s", fn_strip_port},
    {"stripDomain", "s", fn_strip_domain},
};
const size_t gw_tmpl__prom_nfuncs = sizeof(gw_tmpl__prom_funcs) / sizeof(gw_tmpl__prom_funcs[0]);
