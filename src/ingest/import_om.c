#include "ingest/import_om.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_MAX_BYTES (64 * 1024)
#define MAX_LABELS 64
#define TS_MAX_S 7258118400.0 /* 2200-01-01T00:00:00Z */

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' || (!first && isdigit((unsigned char)c));
}

static int parse_double(const char *s, double *v)
{
	if (strcasecmp(s, "nan") == 0) {
		*v = NAN;
		return 0;
	}
	if (strcasecmp(s, "+inf") == 0 || strcasecmp(s, "inf") == 0) {
		*v = INFINITY;
		return 0;
	}
	if (strcasecmp(s, "-inf") == 0) {
		*v = -INFINITY;
		return 0;
	}
	char *end;
	*v = strtod(s, &end);
	return end != s && *end == '\0' ? 0 : GW_EPARSE;
}

/* Unescape \\ \" \n in place over [s, e); returns the new end. */
static char *unescape(char *s, char *e)
{
	char *w = s;
	for (char *r = s; r < e; r++) {
		if (*r == '\\' && r + 1 < e) {
			r++;
			*w++ = *r == 'n' ? '\n' : *r;
		} else {
			*w++ = *r;
		}
	}
	return w;
}

int gw_import_om_sample(char *line, struct gw_lpair *labels, size_t max, size_t *n, double *v, bool *has_t,
			int64_t *t_ms, const char **why)
{
	*n = 0;
	*has_t = false;
	char *p = line;
	if (!name_char(*p, true)) {
		*why = "expected a metric name";
		return GW_EPARSE;
	}
	char *name = p;
	while (name_char(*p, false))
		p++;
	char *name_end = p;
	if (*p == '{') {
		*name_end = '\0';
		p++;
		for (;;) {
			while (*p == ' ' || *p == ',')
				p++;
			if (*p == '}') {
				p++;
				break;
			}
			if (!name_char(*p, true) || *n + 1 >= max) {
				*why = *n + 1 >= max ? "too many labels" : "bad label name";
				return GW_EPARSE;
			}
			char *ln = p;
			while (name_char(*p, false))
				p++;
			char *ln_end = p;
			if (*p != '=' || p[1] != '"') {
				*why = "expected =\"value\" after a label name";
				return GW_EPARSE;
			}
			p += 2;
			char *val = p;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			if (*p != '"') {
				*why = "unterminated label value";
				return GW_EPARSE;
			}
			char *val_end = unescape(val, p);
			p++;
			*ln_end = '\0';
			*val_end = '\0';
			/* the store wants each name once; {gpu="0",gpu="1"} is no series */
			for (size_t i = 1; i <= *n; i++) {
				if (strcmp(labels[i].name, ln) == 0) {
					*why = "a label given twice";
					return GW_EPARSE;
				}
			}
			if (strcmp(ln, GW_METRIC_NAME) == 0) {
				*why = "__name__ as a label (the name goes before the braces)";
				return GW_EPARSE;
			}
			labels[++*n] = (struct gw_lpair){ln, val};
		}
	}
	if (*p != ' ') {
		*why = "expected a space before the value";
		return GW_EPARSE;
	}
	char *space = p;
	*name_end = '\0'; /* without labels name_end is this space */
	p = space + 1;
	labels[0] = (struct gw_lpair){GW_METRIC_NAME, name};
	(*n)++;
	while (*p == ' ')
		p++;
	char *vs = p;
	while (*p && *p != ' ')
		p++;
	char *ts = NULL;
	if (*p == ' ') {
		*p++ = '\0';
		while (*p == ' ')
			p++;
		ts = p;
		while (*p && *p != ' ' && *p != '#')
			p++;
		*p = '\0';
	}
	if (parse_double(vs, v) != 0) {
		*why = "bad sample value";
		return GW_EPARSE;
	}
	double tsec;
	if (!ts || !*ts)
		return 0;
	/* Seconds since 1970 up to 2200, as the nvidia-smi importer takes: 1e300
	 * or -1 is no sample's time, and past 2^63 ms llround() has no answer. */
	if (parse_double(ts, &tsec) != 0 || !(tsec >= 0 && tsec < TS_MAX_S)) {
		*why = "bad time stamp (want seconds since 1970, before 2200)";
		return GW_EPARSE;
	}
	*t_ms = (int64_t)llround(tsec * 1000.0);
	*has_t = true;
	return 0;
}

int gw_import_om_line(char *line, struct gw_lpair *labels, size_t max, size_t *n, double *v, int64_t *t_ms,
		      const char **why)
{
	bool has_t;
	int rc = gw_import_om_sample(line, labels, max, n, v, &has_t, t_ms, why);
	if (rc == 0 && !has_t) {
		*why = "sample without a time stamp (history needs one)";
		return GW_EPARSE;
	}
	return rc;
}

int gw_import_om(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err)
{
	memset(st, 0, sizeof(*st));
	char *buf = malloc(LINE_MAX_BYTES);
	if (!buf)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	uint64_t next_progress = 64u << 20;
	int rc = 0;
	while (fgets(buf, LINE_MAX_BYTES, in)) {
		size_t len = strlen(buf);
		st->bytes += len;
		st->lines++;
		if (len == LINE_MAX_BYTES - 1 && buf[len - 1] != '\n') {
			int c;
			while ((c = fgetc(in)) != EOF && c != '\n')
				st->bytes++;
			st->bad_lines++;
			if (o->on_bad_line)
				o->on_bad_line(o->ctx, st->lines, "line longer than 64 KiB");
			continue;
		}
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (!len || buf[0] == '#') {
			if (len)
				st->skipped_lines++;
			continue;
		}
		struct gw_lpair labels[MAX_LABELS + 2];
		size_t n;
		double v;
		int64_t t;
		const char *why = "bad line";
		if (gw_import_om_line(buf, labels, MAX_LABELS, &n, &v, &t, &why) != 0) {
			st->bad_lines++;
			if (o->on_bad_line)
				o->on_bad_line(o->ctx, st->lines, why);
			continue;
		}
		st->rows++;
		st->samples++;
		if (o->emit(o->ctx, labels, n, t, v) != 0) {
			st->bad_lines++;
			if (o->on_bad_line)
				o->on_bad_line(o->ctx, st->lines, "the store refused this sample");
		}
		if (o->checkpoint && (rc = o->checkpoint(o->ctx, err)) != 0)
			break;
		if (o->on_progress && st->bytes >= next_progress) {
			o->on_progress(o->ctx, st->bytes);
			next_progress += 64u << 20;
		}
	}
	if (!rc && ferror(in))
		rc = gw_err_set(err, GW_EIO, "read error");
	free(buf);
	return rc;
}
