/*
 * tmpl_fmt.c - Go's fmt for template values: %v as text/template prints an
 * action ({{ $value }} of 1e6 is "1e+06": strconv's shortest 'g' with its
 * exponent from 1e-5 down and 1e6 up), numbers under flags, width and
 * precision, maps, structs and times, and Sprint's spacing rules.
 * Sprintf's parsing of verbs is tmpl_printf.c's.
 */
#include "model/number.h"
#include "rules/tmpl_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Go's flags map onto C's for the verbs handed to snprintf below, whose
 * formats are therefore built at run time. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static const struct tspec plain_v = {.width = -1, .prec = -1, .verb = 'v'};

const char *gw_tmpl__type_name(const struct tv *v)
{
	if (v->k == TV_INT && v->int64)
		return "int64";
	static const char *const names[] = {
	    [TV_INVALID] = "<nil>",
	    [TV_NIL] = "<nil>",
	    [TV_BOOL] = "bool",
	    [TV_INT] = "int",
	    [TV_UINT8] = "uint8",
	    [TV_FLOAT] = "float64",
	    [TV_STRING] = "string",
	    [TV_HTML] = "template.HTML",
	    [TV_LABELS] = "map[string]string",
	    [TV_ARGS] = "map[string]interface {}",
	    [TV_DATA] =
		"struct { Labels map[string]string; ExternalLabels map[string]string; ExternalURL string; "
		"Value float64 }",
	    [TV_SAMPLE] = "*template.sample",
	    [TV_RESULT] = "template.queryResult",
	    [TV_TIME] = "*time.Time",
	};
	return names[v->k];
}

static size_t rune_count(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* n copies of c: widths and precisions reach a million, so not byte by byte. */
static void fill(struct gw_buf *b, char c, size_t n)
{
	if (n == 0 || gw_buf_reserve(b, n + 1) != 0)
		return;
	memset(b->data + b->len, c, n);
	b->len += n;
	b->data[b->len] = 0;
}

/* Write s padded to the spec's width, as fmt pads (in runes). */
void gw_tmpl__pad(struct gw_buf *b, const struct tspec *sp, const char *s, size_t n, bool zero_ok)
{
	size_t w = rune_count(s, n);
	size_t pad = sp->width > 0 && (size_t)sp->width > w ? (size_t)sp->width - w : 0;
	if (sp->minus) {
		gw_buf_append(b, s, n);
		fill(b, ' ', pad);
		return;
	}
	fill(b, sp->zero && zero_ok ? '0' : ' ', pad);
	gw_buf_append(b, s, n);
}

/* strconv's shortest 'g' with fmt's %v exponent rule. */
static size_t float_v(char *out, double v)
{
	if (isnan(v))
		return (size_t)sprintf(out, "NaN");
	if (isinf(v))
		return (size_t)sprintf(out, v > 0 ? "+Inf" : "-Inf");
	if (v == 0)
		return (size_t)sprintf(out, signbit(v) ? "-0" : "0");
	char e[GW_NUM_E_MAX + 1];
	size_t n = gw_num_format_e(e, v);
	e[n] = 0;
	const char *x = strchr(e, 'e');
	int exp = x ? atoi(x + 1) : 0;
	if (exp < -4 || exp >= 6) {
		memcpy(out, e, n);
		return n;
	}
	return gw_num_format_f(out, 400, v);
}

/* printf into t with a format built at run time (C's flags match Go's here). */
static void tprintf(struct gw_buf *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gw_buf_vprintf(t, fmt, ap);
	va_end(ap);
}

/* Pad t's text into b, and release t. Precision reaches a million digits, hence the buffer. */
static void pad_release(struct gw_buf *b, const struct tspec *sp, struct gw_buf *t, bool zero_ok)
{
	gw_tmpl__pad(b, sp, t->data ? t->data : "", t->len, zero_ok);
	gw_buf_release(t);
}

#define TMP_LIMIT TMPL_VALUE_MAX

/*
 * fmt's '#' on a float: a decimal point always, and for %v, %g, %G and %x
 * zeros up to the precision's significant digits (6 without one), counted
 * as Go counts them (in %x, from the x of 0x).
 */
static void sharp_float(struct gw_buf *t, char verb, int prec)
{
	int digits = strchr("vgGx", verb) ? (prec < 0 ? 6 : prec) : 0;
	char *s = t->data;
	if (!s)
		return;
	size_t n = t->len, i = s[0] == '+' || s[0] == '-' || s[0] == ' ' ? 1 : 0, end = n;
	bool point = false, nonzero = false;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			point = true;
		} else if (c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X')) {
			end = i;
			break;
		} else {
			nonzero |= c != '0';
			if (nonzero)
				digits--;
		}
	}
	char tail[16];
	size_t tn = n - end < sizeof(tail) ? n - end : sizeof(tail) - 1;
	memcpy(tail, s + end, tn);
	t->len = end;
	if (!point) {
		size_t start = s[0] == '+' || s[0] == '-' || s[0] == ' ' ? 1 : 0;
		if (end - start == 1 && s[start] == '0')
			digits--;
		gw_buf_putc(t, '.');
	}
	fill(t, '0', digits > 0 ? (size_t)digits : 0);
	gw_buf_append(t, tail, tn);
}

void gw_tmpl__fmt_float(struct gw_buf *b, const struct tspec *sp, double v)
{
	if (isnan(v) || isinf(v)) {
		/* fmt keeps Inf's sign, shows NaN's only when asked, never pads with zeros */
		const char *t;
		if (isnan(v))
			t = sp->plus ? "+NaN" : sp->space ? " NaN" : "NaN";
		else
			t = v < 0 ? "-Inf" : sp->space && !sp->plus ? " Inf" : "+Inf";
		struct tspec nz = *sp;
		nz.zero = false;
		gw_tmpl__pad(b, &nz, t, strlen(t), false);
		return;
	}
	struct gw_buf t;
	gw_buf_init(&t, TMP_LIMIT);
	char verb = sp->verb == 'v' ? 'g' : sp->verb == 'F' ? 'f' : sp->verb;
	char f[16];
	if (verb == 'b') {
		/* strconv's 'b': the integer mantissa and the power of two, "6755399441055744p-52" */
		uint64_t bits;
		memcpy(&bits, &v, sizeof(bits));
		uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
		int exp = (int)((bits >> 52) & 0x7ff);
		if (exp == 0)
			exp = 1;
		else
			mant |= UINT64_C(1) << 52;
		exp -= 1075;
		if (bits >> 63)
			gw_buf_putc(&t, '-');
		else if (sp->plus || sp->space)
			gw_buf_putc(&t, sp->plus ? '+' : ' ');
		gw_buf_printf(&t, "%llup%s%d", (unsigned long long)mant, exp >= 0 ? "+" : "", exp);
	} else if (verb == 'x' || verb == 'X') {
		/* C's %a, with Go's two-digit exponent */
		snprintf(f, sizeof(f), "%%%s%s.*%c", sp->plus ? "+" : "", sp->space ? " " : "",
			 verb == 'x' ? 'a' : 'A');
		if (sp->prec < 0) {
			if ((sp->plus || sp->space) && v >= 0)
				gw_buf_putc(&t, sp->plus ? '+' : ' ');
			tprintf(&t, verb == 'x' ? "%a" : "%A", v);
		} else {
			tprintf(&t, f, sp->prec, v);
		}
		/* C may round the mantissa up to 2; Go renormalises to 1 and a higher exponent */
		char *x = t.data ? strpbrk(t.data, "xX") : NULL;
		int bump = x && x[1] == '2';
		if (bump)
			x[1] = '1';
		char *p = t.data ? strpbrk(t.data, "pP") : NULL;
		if (bump && p) {
			int e = atoi(p + 1) + 1;
			t.len = (size_t)(p - t.data) + 1;
			t.data[t.len] = 0;
			gw_buf_printf(&t, "%c%d", e < 0 ? '-' : '+', e < 0 ? -e : e);
			p = strpbrk(t.data, "pP");
		}
		if (p && (p[1] == '+' || p[1] == '-') && p[3] == 0) {
			char last = p[2];
			p[2] = '0';
			gw_buf_putc(&t, last);
		}
	} else if ((verb == 'g' || verb == 'G') && sp->prec < 0) {
		char body[512];
		size_t bn = float_v(body, v);
		if (verb == 'G')
			for (size_t i = 0; i < bn; i++)
				if (body[i] == 'e')
					body[i] = 'E';
		if (body[0] != '-' && (sp->plus || sp->space))
			gw_buf_putc(&t, sp->plus ? '+' : ' ');
		gw_buf_append(&t, body, bn);
	} else {
		snprintf(f, sizeof(f), "%%%s%s.*%c", sp->plus ? "+" : "", sp->space ? " " : "", verb);
		tprintf(&t, f, sp->prec < 0 ? 6 : sp->prec, v);
	}
	if (sp->sharp && verb != 'b')
		sharp_float(&t, sp->verb, sp->prec);
	if (sp->zero && !sp->minus && t.len && strchr("+- ", t.data[0]) && sp->width > (int)t.len) {
		/* a number's zeros go after its sign */
		gw_buf_putc(b, t.data[0]);
		struct tspec rest = *sp;
		rest.width--;
		gw_tmpl__pad(b, &rest, t.data + 1, t.len - 1, true);
		gw_buf_release(&t);
		return;
	}
	pad_release(b, sp, &t, true);
}

void gw_tmpl__put_rune(struct gw_buf *t, uint32_t r)
{
	char o[4];
	size_t k = 0;
	if (r > 0x10ffff || (r >= 0xd800 && r < 0xe000))
		r = 0xfffd;
	if (r < 0x80) {
		o[k++] = (char)r;
	} else if (r < 0x800) {
		o[k++] = (char)(0xc0 | r >> 6);
		o[k++] = (char)(0x80 | (r & 0x3f));
	} else if (r < 0x10000) {
		o[k++] = (char)(0xe0 | r >> 12);
		o[k++] = (char)(0x80 | ((r >> 6) & 0x3f));
		o[k++] = (char)(0x80 | (r & 0x3f));
	} else {
		o[k++] = (char)(0xf0 | r >> 18);
		o[k++] = (char)(0x80 | ((r >> 12) & 0x3f));
		o[k++] = (char)(0x80 | ((r >> 6) & 0x3f));
		o[k++] = (char)(0x80 | (r & 0x3f));
	}
	gw_buf_append(t, o, k);
}

void gw_tmpl__fmt_int(struct gw_buf *b, const struct tspec *sp, int64_t v)
{
	char verb = sp->verb == 'v' ? 'd' : sp->verb;
	struct gw_buf t;
	gw_buf_init(&t, TMP_LIMIT);
	if (verb == 'c') {
		gw_tmpl__put_rune(&t, v < 0 || v > 0x10ffff ? 0xfffd : (uint32_t)v);
		pad_release(b, sp, &t, true);
		return;
	}
	if (verb == 'U') {
		gw_buf_printf(&t, "U+%04llX", (unsigned long long)v);
		if (sp->sharp && v >= 0 && v <= 0x10ffff) {
			gw_buf_puts(&t, " '");
			gw_tmpl__put_rune(&t, (uint32_t)v);
			gw_buf_putc(&t, '\'');
		}
		pad_release(b, sp, &t, false);
		return;
	}
	/* digits of |v|: Go writes -ff for %x of negatives, where C would write two's complement */
	bool neg = v < 0;
	uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char d[72];
	int k = 0;
	unsigned base = verb == 'b'		     ? 2
			: verb == 'o' || verb == 'O' ? 8
			: verb == 'x' || verb == 'X' ? 16
						     : 10;
	const char *dig = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	do
		d[k++] = dig[u % base];
	while (u /= base);
	if (sp->prec == 0 && v == 0)
		k = 0;
	if (neg)
		gw_buf_putc(&t, '-');
	else if (sp->plus)
		gw_buf_putc(&t, '+');
	else if (sp->space)
		gw_buf_putc(&t, ' ');
	if (verb == 'O')
		gw_buf_puts(&t, "0o");
	else if (sp->sharp && base == 16)
		gw_buf_puts(&t, verb == 'X' ? "0X" : "0x");
	else if (sp->sharp && base == 2)
		gw_buf_puts(&t, "0b");
	/* Go zero-pads a width as digits: after the sign and before any 0x, as if a precision */
	int prec = sp->prec;
	if (prec < 0 && sp->zero && !sp->minus && sp->width > 0)
		prec = sp->width - (neg || sp->plus || sp->space ? 1 : 0);
	int zeros = prec > k ? prec - k : 0;
	if (sp->sharp && base == 8 && verb == 'o' && zeros == 0 && (k == 0 || d[k - 1] != '0'))
		zeros = 1;
	fill(&t, '0', zeros > 0 ? (size_t)zeros : 0);
	while (k)
		gw_buf_putc(&t, d[--k]);
	pad_release(b, sp, &t, false);
}

void gw_tmpl__fmt_g4(struct gw_buf *b, double v)
{
	if (isnan(v))
		gw_buf_puts(b, "NaN");
	else if (isinf(v))
		gw_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
	else
		gw_buf_printf(b, "%.4g", v);
}

void gw_tmpl__fmt_labels(struct gw_buf *b, const struct gw_labels *l)
{
	gw_buf_puts(b, "map[");
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			gw_buf_putc(b, ' ');
		gw_buf_puts(b, l->p[i].name);
		gw_buf_putc(b, ':');
		gw_buf_puts(b, l->p[i].value);
	}
	gw_buf_putc(b, ']');
}

void gw_tmpl__fmt_sample(struct gw_buf *b, const struct tsample *s, int depth)
{
	if (!s) {
		gw_buf_puts(b, "<nil>");
		return;
	}
	if (depth > 0) {
		gw_buf_printf(b, "%p", (const void *)s);
		return;
	}
	gw_buf_putc(b, '{');
	gw_tmpl__fmt_labels(b, &s->labels);
	gw_buf_putc(b, ' ');
	struct tv f = {.k = TV_FLOAT, .f = s->v};
	gw_tmpl__fmt_v(b, &plain_v, &f, 1);
	gw_buf_putc(b, '}');
}

/* Element k and, in decimal string order, those whose numbers start with its digits. */
static void args_from(struct gw_buf *b, const struct tv *v, size_t k, int depth, bool *first)
{
	gw_buf_printf(b, "%sarg%zu:", *first ? "" : " ", k);
	*first = false;
	gw_tmpl__fmt_v(b, &plain_v, &v->a.p[k], depth + 1);
	for (size_t d = 0; k > 0 && d < 10 && k <= (v->a.n - d) / 10; d++)
		if (k * 10 + d < v->a.n)
			args_from(b, v, k * 10 + d, depth, first);
}

/* map[arg0:... arg1:... arg10:... arg2:...]: fmt sorts the keys as strings. */
void gw_tmpl__fmt_args(struct gw_buf *b, const struct tv *v, int depth)
{
	bool first = true;
	gw_buf_puts(b, "map[");
	for (size_t k = 0; k < 10 && k < v->a.n; k++)
		args_from(b, v, k, depth, &first);
	gw_buf_putc(b, ']');
}

void gw_tmpl__fmt_v(struct gw_buf *b, const struct tspec *sp, const struct tv *v, int depth)
{
	switch (v->k) {
	case TV_INVALID:
		gw_tmpl__pad(b, sp, "<no value>", 10, true);
		break;
	case TV_NIL:
		gw_tmpl__pad(b, sp, "<nil>", 5, true);
		break;
	case TV_BOOL:
		gw_tmpl__pad(b, sp, v->b ? "true" : "false", v->b ? 4 : 5,
			     true); /* fmt zero-pads all but numbers its own way */
		break;
	case TV_INT:
	case TV_UINT8:
		gw_tmpl__fmt_int(b, sp, v->i);
		break;
	case TV_FLOAT:
		gw_tmpl__fmt_float(b, sp, v->f);
		break;
	case TV_STRING:
	case TV_HTML: {
		size_t n = v->s.n;
		if (sp->prec >= 0) {
			size_t k = 0, r = 0;
			while (k < n && r < (size_t)sp->prec) {
				k++;
				while (k < n && ((unsigned char)v->s.p[k] & 0xc0) == 0x80)
					k++;
				r++;
			}
			n = k;
		}
		gw_tmpl__pad(b, sp, v->s.p, n, true);
		break;
	}
	case TV_LABELS:
		gw_tmpl__fmt_labels(b, &v->l);
		break;
	case TV_ARGS:
		gw_tmpl__fmt_args(b, v, depth);
		break;
	case TV_DATA: {
		gw_buf_putc(b, '{');
		gw_tmpl__fmt_labels(b, &v->d->labels);
		gw_buf_putc(b, ' ');
		gw_tmpl__fmt_labels(b, &v->d->external);
		gw_buf_printf(b, " %s ", v->d->external_url ? v->d->external_url : "");
		struct tv f = {.k = TV_FLOAT, .f = v->d->value};
		gw_tmpl__fmt_v(b, &plain_v, &f, depth + 1);
		gw_buf_putc(b, '}');
		break;
	}
	case TV_SAMPLE:
		if (depth == 0 && v->smp)
			gw_buf_putc(b, '&');
		gw_tmpl__fmt_sample(b, v->smp, depth == 0 && v->smp ? 0 : depth);
		break;
	case TV_RESULT:
		gw_buf_putc(b, '[');
		for (size_t i = 0; i < v->r.n; i++) {
			if (i)
				gw_buf_putc(b, ' ');
			gw_tmpl__fmt_sample(b, v->r.p[i], depth + 1);
		}
		gw_buf_putc(b, ']');
		break;
	case TV_TIME:
		gw_tmpl__fmt_time(b, v->ns);
		break;
	}
}

int gw_tmpl__print_value(struct gw_buf *b, const struct tv *v)
{
	/* text/template dereferences a pointer before printing it */
	if (v->k == TV_SAMPLE)
		gw_tmpl__fmt_sample(b, v->smp, 0);
	else
		gw_tmpl__fmt_v(b, &plain_v, v, 0);
	return 0;
}

static bool is_string(const struct tv *v)
{
	return v->k == TV_STRING || v->k == TV_HTML;
}

int gw_tmpl__sprint(struct gw_buf *b, const struct tv *args, size_t n, bool ln)
{
	for (size_t i = 0; i < n; i++) {
		if (i && (ln || (!is_string(&args[i]) && !is_string(&args[i - 1]))))
			gw_buf_putc(b, ' ');
		gw_tmpl__fmt_v(b, &plain_v, &args[i], 0);
	}
	if (ln)
		gw_buf_putc(b, '\n');
	return 0;
}
