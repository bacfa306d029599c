/*
 * tmpl_printf.c - Go's fmt.Sprintf for templates: flags, width and
 * precision (also from arguments with '*'), explicit argument indexes
 * ("%[2]d"), each value kind's verbs, %#v and %+v, and Go's complaints
 * ("%!d(string=x)", "%!d(MISSING)", "%!(EXTRA int=1)", "%!v(BADINDEX)",
 * "%!(BADWIDTH)", "%!(NOVERB)").
 */
#include "rules/tmpl_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void print_arg(struct gw_buf *b, const struct tspec *sp, const struct tv *v);

static void bad_verb(struct gw_buf *b, const struct tspec *sp, const struct tv *v)
{
	gw_buf_printf(b, "%%!%c(", sp->verb);
	if (v->k == TV_NIL || v->k == TV_INVALID) {
		gw_buf_puts(b, "<nil>");
	} else {
		gw_buf_printf(b, "%s=", gw_tmpl__type_name(v));
		struct tspec s = *sp;
		s.verb = 'v';
		s.plusv = s.sharpv = false;
		print_arg(b, &s, v);
	}
	gw_buf_putc(b, ')');
}

static void quoted(struct gw_buf *b, const struct tspec *sp, const char *s, size_t n)
{
	if (sp->prec >= 0) { /* fmt cuts to the precision, in runes, before quoting */
		size_t k = 0;
		for (int r = 0; k < n && r < sp->prec; r++) {
			size_t w;
			gw_tmpl__rune(s + k, n - k, &w);
			k += w;
		}
		n = k;
	}
	struct gw_buf t;
	gw_buf_init(&t, TMPL_VALUE_MAX);
	if (sp->sharp)
		gw_tmpl__quote_back(&t, s, n);
	else
		gw_tmpl__quote(&t, s, n);
	gw_tmpl__pad(b, sp, t.data, t.len, true);
	gw_buf_release(&t);
}

static void print_string(struct gw_buf *b, const struct tspec *sp, const struct tv *v)
{
	char c = sp->verb;
	if ((c == 'v' && sp->sharpv) || c == 'q') {
		quoted(b, sp, v->s.p, v->s.n);
	} else if (c == 's' || c == 'v') {
		gw_tmpl__fmt_v(b, sp, v, 0);
	} else if (c == 'x' || c == 'X') {
		struct gw_buf t;
		gw_buf_init(&t, TMPL_VALUE_MAX);
		size_t n = sp->prec >= 0 && (size_t)sp->prec < v->s.n ? (size_t)sp->prec : v->s.n;
		for (size_t i = 0; i < n; i++) {
			if (i && sp->space)
				gw_buf_putc(&t, ' ');
			if (sp->sharp && (i == 0 || sp->space))
				gw_buf_puts(&t, c == 'x' ? "0x" : "0X");
			gw_buf_printf(&t, c == 'x' ? "%02x" : "%02X", (unsigned char)v->s.p[i]);
		}
		gw_tmpl__pad(b, sp, t.data ? t.data : "", t.len, true);
		gw_buf_release(&t);
	} else {
		bad_verb(b, sp, v);
	}
}

/* map[k:v ...] with the verb applied to keys and values, as fmt does. */
static void print_labels(struct gw_buf *b, const struct tspec *sp, const struct gw_labels *l)
{
	struct tspec e = *sp;
	if (sp->sharpv) {
		gw_buf_puts(b, "map[string]string{");
		for (size_t i = 0; i < l->n; i++) {
			gw_buf_puts(b, i ? ", " : "");
			gw_tmpl__quote(b, l->p[i].name, strlen(l->p[i].name));
			gw_buf_putc(b, ':');
			gw_tmpl__quote(b, l->p[i].value, strlen(l->p[i].value));
		}
		gw_buf_putc(b, '}');
		return;
	}
	gw_buf_puts(b, "map[");
	for (size_t i = 0; i < l->n; i++) {
		struct tv k = tv_str(l->p[i].name, strlen(l->p[i].name));
		struct tv v = tv_str(l->p[i].value, strlen(l->p[i].value));
		gw_buf_puts(b, i ? " " : "");
		print_arg(b, &e, &k);
		gw_buf_putc(b, ':');
		print_arg(b, &e, &v);
	}
	gw_buf_putc(b, ']');
}

/* args' map: keys in fmt's string order (arg0, arg1, arg10, ..., arg2), the verb on each. */
static void print_args_from(struct gw_buf *b, const struct tspec *sp, const struct tv *v, size_t k,
			    bool *first)
{
	char key[24];
	int kn = snprintf(key, sizeof(key), "arg%zu", k);
	struct tv kv = tv_str(key, (size_t)kn);
	gw_buf_puts(b, *first ? "" : " ");
	*first = false;
	print_arg(b, sp, &kv);
	gw_buf_putc(b, ':');
	print_arg(b, sp, &v->a.p[k]);
	for (size_t d = 0; k > 0 && d < 10 && k <= (v->a.n - d) / 10; d++)
		if (k * 10 + d < v->a.n)
			print_args_from(b, sp, v, k * 10 + d, first);
}

static void print_args(struct gw_buf *b, const struct tspec *sp, const struct tv *v)
{
	struct tspec e = *sp;
	bool first = true;
	gw_buf_puts(b, "map[");
	for (size_t k = 0; k < 10 && k < v->a.n; k++)
		print_args_from(b, &e, v, k, &first);
	gw_buf_putc(b, ']');
}

static void print_float_field(struct gw_buf *b, const struct tspec *sp, double f)
{
	struct tv v = {.k = TV_FLOAT, .f = f};
	print_arg(b, sp, &v);
}

/* The alert data struct and samples: fields in order, %+v names them. */
static void print_struct(struct gw_buf *b, const struct tspec *sp, const struct tv *v)
{
	struct tspec e = *sp;
	if (sp->sharpv) { /* Go syntax: type, field names, Go-syntax values */
		const struct gw_labels *l =
		    v->k == TV_SAMPLE ? (v->smp ? &v->smp->labels : NULL) : &v->d->labels;
		if (!l) {
			gw_buf_puts(b, "(*template.sample)(nil)");
			return;
		}
		gw_buf_printf(b,
			      "%s{Labels:", v->k == TV_SAMPLE ? "&template.sample" : gw_tmpl__type_name(v));
		print_labels(b, &e, l);
		if (v->k == TV_DATA) {
			const char *url = v->d->external_url ? v->d->external_url : "";
			gw_buf_puts(b, ", ExternalLabels:");
			print_labels(b, &e, &v->d->external);
			gw_buf_puts(b, ", ExternalURL:");
			gw_tmpl__quote(b, url, strlen(url));
		}
		gw_buf_puts(b, ", Value:");
		print_float_field(b, &e, v->k == TV_SAMPLE ? v->smp->v : v->d->value);
		gw_buf_putc(b, '}');
		return;
	}
	if (v->k == TV_SAMPLE) {
		if (!v->smp) {
			gw_buf_puts(b, "<nil>");
			return;
		}
		gw_buf_puts(b, sp->plusv ? "&{Labels:" : "&{");
		print_labels(b, &e, &v->smp->labels);
		gw_buf_puts(b, sp->plusv ? " Value:" : " ");
		print_float_field(b, &e, v->smp->v);
		gw_buf_putc(b, '}');
		return;
	}
	const char *url = v->d->external_url ? v->d->external_url : "";
	struct tv u = tv_str(url, strlen(url));
	gw_buf_puts(b, sp->plusv ? "{Labels:" : "{");
	print_labels(b, &e, &v->d->labels);
	gw_buf_puts(b, sp->plusv ? " ExternalLabels:" : " ");
	print_labels(b, &e, &v->d->external);
	gw_buf_puts(b, sp->plusv ? " ExternalURL:" : " ");
	print_arg(b, &e, &u);
	gw_buf_puts(b, sp->plusv ? " Value:" : " ");
	print_float_field(b, &e, v->d->value);
	gw_buf_putc(b, '}');
}

/* An integer field of a struct fmt walks into, with its Go type for complaints. */
static void print_int_field(struct gw_buf *b, const struct tspec *sp, int64_t v, const char *type)
{
	if (strchr("vdbcoOxXqU", sp->verb)) {
		struct tv t = {.k = TV_INT, .i = v};
		print_arg(b, sp, &t);
		return;
	}
	gw_buf_printf(b, "%%!%c(%s=%lld)", sp->verb, type, (long long)v);
}

/*
 * A time under a verb that is not a string's: fmt prints the struct inside,
 * {wall ext loc}: nanoseconds, seconds since year 1, and UTC's nil location.
 */
static void print_time_struct(struct gw_buf *b, const struct tspec *sp, int64_t ns)
{
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;
	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	gw_buf_puts(b, "&{");
	print_int_field(b, sp, frac, "uint64");
	gw_buf_putc(b, ' ');
	print_int_field(b, sp, sec + INT64_C(62135596800), "int64");
	gw_buf_putc(b, ' ');
	if (strchr("bodxX", sp->verb)) {
		struct tv z = {.k = TV_INT, .i = 0};
		print_arg(b, sp, &z);
	} else if (sp->verb == 'v') {
		gw_tmpl__pad(b, sp, "<nil>", 5, true);
	} else {
		gw_buf_printf(b, "%%!%c(*time.Location=<nil>)", sp->verb);
	}
	gw_buf_putc(b, '}');
}

/* fmt's printArg: the verb as the value's kind understands it. */
static void print_arg(struct gw_buf *b, const struct tspec *sp, const struct tv *v)
{
	char c = sp->verb;
	if (c == 'T') {
		const char *t = gw_tmpl__type_name(v);
		struct tv s = tv_str(t, strlen(t));
		gw_tmpl__fmt_v(b, sp, &s, 0); /* a string: precision cuts it */
		return;
	}
	switch (v->k) {
	case TV_NIL:
	case TV_INVALID:
		if (c == 'v')
			gw_tmpl__pad(b, sp, "<nil>", 5, true);
		else
			bad_verb(b, sp, v);
		return;
	case TV_BOOL:
		if (c == 't' || c == 'v')
			gw_tmpl__fmt_v(b, sp, v, 0);
		else
			bad_verb(b, sp, v);
		return;
	case TV_INT:
	case TV_UINT8:
		if (c == 'q') {
			struct gw_buf t;
			gw_buf_init(&t, 64);
			gw_tmpl__quote_rune(&t, v->i);
			gw_tmpl__pad(b, sp, t.data, t.len, true);
			gw_buf_release(&t);
		} else if (strchr("vdbcoOxXU", c)) {
			gw_tmpl__fmt_int(b, sp, v->i);
		} else {
			bad_verb(b, sp, v);
		}
		return;
	case TV_FLOAT:
		if (strchr("vbgGeEfFxX", c))
			gw_tmpl__fmt_float(b, sp, v->f);
		else
			bad_verb(b, sp, v);
		return;
	case TV_STRING:
	case TV_HTML:
		print_string(b, sp, v);
		return;
	case TV_LABELS:
		print_labels(b, sp, &v->l);
		return;
	case TV_ARGS:
		/* fmt pads each key and value, not the map */
		if (c == 'v' && !sp->sharpv && sp->width < 0)
			gw_tmpl__fmt_v(b, sp, v, 0);
		else
			print_args(b, sp, v);
		return;
	case TV_DATA:
	case TV_SAMPLE:
		print_struct(b, sp, v);
		return;
	case TV_TIME:
		if (c == 'v' && sp->sharpv) { /* time's GoString */
			static const char *const months[] = {"January",	  "February", "March",	  "April",
							     "May",	  "June",     "July",	  "August",
							     "September", "October",  "November", "December"};
			struct gw_buf t;
			gw_buf_init(&t, 256);
			gw_tmpl__fmt_time(&t, v->ns);
			/* "2015-07-01 20:10:51.78 +0000 UTC": year, month, day, h, m, s from the text */
			int y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0;
			sscanf(t.data ? t.data : "", "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &s);
			int64_t frac = v->ns % 1000000000;
			if (frac < 0)
				frac += 1000000000;
			gw_buf_printf(b, "time.Date(%d, time.%s, %d, %d, %d, %d, %lld, time.UTC)", y,
				      months[(mo + 11) % 12], d, h, mi, s, (long long)frac);
			gw_buf_release(&t);
		} else if (strchr("vsqxX", c)) { /* a Stringer's verbs */
			struct gw_buf t;
			gw_buf_init(&t, 256);
			gw_tmpl__fmt_time(&t, v->ns);
			struct tv s = tv_str(t.data ? t.data : "", t.len);
			print_string(b, sp, &s);
			gw_buf_release(&t);
		} else {
			print_time_struct(b, sp, v->ns);
		}
		return;
	case TV_RESULT:
		/* elements are pointers: addresses under the pointer verbs, complaints under the rest */
		gw_buf_putc(b, '[');
		for (size_t i = 0; i < v->r.n; i++) {
			struct tv e = {.k = TV_SAMPLE, .smp = v->r.p[i]};
			gw_buf_puts(b, i ? " " : "");
			if (strchr("vpbodxX", c)) {
				gw_buf_printf(b, "%p", (const void *)v->r.p[i]);
			} else {
				struct tspec s = *sp; /* Go's complaint keeps the width and precision */
				s.verb = 'v';
				gw_buf_printf(b, "%%!%c(*template.sample=", c);
				print_struct(b, &s, &e);
				gw_buf_putc(b, ')');
			}
		}
		gw_buf_putc(b, ']');
		return;
	default:
		gw_tmpl__fmt_v(b, sp, v, 0);
		return;
	}
}

/* Go's parsenum: a decimal below a million, or no number. */
static bool parse_num(const char *f, size_t end, size_t *i, int *out)
{
	int v = 0;
	bool any = false;
	while (*i < end && f[*i] >= '0' && f[*i] <= '9') {
		if (v > 1000000)
			return false;
		v = v * 10 + (f[(*i)++] - '0');
		any = true;
	}
	*out = v;
	return any;
}

struct pstate {
	const char *f;
	size_t n, i;
	const struct tv *args;
	size_t nargs, arg;
	bool reordered, good;
};

/* An explicit argument index "[n]" at i; true when one was there. */
static bool arg_number(struct pstate *p)
{
	if (p->i >= p->n || p->f[p->i] != '[')
		return false;
	p->reordered = true;
	size_t close = p->i + 1;
	while (close < p->n && p->f[close] != ']')
		close++;
	if (p->n - p->i < 3 || close >= p->n) {
		p->i++;
		p->good = false;
		return false;
	}
	size_t j = p->i + 1;
	int idx;
	bool ok = parse_num(p->f, close, &j, &idx) && j == close;
	p->i = close + 1;
	if (ok && idx >= 1 && (size_t)idx <= p->nargs) {
		p->arg = (size_t)idx - 1;
		return true;
	}
	p->good = false;
	return ok;
}

/* A width or precision from the next argument, which must be an int. */
static bool int_arg(struct pstate *p, int *out)
{
	if (p->arg >= p->nargs)
		return false;
	const struct tv *v = &p->args[p->arg++];
	if (v->k != TV_INT && v->k != TV_UINT8)
		return false;
	if (v->i > 1000000 || v->i < -1000000)
		return false;
	*out = (int)v->i;
	return true;
}

/* Flags, width, precision and index of one verb; false at the end of the format. */
static bool parse_spec(struct gw_buf *b, struct pstate *p, struct tspec *sp, bool *after)
{
	const char *f = p->f;
	for (; p->i < p->n; p->i++) {
		char c = f[p->i];
		if (c == '#')
			sp->sharp = true;
		else if (c == '0')
			sp->zero = !sp->minus;
		else if (c == '+')
			sp->plus = true;
		else if (c == '-')
			sp->minus = true, sp->zero = false;
		else if (c == ' ')
			sp->space = true;
		else
			break;
	}
	*after = arg_number(p);
	if (p->i < p->n && f[p->i] == '*') {
		p->i++;
		if (!int_arg(p, &sp->width)) {
			sp->width = -1;
			gw_buf_puts(b, "%!(BADWIDTH)");
		} else if (sp->width < 0) {
			sp->width = -sp->width;
			sp->minus = true;
			sp->zero = false;
		}
		*after = false;
	} else {
		int w;
		if (parse_num(f, p->n, &p->i, &w)) {
			sp->width = w;
			if (*after)
				p->good = false;
		}
	}
	if (p->i + 1 < p->n && f[p->i] == '.') {
		p->i++;
		if (*after)
			p->good = false;
		*after = arg_number(p);
		if (p->i < p->n && f[p->i] == '*') {
			p->i++;
			if (!int_arg(p, &sp->prec) || sp->prec < 0) {
				sp->prec = -1;
				gw_buf_puts(b, "%!(BADPREC)");
			}
			*after = false;
		} else if (!parse_num(f, p->n, &p->i, &sp->prec)) {
			sp->prec = 0;
		}
	}
	if (!*after)
		*after = arg_number(p);
	return p->i < p->n;
}

int gw_tmpl__sprintf(struct gw_buf *b, const char *f, size_t n, const struct tv *args, size_t nargs)
{
	struct pstate p = {.f = f, .n = n, .args = args, .nargs = nargs};
	while (p.i < n) {
		size_t start = p.i;
		while (p.i < n && f[p.i] != '%')
			p.i++;
		gw_buf_append(b, f + start, p.i - start);
		if (p.i >= n)
			break;
		p.i++;
		p.good = true;
		struct tspec sp = {.width = -1, .prec = -1};
		bool after;
		if (!parse_spec(b, &p, &sp, &after)) {
			gw_buf_puts(b, "%!(NOVERB)");
			break;
		}
		size_t vl = 1;
		while (p.i + vl < n && ((unsigned char)f[p.i + vl] & 0xc0) == 0x80)
			vl++;
		sp.verb = f[p.i];
		const char *vtext = f + p.i;
		p.i += vl;
		if (sp.verb == '%') {
			gw_buf_putc(b, '%');
		} else if (!p.good) {
			gw_buf_puts(b, "%!");
			gw_buf_append(b, vtext, vl);
			gw_buf_puts(b, "(BADINDEX)");
		} else if (p.arg >= nargs) {
			gw_buf_puts(b, "%!");
			gw_buf_append(b, vtext, vl);
			gw_buf_puts(b, "(MISSING)");
		} else {
			if (sp.verb == 'v') {
				sp.sharpv = sp.sharp;
				sp.sharp = false;
				sp.plusv = sp.plus;
				sp.plus = false;
			}
			print_arg(b, &sp, &args[p.arg++]);
		}
	}
	if (!p.reordered && p.arg < nargs) {
		const struct tspec v = {.width = -1, .prec = -1, .verb = 'v'};
		gw_buf_puts(b, "%!(EXTRA ");
		for (size_t k = p.arg; k < nargs; k++) {
			gw_buf_puts(b, k > p.arg ? ", " : "");
			if (args[k].k == TV_NIL || args[k].k == TV_INVALID) {
				gw_buf_puts(b, "<nil>");
				continue;
			}
			gw_buf_printf(b, "%s=", gw_tmpl__type_name(&args[k]));
			print_arg(b, &v, &args[k]);
		}
		gw_buf_putc(b, ')');
	}
	return 0;
}
