/*
 * rulefile.c - Prometheus rule files read as 2.42's rulefmt reads them:
 * strict YAML decoding first (unknown keys and wrong types are "yaml:
 * unmarshal errors", reported together, and stop the file), then the
 * semantic checks of RuleGroups.Validate, every error with the line and
 * column of the YAML node it concerns, in Prometheus' own wording.
 */
#include "rules/rulefile.h"

#include "core/buf.h"
#include "rules/rulefile_int.h"
#include "rules/tmpl.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define FILE_MAX (64u << 20) /* a rule file larger than this is a mistake */

int gw_rf_read(const char *path, char **out, size_t *len, struct gw_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gw_err_set(err, errno == ENOENT ? GW_ENOTFOUND : GW_EIO, "open %s: %s", path, strerror(errno));
	struct gw_buf b;
	gw_buf_init(&b, FILE_MAX);
	char chunk[65536];
	size_t n;
	int rc = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if ((rc = gw_buf_append(&b, chunk, n)) != 0)
			break;
	if (!rc && ferror(f))
		rc = gw_err_set(err, GW_EIO, "read %s: %s", path, strerror(errno));
	else if (rc)
		rc = gw_err_set(err, rc, "read %s: larger than %u MiB", path, FILE_MAX >> 20);
	fclose(f);
	if (rc) {
		gw_buf_release(&b);
		return rc;
	}
	*len = b.len;
	*out = b.len ? b.data : strdup("");
	if (!*out)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	return 0;
}

void gw_rf_report(struct gw_rf *c, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char line[2400];
	snprintf(line, sizeof(line), "%s%s%s", c->path ? c->path : "", c->path ? ": " : "", msg);
	c->nerrs++;
	if (c->each)
		c->each(c->ctx, line);
	if (c->err) {
		size_t used = c->nerrs > 1 ? strlen(c->err->msg) : 0;
		if (c->nerrs == 1)
			c->err->code = GW_EPARSE;
		size_t n = strlen(line);
		if (used + n + 2 < sizeof(c->err->msg)) {
			if (used)
				c->err->msg[used++] = '\n';
			memcpy(c->err->msg + used, line, n + 1);
		}
	}
}

/* What a rule is called in messages: the alert's name, else the record's. */
static const char *rule_name(const struct gw_rf_rule *r)
{
	return r->alert && *r->alert ? r->alert : r->record ? r->record : "";
}

static void rule_err(struct gw_rf *c, const struct gw_rf_group *g, size_t i, const struct gw_rf_rule *r,
		     const struct gw_rf_pos *a, const struct gw_rf_pos *b, const char *fmt, ...)
{
	char what[1600], where[64] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (a && b)
		snprintf(where, sizeof(where), "%d:%d: %d:%d: ", a->line, a->col, b->line, b->col);
	else if (a)
		snprintf(where, sizeof(where), "%d:%d: ", a->line, a->col);
	gw_rf_report(c, "%sgroup \"%s\", rule %zu, \"%s\": %s", where, g->name, i + 1, rule_name(r), what);
}

/* Prometheus' model.LabelName.IsValid: [a-zA-Z_][a-zA-Z0-9_]*. */
static bool label_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		char ch = *p;
		bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
		if (!alpha && !(p > s && ch >= '0' && ch <= '9'))
			return false;
	}
	return true;
}

/* model.IsValidMetricName: [a-zA-Z_:][a-zA-Z0-9_:]*. */
static bool metric_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		char ch = *p;
		bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == ':';
		if (!alpha && !(p > s && ch >= '0' && ch <= '9'))
			return false;
	}
	return true;
}

static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		if (n < 0 || (n == 1 && *p < 0xC2))
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

static void check_rule(struct gw_rf *c, const struct gw_rf_group *g, size_t i, struct gw_rf_rule *r)
{
	bool rec = r->record && *r->record, alert = r->alert && *r->alert;
	if (rec && alert)
		rule_err(c, g, i, r, &r->record_pos, &r->alert_pos, "only one of 'record' and 'alert' must be set");
	if (!rec && !alert) {
		struct gw_rf_pos zero = {0, 0};
		rule_err(c, g, i, r, r->record ? &r->record_pos : &zero, NULL, "one of 'record' or 'alert' must be set");
	}
	if (!r->expr || !*r->expr) {
		struct gw_rf_pos zero = {0, 0};
		rule_err(c, g, i, r, r->expr ? &r->expr_pos : &zero, NULL, "field 'expr' must be set in rule");
	} else {
		struct gw_err perr = {0};
		if (gw_promql_parse(r->expr, &r->ast, &perr) != 0)
			rule_err(c, g, i, r, &r->expr_pos, NULL, "could not parse expression: %s", perr.msg);
	}
	if (rec) {
		if (r->nannotations)
			rule_err(c, g, i, r, &r->record_pos, NULL, "invalid field 'annotations' in recording rule");
		if (r->has_for)
			rule_err(c, g, i, r, &r->record_pos, NULL, "invalid field 'for' in recording rule");
		if (r->has_keep)
			rule_err(c, g, i, r, &r->record_pos, NULL, "invalid field 'keep_firing_for' in recording rule");
		if (!metric_name_ok(r->record))
			rule_err(c, g, i, r, &r->record_pos, NULL, "invalid recording rule name: %s", r->record);
	}
	for (size_t k = 0; k < r->nlabels; k++) {
		const struct gw_rule_kv *kv = &r->labels[k];
		if (!label_name_ok(kv->name) || strcmp(kv->name, "__name__") == 0)
			rule_err(c, g, i, r, NULL, NULL, "invalid label name: %s", kv->name);
		if (!utf8_ok(kv->value))
			rule_err(c, g, i, r, NULL, NULL, "invalid label value: %s", kv->value);
	}
	for (size_t k = 0; k < r->nannotations; k++)
		if (!label_name_ok(r->annotations[k].name))
			rule_err(c, g, i, r, NULL, NULL, "invalid annotation name: %s", r->annotations[k].name);
	if (!alert || rec)
		return;
	/* Templates are parsed as the alerting rule will expand them. */
	for (int pass = 0; pass < 2; pass++) {
		const struct gw_rule_kv *kvs = pass ? r->annotations : r->labels;
		size_t n = pass ? r->nannotations : r->nlabels;
		for (size_t k = 0; k < n; k++) {
			struct gw_err terr = {0};
			if (gw_tmpl_check(r->alert, kvs[k].value, &terr) != 0)
				rule_err(c, g, i, r, NULL, NULL, "%s \"%s\": %s", pass ? "annotation" : "label", kvs[k].name,
					 terr.msg);
		}
	}
}

static void check_groups(struct gw_rf *c)
{
	for (size_t gi = 0; gi < c->ngroups; gi++) {
		struct gw_rf_group *g = &c->groups[gi];
		if (!g->name || !*g->name)
			gw_rf_report(c, "%d:%d: Groupname must not be empty", g->pos.line, g->pos.col);
		for (size_t j = 0; j < gi; j++)
			if (strcmp(c->groups[j].name ? c->groups[j].name : "", g->name ? g->name : "") == 0) {
				gw_rf_report(c, "%d:%d: groupname: \"%s\" is repeated in the same file", g->pos.line,
					     g->pos.col, g->name ? g->name : "");
				break;
			}
		for (size_t i = 0; i < g->nrules; i++)
			check_rule(c, g, i, &g->rules[i]);
	}
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* Move the checked file into set's public form; the parse trees move with it. */
static int adopt(struct gw_ruleset *set, struct gw_rf *c)
{
	char *file = strdup(c->path);
	struct gw_rule_group *gs = realloc(set->groups, (set->ngroups + c->ngroups + 1) * sizeof(*gs));
	char **fs = gs ? realloc(set->files, (set->nfiles + 1) * sizeof(*fs)) : NULL;
	if (gs)
		set->groups = gs;
	if (fs)
		set->files = fs;
	if (!file || !gs || !fs) {
		free(file);
		return GW_ENOMEM;
	}
	set->files[set->nfiles++] = file;
	for (size_t gi = 0; gi < c->ngroups; gi++) {
		struct gw_rf_group *src = &c->groups[gi];
		struct gw_rule_group *g = &set->groups[set->ngroups++];
		memset(g, 0, sizeof(*g));
		g->name = dup_or_empty(src->name);
		g->file = strdup(c->path);
		g->interval_ms = src->interval_ms;
		g->limit = src->limit;
		g->line = src->pos.line;
		g->rules = calloc(src->nrules ? src->nrules : 1, sizeof(*g->rules));
		if (!g->name || !g->file || !g->rules)
			return GW_ENOMEM;
		for (size_t i = 0; i < src->nrules; i++) {
			struct gw_rf_rule *s = &src->rules[i];
			struct gw_rule *r = &g->rules[g->nrules++];
			bool alert = s->alert && *s->alert;
			r->kind = alert ? GW_RULE_ALERT : GW_RULE_RECORD;
			r->name = dup_or_empty(alert ? s->alert : s->record);
			r->expr = dup_or_empty(s->expr);
			r->ast = s->ast;
			s->ast = NULL;
			r->for_ms = s->for_ms;
			r->keep_firing_for_ms = s->keep_ms;
			r->labels = s->labels;
			r->nlabels = s->nlabels;
			r->annotations = s->annotations;
			r->nannotations = s->nannotations;
			s->labels = s->annotations = NULL;
			s->nlabels = s->nannotations = 0;
			r->line = s->pos.line;
			if (!r->name || !r->expr)
				return GW_ENOMEM;
		}
	}
	return 0;
}

int gw_rules_load_file_each(struct gw_ruleset *set, const char *path, gw_rules_errfn each, void *ctx,
			    struct gw_err *err)
{
	char *text;
	size_t len;
	int rc = gw_rf_read(path, &text, &len, err);
	if (rc)
		return rc;
	rc = gw_rules_load_text(set, path, text, len, each, ctx, err);
	free(text);
	return rc;
}

int gw_rules_load_text(struct gw_ruleset *set, const char *path, const char *text, size_t len, gw_rules_errfn each,
		       void *ctx, struct gw_err *err)
{
	if (err)
		err->msg[0] = '\0';
	struct gw_rf c = {.path = path, .each = each, .ctx = ctx, .err = err};
	int rc = gw_rf_decode(&c, text, len);
	if (rc == 0 && c.nerrs == 0)
		check_groups(&c);
	if (rc == 0 && c.nerrs)
		rc = GW_EPARSE;
	if (rc == 0)
		rc = adopt(set, &c);
	if (rc == GW_ENOMEM)
		gw_err_set(err, GW_ENOMEM, "out of memory");
	gw_rf_release(&c);
	return rc;
}

int gw_rules_load_file(struct gw_ruleset *set, const char *path, struct gw_err *err)
{
	return gw_rules_load_file_each(set, path, NULL, NULL, err);
}

int gw_rules_load(struct gw_ruleset *set, const char *const *patterns, size_t n, struct gw_err *err)
{
	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < n; i++) {
		glob_t gl;
		int g = glob(patterns[i], 0, NULL, &gl);
		if (g == GLOB_NOMATCH) {
			/* Prometheus ignores a pattern that matches nothing; a plain path that does not
			 * exist is far more likely a typo than an intent, so it is an error here. */
			if (!strpbrk(patterns[i], "*?[")) {
				gw_ruleset_release(set);
				return gw_err_set(err, GW_ENOTFOUND, "rule file %s: %s", patterns[i], strerror(ENOENT));
			}
			continue;
		}
		if (g != 0) {
			gw_ruleset_release(set);
			return gw_err_set(err, GW_EIO, "rule files %s: cannot expand the pattern", patterns[i]);
		}
		int rc = 0;
		for (size_t k = 0; k < gl.gl_pathc && rc == 0; k++)
			rc = gw_rules_load_file(set, gl.gl_pathv[k], err);
		globfree(&gl);
		if (rc) {
			gw_ruleset_release(set);
			return rc;
		}
	}
	return 0;
}

size_t gw_ruleset_count(const struct gw_ruleset *set)
{
	size_t n = 0;
	for (size_t i = 0; i < set->ngroups; i++)
		n += set->groups[i].nrules;
	return n;
}

static void free_kvs(struct gw_rule_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].name);
		free(kv[i].value);
	}
	free(kv);
}

void gw_rule_kvs_free(struct gw_rule_kv *kv, size_t n)
{
	free_kvs(kv, n);
}

void gw_ruleset_release(struct gw_ruleset *set)
{
	for (size_t i = 0; i < set->ngroups; i++) {
		struct gw_rule_group *g = &set->groups[i];
		for (size_t k = 0; k < g->nrules; k++) {
			struct gw_rule *r = &g->rules[k];
			free(r->name);
			free(r->expr);
			gw_promql_free(r->ast);
			free_kvs(r->labels, r->nlabels);
			free_kvs(r->annotations, r->nannotations);
		}
		free(g->rules);
		free(g->name);
		free(g->file);
	}
	free(set->groups);
	for (size_t i = 0; i < set->nfiles; i++)
		free(set->files[i]);
	free(set->files);
	memset(set, 0, sizeof(*set));
}

static int kv_cmp(const struct gw_rule_kv *a, size_t na, const struct gw_rule_kv *b, size_t nb)
{
	if (na != nb)
		return 1;
	for (size_t i = 0; i < na; i++) {
		bool found = false;
		for (size_t j = 0; j < nb && !found; j++)
			found = strcmp(a[i].name, b[j].name) == 0 && strcmp(a[i].value, b[j].value) == 0;
		if (!found)
			return 1;
	}
	return 0;
}

size_t gw_ruleset_duplicates(const struct gw_ruleset *set, gw_rules_errfn each, void *ctx)
{
	size_t dups = 0;
	for (size_t gi = 0; gi < set->ngroups; gi++)
		for (size_t i = 0; i < set->groups[gi].nrules; i++) {
			const struct gw_rule *r = &set->groups[gi].rules[i];
			if (r->kind != GW_RULE_RECORD)
				continue;
			bool seen = false;
			for (size_t gj = 0; gj <= gi && !seen; gj++)
				for (size_t j = 0; j < (gj == gi ? i : set->groups[gj].nrules) && !seen; j++) {
					const struct gw_rule *o = &set->groups[gj].rules[j];
					seen = o->kind == GW_RULE_RECORD && strcmp(o->name, r->name) == 0 &&
					       kv_cmp(o->labels, o->nlabels, r->labels, r->nlabels) == 0;
				}
			if (!seen)
				continue;
			dups++;
			if (each) {
				struct gw_buf b;
				gw_buf_init(&b, 1 << 16);
				gw_buf_printf(&b, "Metric: %s\nLabel(s):", r->name);
				for (size_t k = 0; k < r->nlabels; k++)
					gw_buf_printf(&b, "\n\t%s: %s", r->labels[k].name, r->labels[k].value);
				each(ctx, b.data ? b.data : "");
				gw_buf_release(&b);
			}
		}
	return dups;
}
