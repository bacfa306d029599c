/*
 * tmpl.c - the template API: parse into a tree owned by the template,
 * execute, and what Prometheus' alerting rule does with a label or an
 * annotation (the variable definitions prefixed, "__alert_" + name, the
 * "<error expanding template: ...>" substitute).
 */
#include "rules/tmpl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The definitions Prometheus prefixes to every alert template; one line,
 * so line numbers in errors stay those of the text. */
static const char alert_defs[] = "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}"
				 "{{$externalURL := .ExternalURL}}{{$value := .Value}}";

/* Templates are short; the cap only stops a pathological one. */
#define TMPL_ARENA_LIMIT ((size_t)64 << 20)

int gw_tmpl_parse(const char *name, const char *text, struct gw_tmpl **out, struct gw_err *err)
{
	*out = NULL;
	struct gw_tmpl *t = calloc(1, sizeof(*t));
	if (!t)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	gw_arena_init(&t->arena, TMPL_ARENA_LIMIT);
	t->name = gw_arena_strdup(&t->arena, name);
	t->text = gw_arena_strdup(&t->arena, text);
	if (!t->name || !t->text) {
		gw_tmpl_free(t);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	int rc = gw_tmpl__parse_tree(t, err);
	if (rc) {
		gw_tmpl_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void gw_tmpl_free(struct gw_tmpl *t)
{
	if (!t)
		return;
	gw_arena_release(&t->arena);
	free(t);
}

static int parse_alert(const char *alert, const char *text, struct gw_tmpl **out, struct gw_err *err)
{
	size_t an = strlen(alert), tn = strlen(text);
	char *name = malloc(an + 9);
	char *full = malloc(sizeof(alert_defs) + tn);
	int rc;
	if (!name || !full) {
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	} else {
		memcpy(name, "__alert_", 8);
		memcpy(name + 8, alert, an + 1);
		memcpy(full, alert_defs, sizeof(alert_defs) - 1);
		memcpy(full + sizeof(alert_defs) - 1, text, tn + 1);
		rc = gw_tmpl_parse(name, full, out, err);
	}
	free(name);
	free(full);
	return rc;
}

int gw_tmpl_expand_alert(const char *alert, const char *text, const struct gw_tmpl_data *d,
			 struct gw_buf *out, struct gw_err *err)
{
	struct gw_tmpl *t;
	struct gw_err e = {0};
	struct gw_buf full; /* the message whole: Prometheus substitutes it uncut */
	gw_buf_init(&full, (size_t)1 << 20);
	int rc = parse_alert(alert, text, &t, &e);
	const char *what = "error parsing template";
	if (rc == 0) {
		rc = gw_tmpl__exec(t, d, out, &e, &full);
		what = "error executing template";
		gw_tmpl_free(t);
	}
	if (rc != 0 && rc != GW_ENOMEM && rc != GW_EOVERFLOW) {
		const char *msg = full.len ? full.data : e.msg;
		gw_buf_printf(out, "<error expanding template: %s __alert_%s: %s>", what, alert, msg);
		rc = gw_err_set(err, rc, "%s __alert_%s: %s", what, alert, msg);
	} else if (rc != 0) {
		rc = gw_err_set(err, rc, "%s", e.msg);
	}
	gw_buf_release(&full);
	return rc;
}

int gw_tmpl_check(const char *alert, const char *text, struct gw_err *err)
{
	struct gw_tmpl *t;
	int rc = parse_alert(alert, text, &t, err);
	gw_tmpl_free(rc ? NULL : t);
	return rc;
}
