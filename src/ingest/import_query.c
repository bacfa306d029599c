/*
 * import_query.c - loops of `nvidia-smi -q` reports (import_text.h).
 *
 * A report is "Key : value" lines nested by indentation under section
 * lines ("FB Memory Usage", "Temperature"), with a "GPU 00000000:00:09.0"
 * line at the top level opening each GPU and a top-level "Timestamp"
 * line timing the report. A value is found by its path, the enclosing
 * sections and the key joined by '/', in one table of the paths that are
 * --query-gpu fields; everything else in a report (identity texts, modes,
 * event reasons) is passed over. Values are read as --query-gpu prints
 * them ("41 C" is the number and its unit); a mapped key whose value is
 * words ("N/A", "Requested functionality has been deprecated") is not
 * available, as in the CSV, and is skipped.
 */
#include "ingest/import_int.h"

#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 8
#define NAME_MAX_Q 64

/* Paths of a report to the --query-gpu field they print. */
static const struct {
	const char *path, *field;
} qmap[] = {
	{"Fan Speed", "fan.speed"},
	{"Performance State", "pstate"},
	{"FB Memory Usage/Total", "memory.total"},
	{"FB Memory Usage/Reserved", "memory.reserved"},
	{"FB Memory Usage/Used", "memory.used"},
	{"FB Memory Usage/Free", "memory.free"},
	{"BAR1 Memory Usage/Total", "bar1.total"},
	{"BAR1 Memory Usage/Used", "bar1.used"},
	{"BAR1 Memory Usage/Free", "bar1.free"},
	{"Utilization/GPU", "utilization.gpu"},
	{"Utilization/Gpu", "utilization.gpu"}, /* older drivers */
	{"Utilization/Memory", "utilization.memory"},
	{"Utilization/Encoder", "utilization.encoder"},
	{"Utilization/Decoder", "utilization.decoder"},
	{"Utilization/JPEG", "utilization.jpeg"},
	{"Utilization/OFA", "utilization.ofa"},
	{"Temperature/GPU Current Temp", "temperature.gpu"},
	{"Temperature/Memory Current Temp", "temperature.memory"},
	{"GPU Power Readings/Power Draw", "power.draw"},
	{"Power Readings/Power Draw", "power.draw"}, /* drivers before 530 */
	{"GPU Power Readings/Average Power Draw", "power.draw.average"},
	{"GPU Power Readings/Instantaneous Power Draw", "power.draw.instant"},
	{"GPU Power Readings/Current Power Limit", "enforced.power.limit"},
	{"GPU Power Readings/Requested Power Limit", "power.limit"},
	{"GPU Power Readings/Default Power Limit", "power.default_limit"},
	{"GPU Power Readings/Min Power Limit", "power.min_limit"},
	{"GPU Power Readings/Max Power Limit", "power.max_limit"},
	{"Power Readings/Enforced Power Limit", "enforced.power.limit"},
	{"Power Readings/Power Limit", "power.limit"},
	{"Clocks/Graphics", "clocks.current.graphics"},
	{"Clocks/SM", "clocks.current.sm"},
	{"Clocks/Memory", "clocks.current.memory"},
	{"Clocks/Video", "clocks.current.video"},
	{"Max Clocks/Graphics", "clocks.max.graphics"},
	{"Max Clocks/SM", "clocks.max.sm"},
	{"Max Clocks/Memory", "clocks.max.memory"},
	{"PCI/Tx Throughput", "pcie.tx_throughput"},
	{"PCI/Rx Throughput", "pcie.rx_throughput"},
	{"PCI/Replays Since Reset", "pcie.replay_counter"},
	{"Remapped Rows/Correctable Error", "remapped_rows.correctable"},
	{"Remapped Rows/Uncorrectable Error", "remapped_rows.uncorrectable"},
};

struct q {
	struct ingest in;
	int64_t t;            /* the report's Timestamp, or INT64_MIN */
	bool in_gpu;
	int gpus;             /* GPUs opened in this report */
	char index[16];
	char bus[64], uuid[96], model[128];
	bool power_draw;      /* power.draw given for this GPU */
	bool warned_no_time;  /* one report of values before any Timestamp */
	int depth;
	int indent[DEPTH_MAX];
	char section[DEPTH_MAX][NAME_MAX_Q];
};

static int count_indent(const char *l)
{
	int n = 0;
	while (l[n] == ' ')
		n++;
	return n;
}

static void new_report(struct q *q)
{
	q->in_gpu = false;
	q->gpus = 0;
	q->depth = 0;
}

/* What a report prints for a value it does not have. */
static bool not_available(const char *text)
{
	static const char *const na[] = {"N/A", "Not Supported", "Not Available", "Unknown Error",
					 "Insufficient Permissions", "Requested functionality has been deprecated"};
	if (!*text || text[0] == '[')
		return true;
	for (size_t i = 0; i < sizeof(na) / sizeof(na[0]); i++)
		if (strcmp(text, na[i]) == 0)
			return true;
	return false;
}

/* A value of a mapped key: its number and unit (1 when emitted), or a text meaning "not available" (0). */
static int value(struct q *q, const char *field, char *text)
{
	if (not_available(text))
		return 0;
	if (q->t == INT64_MIN) {
		if (!q->warned_no_time)
			ingest_bad(&q->in, "values before any 'Timestamp' line: nothing to time them by");
		q->warned_no_time = true;
		return 0;
	}
	/* "41 C", "345 MHz", "352 KB/s", "2560 bank(s)": the number, then the unit --query-gpu prints */
	char num[64];
	size_t k = strcspn(text, " ");
	snprintf(num, sizeof(num), "%.*s", (int)(k < sizeof(num) - 1 ? k : sizeof(num) - 1), text);
	struct gw_series_gpu g = {.index = q->index, .uuid = q->uuid, .bus_id = q->bus, .model = q->model,
				  .hostname = q->in.o->instance};
	int rc = ingest_value(&q->in, field, num, &g, q->t);
	if (rc == GW_EPARSE)
		ingest_bad(&q->in, "\"%.40s\" is not a value of %s", text, field);
	else if (rc)
		ingest_bad(&q->in, "the store refused a sample");
	return rc == 0;
}

static void key_value(struct q *q, char *key, char *val)
{
	if (q->depth == 0 && strcmp(key, "Timestamp") == 0) {
		new_report(q);
		if (gw_import_parse_date(val, &q->t) != 0) {
			q->t = INT64_MIN;
			ingest_bad(&q->in, "cannot read the report's Timestamp \"%.40s\"", val);
		}
		return;
	}
	if (!q->in_gpu)
		return;
	if (q->depth == 0 && strcmp(key, "Product Name") == 0) {
		snprintf(q->model, sizeof(q->model), "%s", val);
		return;
	}
	if (q->depth == 0 && strcmp(key, "GPU UUID") == 0) {
		snprintf(q->uuid, sizeof(q->uuid), "%s", val);
		return;
	}
	char path[DEPTH_MAX * NAME_MAX_Q + NAME_MAX_Q];
	size_t len = 0;
	for (int i = 0; i < q->depth; i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s/", q->section[i]);
	snprintf(path + len, sizeof(path) - len, "%s", key);
	for (size_t i = 0; i < sizeof(qmap) / sizeof(qmap[0]); i++) {
		if (strcmp(qmap[i].path, path) != 0)
			continue;
		int took = value(q, qmap[i].field, val);
		if (took && strcmp(qmap[i].field, "power.draw") == 0)
			q->power_draw = true;
		/* Drivers from 530 on print no "Power Draw": --query-gpu's power.draw
		 * is the average where there is one, else the instantaneous draw. */
		if (took && !q->power_draw && (strcmp(qmap[i].field, "power.draw.average") == 0 ||
					       strcmp(qmap[i].field, "power.draw.instant") == 0)) {
			value(q, "power.draw", val);
			q->power_draw = true;
		}
	}
}

static void line(void *ctx, char *l)
{
	struct q *q = ctx;
	int ind = count_indent(l);
	char *s = ingest_trim(l);
	if (!*s)
		return;
	if (strncmp(s, "=====", 5) == 0) {
		/* the report's own "==============NVSMI LOG==============", or a loop's "===== date =====" */
		new_report(q);
		return;
	}
	while (q->depth > 0 && ind <= q->indent[q->depth - 1])
		q->depth--;
	char *colon = strstr(s, " : ");
	size_t sep = 3;
	if (!colon && s[strlen(s) - 1] == ':' && strchr(s, ' ') && strchr(s, ':') == s + strlen(s) - 1) {
		colon = s + strlen(s) - 1; /* "Key :" with an empty value */
		sep = 1;
	}
	if (!colon) {
		if (ind == 0 && strncmp(s, "GPU ", 4) == 0) {
			/* "GPU 00000000:00:09.0": the next GPU of this report */
			q->in_gpu = true;
			q->depth = 0;
			snprintf(q->index, sizeof(q->index), "%d", q->gpus++);
			snprintf(q->bus, sizeof(q->bus), "%s", s + 4);
			q->uuid[0] = q->model[0] = '\0';
			q->power_draw = false;
			q->in.st->rows++; /* a row is a GPU's report */
			return;
		}
		/* a section: its keys are indented under it */
		if (ind > 0 && q->depth < DEPTH_MAX) {
			q->indent[q->depth] = ind;
			snprintf(q->section[q->depth++], NAME_MAX_Q, "%s", s);
		} else if (ind > 0) {
			ingest_bad(&q->in, "sections nested deeper than %d", DEPTH_MAX);
		} else if (q->in_gpu || q->t != INT64_MIN) {
			ingest_bad(&q->in, "not a 'Key : value' line of an nvidia-smi -q report");
		}
		return;
	}
	*colon = '\0';
	char *key = ingest_trim(s), *val = ingest_trim(colon + sep);
	/* a GPU's keys are indented (4 spaces); one at the margin belongs to the report again */
	if (ind == 0)
		q->in_gpu = false;
	key_value(q, key, val);
}

int gw_import_query(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err)
{
	memset(st, 0, sizeof(*st));
	struct q *q = calloc(1, sizeof(*q));
	if (!q)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	q->in = (struct ingest){.o = o, .st = st};
	q->t = INT64_MIN;
	int rc = ingest_lines(in, &q->in, line, q, err);
	free(q);
	return rc;
}
