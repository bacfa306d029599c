/*
 * rulefile_yaml.c - decoding a rule file's YAML strictly, as Prometheus'
 * yaml.v3 decoder with KnownFields does: a key the format does not have,
 * a repeated key or a value of the wrong kind is an "unmarshal error";
 * they are gathered and reported together, and a file with any is not
 * checked further. A bad duration stops decoding at once, as
 * model.Duration's decoder does.
 */
#include "rules/rulefile_int.h"
#include "rules/yamldec.h"

#include "core/buf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *const rule_keys[] = {"record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations",
					NULL};

static void rule_of(struct gw_ydec *d, const yaml_node_t *m, struct gw_rf_rule *r)
{
	r->pos = gw_yd_pos(m);
	if (!gw_yd_mapping(d, m, "rulefmt.RuleNode", rule_keys))
		return;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top && !d->fatal; p++) {
		yaml_node_t *k = gw_yd_node(d, p->key), *v = gw_yd_node(d, p->value);
		if (k->type != YAML_SCALAR_NODE)
			continue;
		const char *name = (const char *)k->data.scalar.value;
		bool bad = false;
		if (!strcmp(name, "record")) {
			free(r->record);
			r->record = gw_yd_str(d, v, &bad);
			r->record_pos = gw_yd_pos(v);
		} else if (!strcmp(name, "alert")) {
			free(r->alert);
			r->alert = gw_yd_str(d, v, &bad);
			r->alert_pos = gw_yd_pos(v);
		} else if (!strcmp(name, "expr")) {
			free(r->expr);
			r->expr = gw_yd_str(d, v, &bad);
			r->expr_pos = gw_yd_pos(v);
		} else if (!strcmp(name, "for")) {
			gw_yd_duration(d, v, &r->for_ms, &r->has_for);
		} else if (!strcmp(name, "keep_firing_for")) {
			gw_yd_duration(d, v, &r->keep_ms, &r->has_keep);
		} else if (!strcmp(name, "labels")) {
			gw_yd_kvs(d, v, &r->labels, &r->nlabels);
		} else if (!strcmp(name, "annotations")) {
			gw_yd_kvs(d, v, &r->annotations, &r->nannotations);
		}
	}
}

static void limit_of(struct gw_ydec *d, const yaml_node_t *v, uint64_t *out)
{
	if (gw_yd_null(v))
		return;
	if (v->type != YAML_SCALAR_NODE || strcmp(gw_yd_tag(v), "!!int") != 0) {
		gw_yd_type_err(d, v, "int");
		return;
	}
	long long n = strtoll((const char *)v->data.scalar.value, NULL, 0);
	*out = n > 0 ? (uint64_t)n : 0; /* Prometheus treats limit <= 0 as none */
}

static void rules_free(struct gw_rf_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct gw_rf_rule *r = &rules[i];
		free(r->record);
		free(r->alert);
		free(r->expr);
		gw_rule_kvs_free(r->labels, r->nlabels);
		gw_rule_kvs_free(r->annotations, r->nannotations);
		gw_promql_free(r->ast);
	}
	free(rules);
}

static const char *const group_keys[] = {"name", "interval", "limit", "rules", NULL};

static void group_of(struct gw_ydec *d, const yaml_node_t *m, struct gw_rf_group *g)
{
	g->pos = gw_yd_pos(m);
	if (!gw_yd_mapping(d, m, "rulefmt.RuleGroup", group_keys))
		return;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top && !d->fatal; p++) {
		yaml_node_t *k = gw_yd_node(d, p->key), *v = gw_yd_node(d, p->value);
		if (k->type != YAML_SCALAR_NODE)
			continue;
		const char *name = (const char *)k->data.scalar.value;
		bool bad = false;
		if (!strcmp(name, "name")) {
			free(g->name);
			g->name = gw_yd_str(d, v, &bad);
		} else if (!strcmp(name, "interval")) {
			gw_yd_duration(d, v, &g->interval_ms, NULL);
		} else if (!strcmp(name, "limit")) {
			limit_of(d, v, &g->limit);
		} else if (!strcmp(name, "rules") && !gw_yd_null(v)) {
			if (v->type != YAML_SEQUENCE_NODE) {
				gw_yd_type_err(d, v, "[]rulefmt.RuleNode");
				continue;
			}
			size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
			rules_free(g->rules, g->nrules); /* a repeated key was reported; the last one counts */
			g->rules = calloc(n ? n : 1, sizeof(*g->rules));
			g->nrules = 0;
			if (!g->rules) {
				d->nomem = true;
				return;
			}
			for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
				rule_of(d, gw_yd_node(d, *it), &g->rules[g->nrules++]);
		}
	}
}

static void root_of(struct gw_ydec *d, const yaml_node_t *root)
{
	static const char *const keys[] = {"groups", NULL};
	if (gw_yd_null(root) || !gw_yd_mapping(d, root, "rulefmt.RuleGroups", keys))
		return;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = gw_yd_node(d, p->key), *v = gw_yd_node(d, p->value);
		if (k->type != YAML_SCALAR_NODE || strcmp((const char *)k->data.scalar.value, "groups") != 0 || gw_yd_null(v))
			continue;
		if (v->type != YAML_SEQUENCE_NODE) {
			gw_yd_type_err(d, v, "[]rulefmt.RuleGroup");
			continue;
		}
		size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
		struct gw_rf_group *gs = calloc(n ? n : 1, sizeof(*gs));
		if (!gs) {
			d->nomem = true;
			return;
		}
		gw_rf_release(d->c); /* a repeated "groups" key: the last one counts */
		d->c->groups = gs;
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top && !d->fatal;
		     it++)
			group_of(d, gw_yd_node(d, *it), &gs[d->c->ngroups++]);
	}
}

int gw_rf_decode(struct gw_rf *c, const char *text, size_t len)
{
	return gw_yd_load(c, text, len, root_of, NULL);
}

void gw_rf_release(struct gw_rf *c)
{
	for (size_t gi = 0; gi < c->ngroups; gi++) {
		rules_free(c->groups[gi].rules, c->groups[gi].nrules);
		free(c->groups[gi].name);
	}
	free(c->groups);
	c->groups = NULL;
	c->ngroups = 0;
}
