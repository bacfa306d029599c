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

/* Write s padded to the spec's width, as fmt pads (in runes). */
void gw_tmpl__pad(struct gw_buf *b, const struct tspec *sp, const char *s, size_t n, bool zero_ok)
{
	size_t w = rune_count(s, n);
	size_t fill = sp->width > 0 && (size_t)sp->width > w ? (size_t)sp->width - w : 0;
	if (sp->minus) {
		gw_buf_append(b, s, n);
		for (size_t i = 0; i < fill; i++)
			gw_buf_putc(b, ' ');
		return;
	}
	bool zero = sp->zero && zero_ok;
	if (zero && n && (s[0] == '-' || s[0] == '+' || s[0] == ' ')) {
		gw_buf_putc(b, s[0]);
		s++;
		n--;
	}
	for (size_t i = 0; i < fill; i++)
		gw_buf_putc(b, zero ? '0' : ' ');
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

void gw_tmpl__fmt_float(struct gw_buf *b, const struct tspec *sp, double v)
{
	char s[512];
	size_t n;
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
	char verb = sp->verb == 'v' ? 'g' : sp->verb == 'F' ? 'f' : sp->verb;
	if (verb == 'x' || verb == 'X') {
		/* C's %a, with Go's two-digit exponent */
		char f[16], h[128];
		snprintf(f, sizeof(f), "%%%s%s.*%c", sp->plus ? "+" : "", sp->space ? " " : "",
			 verb == 'x' ? 'a' : 'A');
		int hn = sp->prec < 0 ? snprintf(h, sizeof(h), verb == 'x' ? "%a" : "%A", v)
				      : snprintf(h, sizeof(h), f, sp->prec, v);
		if (sp->prec < 0 && (sp->plus || sp->space) && v >= 0) {
			memmove(h + 1, h, (size_t)hn + 1);
			h[0] = sp->plus ? '+' : ' ';
			hn++;
		}
		char *p = strpbrk(h, "pP");
		n = 0;
		if (p && (p[1] == '+' || p[1] == '-') && p[3] == 0) {
			n = (size_t)(p - h) + 2;
			memcpy(s, h, n);
			s[n++] = '0';
			s[n++] = p[2];
		} else {
			n = (size_t)hn;
			memcpy(s, h, n);
		}
		gw_tmpl__pad(b, sp, s, n, true);
		return;
	}
	if ((verb == 'g' || verb == 'G') && sp->prec < 0 && sp->sharp) {
		/* %#g keeps six significant digits, as C's does */
		char f[16];
		snprintf(f, sizeof(f), "%%%s%s#%c", sp->plus ? "+" : "", sp->space ? " " : "", verb);
		n = (size_t)snprintf(s, sizeof(s), f, v);
		gw_tmpl__pad(b, sp, s, n, true);
		return;
	}
	if ((verb == 'g' || verb == 'G') && sp->prec < 0) {
		char body[512];
		size_t bn = float_v(body, v);
		if (verb == 'G')
			for (size_t i = 0; i < bn; i++)
				if (body[i] == 'e')
					body[i] = 'E';
		n = 0;
		if (body[0] != '-' && (sp->plus || sp->space))
			s[n++] = sp->plus ? '+' : ' ';
		memcpy(s + n, body, bn);
		n += bn;
	} else {
		char f[16];
		snprintf(f, sizeof(f), "%%%s%s%s.*%c", sp->plus ? "+" : "", sp->space ? " " : "",
			 sp->sharp ? "#" : "", verb);
		n = (size_t)snprintf(s, sizeof(s), f, sp->prec < 0 ? 6 : sp->prec, v);
		if (n >= sizeof(s))
			n = sizeof(s) - 1;
	}
	gw_tmpl__pad(b, sp, s, n, true);
}

void gw_tmpl__fmt_int(struct gw_buf *b, const struct tspec *sp, int64_t v)
{
	char s[96];
	size_t n;
	char verb = sp->verb == 'v' ? 'd' : sp->verb;
	if (verb == 'c') {
		uint32_t r = (uint32_t)v;
		n = 0;
		if (r < 0x80) {
			s[n++] = (char)r;
		} else {
			char tmp[8];
			int k = 0;
			if (r < 0x800) {
				tmp[k++] = (char)(0xc0 | r >> 6);
			} else {
				if (r < 0x10000) {
					tmp[k++] = (char)(0xe0 | r >> 12);
				} else {
					tmp[k++] = (char)(0xf0 | r >> 18);
					tmp[k++] = (char)(0x80 | ((r >> 12) & 0x3f));
				}
				tmp[k++] = (char)(0x80 | ((r >> 6) & 0x3f));
			}
			tmp[k++] = (char)(0x80 | (r & 0x3f));
			memcpy(s, tmp, (size_t)k);
			n = (size_t)k;
		}
		gw_tmpl__pad(b, sp, s, n, false);
		return;
	}
	if (verb == 'U') {
		n = (size_t)snprintf(s, sizeof(s), "U+%04llX", (unsigned long long)v);
		if (sp->sharp && v >= 0 && v <= 0x10ffff) {
			struct tspec c = {.width = -1, .prec = -1, .verb = 'c'};
			struct gw_buf t;
			gw_buf_init(&t, 16);
			gw_tmpl__fmt_int(&t, &c, v);
			n += (size_t)snprintf(s + n, sizeof(s) - n, " '%s'", t.data ? t.data : "");
			gw_buf_release(&t);
		}
		gw_tmpl__pad(b, sp, s, n, false);
		return;
	}
	if (verb == 'b') {
		char d[70];
		int k = 0;
		uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		do
			d[k++] = (char)('0' + (u & 1));
		while (u >>= 1);
		n = 0;
		if (v < 0)
			s[n++] = '-';
		while (k)
			s[n++] = d[--k];
		gw_tmpl__pad(b, sp, s, n, true);
		return;
	}
	char f[24];
	bool neg = v < 0;
	uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	/* Go writes -ff for %x of negatives, where C would write two's complement */
	snprintf(f, sizeof(f), "%s%%%s.*%s", verb == 'O' ? "0o" : "",
		 sp->sharp && verb != 'd' && verb != 'O' ? "#" : "",
		 verb == 'x'		      ? "llx"
		 : verb == 'X'		      ? "llX"
		 : verb == 'o' || verb == 'O' ? "llo"
					      : "llu");
	char digits[80];
	int dn = snprintf(digits, sizeof(digits), f, sp->prec < 0 ? 1 : sp->prec, (unsigned long long)u);
	if (sp->prec == 0 && u == 0)
		dn = 0;
	n = 0;
	if (neg)
		s[n++] = '-';
	else if (sp->plus)
		s[n++] = '+';
	else if (sp->space)
		s[n++] = ' ';
	memcpy(s + n, digits, (size_t)dn);
	n += (size_t)dn;
	gw_tmpl__pad(b, sp, s, n, sp->prec < 0);
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

/* Keys arg0, arg1, ... in the order fmt sorts strings. */
void gw_tmpl__fmt_args(struct gw_buf *b, const struct tv *v, int depth)
{
	size_t order[64], n = v->a.n < 64 ? v->a.n : 64;
	char ki[24], kj[24];
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			snprintf(ki, sizeof(ki), "arg%zu", order[j - 1]);
			snprintf(kj, sizeof(kj), "arg%zu", order[j]);
			if (strcmp(ki, kj) <= 0)
				break;
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	gw_buf_puts(b, "map[");
	for (size_t i = 0; i < n; i++) {
		gw_buf_printf(b, "%sarg%zu:", i ? " " : "", order[i]);
		gw_tmpl__fmt_v(b, &plain_v, &v->a.p[order[i]], depth + 1);
	}
	gw_buf_putc(b, ']');
}

void gw_tmpl__fmt_v(struct gw_buf *b, const struct tspec *sp, const struct tv *v, int depth)
{
	switch (v->k) {
	case TV_INVALID:
		gw_tmpl__pad(b, sp, "<no value>", 10, false);
		break;
	case TV_NIL:
		gw_tmpl__pad(b, sp, "<nil>", 5, false);
		break;
	case TV_BOOL:
		gw_tmpl__pad(b, sp, v->b ? "true" : "false", v->b ? 4 : 5, false);
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
