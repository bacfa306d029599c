/*
 * parse.c - recursive-descent PromQL parser with Prometheus' type checks.
 *
 * Binary operators by precedence climbing (or < and/unless < comparisons <
 * +,- < *,/,%,atan2 < ^, which is right-associative); unary minus binds
 * looser than ^ and tighter than *, as in Prometheus' grammar.
 */
#include "promql/parse_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>



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
struct gw_pq_node *pq_fail(struct parser *p, size_t pos, const char *fmt, ...)
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

void pq_next(struct parser *p)
{
	gw_pq_lex_next(&p->lx, &p->tok);
}

bool pq_is_ident(const struct parser *p, const char *kw)
{
	return p->tok.kind == TK_IDENT && strlen(kw) == p->tok.len &&
	       strncasecmp(p->q + p->tok.pos, kw, p->tok.len) == 0;
}

/* Go's %q of s[0..len): quotes, backslashes and control bytes escaped; at most max bytes, then "...". */
static void go_quote(char *buf, size_t n, const char *s, size_t len, size_t max)
{
	size_t o = 0;
	buf[o++] = '"';
	for (size_t i = 0; i < len && i < max && o + 6 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c == '\n' || c == '\t') {
			buf[o++] = '\\';
			buf[o++] = c == '\n' ? 'n' : 't';
		} else if (c < 0x20) {
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	if (len > max && o + 4 < n)
		memcpy(buf + o, "...", 4);
}

/* The token as Prometheus' parser names it in "unexpected ...": its kind,
 * then its text (`identifier "bar"`, `number "2"`, `<op:*>`, `<by>`, `"("`). */
static const char *tok_desc(const struct parser *p, char *buf, size_t n)
{
	static const char *const keywords[] = {"by",	   "without", "on",	 "ignoring", "group_left",
					       "group_right", "bool",    "offset", "start",    "end"};
	static const char *const opwords[] = {"and", "or", "unless", "atan2"};
	const char *t = p->q + p->tok.pos;
	size_t len = p->tok.len;
	char q[160];
	switch (p->tok.kind) {
	case TK_EOF:
		return "end of input";
	case TK_IDENT:
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
			if (pq_is_ident(p, keywords[i])) {
				snprintf(buf, n, "<%.*s>", (int)len, t);
				return buf;
			}
		for (size_t i = 0; i < sizeof(opwords) / sizeof(opwords[0]); i++)
			if (pq_is_ident(p, opwords[i])) {
				snprintf(buf, n, "<op:%.*s>", (int)len, t);
				return buf;
			}
		if (pq_aggop_of(p) >= 0) {
			snprintf(buf, n, "<aggr:%.*s>", (int)len, t);
			return buf;
		}
		go_quote(q, sizeof(q), t, len, 40);
		snprintf(buf, n, "identifier %s", q);
		return buf;
	case TK_NUMBER:
	case TK_STRING:
	case TK_DURATION:
		go_quote(q, sizeof(q), t, len, 10);
		snprintf(buf, n, "%s %s",
			 p->tok.kind == TK_NUMBER ? "number" : p->tok.kind == TK_STRING ? "string" : "duration", q);
		return buf;
	case TK_ADD: case TK_SUB: case TK_MUL: case TK_DIV: case TK_MOD: case TK_POW: case TK_EQLC: case TK_NEQ:
	case TK_GTR: case TK_LSS: case TK_GTE: case TK_LTE: case TK_RE: case TK_NRE: case TK_ASSIGN:
		snprintf(buf, n, "<op:%.*s>", (int)len, t);
		return buf;
	default:
		go_quote(buf, n, t, len, 40);
		return buf;
	}
}

struct gw_pq_node *pq_unexpected(struct parser *p, const char *where)
{
	char b[256];
	if (p->tok.kind == TK_ERROR)
		return pq_fail(p, p->tok.pos, "%s", p->tok.msg);
	return pq_fail(p, p->tok.pos, "unexpected %s%s%s", tok_desc(p, b, sizeof(b)), where ? " in " : "",
		    where ? where : "");
}

bool pq_expect(struct parser *p, enum gw_pq_tok kind, const char *where)
{
	if (p->tok.kind == kind) {
		pq_next(p);
		return true;
	}
	pq_unexpected(p, where);
	return false;
}

struct gw_pq_node *pq_node_new(struct parser *p, enum gw_pq_kind kind, size_t pos)
{
	struct gw_pq_node *n = calloc(1, sizeof(*n));
	if (!n) {
		pq_fail(p, pos, "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->pos = pos;
	return n;
}

static unsigned height_of(const struct gw_pq_node *n)
{
	return n ? (n->height ? n->height : 1) : 0;
}

/* Records the height of a node whose children are complete, and refuses it
 * (freeing it) when the tree grows past GW_PQ_MAX_DEPTH. Every node with
 * children passes through here once, children first, so heights are exact. */
struct gw_pq_node *pq_seal(struct parser *p, struct gw_pq_node *n)
{
	if (!n)
		return NULL;
	unsigned h = 0;
	switch (n->kind) {
	case GW_PQ_MATRIX_SEL:
	case GW_PQ_SUBQUERY:
		h = height_of(n->u.range.vs);
		break;
	case GW_PQ_CALL:
		for (size_t i = 0; i < n->u.call.nargs; i++)
			if (height_of(n->u.call.args[i]) > h)
				h = height_of(n->u.call.args[i]);
		break;
	case GW_PQ_AGGREGATE:
		h = height_of(n->u.agg.expr);
		if (height_of(n->u.agg.param) > h)
			h = height_of(n->u.agg.param);
		break;
	case GW_PQ_BINARY:
		h = height_of(n->u.bin.lhs);
		if (height_of(n->u.bin.rhs) > h)
			h = height_of(n->u.bin.rhs);
		break;
	case GW_PQ_UNARY:
		h = height_of(n->u.unary.expr);
		break;
	case GW_PQ_PAREN:
		h = height_of(n->u.paren);
		break;
	default:
		break;
	}
	n->height = h + 1;
	if (n->height > GW_PQ_MAX_DEPTH) {
		size_t pos = n->pos;
		gw_promql_free(n);
		return pq_fail(p, pos, "query is nested too deeply: more than %d levels", GW_PQ_MAX_DEPTH);
	}
	return n;
}

char *pq_tok_strdup(const struct parser *p)
{
	return strndup(p->q + p->tok.pos, p->tok.len);
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
		struct gw_pq_node *n = pq_node_new(p, GW_PQ_NUMBER, pos);
		if (n) {
			n->type = GW_PQ_T_SCALAR;
			n->u.number = p->tok.number;
		}
		pq_next(p);
		return n;
	}
	case TK_STRING: {
		struct gw_pq_node *n = pq_node_new(p, GW_PQ_STRING, pos);
		if (!n)
			return NULL;
		n->type = GW_PQ_T_STRING;
		n->u.string = gw_pq_unquote(p->q + pos, p->tok.len);
		pq_next(p);
		if (!n->u.string) {
			gw_promql_free(n);
			return pq_fail(p, pos, "invalid escape in string");
		}
		return n;
	}
	case TK_LPAREN: {
		pq_next(p);
		struct gw_pq_node *inner = pq_expr(p, 0);
		if (!inner)
			return NULL;
		if (!pq_expect(p, TK_RPAREN, "paren expression")) {
			gw_promql_free(inner);
			return NULL;
		}
		struct gw_pq_node *n = pq_node_new(p, GW_PQ_PAREN, pos);
		if (!n) {
			gw_promql_free(inner);
			return NULL;
		}
		n->type = inner->type;
		n->u.paren = inner;
		return pq_seal(p, n);
	}
	case TK_LBRACE:
		return pq_vector_selector(p, NULL, pos);
	case TK_IDENT: {
		int agg = pq_aggop_of(p);
		if (agg >= 0)
			return pq_seal(p, pq_aggregate(p, (enum gw_pq_aggop)agg, pos));
		for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (pq_is_ident(p, reserved[i]))
				return pq_unexpected(p, NULL);
		char *name = pq_tok_strdup(p);
		pq_next(p);
		if (p->tok.kind == TK_LPAREN) {
			const struct gw_pq_func *f = gw_pq_func_find(name, strlen(name));
			if (!f) {
				/* Prometheus names the function once its arguments parse:
				 * an error inside them (an unclosed parenthesis) comes first */
				pq_unknown_call(p);
				if (!p->failed)
					pq_fail(p, pos, "unknown function with name \"%s\"", name);
				free(name);
				return NULL;
			}
			free(name);
			return pq_seal(p, pq_call(p, f, pos));
		}
		return pq_vector_selector(p, name, pos);
	}
	case TK_DURATION:
		return pq_fail(p, pos, "unexpected duration \"%.*s\"", (int)p->tok.len, p->q + pos);
	default:
		return pq_unexpected(p, NULL);
	}
}

static bool at_modifier(struct parser *p, enum gw_pq_at *at, int64_t *at_ms)
{
	size_t pos = p->tok.pos;
	if (*at != GW_PQ_AT_NONE) {
		pq_fail(p, pos, "@ <timestamp> may not be set multiple times");
		return false;
	}
	pq_next(p);
	if (pq_is_ident(p, "start") || pq_is_ident(p, "end")) {
		*at = pq_is_ident(p, "start") ? GW_PQ_AT_START : GW_PQ_AT_END;
		pq_next(p);
		return pq_expect(p, TK_LPAREN, "@ modifier") && pq_expect(p, TK_RPAREN, "@ modifier");
	}
	double sign = 1;
	if (p->tok.kind == TK_SUB || p->tok.kind == TK_ADD) {
		sign = p->tok.kind == TK_SUB ? -1 : 1;
		pq_next(p);
	}
	if (p->tok.kind != TK_NUMBER) {
		pq_unexpected(p, "@, expected timestamp");
		return false;
	}
	double v = sign * p->tok.number;
	if (!(v >= -(double)GW_PQ_MAX_TIME_MS / 1000 && v <= (double)GW_PQ_MAX_TIME_MS / 1000)) {
		pq_fail(p, pos, "timestamp out of bounds for @ modifier: %g", v);
		return false;
	}
	*at = GW_PQ_AT_TIME;
	*at_ms = (int64_t)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5));
	pq_next(p);
	return true;
}

static bool offset_modifier(struct parser *p, int64_t *offset, bool *seen)
{
	size_t pos = p->tok.pos;
	if (*seen) {
		pq_fail(p, pos, "offset may not be set multiple times");
		return false;
	}
	pq_next(p);
	int64_t sign = 1;
	if (p->tok.kind == TK_SUB) {
		sign = -1;
		pq_next(p);
	}
	if (p->tok.kind != TK_DURATION) {
		pq_unexpected(p, "offset, expected duration");
		return false;
	}
	if (p->tok.ms > GW_PQ_MAX_DURATION_MS) {
		pq_fail(p, p->tok.pos, "duration out of range: \"%.*s\"", (int)p->tok.len, p->q + p->tok.pos);
		return false;
	}
	*offset = sign * p->tok.ms;
	*seen = true;
	pq_next(p);
	return true;
}

/* [range] and [range:step] after an expression. */
static struct gw_pq_node *range_suffix(struct parser *p, struct gw_pq_node *n)
{
	size_t pos = p->tok.pos;
	pq_next(p);
	if (p->tok.kind != TK_DURATION) {
		gw_promql_free(n);
		return pq_unexpected(p, "range, expected duration");
	}
	int64_t range = p->tok.ms, step = 0;
	size_t range_pos = p->tok.pos, step_pos = 0;
	pq_next(p);
	bool sub = false;
	if (p->tok.kind == TK_COLON) {
		sub = true;
		pq_next(p);
		if (p->tok.kind == TK_DURATION) {
			step = p->tok.ms;
			step_pos = p->tok.pos;
			pq_next(p);
		}
	}
	if (range > GW_PQ_MAX_DURATION_MS || step > GW_PQ_MAX_DURATION_MS) {
		gw_promql_free(n);
		return pq_fail(p, range > GW_PQ_MAX_DURATION_MS ? range_pos : step_pos, "duration out of range");
	}
	if (!pq_expect(p, TK_RBRACKET, sub ? "subquery selector" : "range selector")) {
		gw_promql_free(n);
		return NULL;
	}
	if (!sub && n->kind != GW_PQ_VECTOR_SEL) {
		pq_fail(p, n->pos, "ranges only allowed for vector selectors");
		gw_promql_free(n);
		return NULL;
	}
	if (!sub && (n->u.sel.offset_ms || n->u.sel.at != GW_PQ_AT_NONE)) {
		pq_fail(p, pos, "no offset or @ modifiers allowed before range");
		gw_promql_free(n);
		return NULL;
	}
	if (sub && n->type != GW_PQ_T_VECTOR) {
		pq_fail(p, n->pos, "subquery is only allowed on instant vector, got %s", gw_pq_type_name(n->type));
		gw_promql_free(n);
		return NULL;
	}
	struct gw_pq_node *r = pq_node_new(p, sub ? GW_PQ_SUBQUERY : GW_PQ_MATRIX_SEL, n->pos);
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
		return pq_fail(p, pos, "range must be positive");
	}
	return pq_seal(p, r);
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
		} else if (pq_is_ident(p, "offset")) {
			if (!is_sel && !is_range) {
				pq_fail(p, p->tok.pos, "offset modifier must be preceded by an instant vector selector "
						    "or range vector selector or a subquery");
				break;
			}
			if (!offset_modifier(p, is_sel ? &target->u.sel.offset_ms : &target->u.range.offset_ms,
					     &offset_seen))
				break;
		} else if (p->tok.kind == TK_AT) {
			if (!is_sel && !is_range) {
				pq_fail(p, p->tok.pos, "@ modifier must be preceded by an instant vector selector or "
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
		if (p->tok.kind == ops[i].tok && (!ops[i].kw || pq_is_ident(p, ops[i].kw)))
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
	if (pq_is_ident(p, "bool")) {
		if (!is_comparison(n->u.bin.op)) {
			pq_fail(p, n->u.bin.op_pos, "bool modifier can only be used on comparison operators");
			return false;
		}
		n->u.bin.return_bool = true;
		pq_next(p);
	}
	bool on = pq_is_ident(p, "on");
	if (on || pq_is_ident(p, "ignoring")) {
		n->u.bin.on = on;
		pq_next(p);
		if (!pq_label_list(p, &n->u.bin.labels, &n->u.bin.nlabels, "grouping opts"))
			return false;
		if (on && !n->u.bin.labels) /* "on()" is meaningful: match on no labels */
			n->u.bin.labels = calloc(1, sizeof(char *));
		bool left = pq_is_ident(p, "group_left");
		if (left || pq_is_ident(p, "group_right")) {
			if (is_set(n->u.bin.op)) {
				pq_fail(p, p->tok.pos, "no grouping allowed for \"%s\" operation",
				     gw_pq_binop_name(n->u.bin.op));
				return false;
			}
			n->u.bin.card = left ? GW_PQ_CARD_MANY_TO_ONE : GW_PQ_CARD_ONE_TO_MANY;
			pq_next(p);
			if (p->tok.kind == TK_LPAREN &&
			    !pq_label_list(p, &n->u.bin.include, &n->u.bin.ninclude, "grouping opts"))
				return false;
		}
	}
	return true;
}

static void free_strv(char **v, size_t n);

/* Prometheus' checks on operand types, once both sides are known. */
static bool bin_check(struct parser *p, struct gw_pq_node *n)
{
	const struct gw_pq_node *l = n->u.bin.lhs, *r = n->u.bin.rhs;
	enum gw_pq_binop op = n->u.bin.op;
	for (int i = 0; i < 2; i++) {
		const struct gw_pq_node *s = i ? r : l;
		if (s->type != GW_PQ_T_SCALAR && s->type != GW_PQ_T_VECTOR) {
			pq_fail(p, s->pos, "binary expression must contain only scalar and instant vector types");
			return false;
		}
	}
	bool both_vec = l->type == GW_PQ_T_VECTOR && r->type == GW_PQ_T_VECTOR;
	if (is_comparison(op) && !n->u.bin.return_bool && l->type == GW_PQ_T_SCALAR &&
	    r->type == GW_PQ_T_SCALAR) {
		pq_fail(p, n->u.bin.op_pos, "comparisons between scalars must use BOOL modifier");
		return false;
	}
	/* 2.42 refuses matching labels beside a scalar, and drops a bare on(),
	 * ignoring() or group_left/right there. */
	if (!both_vec && n->u.bin.nlabels) {
		pq_fail(p, n->pos, "vector matching only allowed between instant vectors");
		return false;
	}
	if (!both_vec) {
		free_strv(n->u.bin.labels, n->u.bin.nlabels);
		free_strv(n->u.bin.include, n->u.bin.ninclude);
		n->u.bin.labels = n->u.bin.include = NULL;
		n->u.bin.nlabels = n->u.bin.ninclude = 0;
		n->u.bin.card = GW_PQ_CARD_ONE_TO_ONE;
		n->u.bin.on = false;
	}
	if (is_set(op)) {
		if (!both_vec) {
			pq_fail(p, n->pos, "set operator \"%s\" not allowed in binary scalar expression",
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
					pq_fail(p, n->u.bin.op_pos, "label \"%s\" must not occur in ON and GROUP clause at once",
					     n->u.bin.include[i]);
					return false;
				}
	}
	n->type = both_vec || l->type == GW_PQ_T_VECTOR || r->type == GW_PQ_T_VECTOR ? GW_PQ_T_VECTOR
										      : GW_PQ_T_SCALAR;
	return true;
}

struct gw_pq_node *pq_expr(struct parser *p, int min_prec)
{
	/* Parentheses, unary operators and right operands recurse through here
	 * before any node is sealed: bound the recursion itself too. */
	if (p->depth >= GW_PQ_MAX_DEPTH)
		return pq_fail(p, p->tok.pos, "query is nested too deeply: more than %d levels", GW_PQ_MAX_DEPTH);
	p->depth++;
	struct gw_pq_node *lhs = unary(p);
	while (lhs && !p->failed) {
		const struct opinfo *oi = peek_op(p);
		if (!oi || oi->prec < min_prec)
			break;
		struct gw_pq_node *n = pq_node_new(p, GW_PQ_BINARY, lhs->pos); /* 2.42 places it at its left operand */
		if (!n)
			break;
		n->u.bin.op_pos = p->tok.pos;
		n->u.bin.op = oi->op;
		n->u.bin.lhs = lhs;
		lhs = n;
		pq_next(p);
		if (!bin_modifiers(p, n))
			break;
		/* ^ is right-associative; everything else left. */
		n->u.bin.rhs = pq_expr(p, oi->op == GW_PQ_POW ? oi->prec : oi->prec + 1);
		if (!n->u.bin.rhs || !bin_check(p, n))
			break;
		lhs = pq_seal(p, n);
	}
	p->depth--;
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
		pq_next(p);
		struct gw_pq_node *inner = pq_expr(p, 6); /* binds looser than ^ only */
		if (!inner)
			return NULL;
		if (inner->type != GW_PQ_T_SCALAR && inner->type != GW_PQ_T_VECTOR) {
			pq_fail(p, pos, "unary expression only allowed on expressions of type scalar or instant vector, "
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
		struct gw_pq_node *n = pq_node_new(p, GW_PQ_UNARY, pos);
		if (!n) {
			gw_promql_free(inner);
			return NULL;
		}
		n->type = inner->type;
		n->u.unary.op = op;
		n->u.unary.expr = inner;
		return pq_seal(p, n);
	}
	struct gw_pq_node *n = primary(p);
	return n ? postfix(p, n) : NULL;
}

int gw_promql_parse(const char *query, struct gw_pq_node **root, struct gw_err *err)
{
	struct parser p = {.q = query, .err = err};
	*root = NULL;
	gw_pq_lex_init(&p.lx, query);
	pq_next(&p);
	if (p.tok.kind == TK_EOF) {
		pq_fail(&p, 0, "no expression found in input");
		return GW_EPARSE;
	}
	return pq_finish(&p, pq_expr(&p, 0), root);
}

int pq_finish(struct parser *p, struct gw_pq_node *n, struct gw_pq_node **root)
{
	if (n && p->tok.kind != TK_EOF) {
		pq_unexpected(p, NULL);
		gw_promql_free(n);
		n = NULL;
	}
	if (!n) {
		if (!p->failed)
			pq_fail(p, p->tok.pos, "invalid expression");
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
