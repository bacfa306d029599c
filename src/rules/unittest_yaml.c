/*
 * unittest_yaml.c - decoding a unit-test file as promtool does
 * (yaml.UnmarshalStrict into its unitTestFile): unknown keys and values of
 * the wrong kind are unmarshal errors naming promtool's types.
 */
#include "rules/unittest_int.h"
#include "rules/yamldec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The pairs of mapping m; key_of() reads them against it (so d->mapping is set again after a nested loop). */
#define FOR_PAIRS(p, m)                                                                                    \
	for (yaml_node_pair_t *p = (d->mapping = (yaml_node_t *)(m))->data.mapping.pairs.start;                \
	     d->mapping = (yaml_node_t *)(m), p < (m)->data.mapping.pairs.top; p++)

/* The key of a pair; "" for a key that is no scalar, or one repeated (already reported: only its first counts). */
static const char *key_of(struct gw_ydec *d, const yaml_node_pair_t *p)
{
	yaml_node_t *k = gw_yd_node(d, p->key);
	if (k->type != YAML_SCALAR_NODE)
		return "";
	const char *name = (const char *)k->data.scalar.value;
	yaml_node_t *m = d->mapping;
	for (yaml_node_pair_t *q = m ? m->data.mapping.pairs.start : NULL; q && q < p; q++) {
		yaml_node_t *k2 = gw_yd_node(d, q->key);
		if (k2->type == YAML_SCALAR_NODE && !strcmp((const char *)k2->data.scalar.value, name))
			return "";
	}
	return name;
}

/* A sequence's items; NULL (and a type error) for anything else, NULL with *n = 0 for null. */
static yaml_node_item_t *items(struct gw_ydec *d, const yaml_node_t *v, const char *type, size_t *n)
{
	*n = 0;
	if (gw_yd_null(v))
		return NULL;
	if (v->type != YAML_SEQUENCE_NODE) {
		gw_yd_type_err(d, v, type);
		return NULL;
	}
	*n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	return v->data.sequence.items.start;
}

static void *alloc_n(struct gw_ydec *d, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		d->nomem = true;
	return p;
}

static char **strings_of(struct gw_ydec *d, const yaml_node_t *v, size_t *n)
{
	size_t cnt;
	yaml_node_item_t *it = items(d, v, "[]string", &cnt);
	char **out = alloc_n(d, cnt, sizeof(*out));
	*n = 0;
	for (size_t i = 0; out && i < cnt; i++) {
		bool bad = false;
		char *s = gw_yd_str(d, gw_yd_node(d, it[i]), &bad);
		if (s)
			out[(*n)++] = s;
	}
	return out;
}

static void float_of(struct gw_ydec *d, const yaml_node_t *v, double *out)
{
	if (gw_yd_null(v))
		return;
	const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
	const char *tag = gw_yd_tag(v);
	if (v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		const char *body = (*s == '+' || *s == '-') ? s + 1 : s;
		if (!strcasecmp(body, ".inf")) {
			*out = *s == '-' ? -INFINITY : INFINITY;
			return;
		}
		if (!strcasecmp(s, ".nan")) {
			*out = NAN;
			return;
		}
		if (!strcmp(tag, "!!int") || !strcmp(tag, "!!float")) {
			*out = strtod(s, NULL);
			return;
		}
	}
	gw_yd_type_err(d, v, "float64");
}

static const char *const alert_keys[] = {"exp_labels", "exp_annotations", NULL};
static const char *const alert_test_keys[] = {"eval_time", "alertname", "exp_alerts", NULL};
static const char *const sample_keys[] = {"labels", "value", NULL};
static const char *const expr_keys[] = {"expr", "eval_time", "exp_samples", NULL};
static const char *const series_keys[] = {"series", "values", NULL};
static const char *const group_keys[] = {"interval",	     "input_series", "alert_rule_test", "promql_expr_test",
					  "external_labels", "external_url", "name",		NULL};
static const char *const file_keys[] = {"rule_files", "evaluation_interval", "group_eval_order", "tests", NULL};

static void alert_test_of(struct gw_ydec *d, const yaml_node_t *m, struct gw_ut_alert_test *t)
{
	if (gw_yd_null(m) || !gw_yd_mapping(d, m, "main.alertTestCase", alert_test_keys))
		return;
	FOR_PAIRS(p, m)
	{
		const char *k = key_of(d, p);
		yaml_node_t *v = gw_yd_node(d, p->value);
		bool bad = false;
		if (!strcmp(k, "eval_time")) {
			gw_yd_duration(d, v, &t->eval_ms, NULL);
		} else if (!strcmp(k, "alertname")) {
			free(t->alertname);
			t->alertname = gw_yd_str(d, v, &bad);
		} else if (!strcmp(k, "exp_alerts")) {
			size_t n;
			yaml_node_item_t *it = items(d, v, "[]main.alert", &n);
			t->exp = alloc_n(d, n, sizeof(*t->exp));
			for (size_t i = 0; t->exp && i < n; i++) {
				yaml_node_t *a = gw_yd_node(d, it[i]);
				struct gw_ut_exp_alert *e = &t->exp[t->nexp++];
				if (gw_yd_null(a) || !gw_yd_mapping(d, a, "main.alert", alert_keys))
					continue;
				FOR_PAIRS(q, a)
				{
					const char *ak = key_of(d, q);
					yaml_node_t *av = gw_yd_node(d, q->value);
					if (!strcmp(ak, "exp_labels"))
						gw_yd_kvs(d, av, &e->labels, &e->nlabels);
					else if (!strcmp(ak, "exp_annotations"))
						gw_yd_kvs(d, av, &e->annotations, &e->nannotations);
				}
			}
		}
	}
}

static void expr_test_of(struct gw_ydec *d, const yaml_node_t *m, struct gw_ut_expr_test *t)
{
	if (gw_yd_null(m) || !gw_yd_mapping(d, m, "main.promqlTestCase", expr_keys))
		return;
	FOR_PAIRS(p, m)
	{
		const char *k = key_of(d, p);
		yaml_node_t *v = gw_yd_node(d, p->value);
		bool bad = false;
		if (!strcmp(k, "expr")) {
			free(t->expr);
			t->expr = gw_yd_str(d, v, &bad);
		} else if (!strcmp(k, "eval_time")) {
			gw_yd_duration(d, v, &t->eval_ms, NULL);
		} else if (!strcmp(k, "exp_samples")) {
			size_t n;
			yaml_node_item_t *it = items(d, v, "[]main.sample", &n);
			t->exp = alloc_n(d, n, sizeof(*t->exp));
			for (size_t i = 0; t->exp && i < n; i++) {
				yaml_node_t *s = gw_yd_node(d, it[i]);
				struct gw_ut_sample *e = &t->exp[t->nexp++];
				if (gw_yd_null(s) || !gw_yd_mapping(d, s, "main.sample", sample_keys))
					continue;
				FOR_PAIRS(q, s)
				{
					const char *sk = key_of(d, q);
					yaml_node_t *sv = gw_yd_node(d, q->value);
					if (!strcmp(sk, "labels")) {
						free(e->labels);
						e->labels = gw_yd_str(d, sv, &bad);
					} else if (!strcmp(sk, "value")) {
						float_of(d, sv, &e->value);
					}
				}
			}
		}
	}
}

static void group_of(struct gw_ydec *d, const yaml_node_t *m, struct gw_ut_group *g)
{
	if (gw_yd_null(m) || !gw_yd_mapping(d, m, "main.testGroup", group_keys))
		return;
	FOR_PAIRS(p, m)
	{
		const char *k = key_of(d, p);
		yaml_node_t *v = gw_yd_node(d, p->value);
		bool bad = false;
		size_t n;
		yaml_node_item_t *it;
		if (!strcmp(k, "interval")) {
			gw_yd_duration(d, v, &g->interval_ms, NULL);
		} else if (!strcmp(k, "input_series")) {
			it = items(d, v, "[]main.series", &n);
			g->input = alloc_n(d, n, sizeof(*g->input));
			for (size_t i = 0; g->input && i < n; i++) {
				yaml_node_t *s = gw_yd_node(d, it[i]);
				struct gw_ut_series *e = &g->input[g->ninput++];
				if (gw_yd_null(s) || !gw_yd_mapping(d, s, "main.series", series_keys))
					continue;
				FOR_PAIRS(q, s)
				{
					const char *sk = key_of(d, q);
					char **dst = !strcmp(sk, "series") ? &e->series : !strcmp(sk, "values") ? &e->values : NULL;
					if (dst) {
						free(*dst);
						*dst = gw_yd_str(d, gw_yd_node(d, q->value), &bad);
					}
				}
			}
		} else if (!strcmp(k, "alert_rule_test")) {
			it = items(d, v, "[]main.alertTestCase", &n);
			g->alerts = alloc_n(d, n, sizeof(*g->alerts));
			for (size_t i = 0; g->alerts && i < n; i++)
				alert_test_of(d, gw_yd_node(d, it[i]), &g->alerts[g->nalerts++]);
		} else if (!strcmp(k, "promql_expr_test")) {
			it = items(d, v, "[]main.promqlTestCase", &n);
			g->exprs = alloc_n(d, n, sizeof(*g->exprs));
			for (size_t i = 0; g->exprs && i < n; i++)
				expr_test_of(d, gw_yd_node(d, it[i]), &g->exprs[g->nexprs++]);
		} else if (!strcmp(k, "external_labels")) {
			gw_yd_kvs(d, v, &g->external, &g->nexternal);
		} else if (!strcmp(k, "external_url")) {
			free(g->external_url);
			g->external_url = gw_yd_str(d, v, &bad);
		} else if (!strcmp(k, "name")) {
			free(g->name);
			g->name = gw_yd_str(d, v, &bad);
		}
	}
}

static void root_of(struct gw_ydec *d, const yaml_node_t *m)
{
	struct gw_ut *ut = d->user;
	if (gw_yd_null(m) || !gw_yd_mapping(d, m, "main.unitTestFile", file_keys))
		return;
	FOR_PAIRS(p, m)
	{
		const char *k = key_of(d, p);
		yaml_node_t *v = gw_yd_node(d, p->value);
		if (!strcmp(k, "rule_files")) {
			ut->rule_files = strings_of(d, v, &ut->nrule_files);
		} else if (!strcmp(k, "evaluation_interval")) {
			gw_yd_duration(d, v, &ut->eval_ms, NULL);
		} else if (!strcmp(k, "group_eval_order")) {
			ut->order = strings_of(d, v, &ut->norder);
		} else if (!strcmp(k, "tests")) {
			size_t n;
			yaml_node_item_t *it = items(d, v, "[]main.testGroup", &n);
			ut->tests = alloc_n(d, n, sizeof(*ut->tests));
			for (size_t i = 0; ut->tests && i < n && !d->fatal; i++)
				group_of(d, gw_yd_node(d, it[i]), &ut->tests[ut->ntests++]);
		}
	}
}

int gw_ut_decode(struct gw_rf *c, struct gw_ut *ut, const char *text, size_t len)
{
	return gw_yd_load(c, text, len, root_of, ut);
}

static void strings_free(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

void gw_ut_release(struct gw_ut *ut)
{
	strings_free(ut->rule_files, ut->nrule_files);
	strings_free(ut->order, ut->norder);
	for (size_t i = 0; i < ut->ntests; i++) {
		struct gw_ut_group *g = &ut->tests[i];
		for (size_t k = 0; k < g->ninput; k++) {
			free(g->input[k].series);
			free(g->input[k].values);
		}
		free(g->input);
		for (size_t k = 0; k < g->nalerts; k++) {
			struct gw_ut_alert_test *t = &g->alerts[k];
			for (size_t j = 0; j < t->nexp; j++) {
				gw_rule_kvs_free(t->exp[j].labels, t->exp[j].nlabels);
				gw_rule_kvs_free(t->exp[j].annotations, t->exp[j].nannotations);
			}
			free(t->exp);
			free(t->alertname);
		}
		free(g->alerts);
		for (size_t k = 0; k < g->nexprs; k++) {
			for (size_t j = 0; j < g->exprs[k].nexp; j++)
				free(g->exprs[k].exp[j].labels);
			free(g->exprs[k].exp);
			free(g->exprs[k].expr);
		}
		free(g->exprs);
		gw_rule_kvs_free(g->external, g->nexternal);
		free(g->external_url);
		free(g->name);
	}
	free(ut->tests);
	memset(ut, 0, sizeof(*ut));
}
