/*
 * tmpl.h - the template language of Prometheus' alert labels and
 * annotations: Go's text/template (actions, pipelines, variables, if /
 * range / with / else / end, define-free) with the functions Prometheus
 * 2.42 adds (humanize, humanize1024, humanizeDuration, humanizePercentage,
 * humanizeTimestamp, printf, toUpper, toLower, title, reReplaceAll, match,
 * query, first, label, value, sortByLabel, args, safeHtml, stripPort,
 * graphLink, tableLink, pathPrefix, externalURL, parseDuration,
 * strvalue, ...) and Go's builtins (and, or, not, len, index, eq, ne, lt,
 * le, gt, ge, print, printf, println, html, js, urlquery).
 *
 * Values print as Go prints them ({{ $value }} of 87.5 is "87.5", of 1e21
 * "1e+21"; {{ $labels }} is "map[a:b c:d]"), and errors read as Go's
 * ("template: NAME:1:12: executing \"NAME\" at <humanize \"x\">: error
 * calling humanize: ..."), so an annotation renders byte for byte as
 * Prometheus renders it.
 *
 * Ownership: gw_tmpl_parse() returns a heap template freed with
 * gw_tmpl_free(); the data passed to exec is borrowed. Threading: a parsed
 * template is read-only and may be executed from several threads at once.
 */
#ifndef GW_RULES_TMPL_H
#define GW_RULES_TMPL_H

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "model/labels.h"
#include "promql/engine.h"

#include <stdint.h>

struct gw_tmpl;

/*
 * The `query` function: evaluate expr at the time of the expansion and
 * return its result as a vector (a scalar as one sample without labels),
 * allocated from arena.
 */
typedef int (*gw_tmpl_query_fn)(void *ctx, const char *expr, struct gw_arena *arena, struct gw_vector *out,
				struct gw_err *err);

/* What a rule's template sees (Prometheus' template data and expander options). */
struct gw_tmpl_data {
	struct gw_labels labels;   /* .Labels, $labels */
	double value;              /* .Value, $value */
	struct gw_labels external; /* .ExternalLabels, $externalLabels */
	const char *external_url;  /* .ExternalURL, $externalURL, externalURL, pathPrefix */
	int64_t t_ms;              /* the evaluation's time, for query */
	gw_tmpl_query_fn query;    /* NULL: query fails with "query not available" */
	void *query_ctx;
};

/* Parse text; name appears in error messages as Go's template name. */
int gw_tmpl_parse(const char *name, const char *text, struct gw_tmpl **out, struct gw_err *err);
void gw_tmpl_free(struct gw_tmpl *t);

/* Execute a parsed template, appending its output to out. */
int gw_tmpl_exec(const struct gw_tmpl *t, const struct gw_tmpl_data *d, struct gw_buf *out, struct gw_err *err);

/*
 * What Prometheus' alerting rule does with a label or annotation: prefix
 * the variable definitions ({{$labels := .Labels}}{{$externalLabels :=
 * .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}),
 * parse as "__alert_" + alert, execute. On failure out holds
 * "<error expanding template: MESSAGE>" (as Prometheus substitutes) and
 * the error is returned too, for the log.
 */
int gw_tmpl_expand_alert(const char *alert, const char *text, const struct gw_tmpl_data *d, struct gw_buf *out,
			 struct gw_err *err);

/* Check that text parses with the definitions prefixed, as `promtool check rules` does. */
int gw_tmpl_check(const char *alert, const char *text, struct gw_err *err);

#endif
