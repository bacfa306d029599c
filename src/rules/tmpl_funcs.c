/*
 * tmpl_funcs.c - Go text/template's builtin functions as Go 1.20 defines
 * them (and, or, not, len, index, slice, call, print, printf, println,
 * html, js, urlquery; the comparisons are tmpl_compare.c's), truth, and
 * the lookup that joins them with Prometheus' functions (tmpl_prom.c).
 */
#include "rules/tmpl_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gw_tmpl__fail(struct tcall *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int gw_tmpl__ret_buf(struct tcall *c, struct gw_buf *b)
{
	char *s = gw_arena_strndup(c->arena, b->data ? b->data : "", b->len);
	size_t n = b->len;
	gw_buf_release(b);
	if (!s)
		return gw_tmpl__fail(c, "out of memory");
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
	return gw_tmpl__fail(c, "not callable");
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
			return gw_tmpl__fail(c, "len of nil pointer");
		return gw_tmpl__fail(c, "len of type template.sample");
	case TV_TIME:
		return gw_tmpl__fail(c, "len of type time.Time");
	case TV_INVALID:
		return gw_tmpl__fail(c, "reflect: call of reflect.Value.Type on zero Value");
	case TV_NIL:
		return gw_tmpl__fail(c, "len of nil pointer");
	default:
		return gw_tmpl__fail(c, "len of type %s", gw_tmpl__type_name(v));
	}
	c->ret = (struct tv){.k = TV_INT, .i = (int64_t)n};
	return 0;
}

static int index_arg(struct tcall *c, const struct tv *ix, size_t len, int64_t *out)
{
	if (ix->k == TV_NIL || ix->k == TV_INVALID)
		return gw_tmpl__fail(c, "cannot index slice/array with nil");
	if (ix->k != TV_INT && ix->k != TV_UINT8)
		return gw_tmpl__fail(c, "cannot index slice/array with type %s", gw_tmpl__type_name(ix));
	if (ix->i < 0 || (uint64_t)ix->i >= len)
		return gw_tmpl__fail(c, "index out of range: %lld", (long long)ix->i);
	*out = ix->i;
	return 0;
}

static int fn_index(struct tcall *c)
{
	struct tv item = c->args[0];
	if (item.k == TV_NIL || item.k == TV_INVALID)
		return gw_tmpl__fail(c, "index of untyped nil");
	for (size_t i = 1; i < c->n; i++) {
		const struct tv *ix = &c->args[i];
		int64_t k;
		if (item.k == TV_NIL) /* a missing key of args, indexed further */
			return gw_tmpl__fail(c, "index of nil pointer");
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
				return gw_tmpl__fail(c, "value has type %s; should be string", gw_tmpl__type_name(ix));
			const char *key = gw_arena_strndup(c->arena, ix->s.p, ix->s.n);
			if (!key)
				return gw_tmpl__fail(c, "out of memory");
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
				return gw_tmpl__fail(c, "index of nil pointer");
			return gw_tmpl__fail(c, "can't index item of type template.sample");
		case TV_TIME:
			return gw_tmpl__fail(c, "can't index item of type time.Time");
		default:
			return gw_tmpl__fail(c, "can't index item of type %s", gw_tmpl__type_name(&item));
		}
	}
	c->ret = item;
	return 0;
}

static int fn_slice(struct tcall *c)
{
	struct tv item = c->args[0];
	if (item.k == TV_NIL || item.k == TV_INVALID)
		return gw_tmpl__fail(c, "slice of untyped nil");
	if (c->n > 4)
		return gw_tmpl__fail(c, "too many slice indexes: %zu", c->n - 1);
	bool str = item.k == TV_STRING || item.k == TV_HTML;
	size_t len = str ? item.s.n : item.k == TV_RESULT ? item.r.n : 0;
	if (!str && item.k != TV_RESULT)
		return gw_tmpl__fail(c, "can't slice item of type %s", gw_tmpl__type_name(&item));
	if (str && c->n == 4)
		return gw_tmpl__fail(c, "cannot 3-index slice a string");
	int64_t ix[3] = {0, (int64_t)len, (int64_t)len};
	for (size_t i = 1; i < c->n; i++) {
		/* unlike index, slice does not look inside an interface{} */
		if (c->args[i].k == TV_NIL)
			return gw_tmpl__fail(c, "cannot index slice/array with type interface {}");
		if (index_arg(c, &c->args[i], len + 1, &ix[i - 1]))
			return -1;
	}
	if (c->n > 2 && ix[0] > ix[1])
		return gw_tmpl__fail(c, "invalid slice index: %lld > %lld", (long long)ix[0], (long long)ix[1]);
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

static int fn_print(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	gw_tmpl__sprint(&b, c->args, c->n, false);
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_println(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	gw_tmpl__sprint(&b, c->args, c->n, true);
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_printf(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	gw_tmpl__sprintf(&b, c->args[0].s.p, c->args[0].s.n, c->args + 1, c->n - 1);
	return gw_tmpl__ret_buf(c, &b);
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
	gw_buf_init(&in, TMPL_VALUE_MAX);
	gw_buf_init(&b, TMPL_VALUE_MAX);
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
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_js(struct tcall *c)
{
	struct gw_buf in, b;
	gw_buf_init(&in, TMPL_VALUE_MAX);
	gw_buf_init(&b, TMPL_VALUE_MAX);
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
	return gw_tmpl__ret_buf(c, &b);
}

static int fn_urlquery(struct tcall *c)
{
	struct gw_buf in, b;
	gw_buf_init(&in, TMPL_VALUE_MAX);
	gw_buf_init(&b, TMPL_VALUE_MAX);
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
	return gw_tmpl__ret_buf(c, &b);
}

/* Templates here hold no function values: call can only fail, as Go's does. */
static int fn_call(struct tcall *c)
{
	const struct tv *fn = &c->args[0];
	if (fn->k == TV_INVALID || fn->k == TV_NIL)
		return gw_tmpl__fail(c, "call of nil");
	return gw_tmpl__fail(c, "non-function of type %s", gw_tmpl__type_name(fn));
}

static const struct tfunc builtins[] = {
    {"call", "VV*", fn_call},
    {"and", "VV*", fn_unused},
    {"or", "VV*", fn_unused},
    {"not", "V", fn_not},
    {"len", "V", fn_len},
    {"index", "VV*", fn_index},
    {"slice", "VV*", fn_slice},
    {"eq", "VV*", gw_tmpl__fn_eq},
    {"ne", "VV", gw_tmpl__fn_ne},
    {"lt", "VV", gw_tmpl__fn_lt},
    {"le", "VV", gw_tmpl__fn_le},
    {"gt", "VV", gw_tmpl__fn_gt},
    {"ge", "VV", gw_tmpl__fn_ge},
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
