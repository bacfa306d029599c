/*
 * parse_sel.c - the parser's selectors (metric names, label matchers and
 * Prometheus' "one non-empty matcher" rule), label lists, function calls
 * checked against the function table, and aggregations.
 */
#include "promql/parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- label lists and matchers ------------------------------------------- */

static bool label_name_ok(const struct parser *p)
{
	if (p->tok.kind != TK_IDENT)
		return false;
	for (size_t i = 0; i < p->tok.len; i++)
		if (p->q[p->tok.pos + i] == ':')
			return false;
	return true;
}

/* "(a, b)" -> array of strings. */
bool pq_label_list(struct parser *p, char ***out, size_t *n, const char *where)
{
	if (p->tok.kind != TK_LPAREN) {
		char w[96];
		snprintf(w, sizeof(w), "%s, expected \"(\"", where);
		pq_unexpected(p, w);
		return false;
	}
	pq_next(p);
	while (p->tok.kind != TK_RPAREN) {
		if (!label_name_ok(p)) {
			pq_unexpected(p, where);
			return false;
		}
		char **a = realloc(*out, (*n + 1) * sizeof(char *));
		if (!a)
			return false;
		*out = a;
		a[(*n)++] = pq_tok_strdup(p);
		pq_next(p);
		if (p->tok.kind == TK_COMMA)
			pq_next(p);
		else if (p->tok.kind != TK_RPAREN) {
			pq_unexpected(p, where);
			return false;
		}
	}
	pq_next(p);
	return true;
}

static bool matchers(struct parser *p, struct gw_pq_node *vs)
{
	pq_next(p); /* { */
	while (p->tok.kind != TK_RBRACE) {
		if (!label_name_ok(p)) {
			pq_unexpected(p, "label matching");
			return false;
		}
		struct gw_pq_matcher m = {.name = pq_tok_strdup(p)};
		pq_next(p);
		switch (p->tok.kind) {
		case TK_ASSIGN:
			m.op = GW_MATCH_EQ;
			break;
		case TK_NEQ:
			m.op = GW_MATCH_NEQ;
			break;
		case TK_RE:
			m.op = GW_MATCH_RE;
			break;
		case TK_NRE:
			m.op = GW_MATCH_NRE;
			break;
		default:
			free(m.name);
			pq_unexpected(p, "label matching, expected one of \"=\", \"!=\", \"=~\" or \"!~\"");
			return false;
		}
		pq_next(p);
		if (p->tok.kind != TK_STRING) {
			free(m.name);
			pq_unexpected(p, "label matching, expected string");
			return false;
		}
		m.value = gw_pq_unquote(p->q + p->tok.pos, p->tok.len);
		if (!m.value) {
			free(m.name);
			pq_fail(p, p->tok.pos, "invalid escape in string");
			return false;
		}
		pq_next(p);
		struct gw_pq_matcher *a = realloc(vs->u.sel.matchers, (vs->u.sel.nmatchers + 1) * sizeof(*a));
		if (!a) {
			free(m.name);
			free(m.value);
			return false;
		}
		vs->u.sel.matchers = a;
		a[vs->u.sel.nmatchers++] = m;
		if (p->tok.kind == TK_COMMA)
			pq_next(p);
		else if (p->tok.kind != TK_RBRACE) {
			pq_unexpected(p, "label matching, expected \",\" or \"}\"");
			return false;
		}
	}
	pq_next(p);
	return true;
}

/* Prometheus: a selector needs one matcher that does not match the empty string. */
static bool selector_valid(struct parser *p, struct gw_pq_node *vs)
{
	if (vs->u.sel.name)
		return true;
	for (size_t i = 0; i < vs->u.sel.nmatchers; i++) {
		const struct gw_pq_matcher *m = &vs->u.sel.matchers[i];
		bool matches_empty;
		switch (m->op) {
		case GW_MATCH_EQ:
			matches_empty = m->value[0] == '\0';
			break;
		case GW_MATCH_NEQ:
			matches_empty = m->value[0] != '\0';
			break;
		case GW_MATCH_RE: /* approximations that hold for the common patterns */
			matches_empty = m->value[0] == '\0' || strcmp(m->value, ".*") == 0 ||
					strcmp(m->value, ".?") == 0;
			break;
		default:
			matches_empty = !(m->value[0] == '\0' || strcmp(m->value, ".*") == 0);
			break;
		}
		if (!matches_empty)
			return true;
	}
	if (p->selector_only) {
		p->empty_selector = true;
		return true;
	}
	pq_fail(p, vs->pos, "vector selector must contain at least one non-empty matcher");
	return false;
}

struct gw_pq_node *pq_vector_selector(struct parser *p, char *name, size_t pos)
{
	struct gw_pq_node *n = pq_node_new(p, GW_PQ_VECTOR_SEL, pos);
	if (!n) {
		free(name);
		return NULL;
	}
	n->type = GW_PQ_T_VECTOR;
	n->u.sel.name = name;
	if (p->tok.kind == TK_LBRACE && !matchers(p, n)) {
		gw_promql_free(n);
		return NULL;
	}
	for (size_t i = 0; i < n->u.sel.nmatchers; i++) {
		if (strcmp(n->u.sel.matchers[i].name, "__name__") == 0 && name) {
			pq_fail(p, pos, "metric name must not be set twice: \"%s\" or \"%s\"", name,
			     n->u.sel.matchers[i].value);
			gw_promql_free(n);
			return NULL;
		}
	}
	if (!selector_valid(p, n)) {
		gw_promql_free(n);
		return NULL;
	}
	return n;
}

/* ---- type checks ----------------------------------------------------------- */

bool pq_check_type(struct parser *p, const struct gw_pq_node *n, enum gw_pq_type want, const char *ctx)
{
	if (!n || p->failed)
		return false;
	if (n->type == want)
		return true;
	pq_fail(p, n->pos, "expected type %s in %s, got %s", gw_pq_type_name(want), ctx, gw_pq_type_name(n->type));
	return false;
}

/* ---- calls and aggregations ----------------------------------------------- */

static bool call_args(struct parser *p, struct gw_pq_node ***args, size_t *n)
{
	if (!pq_expect(p, TK_LPAREN, "function call"))
		return false;
	while (p->tok.kind != TK_RPAREN) {
		struct gw_pq_node *a = pq_expr(p, 0);
		if (!a)
			return false;
		struct gw_pq_node **arr = realloc(*args, (*n + 1) * sizeof(*arr));
		if (!arr) {
			gw_promql_free(a);
			return false;
		}
		*args = arr;
		arr[(*n)++] = a;
		if (p->tok.kind == TK_COMMA)
			pq_next(p);
		else if (p->tok.kind != TK_RPAREN) {
			pq_unexpected(p, "argument list");
			return false;
		}
	}
	pq_next(p);
	return true;
}

void pq_unknown_call(struct parser *p)
{
	struct gw_pq_node **args = NULL;
	size_t n = 0;
	call_args(p, &args, &n);
	for (size_t i = 0; i < n; i++)
		gw_promql_free(args[i]);
	free(args);
}

struct gw_pq_node *pq_call(struct parser *p, const struct gw_pq_func *f, size_t pos)
{
	struct gw_pq_node *n = pq_node_new(p, GW_PQ_CALL, pos);
	if (!n)
		return NULL;
	n->u.call.func = f;
	n->type = f->ret;
	if (!call_args(p, &n->u.call.args, &n->u.call.nargs)) {
		gw_promql_free(n);
		return NULL;
	}
	size_t got = n->u.call.nargs, want = (size_t)f->nargs;
	if (f->variadic == 0 && got != want) {
		pq_fail(p, pos, "expected %zu argument(s) in call to \"%s\", got %zu", want, f->name, got);
	} else if (f->variadic > 0 && (got > want || got < want - (size_t)f->variadic)) {
		pq_fail(p, pos, "expected at most %zu argument(s) in call to \"%s\", got %zu", want, f->name, got);
	} else if (f->variadic < 0 && got < want - 1) {
		pq_fail(p, pos, "expected at least %zu argument(s) in call to \"%s\", got %zu", want - 1, f->name, got);
	}
	for (size_t i = 0; i < got && !p->failed; i++) {
		enum gw_pq_type t = f->args[i < want ? i : want - 1];
		char ctx[96];
		snprintf(ctx, sizeof(ctx), "call to function \"%s\"", f->name);
		pq_check_type(p, n->u.call.args[i], t, ctx);
	}
	if (p->failed) {
		gw_promql_free(n);
		return NULL;
	}
	return n;
}

int pq_aggop_of(const struct parser *p)
{
	for (int i = GW_PQ_AGG_SUM; i <= GW_PQ_AGG_GROUP; i++)
		if (pq_is_ident(p, gw_pq_aggop_name((enum gw_pq_aggop)i)))
			return (int)i;
	return -1;
}

static bool grouping(struct parser *p, struct gw_pq_node *n)
{
	bool without = pq_is_ident(p, "without");
	if (!without && !pq_is_ident(p, "by"))
		return true;
	if (n->u.agg.grouping || n->u.agg.without) {
		pq_fail(p, p->tok.pos, "aggregation must only contain one grouping clause");
		return false;
	}
	pq_next(p);
	n->u.agg.without = without;
	if (!pq_label_list(p, &n->u.agg.grouping, &n->u.agg.ngrouping, "grouping opts"))
		return false;
	if (!n->u.agg.grouping) /* "by ()" is valid: keep a non-NULL marker */
		n->u.agg.grouping = calloc(1, sizeof(char *));
	return true;
}

struct gw_pq_node *pq_aggregate(struct parser *p, enum gw_pq_aggop op, size_t pos)
{
	struct gw_pq_node *n = pq_node_new(p, GW_PQ_AGGREGATE, pos);
	if (!n)
		return NULL;
	n->type = GW_PQ_T_VECTOR;
	n->u.agg.op = op;
	pq_next(p);
	struct gw_pq_node **args = NULL;
	size_t nargs = 0;
	bool ok = grouping(p, n);
	if (ok && p->tok.kind != TK_LPAREN) {
		/* as Prometheus words it: after a grouping clause, "in aggregation" */
		pq_unexpected(p, n->u.agg.grouping ? "aggregation" : NULL);
		ok = false;
	}
	ok = ok && call_args(p, &args, &nargs) && grouping(p, n);
	bool param = op == GW_PQ_AGG_TOPK || op == GW_PQ_AGG_BOTTOMK || op == GW_PQ_AGG_QUANTILE ||
		     op == GW_PQ_AGG_COUNT_VALUES;
	if (ok && nargs != (param ? 2u : 1u)) {
		pq_fail(p, pos, "wrong number of arguments for aggregate expression provided, expected %d, got %zu",
		     param ? 2 : 1, nargs);
		ok = false;
	}
	if (ok) {
		n->u.agg.expr = args[nargs - 1];
		n->u.agg.param = param ? args[0] : NULL;
		free(args);
		args = NULL;
		char ctx[64];
		snprintf(ctx, sizeof(ctx), "aggregation expression");
		ok = pq_check_type(p, n->u.agg.expr, GW_PQ_T_VECTOR, ctx);
		if (ok && n->u.agg.param)
			ok = pq_check_type(p, n->u.agg.param,
					op == GW_PQ_AGG_COUNT_VALUES ? GW_PQ_T_STRING : GW_PQ_T_SCALAR, ctx);
	}
	for (size_t i = 0; args && i < nargs; i++)
		gw_promql_free(args[i]);
	free(args);
	if (!ok) {
		gw_promql_free(n);
		return NULL;
	}
	return n;
}

int gw_promql_parse_selector(const char *query, struct gw_pq_node **root, struct gw_err *err)
{
	struct parser p = {.q = query, .err = err, .selector_only = true};
	*root = NULL;
	gw_pq_lex_init(&p.lx, query);
	pq_next(&p);
	struct gw_pq_node *n = NULL;
	size_t pos = p.tok.pos;
	if (p.tok.kind == TK_LBRACE) {
		n = pq_vector_selector(&p, NULL, pos);
	} else if (p.tok.kind == TK_IDENT) {
		char *name = pq_tok_strdup(&p);
		pq_next(&p);
		n = pq_vector_selector(&p, name, pos);
	} else {
		pq_unexpected(&p, NULL); /* end of input too: Prometheus has no "no expression" here */
	}
	int rc = pq_finish(&p, n, root);
	if (rc == 0 && p.empty_selector) {
		gw_promql_free(*root);
		*root = NULL;
		return gw_err_set(err, GW_EINVAL, "match[] must contain at least one non-empty matcher");
	}
	return rc;
}
