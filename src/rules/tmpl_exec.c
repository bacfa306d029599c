/*
 * tmpl_exec.c - evaluates pipelines as Go's text/template does with
 * Prometheus' option missingkey=zero: variables, field chains over the
 * alert's data, maps and samples, function calls with Go's argument
 * checks, the previous command's value as the last argument, and Go's
 * errors ("template: NAME:1:12: executing \"NAME\" at <ctx>: ...").
 */
#include "rules/tmpl_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TRY(x)                                                                                               \
	do {                                                                                                 \
		int rc_ = (x);                                                                               \
		if (rc_)                                                                                     \
			return rc_;                                                                          \
	} while (0)

int gw_tmpl__xerr(struct texec *x, int code, const char *fmt, ...)
{
	/* Go's messages quote values at any length: built whole, cut only in err */
	struct gw_buf msg, full;
	gw_buf_init(&msg, (size_t)1 << 20);
	gw_buf_init(&full, (size_t)1 << 20);
	va_list ap;
	va_start(ap, fmt);
	gw_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	const char *m = msg.data ? msg.data : "";
	if (!x->at) {
		gw_buf_printf(&full, "template: %s: %s", x->name, m);
	} else {
		const char *text = x->t->text;
		size_t pos = x->at->pos, col = pos;
		int line = 1;
		for (size_t i = 0; i < pos; i++)
			if (text[i] == '\n') {
				line++;
				col = pos - i - 1;
			}
		struct gw_buf ctx;
		gw_buf_init(&ctx, (size_t)1 << 20);
		gw_tmpl__node_str(&ctx, x->at);
		gw_buf_printf(&full, "template: %s:%d:%zu: executing \"%s\" at <%s>: %s", x->t->name, line,
			      col, x->name, ctx.data ? ctx.data : "", m);
		gw_buf_release(&ctx);
	}
	const char *f = full.data ? full.data : "";
	if (x->full) {
		gw_buf_reset(x->full);
		gw_buf_puts(x->full, f);
	}
	int rc = gw_err_set(x->err, code, "%s", f);
	gw_buf_release(&msg);
	gw_buf_release(&full);
	return rc;
}

int gw_tmpl__push_var(struct texec *x, const char *name, const struct tv *v)
{
	if (x->nvars == x->capvars) {
		size_t cap = x->capvars ? 2 * x->capvars : 16;
		struct tvar *n = gw_arena_alloc(x->a, cap * sizeof(*n));
		if (!n)
			return gw_err_set(x->err, GW_ENOMEM, "out of memory");
		if (x->nvars)
			memcpy(n, x->vars, x->nvars * sizeof(*n));
		x->vars = n;
		x->capvars = cap;
	}
	x->vars[x->nvars].name = name;
	x->vars[x->nvars].v = *v;
	x->nvars++;
	return 0;
}

int gw_tmpl__set_var(struct texec *x, const char *name, const struct tv *v)
{
	for (size_t i = x->nvars; i-- > 0;)
		if (strcmp(x->vars[i].name, name) == 0) {
			x->vars[i].v = *v;
			return 0;
		}
	return gw_tmpl__xerr(x, GW_EINVAL, "undefined variable: %s", name);
}

static int var_value(struct texec *x, const char *name, struct tv *out)
{
	for (size_t i = x->nvars; i-- > 0;)
		if (strcmp(x->vars[i].name, name) == 0) {
			*out = x->vars[i].v;
			return 0;
		}
	return gw_tmpl__xerr(x, GW_EINVAL, "undefined variable: %s", name);
}

static const struct tv invalid = {.k = TV_INVALID};

static int eval_arg(struct texec *x, const struct tv *dot, char type, const struct tnode *n, struct tv *out);

/* Prometheus' template data and the fields of its values. */
static int eval_field(struct texec *x, const char *name, bool has_args, const struct tv *recv, struct tv *out)
{
	switch (recv->k) {
	case TV_INVALID:
		*out = invalid;
		return 0;
	case TV_NIL:
		return gw_tmpl__xerr(x, GW_EINVAL, "nil pointer evaluating interface {}.%s", name);
	case TV_DATA:
		if (has_args && (!strcmp(name, "Labels") || !strcmp(name, "ExternalLabels") ||
				 !strcmp(name, "ExternalURL") || !strcmp(name, "Value")))
			return gw_tmpl__xerr(x, GW_EINVAL,
					     "%s has arguments but cannot be invoked as function", name);
		if (!strcmp(name, "Labels")) {
			*out = (struct tv){.k = TV_LABELS, .l = recv->d->labels};
			return 0;
		}
		if (!strcmp(name, "ExternalLabels")) {
			*out = (struct tv){.k = TV_LABELS, .l = recv->d->external};
			return 0;
		}
		if (!strcmp(name, "ExternalURL")) {
			const char *u = recv->d->external_url ? recv->d->external_url : "";
			*out = tv_str(u, strlen(u));
			return 0;
		}
		if (!strcmp(name, "Value")) {
			*out = (struct tv){.k = TV_FLOAT, .f = recv->d->value};
			return 0;
		}
		break;
	case TV_LABELS: {
		if (has_args)
			return gw_tmpl__xerr(x, GW_EINVAL, "%s is not a method but has arguments", name);
		const char *v = gw_labels_get(&recv->l, name);
		*out = v ? tv_str(v, strlen(v)) : tv_str("", 0);
		return 0;
	}
	case TV_ARGS: {
		if (has_args)
			return gw_tmpl__xerr(x, GW_EINVAL, "%s is not a method but has arguments", name);
		/* a missing key is the zero interface{}: nil, until a pipeline's end makes it no value */
		*out = (struct tv){.k = TV_NIL};
		for (size_t i = 0; i < recv->a.n; i++) {
			char key[24];
			snprintf(key, sizeof(key), "arg%zu", i);
			if (!strcmp(key, name)) {
				*out = recv->a.p[i];
				out->boxed = true;
			}
		}
		return 0;
	}
	case TV_SAMPLE:
		if (!strcmp(name, "Labels") || !strcmp(name, "Value")) {
			if (!recv->smp)
				return gw_tmpl__xerr(x, GW_EINVAL,
						     "nil pointer evaluating *template.sample.%s", name);
			if (has_args)
				return gw_tmpl__xerr(
				    x, GW_EINVAL, "%s has arguments but cannot be invoked as function", name);
			if (name[0] == 'L')
				*out = (struct tv){.k = TV_LABELS, .l = recv->smp->labels};
			else
				*out = (struct tv){.k = TV_FLOAT, .f = recv->smp->v};
			return 0;
		}
		break;
	default:
		break;
	}
	return gw_tmpl__xerr(x, GW_EINVAL, "can't evaluate field %s in type %s", name,
			     recv->boxed ? "interface {}" : gw_tmpl__type_name(recv));
}

/* Where eval_call is, for the methods of times at the end of a chain. */
static int eval_call(struct texec *x, const struct tv *dot, const struct tfunc *f, const struct tnode *node,
		     const struct tnode *cmd, const struct tv *final, const struct tv *recv, struct tv *out);

/*
 * The fields (or a time's methods) of a chain from recv; the last one gets
 * the command's arguments and the piped value (cmd, final), which only a
 * method can take.
 */
static int eval_field_chain(struct texec *x, const struct tv *dot, struct tv recv, const struct tnode *n,
			    const struct tnode *cmd, const struct tv *final, struct tv *out)
{
	for (size_t i = 0; i < n->nidents; i++) {
		bool last = i + 1 == n->nidents;
		const struct tfunc *m = recv.k == TV_TIME ? gw_tmpl__time_method(n->idents[i]) : NULL;
		struct tv next;
		if (m)
			TRY(eval_call(x, dot, m, n, last ? cmd : NULL, last ? final : NULL, &recv, &next));
		else
			TRY(eval_field(x, n->idents[i], last && ((cmd && cmd->nkids > 1) || final), &recv,
				       &next));
		recv = next;
	}
	*out = recv;
	return 0;
}

static int not_a_function(struct texec *x, const struct tnode *cmd, const struct tv *final)
{
	if ((cmd && cmd->nkids > 1) || final) {
		struct gw_buf b;
		gw_buf_init(&b, 1024);
		gw_tmpl__node_str(&b, cmd->kids[0]);
		int rc = gw_tmpl__xerr(x, GW_EINVAL, "can't give argument to non-function %s",
				       b.data ? b.data : "");
		gw_buf_release(&b);
		return rc;
	}
	return 0;
}

/* A number constant as an interface{} argument: int unless written as a float. */
static int ideal_constant(struct texec *x, const struct tnode *n, struct tv *out)
{
	bool hex = n->srclen > 2 && n->src[0] == '0' && (n->src[1] == 'x' || n->src[1] == 'X');
	bool floaty = memchr(n->src, '.', n->srclen) || memchr(n->src, 'e', n->srclen) ||
		      memchr(n->src, 'E', n->srclen) || memchr(n->src, 'p', n->srclen) ||
		      memchr(n->src, 'P', n->srclen);
	if (n->is_float && !hex && n->src[0] != '\'' && floaty) {
		*out = (struct tv){.k = TV_FLOAT, .f = n->fval};
		return 0;
	}
	if (n->is_int) {
		*out = (struct tv){.k = TV_INT, .i = n->ival};
		return 0;
	}
	x->at = n;
	return gw_tmpl__xerr(x, GW_EINVAL, "%.*s overflows int", (int)n->srclen, n->src);
}

/*
 * Call f with the command's arguments after its first word and the piped
 * value last; a method (recv) gets its receiver first. An error in the
 * call itself is reported at node.
 */
static int eval_call(struct texec *x, const struct tv *dot, const struct tfunc *f, const struct tnode *node,
		     const struct tnode *cmd, const struct tv *final, const struct tv *recv, struct tv *out)
{
	size_t nargs = cmd ? cmd->nkids - 1 : 0;
	size_t nin = nargs + (final ? 1 : 0);
	size_t np = strlen(f->params);
	bool variadic = np && f->params[np - 1] == '*';
	size_t fixed = variadic ? np - 2 : np;
	if (variadic && nin < fixed)
		return gw_tmpl__xerr(x, GW_EINVAL, "wrong number of args for %s: want at least %zu got %zu",
				     f->name, fixed, nargs);
	if (!variadic && nin != np)
		return gw_tmpl__xerr(x, GW_EINVAL, "wrong number of args for %s: want %zu got %zu", f->name,
				     np, nin);
	if (!strcmp(f->name, "and") || !strcmp(f->name, "or")) {
		bool want = f->name[0] == 'o';
		struct tv v = invalid;
		for (size_t i = 0; i < nargs; i++) {
			TRY(eval_arg(x, dot, 'V', cmd->kids[i + 1], &v));
			if (gw_tmpl__truth(&v) == want) {
				*out = v;
				return 0;
			}
		}
		if (final)
			v = *final;
		*out = v;
		return 0;
	}
	struct tv *all = gw_arena_alloc(x->a, (nin + 2) * sizeof(*all));
	if (!all)
		return gw_err_set(x->err, GW_ENOMEM, "out of memory");
	struct tv *args = recv ? all + 1 : all;
	if (recv)
		all[0] = *recv;
	for (size_t i = 0; i < nargs; i++) {
		char type = i < fixed ? f->params[i] : f->params[fixed];
		TRY(eval_arg(x, dot, type, cmd->kids[i + 1], &args[i]));
	}
	if (final) {
		char type = nargs < fixed ? f->params[nargs] : f->params[fixed];
		args[nargs] = *final;
		if (type == 'v' && final->k == TV_INVALID)
			args[nargs].k = TV_NIL;
		/* a piped value must have the parameter's type */
		if ((type == 's' && final->k != TV_STRING) || (type == 'S' && final->k != TV_SAMPLE) ||
		    (type == 'R' && final->k != TV_RESULT)) {
			const char *want = type == 's'	 ? "string"
					   : type == 'S' ? "*template.sample"
							 : "template.queryResult";
			if (final->k == TV_INVALID && type != 's') {
				args[nargs] =
				    type == 'S' ? (struct tv){.k = TV_SAMPLE} : (struct tv){.k = TV_RESULT};
			} else if (final->k == TV_INVALID) {
				return gw_tmpl__xerr(x, GW_EINVAL, "invalid value; expected %s", want);
			} else {
				return gw_tmpl__xerr(x, GW_EINVAL,
						     "wrong type for value; expected %s; got %s", want,
						     gw_tmpl__type_name(final));
			}
		}
	}
	struct tcall c = {.d = x->d, .arena = x->a, .args = all, .n = nin + (recv ? 1 : 0)};
	if (f->fn(&c)) {
		x->at = node;
		if (c.ret.k == TV_INVALID && !strcmp(c.msg, "out of memory"))
			return gw_err_set(x->err, GW_ENOMEM, "out of memory");
		return gw_tmpl__xerr(x, GW_EINVAL, "error calling %s: %s", f->name, c.msg);
	}
	*out = c.ret;
	return 0;
}

static int eval_function(struct texec *x, const struct tv *dot, const struct tnode *id,
			 const struct tnode *cmd, const struct tv *final, struct tv *out)
{
	x->at = id;
	const struct tfunc *f = gw_tmpl__func_find(id->s, id->n);
	if (!f)
		return gw_tmpl__xerr(x, GW_EINVAL, "\"%s\" is not a defined function", id->s);
	return eval_call(x, dot, f, cmd ? cmd : id, cmd, final, NULL, out);
}

static int eval_command(struct texec *x, const struct tv *dot, const struct tnode *cmd,
			const struct tv *final, struct tv *out)
{
	const struct tnode *w = cmd->kids[0];
	switch (w->k) {
	case TN_FIELD:
		x->at = w;
		return eval_field_chain(x, dot, *dot, w, cmd, final, out);
	case TN_CHAIN: {
		x->at = w;
		struct tv recv;
		/* Go leaves the error location where the operand's evaluation left it */
		TRY(eval_arg(x, dot, 0, w->sub, &recv));
		return eval_field_chain(x, dot, recv, w, cmd, final, out);
	}
	case TN_IDENT:
		return eval_function(x, dot, w, cmd, final, out);
	case TN_PIPE:
		TRY(not_a_function(x, cmd, final));
		return gw_tmpl__eval_pipeline(x, dot, w, out);
	case TN_VAR: {
		x->at = w;
		struct tv v;
		TRY(var_value(x, w->s, &v));
		if (w->nidents == 0) {
			TRY(not_a_function(x, cmd, final));
			*out = v;
			return 0;
		}
		return eval_field_chain(x, dot, v, w, cmd, final, out);
	}
	default:
		break;
	}
	x->at = w;
	TRY(not_a_function(x, cmd, final));
	switch (w->k) {
	case TN_BOOL:
		*out = (struct tv){.k = TV_BOOL, .b = w->bval};
		return 0;
	case TN_DOT:
		*out = *dot;
		return 0;
	case TN_NIL:
		return gw_tmpl__xerr(x, GW_EINVAL, "nil is not a command");
	case TN_NUMBER:
		return ideal_constant(x, w, out);
	case TN_STRING:
		*out = tv_str(w->s, w->n);
		return 0;
	default:
		return gw_tmpl__xerr(x, GW_EINVAL, "can't evaluate command %s", "?");
	}
}

static const char *param_type_name(char type)
{
	switch (type) {
	case 's':
		return "string";
	case 'S':
		return "*template.sample";
	case 'R':
		return "template.queryResult";
	case 'V':
		return "reflect.Value";
	default:
		return "interface {}";
	}
}

/* An evaluated argument checked against its parameter, as validateType does. */
static int validate(struct texec *x, char type, struct tv *v)
{
	switch (type) {
	case 0:
		return 0;
	case 'v':
		if (v->k == TV_INVALID)
			v->k = TV_NIL;
		return 0;
	case 'V': /* a builtin's reflect.Value takes no value as it is */
		return 0;
	case 's':
		if (v->k == TV_STRING)
			return 0;
		break;
	case 'S':
		if (v->k == TV_INVALID) {
			*v = (struct tv){.k = TV_SAMPLE};
			return 0;
		}
		if (v->k == TV_SAMPLE)
			return 0;
		break;
	case 'R':
		if (v->k == TV_INVALID) {
			*v = (struct tv){.k = TV_RESULT};
			return 0;
		}
		if (v->k == TV_RESULT)
			return 0;
		break;
	}
	if (v->k == TV_INVALID)
		return gw_tmpl__xerr(x, GW_EINVAL, "invalid value; expected %s", param_type_name(type));
	/* a nil interface{} (a missing args key) is still of type interface {} */
	return gw_tmpl__xerr(x, GW_EINVAL, "wrong type for value; expected %s; got %s", param_type_name(type),
			     v->k == TV_NIL ? "interface {}" : gw_tmpl__type_name(v));
}

/* One argument of a call, or the operand of a chain (type 0: any). */
static int eval_arg(struct texec *x, const struct tv *dot, char type, const struct tnode *n, struct tv *out)
{
	x->at = n;
	switch (n->k) {
	case TN_DOT:
		*out = *dot;
		return validate(x, type, out);
	case TN_NIL:
		if (type == 'S' || type == 'R' || type == 'v') {
			*out = type == 'S'   ? (struct tv){.k = TV_SAMPLE}
			       : type == 'R' ? (struct tv){.k = TV_RESULT}
					     : (struct tv){.k = TV_NIL};
			return 0;
		}
		if (type == 'V' || type == 0)
			return gw_tmpl__xerr(x, GW_EINVAL, "evalEmptyInterface: nil (can't happen)");
		return gw_tmpl__xerr(x, GW_EINVAL, "cannot assign nil to %s", param_type_name(type));
	case TN_FIELD:
		TRY(eval_field_chain(x, dot, *dot, n, NULL, NULL, out));
		return validate(x, type, out);
	case TN_VAR:
		TRY(var_value(x, n->s, out));
		TRY(eval_field_chain(x, dot, *out, n, NULL, NULL, out));
		return validate(x, type, out);
	case TN_PIPE:
		TRY(gw_tmpl__eval_pipeline(x, dot, n, out));
		return validate(x, type, out);
	case TN_IDENT:
		TRY(eval_function(x, dot, n, NULL, NULL, out));
		return validate(x, type, out);
	case TN_CHAIN: {
		struct tv recv;
		TRY(eval_arg(x, dot, 0, n->sub, &recv));
		TRY(eval_field_chain(x, dot, recv, n, NULL, NULL, out));
		return validate(x, type, out);
	}
	default:
		break;
	}
	/* constants */
	if (type == 's') {
		if (n->k == TN_STRING) {
			*out = tv_str(n->s, n->n);
			return 0;
		}
		struct gw_buf b;
		gw_buf_init(&b, 1024);
		gw_tmpl__node_str(&b, n);
		int rc = gw_tmpl__xerr(x, GW_EINVAL, "expected string; found %s", b.data ? b.data : "");
		gw_buf_release(&b);
		return rc;
	}
	if (type == 'S' || type == 'R') {
		struct gw_buf b;
		gw_buf_init(&b, 1024);
		gw_tmpl__node_str(&b, n);
		int rc = gw_tmpl__xerr(x, GW_EINVAL, "can't handle %s for arg of type %s",
				       b.data ? b.data : "", param_type_name(type));
		gw_buf_release(&b);
		return rc;
	}
	switch (n->k) {
	case TN_BOOL:
		*out = (struct tv){.k = TV_BOOL, .b = n->bval};
		return 0;
	case TN_STRING:
		*out = tv_str(n->s, n->n);
		return 0;
	case TN_NUMBER:
		return ideal_constant(x, n, out);
	default:
		return gw_tmpl__xerr(x, GW_EINVAL, "can't handle argument");
	}
}

int gw_tmpl__eval_pipeline(struct texec *x, const struct tv *dot, const struct tnode *pipe, struct tv *out)
{
	x->at = pipe;
	struct tv v = invalid;
	for (size_t i = 0; i < pipe->nkids; i++) {
		struct tv next;
		TRY(eval_command(x, dot, pipe->kids[i], i ? &v : NULL, &next));
		/* a command's value comes out of any interface{}: nil then reads as no value */
		if (next.k == TV_NIL)
			next = invalid;
		next.boxed = false;
		v = next;
	}
	for (size_t i = 0; i < pipe->ndecl; i++)
		if (pipe->assign)
			TRY(gw_tmpl__set_var(x, pipe->decl[i]->s, &v));
		else
			TRY(gw_tmpl__push_var(x, pipe->decl[i]->s, &v));
	*out = v;
	return 0;
}
