/*
 * tmpl_parse_ctl.c - Go text/template's parser, its structure: text and
 * actions, if / else if / range / with / end, break and continue inside
 * range, named templates ({{define}}, {{block}}, {{template}}), and the
 * whole template's tree.
 */
#include "rules/tmpl_parser.h"

#include <stdio.h>
#include <string.h>

static const struct ttoken *expect(struct parser *p, enum ttok typ, const char *context)
{
	const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
	if (t->typ != typ) {
		gw_tmpl__p_unexpected(p, t, context);
		return NULL;
	}
	return t;
}

static struct tnode *if_control(struct parser *p);

/* Go's IsEmptyTree: only spaces and nothing else. */
static bool empty_tree(const struct tnode *list)
{
	for (size_t i = 0; list && i < list->nkids; i++) {
		const struct tnode *k = list->kids[i];
		if (k->k != TN_TEXT)
			return false;
		for (size_t j = 0; j < k->n; j++)
			if (!strchr(" \t\r\n", k->s[j]))
				return false;
	}
	return true;
}

/* Add a named template: an empty one never replaces a full one, two full ones clash. */
static struct tnode *add_def(struct parser *p, const char *name, size_t n, struct tnode *root)
{
	struct gw_tmpl *t = p->t;
	for (size_t i = 0; i < t->ndefs; i++) {
		if (t->defs[i].n != n || memcmp(t->defs[i].name, name, n) != 0)
			continue;
		if (empty_tree(root))
			return root;
		if (!empty_tree(t->defs[i].root)) {
			struct gw_buf q;
			gw_buf_init(&q, 4096);
			gw_tmpl__quote(&q, name, n);
			gw_tmpl__p_fail(p, "template: multiple definition of template %s", q.data);
			gw_buf_release(&q);
			return NULL;
		}
		t->defs[i].root = root;
		return root;
	}
	if (t->ndefs == t->capdefs) {
		size_t cap = t->capdefs ? 2 * t->capdefs : 4;
		struct tdef *d = gw_arena_alloc(p->a, cap * sizeof(*d));
		if (!d)
			return gw_tmpl__p_oom(p);
		if (t->ndefs)
			memcpy(d, t->defs, t->ndefs * sizeof(*d));
		t->defs = d;
		t->capdefs = cap;
	}
	t->defs[t->ndefs++] = (struct tdef){name, n, root};
	return root;
}

/* A named template's body: its own variables ($ alone), no enclosing range. */
static struct tnode *def_body(struct parser *p, const char *context)
{
	const char **vars = p->vars;
	size_t nvars = p->nvars, capvars = p->capvars;
	int range_depth = p->range_depth;
	p->vars = NULL;
	p->nvars = p->capvars = 0;
	p->range_depth = 0;
	gw_tmpl__p_declare(p, "$");
	struct tnode *stop = NULL;
	struct tnode *body = gw_tmpl__p_item_list(p, &stop);
	p->vars = vars;
	p->nvars = nvars;
	p->capvars = capvars;
	p->range_depth = range_depth;
	FAIL_IF(p);
	if (stop->k != TN_BREAK)
		return gw_tmpl__p_fail(p, "unexpected {{else}} in %s", context);
	return body;
}

/* The quoted name after define, block or template. */
static struct tnode *def_name(struct parser *p, const char *context)
{
	const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
	if (t->typ != TT_STRING && t->typ != TT_RAWSTRING)
		return gw_tmpl__p_unexpected(p, t, context);
	gw_tmpl__p_backup_to(p, t);
	return gw_tmpl__p_term(p);
}

/* {{define "name"}} ... {{end}}, at the top level only. */
static int definition(struct parser *p)
{
	const char *context = "define clause";
	struct tnode *name = def_name(p, context);
	if (!name)
		return -1;
	const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
	if (t->typ != TT_RIGHT) {
		gw_tmpl__p_unexpected(p, t, context);
		return -1;
	}
	struct tnode *body = def_body(p, context);
	return body && add_def(p, name->s, name->n, body) ? 0 : -1;
}

/* {{template "name" pipeline}} and {{block "name" pipeline}} ... {{end}}. */
static struct tnode *invocation(struct parser *p, bool block)
{
	const char *context = block ? "block clause" : "template clause";
	struct tnode *name = def_name(p, context);
	FAIL_IF(p);
	struct tnode *n = gw_tmpl__p_new_node(p, TN_TEMPLATE, name->pos);
	FAIL_IF(p);
	n->s = name->s;
	n->n = name->n;
	if (block || gw_tmpl__p_next_nonspace(p)->typ != TT_RIGHT) {
		if (!block)
			p->i--;
		n->pipe = gw_tmpl__p_pipeline(p, context, TT_RIGHT);
		FAIL_IF(p);
	}
	if (block) {
		struct tnode *body = def_body(p, context);
		FAIL_IF(p);
		if (!add_def(p, n->s, n->n, body))
			return NULL;
	}
	return n;
}

/* if / range / with: pipeline, list, optional else list (else if nests). */
static struct tnode *control(struct parser *p, enum tnode_kind k, const char *context)
{
	size_t mark = p->nvars;
	if (p->depth >= MAX_DEPTH)
		return gw_tmpl__p_fail(p, "max expression depth exceeded");
	p->depth++;
	struct tnode *n = gw_tmpl__p_new_node(p, k, 0);
	FAIL_IF(p);
	n->pipe = gw_tmpl__p_pipeline(p, context, TT_RIGHT);
	FAIL_IF(p);
	n->pos = n->pipe->pos;
	n->line = n->pipe->line;
	struct tnode *stop = NULL;
	if (k == TN_RANGE)
		p->range_depth++;
	n->list = gw_tmpl__p_item_list(p, &stop);
	if (k == TN_RANGE)
		p->range_depth--;
	FAIL_IF(p);
	if (stop->k == TN_CONTINUE) { /* else */
		if (k == TN_IF && gw_tmpl__p_peek(p)->typ == TT_IF) {
			gw_tmpl__p_next(p);
			n->elist = gw_tmpl__p_new_node(p, TN_LIST, stop->pos);
			FAIL_IF(p);
			struct tnode *nested = if_control(p);
			FAIL_IF(p);
			PUSH(p, n->elist->kids, n->elist->nkids, nested);
		} else {
			n->elist = gw_tmpl__p_item_list(p, &stop);
			FAIL_IF(p);
			if (stop->k != TN_BREAK)
				return gw_tmpl__p_fail(p, "expected end; found {{else}}");
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
	const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
	struct tnode *n;
	switch (t->typ) {
	case TT_BREAK:
	case TT_CONTINUE: {
		const char *what = t->typ == TT_BREAK ? "{{break}}" : "{{continue}}";
		const struct ttoken *r = gw_tmpl__p_next_nonspace(p);
		if (r->typ != TT_RIGHT)
			return gw_tmpl__p_unexpected(p, r, what);
		if (p->range_depth == 0)
			return gw_tmpl__p_fail(p, "%s outside {{range}}", what);
		n = gw_tmpl__p_new_node(p, t->typ == TT_BREAK ? TN_BREAK : TN_CONTINUE, t->pos);
		FAIL_IF(p);
		n->s = "loop";
		return n;
	}
	case TT_ELSE:
		n = gw_tmpl__p_new_node(p, TN_CONTINUE, t->pos);
		FAIL_IF(p);
		n->s = "else";
		if (gw_tmpl__p_peek_nonspace(p)->typ == TT_IF) {
			while (gw_tmpl__p_peek(p)->typ == TT_SPACE)
				p->i++; /* leave "if" next, for control()'s else-if */
			return n;
		}
		if (!expect(p, TT_RIGHT, "else"))
			return NULL;
		return n;
	case TT_END:
		n = gw_tmpl__p_new_node(p, TN_BREAK, t->pos);
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
	case TT_TEMPLATE:
	case TT_BLOCK:
		return invocation(p, t->typ == TT_BLOCK);
	case TT_DEFINE: /* only at the top level, where the tree's loop takes it */
		return gw_tmpl__p_fail(p, "unexpected <define> in command");
	default:
		break;
	}
	gw_tmpl__p_backup_to(p, t);
	const struct ttoken *first = gw_tmpl__p_peek(p);
	n = gw_tmpl__p_new_node(p, TN_ACTION, first->pos);
	FAIL_IF(p);
	n->line = first->line;
	n->pipe = gw_tmpl__p_pipeline(p, "command", TT_RIGHT);
	FAIL_IF(p);
	return n;
}

static bool is_marker(const struct tnode *n)
{
	return (n->k == TN_BREAK || n->k == TN_CONTINUE) && n->s && n->s[0] == 'e';
}

static struct tnode *text_or_action(struct parser *p)
{
	const struct ttoken *t = gw_tmpl__p_next_nonspace(p);
	if (t->typ == TT_TEXT) {
		struct tnode *n = gw_tmpl__p_new_node(p, TN_TEXT, t->pos);
		FAIL_IF(p);
		n->s = p->t->text + t->pos;
		n->n = t->len;
		return n;
	}
	if (t->typ == TT_LEFT) {
		p->action_line = t->line;
		struct tnode *n = action(p);
		p->action_line = 0;
		return n;
	}
	return gw_tmpl__p_unexpected(p, t, "input");
}

struct tnode *gw_tmpl__p_item_list(struct parser *p, struct tnode **stop)
{
	struct tnode *list = gw_tmpl__p_new_node(p, TN_LIST, gw_tmpl__p_peek_nonspace(p)->pos);
	FAIL_IF(p);
	while (gw_tmpl__p_peek_nonspace(p)->typ != TT_EOF) {
		struct tnode *n = text_or_action(p);
		FAIL_IF(p);
		if (is_marker(n)) {
			*stop = n;
			return list;
		}
		PUSH(p, list->kids, list->nkids, n);
		FAIL_IF(p);
	}
	gw_tmpl__p_next(p);
	return gw_tmpl__p_fail(p, "unexpected EOF");
}

int gw_tmpl__parse_tree(struct gw_tmpl *t, struct gw_err *err)
{
	struct tlex l = {.src = t->text, .arena = &t->arena};
	int rc = gw_tmpl__lex(&l);
	if (rc < 0)
		return gw_err_set(err, rc, "out of memory");
	struct parser p = {.t = t, .a = &t->arena, .tok = l.t, .err = err, .line = 1};
	gw_tmpl__p_declare(&p, "$");
	struct tnode *root = gw_tmpl__p_new_node(&p, TN_LIST, 0);
	while (!p.rc && gw_tmpl__p_peek(&p)->typ != TT_EOF) {
		const struct ttoken *delim = gw_tmpl__p_peek(&p);
		if (delim->typ == TT_LEFT) {
			gw_tmpl__p_next(&p);
			if (gw_tmpl__p_next_nonspace(&p)->typ == TT_DEFINE) {
				if (definition(&p) < 0)
					break;
				continue;
			}
			gw_tmpl__p_backup_to(&p, delim);
		}
		struct tnode *n = text_or_action(&p);
		if (!n)
			break;
		if (is_marker(n)) {
			gw_tmpl__p_fail(&p, "unexpected {{%s}}", n->s);
			break;
		}
		PUSH(&p, root->kids, root->nkids, n);
	}
	if (p.rc)
		return p.rc;
	t->root = root;
	return 0;
}
