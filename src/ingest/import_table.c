/*
 * import_table.c - loops of nvidia-smi's default table (import_text.h).
 *
 * Each table opens with nvidia-smi's date line ("Tue Jul 14 08:12:38
 * 2026", local time), which times it; a loop's own "===== date ====="
 * lines do too. Under the GPU header (the one with "Persistence-M") each
 * GPU takes two lines of three '|' cells:
 *
 *   |   0  NVIDIA H100 80GB HBM3          On  |   00000000:00:09.0 Off |                    0 |
 *   | N/A   41C    P0             69W /  700W |       0MiB /  81559MiB |      0%      Default |
 *
 * index, name (nvidia-smi cuts long ones to "NVIDIA GeForce RTX 2080 ...",
 * and so does the model label), bus id and volatile uncorrected ECC
 * errors; then fan, temperature, performance state, power draw and cap,
 * memory used and total, GPU utilisation. The processes table below gives
 * each process's memory (gpuwatch_process_memory_used_bytes, as the agent
 * has it); the MIG devices table is passed over (counted as skipped lines).
 */
#include "ingest/import_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 8
#define TOKS 16

enum section { S_NONE, S_GPU_HEADER, S_GPUS, S_PROCS_HEADER, S_PROCS, S_OTHER };

struct table {
	struct ingest in;
	int64_t t; /* the current table's date, or INT64_MIN */
	enum section sec;
	bool have_first; /* a GPU's first line read, its second expected */
	char index[16], bus[64], model[128], ecc[32];
	bool warned_no_time;
};

/* Split "| a | b | c |" into trimmed cells a, b, c (modifies l). */
static size_t cells(char *l, char **c, size_t max)
{
	size_t n = 0;
	char *start = strchr(l, '|');
	if (!start)
		return 0;
	start++;
	while (n < max) {
		char *bar = strchr(start, '|');
		if (!bar)
			break;
		*bar = '\0';
		c[n++] = ingest_trim(start);
		start = bar + 1;
	}
	return n;
}

static void put(struct table *tb, const char *field, const char *text, const struct gw_series_gpu *g, bool *bad)
{
	if (*bad || strcmp(text, "N/A") == 0 || strcmp(text, "-") == 0)
		return;
	int rc = ingest_value(&tb->in, field, text, g, tb->t);
	if (rc == GW_EPARSE) {
		ingest_bad(&tb->in, "\"%.40s\" is not a value of %s", text, field);
		*bad = true;
	} else if (rc) {
		ingest_bad(&tb->in, "the store refused a sample");
		*bad = true;
	}
}

/* "41C" -> "41" (the temperature cell carries its unit without a space; --query-gpu prints none). */
static const char *degrees(char *s)
{
	size_t n = strlen(s);
	if (n > 1 && s[n - 1] == 'C' && isdigit((unsigned char)s[n - 2]))
		s[n - 1] = '\0';
	return s;
}

static void first_line(struct table *tb, char **c)
{
	char *tok[TOKS];
	size_t n = ingest_tokens(c[0], tok, TOKS, false);
	tb->have_first = true;
	snprintf(tb->index, sizeof(tb->index), "%s", tok[0]);
	/* the name is what lies between the index and the persistence mode */
	size_t len = 0;
	tb->model[0] = '\0';
	for (size_t i = 1; i + 1 < n; i++)
		len += (size_t)snprintf(tb->model + len, sizeof(tb->model) - len, "%s%s", i > 1 ? " " : "", tok[i]);
	char *bt[TOKS];
	size_t nb = ingest_tokens(c[1], bt, TOKS, false);
	snprintf(tb->bus, sizeof(tb->bus), "%s", nb ? bt[0] : "");
	snprintf(tb->ecc, sizeof(tb->ecc), "%s", c[2]);
}

static void second_line(struct table *tb, char **c)
{
	char *a[TOKS], *b[TOKS], *u[TOKS];
	size_t na = ingest_tokens(c[0], a, TOKS, false), nb = ingest_tokens(c[1], b, TOKS, false),
	       nu = ingest_tokens(c[2], u, TOKS, false);
	tb->have_first = false;
	/* Fan Temp Perf Pwr / Cap | Used / Total | Util Compute */
	if (na != 6 || strcmp(a[4], "/") != 0 || nb != 3 || strcmp(b[1], "/") != 0 || nu < 1) {
		ingest_bad(&tb->in, "not a GPU's second line (Fan Temp Perf Pwr:Usage/Cap | Memory-Usage | GPU-Util)");
		return;
	}
	if (tb->t == INT64_MIN) {
		if (!tb->warned_no_time)
			ingest_bad(&tb->in, "a GPU before any date line: log `date` or keep nvidia-smi's own date line");
		tb->warned_no_time = true;
		return;
	}
	struct gw_series_gpu g = {.index = tb->index, .uuid = "", .bus_id = tb->bus, .model = tb->model,
				  .hostname = tb->in.o->instance};
	bool bad = false;
	put(tb, "fan.speed", a[0], &g, &bad);
	put(tb, "temperature.gpu", degrees(a[1]), &g, &bad);
	put(tb, "pstate", a[2], &g, &bad);
	put(tb, "power.draw", a[3], &g, &bad);
	put(tb, "enforced.power.limit", a[5], &g, &bad);
	put(tb, "memory.used", b[0], &g, &bad);
	put(tb, "memory.total", b[2], &g, &bad);
	put(tb, "utilization.gpu", u[0], &g, &bad);
	if (isdigit((unsigned char)tb->ecc[0]))
		put(tb, "ecc.errors.uncorrected.volatile.total", tb->ecc, &g, &bad);
	if (!bad)
		tb->in.st->rows++;
}

/*
 * A row of the processes table: GPU, GI, CI, PID, Type, Process name (may
 * hold spaces), GPU Memory Usage ("2566MiB" or "N/A"), as the agent's
 * gpuwatch_process_memory_used_bytes. "No running processes found" and
 * rows without a memory figure are passed over.
 */
static void process_line(struct table *tb, char *s)
{
	char *c[CELLS], *tok[TOKS];
	size_t n = cells(s, c, CELLS), nt = n == 1 ? ingest_tokens(c[0], tok, TOKS, false) : 0;
	size_t digits = nt ? strspn(tok[0], "0123456789") : 0;
	if (nt < 7 || !digits || tok[0][digits] || strspn(tok[3], "0123456789") != strlen(tok[3])) {
		tb->in.st->skipped_lines++;
		return;
	}
	char *mem = tok[nt - 1];
	size_t ml = strlen(mem);
	if (ml < 4 || strcmp(mem + ml - 3, "MiB") != 0) {
		tb->in.st->skipped_lines++;
		return;
	}
	char *end;
	double mib = strtod(mem, &end);
	if (end != mem + ml - 3 || mib < 0) {
		ingest_bad(&tb->in, "\"%.40s\" is not a process's memory", mem);
		return;
	}
	if (tb->t == INT64_MIN)
		return; /* the GPU lines have said so */
	char name[256];
	size_t len = 0;
	name[0] = '\0';
	for (size_t i = 5; i + 1 < nt; i++)
		len += (size_t)snprintf(name + len, sizeof(name) - len, "%s%s", i > 5 ? " " : "", tok[i]);
	const char *slash = strrchr(name, '/');
	struct gw_lpair pl[4] = {{"gpu", tok[0]}, {"pid", tok[3]}, {"process", slash ? slash + 1 : name}, {"type", tok[4]}};
	if (ingest_sample(&tb->in, "gpuwatch_process_memory_used_bytes", pl, 4, tb->t, mib * 1048576.0) != 0)
		ingest_bad(&tb->in, "the store refused a sample");
}

static void line(void *ctx, char *l)
{
	struct table *tb = ctx;
	char *s = ingest_trim(l);
	if (!*s) {
		tb->sec = S_NONE;
		tb->have_first = false;
		return;
	}
	if (s[0] == '+')
		return; /* a border */
	if (s[0] != '|') {
		char *d = s;
		if (strncmp(s, "=====", 5) == 0) {
			d = s + strspn(s, "= ");
			char *e = d + strlen(d);
			while (e > d && (e[-1] == '=' || e[-1] == ' '))
				*--e = '\0';
		}
		if (gw_import_parse_date(d, &tb->t) != 0) {
			tb->t = INT64_MIN;
			ingest_bad(&tb->in, "neither a table line nor a date line");
		}
		tb->sec = S_NONE;
		tb->have_first = false;
		return;
	}
	if (strstr(s, "Persistence-M")) {
		tb->sec = S_GPU_HEADER;
		return;
	}
	if (strncmp(s, "|==", 3) == 0) {
		if (tb->sec == S_OTHER)
			tb->in.st->skipped_lines++;
		tb->sec = tb->sec == S_GPU_HEADER ? S_GPUS : tb->sec == S_PROCS_HEADER ? S_PROCS : S_OTHER;
		return;
	}
	if (tb->sec == S_PROCS) {
		process_line(tb, s);
		return;
	}
	if (tb->sec != S_GPUS) {
		if (strstr(s, "MIG devices:"))
			tb->sec = S_OTHER; /* to the next blank line */
		else if (strstr(s, "Processes:"))
			tb->sec = S_PROCS_HEADER;
		if (tb->sec == S_OTHER || tb->sec == S_PROCS_HEADER)
			tb->in.st->skipped_lines++;
		return;
	}
	char *c[CELLS];
	size_t n = cells(s, c, CELLS);
	if (n != 3) {
		ingest_bad(&tb->in, "%zu cells where a GPU's line has 3", n);
		tb->have_first = false;
		return;
	}
	if (!*c[0])
		return; /* the third line of a GPU: MIG mode */
	size_t digits = strspn(c[0], "0123456789");
	if (!tb->have_first && digits > 0 && digits <= 4 && c[0][digits] == ' ' && atoi(c[0]) < 1024)
		first_line(tb, c);
	else if (tb->have_first)
		second_line(tb, c);
	else
		ingest_bad(&tb->in, "a GPU line without the GPU index line before it");
}

int gw_import_table(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err)
{
	memset(st, 0, sizeof(*st));
	struct table *tb = calloc(1, sizeof(*tb));
	if (!tb)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	tb->in = (struct ingest){.o = o, .st = st};
	tb->t = INT64_MIN;
	int rc = ingest_lines(in, &tb->in, line, tb, err);
	free(tb);
	return rc;
}
