/*
 * promtext.c - a Prometheus text exposition (what an agent's or
 * dcgm-exporter's /metrics serves) read into the same series an instant
 * query's answer gives, so the snapshot builder takes either.
 *
 * Each sample line becomes one series: its labels an object of jansson
 * strings (the name under "__name__", as the API writes it), held by one
 * array, the answer's doc, which release frees. Comment lines (# HELP,
 * # TYPE, # EOF) are skipped. Values are read by gw_ui_promresp_value, so
 * a decimal comma locale changes nothing here either.
 */
#include "ui/promresp.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define LINE_LABELS_MAX 64 /* far over any exporter's; a line with more is refused */

struct cursor {
	const char *p, *end;
	size_t line;
	char why[96];
};

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* A name at the cursor; its length, 0 when there is none. */
static size_t name_len(const struct cursor *c)
{
	size_t n = 0;
	while (c->p + n < c->end && name_char(c->p[n], n == 0))
		n++;
	return n;
}

/* A quoted label value (the opening quote already taken) into buf, unescaped; false when bad. */
static bool label_value(struct cursor *c, char *buf, size_t cap)
{
	size_t w = 0;
	while (c->p < c->end && *c->p != '"' && *c->p != '\n') {
		char ch = *c->p++;
		if (ch == '\\') {
			if (c->p >= c->end || *c->p == '\n') {
				snprintf(c->why, sizeof(c->why), "a label value ends in a backslash");
				return false;
			}
			ch = *c->p++;
			if (ch == 'n')
				ch = '\n';
			else if (ch != '\\' && ch != '"') {
				snprintf(c->why, sizeof(c->why), "unknown escape \\%c in a label value", ch);
				return false;
			}
		}
		if (w + 1 >= cap) {
			snprintf(c->why, sizeof(c->why), "a label value over %zu bytes", cap - 1);
			return false;
		}
		buf[w++] = ch;
	}
	if (c->p >= c->end || *c->p != '"') {
		snprintf(c->why, sizeof(c->why), "unterminated label value");
		return false;
	}
	c->p++;
	buf[w] = '\0';
	return true;
}

/* Set labels[name] = value; false (why filled) when the name is there already or the value is no UTF-8. */
static bool put_label(struct cursor *c, json_t *labels, const char *name, size_t nlen, const char *value)
{
	char key[128];
	if (nlen >= sizeof(key)) {
		snprintf(c->why, sizeof(c->why), "a label name over %zu bytes", sizeof(key) - 1);
		return false;
	}
	memcpy(key, name, nlen);
	key[nlen] = '\0';
	if (json_object_get(labels, key)) {
		snprintf(c->why, sizeof(c->why), "label %.40s given twice", key);
		return false;
	}
	json_t *v = json_string(value);
	if (!v || json_object_set_new(labels, key, v) != 0) {
		snprintf(c->why, sizeof(c->why), "label %.40s is not UTF-8", key);
		return false;
	}
	return true;
}

/* The {...} after a metric name (the brace already taken). */
static bool label_set(struct cursor *c, json_t *labels)
{
	char value[4096];
	for (unsigned int n = 0;; n++) {
		skip_blanks(c);
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			return true;
		}
		size_t nlen = name_len(c);
		if (nlen == 0 || n == LINE_LABELS_MAX) {
			snprintf(c->why, sizeof(c->why), nlen ? "more than %d labels" : "expected a label name or }",
				 LINE_LABELS_MAX);
			return false;
		}
		const char *name = c->p;
		c->p += nlen;
		skip_blanks(c);
		bool eq = c->p < c->end && *c->p == '=';
		if (eq) {
			c->p++;
			skip_blanks(c);
		}
		if (!eq || c->p >= c->end || *c->p != '"') {
			snprintf(c->why, sizeof(c->why), "expected =\"value\" after a label name");
			return false;
		}
		c->p++;
		if (!label_value(c, value, sizeof(value)) || !put_label(c, labels, name, nlen, value))
			return false;
		skip_blanks(c);
		if (c->p < c->end && *c->p == ',')
			c->p++;
		else if (c->p >= c->end || *c->p != '}') {
			snprintf(c->why, sizeof(c->why), "expected , or } after a label");
			return false;
		}
	}
}

/* The next blank-separated token on the line; its length. */
static size_t token(struct cursor *c, const char **tok)
{
	skip_blanks(c);
	*tok = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\n' && *c->p != '\r')
		c->p++;
	return (size_t)(c->p - *tok);
}

/* The metric name at the start of a sample line into name; false (why filled) when there is none. */
static bool metric_name(struct cursor *c, char *name, size_t cap)
{
	size_t nlen = name_len(c);
	if (nlen == 0) {
		snprintf(c->why, sizeof(c->why), "expected a metric name");
		return false;
	}
	if (nlen >= cap) {
		snprintf(c->why, sizeof(c->why), "a metric name over %zu bytes", cap - 1);
		return false;
	}
	memcpy(name, c->p, nlen);
	name[nlen] = '\0';
	c->p += nlen;
	return true;
}

/* The rest of a sample line (after its name) into labels and *pt; t_ms is the point's time unless the line has its own. */
static bool sample(struct cursor *c, const char *name, json_t *labels, struct gw_ui_point *pt, int64_t t_ms)
{
	if (!put_label(c, labels, "__name__", 8, name))
		return false;
	if (c->p < c->end && *c->p == '{') {
		c->p++;
		if (!label_set(c, labels))
			return false;
	}
	const char *tok;
	size_t n = token(c, &tok);
	if (n == 0 || gw_ui_promresp_value(tok, n, &pt->v) != 0) {
		snprintf(c->why, sizeof(c->why), n ? "\"%.*s\" is not a number" : "no value", (int)(n > 40 ? 40 : n), tok);
		return false;
	}
	pt->t_ms = t_ms;
	n = token(c, &tok);
	if (n) { /* its own time stamp, ms */
		char *e;
		char ts[24];
		snprintf(ts, sizeof(ts), "%.*s", (int)(n < sizeof(ts) ? n : sizeof(ts) - 1), tok);
		long long t = strtoll(ts, &e, 10);
		if (n >= sizeof(ts) || *e) {
			snprintf(c->why, sizeof(c->why), "\"%.*s\" is not a time stamp", (int)(n > 30 ? 30 : n), tok);
			return false;
		}
		pt->t_ms = t;
	}
	skip_blanks(c);
	if (c->p < c->end && *c->p == '\r')
		c->p++;
	if (c->p < c->end && *c->p != '\n') {
		snprintf(c->why, sizeof(c->why), "unexpected text after the value");
		return false;
	}
	return true;
}

/* Sample lines in the text, to size the arrays once. */
static size_t count_lines(const char *s, size_t len)
{
	size_t n = 1;
	for (const char *p = s; (p = memchr(p, '\n', len - (size_t)(p - s))) != NULL; p++)
		n++;
	return n;
}

int gw_ui_promresp_parse_text(struct gw_ui_promresp *r, const char *body, size_t len, int64_t t_ms,
			      bool (*keep)(const char *name), struct gw_err *err)
{
	memset(r, 0, sizeof(*r));
	if (len > GW_UI_PROMRESP_SIZE_MAX)
		return gw_err_set(err, GW_ERANGE, "exposition of %zu bytes is over the limit of %u", len,
				  GW_UI_PROMRESP_SIZE_MAX);
	size_t lines = count_lines(body, len);
	r->doc = json_array();
	r->series = calloc(lines, sizeof(*r->series));
	r->pts = calloc(lines, sizeof(*r->pts));
	if (!r->doc || !r->series || !r->pts) {
		gw_ui_promresp_release(r);
		return gw_err_set(err, GW_ENOMEM, "out of memory for %zu lines", lines);
	}
	struct cursor c = {.p = body, .end = body + len, .line = 1};
	int rc = 0;
	for (; c.p < c.end && rc == 0; c.line++) {
		const char *eol = memchr(c.p, '\n', (size_t)(c.end - c.p));
		skip_blanks(&c);
		char name[256];
		bool ok = true;
		if (c.p < c.end && *c.p != '#' && *c.p != '\n' && *c.p != '\r') {
			/* a family not asked for is not read past its name (but a last line without its newline is) */
			ok = metric_name(&c, name, sizeof(name));
			if (ok && keep && eol && !keep(name)) {
				c.p = eol + 1;
				continue;
			}
			json_t *labels = ok ? json_object() : NULL;
			if (ok && (!labels || json_array_append_new(r->doc, labels) != 0)) {
				rc = gw_err_set(err, GW_ENOMEM, "out of memory at line %zu", c.line);
				break;
			}
			if (!ok || !sample(&c, name, labels, &r->pts[r->npts], t_ms)) {
				/* every line ends in a newline: a bad last line without one was cut off */
				rc = eol ? gw_err_set(err, GW_EPARSE, "line %zu: %s", c.line, c.why)
					 : gw_err_set(err, GW_EPARSE, "text ends early at byte %zu (truncated?): line %zu: %s",
						      len, c.line, c.why);
				break;
			}
			struct gw_ui_series *s = &r->series[r->nseries++];
			s->labels = labels;
			s->pts = &r->pts[r->npts++];
			s->npts = 1;
		}
		c.p = eol ? eol + 1 : c.end;
	}
	if (rc)
		gw_ui_promresp_release(r);
	return rc;
}
