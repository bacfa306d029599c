/*
 * import_mon.c - `nvidia-smi dmon` and `pmon` logs (import_text.h).
 *
 * Both print a '#' line of column names and a '#' line of units, then a
 * row per GPU (dmon) or per process (pmon) each sample, in fixed-width
 * columns or, with --format csv, separated by commas; -o D and -o T put
 * Date (YYYYMMDD) and Time (HH:MM:SS) columns first. A row's time is
 * those columns, local time as nvidia-smi prints them; with Time alone the
 * day comes from opts.start_ms (and moves on when the time of day goes
 * back); with neither, samples are opts.start_ms + k * interval, a new
 * sample starting when a GPU (dmon) or a GPU's process (pmon) comes round
 * again.
 *
 * dmon's columns are fields by the field table's dmon names; pmon's
 * become the per-process families the agent exposes.
 */
#include "ingest/import_int.h"

#include "fields/fields.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MON_COLS 64
#define MON_KEYS 1024 /* rows of one sample remembered to tell where the next starts */
#define DAY_MS (86400 * 1000LL)
#define DATE_MAX_MS 7258118400000LL /* 2200-01-01, as the CSV importer: no log line is later */

enum col_kind { C_SKIP, C_DATE, C_TIME, C_GPU, C_PID, C_TYPE, C_CMD, C_FIELD, C_PROC };

/*
 * pmon's value columns: the per-process families /metrics has
 * (gpu_metrics.c), and the scale to them (x * mul / div, as the agent
 * computes them: 95 % is 95 / 100.0, which is 0.95 where 95 * 0.01 is not).
 */
static const struct {
	const char *col, *family;
	double mul, div;
} pmon_families[] = {
	{"sm", "gpuwatch_process_sm_utilization_ratio", 1, 100},
	{"mem", "gpuwatch_process_memory_utilization_ratio", 1, 100},
	{"fb", "gpuwatch_process_memory_used_bytes", 1048576.0, 1}, /* pmon's MB are MiB */
};

/* dmon columns whose unit differs from their field's as --query-gpu prints it. */
static const struct {
	const char *col;
	double scale;
} dmon_scales[] = {
	{"rxpci", 1000.0}, /* dmon MB/s; the field KB/s */
	{"txpci", 1000.0},
};

struct col {
	enum col_kind kind;
	const struct gw_field *field; /* C_FIELD */
	int family;                   /* C_PROC: index in pmon_families */
	double scale;                 /* C_FIELD: 0, the text as it is; else the number times this */
};

struct mon {
	struct ingest in;
	bool pmon;
	struct col cols[MON_COLS];
	size_t ncols;
	bool have_header, have_date, have_time;
	int gpu_col, pid_col, type_col, cmd_col;
	/* without a Date column */
	int64_t day_ms;  /* local midnight of the day the times fall on (-o T) */
	int64_t last_tod; /* last time of day seen (-o T), or -1 */
	int64_t sample;  /* samples begun (no time columns) */
	char keys[MON_KEYS][24]; /* "gpu/pid" of the current sample's rows */
	size_t nkeys;
};

static void set_header(struct mon *m, char **tok, size_t n)
{
	if (n > MON_COLS) {
		ingest_bad(&m->in, "%zu columns; at most %d are read", n, MON_COLS);
		return;
	}
	m->ncols = n;
	m->have_date = m->have_time = false;
	m->gpu_col = m->pid_col = m->type_col = m->cmd_col = -1;
	for (size_t i = 0; i < n; i++) {
		struct col *c = &m->cols[i];
		*c = (struct col){.kind = C_SKIP, .family = -1};
		const char *name = tok[i];
		if (strcmp(name, "Date") == 0) {
			c->kind = C_DATE;
			m->have_date = true;
		} else if (strcmp(name, "Time") == 0) {
			c->kind = C_TIME;
			m->have_time = true;
		} else if (strcmp(name, "gpu") == 0) {
			c->kind = C_GPU;
			m->gpu_col = (int)i;
		} else if (m->pmon && strcmp(name, "pid") == 0) {
			c->kind = C_PID;
			m->pid_col = (int)i;
		} else if (m->pmon && strcmp(name, "type") == 0) {
			c->kind = C_TYPE;
			m->type_col = (int)i;
		} else if (m->pmon && strcmp(name, "command") == 0) {
			c->kind = C_CMD;
			m->cmd_col = (int)i;
		} else if (m->pmon) {
			for (size_t k = 0; k < sizeof(pmon_families) / sizeof(pmon_families[0]); k++)
				if (strcmp(pmon_families[k].col, name) == 0) {
					c->kind = C_PROC;
					c->family = (int)k;
				}
		} else {
			for (size_t k = 0; k < gw_fields_count(); k++) {
				const struct gw_field *f = gw_field_at(k);
				if (f->dmon && strcmp(f->dmon, name) == 0)
					c->field = f;
			}
			if (c->field) {
				c->kind = C_FIELD;
				for (size_t k = 0; k < sizeof(dmon_scales) / sizeof(dmon_scales[0]); k++)
					if (strcmp(dmon_scales[k].col, name) == 0)
						c->scale = dmon_scales[k].scale;
			}
		}
	}
	m->have_header = m->gpu_col >= 0 && (!m->pmon || m->pid_col >= 0);
	if (!m->have_header)
		ingest_bad(&m->in, "a header without the %s column", m->pmon && m->gpu_col >= 0 ? "pid" : "gpu");
	m->nkeys = 0;
	m->last_tod = -1;
}

/* "20261203" and "18:52:43" (either may be NULL) to ms; -1 when they are not a date and a time. */
static int64_t row_time(struct mon *m, const char *date, const char *tod)
{
	int hh = 0, mi = 0, ss = 0, end = 0;
	if (tod && (sscanf(tod, "%2d:%2d:%2d%n", &hh, &mi, &ss, &end) != 3 || tod[end] || hh < 0 || hh > 23 ||
		    mi < 0 || mi > 59 || ss < 0 || ss > 60))
		return -1;
	if (date) {
		char iso[40];
		if (strlen(date) != 8 || strspn(date, "0123456789") != 8)
			return -1;
		snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2s %02d:%02d:%02d", date, date + 4, date + 6, hh, mi, ss);
		int64_t ms;
		return gw_import_parse_date(iso, &ms) == 0 ? ms : -1;
	}
	/* Time alone: on the day of opts.start_ms, moving to the next day when the time goes back */
	int64_t tod_ms = ((int64_t)hh * 3600 + mi * 60 + ss) * 1000;
	if (m->last_tod >= 0 && tod_ms < m->last_tod)
		m->day_ms += DAY_MS;
	m->last_tod = tod_ms;
	return m->day_ms + tod_ms;
}

/* Without time columns: whether this row begins a new sample (its GPU, or GPU and pid, came round again). */
static bool next_sample(struct mon *m, const char *gpu, const char *pid)
{
	char key[24];
	snprintf(key, sizeof(key), "%.10s/%.12s", gpu, pid ? pid : "");
	bool again = false;
	for (size_t i = 0; i < m->nkeys && !again; i++)
		again = strcmp(m->keys[i], key) == 0;
	if (again)
		m->nkeys = 0;
	if (m->nkeys < MON_KEYS)
		snprintf(m->keys[m->nkeys++], sizeof(m->keys[0]), "%s", key);
	return again;
}

static bool gpu_index_ok(const char *c)
{
	size_t n = strspn(c, "0123456789");
	return n > 0 && n <= 4 && !c[n] && atoi(c) < 1024; /* as the CSV importer: what a host can have */
}

static void emit_row(struct mon *m, char **tok, int64_t t)
{
	const char *gpu = tok[m->gpu_col];
	struct gw_series_gpu g = {.index = gpu, .uuid = "", .bus_id = "", .model = "",
				  .hostname = m->in.o->instance};
	const char *pid = m->pid_col >= 0 ? tok[m->pid_col] : NULL;
	if (m->pmon && strcmp(pid, "-") == 0)
		return; /* an idle GPU's row: no process */
	if (m->pmon && (strspn(pid, "0123456789") != strlen(pid) || strlen(pid) > 10)) {
		ingest_bad(&m->in, "pid \"%.20s\" is not a number", pid);
		return;
	}
	const char *cmd = m->cmd_col >= 0 ? tok[m->cmd_col] : "";
	const char *slash = strrchr(cmd, '/');
	struct gw_lpair pl[4] = {{"gpu", gpu},
				 {"pid", pid ? pid : ""},
				 {"process", slash ? slash + 1 : cmd},
				 {"type", m->type_col >= 0 ? tok[m->type_col] : ""}};
	for (size_t i = 0; i < m->ncols; i++) {
		const struct col *c = &m->cols[i];
		const char *text = tok[i];
		if ((c->kind != C_FIELD && c->kind != C_PROC) || strcmp(text, "-") == 0)
			continue;
		char *end;
		double x = strtod(text, &end);
		if (end == text || *end) {
			ingest_bad(&m->in, "\"%.40s\" in column %zu is not a number", text, i + 1);
			return;
		}
		int rc;
		if (c->kind == C_PROC) {
			rc = ingest_sample(&m->in, pmon_families[c->family].family, pl, 4, t,
					   x * pmon_families[c->family].mul / pmon_families[c->family].div);
		} else {
			char scaled[40];
			if (c->scale)
				snprintf(scaled, sizeof(scaled), "%.17g", x * c->scale);
			rc = ingest_value(&m->in, c->field->name, c->scale ? scaled : text, &g, t);
		}
		if (rc == GW_EPARSE) {
			ingest_bad(&m->in, "\"%.40s\" is not a value of %s", text, c->field ? c->field->name : "the column");
			return;
		}
		if (rc) {
			ingest_bad(&m->in, "the store refused a sample");
			return;
		}
	}
	m->in.st->rows++;
}

static void row(struct mon *m, char **tok, size_t n)
{
	if (!m->have_header) {
		ingest_bad(&m->in, "a row before the '# gpu ...' header line");
		return;
	}
	/* pmon's command is last and never has a space; extra cells are a truncated or damaged row */
	if (n != m->ncols) {
		ingest_bad(&m->in, "%zu values where the header has %zu columns", n, m->ncols);
		return;
	}
	const char *gpu = tok[m->gpu_col];
	if (!gpu_index_ok(gpu)) {
		ingest_bad(&m->in, "GPU index \"%.20s\" is not 0..1023", gpu);
		return;
	}
	int64_t t;
	const char *date = NULL, *tod = NULL;
	for (size_t i = 0; i < n; i++) {
		if (m->cols[i].kind == C_DATE)
			date = tok[i];
		else if (m->cols[i].kind == C_TIME)
			tod = tok[i];
	}
	if (m->have_date) {
		t = row_time(m, date, tod);
	} else if (m->have_time) {
		if (!m->in.o->has_start) {
			ingest_stop(&m->in, GW_EINVAL,
				    "%s with a Time column but no Date (-o T): give --start with the day of the first "
				    "row, or log with -o DT",
				    m->pmon ? "pmon" : "dmon");
			return;
		}
		t = row_time(m, NULL, tod);
	} else {
		if (!m->in.o->has_start) {
			ingest_stop(&m->in, GW_EINVAL,
				    "%s output without time columns: log it with `nvidia-smi %s -o DT`, or give --start "
				    "TIME and --interval SECONDS (the -d it ran with, 1 by default)",
				    m->pmon ? "pmon" : "dmon", m->pmon ? "pmon" : "dmon");
			return;
		}
		if (next_sample(m, gpu, m->pid_col >= 0 ? tok[m->pid_col] : NULL))
			m->sample++;
		int64_t step = m->in.o->interval_ms > 0 ? m->in.o->interval_ms : 1000;
		t = m->in.o->start_ms + m->sample * step;
	}
	if (t < 0 || t >= DATE_MAX_MS) {
		ingest_bad(&m->in, "bad date or time \"%.12s %.12s\" (want YYYYMMDD HH:MM:SS)", date ? date : "",
			   tod ? tod : "");
		return;
	}
	emit_row(m, tok, t);
}

static void line(void *ctx, char *l)
{
	struct mon *m = ctx;
	char *tok[MON_COLS + 1];
	l = ingest_trim(l);
	if (!*l)
		return;
	if (*l == '#') {
		size_t n = ingest_tokens(l + 1, tok, MON_COLS + 1, true);
		bool names = false, units = false;
		for (size_t i = 0; i < n; i++) {
			names |= strcmp(tok[i], "gpu") == 0;
			units |= strcmp(tok[i], "Idx") == 0;
		}
		if (names && !units)
			set_header(m, tok, n);
		else
			m->in.st->skipped_lines++; /* the units line, or a comment */
		return;
	}
	size_t n = ingest_tokens(l, tok, MON_COLS + 1, true);
	row(m, tok, n);
}

/* Local midnight of the day t_ms falls on. */
static int64_t local_day(int64_t t_ms)
{
	time_t s = (time_t)(t_ms / 1000);
	struct tm tm;
	if (!localtime_r(&s, &tm))
		return t_ms - t_ms % DAY_MS;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	time_t mid = mktime(&tm);
	return mid == (time_t)-1 ? t_ms - t_ms % DAY_MS : (int64_t)mid * 1000;
}

static int run(FILE *f, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err, bool pmon)
{
	memset(st, 0, sizeof(*st));
	struct mon *m = calloc(1, sizeof(*m));
	if (!m)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	m->in = (struct ingest){.o = o, .st = st};
	m->pmon = pmon;
	m->last_tod = -1;
	m->day_ms = o->has_start ? local_day(o->start_ms) : 0;
	int rc = ingest_lines(f, &m->in, line, m, err);
	free(m);
	return rc;
}

int gw_import_dmon(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err)
{
	return run(in, o, st, err, false);
}

int gw_import_pmon(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err)
{
	return run(in, o, st, err, true);
}
