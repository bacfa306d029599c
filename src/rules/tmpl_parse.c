/*
 * tmpl_parse.c - Go text/template's parser, its expressions: pipelines
 * with their variable declarations, commands, operands and field chains,
 * literals, with Go's checks (functions defined, variables declared) and
 * messages ("template: NAME:LINE: unexpected \")\" in command").
 */
#include "rules/tmpl_parser.h"

#include <stdio.h>
#include <string.h>

struct tnode *gw_tmpl__p_fail(struct parser *p, const char *fmt, ...)
{
	if (p->rc)
		return NULL;
	char msg[GW_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->rc = gw_err_set(p->err, GW_EPARSE, "template: %s:%d: %s", p->t->name, p->line, msg);
	return NULL;
}

struct tnode *gw_tmpl__p_oom(struct parser *p)
{
	if (!p->rc)
		p->rc = gw_err_set(p->err, GW_ENOMEM, "out of memory");
	return NULL;
}

/* Go's parser reports the line of the furthest token its lexer has handed over. */
static void reach(struct parser *p, size_t j)
{
	if (j >= p->far) {
		p->far = j;
		p->line = p->tok[j].line;
	}
}

const struct ttoken *gw_tmpl__p_next(struct parser *p)
{
	const struct ttoken *t = &p->tok[p->i];
	reach(p, p->i);
	if (t->typ != TT_EOF)
		p->i++;
	return t;
}

const struct ttoken *gw_tmpl__p_peek(struct parser *p)
{
	reach(p, p->i);
	return &p->tok[p->i];
}

const struct ttoken *gw_tmpl__p_next_nonspace(struct parser *p)
{
	const struct ttoken *t;
	do
		t = gw_tmpl__p_next(p);
	while (t->typ == TT_SPACE);
	return t;
}

const struct ttoken *gw_tmpl__p_peek_nonspace(struct parser *p)
{
	size_t j = p->i;
	while (p->tok[j].typ == TT_SPACE)
		j++;
	reach(p, j);
	return &p->tok[j];
}

void gw_tmpl__p_backup_to(struct parser *p, const struct ttoken *t)
{
	p->i = (size_t)(t - p->tok);
}

/* Go's item.String(): EOF, <keyword>, "text" (at most 10 characters quoted). */
static void tok_desc(struct parser *p, const struct ttoken *t, char *out, size_t cap)
{
	const char *s = p->t->text + t->pos;
	if (t->typ == TT_EOF) {
		snprintf(out, cap, "EOF");
	} else if (t->typ == TT_ERROR) {
		snprintf(out, cap, "%s", t->msg);
	} else if (t->typ == TT_LEFT || t->typ == TT_RIGHT) {
		snprintf(out, cap, "\"%s\"",
			 t->typ == TT_LEFT ? "{{" : "}}"); /* trim markers are not the token's */
	} else if (t->typ > TT_KEYWORD) {
		snprintf(out, cap, "<%.*s>", (int)t->len, s);
	} else {
		struct gw_buf b;
		gw_buf_init(&b, 256);
		size_t n = 0, runes = 0;
		while (n < t->len && runes < 10) {
			n++;
			while (n < t->len && ((unsigned char)s[n] & 0xc0) == 0x80)
				n++;
			runes++;
		}
		gw_tmpl__quote(&b, s, n);
		snprintf(out, cap, "%s%s", b.data ? b.data : "\"\"", n < t->len ? "..." : "");
		gw_buf_release(&b);
	}
}

struct tnode *gw_tmpl__p_unexpected(struct parser *p, const struct ttoken *t, const char *context)
{
	char d[128];
	tok_desc(p, t, d, sizeof(d));
	if (t->typ == TT_ERROR) {
		p->line = t->line;
		if (p->action_line && p->action_line != t->line) {
			/* "unclosed action started at NAME:1", "... in action started at NAME:1" */
			size_t n = strlen(d);
			bool action = n >= 7 && !strcmp(d + n - 7, " action");
			return gw_tmpl__p_fail(p, "%s%s started at %s:%d", d, action ? "" : " in action",
					       p->t->name, p->action_line);
		}
		return gw_tmpl__p_fail(p, "%s", d);
	}
	return gw_tmpl__p_fail(p, "unexpected %s in %s", d, context);
}

struct tnode *gw_tmpl__p_new_node(struct parser *p, enum tnode_kind k, size_t pos)
{
	struct tnode *n = gw_arena_alloc(p->a, sizeof(*n));
	if (!n)
		return gw_tmpl__p_oom(p);
	n->k = k;
	n->pos = pos;
	n->line = p->line;
	return n;
}

/* Append x to a growing array of pointers in the arena. */
int gw_tmpl__p_push(struct parser *p, void ***arr, size_t *n, void *x)
{
	if ((*n & (*n - 1)) == 0 || *n == 0) {
		size_t cap = *n ? 2 * *n : 4;
		void **a = gw_arena_alloc(p->a, cap * sizeof(void *));
		if (!a) {
			gw_tmpl__p_oom(p);
			return -1;
		}
		if (*n)
			memcpy(a, *arr, *n * sizeof(void *));
		*arr = a;
	}
	(*arr)[(*n)++] = x;
	return 0;
}

void gw_tmpl__p_declare(struct parser *p, const char *name)
{
	PUSH(p, p->vars, p->nvars, (void *)name);
}

const char *gw_tmpl__p_tok_str(struct parser *p, const struct ttoken *t)
{
	char *s = gw_arena_strndup(p->a, p->t->text + t->pos, t->len);
	if (!s)
		gw_tmpl__p_oom(p);
	return s;
}

struct tnode *gw_tmpl__p_pipeline(struct parser *p, const char *context, enum ttok end);
struct tnode *gw_tmpl__p_item_list(struct parser *p, struct tnode **stop);

static struct tnode *number(struct parser *p, const struct ttoken *t)
{
	struct tnode *n = gw_tmpl__p_new_node(p, TN_NUMBER, t->pos);
	FAIL_IF(p);
	char msg[128];
	if (gw_tmpl__number(n, p->t->text + t->pos, t->len, t->typ == TT_CHARCONST, msg, sizeof(msg)) < 0)
		return gw_tmpl__p_fail(p, "%s", msg);
	return n;
}

struct tnode *gw_tmpl__p_term(struct parser *p)
{
	const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
	struct tnode *n;
	switch (t->typ) {
	case TT_IDENT:
		if (!gw_tmpl__func_find(p->t->text + t->pos, t->len))
			return gw_tmpl__p_fail(p, "function \"%.*s\" not defined", (int)t->len,
					       p->t->text + t->pos);
		n = gw_tmpl__p_new_node(p, TN_IDENT, t->pos);
		FAIL_IF(p);
		n->s = gw_tmpl__p_tok_str(p, t);
		n->n = t->len;
		return n;
	case TT_DOT:
		return gw_tmpl__p_new_node(p, TN_DOT, t->pos);
	case TT_NIL:
		return gw_tmpl__p_new_node(p, TN_NIL, t->pos);
	case TT_VAR:
		n = gw_tmpl__p_new_node(p, TN_VAR, t->pos);
		FAIL_IF(p);
		n->s = gw_tmpl__p_tok_str(p, t);
		n->n = t->len;
		FAIL_IF(p);
		for (size_t i = p->nvars; i-- > 0;)
			if (strcmp(p->vars[i], n->s) == 0)
				return n;
		return gw_tmpl__p_fail(p, "undefined variable \"%s\"", n->s);
	case TT_FIELD:
		n = gw_tmpl__p_new_node(p, TN_FIELD, t->pos);
		FAIL_IF(p);
		PUSH(p, n->idents, n->nidents,
		     (void *)gw_arena_strndup(p->a, p->t->text + t->pos + 1, t->len - 1));
		return n;
	case TT_BOOL:
		n = gw_tmpl__p_new_node(p, TN_BOOL, t->pos);
		FAIL_IF(p);
		n->bval = p->t->text[t->pos] == 't';
		return n;
	case TT_CHARCONST:
	case TT_NUMBER:
		return number(p, t);
	case TT_LPAREN:
		if (p->depth >= MAX_DEPTH)
			return gw_tmpl__p_fail(p, "max expression depth exceeded");
		p->depth++;
		n = gw_tmpl__p_pipeline(p, "parenthesized pipeline", TT_RPAREN);
		p->depth--;
		return n;
	case TT_STRING:
	case TT_RAWSTRING: {
		n = gw_tmpl__p_new_node(p, TN_STRING, t->pos);
		FAIL_IF(p);
		const char *s = p->t->text + t->pos;
		char *v = gw_arena_alloc(p->a, t->len + 1);
		if (!v)
			return gw_tmpl__p_oom(p);
		n->src = s;
		n->srclen = t->len;
		n->s = v;
		if (t->typ == TT_RAWSTRING) {
			/* Go drops carriage returns from raw strings */
			for (size_t i = 1; i + 1 < t->len; i++)
				if (s[i] != '\r')
					v[n->n++] = s[i];
		} else if (gw_tmpl__unquote(s, t->len, '"', v, &n->n) < 0) {
			return gw_tmpl__p_fail(p, "invalid syntax");
		}
		return n;
	}
	default:
		gw_tmpl__p_backup_to(p, t);
		return NULL;
	}
}

static struct tnode *operand(struct parser *p)
{
	struct tnode *n = gw_tmpl__p_term(p);
	if (!n || gw_tmpl__p_peek(p)->typ != TT_FIELD)
		return n;
	if (n->k == TN_BOOL || n->k == TN_STRING || n->k == TN_NUMBER || n->k == TN_NIL || n->k == TN_DOT) {
		struct gw_buf b, q;
		gw_buf_init(&b, 1024);
		gw_buf_init(&q, 4096);
		gw_tmpl__node_str(&b, n);
		gw_tmpl__quote(&q, b.data ? b.data : "", b.len);
		gw_tmpl__p_fail(p, "unexpected . after term %s", q.data);
		gw_buf_release(&b);
		gw_buf_release(&q);
		return NULL;
	}
	struct tnode *c = n;
	if (n->k != TN_FIELD && n->k != TN_VAR) {
		c = gw_tmpl__p_new_node(p, TN_CHAIN, gw_tmpl__p_peek(p)->pos);
		FAIL_IF(p);
		c->sub = n;
	} else {
		n->pos =
		    gw_tmpl__p_peek(p)->pos; /* Go places a chain at its first field: errors point there */
	}
	while (gw_tmpl__p_peek(p)->typ == TT_FIELD) {
		const struct ttoken *t = gw_tmpl__p_next(p);
		PUSH(p, c->idents, c->nidents,
		     (void *)gw_arena_strndup(p->a, p->t->text + t->pos + 1, t->len - 1));
		FAIL_IF(p);
	}
	return c;
}

static struct tnode *command(struct parser *p)
{
	struct tnode *cmd = gw_tmpl__p_new_node(p, TN_COMMAND, gw_tmpl__p_peek_nonspace(p)->pos);
	FAIL_IF(p);
	for (;;) {
		gw_tmpl__p_peek_nonspace(p);
		struct tnode *o = operand(p);
		FAIL_IF(p);
		if (o)
			PUSH(p, cmd->kids, cmd->nkids, o);
		const struct ttoken *t = gw_tmpl__p_next(p);
		if (t->typ == TT_SPACE)
			continue;
		if (t->typ == TT_RIGHT || t->typ == TT_RPAREN)
			gw_tmpl__p_backup_to(p, t);
		else if (t->typ != TT_PIPE)
			return gw_tmpl__p_unexpected(p, t, "operand");
		break;
	}
	if (cmd->nkids == 0)
		return gw_tmpl__p_fail(p, "empty command");
	return cmd;
}

static struct tnode *decl_var(struct parser *p, struct tnode *pipe, const struct ttoken *v)
{
	struct tnode *n = gw_tmpl__p_new_node(p, TN_VAR, v->pos);
	FAIL_IF(p);
	n->s = gw_tmpl__p_tok_str(p, v);
	n->n = v->len;
	FAIL_IF(p);
	PUSH(p, pipe->decl, pipe->ndecl, n);
	gw_tmpl__p_declare(p, n->s);
	return n;
}

struct tnode *gw_tmpl__p_pipeline(struct parser *p, const char *context, enum ttok end)
{
	const struct ttoken *first = gw_tmpl__p_peek_nonspace(p);
	struct tnode *pipe = gw_tmpl__p_new_node(p, TN_PIPE, first->pos);
	FAIL_IF(p);
	pipe->line = first->line;
decls:
	if (gw_tmpl__p_peek_nonspace(p)->typ == TT_VAR) {
		const struct ttoken *v = gw_tmpl__p_next_nonspace(p);
		const struct ttoken *after = gw_tmpl__p_peek(p);
		const struct ttoken *nx = gw_tmpl__p_peek_nonspace(p);
		if (nx->typ == TT_ASSIGN || nx->typ == TT_DECLARE) {
			pipe->assign = nx->typ == TT_ASSIGN;
			gw_tmpl__p_next_nonspace(p);
			decl_var(p, pipe, v);
			FAIL_IF(p);
		} else if (nx->typ == TT_CHAR && p->t->text[nx->pos] == ',') {
			gw_tmpl__p_next_nonspace(p);
			decl_var(p, pipe, v);
			FAIL_IF(p);
			if (strcmp(context, "range") == 0 && pipe->ndecl < 2) {
				enum ttok k = gw_tmpl__p_peek_nonspace(p)->typ;
				if (k == TT_VAR || k == TT_RIGHT || k == TT_RPAREN)
					goto decls;
				return gw_tmpl__p_fail(p, "range can only initialize variables");
			}
			return gw_tmpl__p_fail(p, "too many declarations in %s", context);
		} else if (after->typ == TT_SPACE) {
			gw_tmpl__p_backup_to(p, v);
		} else {
			gw_tmpl__p_backup_to(p, v);
		}
	}
	for (;;) {
		const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
		if (t->typ == end) {
			if (pipe->nkids == 0)
				return gw_tmpl__p_fail(p, "missing value for %s", context);
			for (size_t i = 1; i < pipe->nkids; i++) {
				enum tnode_kind k = pipe->kids[i]->kids[0]->k;
				if (k == TN_BOOL || k == TN_DOT || k == TN_NIL || k == TN_NUMBER ||
				    k == TN_STRING)
					return gw_tmpl__p_fail(
					    p, "non executable command in pipeline stage %zu", i + 1);
			}
			return pipe;
		}
		switch (t->typ) {
		case TT_BOOL:
		case TT_CHARCONST:
		case TT_DOT:
		case TT_FIELD:
		case TT_IDENT:
		case TT_NUMBER:
		case TT_NIL:
		case TT_RAWSTRING:
		case TT_STRING:
		case TT_VAR:
		case TT_LPAREN: {
			gw_tmpl__p_backup_to(p, t);
			struct tnode *c = command(p);
			FAIL_IF(p);
			PUSH(p, pipe->kids, pipe->nkids, c);
			FAIL_IF(p);
			break;
		}
		default:
			return gw_tmpl__p_unexpected(p, t, context);
		}
	}
}
