#include "ingest/import_smi.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define LINE_MAX_BYTES (64 * 1024)
#define MAX_COLS 256

struct state {
	const struct gw_import_opts *o;
	struct gw_import_stats *st;
	const struct gw_field *cols[MAX_COLS];
	size_t ncols;
	bool have_header, skipping; /* skipping: a block we do not import (compute apps) */
	int ts_col, index_col, uuid_col, bus_col, name_col;
	int64_t block_ms; /* time of the current ======= block, or INT64_MIN */
	size_t row_in_block;
	char hostname[256];
};

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Times an import accepts: 1970-01-01 up to 2200-01-01 (UTC). The store
 * keeps milliseconds since 1970 and nothing older is a log line; the upper
 * bound is the simulator's too (docs/SIMULATOR.md), far past any log and
 * far below what int64 milliseconds or time_t hold.
 */
#define DATE_MAX_MS 7258118400000LL /* 2200-01-01T00:00:00Z */

/* ".763" after the seconds: milliseconds (".5" is 500, digits past the third dropped); p moves past it. */
static int frac_ms(const char **p)
{
	const char *s = *p;
	int ms = 0, digits = 0;
	if (*s != '.')
		return 0;
	for (s++; isdigit((unsigned char)*s); s++, digits++)
		if (digits < 3)
			ms = ms * 10 + (*s - '0');
	for (int i = digits; i < 3; i++)
		ms *= 10;
	*p = s;
	return digits ? ms : -1;
}

/* tm (local, or UTC minus off_s) to ms; GW_ERANGE for a day the calendar does not have or a time out of range. */
static int tm_to_ms(struct tm *tm, bool utc, int64_t off_s, int ms, int64_t *out)
{
	int mday = tm->tm_mday, mon = tm->tm_mon, year = tm->tm_year;
	if (ms < 0 || tm->tm_hour > 23 || tm->tm_min > 59 || tm->tm_sec > 60 || year < 0 || year > 300)
		return GW_ERANGE;
	time_t t = utc ? timegm(tm) : mktime(tm);
	/* mktime() turns 31 February into 3 March: a date that moved was not a date */
	if (tm->tm_mday != mday || tm->tm_mon != mon || tm->tm_year != year)
		return GW_ERANGE;
	int64_t v = ((int64_t)t - off_s) * 1000 + ms;
	if (v < 0 || v >= DATE_MAX_MS)
		return GW_ERANGE;
	*out = v;
	return 0;
}

static bool at_end(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return !*p;
}

int gw_import_parse_date(const char *s, int64_t *ms)
{
	struct tm tm;
	const char *p;
	int frac;
	/* nvidia-smi's timestamp field: 2026/07/03 22:11:09.763 (local time) */
	memset(&tm, 0, sizeof(tm));
	tm.tm_isdst = -1;
	if ((p = strptime(s, "%Y/%m/%d %H:%M:%S", &tm))) {
		frac = frac_ms(&p);
		if (!at_end(p))
			return GW_EPARSE;
		return tm_to_ms(&tm, false, 0, frac, ms);
	}
	/* ISO: 2026-12-02 17:58:17, 2026-12-02T17:58:17Z, with an optional offset */
	memset(&tm, 0, sizeof(tm));
	tm.tm_isdst = -1;
	if ((p = strptime(s, "%Y-%m-%d", &tm)) && (*p == ' ' || *p == 'T') && (p = strptime(p + 1, "%H:%M:%S", &tm))) {
		frac = frac_ms(&p);
		if (*p == 'Z' || *p == '+' || *p == '-') {
			int64_t off = 0;
			if (*p != 'Z') {
				/* +HH, +HHMM or +HH:MM */
				const char *q = p + 1;
				int d[4], nd = 0;
				for (; nd < 4 && (isdigit((unsigned char)*q) || (nd == 2 && *q == ':')); q++)
					if (*q != ':')
						d[nd++] = *q - '0';
				if ((nd != 2 && nd != 4) || d[0] * 10 + d[1] > 14 || (nd == 4 && d[2] > 5))
					return GW_EPARSE;
				int mm = nd == 4 ? d[2] * 10 + d[3] : 0;
				off = (int64_t)((d[0] * 10 + d[1]) * 3600 + mm * 60) * (*p == '+' ? 1 : -1);
				p = q;
			} else {
				p++;
			}
			if (!at_end(p))
				return GW_EPARSE;
			return tm_to_ms(&tm, true, off, frac, ms);
		}
		if (!at_end(p))
			return GW_EPARSE;
		return tm_to_ms(&tm, false, 0, frac, ms);
	}
	/* date(1) in the C locale: Wed Dec  2 17:58:17 UTC 2026 (zone optional) */
	char wd[8], mon[8], zone[16] = "";
	int day, hh, mi, ss, year;
	int n = sscanf(s, "%7s %7s %d %d:%d:%d %15s %d", wd, mon, &day, &hh, &mi, &ss, zone, &year);
	if (n != 8) {
		n = sscanf(s, "%7s %7s %d %d:%d:%d %d", wd, mon, &day, &hh, &mi, &ss, &year);
		if (n != 7)
			return GW_EPARSE;
		zone[0] = '\0';
	}
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	memset(&tm, 0, sizeof(tm));
	tm.tm_isdst = -1;
	tm.tm_mon = -1;
	for (int i = 0; i < 12; i++)
		if (strcasecmp(mon, months[i]) == 0)
			tm.tm_mon = i;
	if (tm.tm_mon < 0 || day < 1 || day > 31 || hh < 0 || mi < 0 || ss < 0 || year < 1900 || year > 2200)
		return GW_ERANGE;
	tm.tm_mday = day;
	tm.tm_hour = hh;
	tm.tm_min = mi;
	tm.tm_sec = ss;
	tm.tm_year = year - 1900;
	bool utc = strcmp(zone, "UTC") == 0 || strcmp(zone, "GMT") == 0;
	return tm_to_ms(&tm, utc, 0, 0, ms);
}

static void bad(struct state *s, const char *why)
{
	s->st->bad_lines++;
	if (s->o->on_bad_line)
		s->o->on_bad_line(s->o->ctx, s->st->lines, why);
}

/* Split on commas into trimmed cells; returns the count. */
static size_t split(char *line, char **cells, size_t max)
{
	size_t n = 0;
	char *p = line;
	while (n < max) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		cells[n++] = trim(p);
		if (!comma)
			break;
		p = comma + 1;
	}
	return n;
}

/* A header cell "memory.used [MiB]" -> the field, or NULL. */
static const struct gw_field *header_field(char *cell)
{
	char *br = strstr(cell, " [");
	if (br)
		*br = '\0';
	return gw_field_find(trim(cell));
}

static bool set_columns(struct state *s, char **cells, size_t n)
{
	/* Every cell is checked before any is taken: a line that only starts
	 * like a header must leave the header in force whole (it once left
	 * ncols counting columns it had not set). */
	const struct gw_field *cols[MAX_COLS];
	for (size_t i = 0; i < n; i++)
		if (!(cols[i] = header_field(cells[i])))
			return false;
	s->ncols = n;
	s->ts_col = s->index_col = s->uuid_col = s->bus_col = s->name_col = -1;
	for (size_t i = 0; i < n; i++) {
		const struct gw_field *f = cols[i];
		s->cols[i] = f;
		if (strcmp(f->name, "timestamp") == 0)
			s->ts_col = (int)i;
		else if (strcmp(f->name, "index") == 0)
			s->index_col = (int)i;
		else if (strcmp(f->name, "uuid") == 0)
			s->uuid_col = (int)i;
		else if (strcmp(f->name, "pci.bus_id") == 0)
			s->bus_col = (int)i;
		else if (strcmp(f->name, "name") == 0)
			s->name_col = (int)i;
	}
	s->have_header = true;
	return true;
}

/* Cells that name a --query-compute-apps header (an empty cell names nothing). */
static bool apps_header(char **cells, size_t n)
{
	static const char *const names[] = {"pid", "process_name", "used_gpu_memory", "used_memory"};
	for (size_t i = 0; i < n; i++) {
		char *br = strstr(cells[i], " [");
		size_t len = br ? (size_t)(br - cells[i]) : strlen(cells[i]);
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			if (len == strlen(names[j]) && strncmp(cells[i], names[j], len) == 0)
				return true;
	}
	return false;
}

/*
 * A GPU index is a label; each distinct one makes a set of series (and
 * their memory), so only what a host can have is taken: indexes are the
 * driver's dense 0..N-1 numbering of its own GPUs, and the Linux driver
 * stops at 255 devices (/dev/nvidia0../dev/nvidia254; 255 is nvidiactl).
 * 1024 leaves room for whatever comes next; 4294967296, -1 or "0x1" are
 * not GPU indexes.
 */
#define GPU_INDEX_MAX 1024

static bool gpu_index_ok(const char *c)
{
	size_t n = strspn(c, "0123456789");
	return n > 0 && n <= 4 && !c[n] && atoi(c) < GPU_INDEX_MAX;
}

static int counted_emit(void *ctx, const struct gw_lpair *labels, size_t n, int64_t t_ms, double v)
{
	struct state *s = ctx;
	s->st->samples++;
	return s->o->emit(s->o->ctx, labels, n, t_ms, v);
}

static void row(struct state *s, char **cells, size_t n)
{
	if (n != s->ncols) {
		char why[96];
		snprintf(why, sizeof(why), "%zu values where the header has %zu columns", n, s->ncols);
		bad(s, why);
		return;
	}
	int64_t t = s->block_ms;
	if (s->ts_col >= 0 && gw_import_parse_date(cells[s->ts_col], &t) != 0) {
		char why[128];
		snprintf(why, sizeof(why), "bad timestamp \"%.40s\" (want a date and time from 1970 to 2199)",
			 cells[s->ts_col]);
		bad(s, why);
		return;
	}
	if (t == INT64_MIN) {
		bad(s, "no time for this row: log the timestamp field or \"======= $(date) =======\" lines");
		return;
	}
	if (s->index_col >= 0 && !gpu_index_ok(cells[s->index_col])) {
		char why[96];
		snprintf(why, sizeof(why), "GPU index \"%.20s\" is not 0..%d", cells[s->index_col], GPU_INDEX_MAX - 1);
		bad(s, why);
		return;
	}
	/* without an index column a row's place in its block is its GPU */
	if (s->index_col < 0 && s->row_in_block >= GPU_INDEX_MAX) {
		bad(s, "more than 1024 GPU rows under one header or date line (log the index field)");
		return;
	}
	char idx[16];
	snprintf(idx, sizeof(idx), "%zu", s->row_in_block);
	struct gw_series_gpu g = {
		.index = s->index_col >= 0 ? cells[s->index_col] : idx,
		.uuid = s->uuid_col >= 0 ? cells[s->uuid_col] : "",
		.bus_id = s->bus_col >= 0 ? cells[s->bus_col] : "",
		.model = s->name_col >= 0 ? cells[s->name_col] : "",
		.hostname = s->o->instance,
	};
	struct gw_lpair extra[2];
	size_t nextra = 0;
	if (s->o->instance)
		extra[nextra++] = (struct gw_lpair){"instance", s->o->instance};
	if (s->o->job)
		extra[nextra++] = (struct gw_lpair){"job", s->o->job};
	struct gw_value v[MAX_COLS];
	for (size_t i = 0; i < n; i++) {
		if (gw_field_parse(s->cols[i], cells[i], strlen(cells[i]), &v[i]) != 0) {
			char why[160];
			snprintf(why, sizeof(why), "\"%.60s\" is not a value of %s", cells[i], s->cols[i]->name);
			bad(s, why);
			return;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (gw_series_emit(s->cols[i], &v[i], &g, extra, nextra, t, counted_emit, s) != 0) {
			bad(s, "the store refused a sample");
			return;
		}
	s->st->rows++;
	s->row_in_block++;
}

static void line(struct state *s, char *l)
{
	l = trim(l);
	if (!*l)
		return;
	if (strncmp(l, "=====", 5) == 0) {
		char *d = l + strspn(l, "= ");
		char *e = d + strlen(d);
		while (e > d && (e[-1] == '=' || e[-1] == ' '))
			*--e = '\0';
		if (gw_import_parse_date(d, &s->block_ms) != 0) {
			s->block_ms = INT64_MIN;
			bad(s, "cannot read the date of this block");
		}
		s->row_in_block = 0;
		s->skipping = false;
		return;
	}
	char *cells[MAX_COLS];
	char copy[LINE_MAX_BYTES];
	snprintf(copy, sizeof(copy), "%s", l);
	size_t n = split(l, cells, MAX_COLS);
	/* A header line: every cell a field name (values never are). */
	if (header_field(cells[0])) {
		char *hcells[MAX_COLS];
		size_t hn = split(copy, hcells, MAX_COLS);
		if (set_columns(s, hcells, hn)) {
			s->skipping = false;
			s->row_in_block = 0;
			return;
		}
	}
	if (apps_header(cells, n)) {
		s->skipping = true;
		s->st->skipped_lines++;
		return;
	}
	if (s->skipping) {
		s->st->skipped_lines++;
		return;
	}
	if (!s->have_header) {
		bad(s, "a value line before any header (give --fields for logs written with noheader)");
		return;
	}
	row(s, cells, n);
}

int gw_import_smi(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err)
{
	memset(st, 0, sizeof(*st));
	struct state *s = calloc(1, sizeof(*s));
	if (!s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	s->o = o;
	s->st = st;
	s->block_ms = INT64_MIN;
	if (o->fields) {
		char buf[4096];
		snprintf(buf, sizeof(buf), "%s", o->fields);
		char *cells[MAX_COLS];
		size_t n = split(buf, cells, MAX_COLS);
		for (size_t i = 0; i < n; i++) {
			if (!gw_field_find(cells[i])) {
				free(s);
				return gw_err_set(err, GW_EINVAL, "--fields: \"%s\" is not a --query-gpu field", cells[i]);
			}
		}
		snprintf(buf, sizeof(buf), "%s", o->fields);
		n = split(buf, cells, MAX_COLS);
		set_columns(s, cells, n);
	}
	char *buf = malloc(LINE_MAX_BYTES);
	if (!buf) {
		free(s);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	uint64_t next_progress = 64u << 20;
	int rc = 0;
	while (fgets(buf, LINE_MAX_BYTES, in)) {
		size_t len = strlen(buf);
		st->bytes += len;
		st->lines++;
		if (len == LINE_MAX_BYTES - 1 && buf[len - 1] != '\n') {
			/* Overlong: skip the rest of it and report. */
			int c;
			while ((c = fgetc(in)) != EOF && c != '\n')
				st->bytes++;
			bad(s, "line longer than 64 KiB");
			continue;
		}
		size_t before = st->samples;
		line(s, buf);
		if (o->checkpoint && st->samples != before && (rc = o->checkpoint(o->ctx, err)) != 0)
			break;
		if (o->on_progress && st->bytes >= next_progress) {
			o->on_progress(o->ctx, st->bytes);
			next_progress += 64u << 20;
		}
	}
	if (!rc && ferror(in))
		rc = gw_err_set(err, GW_EIO, "read error");
	free(buf);
	free(s);
	return rc;
}
