/*
 * tmpl_compare.c - Go 1.20 text/template's comparison builtins: eq (with
 * several arguments), ne, lt, le, gt, ge over Go's basic kinds, and the
 * errors for what cannot be compared ("incompatible types for
 * comparison", "non-comparable type ...").
 */
#include "rules/tmpl_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(struct tcall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct tcall *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return -1;
}

enum bkind { K_INVALID, K_BOOL, K_INT, K_UINT, K_FLOAT, K_STRING };

static enum bkind basic_kind(const struct tv *v)
{
	switch (v->k) {
	case TV_BOOL:
		return K_BOOL;
	case TV_INT:
		return K_INT;
	case TV_UINT8:
		return K_UINT;
	case TV_FLOAT:
		return K_FLOAT;
	case TV_STRING:
	case TV_HTML:
		return K_STRING;
	default:
		return K_INVALID;
	}
}

/* reflect's kinds beyond the basic ones: 0 none, then map, slice, struct, pointer. */
static int kind_group(const struct tv *v)
{
	switch (v->k) {
	case TV_LABELS:
	case TV_ARGS:
		return 1;
	case TV_RESULT:
		return 2;
	case TV_DATA:
		return 3;
	case TV_SAMPLE:
	case TV_TIME:
		return 4;
	default:
		return 0;
	}
}

static bool is_nil(const struct tv *v)
{
	return v->k == TV_INVALID || v->k == TV_NIL || (v->k == TV_SAMPLE && !v->smp);
}

/* fmt's verb applied to v, for the messages that quote values. */
static void sprint_verb(struct gw_buf *b, const char *verb, const struct tv *v)
{
	gw_tmpl__sprintf(b, verb, 2, v, 1);
}

static int non_comparable(struct tcall *c, const struct tv *a, const struct tv *b)
{
	struct gw_buf x, y;
	gw_buf_init(&x, 4096);
	gw_buf_init(&y, 4096);
	if (a) {
		sprint_verb(&x, "%s", a);
		sprint_verb(&y, "%v", b);
		fail(c, "non-comparable types %.1500s: %s, %s: %.1500s", x.data ? x.data : "",
		     gw_tmpl__type_name(a), gw_tmpl__type_name(b), y.data ? y.data : "");
	} else {
		sprint_verb(&x, "%s", b);
		fail(c, "non-comparable type %.3000s: %s", x.data ? x.data : "", gw_tmpl__type_name(b));
	}
	gw_buf_release(&x);
	gw_buf_release(&y);
	return -1;
}

/* eq(a, b...) as Go 1.20 has it: a equals any b; -1 with c->msg on Go's errors. */
static int eq_any(struct tcall *c, const struct tv *a, const struct tv *bs, size_t nb, bool *out)
{
	if (nb == 0)
		return fail(c, "missing argument for comparison");
	enum bkind k1 = basic_kind(a);
	for (size_t i = 0; i < nb; i++) {
		const struct tv *b = &bs[i];
		enum bkind k2 = basic_kind(b);
		bool t = false;
		if (k1 != k2) {
			if (k1 == K_INT && k2 == K_UINT)
				t = a->i >= 0 && a->i == b->i;
			else if (k1 == K_UINT && k2 == K_INT)
				t = b->i >= 0 && a->i == b->i;
			else if (a->k != TV_INVALID && a->k != TV_NIL && b->k != TV_INVALID && b->k != TV_NIL)
				return fail(c, "incompatible types for comparison");
		} else {
			switch (k1) {
			case K_BOOL:
				t = a->b == b->b;
				break;
			case K_INT:
			case K_UINT:
				t = a->i == b->i;
				break;
			case K_FLOAT:
				t = a->f == b->f;
				break;
			case K_STRING:
				t = a->s.n == b->s.n && memcmp(a->s.p, b->s.p, a->s.n) == 0;
				break;
			default: {
				int g1 = kind_group(a), g2 = kind_group(b);
				if (g1 && g2 && g1 != g2)
					return non_comparable(c, a, b);
				if (is_nil(a) || is_nil(b))
					t = is_nil(a) == is_nil(b);
				else if (g2 != 4)
					return non_comparable(c, NULL, b); /* maps, slices, the data struct */
				else
					t = a->k == b->k && ((a->k == TV_SAMPLE && a->smp == b->smp) ||
							     (a->k == TV_TIME && a->ns == b->ns));
			}
			}
		}
		if (t) {
			*out = true;
			return 0;
		}
	}
	*out = false;
	return 0;
}

static int less(struct tcall *c, const struct tv *a, const struct tv *b, bool *out)
{
	enum bkind k1 = basic_kind(a), k2 = basic_kind(b);
	if (k1 == K_INVALID || k2 == K_INVALID)
		return fail(c, "invalid type for comparison");
	if (k1 != k2) {
		if (k1 == K_INT && k2 == K_UINT)
			*out = a->i < 0 || a->i < b->i;
		else if (k1 == K_UINT && k2 == K_INT)
			*out = b->i >= 0 && a->i < b->i;
		else
			return fail(c, "incompatible types for comparison");
		return 0;
	}
	switch (k1) {
	case K_BOOL:
		return fail(c, "invalid type for comparison");
	case K_FLOAT:
		*out = a->f < b->f;
		break;
	case K_STRING: {
		size_t n = a->s.n < b->s.n ? a->s.n : b->s.n;
		int r = memcmp(a->s.p, b->s.p, n);
		*out = r < 0 || (r == 0 && a->s.n < b->s.n);
		break;
	}
	default:
		*out = a->i < b->i;
		break;
	}
	return 0;
}

static int ret_bool(struct tcall *c, bool b)
{
	c->ret = (struct tv){.k = TV_BOOL, .b = b};
	return 0;
}

int gw_tmpl__fn_eq(struct tcall *c)
{
	bool t;
	return eq_any(c, &c->args[0], c->args + 1, c->n - 1, &t) ? -1 : ret_bool(c, t);
}

int gw_tmpl__fn_ne(struct tcall *c)
{
	bool t;
	return eq_any(c, &c->args[0], c->args + 1, 1, &t) ? -1 : ret_bool(c, !t);
}

int gw_tmpl__fn_lt(struct tcall *c)
{
	bool t;
	return less(c, &c->args[0], &c->args[1], &t) ? -1 : ret_bool(c, t);
}

static int le(struct tcall *c, bool *t)
{
	if (less(c, &c->args[0], &c->args[1], t))
		return -1;
	if (*t)
		return 0;
	return eq_any(c, &c->args[0], c->args + 1, 1, t);
}

int gw_tmpl__fn_le(struct tcall *c)
{
	bool t;
	return le(c, &t) ? -1 : ret_bool(c, t);
}

int gw_tmpl__fn_gt(struct tcall *c)
{
	bool t;
	return le(c, &t) ? -1 : ret_bool(c, !t);
}

int gw_tmpl__fn_ge(struct tcall *c)
{
	bool t;
	return less(c, &c->args[0], &c->args[1], &t) ? -1 : ret_bool(c, !t);
}
