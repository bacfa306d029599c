/*
 * import.c - `gpuwatch import`: nvidia-smi logs (CSV, the table, -q, dmon,
 * pmon) and OpenMetrics text into the store, told apart by their first
 * lines, with progress on long files and bad lines reported by number. Memory stays
 * the same whatever the file size: lines are read one at a time and the
 * store is flushed every FLUSH_EVERY_SAMPLES (tests/integration/import_large.sh).
 */
#include "cmd/cmd.h"

#include "core/arena.h"
#include "model/labels.h"

#include "ingest/import_om.h"
#include "ingest/import_smi.h"
#include "ingest/import_text.h"
#include "cmd/import_post.h"
#include "store/tsdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * The store's background flusher is off during an import. It flushes every
 * second, and a log is read far faster than the agent samples: what the
 * heads held between two flushes grew with the reading speed (16 B a
 * sample, 40 MiB at 2.6 M samples/s) and, on a slow disk, up to
 * head_max_samples, past which samples were refused. Flushing after this many
 * appended samples bounds it instead: 8 MiB of raw samples, and with the
 * 320 series of an 8-GPU log about 1,600 a series, so most rows written are
 * sealed chunks.
 */
#define FLUSH_EVERY_SAMPLES ((size_t)1 << 19)

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch import [options] FILE...   (- reads standard input)\n\n"
		     "Import what nvidia-smi logs in loops into the store the agent and `gpuwatch query`\n"
		     "read: --query-gpu CSV (any field list, with or without header and units,\n"
		     "'======= $(date) =======' blocks), the default table, -q reports, dmon and pmon\n"
		     "output; or OpenMetrics text. Values become the series /metrics exposes (DCGM_FI_*\n"
		     "and gpuwatch_*).\n\n"
		     "Options:\n"
		     "  --storage.path DIR   the data directory (default data/); a running agent holds it,\n"
		     "                       and an import beside it is refused: stop it, or use --agent\n"
		     "  --agent URL          send the samples to the agent at URL (http://HOST:PORT, one\n"
		     "                       started with --web.enable-import): they land in the store it\n"
		     "                       holds and are queryable at once\n"
		     "  --format auto|csv|table|query|dmon|pmon|openmetrics\n"
		     "                       auto (default) tells them apart by the first lines; csv\n"
		     "                       (or smi) is --query-gpu, query is -q\n"
		     "  --fields LIST        field list of CSV logs written with noheader\n"
		     "  --start TIME         dmon/pmon logs without a Date column: the time of the first\n"
		     "                       sample (-o T: its day); \"2026-12-02 17:58:17\", local time\n"
		     "  --interval SECONDS   dmon/pmon logs without time columns: the -d they ran with\n"
		     "                       (default 1)\n"
		     "  --instance NAME      instance label (default the file name)\n"
		     "  --job NAME           job label (default nvidia-smi-import)\n"
		     "  -q, --quiet          no progress, no per-line reports\n"
		     "  -h, --help           show this help\n\n"
		     "Times without a zone are local time (set TZ for logs from elsewhere).\n");
}

/*
 * Store refs by label bytes. gw_tsdb_series() sorts, copies and prints the
 * labels on every call (three quarters of an import's time went there); a
 * log has a few hundred series, so each is looked up once and then found
 * in a string map by its label bytes. Bounded by the series count
 * (REFS_MAX at most; past that the store is asked every time).
 */
#define REFS_MAX ((size_t)1 << 16)
#define REF_KEY_MAX 4096

/* Labels as name\0value\0...; 0 when they do not fit. */
static size_t ref_key(const struct gw_lpair *l, size_t n, char *key)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t a = strlen(l[i].name) + 1, b = strlen(l[i].value) + 1;
		if (len + a + b > REF_KEY_MAX)
			return 0;
		memcpy(key + len, l[i].name, a);
		memcpy(key + len + a, l[i].value, b);
		len += a + b;
	}
	return len;
}

/*
 * New series one import may create. Each costs the store a head (about
 * 2 KiB while it is open, measured), so a file that makes a series per
 * row, e.g. 20,000 made-up GPU indexes or UUIDs, grew to hundreds of MiB
 * before. 32,768 is 100 hosts' logs of 8 GPUs with 40 fields (320 series
 * each) with room to spare, about 70 MiB of heads; more stops the import
 * with a message, and the files can be imported in smaller groups.
 */
#define SERIES_MAX ((uint64_t)1 << 15)

/* One import: the store, its refs and write cadence (all files), the file being read. */
struct imp {
	struct gw_tsdb *db;          /* the store; NULL with post */
	struct gw_import_post *post; /* --agent: samples go to the agent instead */
	bool quiet;
	struct gw_arena arena; /* the map's slots and keys */
	struct gw_strmap refs; /* label bytes -> store ref */
	size_t unflushed;  /* samples appended since the last flush */
	bool store_failed; /* a flush failed: stop reading */
	const char *file;
	size_t reported;
	uint64_t size;
	uint64_t refused;
	uint64_t nseries;   /* label sets looked up in the store by this import */
	bool too_many;      /* SERIES_MAX reached: checkpoint() stops the import */
	struct timespec started;
};

static int emit(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	struct imp *im = ctx;
	if (im->post) {
		int prc = gw_import_post_add(im->post, l, n, t, v);
		im->unflushed += prc == 0;
		return prc;
	}
	char key[REF_KEY_MAX];
	size_t len = ref_key(l, n, key);
	if (!len) /* over 4 KiB of labels: no GPU series has them, and they could not be counted */
		return GW_EOVERFLOW;
	long known = gw_strmap_get(&im->refs, key, len);
	uint64_t ref = (uint64_t)known;
	int rc = 0;
	if (known < 0) {
		/* a key the map could not keep is counted again: too many, never too few */
		if (++im->nseries > SERIES_MAX) {
			im->too_many = true;
			return GW_EOVERFLOW;
		}
		rc = gw_tsdb_series(im->db, l, n, &ref);
		char *k = rc == 0 && im->refs.count < REFS_MAX ? gw_arena_strndup(&im->arena, key, len) : NULL;
		if (k) /* best effort: a failure only costs speed */
			gw_strmap_get_or_put(&im->refs, k, len, (long)ref);
	}
	if (rc == 0)
		rc = gw_tsdb_append(im->db, ref, t, v);
	if (rc == 0)
		im->unflushed++;
	if (rc == GW_EINVAL) { /* out of order or duplicate time: skip the sample, keep the line */
		im->refused++;
		return 0;
	}
	return rc;
}

static int checkpoint(void *ctx, struct gw_err *err)
{
	struct imp *im = ctx;
	if (im->too_many)
		return gw_err_set(err, GW_EOVERFLOW,
				  "more than %llu new series in one import (a GPU index, UUID or label value per "
				  "row?); import fewer files at a time",
				  (unsigned long long)SERIES_MAX);
	struct gw_err e;
	gw_err_clear(&e);
	if (im->post) { /* posts a body once it is full */
		int prc = gw_import_post_flush(im->post, false, &e);
		if (prc) {
			im->store_failed = true;
			return gw_err_set(err, prc, "%s", e.msg);
		}
		return 0;
	}
	if (im->unflushed < FLUSH_EVERY_SAMPLES)
		return 0;
	int rc = gw_tsdb_flush(im->db, &e);
	if (rc) {
		im->store_failed = true;
		return gw_err_set(err, rc, "writing the store: %s", e.msg);
	}
	im->unflushed = 0;
	return 0;
}

static void on_bad(void *ctx, size_t line, const char *why)
{
	struct imp *im = ctx;
	if (im->quiet || ++im->reported > 20) {
		if (!im->quiet && im->reported == 21)
			fprintf(stderr, "%s: more bad lines; not listing them all\n", im->file);
		return;
	}
	fprintf(stderr, "%s:%zu: %s\n", im->file, line, why);
}

static void on_progress(void *ctx, uint64_t bytes)
{
	struct imp *im = ctx;
	if (im->quiet)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double s = (double)(now.tv_sec - im->started.tv_sec) + (now.tv_nsec - im->started.tv_nsec) / 1e9;
	double rate = s > 0 ? (double)(bytes >> 10) / 1024 / s : 0;
	if (im->size)
		fprintf(stderr, "%s: %.0f%% (%llu MiB, %.1f MiB/s)\n", im->file,
			100.0 * (double)bytes / (double)im->size, (unsigned long long)(bytes >> 20), rate);
	else
		fprintf(stderr, "%s: %llu MiB (%.1f MiB/s)\n", im->file, (unsigned long long)(bytes >> 20),
			rate);
}

/*
 * A file with its first lines read ahead to tell its format, then read
 * from the start: the read-ahead is replayed before the rest, so a pipe
 * works as a file does (nothing is read twice from it).
 */
#define SNIFF_BYTES (16 * 1024)

struct ahead {
	FILE *f;
	char buf[SNIFF_BYTES];
	size_t n, pos;
};

static ssize_t ahead_read(void *c, char *out, size_t size)
{
	struct ahead *a = c;
	if (a->pos < a->n) {
		size_t k = a->n - a->pos < size ? a->n - a->pos : size;
		memcpy(out, a->buf + a->pos, k);
		a->pos += k;
		return (ssize_t)k;
	}
	size_t k = fread(out, 1, size, a->f);
	return k == 0 && ferror(a->f) ? -1 : (ssize_t)k;
}

static int ahead_close(void *c)
{
	free(c);
	return 0;
}

/*
 * Read whole lines from f until gw_import_sniff() decides (or 64 lines,
 * 16 KiB or the end), and give back a stream that reads f from its start.
 * *fmt: what it is; for GW_IMPORT_UNKNOWN *seen says what it looks like.
 */
static FILE *sniff(FILE *f, enum gw_import_format *fmt, const char **seen)
{
	struct ahead *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->f = f;
	*fmt = GW_IMPORT_MORE;
	for (int lines = 0; *fmt == GW_IMPORT_MORE && lines < 64 && a->n + 1 < sizeof(a->buf); lines++) {
		if (!fgets(a->buf + a->n, (int)(sizeof(a->buf) - a->n), f))
			break;
		a->n += strlen(a->buf + a->n);
		*fmt = gw_import_sniff(a->buf, a->n, seen);
	}
	if (*fmt == GW_IMPORT_MORE)
		*fmt = a->n ? GW_IMPORT_UNKNOWN : (*seen = "an empty file", GW_IMPORT_UNKNOWN);
	cookie_io_functions_t io = {.read = ahead_read, .close = ahead_close};
	FILE *s = fopencookie(a, "r", io);
	if (!s)
		free(a);
	return s;
}

typedef int (*import_fn)(FILE *, const struct gw_import_opts *, struct gw_import_stats *, struct gw_err *);

/* Each format's importer, and what its summary calls the lines it passes over. */
static const struct {
	enum gw_import_format f;
	import_fn fn;
	const char *skipped;
} importers[] = {
	{GW_IMPORT_CSV, gw_import_smi, "process lists"},
	{GW_IMPORT_OPENMETRICS, gw_import_om, "comments"},
	{GW_IMPORT_TABLE, gw_import_table, "table headers and MIG devices"},
	{GW_IMPORT_QUERY, gw_import_query, "none in reports"},
	{GW_IMPORT_DMON, gw_import_dmon, "unit lines and comments"},
	{GW_IMPORT_PMON, gw_import_pmon, "unit lines and comments"},
};

/* The command line, read once. */
struct args {
	const char *path, *fields, *instance, *job, *format, *start, *interval, *agent;
	bool path_given, quiet, auto_format;
	enum gw_import_format given; /* --format, when not auto */
	int64_t start_ms, interval_ms;
	int first; /* argv index of the first file */
};

/* Options into a; -1 to go on, or the exit status (help, a bad option). */
static int parse_args(int argc, char **argv, struct args *a)
{
	*a = (struct args){.path = "data", .job = "nvidia-smi-import", .format = "auto", .first = argc};
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char **dst = NULL;
		if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(o, "-q") == 0 || strcmp(o, "--quiet") == 0) {
			a->quiet = true;
			continue;
		} else if (strcmp(o, "--storage.path") == 0) {
			dst = &a->path;
			a->path_given = true;
		} else if (strcmp(o, "--format") == 0) {
			dst = &a->format;
		} else if (strcmp(o, "--fields") == 0) {
			dst = &a->fields;
		} else if (strcmp(o, "--instance") == 0) {
			dst = &a->instance;
		} else if (strcmp(o, "--job") == 0) {
			dst = &a->job;
		} else if (strcmp(o, "--start") == 0) {
			dst = &a->start;
		} else if (strcmp(o, "--interval") == 0) {
			dst = &a->interval;
		} else if (strcmp(o, "--agent") == 0) {
			dst = &a->agent;
		} else if (o[0] == '-' && o[1]) {
			fprintf(stderr, "gpuwatch import: unknown option '%s'; see 'gpuwatch import --help'\n", o);
			return 2;
		} else {
			a->first = i;
			break;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "gpuwatch import: %s needs a value\n", o);
			return 2;
		}
		*dst = argv[++i];
	}
	if (a->first >= argc) {
		usage(stderr);
		return 2;
	}
	if (a->agent && a->path_given) {
		fprintf(stderr, "gpuwatch import: --agent writes to the store the agent holds; drop --storage.path\n");
		return 2;
	}
	a->auto_format = strcmp(a->format, "auto") == 0;
	a->given = gw_import_format_parse(a->format);
	if (!a->auto_format && a->given == GW_IMPORT_UNKNOWN) {
		fprintf(stderr,
			"gpuwatch import: --format is auto, csv, table, query, dmon, pmon or openmetrics, not \"%s\"\n",
			a->format);
		return 2;
	}
	if (a->fields && !a->auto_format && a->given != GW_IMPORT_CSV) {
		fprintf(stderr, "gpuwatch import: --fields is for CSV logs written with noheader\n");
		return 2;
	}
	if (a->start && gw_import_parse_date(a->start, &a->start_ms) != 0) {
		fprintf(stderr, "gpuwatch import: --start \"%s\" is not a date and time (\"2026-12-02 17:58:17\", "
				"RFC 3339 or date's output)\n", a->start);
		return 2;
	}
	if (a->interval) {
		char *end;
		double sec = strtod(a->interval, &end);
		if (end == a->interval || *end || !(sec >= 0.001 && sec <= 86400)) {
			fprintf(stderr, "gpuwatch import: --interval is seconds between samples (0.001 to 86400), not \"%s\"\n",
				a->interval);
			return 2;
		}
		a->interval_ms = (int64_t)(sec * 1000 + 0.5);
	}
	return -1;
}

/* The index of f's importer in importers[], or its length when none reads f. */
static size_t importer_of(enum gw_import_format f)
{
	size_t i = 0;
	while (i < sizeof(importers) / sizeof(importers[0]) && importers[i].f != f)
		i++;
	return i;
}

/* Import one file (already open; "-" is standard input); 0, or 1 with the reason printed. */
static int import_file(struct imp *im, const struct args *a, const char *file, FILE *in, size_t *bad)
{
	im->file = file;
	im->reported = 0;
	im->size = 0;
	im->refused = 0;
	clock_gettime(CLOCK_MONOTONIC, &im->started);
	if (in != stdin && fseek(in, 0, SEEK_END) == 0) {
		long sz = ftell(in);
		im->size = sz > 0 ? (uint64_t)sz : 0;
		rewind(in);
	}
	enum gw_import_format fmt = a->given;
	const char *seen = "";
	FILE *src = in;
	if (a->auto_format && a->fields) {
		fmt = GW_IMPORT_CSV; /* headerless: nothing to tell it by */
	} else if (a->auto_format && !(src = sniff(in, &fmt, &seen))) {
		fprintf(stderr, "gpuwatch import: %s: out of memory\n", file);
		return 1;
	}
	size_t which = importer_of(fmt);
	if (which == sizeof(importers) / sizeof(importers[0])) {
		fprintf(stderr, "gpuwatch import: %s: this looks like %s; %s (--format names one)\n", file, seen,
			GW_IMPORT_ACCEPTED);
		if (src != in)
			fclose(src);
		return 1;
	}
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct gw_import_opts o = {.fields = a->fields, .instance = a->instance ? a->instance : base, .job = a->job,
				   .emit = emit, .ctx = im, .on_bad_line = on_bad, .on_progress = on_progress,
				   .checkpoint = checkpoint, .has_start = a->start != NULL, .start_ms = a->start_ms,
				   .interval_ms = a->interval_ms};
	struct gw_import_stats st;
	struct gw_err err;
	gw_err_clear(&err);
	uint64_t stored0 = 0, refused0 = 0;
	if (im->post)
		gw_import_post_counts(im->post, &stored0, &refused0);
	int r = importers[which].fn(src, &o, &st, &err);
	if (src != in)
		fclose(src);
	if (!r && im->post && (r = gw_import_post_flush(im->post, true, &err)) != 0)
		im->store_failed = true;
	if (im->post) { /* what the agent stored and refused of this file */
		uint64_t stored1, refused1;
		gw_import_post_counts(im->post, &stored1, &refused1);
		im->refused = refused1 - refused0;
		st.samples = (size_t)(stored1 - stored0 + im->refused);
	}
	if (r) {
		fprintf(stderr, "gpuwatch import: %s: %s\n", file, err.msg);
		return 1;
	}
	*bad += st.bad_lines;
	printf("%s: %zu lines, %zu rows, %zu samples imported, %zu bad lines, %zu lines skipped (%s)%s\n", file,
	       st.lines, st.rows, st.samples - (size_t)im->refused, st.bad_lines, st.skipped_lines,
	       importers[which].skipped, im->refused ? ", some samples older than the store's newest were refused" : "");
	return 0;
}

int gw_cmd_import(int argc, char **argv, const struct gw_cli *cli)
{
	struct args a;
	int prc = parse_args(argc, argv, &a);
	if (prc >= 0)
		return prc;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_tsdb *db = NULL;
	struct gw_import_post *post = NULL;
	/* flushed by checkpoint() */
	struct gw_tsdb_opts to = {.path = a.path, .flush_interval_ms = -1, .must_write = true, .holder = "import"};
	int orc = a.agent ? gw_import_post_open(&post, a.agent, &err) : gw_tsdb_open(&db, &to, &err);
	if (orc == GW_EBUSY) {
		/* the agent keeps its own index of the series: rows written beside
		 * it would not show in its queries until it restarts */
		fprintf(stderr,
			"gpuwatch import: %s; stop it or import through it: gpuwatch import --agent "
			"http://HOST:PORT FILE... (the agent started with --web.enable-import); nothing was imported\n",
			err.msg);
		return 1;
	}
	if (orc != 0) {
		fprintf(stderr, "gpuwatch import: %s\n", err.msg);
		return 1;
	}
	int rc = 0;
	size_t total_bad = 0;
	struct imp im = {.db = db, .post = post, .quiet = a.quiet};
	gw_arena_init(&im.arena, (size_t)64 << 20); /* REFS_MAX keys and their slots fit */
	gw_strmap_init(&im.refs, &im.arena);
	for (int i = a.first; i < argc && !im.store_failed && !im.too_many; i++) {
		const char *file = argv[i];
		FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
		if (!in) {
			fprintf(stderr, "gpuwatch import: cannot open %s: %m\n", file);
			rc = 1;
			continue;
		}
		if (import_file(&im, &a, file, in, &total_bad) != 0)
			rc = 1;
		if (in != stdin)
			fclose(in);
	}
	if (db && gw_tsdb_flush(db, &err) != 0) {
		fprintf(stderr, "gpuwatch import: writing the store: %s\n", err.msg);
		rc = 1;
	}
	gw_tsdb_close(db);
	gw_import_post_close(post);
	gw_arena_release(&im.arena);
	if (rc == 0 && total_bad)
		rc = 3; /* imported, with bad lines: a script can tell */
	int out = gw_cli_finish_stdout();
	return rc ? rc : out;
}
