/*
 * expfmt.h - Prometheus text exposition (0.0.4) and OpenMetrics 1.0 writers.
 *
 * A writer appends metric families to a capped gw_buf: gw_expfmt_family()
 * opens a family (HELP and TYPE lines), gw_expfmt_sample() adds one series
 * line. The caller keeps a family's lines contiguous, as both formats demand.
 * Escaping follows the formats: HELP escapes backslash and newline; label
 * values escape backslash, double quote and newline; NaN and infinities are
 * spelled NaN, +Inf and -Inf. OpenMetrics names counter samples name_total
 * (the family has no suffix) and the document ends with gw_expfmt_finish()'s
 * "# EOF". Exporters do not set timestamps, so none are written.
 *
 * Ownership: the writer borrows the buffer. Threading: none.
 */
#ifndef GW_EXPORT_EXPFMT_H
#define GW_EXPORT_EXPFMT_H

#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_EXPFMT_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define GW_EXPFMT_CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

enum gw_expfmt_kind { GW_EXPFMT_TEXT, GW_EXPFMT_OPENMETRICS };

enum gw_metric_type { GW_METRIC_GAUGE, GW_METRIC_COUNTER, GW_METRIC_INFO, GW_METRIC_UNTYPED, GW_METRIC_SUMMARY };

struct gw_label {
	const char *name;
	const char *value;
};

struct gw_expfmt {
	struct gw_buf *out;
	enum gw_expfmt_kind kind;
	enum gw_metric_type type; /* of the open family */
	const char *family;       /* name of the open family, borrowed */
	int err;                  /* first error (sticky), 0 if none */
};

void gw_expfmt_init(struct gw_expfmt *w, struct gw_buf *out, enum gw_expfmt_kind kind);

/*
 * Open a family. For counters pass the name with its _total suffix (the text
 * format's convention); OpenMetrics writes the family without it.
 */
void gw_expfmt_family(struct gw_expfmt *w, const char *name, const char *help, enum gw_metric_type type);

/* One sample of the open family; integral values print without a fraction. */
void gw_expfmt_sample(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels, double value);

/* One sample of the open family named with a suffix: a summary's "_sum" and "_count". */
void gw_expfmt_sample_suffix(struct gw_expfmt *w, const char *suffix, const struct gw_label *labels, size_t nlabels,
			     double value);

/* One sample whose value is already text (dcgm-exporter spells doubles "%f"). */
void gw_expfmt_sample_text(struct gw_expfmt *w, const struct gw_label *labels, size_t nlabels, const char *value);

/*
 * Labels many samples share (a GPU's), escaped and written once as
 * {name="value",...} into out ("" for none); then each sample of them with
 * gw_expfmt_sample_pre(), byte for byte what gw_expfmt_sample() writes.
 */
int gw_expfmt_labels(struct gw_buf *out, const struct gw_label *labels, size_t nlabels);
void gw_expfmt_sample_pre(struct gw_expfmt *w, const char *labels, size_t len, double value);
void gw_expfmt_sample_pre_text(struct gw_expfmt *w, const char *labels, size_t len, const char *value);

/* Close the document; returns the first error of the whole write, or 0. */
int gw_expfmt_finish(struct gw_expfmt *w);

/* Choose the format from an Accept header (NULL = text). */
enum gw_expfmt_kind gw_expfmt_negotiate(const char *accept);

/* Append v the way the formats spell numbers ("NaN", "+Inf", "1", "0.5"). */
int gw_expfmt_number(struct gw_buf *b, double v);

#endif
