#include "export/expfmt.h"

#include "core/err.h"

#include <math.h>
#include <stdio.h>
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

int gw_expfmt_number(struct gw_buf *b, double v)
{
	char tmp[64];
	int len;
	if (isnan(v))
		len = snprintf(tmp, sizeof(tmp), "NaN");
	else if (isinf(v))
		len = snprintf(tmp, sizeof(tmp), v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		len = snprintf(tmp, sizeof(tmp), "%.0f", v);
	else
		len = snprintf(tmp, sizeof(tmp), "%.17g", v);
	/* %.17g round-trips; shorten when a shorter form reads back the same. */
	if (!isnan(v) && !isinf(v) && v != floor(v)) {
		for (int prec = 6; prec < 17; prec++) {
			char t2[64];
			int l2 = snprintf(t2, sizeof(t2), "%.*g", prec, v);
			double back;
			if (sscanf(t2, "%lf", &back) == 1 && back == v) {
				memcpy(tmp, t2, (size_t)l2 + 1);
				len = l2;
				break;
			}
		}
	}
	return gw_buf_append(b, tmp, (size_t)len);
}

static void sample_head(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels)
{
	puts_(w, w->family);
	if (nlabels) {
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
	puts_(w, " ");
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
