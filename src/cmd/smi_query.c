/*
 * smi_query.c - the CSV of `smi --query-gpu` and the --help-query-gpu text,
 * both driven by the field table.
 *
 * nvidia-smi behaviour reproduced here:
 *   - the header shows each field's canonical name even when an alias was
 *     asked for, with " [unit]" for fields that have a unit; "nounits"
 *     drops units from the values but the header keeps them;
 *   - cells are joined by ", " and never quoted;
 *   - "noheader" drops the header line.
 * Lenient where nvidia-smi's exact behaviour is unknown: spaces around
 * field names and format words are ignored.
 */
#include "cmd/smi_query.h"

#include "core/err.h"
#include "fields/fields_table.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One comma-separated word with surrounding blanks trimmed. */
struct word {
	const char *s;
	size_t n;
};

static void copy_bad(char *bad, size_t badlen, const struct word *w)
{
	if (!bad || !badlen)
		return;
	size_t n = w->n < badlen - 1 ? w->n : badlen - 1;
	memcpy(bad, w->s, n);
	bad[n] = '\0';
}

static bool word_is(const struct word *w, const char *s)
{
	return strlen(s) == w->n && memcmp(w->s, s, w->n) == 0;
}

/* Split list on commas into words; calls fn for each. Stops at the first error. */
typedef int (*word_fn)(void *arg, const struct word *w);

static int split(const char *list, word_fn fn, void *arg)
{
	const char *p = list;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct word w = {p, len};
		while (w.n && isspace((unsigned char)w.s[0])) {
			w.s++;
			w.n--;
		}
		while (w.n && isspace((unsigned char)w.s[w.n - 1]))
			w.n--;
		int rc = fn(arg, &w);
		if (rc)
			return rc;
		if (!end)
			return 0;
		p = end + 1;
	}
}

struct fmt_parse {
	struct gw_smi_format *fmt;
	struct word bad_word;
};

static int fmt_word(void *arg, const struct word *w)
{
	struct fmt_parse *fp = arg;
	if (w->n == 0)
		return 0; /* "csv," or "csv,,nounits": nothing to set */
	if (word_is(w, "csv"))
		fp->fmt->csv = true;
	else if (word_is(w, "noheader"))
		fp->fmt->noheader = true;
	else if (word_is(w, "nounits"))
		fp->fmt->nounits = true;
	else {
		fp->bad_word = *w;
		return GW_EINVAL;
	}
	return 0;
}

int gw_smi_format_parse(const char *spec, struct gw_smi_format *fmt, char *bad, size_t badlen)
{
	memset(fmt, 0, sizeof(*fmt));
	if (bad && badlen)
		bad[0] = '\0';
	struct fmt_parse fp = {fmt, {"", 0}};
	int rc = split(spec ? spec : "", fmt_word, &fp);
	if (rc)
		copy_bad(bad, badlen, &fp.bad_word);
	return rc;
}

struct list_parse {
	const struct gw_field **out;
	size_t n;
	size_t cap;
	struct word bad_word;
};

static int list_word(void *arg, const struct word *w)
{
	struct list_parse *lp = arg;
	char name[128];
	const struct gw_field *f = NULL;
	if (w->n > 0 && w->n < sizeof(name)) {
		memcpy(name, w->s, w->n);
		name[w->n] = '\0';
		f = gw_field_find(name);
	}
	if (!f) {
		lp->bad_word = *w;
		return GW_EINVAL;
	}
	if (lp->n == lp->cap) {
		size_t cap = lp->cap ? lp->cap * 2 : 16;
		const struct gw_field **p = realloc(lp->out, cap * sizeof(*p));
		if (!p)
			return GW_ENOMEM;
		lp->out = p;
		lp->cap = cap;
	}
	lp->out[lp->n++] = f;
	return 0;
}

int gw_smi_query_parse(const char *list, const struct gw_field ***fields, size_t *n, char *bad, size_t badlen)
{
	*fields = NULL;
	*n = 0;
	if (bad && badlen)
		bad[0] = '\0';
	struct list_parse lp = {NULL, 0, 0, {"", 0}};
	int rc = split(list ? list : "", list_word, &lp);
	if (rc) {
		if (rc == GW_EINVAL)
			copy_bad(bad, badlen, &lp.bad_word);
		free(lp.out);
		return rc;
	}
	*fields = lp.out;
	*n = lp.n;
	return 0;
}

/* Grow-free line assembly: a fixed buffer flushed to out when nearly full. */
struct line {
	FILE *out;
	size_t len;
	char buf[4096];
};

static void line_put(struct line *l, const char *s, size_t n)
{
	if (l->len + n > sizeof(l->buf)) {
		fwrite(l->buf, 1, l->len, l->out);
		l->len = 0;
		if (n > sizeof(l->buf)) {
			fwrite(s, 1, n, l->out);
			return;
		}
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static void line_end(struct line *l)
{
	line_put(l, "\n", 1);
	fwrite(l->buf, 1, l->len, l->out);
	l->len = 0;
}

void gw_smi_query_header(FILE *out, const struct gw_field *const *fields, size_t n,
			 const struct gw_smi_format *fmt)
{
	if (fmt->noheader)
		return;
	struct line l = {.out = out};
	char cell[256];
	for (size_t i = 0; i < n; i++) {
		if (i)
			line_put(&l, ", ", 2);
		/* nvidia-smi keeps " [unit]" in the header even with nounits */
		size_t k = gw_field_header(fields[i], 0, cell, sizeof(cell));
		line_put(&l, cell, k < sizeof(cell) ? k : sizeof(cell) - 1);
	}
	line_end(&l);
}

int gw_smi_query_row(FILE *out, const struct gw_field *const *fields, size_t n,
		     const struct gw_smi_format *fmt, const struct gw_read_ctx *ctx)
{
	struct line l = {.out = out};
	bool was_lost = ctx->gpu && ctx->gpu->lost;
	unsigned int flags = fmt->nounits ? GW_FMT_NOUNITS : 0;
	char cell[GW_VALUE_STR_MAX + 64];
	struct gw_value v;
	for (size_t i = 0; i < n; i++) {
		if (i)
			line_put(&l, ", ", 2);
		gw_field_read(fields[i], ctx, &v);
		size_t k = gw_field_format(fields[i], &v, flags, cell, sizeof(cell));
		line_put(&l, cell, k < sizeof(cell) ? k : sizeof(cell) - 1);
	}
	line_end(&l);
	return !was_lost && ctx->gpu && ctx->gpu->lost ? GW_EGPULOST : 0;
}

static void help_names(FILE *out, const struct gw_field *f)
{
	fprintf(out, "\"%s\"", f->name);
	for (size_t a = 0; a < GW_FIELD_ALIASES_MAX && f->aliases[a]; a++)
		fprintf(out, " or \"%s\"", f->aliases[a]);
	fputc('\n', out);
}

void gw_smi_help_query_gpu(FILE *out)
{
	fputs("List of valid properties to query for the switch \"--query-gpu\":\n\n", out);
	unsigned last = 0;
	for (size_t i = 0, n = gw_fields_count(); i < n; i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->flags & GW_FL_NOSMI)
			continue;
		if (f->section != last && f->section && gw_field_sections[f->section].title) {
			const struct gw_field_section *s = &gw_field_sections[f->section];
			fprintf(out, "Section about %s properties\n%s\n\n", s->title, s->text);
		}
		last = f->section;
		help_names(out, f);
		fprintf(out, "%s\n\n", f->desc ? f->desc : "");
	}
}
