/*
 * policy.c - the policy file (libyaml's document API) and the checks.
 */
#include "health/policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define FILE_MAX (1 << 20)
#define DEFAULT_INTERVAL_MS (5 * 60 * 1000)

static const char *const cond_names[] = {
#define GW_PC_NAME(id, name) name,
    GW_POLICY_CONDITIONS(GW_PC_NAME)
#undef GW_PC_NAME
};

const char *gw_policy_cond_name(enum gw_policy_cond c)
{
	return (unsigned int)c < GW_PC__COUNT ? cond_names[c] : "unknown";
}

/* ---- reading the file ----------------------------------------------------------- */

struct pctx {
	yaml_document_t *doc;
	const char *origin;
	struct gw_err *err;
	int rc;
};

static int bad(struct pctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(struct pctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->rc)
		c->rc = gw_err_set(c->err, GW_EPARSE, "%s:%lu: %s", c->origin,
				   n ? (unsigned long)n->start_mark.line + 1 : 1UL, msg);
	return c->rc;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool is_true(const char *s)
{
	return s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes"));
}

/* A whole number 0..max. */
static bool number(const char *s, int64_t max, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = s ? strtoll(s, &end, 10) : -1;
	if (!s || errno || end == s || *end || v < 0 || v > max)
		return false;
	*out = v;
	return true;
}

/* "30s", "5m", "1h", "500ms": Prometheus' durations, one unit. */
static bool duration(const char *s, int64_t *ms)
{
	static const struct {
		const char *u;
		int64_t ms;
	} units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
	char *end;
	errno = 0;
	long long v = s ? strtoll(s, &end, 10) : -1;
	if (!s || errno || end == s || v <= 0 || v > 1000000)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u)) {
			*ms = v * units[i].ms;
			return true;
		}
	return false;
}

static int condition(struct pctx *c, struct gw_policy *p, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *name = scalar(k), *val = scalar(v);
	int which = -1;
	for (int i = 0; name && i < GW_PC__COUNT; i++)
		if (!strcmp(name, cond_names[i]))
			which = i;
	if (which < 0)
		return bad(c, k,
			   "unknown condition \"%.60s\" (dbe, xid, retired_pages, pcie_replays_per_min, "
			   "thermal_violation, power_violation, nvlink_errors, health)",
			   name ? name : "?");
	p->conds |= 1u << which;
	int64_t n;
	switch (which) {
	case GW_PC_DBE:
	case GW_PC_THERMAL:
	case GW_PC_POWER:
		if (!is_true(val))
			return bad(c, v, "%s: want true", name);
		return 0;
	case GW_PC_XID:
		if (v->type != YAML_SEQUENCE_NODE ||
		    v->data.sequence.items.top == v->data.sequence.items.start)
			return bad(c, v, "%s: want a list of XID codes, e.g. [48, 79, 94, 95]", name);
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
		     it++) {
			const yaml_node_t *x = yaml_document_get_node(c->doc, *it);
			if (!number(scalar(x), 65535, &n) || p->nxid == GW_POLICY_XIDS)
				return bad(c, x, "xid: \"%.40s\" is not an XID code (0..65535; 32 at most)",
					   scalar(x) ? scalar(x) : "?");
			p->xid[p->nxid++] = (unsigned int)n;
		}
		return 0;
	case GW_PC_RETIRED_PAGES:
		if (!number(val, 1000000, &p->retired_pages))
			return bad(c, v, "%s: want a number of pages", name);
		return 0;
	case GW_PC_PCIE_REPLAYS:
		if (!number(val, 1000000000, &p->pcie_per_min))
			return bad(c, v, "%s: want a number of replays a minute", name);
		return 0;
	case GW_PC_NVLINK:
		if (is_true(val))
			p->nvlink_over = 0;
		else if (!number(val, 1000000000, &p->nvlink_over))
			return bad(c, v, "%s: want true or a number of errors a minute", name);
		return 0;
	default: /* health */
		if (val && !strcmp(val, "fail"))
			p->health = GW_HEALTH_FAIL;
		else if (val && !strcmp(val, "warn"))
			p->health = GW_HEALTH_WARN;
		else
			return bad(c, v, "%s: want fail or warn", name);
		return 0;
	}
}

static int action(struct pctx *c, struct gw_policy *p, const yaml_node_t *n)
{
	struct gw_policy_action *a = &p->actions[p->nactions];
	if (scalar(n) && !strcmp(scalar(n), "log")) {
		a->kind = GW_PA_LOG;
		p->nactions++;
		return 0;
	}
	const yaml_node_pair_t *pr = n->type == YAML_MAPPING_NODE ? n->data.mapping.pairs.start : NULL;
	if (!pr || pr + 1 != n->data.mapping.pairs.top)
		return bad(c, n, "%s: an action is log, exec: [PROGRAM, ARG...] or webhook: URL", "action");
	const char *k = scalar(yaml_document_get_node(c->doc, pr->key));
	const yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
	if (k && !strcmp(k, "webhook")) {
		const char *url = scalar(v);
		if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
			return bad(c, v, "webhook: \"%.80s\" is not an http:// or https:// URL",
				   url ? url : "?");
		a->kind = GW_PA_WEBHOOK;
		if (!(a->url = strdup(url)))
			return c->rc = GW_ENOMEM;
		p->nactions++;
		return 0;
	}
	if (!k || strcmp(k, "exec") || v->type != YAML_SEQUENCE_NODE ||
	    v->data.sequence.items.top == v->data.sequence.items.start)
		return bad(c, n, "%s: an action is log, exec: [PROGRAM, ARG...] or webhook: URL", "action");
	size_t argc = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	a->kind = GW_PA_EXEC;
	if (!(a->argv = calloc(argc + 1, sizeof(*a->argv))))
		return c->rc = GW_ENOMEM;
	p->nactions++;
	for (size_t i = 0; i < argc; i++) {
		const char *s = scalar(yaml_document_get_node(c->doc, v->data.sequence.items.start[i]));
		if (!s)
			return bad(c, v, "%s: every argument is a string", "exec");
		if (!(a->argv[i] = strdup(s)))
			return c->rc = GW_ENOMEM;
	}
	if (a->argv[0][0] != '/')
		return bad(c, v, "exec: \"%.80s\" is not an absolute path (no PATH search in a daemon)",
			   a->argv[0]);
	return 0;
}

static int policy(struct pctx *c, struct gw_policy *p, const yaml_node_t *n, size_t idx)
{
	p->interval_ms = DEFAULT_INTERVAL_MS;
	if (n->type != YAML_MAPPING_NODE)
		return bad(c, n, "%s: a policy is a mapping (name, conditions, actions, interval)",
			   "policies");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top && !c->rc;
	     pr++) {
		const yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
		const yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
		const char *key = scalar(k);
		if (key && !strcmp(key, "name") && scalar(v)) {
			free(p->name);
			if (!(p->name = strdup(scalar(v))))
				return c->rc = GW_ENOMEM;
		} else if (key && !strcmp(key, "interval")) {
			if (!duration(scalar(v), &p->interval_ms))
				return bad(c, v, "interval: \"%.40s\" is not a duration (30s, 5m, 1h)",
					   scalar(v) ? scalar(v) : "?");
		} else if (key && !strcmp(key, "conditions") && v->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
			     q < v->data.mapping.pairs.top && !c->rc; q++)
				condition(c, p, yaml_document_get_node(c->doc, q->key),
					  yaml_document_get_node(c->doc, q->value));
		} else if (key && !strcmp(key, "actions") && v->type == YAML_SEQUENCE_NODE) {
			size_t na = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
			if (!(p->actions = calloc(na ? na : 1, sizeof(*p->actions))))
				return c->rc = GW_ENOMEM;
			for (size_t i = 0; i < na && !c->rc; i++)
				action(c, p, yaml_document_get_node(c->doc, v->data.sequence.items.start[i]));
		} else {
			return bad(c, k,
				   "unknown or malformed key \"%.60s\" in a policy (name, conditions, "
				   "actions, interval)",
				   key ? key : "?");
		}
	}
	if (!c->rc && !p->name) {
		char nm[32];
		snprintf(nm, sizeof(nm), "policy-%zu", idx + 1);
		if (!(p->name = strdup(nm)))
			return c->rc = GW_ENOMEM;
	}
	if (!c->rc && !p->conds)
		return bad(c, n, "policy %.60s has no conditions", p->name);
	if (!c->rc && !p->nactions)
		return bad(c, n, "policy %.60s has no actions", p->name);
	return c->rc;
}

int gw_policies_parse(struct gw_policies *p, const char *text, size_t len, const char *origin,
		      struct gw_err *err)
{
	memset(p, 0, sizeof(*p));
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		int rc = gw_err_set(err, GW_EPARSE, "%s:%lu: yaml: %s", origin,
				    (unsigned long)parser.problem_mark.line + 1,
				    parser.problem ? parser.problem : "syntax error");
		yaml_parser_delete(&parser);
		return rc;
	}
	struct pctx c = {.doc = &doc, .origin = origin, .err = err};
	const yaml_node_t *root = yaml_document_get_root_node(&doc);
	const yaml_node_pair_t *pr =
	    root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
	const char *k = pr && pr + 1 == root->data.mapping.pairs.top
			    ? scalar(yaml_document_get_node(&doc, pr->key))
			    : NULL;
	const yaml_node_t *list = pr ? yaml_document_get_node(&doc, pr->value) : NULL;
	if (!k || strcmp(k, "policies") || list->type != YAML_SEQUENCE_NODE)
		bad(&c, root, "%s: want one key, policies: a list of policies", "file");
	size_t n = c.rc ? 0 : (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	if (!c.rc && (n == 0 || n > GW_POLICIES_MAX))
		bad(&c, list, "%s: want 1 to 64 policies", "policies");
	if (!c.rc && !(p->v = calloc(n, sizeof(*p->v))))
		c.rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !c.rc; i++) {
		p->n++;
		policy(&c, &p->v[i], yaml_document_get_node(&doc, list->data.sequence.items.start[i]), i);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (c.rc)
		gw_policies_release(p);
	return c.rc;
}

int gw_policies_load(struct gw_policies *p, const char *path, struct gw_err *err)
{
	memset(p, 0, sizeof(*p));
	FILE *f = fopen(path, "rb");
	if (!f)
		return gw_err_set(err, GW_EIO, "open %s: %s", path, strerror(errno));
	char *buf = malloc(FILE_MAX + 1);
	size_t n = buf ? fread(buf, 1, FILE_MAX + 1, f) : 0;
	bool failed = ferror(f);
	fclose(f);
	int rc;
	if (!buf)
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	else if (failed)
		rc = gw_err_set(err, GW_EIO, "read %s: %s", path, strerror(errno));
	else if (n > FILE_MAX)
		rc = gw_err_set(err, GW_EPARSE, "%s: larger than 1 MiB", path);
	else
		rc = gw_policies_parse(p, buf, n, path, err);
	free(buf);
	return rc;
}

void gw_policies_release(struct gw_policies *p)
{
	for (size_t i = 0; p->v && i < p->n; i++) {
		struct gw_policy *q = &p->v[i];
		for (size_t a = 0; q->actions && a < q->nactions; a++) {
			for (char **s = q->actions[a].argv; s && *s; s++)
				free(*s);
			free(q->actions[a].argv);
			free(q->actions[a].url);
		}
		free(q->actions);
		free(q->name);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
