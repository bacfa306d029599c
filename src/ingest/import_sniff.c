/*
 * import_sniff.c - which nvidia-smi output (or OpenMetrics text) a file
 * holds, by its first lines, so `gpuwatch import` picks the importer and
 * a file it cannot read gets one message saying what it looks like
 * instead of a report for every line.
 *
 * Loop logs start with what the loop echoes before each run (a
 * "======= date =======" line, a bare date), so those lines are passed
 * over and the first line after them decides.
 */
#include "ingest/import_text.h"

#include "fields/fields.h"

#include <ctype.h>
#include <string.h>

static const struct {
	enum gw_import_format f;
	const char *name;
} names[] = {
	{GW_IMPORT_CSV, "csv"},     {GW_IMPORT_OPENMETRICS, "openmetrics"}, {GW_IMPORT_TABLE, "table"},
	{GW_IMPORT_QUERY, "query"}, {GW_IMPORT_DMON, "dmon"},               {GW_IMPORT_PMON, "pmon"},
};

const char *gw_import_format_name(enum gw_import_format f)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].f == f)
			return names[i].name;
	return "unknown";
}

enum gw_import_format gw_import_format_parse(const char *name)
{
	if (strcmp(name, "smi") == 0) /* the CSV importer's first name */
		return GW_IMPORT_CSV;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].f;
	return GW_IMPORT_UNKNOWN;
}

#define SNIFF_LINES 64

/* Whether the line [p, p+n) holds word as a whole token. */
static bool has_word(const char *p, size_t n, const char *word)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl <= n; i++)
		if (memcmp(p + i, word, wl) == 0 && (i == 0 || !isalnum((unsigned char)p[i - 1])) &&
		    (i + wl == n || !isalnum((unsigned char)p[i + wl])))
			return true;
	return false;
}

static bool starts(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(p, prefix, k) == 0;
}

/* `date` output or an ISO time, alone on a line: what a loop echoes before each run. */
static bool date_line(const char *p, size_t n)
{
	char buf[64];
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	int64_t ms;
	return gw_import_parse_date(buf, &ms) == 0;
}

/* An OpenMetrics sample line: a metric name, then '{' (2) or a space and a number (1); else 0. */
static int om_sample(const char *p, size_t n)
{
	size_t k = 0;
	if (!n || !(isalpha((unsigned char)p[0]) || p[0] == '_' || p[0] == ':'))
		return 0;
	while (k < n && (isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == ':'))
		k++;
	if (k < n && p[k] == '{')
		return 2;
	if (k + 1 >= n || p[k] != ' ')
		return 0;
	k++;
	return isdigit((unsigned char)p[k]) || ((p[k] == '-' || p[k] == '+') && k + 1 < n) || starts(p + k, n - k, "NaN") ||
	       starts(p + k, n - k, "Inf");
}

/*
 * A CSV line that names columns: its first cell (less " [unit]") is a
 * --query-gpu field, or a --query-compute-apps column (the CSV importer
 * passes those blocks over).
 */
static bool csv_header(const char *p, size_t n)
{
	static const char *const apps[] = {"pid", "process_name", "gpu_name", "gpu_bus_id", "gpu_serial",
					   "gpu_uuid", "used_gpu_memory", "used_memory"};
	size_t k = 0;
	while (k < n && p[k] != ',' && p[k] != '[')
		k++;
	while (k > 0 && p[k - 1] == ' ')
		k--;
	char name[128];
	if (!k || k >= sizeof(name))
		return false;
	memcpy(name, p, k);
	name[k] = '\0';
	if (gw_field_find(name))
		return true;
	for (size_t i = 0; i < sizeof(apps) / sizeof(apps[0]); i++)
		if (strcmp(apps[i], name) == 0)
			return true;
	return false;
}

/* The decision on one line that is not a loop's date line; UNKNOWN with *seen set, or -1 to look further. */
static int decide(const char *p, size_t n, const char **seen)
{
	if (starts(p, n, "+--") || starts(p, n, "| NVIDIA-SMI"))
		return GW_IMPORT_TABLE;
	if (starts(p, n, "==============NVSMI LOG") || (starts(p, n, "Timestamp") && memchr(p, ':', n)))
		return GW_IMPORT_QUERY;
	if (p[0] == '#') {
		if (starts(p, n, "# TYPE ") || starts(p, n, "# HELP ") || starts(p, n, "# UNIT ") || starts(p, n, "# EOF"))
			return GW_IMPORT_OPENMETRICS;
		if (has_word(p, n, "gpu") && has_word(p, n, "pid"))
			return GW_IMPORT_PMON;
		if (has_word(p, n, "gpu") || has_word(p, n, "Idx"))
			return GW_IMPORT_DMON;
		return -1; /* a comment of the loop's own */
	}
	if (starts(p, n, "<?xml") || starts(p, n, "<nvidia_smi_log")) {
		*seen = "nvidia-smi -q -x (XML)";
		return GW_IMPORT_UNKNOWN;
	}
	if (p[0] == '{' || p[0] == '[') {
		*seen = "JSON";
		return GW_IMPORT_UNKNOWN;
	}
	if (starts(p, n, "GPU ") && memmem(p, n, "(UUID:", 6)) {
		*seen = "nvidia-smi -L output";
		return GW_IMPORT_UNKNOWN;
	}
	if (starts(p, n, "GPU ") && n > 4 && isdigit((unsigned char)p[4]) && !memchr(p, ',', n)) {
		*seen = "nvidia-smi nvlink or topo output";
		return GW_IMPORT_UNKNOWN;
	}
	/* name{labels} never starts a CSV line; "name value" has no commas */
	int om = om_sample(p, n);
	if (om == 2 || (om == 1 && !memchr(p, ',', n)))
		return GW_IMPORT_OPENMETRICS;
	if (memchr(p, ',', n))
		return csv_header(p, n) ? GW_IMPORT_CSV : (*seen = "CSV values without a header line (logged with "
								    "--format=csv,noheader?): give --fields",
							    GW_IMPORT_UNKNOWN);
	if (memchr(p, '\0', n)) {
		*seen = "binary data";
		return GW_IMPORT_UNKNOWN;
	}
	*seen = "text without commas, table borders or a report's 'Key : value' lines";
	return GW_IMPORT_UNKNOWN;
}

enum gw_import_format gw_import_sniff(const char *head, size_t n, const char **seen)
{
	*seen = "an empty file";
	const char *p = head, *end = head + n;
	for (int lines = 0; p < end && lines < SNIFF_LINES; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *s = p;
		p = nl ? nl + 1 : end;
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		const char *e = le;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		size_t len = (size_t)(e - s);
		if (!len)
			continue;
		if (starts(s, len, "=====") && !starts(s, len, "==============NVSMI LOG")) {
			*seen = "only '=====' lines";
			continue; /* the loop's block line: the date of what follows */
		}
		if (date_line(s, len)) {
			*seen = "only date lines";
			continue;
		}
		int d = decide(s, len, seen);
		if (d >= 0)
			return (enum gw_import_format)d;
	}
	return n ? GW_IMPORT_MORE : GW_IMPORT_UNKNOWN;
}
