/*
 * tmpl_funcs.c - Go text/template's builtin functions as Go 1.19 defines
 * them (and, or, not, len, index, slice, eq, ne, lt, le, gt, ge, print,
 * printf, println, html, js, urlquery), truth, and the lookup that joins
 * them with Prometheus' functions (tmpl_prom.c).
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

static int ret_str(struct tcall *c, struct gw_buf *b)
{
	char *s = gw_arena_strndup(c->arena, b->data ? b->data : "", b->len);
	size_t n = b->len;
	gw_buf_release(b);
	if (!s)
		return fail(c, "out of memory");
	c->ret = tv_str(s, n);
	return 0;
}

bool gw_tmpl__truth(const struct tv *v)
{
	switch (v->k) {
	case TV_INVALID:
	case TV_NIL:
		return false;
	case TV_BOOL:
		return v->b;
	case TV_INT:
	case TV_UINT8:
		return v->i != 0;
	case TV_FLOAT:
		return v->f != 0;
	case TV_STRING:
	case TV_HTML:
		return v->s.n > 0;
	case TV_LABELS:
		return v->l.n > 0;
	case TV_ARGS:
		return v->a.n > 0;
	case TV_SAMPLE:
		return v->smp != NULL;
	case TV_RESULT:
		return v->r.n > 0;
	default:
		return true;
	}
}

static int fn_not(struct tcall *c)
{
	c->ret = (struct tv){.k = TV_BOOL, .b = !gw_tmpl__truth(&c->args[0])};
	return 0;
}

static int fn_unused(struct tcall *c)
{
	return fail(c, "not callable");
}

static int fn_len(struct tcall *c)
{
	const struct tv *v = &c->args[0];
	size_t n;
	switch (v->k) {
	case TV_STRING:
	case TV_HTML:
		n = v->s.n;
		break;
	case TV_LABELS:
		n = v->l.n;
		break;
	case TV_ARGS:
		n = v->a.n;
		break;
	case TV_RESULT:
		n = v->r.n;
		break;
	case TV_SAMPLE:
		if (!v->smp)
			return fail(c, "len of nil pointer");
		return fail(c, "len of type template.sample");
	case TV_TIME:
		return fail(c, "len of type time.Time");
	case TV_INVALID:
		return fail(c, "reflect: call of reflect.Value.Type on zero Value");
	case TV_NIL:
		return fail(c, "len of nil pointer");
	default:
		return fail(c, "len of type %s", gw_tmpl__type_name(v));
	}
	c->ret = (struct tv){.k = TV_INT, .i = (int64_t)n};
	return 0;
}

static int index_arg(struct tcall *c, const struct tv *ix, size_t len, int64_t *out)
{
	if (ix->k == TV_NIL || ix->k == TV_INVALID)
		return fail(c, "cannot index slice/array with nil");
	if (ix->k != TV_INT && ix->k != TV_UINT8)
		return fail(c, "cannot index slice/array with type %s", gw_tmpl__type_name(ix));
	if (ix->i < 0 || (uint64_t)ix->i >= len)
		return fail(c, "index out of range: %lld", (long long)ix->i);
	*out = ix->i;
	return 0;
}

static int fn_index(struct tcall *c)
{
	struct tv item = c->args[0];
	if (item.k == TV_NIL || item.k == TV_INVALID)
		return fail(c, "index of untyped nil");
	for (size_t i = 1; i < c->n; i++) {
		const struct tv *ix = &c->args[i];
		int64_t k;
		if (item.k == TV_NIL) /* a missing key of args, indexed further */
			return fail(c, "index of nil pointer");
		switch (item.k) {
		case TV_STRING:
		case TV_HTML:
			if (index_arg(c, ix, item.s.n, &k))
				return -1;
			item = (struct tv){.k = TV_UINT8, .i = (unsigned char)item.s.p[k]};
			break;
		case TV_RESULT:
			if (index_arg(c, ix, item.r.n, &k))
				return -1;
			item = (struct tv){.k = TV_SAMPLE, .smp = item.r.p[k]};
			break;
		case TV_LABELS:
		case TV_ARGS: {
			if (ix->k != TV_STRING)
				return fail(c, "value has type %s; should be string", gw_tmpl__type_name(ix));
			const char *key = gw_arena_strndup(c->arena, ix->s.p, ix->s.n);
			if (!key)
				return fail(c, "out of memory");
			if (item.k == TV_LABELS) {
				const char *v = gw_labels_get(&item.l, key);
				item = v ? tv_str(v, strlen(v)) : tv_str("", 0);
			} else {
				struct tv found = {.k = TV_NIL};
				for (size_t a = 0; a < item.a.n; a++) {
					char name[24];
					snprintf(name, sizeof(name), "arg%zu", a);
					if (!strcmp(name, key))
						found = item.a.p[a];
				}
				item = found;
			}
			break;
		}
		case TV_SAMPLE:
			if (!item.smp)
				return fail(c, "index of nil pointer");
			return fail(c, "can't index item of type template.sample");
		case TV_TIME:
			return fail(c, "can't index item of type time.Time");
		default:
			return fail(c, "can't index item of type %s", gw_tmpl__type_name(&item));
		}
	}
	c->ret = item;
	return 0;
}

static int fn_slice(struct tcall *c)
{
	struct tv item = c->args[0];
	if (item.k == TV_NIL || item.k == TV_INVALID)
		return fail(c, "slice of untyped nil");
	if (c->n > 4)
		return fail(c, "too many slice indexes: %zu", c->n - 1);
	bool str = item.k == TV_STRING || item.k == TV_HTML;
	size_t len = str ? item.s.n : item.k == TV_RESULT ? item.r.n : 0;
	if (!str && item.k != TV_RESULT)
		return fail(c, "can't slice item of type %s", gw_tmpl__type_name(&item));
	if (str && c->n == 4)
		return fail(c, "cannot 3-index slice a string");
	int64_t ix[3] = {0, (int64_t)len, (int64_t)len};
	for (size_t i = 1; i < c->n; i++) {
		/* unlike index, slice does not look inside an interface{} */
		if (c->args[i].k == TV_NIL)
			return fail(c, "cannot index slice/array with type interface {}");
		if (index_arg(c, &c->args[i], len + 1, &ix[i - 1]))
			return -1;
	}
	if (c->n > 2 && ix[0] > ix[1])
		return fail(c, "invalid slice index: %lld > %lld", (long long)ix[0], (long long)ix[1]);
	if (str) {
		c->ret = tv_str(item.s.p + ix[0], (size_t)(ix[1] - ix[0]));
		c->ret.k = item.k;
	} else {
		c->ret = item;
		c->ret.r.p = item.r.p + ix[0];
		c->ret.r.n = (size_t)(ix[1] - ix[0]);
	}
	return 0;
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

static int fn_eq(struct tcall *c)
{
	bool t;
	return eq_any(c, &c->args[0], c->args + 1, c->n - 1, &t) ? -1 : ret_bool(c, t);
}

static int fn_ne(struct tcall *c)
{
	bool t;
	return eq_any(c, &c->args[0], c->args + 1, 1, &t) ? -1 : ret_bool(c, !t);
}

static int fn_lt(struct tcall *c)
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

static int fn_le(struct tcall *c)
{
	bool t;
	return le(c, &t) ? -1 : ret_bool(c, t);
}

static int fn_gt(struct tcall *c)
{
	bool t;
	return le(c, &t) ? -1 : ret_bool(c, !t);
}

static int fn_ge(struct tcall *c)
{
	bool t;
	return less(c, &c->args[0], &c->args[1], &t) ? -1 : ret_bool(c, !t);
}

static int fn_print(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, (size_t)1 << 20);
	gw_tmpl__sprint(&b, c->args, c->n, false);
	return ret_str(c, &b);
}

static int fn_println(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, (size_t)1 << 20);
	gw_tmpl__sprint(&b, c->args, c->n, true);
	return ret_str(c, &b);
}

static int fn_printf(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, (size_t)1 << 20);
	gw_tmpl__sprintf(&b, c->args[0].s.p, c->args[0].s.n, c->args + 1, c->n - 1);
	return ret_str(c, &b);
}

/* The text html, js and urlquery escape: a lone string, else Sprint. */
static void eval_args(struct tcall *c, struct gw_buf *b)
{
	if (c->n == 1 && c->args[0].k == TV_STRING) {
		gw_buf_append(b, c->args[0].s.p, c->args[0].s.n);
		return;
	}
	/* Sprint of text/template's printable values: nil is "<no value>" (a string
	 * then), a pointer is what it points to */
	bool prev_string = false;
	for (size_t i = 0; i < c->n; i++) {
		const struct tv *v = &c->args[i];
		bool nil = v->k == TV_NIL || v->k == TV_INVALID;
		bool str = nil || v->k == TV_STRING || v->k == TV_HTML;
		if (i && !str && !prev_string)
			gw_buf_putc(b, ' ');
		if (nil)
			gw_buf_puts(b, "<no value>");
		else
			gw_tmpl__print_value(b, v);
		prev_string = str;
	}
}

static int fn_html(struct tcall *c)
{
	struct gw_buf in, b;
	gw_buf_init(&in, (size_t)1 << 20);
	gw_buf_init(&b, (size_t)8 << 20);
	eval_args(c, &in);
	for (size_t i = 0; i < in.len; i++) {
		switch (in.data[i]) {
		case '"':
			gw_buf_puts(&b, "&#34;");
			break;
		case '\'':
			gw_buf_puts(&b, "&#39;");
			break;
		case '&':
			gw_buf_puts(&b, "&amp;");
			break;
		case '<':
			gw_buf_puts(&b, "&lt;");
			break;
		case '>':
			gw_buf_puts(&b, "&gt;");
			break;
		case 0:
			gw_buf_puts(&b, "\xef\xbf\xbd");
			break;
		default:
			gw_buf_putc(&b, in.data[i]);
			break;
		}
	}
	gw_buf_release(&in);
	return ret_str(c, &b);
}

static int fn_js(struct tcall *c)
{
	struct gw_buf in, b;
	gw_buf_init(&in, (size_t)1 << 20);
	gw_buf_init(&b, (size_t)8 << 20);
	eval_args(c, &in);
	for (size_t i = 0; i < in.len; i++) {
		unsigned char ch = (unsigned char)in.data[i];
		switch (ch) {
		case '\\':
			gw_buf_puts(&b, "\\\\");
			break;
		case '\'':
			gw_buf_puts(&b, "\\'");
			break;
		case '"':
			gw_buf_puts(&b, "\\\"");
			break;
		case '<':
			gw_buf_puts(&b, "\\u003C");
			break;
		case '>':
			gw_buf_puts(&b, "\\u003E");
			break;
		case '&':
			gw_buf_puts(&b, "\\u0026");
			break;
		case '=':
			gw_buf_puts(&b, "\\u003D");
			break;
		default:
			if (ch < ' ') {
				gw_buf_printf(&b, "\\u%04X", ch);
			} else if (ch >= 0x80) {
				size_t w;
				uint32_t r = gw_tmpl__rune(in.data + i, in.len - i, &w);
				if (gw_tmpl__rune_printable(r))
					gw_buf_append(&b, in.data + i, w);
				else
					gw_buf_printf(&b, "\\u%04X", r);
				i += w - 1;
			} else {
				gw_buf_putc(&b, (char)ch);
			}
			break;
		}
	}
	gw_buf_release(&in);
	return ret_str(c, &b);
}

static int fn_urlquery(struct tcall *c)
{
	struct gw_buf in, b;
	gw_buf_init(&in, (size_t)1 << 20);
	gw_buf_init(&b, (size_t)8 << 20);
	eval_args(c, &in);
	for (size_t i = 0; i < in.len; i++) {
		unsigned char ch = (unsigned char)in.data[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~')
			gw_buf_putc(&b, (char)ch);
		else if (ch == ' ')
			gw_buf_putc(&b, '+');
		else
			gw_buf_printf(&b, "%%%02X", ch);
	}
	gw_buf_release(&in);
	return ret_str(c, &b);
}

/* Templates here hold no function values: call can only fail, as Go's does. */
static int fn_call(struct tcall *c)
{
	const struct tv *fn = &c->args[0];
	if (fn->k == TV_INVALID || fn->k == TV_NIL)
		return fail(c, "call of nil");
	return fail(c, "non-function of type %s", gw_tmpl__type_name(fn));
}

static const struct tfunc builtins[] = {
    {"call", "VV*", fn_call},
    {"and", "VV*", fn_unused},
    {"or", "VV*", fn_unused},
    {"not", "V", fn_not},
    {"len", "V", fn_len},
    {"index", "VV*", fn_index},
    {"slice", "VV*", fn_slice},
    {"eq", "VV*", fn_eq},
    {"ne", "VV", fn_ne},
    {"lt", "VV", fn_lt},
    {"le", "VV", fn_le},
    {"gt", "VV", fn_gt},
    {"ge", "VV", fn_ge},
    {"print", "v*", fn_print},
    {"printf", "sv*", fn_printf},
    {"println", "v*", fn_println},
    {"html", "v*", fn_html},
    {"js", "v*", fn_js},
    {"urlquery", "v*", fn_urlquery},
};

extern const struct tfunc gw_tmpl__prom_funcs[];
extern const size_t gw_tmpl__prom_nfuncs;

const struct tfunc *gw_tmpl__func_find(const char *name, size_t n)
{
	/* Prometheus' functions override Go's builtins of the same name */
	for (size_t i = 0; i < gw_tmpl__prom_nfuncs; i++)
		if (strlen(gw_tmpl__prom_funcs[i].name) == n && !memcmp(gw_tmpl__prom_funcs[i].name, name, n))
			return &gw_tmpl__prom_funcs[i];
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strlen(builtins[i].name) == n && !memcmp(builtins[i].name, name, n))
			return &builtins[i];
	return NULL;
}
