/*
 * parse.c - recursive-descent PromQL parser with Prometheus' type checks.
 *
 * Binary operators by precedence climbing (or < and/unless < comparisons <
 * +,- < *,/,%,atan2 < ^, which is right-associative); unary minus binds
 * looser than ^ and tighter than *, as in Prometheus' grammar.
 */
#include "promql/funcs.h"
#include "promql/lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct parser {
	struct gw_pq_lexer lx;
	struct gw_pq_token tok; /* current */
	const char *q;
	struct gw_err *err;
	bool failed;
};

static const char *const binop_names[] = {"+",  "-", "*", "/",  "%",  "^",   "atan2", "==",
					  "!=", ">", "<", ">=", "<=", "and", "or",    "unless"};
static const char *const aggop_names[] = {"sum",    "avg",  "min",     "max",      "count",        "stddev",
					  "stdvar", "topk", "bottomk", "quantile", "count_values", "group"};

const char *gw_pq_binop_name(enum gw_pq_binop op)
{
	return binop_names[op];
}

const char *gw_pq_aggop_name(enum gw_pq_aggop op)
{
	return aggop_names[op];
}

const char *gw_pq_type_name(enum gw_pq_type t)
{
	switch (t) {
	case GW_PQ_T_SCALAR:
		return "scalar";
	case GW_PQ_T_VECTOR:
		return "instant vector";
	case GW_PQ_T_MATRIX:
		return "range vector";
	case GW_PQ_T_STRING:
		return "string";
	default:
		return "none";
	}
}

/* Prometheus' "line:col: parse error: ..." prefix. */
static struct gw_pq_node *fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	if (p->failed)
		return NULL;
	p->failed = true;
	size_t line = 1, col = 1;
	for (size_t i = 0; i < pos && p->q[i]; i++) {
		if (p->q[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	char msg[GW_ERR_MSG_MAX - 48];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gw_err_set(p->err, GW_EPARSE, "%zu:%zu: parse error: %s", line, col, msg);
	return NULL;
}

static void next(struct parser *p)
{
	gw_pq_lex_next(&p->lx, &p->tok);
}

static bool is_ident(const struct parser *p, const char *kw)
{
	return p->tok.kind == TK_IDENT && strlen(kw) == p->tok.len &&
	       strncasecmp(p->q + p->tok.pos, kw, p->tok.len) == 0;
}

static const char *tok_desc(const struct parser *p, char *buf, size_t n)
{
	if (p->tok.kind == TK_EOF)
		return "end of input";
	snprintf(buf, n, "\"%.*s\"", (int)(p->tok.len > 40 ? 40 : p->tok.len), p->q + p->tok.pos);
	return buf;
}

static struct gw_pq_node *unexpected(struct parser *p, const char *where)
{
	char b[64];
	if (p->tok.kind == TK_ERROR)
		return fail(p, p->tok.pos, "%s", p->tok.msg);
	return fail(p, p->tok.pos, "unexpected %s%s%s", tok_desc(p, b, sizeof(b)), where ? " in " : "",
		    where ? where : "");
}

static bool expect(struct parser *p, enum gw_pq_tok kind, const char *where)
{
	if (p->tok.kind == kind) {
		next(p);
		return true;
	}
	unexpected(p, where);
	return false;
}

static struct gw_pq_node *node_new(struct parser *p, enum gw_pq_kind kind, size_t pos)
{
	struct gw_pq_node *n = calloc(1, sizeof(*n));
	if (!n) {
		fail(p, pos, "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->pos = pos;
	return n;
}

static char *tok_strdup(const struct parser *p)
{
	return strndup(p->q + p->tok.pos, p->tok.len);
}

static struct gw_pq_node *expr(struct parser *p, int min_prec);

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
static bool label_list(struct parser *p, char ***out, size_t *n, const char *where)
{
	if (!expect(p, TK_LPAREN, where))
		return false;
	while (p->tok.kind != TK_RPAREN) {
		if (!label_name_ok(p)) {
			unexpected(p, where);
			return false;
		}
		char **a = realloc(*out, (*n + 1) * sizeof(char *));
		if (!a)
			return false;
		*out = a;
		a[(*n)++] = tok_strdup(p);
		next(p);
		if (p->tok.kind == TK_COMMA)
			next(p);
		else if (p->tok.kind != TK_RPAREN) {
			unexpected(p, where);
			return false;
		}
	}
	next(p);
	return true;
}

static bool matchers(struct parser *p, struct gw_pq_node *vs)
{
	next(p); /* { */
	while (p->tok.kind != TK_RBRACE) {
		if (!label_name_ok(p)) {
			unexpected(p, "label matching");
			return false;
		}
		struct gw_pq_matcher m = {.name = tok_strdup(p)};
		next(p);
		switch (p->tok.kind) {
		case TK_ASSIGN:
			m.op = GW_PQ_EQ;
			break;
		case TK_NEQ:
			m.op = GW_PQ_NEQ;
			break;
		case TK_RE:
			m.op = GW_PQ_RE;
			break;
		case TK_NRE:
			m.op = GW_PQ_NRE;
			break;
		default:
			free(m.name);
			unexpected(p, "label matching, expected one of \"=\", \"!=\", \"=~\" or \"!~\"");
			return false;
		}
		next(p);
		if (p->tok.kind != TK_STRING) {
			free(m.name);
			unexpected(p, "label matching, expected string");
			return false;
		}
		m.value = gw_pq_unquote(p->q + p->tok.pos, p->tok.len);
		if (!m.value) {
			free(m.name);
			fail(p, p->tok.pos, "invalid escape in string");
			return false;
		}
		next(p);
		struct gw_pq_matcher *a = realloc(vs->u.sel.matchers, (vs->u.sel.nmatchers + 1) * sizeof(*a));
		if (!a) {
			free(m.name);
			free(m.value);
			return false;
		}
		vs->u.sel.matchers = a;
		a[vs->u.sel.nmatchers++] = m;
		if (p->tok.kind == TK_COMMA)
			next(p);
		else if (p->tok.kind != TK_RBRACE) {
			unexpected(p, "label matching, expected \",\" or \"}\"");
			return false;
		}
	}
	next(p);
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
		case GW_PQ_EQ:
			matches_empty = m->value[0] == '\0';
			break;
		case GW_PQ_NEQ:
			matches_empty = m->value[0] != '\0';
			break;
		case GW_PQ_RE: /* approximations that hold for the common patterns */
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
	fail(p, vs->pos, "vector selector must contain at least one non-empty matcher");
	return false;
}

static struct gw_pq_node *vector_selector(struct parser *p, char *name, size_t pos)
{
	struct gw_pq_node *n = node_new(p, GW_PQ_VECTOR_SEL, pos);
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
			fail(p, pos, "metric name must not be set twice: \"%s\" or \"%s\"", name,
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

static bool check_type(struct parser *p, const struct gw_pq_node *n, enum gw_pq_type want, const char *ctx)
{
	if (!n || p->failed)
		return false;
	if (n->type == want)
		return true;
	fail(p, n->pos, "expected type %s in %s, got %s", gw_pq_type_name(want), ctx, gw_pq_type_name(n->type));
	return false;
}

/* ---- calls and aggregations ----------------------------------------------- */

static bool call_args(struct parser *p, struct gw_pq_node ***args, size_t *n)
{
	if (!expect(p, TK_LPAREN, "function call"))
		return false;
	while (p->tok.kind != TK_RPAREN) {
		struct gw_pq_node *a = expr(p, 0);
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
			next(p);
		else if (p->tok.kind != TK_RPAREN) {
			unexpected(p, "argument list");
			return false;
		}
	}
	next(p);
	return true;
}

static struct gw_pq_node *call(struct parser *p, const struct gw_pq_func *f, size_t pos)
{
	struct gw_pq_node *n = node_new(p, GW_PQ_CALL, pos);
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
		fail(p, pos, "expected %zu argument(s) in call to \"%s\", got %zu", want, f->name, got);
	} else if (f->variadic > 0 && (got > want || got < want - (size_t)f->variadic)) {
		fail(p, pos, "expected at most %zu argument(s) in call to \"%s\", got %zu", want, f->name, got);
	} else if (f->variadic < 0 && got < want - 1) {
		fail(p, pos, "expected at least %zu argument(s) in call to \"%s\", got %zu", want - 1, f->name, got);
	}
	for (size_t i = 0; i < got && !p->failed; i++) {
		enum gw_pq_type t = f->args[i < want ? i : want - 1];
		char ctx[96];
		snprintf(ctx, sizeof(ctx), "call to function \"%s\"", f->name);
		check_type(p, n->u.call.args[i], t, ctx);
	}
	if (p->failed) {
		gw_promql_free(n);
		return NULL;
	}
	return n;
}

static int aggop_of(const struct parser *p)
{
	for (size_t i = 0; i < sizeof(aggop_names) / sizeof(aggop_names[0]); i++)
		if (is_ident(p, aggop_names[i]))
			return (int)i;
	return -1;
}

static bool grouping(struct parser *p, struct gw_pq_node *n)
{
	bool without = is_ident(p, "without");
	if (!without && !is_ident(p, "by"))
		return true;
	if (n->u.agg.grouping || n->u.agg.without) {
		fail(p, p->tok.pos, "aggregation must only contain one grouping clause");
		return false;
	}
	next(p);
	n->u.agg.without = without;
	if (!label_list(p, &n->u.agg.grouping, &n->u.agg.ngrouping, "grouping opts"))
		return false;
	if (!n->u.agg.grouping) /* "by ()" is valid: keep a non-NULL marker */
		n->u.agg.grouping = calloc(1, sizeof(char *));
	return true;
}

static struct gw_pq_node *aggregate(struct parser *p, enum gw_pq_aggop op, size_t pos)
{
	struct gw_pq_node *n = node_new(p, GW_PQ_AGGREGATE, pos);
	if (!n)
		return NULL;
	n->type = GW_PQ_T_VECTOR;
	n->u.agg.op = op;
	next(p);
	struct gw_pq_node **args = NULL;
	size_t nargs = 0;
	bool ok = grouping(p, n) && call_args(p, &args, &nargs) && grouping(p, n);
	bool param = op == GW_PQ_AGG_TOPK || op == GW_PQ_AGG_BOTTOMK || op == GW_PQ_AGG_QUANTILE ||
		     op == GW_PQ_AGG_COUNT_VALUES;
	if (ok && nargs != (param ? 2u : 1u)) {
		fail(p, pos, "wrong number of arguments for aggregate expression provided, expected %d, got %zu",
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
		ok = check_type(p, n->u.agg.expr, GW_PQ_T_VECTOR, ctx);
		if (ok && n->u.agg.param)
			ok = check_type(p, n->u.agg.param,
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

/* ---- primary expressions and their modifiers ------------------------------- */

static const char *const reserved[] = {"by",          "without",    "on",     "ignoring", "group_left",
				       "group_right", "bool",       "offset", "and",      "or",
				       "unless",      "atan2"};

static struct gw_pq_node *primary(struct parser *p)
{
	size_t pos = p->tok.pos;
	switch (p->tok.kind) {
	case TK_NUMBER: {
		struct gw_pq_node *n = node_new(p, GW_PQ_NUMBER, pos);
		if (n) {
			n->type = GW_PQ_T_SCALAR;
			n->u.number = p->tok.number;
		}
		next(p);
		return n;
	}
	case TK_STRING: {
		struct gw_pq_node *n = node_new(p, GW_PQ_STRING, pos);
		if (!n)
			return NULL;
		n->type = GW_PQ_T_STRING;
		n->u.string = gw_pq_unquote(p->q + pos, p->tok.len);
		next(p);
		if (!n->u.string) {
			gw_promql_free(n);
			return fail(p, pos, "invalid escape in string");
		}
		return n;
	}
	case TK_LPAREN: {
		next(p);
		struct gw_pq_node *inner = expr(p, 0);
		if (!inner)
			return NULL;
		if (!expect(p, TK_RPAREN, "paren expression")) {
			gw_promql_free(inner);
			return NULL;
		}
		struct gw_pq_node *n = node_new(p, GW_PQ_PAREN, pos);
		if (!n) {
			gw_promql_free(inner);
			return NULL;
		}
		n->type = inner->type;
		n->u.paren = inner;
		return n;
	}
	case TK_LBRACE:
		return vector_selector(p, NULL, pos);
	case TK_IDENT: {
		int agg = aggop_of(p);
		if (agg >= 0)
			return aggregate(p, (enum gw_pq_aggop)agg, pos);
		for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (is_ident(p, reserved[i]))
				return unexpected(p, NULL);
		char *name = tok_strdup(p);
		next(p);
		if (p->tok.kind == TK_LPAREN) {
			const struct gw_pq_func *f = gw_pq_func_find(name, strlen(name));
			if (!f) {
				fail(p, pos, "unknown function with name \"%s\"", name);
				free(name);
				return NULL;
			}
			free(name);
			return call(p, f, pos);
		}
		return vector_selector(p, name, pos);
	}
	case TK_DURATION:
		return fail(p, pos, "unexpected duration \"%.*s\"", (int)p->tok.len, p->q + pos);
	default:
		return unexpected(p, NULL);
	}
}

static bool at_modifier(struct parser *p, enum gw_pq_at *at, int64_t *at_ms)
{
	size_t pos = p->tok.pos;
	if (*at != GW_PQ_AT_NONE) {
		fail(p, pos, "@ <timestamp> may not be set multiple times");
		return false;
	}
	next(p);
	if (is_ident(p, "start") || is_ident(p, "end")) {
		*at = is_ident(p, "start") ? GW_PQ_AT_START : GW_PQ_AT_END;
		next(p);
		return expect(p, TK_LPAREN, "@ modifier") && expect(p, TK_RPAREN, "@ modifier");
	}
	double sign = 1;
	if (p->tok.kind == TK_SUB || p->tok.kind == TK_ADD) {
		sign = p->tok.kind == TK_SUB ? -1 : 1;
		next(p);
	}
	if (p->tok.kind != TK_NUMBER) {
		unexpected(p, "@ modifier");
		return false;
	}
	double v = sign * p->tok.number;
	if (!(v == v) || v > 9.2e15 || v < -9.2e15) {
		fail(p, pos, "timestamp out of bounds for @ modifier: %g", v);
		return false;
	}
	*at = GW_PQ_AT_TIME;
	*at_ms = (int64_t)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5));
	next(p);
	return true;
}

static bool offset_modifier(struct parser *p, int64_t *offset, bool *seen)
{
	size_t pos = p->tok.pos;
	if (*seen) {
		fail(p, pos, "offset may not be set multiple times");
		return false;
	}
	next(p);
	int64_t sign = 1;
	if (p->tok.kind == TK_SUB) {
		sign = -1;
		next(p);
	}
	if (p->tok.kind != TK_DURATION) {
		unexpected(p, "offset, expected duration");
		return false;
	}
	*offset = sign * p->tok.ms;
	*seen = true;
	next(p);
	return true;
}

/* [range] and [range:step] after an expression. */
static struct gw_pq_node *range_suffix(struct parser *p, struct gw_pq_node *n)
{
	size_t pos = p->tok.pos;
	next(p);
	if (p->tok.kind != TK_DURATION) {
		gw_promql_free(n);
		return unexpected(p, "range, expected duration");
	}
	int64_t range = p->tok.ms, step = 0;
	next(p);
	bool sub = false;
	if (p->tok.kind == TK_COLON) {
		sub = true;
		next(p);
		if (p->tok.kind == TK_DURATION) {
			step = p->tok.ms;
			next(p);
		}
	}
	if (!expect(p, TK_RBRACKET, sub ? "subquery selector" : "range selector")) {
		gw_promql_free(n);
		return NULL;
	}
	if (!sub && n->kind != GW_PQ_VECTOR_SEL) {
		fail(p, n->pos, "ranges only allowed for vector selectors");
		gw_promql_free(n);
		return NULL;
	}
	if (!sub && (n->u.sel.offset_ms || n->u.sel.at != GW_PQ_AT_NONE)) {
		fail(p, pos, "no offset or @ modifiers allowed before range");
		gw_promql_free(n);
		return NULL;
	}
	if (sub && n->type != GW_PQ_T_VECTOR) {
		fail(p, n->pos, "subquery is only allowed on instant vector, got %s", gw_pq_type_name(n->type));
		gw_promql_free(n);
		return NULL;
	}
	struct gw_pq_node *r = node_new(p, sub ? GW_PQ_SUBQUERY : GW_PQ_MATRIX_SEL, n->pos);
	if (!r) {
		gw_promql_free(n);
		return NULL;
	}
	r->type = GW_PQ_T_MATRIX;
	r->u.range.vs = n;
	r->u.range.range_ms = range;
	r->u.range.step_ms = step;
	if (range <= 0) {
		gw_promql_free(r);
		return fail(p, pos, "range must be positive");
	}
	return r;
}

static struct gw_pq_node *postfix(struct parser *p, struct gw_pq_node *n)
{
	bool offset_seen = false;
	while (n && !p->failed) {
		/* A range selector's modifiers belong to its vector selector, as in Prometheus. */
		struct gw_pq_node *target = n->kind == GW_PQ_MATRIX_SEL ? n->u.range.vs : n;
		bool is_sel = target->kind == GW_PQ_VECTOR_SEL;
		bool is_range = target->kind == GW_PQ_SUBQUERY;
		if (p->tok.kind == TK_LBRACKET) {
			n = range_suffix(p, n);
			offset_seen = false;
		} else if (is_ident(p, "offset")) {
			if (!is_sel && !is_range) {
				fail(p, p->tok.pos, "offset modifier must be preceded by an instant vector selector "
						    "or range vector selector or a subquery");
				break;
			}
			if (!offset_modifier(p, is_sel ? &target->u.sel.offset_ms : &target->u.range.offset_ms,
					     &offset_seen))
				break;
		} else if (p->tok.kind == TK_AT) {
			if (!is_sel && !is_range) {
				fail(p, p->tok.pos, "@ modifier must be preceded by an instant vector selector or "
						    "range vector selector or a subquery");
				break;
			}
			if (!at_modifier(p, is_sel ? &target->u.sel.at : &target->u.range.at,
					 is_sel ? &target->u.sel.at_ms : &target->u.range.at_ms))
				break;
		} else {
			return n;
		}
	}
	if (p->failed) {
		gw_promql_free(n);
		return NULL;
	}
	return n;
}

static struct gw_pq_node *unary(struct parser *p);

/* ---- unary and binary expressions ------------------------------------------ */

struct opinfo {
	enum gw_pq_tok tok;
	const char *kw; /* keyword operators */
	enum gw_pq_binop op;
	int prec;
};

static const struct opinfo ops[] = {
	{TK_IDENT, "or", GW_PQ_OR, 1},       {TK_IDENT, "and", GW_PQ_AND, 2},
	{TK_IDENT, "unless", GW_PQ_UNLESS, 2}, {TK_EQLC, NULL, GW_PQ_CMP_EQ, 3},
	{TK_NEQ, NULL, GW_PQ_CMP_NE, 3},     {TK_GTR, NULL, GW_PQ_CMP_GT, 3},
	{TK_LSS, NULL, GW_PQ_CMP_LT, 3},     {TK_GTE, NULL, GW_PQ_CMP_GE, 3},
	{TK_LTE, NULL, GW_PQ_CMP_LE, 3},     {TK_ADD, NULL, GW_PQ_ADD, 4},
	{TK_SUB, NULL, GW_PQ_SUB, 4},        {TK_MUL, NULL, GW_PQ_MUL, 5},
	{TK_DIV, NULL, GW_PQ_DIV, 5},        {TK_MOD, NULL, GW_PQ_MOD, 5},
	{TK_IDENT, "atan2", GW_PQ_ATAN2, 5}, {TK_POW, NULL, GW_PQ_POW, 6},
};

static const struct opinfo *peek_op(const struct parser *p)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (p->tok.kind == ops[i].tok && (!ops[i].kw || is_ident(p, ops[i].kw)))
			return &ops[i];
	return NULL;
}

static bool is_comparison(enum gw_pq_binop op)
{
	return op >= GW_PQ_CMP_EQ && op <= GW_PQ_CMP_LE;
}

static bool is_set(enum gw_pq_binop op)
{
	return op == GW_PQ_AND || op == GW_PQ_OR || op == GW_PQ_UNLESS;
}

/* bool, on/ignoring(...), group_left/right(...) after a binary operator. */
static bool bin_modifiers(struct parser *p, struct gw_pq_node *n)
{
	if (is_ident(p, "bool")) {
		if (!is_comparison(n->u.bin.op)) {
			fail(p, p->tok.pos, "bool modifier can only be used on comparison operators");
			return false;
		}
		n->u.bin.return_bool = true;
		next(p);
	}
	bool on = is_ident(p, "on");
	if (on || is_ident(p, "ignoring")) {
		n->u.bin.on = on;
		next(p);
		if (!label_list(p, &n->u.bin.labels, &n->u.bin.nlabels, "grouping opts"))
			return false;
		if (on && !n->u.bin.labels) /* "on()" is meaningful: match on no labels */
			n->u.bin.labels = calloc(1, sizeof(char *));
		bool left = is_ident(p, "group_left");
		if (left || is_ident(p, "group_right")) {
			if (is_set(n->u.bin.op)) {
				fail(p, p->tok.pos, "no grouping allowed for \"%s\" operation",
				     gw_pq_binop_name(n->u.bin.op));
				return false;
			}
			n->u.bin.card = left ? GW_PQ_CARD_MANY_TO_ONE : GW_PQ_CARD_ONE_TO_MANY;
			next(p);
			if (p->tok.kind == TK_LPAREN &&
			    !label_list(p, &n->u.bin.include, &n->u.bin.ninclude, "grouping opts"))
				return false;
		}
	}
	return true;
}

/* Prometheus' checks on operand types, once both sides are known. */
static bool bin_check(struct parser *p, struct gw_pq_node *n)
{
	const struct gw_pq_node *l = n->u.bin.lhs, *r = n->u.bin.rhs;
	enum gw_pq_binop op = n->u.bin.op;
	for (int i = 0; i < 2; i++) {
		const struct gw_pq_node *s = i ? r : l;
		if (s->type != GW_PQ_T_SCALAR && s->type != GW_PQ_T_VECTOR) {
			fail(p, s->pos, "binary expression must contain only scalar and instant vector types");
			return false;
		}
	}
	bool both_vec = l->type == GW_PQ_T_VECTOR && r->type == GW_PQ_T_VECTOR;
	if (is_comparison(op) && !n->u.bin.return_bool && l->type == GW_PQ_T_SCALAR &&
	    r->type == GW_PQ_T_SCALAR) {
		fail(p, n->pos, "comparisons between scalars must use BOOL modifier");
		return false;
	}
	if ((n->u.bin.labels || n->u.bin.card != GW_PQ_CARD_ONE_TO_ONE) && !both_vec) {
		fail(p, n->pos, "vector matching only allowed between instant vectors");
		return false;
	}
	if (is_set(op)) {
		if (!both_vec) {
			fail(p, n->pos, "set operator \"%s\" not allowed in binary scalar expression",
			     gw_pq_binop_name(op));
			return false;
		}
		n->u.bin.card = GW_PQ_CARD_MANY_TO_MANY;
	}
	/* A label both matched on and included makes no sense. */
	if (n->u.bin.on && n->u.bin.include) {
		for (size_t i = 0; i < n->u.bin.ninclude; i++)
			for (size_t j = 0; j < n->u.bin.nlabels; j++)
				if (strcmp(n->u.bin.include[i], n->u.bin.labels[j]) == 0) {
					fail(p, n->pos, "label \"%s\" must not occur in ON and GROUP clause at once",
					     n->u.bin.include[i]);
					return false;
				}
	}
	n->type = both_vec || l->type == GW_PQ_T_VECTOR || r->type == GW_PQ_T_VECTOR ? GW_PQ_T_VECTOR
										      : GW_PQ_T_SCALAR;
	return true;
}

static struct gw_pq_node *expr(struct parser *p, int min_prec)
{
	struct gw_pq_node *lhs = unary(p);
	while (lhs && !p->failed) {
		const struct opinfo *oi = peek_op(p);
		if (!oi || oi->prec < min_prec)
			break;
		struct gw_pq_node *n = node_new(p, GW_PQ_BINARY, p->tok.pos);
		if (!n)
			break;
		n->u.bin.op = oi->op;
		n->u.bin.lhs = lhs;
		lhs = n;
		next(p);
		if (!bin_modifiers(p, n))
			break;
		/* ^ is right-associative; everything else left. */
		n->u.bin.rhs = expr(p, oi->op == GW_PQ_POW ? oi->prec : oi->prec + 1);
		if (!n->u.bin.rhs || !bin_check(p, n))
			break;
	}
	if (p->failed) {
		gw_promql_free(lhs);
		return NULL;
	}
	return lhs;
}

static struct gw_pq_node *unary(struct parser *p)
{
	if (p->tok.kind == TK_SUB || p->tok.kind == TK_ADD) {
		size_t pos = p->tok.pos;
		char op = p->tok.kind == TK_SUB ? '-' : '+';
		next(p);
		struct gw_pq_node *inner = expr(p, 6); /* binds looser than ^ only */
		if (!inner)
			return NULL;
		if (inner->type != GW_PQ_T_SCALAR && inner->type != GW_PQ_T_VECTOR) {
			fail(p, pos, "unary expression only allowed on expressions of type scalar or instant vector, "
				     "got \"%s\"",
			     gw_pq_type_name(inner->type));
			gw_promql_free(inner);
			return NULL;
		}
		/* Fold "-1" into a number literal, as Prometheus does. */
		if (inner->kind == GW_PQ_NUMBER) {
			if (op == '-')
				inner->u.number = -inner->u.number;
			inner->pos = pos;
			return inner;
		}
		struct gw_pq_node *n = node_new(p, GW_PQ_UNARY, pos);
		if (!n) {
			gw_promql_free(inner);
			return NULL;
		}
		n->type = inner->type;
		n->u.unary.op = op;
		n->u.unary.expr = inner;
		return n;
	}
	struct gw_pq_node *n = primary(p);
	return n ? postfix(p, n) : NULL;
}

int gw_promql_parse(const char *query, struct gw_pq_node **root, struct gw_err *err)
{
	struct parser p = {.q = query, .err = err};
	*root = NULL;
	gw_pq_lex_init(&p.lx, query);
	next(&p);
	if (p.tok.kind == TK_EOF) {
		fail(&p, 0, "no expression found in input");
		return GW_EPARSE;
	}
	struct gw_pq_node *n = expr(&p, 0);
	if (n && p.tok.kind != TK_EOF) {
		unexpected(&p, NULL);
		gw_promql_free(n);
		n = NULL;
	}
	if (!n) {
		if (!p.failed)
			fail(&p, p.tok.pos, "invalid expression");
		return GW_EPARSE;
	}
	*root = n;
	return 0;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void gw_promql_free(struct gw_pq_node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case GW_PQ_STRING:
		free(n->u.string);
		break;
	case GW_PQ_VECTOR_SEL:
		free(n->u.sel.name);
		for (size_t i = 0; i < n->u.sel.nmatchers; i++) {
			free(n->u.sel.matchers[i].name);
			free(n->u.sel.matchers[i].value);
		}
		free(n->u.sel.matchers);
		break;
	case GW_PQ_MATRIX_SEL:
	case GW_PQ_SUBQUERY:
		gw_promql_free(n->u.range.vs);
		break;
	case GW_PQ_CALL:
		for (size_t i = 0; i < n->u.call.nargs; i++)
			gw_promql_free(n->u.call.args[i]);
		free(n->u.call.args);
		break;
	case GW_PQ_AGGREGATE:
		gw_promql_free(n->u.agg.expr);
		gw_promql_free(n->u.agg.param);
		free_strv(n->u.agg.grouping, n->u.agg.ngrouping);
		break;
	case GW_PQ_BINARY:
		gw_promql_free(n->u.bin.lhs);
		gw_promql_free(n->u.bin.rhs);
		free_strv(n->u.bin.labels, n->u.bin.nlabels);
		free_strv(n->u.bin.include, n->u.bin.ninclude);
		break;
	case GW_PQ_UNARY:
		gw_promql_free(n->u.unary.expr);
		break;
	case GW_PQ_PAREN:
		gw_promql_free(n->u.paren);
		break;
	default:
		break;
	}
	free(n);
}
