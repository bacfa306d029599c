/*
 * import_lines.c - the line loop and the value sink the text importers
 * share (import_int.h).
 */
#include "ingest/import_int.h"

#include "fields/fields.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ingest_bad(struct ingest *in, const char *fmt, ...)
{
	in->st->bad_lines++;
	if (!in->o->on_bad_line)
		return;
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	in->o->on_bad_line(in->o->ctx, in->st->lines, why);
}

void ingest_stop(struct ingest *in, int rc, const char *fmt, ...)
{
	if (in->stop_rc)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(in->stop_err.msg, sizeof(in->stop_err.msg), fmt, ap);
	va_end(ap);
	in->stop_err.code = rc;
	in->stop_rc = rc;
}

static int counted(void *ctx, const struct gw_lpair *l, size_t n, int64_t t_ms, double v)
{
	struct ingest *in = ctx;
	in->st->samples++;
	return in->o->emit(in->o->ctx, l, n, t_ms, v);
}

static size_t extra_labels(const struct ingest *in, struct gw_lpair *extra)
{
	size_t n = 0;
	if (in->o->instance)
		extra[n++] = (struct gw_lpair){"instance", in->o->instance};
	if (in->o->job)
		extra[n++] = (struct gw_lpair){"job", in->o->job};
	return n;
}

int ingest_value(struct ingest *in, const char *field, const char *text, const struct gw_series_gpu *g, int64_t t_ms)
{
	const struct gw_field *f = gw_field_find_any(field); /* dmon and -q print fields --query-gpu does not */
	struct gw_value v;
	if (!f || gw_field_parse(f, text, strlen(text), &v) != 0)
		return GW_EPARSE;
	struct gw_lpair extra[2];
	size_t nextra = extra_labels(in, extra);
	return gw_series_emit(f, &v, g, extra, nextra, t_ms, counted, in);
}

#define SAMPLE_LABELS_MAX 16

int ingest_sample(struct ingest *in, const char *name, const struct gw_lpair *l, size_t n, int64_t t_ms, double v)
{
	struct gw_lpair all[SAMPLE_LABELS_MAX + 3];
	if (n > SAMPLE_LABELS_MAX)
		return GW_EOVERFLOW;
	size_t k = 0;
	all[k++] = (struct gw_lpair){"__name__", name};
	for (size_t i = 0; i < n; i++)
		all[k++] = l[i];
	k += extra_labels(in, all + k);
	return counted(in, all, k, t_ms, v);
}

char *ingest_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

size_t ingest_tokens(char *s, char **tok, size_t max, bool commas)
{
	size_t n = 0;
	char *p = s;
	for (;;) {
		while (isspace((unsigned char)*p) || (commas && *p == ','))
			p++;
		if (!*p || n == max)
			return n;
		tok[n++] = p;
		while (*p && !isspace((unsigned char)*p) && !(commas && *p == ','))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

int ingest_lines(FILE *f, struct ingest *in, void (*fn)(void *ctx, char *line), void *ctx, struct gw_err *err)
{
	const struct gw_import_opts *o = in->o;
	struct gw_import_stats *st = in->st;
	char *buf = malloc(INGEST_LINE_MAX);
	if (!buf)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	uint64_t next_progress = 64u << 20;
	int rc = 0;
	while (!in->stop_rc && fgets(buf, INGEST_LINE_MAX, f)) {
		size_t len = strlen(buf);
		st->bytes += len;
		st->lines++;
		if (len == INGEST_LINE_MAX - 1 && buf[len - 1] != '\n') {
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				st->bytes++;
			ingest_bad(in, "line longer than 64 KiB");
			continue;
		}
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		size_t before = st->samples;
		fn(ctx, buf);
		if (o->checkpoint && st->samples != before && (rc = o->checkpoint(o->ctx, err)) != 0)
			break;
		if (o->on_progress && st->bytes >= next_progress) {
			o->on_progress(o->ctx, st->bytes);
			next_progress += 64u << 20;
		}
	}
	if (!rc && in->stop_rc) {
		rc = in->stop_rc;
		if (err)
			*err = in->stop_err;
	}
	if (!rc && ferror(f))
		rc = gw_err_set(err, GW_EIO, "read error");
	free(buf);
	return rc;
}
