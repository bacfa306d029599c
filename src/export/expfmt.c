#include "export/expfmt.h"

#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gw_expfmt_init(struct gw_expfmt *w, struct gw_buf *out, enum gw_expfmt_kind kind)
{
	w->out = out;
	w->kind = kind;
	w->type = GW_METRIC_UNTYPED;
	w->family = NULL;
	w->err = 0;
}

static void put(struct gw_expfmt *w, const char *s, size_t n)
{
	if (w->err == 0)
		w->err = gw_buf_append(w->out, s, n);
}

static void puts_(struct gw_expfmt *w, const char *s)
{
	put(w, s, strlen(s));
}

/* Escape backslash and newline, plus double quote when quoted is set. */
static void put_escaped(struct gw_expfmt *w, const char *s, bool quoted)
{
	const char *run = s;
	for (; *s; s++) {
		const char *rep = NULL;
		if (*s == '\\')
			rep = "\\\\";
		else if (*s == '\n')
			rep = "\\n";
		else if (*s == '"' && quoted)
			rep = "\\\"";
		if (rep) {
			put(w, run, (size_t)(s - run));
			puts_(w, rep);
			run = s + 1;
		}
	}
	put(w, run, (size_t)(s - run));
}

static const char *type_name(enum gw_metric_type t)
{
	switch (t) {
	case GW_METRIC_GAUGE:
		return "gauge";
	case GW_METRIC_COUNTER:
		return "counter";
	case GW_METRIC_INFO:
		return "info";
	default:
		return "untyped";
	}
}

/* Length of name without a trailing suffix, if present. */
static size_t strip_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);
	if (n > s && strcmp(name + n - s, suffix) == 0)
		return n - s;
	return n;
}

void gw_expfmt_family(struct gw_expfmt *w, const char *name, const char *help, enum gw_metric_type type)
{
	w->family = name;
	w->type = type;
	size_t n = strlen(name);
	const char *tname = type_name(type);
	if (w->kind == GW_EXPFMT_OPENMETRICS) {
		if (type == GW_METRIC_COUNTER)
			n = strip_suffix(name, "_total");
		else if (type == GW_METRIC_INFO)
			n = strip_suffix(name, "_info");
		if (type == GW_METRIC_UNTYPED)
			tname = "unknown";
	} else if (type == GW_METRIC_INFO) {
		tname = "gauge"; /* 0.0.4 has no info type: a gauge of 1 */
	}
	puts_(w, "# HELP ");
	put(w, name, n);
	puts_(w, " ");
	put_escaped(w, help ? help : "", false);
	puts_(w, "\n# TYPE ");
	put(w, name, n);
	puts_(w, " ");
	puts_(w, tname);
	puts_(w, "\n");
}

/* An integral v below 1e15 in magnitude, digit for digit as "%.0f" prints it ("-0" included). */
static size_t fmt_integral(char *out, double v)
{
	bool neg = signbit(v);
	uint64_t u = (uint64_t)(neg ? -v : v);
	char rev[24];
	size_t n = 0, w = 0;
	do {
		rev[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		out[w++] = '-';
	while (n)
		out[w++] = rev[--n];
	return w;
}

static bool round_trips(char *buf, size_t n, int prec, double v, int *len)
{
	*len = snprintf(buf, n, "%.*g", prec, v);
	return strtod(buf, NULL) == v;
}

/*
 * "%.Ng" for the smallest N from 6 to 17 that reads back as v (17 always
 * does). Most values take 6 or need 16-17 (a measured double), so after 6
 * the precision is bisected: the nearest (N+1)-digit decimal is at least as
 * close to v as the nearest N-digit one (which is among them), so once one
 * reads back every longer one does, as long as the doubles that read back
 * as v lie evenly around it. They do not around a power of two (the next
 * double below is half as far), so those take every N in turn.
 */
static int fmt_shortest(char *buf, size_t n, double v)
{
	int len, exp2;
	if (round_trips(buf, n, 6, v, &len))
		return len;
	if (fabs(frexp(v, &exp2)) == 0.5) {
		for (int prec = 7; prec < 17; prec++)
			if (round_trips(buf, n, prec, v, &len))
				return len;
		return snprintf(buf, n, "%.17g", v);
	}
	int lo = 7, hi = 17;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (round_trips(buf, n, mid, v, &len))
			hi = mid;
		else
			lo = mid + 1;
	}
	return snprintf(buf, n, "%.*g", hi, v);
}

/*
 * Numbers are most of an exposition's bytes and, formatted with printf, most
 * of its cost: integers (bytes, hertz, counts) are written digit by digit;
 * other values take printf's shortest "%.Ng" (N >= 6) that reads back
 * exactly, found in a few tries rather than up to twelve.
 */
int gw_expfmt_number(struct gw_buf *b, double v)
{
	char tmp[64];
	int len;
	if (isnan(v))
		len = snprintf(tmp, sizeof(tmp), "NaN");
	else if (isinf(v))
		len = snprintf(tmp, sizeof(tmp), v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		len = (int)fmt_integral(tmp, v);
	else if (v == floor(v))
		len = snprintf(tmp, sizeof(tmp), "%.17g", v);
	else
		len = fmt_shortest(tmp, sizeof(tmp), v);
	return gw_buf_append(b, tmp, (size_t)len);
}

static void put_labels(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels)
{
	if (!nlabels)
		return;
	puts_(w, "{");
	for (size_t i = 0; i < nlabels; i++) {
		if (i)
			puts_(w, ",");
		puts_(w, labels[i].name);
		puts_(w, "=\"");
		put_escaped(w, labels[i].value ? labels[i].value : "", true);
		puts_(w, "\"");
	}
	puts_(w, "}");
}

static void sample_head(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels)
{
	puts_(w, w->family);
	put_labels(w, labels, nlabels);
	puts_(w, " ");
}

int gw_expfmt_labels(struct gw_buf *out, const struct gw_label *labels, size_t nlabels)
{
	struct gw_expfmt w;
	gw_expfmt_init(&w, out, GW_EXPFMT_TEXT);
	put_labels(&w, labels, nlabels);
	return w.err;
}

/* The family name, labels written by gw_expfmt_labels(), and the separating space. */
static bool pre_head(struct gw_expfmt *w, const char *labels, size_t len)
{
	if (!w->family) {
		if (w->err == 0)
			w->err = GW_EINVAL;
		return false;
	}
	puts_(w, w->family);
	put(w, labels, len);
	put(w, " ", 1);
	return true;
}

void gw_expfmt_sample_pre(struct gw_expfmt *w, const char *labels, size_t len, double value)
{
	if (!pre_head(w, labels, len))
		return;
	if (w->err == 0)
		w->err = gw_expfmt_number(w->out, value);
	put(w, "\n", 1);
}

void gw_expfmt_sample_pre_text(struct gw_expfmt *w, const char *labels, size_t len, const char *value)
{
	if (!pre_head(w, labels, len))
		return;
	puts_(w, value);
	put(w, "\n", 1);
}

void gw_expfmt_sample(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels, double value)
{
	if (!w->family) {
		if (w->err == 0)
			w->err = GW_EINVAL;
		return;
	}
	sample_head(w, labels, nlabels);
	if (w->err == 0)
		w->err = gw_expfmt_number(w->out, value);
	puts_(w, "\n");
}

void gw_expfmt_sample_text(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels, const char *value)
{
	if (!w->family) {
		if (w->err == 0)
			w->err = GW_EINVAL;
		return;
	}
	sample_head(w, labels, nlabels);
	puts_(w, value);
	puts_(w, "\n");
}

int gw_expfmt_finish(struct gw_expfmt *w)
{
	if (w->kind == GW_EXPFMT_OPENMETRICS)
		puts_(w, "# EOF\n");
	return w->err;
}

enum gw_expfmt_kind gw_expfmt_negotiate(const char *accept)
{
	/* Prometheus asks for OpenMetrics first when it can take it. */
	if (accept && strstr(accept, "application/openmetrics-text"))
		return GW_EXPFMT_OPENMETRICS;
	return GW_EXPFMT_TEXT;
}
