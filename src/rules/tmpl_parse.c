/*
 * tmpl_parse.c - Go text/template's parser: the tree of text, actions,
 * if / range / with, pipelines, commands and operands, with Go's checks
 * (functions defined, variables declared, {{break}} inside {{range}}) and
 * its messages ("template: NAME:LINE: unexpected EOF").
 */
#include "rules/tmpl_int.h"
#include "rules/tmpl_lex.h"

#include <stdio.h>
#include <string.h>

struct parser {
	struct gw_tmpl *t;
	struct gw_arena *a;
	const struct ttoken *tok;
	size_t i;	   /* next token */
	int line;	   /* the line of the last token read */
	const char **vars; /* declared variables, innermost last */
	size_t nvars, capvars;
	int range_depth;
	int depth; /* nested parentheses and control structures */
	int rc;
	struct gw_err *err;
};

/* Go stops at 10,000 nested parentheses ("max expression depth
 * exceeded"); a C stack, sanitizers included, is safe at 1,000, which no
 * real template comes near. */
#define MAX_DEPTH 1000

#define FAIL_IF(p)                                                                                           \
	do {                                                                                                 \
		if ((p)->rc)                                                                                 \
			return NULL;                                                                         \
	} while (0)

static struct tnode *fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static struct tnode *fail(struct parser *p, const char *fmt, ...)
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

static struct tnode *oom(struct parser *p)
{
	if (!p->rc)
		p->rc = gw_err_set(p->err, GW_ENOMEM, "out of memory");
	return NULL;
}

static const struct ttoken *next(struct parser *p)
{
	const struct ttoken *t = &p->tok[p->i];
	if (t->typ != TT_EOF)
		p->i++;
	p->line = t->line;
	return t;
}

static const struct ttoken *peek(struct parser *p)
{
	return &p->tok[p->i];
}

static const struct ttoken *next_nonspace(struct parser *p)
{
	const struct ttoken *t;
	do
		t = next(p);
	while (t->typ == TT_SPACE);
	return t;
}

static const struct ttoken *peek_nonspace(struct parser *p)
{
	size_t j = p->i;
	while (p->tok[j].typ == TT_SPACE)
		j++;
	return &p->tok[j];
}

static void backup_to(struct parser *p, const struct ttoken *t)
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

static struct tnode *unexpected(struct parser *p, const struct ttoken *t, const char *context)
{
	char d[128];
	tok_desc(p, t, d, sizeof(d));
	if (t->typ == TT_ERROR) {
		p->line = t->line;
		return fail(p, "%s", d);
	}
	return fail(p, "unexpected %s in %s", d, context);
}

static struct tnode *new_node(struct parser *p, enum tnode_kind k, size_t pos)
{
	struct tnode *n = gw_arena_alloc(p->a, sizeof(*n));
	if (!n)
		return oom(p);
	n->k = k;
	n->pos = pos;
	n->line = p->line;
	return n;
}

/* Append x to a growing array of pointers in the arena. */
static int push(struct parser *p, void ***arr, size_t *n, void *x)
{
	if ((*n & (*n - 1)) == 0 || *n == 0) {
		size_t cap = *n ? 2 * *n : 4;
		void **a = gw_arena_alloc(p->a, cap * sizeof(void *));
		if (!a) {
			oom(p);
			return -1;
		}
		if (*n)
			memcpy(a, *arr, *n * sizeof(void *));
		*arr = a;
	}
	(*arr)[(*n)++] = x;
	return 0;
}

#define PUSH(p, arr, n, x) push(p, (void ***)&(arr), &(n), x)

static void declare(struct parser *p, const char *name)
{
	PUSH(p, p->vars, p->nvars, (void *)name);
}

static const char *tok_str(struct parser *p, const struct ttoken *t)
{
	char *s = gw_arena_strndup(p->a, p->t->text + t->pos, t->len);
	if (!s)
		oom(p);
	return s;
}

static struct tnode *pipeline(struct parser *p, const char *context, enum ttok end);
static struct tnode *item_list(struct parser *p, struct tnode **stop);

static struct tnode *number(struct parser *p, const struct ttoken *t)
{
	struct tnode *n = new_node(p, TN_NUMBER, t->pos);
	FAIL_IF(p);
	char msg[128];
	if (gw_tmpl__number(n, p->t->text + t->pos, t->len, t->typ == TT_CHARCONST, msg, sizeof(msg)) < 0)
		return fail(p, "%s", msg);
	return n;
}

static struct tnode *term(struct parser *p)
{
	const struct ttoken *t = next_nonspace(p);
	struct tnode *n;
	switch (t->typ) {
	case TT_IDENT:
		if (!gw_tmpl__func_find(p->t->text + t->pos, t->len))
			return fail(p, "function \"%.*s\" not defined", (int)t->len, p->t->text + t->pos);
		n = new_node(p, TN_IDENT, t->pos);
		FAIL_IF(p);
		n->s = tok_str(p, t);
		n->n = t->len;
		return n;
	case TT_DOT:
		return new_node(p, TN_DOT, t->pos);
	case TT_NIL:
		return new_node(p, TN_NIL, t->pos);
	case TT_VAR:
		n = new_node(p, TN_VAR, t->pos);
		FAIL_IF(p);
		n->s = tok_str(p, t);
		n->n = t->len;
		FAIL_IF(p);
		for (size_t i = p->nvars; i-- > 0;)
			if (strcmp(p->vars[i], n->s) == 0)
				return n;
		return fail(p, "undefined variable \"%s\"", n->s);
	case TT_FIELD:
		n = new_node(p, TN_FIELD, t->pos);
		FAIL_IF(p);
		PUSH(p, n->idents, n->nidents,
		     (void *)gw_arena_strndup(p->a, p->t->text + t->pos + 1, t->len - 1));
		return n;
	case TT_BOOL:
		n = new_node(p, TN_BOOL, t->pos);
		FAIL_IF(p);
		n->bval = p->t->text[t->pos] == 't';
		return n;
	case TT_CHARCONST:
	case TT_NUMBER:
		return number(p, t);
	case TT_LPAREN:
		if (p->depth >= MAX_DEPTH)
			return fail(p, "max expression depth exceeded");
		p->depth++;
		n = pipeline(p, "parenthesized pipeline", TT_RPAREN);
		p->depth--;
		return n;
	case TT_STRING:
	case TT_RAWSTRING: {
		n = new_node(p, TN_STRING, t->pos);
		FAIL_IF(p);
		const char *s = p->t->text + t->pos;
		char *v = gw_arena_alloc(p->a, t->len + 1);
		if (!v)
			return oom(p);
		n->src = s;
		n->srclen = t->len;
		n->s = v;
		if (t->typ == TT_RAWSTRING) {
			/* Go drops carriage returns from raw strings */
			for (size_t i = 1; i + 1 < t->len; i++)
				if (s[i] != '\r')
					v[n->n++] = s[i];
		} else if (gw_tmpl__unquote(s, t->len, '"', v, &n->n) < 0) {
			return fail(p, "invalid syntax");
		}
		return n;
	}
	default:
		backup_to(p, t);
		return NULL;
	}
}

static struct tnode *operand(struct parser *p)
{
	struct tnode *n = term(p);
	if (!n || peek(p)->typ != TT_FIELD)
		return n;
	if (n->k == TN_BOOL || n->k == TN_STRING || n->k == TN_NUMBER || n->k == TN_NIL || n->k == TN_DOT) {
		struct gw_buf b, q;
		gw_buf_init(&b, 1024);
		gw_buf_init(&q, 4096);
		gw_tmpl__node_str(&b, n);
		gw_tmpl__quote(&q, b.data ? b.data : "", b.len);
		fail(p, "unexpected . after term %s", q.data);
		gw_buf_release(&b);
		gw_buf_release(&q);
		return NULL;
	}
	struct tnode *c = n;
	if (n->k != TN_FIELD && n->k != TN_VAR) {
		c = new_node(p, TN_CHAIN, peek(p)->pos);
		FAIL_IF(p);
		c->sub = n;
	} else {
		n->pos = peek(p)->pos; /* Go places a chain at its first field: errors point there */
	}
	while (peek(p)->typ == TT_FIELD) {
		const struct ttoken *t = next(p);
		PUSH(p, c->idents, c->nidents,
		     (void *)gw_arena_strndup(p->a, p->t->text + t->pos + 1, t->len - 1));
		FAIL_IF(p);
	}
	return c;
}

static struct tnode *command(struct parser *p)
{
	struct tnode *cmd = new_node(p, TN_COMMAND, peek_nonspace(p)->pos);
	FAIL_IF(p);
	for (;;) {
		peek_nonspace(p);
		struct tnode *o = operand(p);
		FAIL_IF(p);
		if (o)
			PUSH(p, cmd->kids, cmd->nkids, o);
		const struct ttoken *t = next(p);
		if (t->typ == TT_SPACE)
			continue;
		if (t->typ == TT_RIGHT || t->typ == TT_RPAREN)
			backup_to(p, t);
		else if (t->typ != TT_PIPE)
			return unexpected(p, t, "operand");
		break;
	}
	if (cmd->nkids == 0)
		return fail(p, "empty command");
	return cmd;
}

static struct tnode *decl_var(struct parser *p, struct tnode *pipe, const struct ttoken *v)
{
	struct tnode *n = new_node(p, TN_VAR, v->pos);
	FAIL_IF(p);
	n->s = tok_str(p, v);
	n->n = v->len;
	FAIL_IF(p);
	PUSH(p, pipe->decl, pipe->ndecl, n);
	declare(p, n->s);
	return n;
}

static struct tnode *pipeline(struct parser *p, const char *context, enum ttok end)
{
	const struct ttoken *first = peek_nonspace(p);
	struct tnode *pipe = new_node(p, TN_PIPE, first->pos);
	FAIL_IF(p);
	pipe->line = first->line;
decls:
	if (peek_nonspace(p)->typ == TT_VAR) {
		const struct ttoken *v = next_nonspace(p);
		const struct ttoken *after = peek(p);
		const struct ttoken *nx = peek_nonspace(p);
		if (nx->typ == TT_ASSIGN || nx->typ == TT_DECLARE) {
			pipe->assign = nx->typ == TT_ASSIGN;
			next_nonspace(p);
			decl_var(p, pipe, v);
			FAIL_IF(p);
		} else if (nx->typ == TT_CHAR && p->t->text[nx->pos] == ',') {
			next_nonspace(p);
			decl_var(p, pipe, v);
			FAIL_IF(p);
			if (strcmp(context, "range") == 0 && pipe->ndecl < 2) {
				enum ttok k = peek_nonspace(p)->typ;
				if (k == TT_VAR || k == TT_RIGHT || k == TT_RPAREN)
					goto decls;
				return fail(p, "range can only initialize variables");
			}
			return fail(p, "too many declarations in %s", context);
		} else if (after->typ == TT_SPACE) {
			backup_to(p, v);
		} else {
			backup_to(p, v);
		}
	}
	for (;;) {
		const struct ttoken *t = next_nonspace(p);
		if (t->typ == end) {
			if (pipe->nkids == 0)
				return fail(p, "missing value for %s", context);
			for (size_t i = 1; i < pipe->nkids; i++) {
				enum tnode_kind k = pipe->kids[i]->kids[0]->k;
				if (k == TN_BOOL || k == TN_DOT || k == TN_NIL || k == TN_NUMBER ||
				    k == TN_STRING)
					return fail(p, "non executable command in pipeline stage %zu", i + 1);
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
			backup_to(p, t);
			struct tnode *c = command(p);
			FAIL_IF(p);
			PUSH(p, pipe->kids, pipe->nkids, c);
			FAIL_IF(p);
			break;
		}
		default:
			return unexpected(p, t, context);
		}
	}
}

static const struct ttoken *expect(struct parser *p, enum ttok typ, const char *context)
{
	const struct ttoken *t = next_nonspace(p);
	if (t->typ != typ) {
		unexpected(p, t, context);
		return NULL;
	}
	return t;
}

static struct tnode *if_control(struct parser *p);

/* if / range / with: pipeline, list, optional else list (else if nests). */
static struct tnode *control(struct parser *p, enum tnode_kind k, const char *context)
{
	size_t mark = p->nvars;
	if (p->depth >= MAX_DEPTH)
		return fail(p, "max expression depth exceeded");
	p->depth++;
	struct tnode *n = new_node(p, k, 0);
	FAIL_IF(p);
	n->pipe = pipeline(p, context, TT_RIGHT);
	FAIL_IF(p);
	n->pos = n->pipe->pos;
	n->line = n->pipe->line;
	struct tnode *stop = NULL;
	if (k == TN_RANGE)
		p->range_depth++;
	n->list = item_list(p, &stop);
	if (k == TN_RANGE)
		p->range_depth--;
	FAIL_IF(p);
	if (stop->k == TN_CONTINUE) { /* else */
		if (k == TN_IF && peek(p)->typ == TT_IF) {
			next(p);
			n->elist = new_node(p, TN_LIST, stop->pos);
			FAIL_IF(p);
			struct tnode *nested = if_control(p);
			FAIL_IF(p);
			PUSH(p, n->elist->kids, n->elist->nkids, nested);
		} else {
			n->elist = item_list(p, &stop);
			FAIL_IF(p);
			if (stop->k != TN_BREAK)
				return fail(p, "expected end; found {{else}}");
		}
	}
	p->nvars = mark;
	p->depth--;
	return n;
}

static struct tnode *if_control(struct parser *p)
{
	return control(p, TN_IF, "if");
}

/*
 * One action after "{{". End and else come back as marker nodes
 * (TN_BREAK with s "end", TN_CONTINUE with s "else") for item_list.
 */
static struct tnode *action(struct parser *p)
{
	const struct ttoken *t = next_nonspace(p);
	struct tnode *n;
	switch (t->typ) {
	case TT_BREAK:
	case TT_CONTINUE: {
		const char *what = t->typ == TT_BREAK ? "{{break}}" : "{{continue}}";
		const struct ttoken *r = next_nonspace(p);
		if (r->typ != TT_RIGHT)
			return unexpected(p, r, what);
		if (p->range_depth == 0)
			return fail(p, "%s outside {{range}}", what);
		n = new_node(p, t->typ == TT_BREAK ? TN_BREAK : TN_CONTINUE, t->pos);
		FAIL_IF(p);
		n->s = "loop";
		return n;
	}
	case TT_ELSE:
		n = new_node(p, TN_CONTINUE, t->pos);
		FAIL_IF(p);
		n->s = "else";
		if (peek_nonspace(p)->typ == TT_IF) {
			while (peek(p)->typ == TT_SPACE)
				p->i++; /* leave "if" next, for control()'s else-if */
			return n;
		}
		if (!expect(p, TT_RIGHT, "else"))
			return NULL;
		return n;
	case TT_END:
		n = new_node(p, TN_BREAK, t->pos);
		FAIL_IF(p);
		n->s = "end";
		if (!expect(p, TT_RIGHT, "end"))
			return NULL;
		return n;
	case TT_IF:
		return if_control(p);
	case TT_RANGE:
		return control(p, TN_RANGE, "range");
	case TT_WITH:
		return control(p, TN_WITH, "with");
	case TT_TEMPLATE: {
		const struct ttoken *name = next_nonspace(p);
		if (name->typ != TT_STRING && name->typ != TT_RAWSTRING)
			return unexpected(p, name, "template clause");
		backup_to(p, name);
		struct tnode *s = term(p);
		FAIL_IF(p);
		n = new_node(p, TN_TEMPLATE, name->pos);
		FAIL_IF(p);
		n->s = s->s;
		n->n = s->n;
		if (next_nonspace(p)->typ != TT_RIGHT) {
			p->i--;
			n->pipe = pipeline(p, "template clause", TT_RIGHT);
			FAIL_IF(p);
		}
		return n;
	}
	case TT_DEFINE:
	case TT_BLOCK:
		return fail(p, "unexpected <%.*s> in command: named templates are not supported", (int)t->len,
			    p->t->text + t->pos);
	default:
		break;
	}
	backup_to(p, t);
	const struct ttoken *first = peek(p);
	n = new_node(p, TN_ACTION, first->pos);
	FAIL_IF(p);
	n->line = first->line;
	n->pipe = pipeline(p, "command", TT_RIGHT);
	FAIL_IF(p);
	return n;
}

static bool is_marker(const struct tnode *n)
{
	return (n->k == TN_BREAK || n->k == TN_CONTINUE) && n->s && n->s[0] == 'e';
}

static struct tnode *text_or_action(struct parser *p)
{
	const struct ttoken *t = next_nonspace(p);
	if (t->typ == TT_TEXT) {
		struct tnode *n = new_node(p, TN_TEXT, t->pos);
		FAIL_IF(p);
		n->s = p->t->text + t->pos;
		n->n = t->len;
		return n;
	}
	if (t->typ == TT_LEFT)
		return action(p);
	return unexpected(p, t, "input");
}

static struct tnode *item_list(struct parser *p, struct tnode **stop)
{
	struct tnode *list = new_node(p, TN_LIST, peek_nonspace(p)->pos);
	FAIL_IF(p);
	while (peek_nonspace(p)->typ != TT_EOF) {
		struct tnode *n = text_or_action(p);
		FAIL_IF(p);
		if (is_marker(n)) {
			*stop = n;
			return list;
		}
		PUSH(p, list->kids, list->nkids, n);
		FAIL_IF(p);
	}
	next(p);
	return fail(p, "unexpected EOF");
}

int gw_tmpl__parse_tree(struct gw_tmpl *t, struct gw_err *err)
{
	struct tlex l = {.src = t->text, .arena = &t->arena};
	int rc = gw_tmpl__lex(&l);
	if (rc < 0)
		return gw_err_set(err, rc, "out of memory");
	struct parser p = {.t = t, .a = &t->arena, .tok = l.t, .err = err, .line = 1};
	declare(&p, "$");
	struct tnode *root = new_node(&p, TN_LIST, 0);
	while (!p.rc && peek(&p)->typ != TT_EOF) {
		struct tnode *n = text_or_action(&p);
		if (!n)
			break;
		if (is_marker(n)) {
			fail(&p, "unexpected {{%s}}", n->s);
			break;
		}
		PUSH(&p, root->kids, root->nkids, n);
	}
	if (p.rc)
		return p.rc;
	t->root = root;
	return 0;
}
