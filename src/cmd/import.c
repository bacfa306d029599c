/*
 * import.c - `gpuwatch import`: nvidia-smi CSV logs into the store, with
 * progress on long files and bad lines reported by number. Memory stays
 * the same whatever the file size: lines are read one at a time and the
 * store is flushed every FLUSH_EVERY_SAMPLES (tests/integration/import_large.sh).
 */
#include "cmd/cmd.h"

#include "core/arena.h"
#include "model/labels.h"

#include "ingest/import_om.h"
#include "ingest/import_smi.h"
#include "store/tsdb.h"

#include <ctype.h>
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
		     "Import nvidia-smi --query-gpu CSV logs (any field list, with or without header and\n"
		     "units, '======= $(date) =======' blocks) into the store the agent and `gpuwatch query`\n"
		     "read. Values become the series /metrics exposes (DCGM_FI_* and gpuwatch_*).\n\n"
		     "Options:\n"
		     "  --storage.path DIR   the data directory (default data/); stop an agent using it first\n"
		     "  --format auto|smi|openmetrics\n"
		     "                       nvidia-smi CSV logs, or OpenMetrics text with time stamps\n"
		     "                       (what `gpuwatch export` writes); auto (default) tells them\n"
		     "                       apart by the first line, and takes a pipe for smi\n"
		     "  --fields LIST        field list of logs written with noheader\n"
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
	struct gw_tsdb *db;
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
	if (im->unflushed < FLUSH_EVERY_SAMPLES)
		return 0;
	struct gw_err e;
	gw_err_clear(&e);
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
 * Whether a file is OpenMetrics text rather than an nvidia-smi log, by its
 * first line that is not blank: a comment ("# TYPE", "# HELP", "# EOF"), a
 * metric name followed by '{', or by a space and a number. nvidia-smi logs
 * start with a header ("timestamp, ..."), a time stamp, a "=====" block
 * line or, without header, a field ("NVIDIA H100 80GB HBM3, ..."). The
 * file is rewound; one that cannot be (a pipe) is taken for a log.
 */
static bool looks_openmetrics(FILE *in)
{
	char line[4096];
	bool om = false;
	long at = ftell(in);
	if (at < 0)
		return false;
	while (fgets(line, sizeof(line), in)) {
		const char *p = line + strspn(line, " \t\r\n");
		if (!*p)
			continue;
		if (*p == '#') {
			om = true;
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == ':') {
			size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
			if (p[n] == '{') {
				om = true;
			} else if (p[n] == ' ') {
				char *end;
				strtod(p + n + 1, &end);
				om = end != p + n + 1 && (*end == ' ' || *end == '\n' || *end == '\r' || !*end);
			}
		}
		break;
	}
	if (fseek(in, at, SEEK_SET) != 0)
		return false;
	return om;
}

int gw_cmd_import(int argc, char **argv, const struct gw_cli *cli)
{
	const char *path = "data", *fields = NULL, *instance = NULL, *job = "nvidia-smi-import", *format = "auto";
	bool quiet = false;
	int first = argc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = true;
			continue;
		} else if (strcmp(a, "--storage.path") == 0) {
			dst = &path;
		} else if (strcmp(a, "--format") == 0) {
			dst = &format;
		} else if (strcmp(a, "--fields") == 0) {
			dst = &fields;
		} else if (strcmp(a, "--instance") == 0) {
			dst = &instance;
		} else if (strcmp(a, "--job") == 0) {
			dst = &job;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gpuwatch import: unknown option '%s'; see 'gpuwatch import --help'\n", a);
			return 2;
		} else {
			first = i;
			break;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "gpuwatch import: %s needs a value\n", a);
			return 2;
		}
		*dst = argv[++i];
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	bool auto_format = strcmp(format, "auto") == 0, om = strcmp(format, "openmetrics") == 0;
	if (!auto_format && !om && strcmp(format, "smi") != 0) {
		fprintf(stderr, "gpuwatch import: --format is auto, smi or openmetrics, not \"%s\"\n", format);
		return 2;
	}
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_tsdb *db = NULL;
	/* flushed by checkpoint() */
	struct gw_tsdb_opts to = {.path = path, .flush_interval_ms = -1, .must_write = true, .holder = "import"};
	int orc = gw_tsdb_open(&db, &to, &err);
	if (orc == GW_EBUSY) {
		/* the agent keeps its own index of the series: rows written beside
		 * it would not show in its queries until it restarts */
		fprintf(stderr,
			"gpuwatch import: %s; stop it and import again (rows written beside it would not show "
			"in its queries until it restarts); nothing was imported\n",
			err.msg);
		return 1;
	}
	if (orc != 0) {
		fprintf(stderr, "gpuwatch import: %s\n", err.msg);
		return 1;
	}
	int rc = 0;
	size_t total_bad = 0;
	struct imp im = {.db = db, .quiet = quiet};
	gw_arena_init(&im.arena, (size_t)64 << 20); /* REFS_MAX keys and their slots fit */
	gw_strmap_init(&im.refs, &im.arena);
	for (int i = first; i < argc && !im.store_failed && !im.too_many; i++) {
		const char *file = argv[i];
		FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
		if (!in) {
			fprintf(stderr, "gpuwatch import: cannot open %s: %m\n", file);
			rc = 1;
			continue;
		}
		im.file = file;
		im.reported = 0;
		im.size = 0;
		im.refused = 0;
		clock_gettime(CLOCK_MONOTONIC, &im.started);
		if (in != stdin && fseek(in, 0, SEEK_END) == 0) {
			long sz = ftell(in);
			im.size = sz > 0 ? (uint64_t)sz : 0;
			rewind(in);
		}
		if (auto_format)
			om = !fields && looks_openmetrics(in);
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		struct gw_import_opts o = {.fields = fields, .instance = instance ? instance : base, .job = job,
					   .emit = emit, .ctx = &im, .on_bad_line = on_bad, .on_progress = on_progress,
					   .checkpoint = checkpoint};
		struct gw_import_stats st;
		gw_err_clear(&err);
		int r = om ? gw_import_om(in, &o, &st, &err) : gw_import_smi(in, &o, &st, &err);
		if (in != stdin)
			fclose(in);
		if (r) {
			fprintf(stderr, "gpuwatch import: %s: %s\n", file, err.msg);
			rc = 1;
			continue;
		}
		total_bad += st.bad_lines;
		printf("%s: %zu lines, %zu rows, %zu samples imported, %zu bad lines, %zu lines skipped "
		       "(%s)%s\n",
		       file, st.lines, st.rows, st.samples - (size_t)im.refused, st.bad_lines, st.skipped_lines,
		       om ? "comments" : "process lists",
		       im.refused ? ", some samples older than the store's newest were refused" : "");
	}
	if (gw_tsdb_flush(db, &err) != 0) {
		fprintf(stderr, "gpuwatch import: writing the store: %s\n", err.msg);
		rc = 1;
	}
	gw_tsdb_close(db);
	gw_arena_release(&im.arena);
	if (rc == 0 && total_bad)
		rc = 3; /* imported, with bad lines: a script can tell */
	int out = gw_cli_finish_stdout();
	return rc ? rc : out;
}
