/*
 * tmpl_walk.c - walks a parsed template: text, actions (printed as Go's
 * fmt prints them), if / with / range with their else lists, break and
 * continue, variable scopes; and gw_tmpl_exec, which runs one execution
 * in an arena of its own.
 */
#include "rules/tmpl_int.h"

#include <stdio.h>
#include <string.h>

#define TRY(x)                                                                                               \
	do {                                                                                                 \
		int rc_ = (x);                                                                               \
		if (rc_)                                                                                     \
			return rc_;                                                                          \
	} while (0)

static int walk(struct texec *x, const struct tv *dot, const struct tnode *n);

static int walk_list(struct texec *x, const struct tv *dot, const struct tnode *list)
{
	for (size_t i = 0; list && i < list->nkids; i++)
		TRY(walk(x, dot, list->kids[i]));
	return 0;
}

static int range_one(struct texec *x, const struct tnode *r, const struct tv *index, const struct tv *elem)
{
	size_t mark = x->nvars;
	/* "$i, $e :=" pushed both (lexically second on top); "=" assigns index, element in order */
	if (r->pipe->ndecl > 0) {
		if (r->pipe->assign)
			TRY(gw_tmpl__set_var(x, r->pipe->decl[0]->s, r->pipe->ndecl > 1 ? index : elem));
		else
			x->vars[x->nvars - 1].v = *elem;
	}
	if (r->pipe->ndecl > 1) {
		if (r->pipe->assign)
			TRY(gw_tmpl__set_var(x, r->pipe->decl[1]->s, elem));
		else
			x->vars[x->nvars - 2].v = *index;
	}
	int rc = walk_list(x, elem, r->list);
	x->nvars = mark;
	return rc == X_CONTINUE ? 0 : rc;
}

static int walk_range(struct texec *x, const struct tv *dot, const struct tnode *r)
{
	size_t mark = x->nvars;
	struct tv v;
	x->at = r;
	TRY(gw_tmpl__eval_pipeline(x, dot, r->pipe, &v));
	int rc = 0;
	bool any = false;
	switch (v.k) {
	case TV_RESULT:
		for (size_t i = 0; i < v.r.n && rc == 0; i++) {
			struct tv idx = {.k = TV_INT, .i = (int64_t)i};
			struct tv e = {.k = TV_SAMPLE, .smp = v.r.p[i]};
			rc = range_one(x, r, &idx, &e);
			any = true;
		}
		break;
	case TV_LABELS:
		for (size_t i = 0; i < v.l.n && rc == 0; i++) {
			struct tv k = tv_str(v.l.p[i].name, strlen(v.l.p[i].name));
			struct tv e = tv_str(v.l.p[i].value, strlen(v.l.p[i].value));
			rc = range_one(x, r, &k, &e);
			any = true;
		}
		break;
	case TV_ARGS:
		for (size_t i = 0; i < v.a.n && rc == 0; i++) {
			char *key = gw_arena_alloc(x->a, 24);
			if (!key)
				return gw_err_set(x->err, GW_ENOMEM, "out of memory");
			snprintf(key, 24, "arg%zu", i);
			struct tv k = tv_str(key, strlen(key));
			struct tv e = v.a.p[i];
			e.boxed = true; /* range hands out the interface{} as it is */
			rc = range_one(x, r, &k, &e);
			any = true;
		}
		break;
	case TV_INVALID:
	case TV_NIL:
		break;
	default: {
		struct gw_buf b;
		gw_buf_init(&b, 4096);
		gw_tmpl__print_value(&b, &v);
		rc = gw_tmpl__xerr(x, GW_EINVAL, "range can't iterate over %s", b.data ? b.data : "");
		gw_buf_release(&b);
		return rc;
	}
	}
	if (rc < 0)
		return rc;
	x->nvars = mark;
	if (!any && r->elist)
		return walk_list(x, dot, r->elist);
	return 0;
}

/* Go stops at 100,000 nested invocations; C's stack at far fewer. */
#define MAX_EXEC_DEPTH 1000

/* {{template}}: the named template with the pipeline's value as dot and $,
 * and none of the caller's variables. */
static int walk_template(struct texec *x, const struct tv *dot, const struct tnode *n)
{
	x->at = n;
	const struct tdef *def = NULL;
	for (size_t i = 0; i < x->t->ndefs; i++)
		if (x->t->defs[i].n == n->n && memcmp(x->t->defs[i].name, n->s, n->n) == 0)
			def = &x->t->defs[i];
	if (!def) {
		struct gw_buf q;
		gw_buf_init(&q, 4096);
		gw_tmpl__quote(&q, n->s, n->n);
		int rc = gw_tmpl__xerr(x, GW_EINVAL, "template %s not defined", q.data);
		gw_buf_release(&q);
		return rc;
	}
	if (x->depth >= MAX_EXEC_DEPTH)
		return gw_tmpl__xerr(x, GW_EINVAL, "exceeded maximum template depth (%d)", MAX_EXEC_DEPTH);
	struct tv v = {.k = TV_INVALID};
	if (n->pipe)
		TRY(gw_tmpl__eval_pipeline(x, dot, n->pipe, &v));
	struct tvar *vars = x->vars;
	size_t nvars = x->nvars, capvars = x->capvars;
	const char *name = x->name;
	x->vars = NULL;
	x->nvars = x->capvars = 0;
	x->name = def->name;
	x->depth++;
	int rc = gw_tmpl__push_var(x, "$", &v);
	if (!rc)
		rc = walk_list(x, &v, def->root);
	x->depth--;
	x->vars = vars;
	x->nvars = nvars;
	x->capvars = capvars;
	x->name = name;
	return rc;
}

static int walk(struct texec *x, const struct tv *dot, const struct tnode *n)
{
	switch (n->k) {
	case TN_TEXT:
		return gw_buf_append(x->out, n->s, n->n)
			   ? gw_err_set(x->err, GW_EOVERFLOW, "template output too large")
			   : 0;
	case TN_ACTION: {
		x->at = n;
		struct tv v;
		TRY(gw_tmpl__eval_pipeline(x, dot, n->pipe, &v));
		if (n->pipe->ndecl == 0) {
			/* printed aside first, so that a full output buffer is an error, not a cut */
			gw_buf_reset(&x->scratch);
			gw_tmpl__print_value(&x->scratch, &v);
			if (x->scratch.len && gw_buf_append(x->out, x->scratch.data, x->scratch.len))
				return gw_err_set(x->err, GW_EOVERFLOW, "template output too large");
		}
		return 0;
	}
	case TN_IF:
	case TN_WITH: {
		size_t mark = x->nvars;
		x->at = n;
		struct tv v;
		TRY(gw_tmpl__eval_pipeline(x, dot, n->pipe, &v));
		bool t = gw_tmpl__truth(&v);
		int rc;
		if (t)
			rc = walk_list(x, n->k == TN_WITH ? &v : dot, n->list);
		else
			rc = walk_list(x, dot, n->elist);
		x->nvars = mark;
		return rc;
	}
	case TN_RANGE:
		return walk_range(x, dot, n);
	case TN_TEMPLATE:
		return walk_template(x, dot, n);
	case TN_BREAK:
		return X_BREAK;
	case TN_CONTINUE:
		return X_CONTINUE;
	case TN_LIST:
		return walk_list(x, dot, n);
	default:
		return 0;
	}
}

int gw_tmpl_exec(const struct gw_tmpl *t, const struct gw_tmpl_data *d, struct gw_buf *out,
		 struct gw_err *err)
{
	return gw_tmpl__exec(t, d, out, err, NULL);
}

int gw_tmpl__exec(const struct gw_tmpl *t, const struct gw_tmpl_data *d, struct gw_buf *out,
		  struct gw_err *err, struct gw_buf *full)
{
	struct gw_arena a;
	gw_arena_init(&a, (size_t)64 << 20);
	struct texec x = {.t = t, .d = d, .out = out, .a = &a, .err = err, .name = t->name, .full = full};
	gw_buf_init(&x.scratch, (size_t)64 << 20);
	struct tv data = {.k = TV_DATA, .d = d};
	size_t start = out->len;
	int rc = gw_tmpl__push_var(&x, "$", &data);
	if (!rc)
		rc = walk_list(&x, &data, t->root);
	gw_arena_release(&a);
	gw_buf_release(&x.scratch);
	if (rc > 0)
		rc = 0;
	if (rc) {
		out->len = start;
		if (out->data)
			out->data[start] = 0;
	}
	return rc;
}
