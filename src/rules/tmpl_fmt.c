/*
 * tmpl_fmt.c - Go's fmt for template values: %v as text/template prints an
 * action ({{ $value }} of 1e6 is "1e+06": strconv's shortest 'g' with its
 * exponent from 1e-5 down and 1e6 up), Sprint's spacing rules, Sprintf's
 * verbs and flags with Go's complaints ("%!d(string=x)", "%!d(MISSING)",
 * "%!(EXTRA int=1)"), strconv.Quote, and time.Time's String().
 */
#include "model/number.h"
#include "rules/tmpl_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Go's flags map onto C's for the verbs handed to snprintf below, whose
 * formats are therefore built at run time. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

struct spec {
	bool minus, plus, sharp, space, zero;
	int width, prec; /* -1: none */
	char verb;
};

static const struct spec plain_v = {.width = -1, .prec = -1, .verb = 'v'};

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
static void pad(struct gw_buf *b, const struct spec *sp, const char *s, size_t n, bool zero_ok)
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

static void fmt_float(struct gw_buf *b, const struct spec *sp, double v)
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
		struct spec nz = *sp;
		nz.zero = false;
		pad(b, &nz, t, strlen(t), false);
		return;
	}
	char verb = sp->verb == 'v' ? 'g' : sp->verb == 'F' ? 'f' : sp->verb;
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
	pad(b, sp, s, n, true);
}

static void fmt_int(struct gw_buf *b, const struct spec *sp, int64_t v)
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
		pad(b, sp, s, n, false);
		return;
	}
	if (verb == 'b') {
		char d[70];
		int k = 0;
		uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
		do
			d[k++] = (char)('0' + (u & 1));
		while (u >>= 1);
		n = 0;
		if (v < 0)
			s[n++] = '-';
		while (k)
			s[n++] = d[--k];
		pad(b, sp, s, n, true);
		return;
	}
	char f[24];
	bool neg = v < 0;
	uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	/* Go writes -ff for %x of negatives, where C would write two's complement */
	snprintf(f, sizeof(f), "%%%s%s.*%s", sp->sharp && verb != 'd' ? "#" : "", "",
		 verb == 'x'   ? "llx"
		 : verb == 'X' ? "llX"
		 : verb == 'o' ? "llo"
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
	pad(b, sp, s, n, sp->prec < 0);
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

/* time.Time's String() in UTC: "2015-07-01 20:10:51.78 +0000 UTC". */
static void fmt_time(struct gw_buf *b, int64_t ns)
{
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;
	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	time_t tt = (time_t)sec;
	struct tm tm;
	gmtime_r(&tt, &tm);
	gw_buf_printf(b, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		      tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (frac) {
		char f[16];
		int n = snprintf(f, sizeof(f), "%09lld", (long long)frac);
		while (n > 0 && f[n - 1] == '0')
			n--;
		gw_buf_printf(b, ".%.*s", n, f);
	}
	gw_buf_puts(b, " +0000 UTC");
}

static void fmt_labels(struct gw_buf *b, const struct gw_labels *l)
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

static void fmt_v(struct gw_buf *b, const struct spec *sp, const struct tv *v, int depth);

static void fmt_sample(struct gw_buf *b, const struct tsample *s, int depth)
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
	fmt_labels(b, &s->labels);
	gw_buf_putc(b, ' ');
	struct tv f = {.k = TV_FLOAT, .f = s->v};
	fmt_v(b, &plain_v, &f, 1);
	gw_buf_putc(b, '}');
}

/* Keys arg0, arg1, ... in the order fmt sorts strings. */
static void fmt_args(struct gw_buf *b, const struct tv *v, int depth)
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
		fmt_v(b, &plain_v, &v->a.p[order[i]], depth + 1);
	}
	gw_buf_putc(b, ']');
}

static void fmt_v(struct gw_buf *b, const struct spec *sp, const struct tv *v, int depth)
{
	switch (v->k) {
	case TV_INVALID:
		pad(b, sp, "<no value>", 10, false);
		break;
	case TV_NIL:
		pad(b, sp, "<nil>", 5, false);
		break;
	case TV_BOOL:
		pad(b, sp, v->b ? "true" : "false", v->b ? 4 : 5, false);
		break;
	case TV_INT:
	case TV_UINT8:
		fmt_int(b, sp, v->i);
		break;
	case TV_FLOAT:
		fmt_float(b, sp, v->f);
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
		pad(b, sp, v->s.p, n, true);
		break;
	}
	case TV_LABELS:
		fmt_labels(b, &v->l);
		break;
	case TV_ARGS:
		fmt_args(b, v, depth);
		break;
	case TV_DATA: {
		gw_buf_putc(b, '{');
		fmt_labels(b, &v->d->labels);
		gw_buf_putc(b, ' ');
		fmt_labels(b, &v->d->external);
		gw_buf_printf(b, " %s ", v->d->external_url ? v->d->external_url : "");
		struct tv f = {.k = TV_FLOAT, .f = v->d->value};
		fmt_v(b, &plain_v, &f, depth + 1);
		gw_buf_putc(b, '}');
		break;
	}
	case TV_SAMPLE:
		if (depth == 0 && v->smp)
			gw_buf_putc(b, '&');
		fmt_sample(b, v->smp, depth == 0 && v->smp ? 0 : depth);
		break;
	case TV_RESULT:
		gw_buf_putc(b, '[');
		for (size_t i = 0; i < v->r.n; i++) {
			if (i)
				gw_buf_putc(b, ' ');
			fmt_sample(b, v->r.p[i], depth + 1);
		}
		gw_buf_putc(b, ']');
		break;
	case TV_TIME:
		fmt_time(b, v->ns);
		break;
	}
}

int gw_tmpl__print_value(struct gw_buf *b, const struct tv *v)
{
	/* text/template dereferences a pointer before printing it */
	if (v->k == TV_SAMPLE)
		fmt_sample(b, v->smp, 0);
	else
		fmt_v(b, &plain_v, v, 0);
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
		fmt_v(b, &plain_v, &args[i], 0);
	}
	if (ln)
		gw_buf_putc(b, '\n');
	return 0;
}

static void bad_verb(struct gw_buf *b, const struct spec *sp, const struct tv *v)
{
	gw_buf_printf(b, "%%!%c(", sp->verb);
	if (v->k == TV_NIL || v->k == TV_INVALID) {
		gw_buf_puts(b, "<nil>");
	} else {
		gw_buf_printf(b, "%s=", gw_tmpl__type_name(v));
		struct spec s = *sp;
		s.verb = 'v';
		fmt_v(b, &s, v, 0);
	}
	gw_buf_putc(b, ')');
}

static void fmt_arg(struct gw_buf *b, const struct spec *sp, const struct tv *v)
{
	char c = sp->verb;
	if (c == 'T') {
		pad(b, sp, gw_tmpl__type_name(v), strlen(gw_tmpl__type_name(v)), false);
		return;
	}
	switch (v->k) {
	case TV_BOOL:
		if (c == 't' || c == 'v')
			fmt_v(b, sp, v, 0);
		else
			bad_verb(b, sp, v);
		return;
	case TV_INT:
	case TV_UINT8:
		if (c == 'q') {
			struct spec rs = plain_v;
			rs.verb = 'c';
			gw_buf_putc(b, '\'');
			fmt_int(b, &rs, v->i);
			gw_buf_putc(b, '\'');
		} else if (strchr("vdbcoxX", c)) {
			fmt_v(b, sp, v, 0);
		} else {
			bad_verb(b, sp, v);
		}
		return;
	case TV_FLOAT:
		if (strchr("vgGeEfF", c))
			fmt_v(b, sp, v, 0);
		else
			bad_verb(b, sp, v);
		return;
	case TV_STRING:
	case TV_HTML:
		if (c == 's' || c == 'v') {
			fmt_v(b, sp, v, 0);
		} else if (c == 'q') {
			struct gw_buf t;
			gw_buf_init(&t, (size_t)1 << 20);
			gw_tmpl__quote(&t, v->s.p, v->s.n);
			pad(b, sp, t.data, t.len, false);
			gw_buf_release(&t);
		} else if (c == 'x' || c == 'X') {
			for (size_t i = 0; i < v->s.n; i++)
				gw_buf_printf(b, c == 'x' ? "%02x" : "%02X", (unsigned char)v->s.p[i]);
		} else {
			bad_verb(b, sp, v);
		}
		return;
	case TV_LABELS:
		if (c == 'v' || c == 's') {
			fmt_v(b, sp, v, 0);
			return;
		}
		/* fmt applies the verb to each key and value */
		gw_buf_puts(b, "map[");
		for (size_t i = 0; i < v->l.n; i++) {
			struct tv k = tv_str(v->l.p[i].name, strlen(v->l.p[i].name));
			struct tv e = tv_str(v->l.p[i].value, strlen(v->l.p[i].value));
			if (i)
				gw_buf_putc(b, ' ');
			fmt_arg(b, sp, &k);
			gw_buf_putc(b, ':');
			fmt_arg(b, sp, &e);
		}
		gw_buf_putc(b, ']');
		return;
	case TV_NIL:
	case TV_INVALID:
		if (c == 'v' || c == 's')
			pad(b, sp, "<nil>", 5, false);
		else
			bad_verb(b, sp, v);
		return;
	default:
		fmt_v(b, sp, v, 0);
		return;
	}
}

static int parse_num(const char *f, size_t n, size_t *i)
{
	int v = 0;
	while (*i < n && f[*i] >= '0' && f[*i] <= '9' && v < 1000000)
		v = v * 10 + (f[(*i)++] - '0');
	return v;
}

int gw_tmpl__sprintf(struct gw_buf *b, const char *f, size_t n, const struct tv *args, size_t nargs)
{
	size_t arg = 0;
	for (size_t i = 0; i < n;) {
		if (f[i] != '%') {
			size_t j = i;
			while (j < n && f[j] != '%')
				j++;
			gw_buf_append(b, f + i, j - i);
			i = j;
			continue;
		}
		i++;
		struct spec sp = {.width = -1, .prec = -1};
		for (; i < n; i++) {
			char c = f[i];
			if (c == '-')
				sp.minus = true;
			else if (c == '+')
				sp.plus = true;
			else if (c == '#')
				sp.sharp = true;
			else if (c == ' ')
				sp.space = true;
			else if (c == '0')
				sp.zero = !sp.minus;
			else
				break;
		}
		if (i < n && f[i] >= '1' && f[i] <= '9')
			sp.width = parse_num(f, n, &i);
		if (i < n && f[i] == '.') {
			i++;
			sp.prec = parse_num(f, n, &i);
		}
		if (sp.minus)
			sp.zero = false;
		if (i >= n) {
			gw_buf_puts(b, "%!(NOVERB)");
			break;
		}
		/* the verb is a rune */
		size_t vl = 1;
		while (i + vl < n && ((unsigned char)f[i + vl] & 0xc0) == 0x80)
			vl++;
		sp.verb = f[i];
		if (f[i] == '%') {
			gw_buf_putc(b, '%');
			i++;
			continue;
		}
		if (arg >= nargs) {
			gw_buf_puts(b, "%!");
			gw_buf_append(b, f + i, vl);
			gw_buf_puts(b, "(MISSING)");
		} else {
			fmt_arg(b, &sp, &args[arg++]);
		}
		i += vl;
	}
	if (arg < nargs) {
		gw_buf_puts(b, "%!(EXTRA ");
		for (size_t k = arg; k < nargs; k++) {
			if (k > arg)
				gw_buf_puts(b, ", ");
			if (args[k].k == TV_NIL || args[k].k == TV_INVALID) {
				gw_buf_puts(b, "<nil>");
				continue;
			}
			gw_buf_printf(b, "%s=", gw_tmpl__type_name(&args[k]));
			fmt_v(b, &plain_v, &args[k], 0);
		}
		gw_buf_putc(b, ')');
	}
	return 0;
}
