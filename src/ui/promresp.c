/*
 * promresp.c - Prometheus API answers into series: held to the size and
 * depth caps, read by jansson, checked on the way.
 */
#include "ui/promresp.h"
#include "ui/rsnap.h"

#include <jansson.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Deepest nesting of arrays and objects, brackets inside strings skipped.
 * jansson recurses once per level up to its compiled-in 2048; this keeps
 * the cap at the 64 the answers' 6 levels need, on any thread's stack, in
 * one pass that allocates nothing. A text that is not JSON may count wrong
 * here, but only JSON with more than the cap of open brackets is refused.
 */
static int check_depth(const char *s, size_t len, struct gw_err *err)
{
	unsigned int depth = 0;
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '"':
			for (i++; i < len && s[i] != '"'; i++)
				i += s[i] == '\\';
			break;
		case '[':
		case '{':
			if (++depth > GW_UI_PROMRESP_DEPTH_MAX)
				return gw_err_set(err, GW_ERANGE, "JSON nested deeper than %u at byte %zu",
						  GW_UI_PROMRESP_DEPTH_MAX, i);
			break;
		case ']':
		case '}':
			depth -= depth > 0;
			break;
		default:
			break;
		}
	}
	return 0;
}

/*
 * jansson's error as ours. A text cut short says so: an answer cut off by
 * a peer or a proxy is the usual way one goes bad, and the user should read
 * it as that. jansson calls the end "premature" when it comes between
 * tokens or inside a string; when it comes inside a number, a literal or an
 * escape, the lexer refuses the token the end left ("invalid token near
 * '1796.'"), which the parser's errors ("']' expected near '2'") are not.
 */
static int json_fail(const json_error_t *je, size_t len, struct gw_err *err)
{
	enum json_error_code code = json_error_code(je);
	size_t pos = je->position > 0 ? (size_t)je->position : 0;
	if (code == json_error_out_of_memory)
		return gw_err_set(err, GW_ENOMEM, "JSON: out of memory for %zu bytes", len);
	if (code == json_error_stack_overflow) /* not reached: check_depth holds it far lower */
		return gw_err_set(err, GW_ERANGE, "JSON nested too deep at byte %zu", pos);
	bool cut = pos >= len && (code == json_error_premature_end_of_input ||
				  (code == json_error_invalid_syntax && !strstr(je->text, "expected")));
	if (cut)
		return gw_err_set(err, GW_EPARSE, "JSON ends early at byte %zu (truncated?): %s", len,
				  je->text);
	/* jansson's position is just past the token it could not take */
	return gw_err_set(err, GW_EPARSE, "bad JSON at byte %zu: %s", pos ? pos - 1 : 0, je->text);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of the JSON number at s (max n bytes); 0 when there is none. */
static size_t number_len(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && is_digit(s[i]))
		while (i < n && is_digit(s[i]))
			i++;
	else
		return 0;
	if (i < n && s[i] == '.') {
		if (++i >= n || !is_digit(s[i]))
			return 0;
		while (i < n && is_digit(s[i]))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || !is_digit(s[i]))
			return 0;
		while (i < n && is_digit(s[i]))
			i++;
	}
	return i;
}

/* Powers of ten a double holds exactly. */
static const double pow10_exact[] = {1e0,  1e1,	 1e2,  1e3,  1e4,  1e5,	 1e6,  1e7,  1e8,  1e9,	 1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static double scale10(double m, long e)
{
	/* m < 2^53 and |e| <= 22: one correctly rounded operation */
	while (e > 22) {
		m *= 1e22;
		e -= 22;
	}
	while (e < -22) {
		m /= 1e22;
		e += 22;
	}
	return e >= 0 ? m * pow10_exact[e] : m / pow10_exact[-e];
}

int gw_ui_promresp_value(const char *s, size_t len, double *out)
{
	static const struct {
		const char *word;
		double v;
	} words[] = {{"NaN", __builtin_nan("")},
		     {"+Inf", __builtin_inf()},
		     {"Inf", __builtin_inf()},
		     {"-Inf", -__builtin_inf()}};
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (strlen(words[k].word) == len && memcmp(s, words[k].word, len) == 0) {
			*out = words[k].v;
			return 0;
		}
	if (len == 0 || number_len(s, len) != len)
		return GW_EPARSE;
	size_t i = 0;
	bool neg = s[0] == '-';
	i += neg;
	uint64_t m = 0;
	long e = 0;
	int digits = 0;
	bool frac = false;
	for (; i < len && (is_digit(s[i]) || s[i] == '.'); i++) {
		if (s[i] == '.') {
			frac = true;
			continue;
		}
		if (digits < 19) {
			m = m * 10 + (uint64_t)(s[i] - '0');
			digits += m > 0;
			e -= frac;
		} else if (!frac) {
			e++; /* a digit past what a uint64 holds: only its magnitude counts */
		}
	}
	if (i < len) { /* exponent */
		i++;
		bool eneg = s[i] == '-';
		i += s[i] == '-' || s[i] == '+';
		long x = 0;
		for (; i < len; i++)
			if (x < 100000)
				x = x * 10 + (s[i] - '0');
		e += eneg ? -x : x;
	}
	/* Correctly rounded, as Go wrote the shortest digits that read back:
	 * up to 15 significant digits times a power of ten up to 22 are both
	 * exact doubles, so one multiply or divide rounds right (the classic
	 * fast path); longer digit strings (computed values: 16-17 digits) and
	 * far exponents go to strtod in the C locale, whatever LC_NUMERIC the
	 * process has. */
	static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	double v;
	char buf[512];
	locale_t c;
	if (m == 0) {
		v = 0.0;
	} else if (digits <= 15 && e >= -22 && e <= 22) {
		v = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
	} else if (len < sizeof(buf) && (c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0)) != (locale_t)0) {
		memcpy(buf, s + neg, len - neg);
		buf[len - neg] = '\0';
		v = strtod_l(buf, NULL, c);
		freelocale(c);
	} else {
		v = scale10((double)m, e); /* a number of 512 digits or more, or no locale: near enough */
	}
	*out = neg ? -v : v;
	return 0;
}

/* A point [seconds, "value"] into *pt; where names it for the message. */
static int point(const json_t *a, struct gw_ui_point *pt, const char *where, size_t i, struct gw_err *err)
{
	const json_t *t = json_array_get(a, 0), *v = json_array_get(a, 1);
	if (!json_is_array(a) || json_array_size(a) != 2 || !json_is_number(t) || !json_is_string(v))
		return gw_err_set(err, GW_EPARSE, "result[%zu].%s: expected [seconds, \"value\"]", i, where);
	if (gw_ui_promresp_value(json_string_value(v), json_string_length(v), &pt->v) != 0)
		return gw_err_set(err, GW_EPARSE, "result[%zu].%s: \"%.40s\" is not a number", i, where,
				  json_string_value(v));
	double secs = json_number_value(t);
	if (!(fabs(secs) < 1e15)) /* seconds; beyond this it is no time */
		return gw_err_set(err, GW_EPARSE, "result[%zu].%s: time out of range", i, where);
	pt->t_ms = (int64_t)llround(secs * 1000.0);
	return 0;
}

static int check_labels(json_t *m, size_t i, struct gw_err *err)
{
	if (!json_is_object(m))
		return gw_err_set(err, GW_EPARSE, "result[%zu]: no \"metric\" object", i);
	const char *name;
	json_t *l;
	json_object_foreach(m, name, l) if (!json_is_string(l)) return gw_err_set(
	    err, GW_EPARSE, "result[%zu].metric.%.40s: not a string", i, name);
	return 0;
}

/* Points of one result entry appended to r->pts. */
static int entry(struct gw_ui_promresp *r, const json_t *e, size_t i, struct gw_err *err)
{
	if (!json_is_object(e))
		return gw_err_set(err, GW_EPARSE, "result[%zu]: not an object", i);
	json_t *m = json_object_get(e, "metric");
	int rc = check_labels(m, i, err);
	if (rc)
		return rc;
	struct gw_ui_series *s = &r->series[r->nseries++];
	s->labels = m;
	s->pts = r->pts + r->npts;
	if (!r->matrix) {
		if ((rc = point(json_object_get(e, "value"), &r->pts[r->npts], "value", i, err)) != 0)
			return rc;
		r->npts++;
		s->npts = 1;
		return 0;
	}
	const json_t *vs = json_object_get(e, "values");
	if (!json_is_array(vs))
		return gw_err_set(err, GW_EPARSE, "result[%zu]: no \"values\" array", i);
	for (size_t k = 0; k < json_array_size(vs); k++) {
		if ((rc = point(json_array_get(vs, k), &r->pts[r->npts], "values", i, err)) != 0)
			return rc;
		r->npts++;
		s->npts++;
	}
	return 0;
}

/* Points in the whole answer, to size one array for all of them. */
static size_t count_points(const json_t *res, bool matrix)
{
	size_t n = 0;
	for (size_t k = 0; k < json_array_size(res); k++)
		n += matrix ? json_array_size(json_object_get(json_array_get(res, k), "values")) : 1;
	return n;
}

static int envelope(struct gw_ui_promresp *r, struct gw_err *err)
{
	const json_t *root = r->doc;
	const char *status = json_string_value(json_object_get(root, "status"));
	if (!status)
		return gw_err_set(err, GW_EPARSE, "not a Prometheus API answer (no \"status\")");
	if (strcmp(status, "success") != 0) {
		const char *type = json_string_value(json_object_get(root, "errorType"));
		const char *msg = json_string_value(json_object_get(root, "error"));
		return gw_err_set(err, GW_EINVAL, "query failed (%.40s): %.200s", type ? type : status,
				  msg ? msg : "no message");
	}
	const json_t *data = json_object_get(root, "data");
	const char *rt = json_string_value(json_object_get(data, "resultType"));
	const json_t *res = json_object_get(data, "result");
	if (!rt || !json_is_array(res))
		return gw_err_set(err, GW_EPARSE, "answer without data.resultType and data.result");
	if (strcmp(rt, "vector") != 0 && strcmp(rt, "matrix") != 0)
		return gw_err_set(err, GW_EPARSE, "result type \"%.20s\", expected vector or matrix", rt);
	r->matrix = rt[0] == 'm';
	size_t n = json_array_size(res);
	r->npts = count_points(res, r->matrix);
	r->series = calloc(n ? n : 1, sizeof(*r->series));
	r->pts = calloc(r->npts ? r->npts : 1, sizeof(*r->pts));
	if (!r->series || !r->pts)
		return gw_err_set(err, GW_ENOMEM, "out of memory for %zu series", n);
	r->npts = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = entry(r, json_array_get(res, i), i, err);
		if (rc)
			return rc;
	}
	return 0;
}

int gw_ui_promresp_parse(struct gw_ui_promresp *r, const char *body, size_t len, struct gw_err *err)
{
	memset(r, 0, sizeof(*r));
	if (len > GW_UI_PROMRESP_SIZE_MAX)
		return gw_err_set(err, GW_ERANGE, "JSON text of %zu bytes is over the limit of %u", len,
				  GW_UI_PROMRESP_SIZE_MAX);
	int rc = check_depth(body, len, err);
	if (rc)
		return rc;
	/*
	 * Any value at the top, so "[]" is "not an answer" like "{}"; numbers
	 * all as doubles, so a huge integer is a number out of range, not a
	 * syntax error; a string may hold \u0000 (it ends the label early).
	 */
	json_error_t je;
	r->doc = json_loadb(
	    body, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES,
	    &je);
	rc = r->doc ? envelope(r, err) : json_fail(&je, len, err);
	if (rc)
		gw_ui_promresp_release(r);
	return rc;
}

void gw_ui_promresp_release(struct gw_ui_promresp *r)
{
	json_decref(r->doc);
	free(r->series);
	free(r->pts);
	memset(r, 0, sizeof(*r));
}

const char *gw_ui_promresp_label(const struct gw_ui_promresp *r, const struct gw_ui_series *s,
				 const char *name)
{
	return json_string_value(json_object_get(s->labels, name));
}

/* A verdict word ("pass", "warn", "fail") as enum gw_health_status; -1 for any other. */
static int status_of(const json_t *v)
{
	const char *w = json_string_value(v);
	for (int st = GW_HEALTH_PASS; w && st <= GW_HEALTH_FAIL; st++)
		if (strcmp(w, gw_health_status_name((enum gw_health_status)st)) == 0)
			return st;
	return -1;
}

static int system_of(const json_t *v)
{
	const char *w = json_string_value(v);
	for (int s = 0; w && s < GW_HSYS__COUNT; s++)
		if (strcmp(w, gw_health_system_name((enum gw_health_system)s)) == 0)
			return s;
	return -1;
}

/* One incident of gpus[g]; systems gpuwatch does not know are skipped (a newer agent's). */
static int incident(struct gw_ui_health *h, const json_t *in, size_t g, size_t i, struct gw_err *err)
{
	int sev = status_of(json_object_get(in, "severity")), sys = system_of(json_object_get(in, "system"));
	const char *code = json_string_value(json_object_get(in, "code"));
	const char *msg = json_string_value(json_object_get(in, "message"));
	if (!json_is_object(in) || sev < 0 || !code || !msg)
		return gw_err_set(err, GW_EPARSE,
				  "gpus[%zu].incidents[%zu]: expected severity, code and message", g, i);
	if (sys < 0)
		return 0;
	if (h->system[sys] < sev)
		h->system[sys] = (uint8_t)sev;
	if (h->ninc == GW_UI_INCIDENTS_MAX)
		return 0;
	struct gw_ui_incident *o = &h->inc[h->ninc++];
	o->severity = (uint8_t)sev;
	o->system = (uint8_t)sys;
	gw_ui_health_tag(code, msg, o->tag, sizeof(o->tag));
	snprintf(o->message, sizeof(o->message), "%s", msg);
	return 0;
}

static int health_gpu(struct gw_ui_rhealth_gpu *o, const json_t *e, size_t g, struct gw_err *err)
{
	const json_t *idx = json_object_get(e, "index"), *inc = json_object_get(e, "incidents");
	const char *uuid = json_string_value(json_object_get(e, "uuid"));
	int st = status_of(json_object_get(e, "status"));
	double x = json_number_value(idx);
	if (!json_is_object(e) || !json_is_number(idx) || !(x >= 0 && x < 1e9) ||
	    x != (double)(unsigned int)x || st < 0 || !json_is_array(inc))
		return gw_err_set(err, GW_EPARSE, "gpus[%zu]: expected index, status and incidents", g);
	memset(o, 0, sizeof(*o));
	o->index = (unsigned int)x;
	snprintf(o->uuid, sizeof(o->uuid), "%s", uuid ? uuid : "");
	o->h.known = true;
	o->h.status = (uint8_t)st;
	for (size_t i = 0; i < json_array_size(inc); i++) {
		int rc = incident(&o->h, json_array_get(inc, i), g, i, err);
		if (rc)
			return rc;
	}
	return 0;
}

int gw_ui_health_parse(struct gw_ui_rhealth *out, const char *body, size_t len, struct gw_err *err)
{
	memset(out, 0, sizeof(*out));
	if (len > GW_UI_PROMRESP_SIZE_MAX)
		return gw_err_set(err, GW_ERANGE, "JSON text of %zu bytes is over the limit of %u", len,
				  GW_UI_PROMRESP_SIZE_MAX);
	int rc = check_depth(body, len, err);
	if (rc)
		return rc;
	json_error_t je;
	json_t *doc =
	    json_loadb(body, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return json_fail(&je, len, err);
	const json_t *gpus = json_object_get(doc, "gpus");
	if (!json_is_array(gpus)) {
		rc = gw_err_set(err, GW_EPARSE, "not a health answer (no \"gpus\" array)");
	} else if (!(out->gpus =
			 calloc(json_array_size(gpus) ? json_array_size(gpus) : 1, sizeof(*out->gpus)))) {
		rc = gw_err_set(err, GW_ENOMEM, "out of memory for %zu GPUs", json_array_size(gpus));
	} else {
		for (size_t g = 0; g < json_array_size(gpus) && rc == 0; g++)
			if ((rc = health_gpu(&out->gpus[g], json_array_get(gpus, g), g, err)) == 0)
				out->n++;
	}
	json_decref(doc);
	if (rc)
		gw_ui_rhealth_release(out);
	return rc;
}

void gw_ui_rhealth_release(struct gw_ui_rhealth *h)
{
	free(h->gpus);
	memset(h, 0, sizeof(*h));
}
