#include "export/counters.h"

#include "export/dcgm_names.h"
#include "export/series.h"
#include "fields/fields_table.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gw_counters_default_csv[] =
	"# gpuwatch's default DCGM counters: dcgm-exporter's defaults, plus the\n"
	"# fields common alert rules read (FB_TOTAL, power limits).\n"
	"# DCGM FIELD, Prometheus metric type, help message\n"
	"DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).\n"
	"DCGM_FI_DEV_MEM_CLOCK, gauge, Memory clock frequency (in MHz).\n"
	"DCGM_FI_DEV_MEMORY_TEMP, gauge, Memory temperature (in C).\n"
	"DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n"
	"DCGM_FI_DEV_POWER_USAGE, gauge, Power draw (in W).\n"
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, counter, Total energy consumption since boot (in mJ).\n"
	"DCGM_FI_DEV_PCIE_REPLAY_COUNTER, counter, Total number of PCIe retries.\n"
	"DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (in %).\n"
	"DCGM_FI_DEV_MEM_COPY_UTIL, gauge, Memory utilization (in %).\n"
	"DCGM_FI_DEV_ENC_UTIL, gauge, Encoder utilization (in %).\n"
	"DCGM_FI_DEV_DEC_UTIL, gauge, Decoder utilization (in %).\n"
	"DCGM_FI_DEV_XID_ERRORS, gauge, Value of the last XID error encountered.\n"
	"DCGM_FI_DEV_FB_FREE, gauge, Framebuffer memory free (in MiB).\n"
	"DCGM_FI_DEV_FB_USED, gauge, Framebuffer memory used (in MiB).\n"
	"DCGM_FI_DEV_FB_RESERVED, gauge, Framebuffer memory reserved (in MiB).\n"
	"DCGM_FI_DEV_FB_TOTAL, gauge, Framebuffer memory total (in MiB).\n"
	"DCGM_FI_DEV_POWER_MGMT_LIMIT, gauge, Power management limit (in W).\n"
	"DCGM_FI_DEV_POWER_LIMIT, gauge, Power limit enforced on the GPU (in W).\n"
	"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for uncorrectable errors\n"
	"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for correctable errors\n"
	"DCGM_FI_DEV_ROW_REMAP_FAILURE, gauge, Whether remapping of rows has failed\n"
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE, gauge, Ratio of time the graphics engine is active.\n"
	"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, gauge, Ratio of cycles the tensor (HMMA) pipe is active.\n"
	"DCGM_FI_PROF_DRAM_ACTIVE, gauge, Ratio of cycles the device memory interface is active sending or "
	"receiving data.\n"
	"DCGM_FI_PROF_PCIE_TX_BYTES, gauge, The rate of data transmitted over the PCIe bus - including both "
	"protocol headers and data payloads - in bytes per second.\n"
	"DCGM_FI_PROF_PCIE_RX_BYTES, gauge, The rate of data received over the PCIe bus - including both "
	"protocol headers and data payloads - in bytes per second.\n"
	"DCGM_FI_DRIVER_VERSION, label, Driver Version\n";

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static const struct {
	const char *name;
	enum gw_metric_type type;
	bool label;
} types[] = {
	{"gauge", GW_METRIC_GAUGE, false},     {"counter", GW_METRIC_COUNTER, false},
	{"histogram", GW_METRIC_UNTYPED, false}, {"summary", GW_METRIC_UNTYPED, false},
	{"label", GW_METRIC_UNTYPED, true},
};

void gw_counters_release(struct gw_counters *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].field);
		free(c->v[i].help);
	}
	free(c->v);
	for (size_t i = 0; i < c->nwarnings && i < GW_COUNTERS_WARNINGS_MAX; i++)
		free(c->warnings[i]);
	for (size_t i = 0; i < c->nnotes && i < GW_COUNTERS_WARNINGS_MAX; i++)
		free(c->notes[i]);
	memset(c, 0, sizeof(*c));
}

/*
 * The first max bytes of s for a message: non-printable bytes as \xNN,
 * quotes and backslashes escaped, so a binary or hostile file neither
 * writes raw bytes into the log nor ends a logfmt value early.
 */
static const char *esc(const char *s, size_t max, char *out, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; s[i] && i < max && w + 5 < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			w += (size_t)snprintf(out + w, n - w, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			w += (size_t)snprintf(out + w, n - w, "\\x%02x", ch);
		else
			out[w++] = (char)ch;
	}
	out[w] = '\0';
	return out;
}

/* One message into a capped list (warnings or notes); *n counts them all. */
static int add_msg(char **list, size_t *n, const char *fmt, va_list ap)
{
	if ((*n)++ >= GW_COUNTERS_WARNINGS_MAX)
		return 0;
	char msg[GW_ERR_MSG_MAX];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	list[*n - 1] = strdup(msg);
	return list[*n - 1] ? 0 : GW_ENOMEM;
}

static int warn(struct gw_counters *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct gw_counters *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = add_msg(c->warnings, &c->nwarnings, fmt, ap);
	va_end(ap);
	return rc;
}

static int note(struct gw_counters *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct gw_counters *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = add_msg(c->notes, &c->nnotes, fmt, ap);
	va_end(ap);
	return rc;
}

/* Names gpuwatch's own default file uses that are no DCGM field (common alert rules read them). */
static const char *const own_names[] = {"DCGM_FI_DEV_POWER_LIMIT"};

/*
 * The DCGM field a row's name reads, into field (n bytes): the name
 * itself, or a 1.x name's field. Returns false for a name dcgm-exporter
 * would not know.
 */
static bool field_of(const char *name, char *field, size_t n)
{
	if (strncmp(name, "DCGM_", 5) == 0) {
		if (gw_dcgm_alias(name, field, n)) /* a newer DCGM's name: exported as the file gives it */
			return true;
		bool known = gw_dcgm_name_known(name);
		for (size_t i = 0; i < sizeof(own_names) / sizeof(own_names[0]) && !known; i++)
			known = strcmp(own_names[i], name) == 0;
		snprintf(field, n, "%s", name);
		return known && strlen(name) < n;
	}
	return gw_dcgm_legacy_field(name, field, n);
}

/*
 * Whether /metrics can show a row: the sources gw_metrics_prepare() maps
 * (the field table's DCGM names, and names of dcgm-exporter's own), and for label
 * rows the string fields gw_series_label_source() knows.
 */
static bool exportable(const char *name, bool label)
{
	if (label)
		return gw_series_label_source(name) != GW_SERIES_LABEL_NONE;
	if (strcmp(name, "DCGM_FI_DEV_XID_ERRORS") == 0 || strcmp(name, "DCGM_FI_DEV_POWER_LIMIT") == 0 ||
	    strcmp(name, "DCGM_EXP_XID_ERRORS_COUNT") == 0 || strcmp(name, "DCGM_EXP_CLOCK_EVENTS_COUNT") == 0 ||
	    strcmp(name, "DCGM_EXP_P2P_STATUS") == 0 ||
	    strcmp(name, "DCGM_EXP_GPU_HEALTH_STATUS") == 0) /* the agent's health watches */
		return true;
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->dcgm && strcmp(f->dcgm, name) == 0)
			return true;
	}
	return false;
}

/* Rows kept so far, with their lines, for the duplicate check. */
struct rows {
	int *line;
	size_t cap;
};

static int parse_line(struct gw_counters *c, struct rows *r, char *line, const char *origin, int lineno,
		      struct gw_err *err)
{
	char q[200];
	char *f[3] = {line, NULL, NULL};
	char *comma = strchr(line, ',');
	if (!comma)
		return gw_err_set(err, GW_EPARSE, "%s:%d: expected \"FIELD, type, help\", got \"%s\"", origin, lineno,
				  esc(line, 60, q, sizeof(q)));
	*comma = '\0';
	f[1] = comma + 1;
	comma = strchr(f[1], ',');
	if (comma) { /* the help text may itself contain commas */
		*comma = '\0';
		f[2] = comma + 1;
	}
	char *name = trim(f[0]), *type = trim(f[1]), *help = f[2] ? trim(f[2]) : "";
	char field[128];
	if (strncmp(name, "DCGM_", 5) != 0 && strncmp(name, "dcgm_", 5) != 0)
		return gw_err_set(err, GW_EPARSE, "%s:%d: \"%s\" is not a DCGM field name (DCGM_FI_...)", origin,
				  lineno, esc(name, 60, q, sizeof(q)));
	if (!field_of(name, field, sizeof(field)))
		return gw_err_set(err, GW_EPARSE,
				  "%s:%d: unknown DCGM field \"%s\": not a name DCGM or dcgm-exporter defines (a typo?)",
				  origin, lineno, esc(name, 80, q, sizeof(q)));
	size_t t = 0;
	while (t < sizeof(types) / sizeof(types[0]) && strcmp(types[t].name, type) != 0)
		t++;
	if (t == sizeof(types) / sizeof(types[0]))
		return gw_err_set(err, GW_EPARSE,
				  "%s:%d: unknown metric type \"%s\" (gauge, counter, histogram, summary, label)",
				  origin, lineno, esc(type, 60, q, sizeof(q)));
	bool label = types[t].label;
	if (!exportable(field, label))
		return note(c, "%s:%d: %s left out: gpuwatch does not read %s%s", origin, lineno, name,
			    strcmp(name, field) ? field : "this DCGM field", label ? " as a label" : "");
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].label == label && strcmp(c->v[i].name, name) == 0)
			return warn(c, "%s:%d: %s repeats line %d; line %d skipped", origin, lineno, name,
				    r->line[i], lineno);
	if (c->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct gw_counter *v = realloc(c->v, cap * sizeof(*v));
		if (v)
			c->v = v;
		int *l = v ? realloc(r->line, cap * sizeof(*l)) : NULL;
		if (!l)
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		r->line = l;
		r->cap = cap;
	}
	struct gw_counter *v = &c->v[c->n];
	v->name = strdup(name);
	v->field = strdup(field);
	v->help = strdup(help);
	v->type = types[t].type;
	v->label = label;
	r->line[c->n] = lineno;
	c->n++; /* counted before the check, so a release frees what was allocated */
	if (!v->name || !v->field || !v->help)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	return 0;
}

int gw_counters_parse(struct gw_counters *c, const char *text, const char *origin, struct gw_err *err)
{
	memset(c, 0, sizeof(*c));
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0) /* a UTF-8 byte order mark, as some editors write */
		text += 3;
	char *copy = strdup(text);
	if (!copy)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct rows r = {NULL, 0};
	int lineno = 0, rc = 0, rows = 0;
	char *save = NULL;
	for (char *p = copy; p && rc == 0; p = save) {
		char *nl = strchr(p, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		char *line = trim(p);
		if (!*line || *line == '#')
			continue;
		rows++;
		rc = parse_line(c, &r, line, origin, lineno, err);
		if (rc == GW_ENOMEM)
			gw_err_set(err, rc, "out of memory");
	}
	free(copy);
	free(r.line);
	size_t len = strlen(text);
	if (len && text[len - 1] == '\n')
		lineno--; /* the final newline ends the last line; it starts none */
	if (rc == 0 && rows == 0)
		rc = gw_err_set(err, GW_EPARSE, "%s:%d: no counters: the file lists no DCGM field (expected lines of "
					       "\"FIELD, type, help\")", origin, lineno);
	else if (rc == 0 && c->n == 0)
		rc = gw_err_set(err, GW_EPARSE, "%s: no counters gpuwatch can export", origin);
	if (rc)
		gw_counters_release(c);
	return rc;
}

/*
 * Whether bytes are clearly not a CSV file: a NUL, or more than one byte in
 * 16 a control character that text does not use. *at: the first such byte.
 */
static bool not_text(const char *p, size_t n, size_t *at)
{
	size_t odd = 0;
	*at = n;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		bool bad = ch == 0 || ch == 0x7f || (ch < 0x20 && !strchr("\t\n\r\f\v", ch));
		if (bad && *at == n)
			*at = i;
		if (ch == 0)
			return true;
		odd += bad;
	}
	return odd > n / 16;
}

int gw_counters_load(struct gw_counters *c, const char *path, struct gw_err *err)
{
	memset(c, 0, sizeof(*c));
	FILE *fp = fopen(path, "r");
	if (!fp)
		return gw_err_set(err, GW_EIO, "cannot open counters file %s: %m", path);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	char tmp[4096];
	size_t n;
	int rc = 0;
	while (rc == 0 && (n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		rc = gw_buf_append(&b, tmp, n);
	bool bad = ferror(fp);
	fclose(fp);
	if (rc || bad) {
		gw_buf_release(&b);
		return gw_err_set(err, rc ? rc : GW_EIO, "cannot read counters file %s%s", path,
				  rc == GW_EOVERFLOW ? ": larger than 1 MiB" : "");
	}
	size_t at;
	if (b.len && not_text(b.data, b.len, &at)) {
		rc = gw_err_set(err, GW_EPARSE,
				"counters file %s is not text (byte 0x%02x at offset %zu); it should be dcgm-exporter's "
				"CSV: FIELD, type, help",
				path, (unsigned char)b.data[at], at);
		gw_buf_release(&b);
		return rc;
	}
	rc = gw_counters_parse(c, b.data ? b.data : "", path, err);
	gw_buf_release(&b);
	return rc;
}

int gw_counters_default(struct gw_counters *c)
{
	return gw_counters_parse(c, gw_counters_default_csv, "default counters", NULL);
}

static bool lists(const struct gw_counters *c, const char *name, bool label)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->v[i].label == label && strcmp(label ? c->v[i].field : c->v[i].name, name) == 0)
			return true;
	return false;
}

bool gw_counters_has_label(const struct gw_counters *c, const char *name)
{
	return lists(c, name, true);
}

bool gw_counters_has_family(const struct gw_counters *c, const char *name)
{
	return lists(c, name, false);
}
