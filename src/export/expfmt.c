#include "export/expfmt.h"

#include "model/number.h"

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
	case GW_METRIC_SUMMARY:
		return "summary";
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

/* Numbers are most of an exposition's bytes: see model/number.h. */
int gw_expfmt_number(struct gw_buf *b, double v)
{
	char tmp[GW_NUM_G_MAX];
	return gw_buf_append(b, tmp, gw_num_format_g(tmp, v));
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

void gw_expfmt_sample_suffix(struct gw_expfmt *w, const char *suffix, const struct gw_label *labels, size_t nlabels,
			     double value)
{
	if (!w->family) {
		if (w->err == 0)
			w->err = GW_EINVAL;
		return;
	}
	puts_(w, w->family);
	puts_(w, suffix);
	put_labels(w, labels, nlabels);
	puts_(w, " ");
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
