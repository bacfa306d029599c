/*
 * yamldec.c - the strict YAML decoding helpers of yamldec.h.
 */
#include "rules/yamldec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gw_rf_pos gw_yd_pos(const yaml_node_t *n)
{
	return (struct gw_rf_pos){(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
}

void gw_yd_uerr(struct gw_ydec *d, const yaml_node_t *n, const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	gw_buf_printf(&d->uerr, "\n  line %lu: %s", (unsigned long)n->start_mark.line + 1, what);
}

bool gw_yd_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* The tag yaml.v3 would resolve a node to, for "cannot unmarshal" messages. */
const char *gw_yd_tag(const yaml_node_t *n)
{
	if (n->type == YAML_MAPPING_NODE)
		return "!!map";
	if (n->type == YAML_SEQUENCE_NODE)
		return "!!seq";
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return "!!str";
	const char *v = (const char *)n->data.scalar.value;
	if (!strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "True") || !strcmp(v, "False"))
		return "!!bool";
	char *end;
	(void)strtoll(v, &end, 0);
	if (*v && !*end)
		return "!!int";
	(void)strtod(v, &end);
	if (*v && !*end)
		return "!!float";
	return "!!str";
}

void gw_yd_type_err(struct gw_ydec *d, const yaml_node_t *n, const char *into)
{
	if (n->type == YAML_SCALAR_NODE)
		gw_yd_uerr(d, n, "cannot unmarshal %s `%.200s` into %s", gw_yd_tag(n), (const char *)n->data.scalar.value, into);
	else
		gw_yd_uerr(d, n, "cannot unmarshal %s into %s", gw_yd_tag(n), into);
}

yaml_node_t *gw_yd_node(struct gw_ydec *d, int id)
{
	return yaml_document_get_node(d->doc, id);
}

/* A string field: any scalar; null is "". Returns a heap copy or NULL on a type error. */
char *gw_yd_str(struct gw_ydec *d, const yaml_node_t *v, bool *bad)
{
	if (v->type != YAML_SCALAR_NODE) {
		gw_yd_type_err(d, v, "string");
		*bad = true;
		return NULL;
	}
	char *s = strdup(gw_yd_null(v) ? "" : (const char *)v->data.scalar.value);
	if (!s)
		d->nomem = true;
	return s;
}

void gw_yd_duration(struct gw_ydec *d, const yaml_node_t *v, int64_t *ms, bool *set)
{
	bool bad = false;
	char *s = gw_yd_str(d, v, &bad);
	if (!s)
		return;
	if (!*s || gw_yd_null(v)) {
		free(s);
		return; /* absent: zero */
	}
	if (strcmp(s, "0") != 0 && gw_promql_duration(s, strlen(s), ms) != 0) {
		struct gw_rf_pos p = gw_yd_pos(v);
		gw_rf_report(d->c, "%d:%d: not a valid duration string: \"%s\"", p.line, p.col, s);
		d->fatal = true;
	} else if (set) {
		*set = true;
	}
	if (!strcmp(s, "0"))
		*ms = 0;
	free(s);
}

/* Check a mapping's keys against the known ones; returns false (and reports) for a non-mapping. */
bool gw_yd_mapping(struct gw_ydec *d, const yaml_node_t *m, const char *type, const char *const *known)
{
	if (m->type != YAML_MAPPING_NODE) {
		gw_yd_type_err(d, m, type);
		return false;
	}
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = gw_yd_node(d, p->key);
		const char *name = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
		for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = gw_yd_node(d, q->key);
			if (k2->type == YAML_SCALAR_NODE && !strcmp((const char *)k2->data.scalar.value, name)) {
				gw_yd_uerr(d, k, "mapping key \"%s\" already defined at line %lu", name,
				     (unsigned long)k2->start_mark.line + 1);
				break;
			}
		}
		if (!known)
			continue;
		bool found = false;
		for (const char *const *kn = known; *kn && !found; kn++)
			found = !strcmp(*kn, name);
		if (!found)
			gw_yd_uerr(d, k, "field %s not found in type %s", name, type);
	}
	return true;
}

void gw_yd_kvs(struct gw_ydec *d, const yaml_node_t *m, struct gw_rule_kv **out, size_t *n)
{
	if (gw_yd_null(m))
		return;
	if (!gw_yd_mapping(d, m, "map[string]string", NULL))
		return;
	size_t cap = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	gw_rule_kvs_free(*out, *n); /* a repeated key was reported; the last one counts */
	*n = 0;
	*out = calloc(cap ? cap : 1, sizeof(**out));
	if (!*out) {
		d->nomem = true;
		return;
	}
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		bool bad = false;
		char *k = gw_yd_str(d, gw_yd_node(d, p->key), &bad);
		char *v = k ? gw_yd_str(d, gw_yd_node(d, p->value), &bad) : NULL;
		if (!k || !v) {
			free(k);
			continue;
		}
		(*out)[*n] = (struct gw_rule_kv){k, v, gw_yd_pos(gw_yd_node(d, p->value)).line};
		(*n)++;
	}
}

int gw_yd_load(struct gw_rf *c, const char *text, size_t len, void (*decode)(struct gw_ydec *d, const yaml_node_t *root),
	       void *user)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		return GW_ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		const yaml_mark_t *m = parser.problem ? &parser.problem_mark : &parser.context_mark;
		gw_rf_report(c, "%lu:%lu: yaml: %s", (unsigned long)m->line + 1, (unsigned long)m->column + 1,
			     parser.problem ? parser.problem : "not valid YAML");
		yaml_parser_delete(&parser);
		return 0;
	}
	struct gw_ydec d = {.c = c, .doc = &doc, .user = user};
	gw_buf_init(&d.uerr, 1 << 20);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root)
		decode(&d, root);
	if (!d.fatal && d.uerr.len)
		gw_rf_report(c, "yaml: unmarshal errors:%s", d.uerr.data);
	gw_buf_release(&d.uerr);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return d.nomem ? GW_ENOMEM : 0;
}
