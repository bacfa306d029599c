/*
 * import.c - `gpuwatch import`: nvidia-smi CSV logs into the store, with
 * progress on long files and bad lines reported by number.
 */
#include "cmd/cmd.h"

#include "store/import_om.h"
#include "store/import_smi.h"
#include "store/tsdb.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch import [options] FILE...   (- reads standard input)\n\n"
		     "Import nvidia-smi --query-gpu CSV logs (any field list, with or without header and\n"
		     "units, '======= $(date) =======' blocks) into the store the agent and `gpuwatch query`\n"
		     "read. Values become the series /metrics exposes (DCGM_FI_* and gpuwatch_*).\n\n"
		     "Options:\n"
		     "  --storage.path DIR   the data directory (default data/); stop an agent using it first\n"
		     "  --format smi|openmetrics\n"
		     "                       nvidia-smi CSV logs (default), or OpenMetrics text with time\n"
		     "                       stamps (what `gpuwatch export` writes)\n"
		     "  --fields LIST        field list of logs written with noheader\n"
		     "  --instance NAME      instance label (default the file name)\n"
		     "  --job NAME           job label (default nvidia-smi-import)\n"
		     "  -q, --quiet          no progress, no per-line reports\n"
		     "  -h, --help           show this help\n\n"
		     "Times without a zone are local time (set TZ for logs from elsewhere).\n");
}

struct imp {
	struct gw_tsdb *db;
	const char *file;
	bool quiet;
	size_t reported;
	uint64_t size;
	uint64_t refused;
};

static int emit(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	struct imp *im = ctx;
	uint64_t ref;
	int rc = gw_tsdb_series(im->db, l, n, &ref);
	if (rc == 0)
		rc = gw_tsdb_append(im->db, ref, t, v);
	if (rc == GW_EINVAL) { /* out of order or duplicate time: skip the sample, keep the line */
		im->refused++;
		return 0;
	}
	return rc;
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
	if (im->size)
		fprintf(stderr, "%s: %.0f%% (%llu MiB)\n", im->file, 100.0 * (double)bytes / (double)im->size,
			(unsigned long long)(bytes >> 20));
	else
		fprintf(stderr, "%s: %llu MiB\n", im->file, (unsigned long long)(bytes >> 20));
}

int gw_cmd_import(int argc, char **argv, const struct gw_cli *cli)
{
	const char *path = "data", *fields = NULL, *instance = NULL, *job = "nvidia-smi-import", *format = "smi";
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
	bool om = strcmp(format, "openmetrics") == 0;
	if (!om && strcmp(format, "smi") != 0) {
		fprintf(stderr, "gpuwatch import: --format is smi or openmetrics, not \"%s\"\n", format);
		return 2;
	}
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_tsdb *db = NULL;
	struct gw_tsdb_opts to = {.path = path};
	if (gw_tsdb_open(&db, &to, &err) != 0) {
		fprintf(stderr, "gpuwatch import: %s\n", err.msg);
		return 1;
	}
	int rc = 0;
	size_t total_bad = 0;
	for (int i = first; i < argc; i++) {
		const char *file = argv[i];
		FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
		if (!in) {
			fprintf(stderr, "gpuwatch import: cannot open %s: %m\n", file);
			rc = 1;
			continue;
		}
		struct imp im = {.db = db, .file = file, .quiet = quiet};
		if (in != stdin && fseek(in, 0, SEEK_END) == 0) {
			long sz = ftell(in);
			im.size = sz > 0 ? (uint64_t)sz : 0;
			rewind(in);
		}
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		struct gw_import_opts o = {.fields = fields, .instance = instance ? instance : base, .job = job,
					   .emit = emit, .ctx = &im, .on_bad_line = on_bad, .on_progress = on_progress};
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
	if (rc == 0 && total_bad)
		rc = 3; /* imported, with bad lines: a script can tell */
	int out = gw_cli_finish_stdout();
	return rc ? rc : out;
}
