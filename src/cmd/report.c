/*
 * report.c - `gpuwatch report`: a time range of GPU history turned into
 * statistics, charts and findings (src/analysis/report.h), read from the
 * store, or from nvidia-smi logs given on the command line, which are
 * imported into memory with the importers `gpuwatch import` uses.
 */
#include "cmd/cmd.h"
#include "cmd/report_png.h"
#include "cmd/report_url.h"

#include "analysis/anomaly_report.h"
#include "analysis/report.h"
#include "api/prom_api.h"
#include "ingest/import_om.h"
#include "ingest/import_smi.h"
#include "ingest/import_text.h"
#include "store/memstore.h"
#include "store/tsdb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuwatch report [options] [LOG...]\n\n"
		"Turn a time range of GPU history into statistics, charts and findings (idle but\n"
		"allocated, input bound, unstable, synchronised stalls, imbalance, memory pressure\n"
		"and leaks, PCIe bound, thermal and power throttling, hardware errors), each with\n"
		"its GPUs, time range, evidence and advice. See docs/REPORT.md.\n\n"
		"Reads the store (--storage.path), an agent's query API (--url), or nvidia-smi\n"
		"logs given as LOG (--query-gpu CSV, with or without `date` block headers, -q\n"
		"reports, the default table, dmon, pmon; - reads standard input), imported into\n"
		"memory.\n\n"
		"Options:\n"
		"  --storage.path DIR     the data directory (default data/)\n"
		"  --url URL              a running agent (or a Prometheus) instead: http://HOST:9400,\n"
		"                         read through its query API\n"
		"  --from T, --to T       the range (RFC 3339 or Unix seconds); default: the last hour\n"
		"                         of the store's data, or the whole of the logs\n"
		"  --job ID               the report of one HPC job (--hpc-job-mapping-dir): only the\n"
		"                         GPUs it held, over the time it held them, found in --from/--to\n"
		"                         (default: the whole store, or the agent's last 7 days)\n"
		"  --format F             text, md, json or html (default: from -o's extension, else text)\n"
		"  -o, --output FILE      write the report to FILE instead of standard output\n"
		"  --png DIR              also draw the charts as PNG files in DIR (made if missing):\n"
		"                         utilisation, memory, power and temperature.png, listed in\n"
		"                         the report; needs cairo (this build: %s)\n"
		"  --price-per-kwh P      price of a kWh, for the energy's cost\n"
		"  --currency C           the price's currency, as printed (e.g. EUR)\n"
		"  --start TIME           dmon/pmon logs without a Date column: the time of the first\n"
		"                         sample (with -o T, its day), as for gpuwatch import\n"
		"  --interval SECONDS     dmon/pmon logs without time columns: the -d they ran with\n"
		"  -h, --help             show this help\n\n"
		"Exit status: 0 report written, 1 no data in the range or an unreadable input,\n"
		"2 bad arguments (--png in a build without PNG support too).\n",
		gw_chart_png_built() ? "with PNG support" : "without PNG support");
}

struct args {
	const char *path, *url, *from, *to, *job, *format, *output, *price, *currency, *start, *interval,
	    *png;
	const char *sensitivity; /* gpuwatch anomalies */
	bool anomalies;		 /* gpuwatch anomalies: its list, not the report */
	bool has_start;
	double sens;
	int64_t start_ms, interval_ms;
	const char **logs;
	size_t nlogs;
};

static void usage_anomalies(FILE *out);

/* The command's name for messages: report and anomalies share this file's reading and errors. */
static const char *me(const struct args *a)
{
	return a->anomalies ? "anomalies" : "report";
}

static int parse_args(int argc, char **argv, struct args *a, bool anomalies)
{
	*a = (struct args){.path = "data", .currency = "", .anomalies = anomalies};
	a->logs = calloc((size_t)argc, sizeof(char *));
	if (!a->logs)
		return 1;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		const char **dst = NULL;
		if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			if (anomalies)
				usage_anomalies(stdout);
			else
				usage(stdout);
			return 0;
		} else if (strcmp(s, "--storage.path") == 0) {
			dst = &a->path;
		} else if (strcmp(s, "--url") == 0) {
			dst = &a->url;
		} else if (strcmp(s, "--start") == 0) {
			dst = &a->start;
		} else if (strcmp(s, "--interval") == 0) {
			dst = &a->interval;
		} else if (strcmp(s, "--from") == 0) {
			dst = &a->from;
		} else if (strcmp(s, "--to") == 0) {
			dst = &a->to;
		} else if (strcmp(s, "--format") == 0) {
			dst = &a->format;
		} else if (strcmp(s, "--job") == 0) {
			dst = &a->job;
		} else if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) {
			dst = &a->output;
		} else if (strcmp(s, "--price-per-kwh") == 0) {
			dst = &a->price;
		} else if (strcmp(s, "--currency") == 0) {
			dst = &a->currency;
		} else if (!a->anomalies && strcmp(s, "--png") == 0) {
			dst = &a->png;
		} else if (a->anomalies && strcmp(s, "--sensitivity") == 0) {
			dst = &a->sensitivity;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "gpuwatch %s: unknown option '%s'; see 'gpuwatch %s --help'\n", me(a),
				s, me(a));
			return 2;
		} else {
			a->logs[a->nlogs++] = s;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "gpuwatch %s: %s needs a value\n", me(a), s);
			return 2;
		}
		*dst = argv[++i];
	}
	return -1;
}

/* The format: --format, else -o's extension, else text. */
static int pick_format(const struct args *a, enum gw_report_format *f)
{
	*f = GW_REPORT_TEXT;
	if (a->format) {
		if (gw_report_format_parse(a->format, f) == 0)
			return 0;
		fprintf(stderr, "gpuwatch %s: --format %s: not a format (text, md, json, html)\n", me(a),
			a->format);
		return 2;
	}
	const char *dot = a->output ? strrchr(a->output, '.') : NULL;
	if (dot && gw_report_format_parse(dot + 1, f) != 0)
		*f = strcmp(dot + 1, "htm") == 0 ? GW_REPORT_HTML : GW_REPORT_TEXT;
	return 0;
}

/* --- logs into a memstore --- */

struct sink {
	struct gw_memstore *m;
	const char *file;
	size_t bad;
};

static int emit(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	struct sink *s = ctx;
	long id = gw_memstore_series(s->m, l, n);
	if (id < 0)
		return (int)id;
	int rc = gw_memstore_append(s->m, id, t, v);
	return rc == GW_EINVAL ? 0 : rc; /* out of order: the sample is skipped, as import does */
}

static void on_bad(void *ctx, size_t line, const char *why)
{
	struct sink *s = ctx;
	if (++s->bad <= 5)
		fprintf(stderr, "%s:%zu: %s (skipped)\n", s->file, line, why);
}

typedef int (*import_fn)(FILE *, const struct gw_import_opts *, struct gw_import_stats *, struct gw_err *);

static const struct {
	enum gw_import_format f;
	import_fn fn;
} importers[] = {
    {GW_IMPORT_CSV, gw_import_smi},	{GW_IMPORT_OPENMETRICS, gw_import_om},
    {GW_IMPORT_TABLE, gw_import_table}, {GW_IMPORT_QUERY, gw_import_query},
    {GW_IMPORT_DMON, gw_import_dmon},	{GW_IMPORT_PMON, gw_import_pmon},
};

/* A stream of the whole input that can be read twice: a file, or standard input read into memory. */
static FILE *open_log(const char *name, char **mem)
{
	*mem = NULL;
	if (strcmp(name, "-") != 0)
		return fopen(name, "r");
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			if (cap > (size_t)1 << 31) {
				errno = EFBIG;
				return NULL;
			}
			char *p = realloc(*mem, cap);
			if (!p)
				return NULL;
			*mem = p;
		}
		size_t k = fread(*mem + len, 1, cap - len, stdin);
		len += k;
		if (k == 0)
			break;
	}
	return len ? fmemopen(*mem, len, "r") : (errno = ENODATA, NULL);
}

static int import_log(struct gw_memstore *m, const char *name, const struct args *a)
{
	char *mem;
	FILE *f = open_log(name, &mem);
	if (!f) {
		fprintf(stderr, "gpuwatch %s: %s: %s\n", me(a), name,
			errno == ENODATA ? "empty input" : strerror(errno));
		free(mem);
		return 1;
	}
	char head[16384];
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	const char *nl = n ? memrchr(head, '\n', n) : NULL;
	if (nl && n == sizeof(head) - 1) /* whole lines only, as import reads ahead */
		n = (size_t)(nl - head) + 1;
	head[n] = 0;
	const char *seen = "nothing it knows";
	enum gw_import_format fmt = n ? gw_import_sniff(head, n, &seen) : GW_IMPORT_UNKNOWN;
	import_fn fn = NULL;
	for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]); i++)
		if (importers[i].f == fmt)
			fn = importers[i].fn;
	int rc = 1;
	if (!fn) {
		fprintf(stderr,
			"gpuwatch %s: %s: this looks like %s; gpuwatch reads nvidia-smi --query-gpu CSV "
			"logs, "
			"-q reports, the default table, dmon and pmon logs\n",
			me(a), name, n ? seen : "an empty file");
	} else if (fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "gpuwatch %s: %s: cannot read it twice: %s\n", me(a), name, strerror(errno));
	} else {
		const char *base = strrchr(name, '/');
		struct sink s = {.m = m, .file = name};
		struct gw_import_opts o = {.instance = base ? base + 1 : name,
					   .job = "nvidia-smi-import",
					   .emit = emit,
					   .ctx = &s,
					   .on_bad_line = on_bad,
					   .has_start = a->has_start,
					   .start_ms = a->start_ms,
					   .interval_ms = a->interval_ms};
		struct gw_import_stats st = {0};
		struct gw_err err;
		gw_err_clear(&err);
		rc = fn(f, &o, &st, &err) ? 1 : 0;
		if (rc)
			fprintf(stderr, "gpuwatch %s: %s: %s\n", me(a), name,
				err.msg[0] ? err.msg : "cannot read it");
		else if (s.bad)
			fprintf(stderr, "gpuwatch %s: %s: %zu bad lines skipped\n", me(a), name, s.bad);
		if (!rc && !st.samples) {
			fprintf(stderr, "gpuwatch %s: %s: no samples in it\n", me(a), name);
			rc = 1;
		}
	}
	fclose(f);
	free(mem);
	return rc;
}

static int write_out(const struct args *a, const struct gw_buf *b)
{
	if (!a->output) {
		fwrite(b->data ? b->data : "", 1, b->len, stdout);
		return gw_cli_finish_stdout() ? 1 : 0;
	}
	FILE *f = fopen(a->output, "w");
	if (!f) {
		fprintf(stderr, "gpuwatch %s: -o %s: %s\n", me(a), a->output, strerror(errno));
		return 1;
	}
	size_t k = fwrite(b->data ? b->data : "", 1, b->len, f);
	int werr = k != b->len || ferror(f);
	if (fclose(f) != 0 || werr) {
		fprintf(stderr, "gpuwatch %s: writing %s: %s\n", me(a), a->output, strerror(errno));
		return 1;
	}
	return 0;
}

static void free_refs(struct gw_report_gpu_ref *refs, size_t n)
{
	for (size_t i = 0; refs && i < n; i++) {
		free((char *)refs[i].instance);
		free((char *)refs[i].index);
	}
	free(refs);
}

/* The job named id in r, or NULL. */
static const struct gw_report_job *job_of(const struct gw_report *r, const char *id)
{
	for (size_t i = 0; i < r->njobs; i++)
		if (strcmp(r->job[i].id, id) == 0 && r->job[i].ngpus)
			return &r->job[i];
	return NULL;
}

/* The GPUs of job j as references that outlive r (o->only, o->nonly). */
static int keep_gpus(const struct gw_report *r, const struct gw_report_job *j, struct gw_report_opts *o,
		     struct gw_report_gpu_ref **refs)
{
	*refs = calloc(j->ngpus, sizeof(**refs));
	if (!*refs)
		return GW_ENOMEM;
	o->only = *refs;
	for (size_t i = 0; i < j->ngpus; i++) {
		const struct gw_report_gpu *g = &r->gpu[j->gpus[i]];
		(*refs)[i] = (struct gw_report_gpu_ref){strdup(g->instance), strdup(g->index)};
		o->nonly = i + 1;
		if (!(*refs)[i].instance || !(*refs)[i].index)
			return GW_ENOMEM;
	}
	return 0;
}

/*
 * --job: find the job in o's range, then narrow o to the GPUs it held and the
 * time it held them. A long range has a coarse grid, so the span is found
 * again over the coarse span until the grid is the finest (1 s) or stops
 * shrinking. *refs (o->only) is the caller's to free with free_refs.
 */
static int narrow_to_job(const struct gw_querier *q, const char *id, struct gw_report_opts *o,
			 struct gw_report_gpu_ref **refs, struct gw_err *err)
{
	int64_t lo = o->from, hi = o->to, step = INT64_MAX;
	for (int pass = 0; pass < 6; pass++) {
		struct gw_report *r = NULL;
		int rc = gw_report_build(q, o, &r, err);
		if (rc)
			return rc;
		const struct gw_report_job *j = job_of(r, id);
		if (!j) {
			gw_report_free(r);
			return gw_err_set(
			    err, GW_ENOTFOUND,
			    "no job %s in the range (gpuwatch_hpc_job_info); see --from and --to", id);
		}
		if (!*refs && (rc = keep_gpus(r, j, o, refs)) != 0) {
			gw_report_free(r);
			return gw_err_set(err, rc, "out of memory");
		}
		bool done = r->step <= 1000 || r->step >= step;
		step = r->step;
		o->from = done ? j->first : (j->first - step > lo ? j->first - step : lo);
		o->to = j->last + step < hi ? j->last + step : hi;
		if (o->to <= o->from)
			o->to = o->from + 1000;
		gw_report_free(r);
		if (done)
			break;
	}
	return 0;
}

static int run(const struct args *a, enum gw_report_format fmt, double price)
{
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_memstore *m = NULL;
	struct gw_tsdb *db = NULL;
	struct gw_report_url *url = NULL;
	struct gw_querier q;
	char source[512];
	if (a->url && a->nlogs) {
		fprintf(stderr, "gpuwatch %s: --url and log files: give one or the other\n", me(a));
		return 2;
	}
	if (a->url) {
		if (gw_report_url_open(&url, a->url, &err) != 0) {
			fprintf(stderr, "gpuwatch %s: %s\n", me(a), err.msg);
			return err.code == GW_EINVAL ? 2 : 1;
		}
		q = gw_report_url_querier(url);
		snprintf(source, sizeof(source), "%s", a->url);
	} else if (a->nlogs) {
		m = gw_memstore_new();
		if (!m) {
			fprintf(stderr, "gpuwatch %s: out of memory\n", me(a));
			return 1;
		}
		for (size_t i = 0; i < a->nlogs; i++)
			if (import_log(m, a->logs[i], a) != 0) {
				gw_memstore_free(m);
				return 1;
			}
		q = gw_memstore_querier(m);
		snprintf(source, sizeof(source), "%s%s", a->logs[0], a->nlogs > 1 ? " and more logs" : "");
	} else {
		struct gw_tsdb_opts to = {.path = a->path, .flush_interval_ms = -1, .must_exist = true};
		if (gw_tsdb_open(&db, &to, &err) != 0) {
			fprintf(stderr, "gpuwatch %s: %s\n", me(a), err.msg);
			return 1;
		}
		q = gw_tsdb_querier(db);
		snprintf(source, sizeof(source), "store %s", a->path);
	}
	struct gw_report_opts o = {
	    .price_per_kwh = price, .currency = a->currency, .source = source, .png_dir = a->png};
	int rc = 0;
	if (a->from && gw_api_parse_time(a->from, &o.from) != 0) {
		fprintf(stderr, "gpuwatch %s: --from %s: not a time (RFC 3339 or Unix seconds)\n", me(a),
			a->from);
		rc = 2;
	} else if (a->to && gw_api_parse_time(a->to, &o.to) != 0) {
		fprintf(stderr, "gpuwatch %s: --to %s: not a time (RFC 3339 or Unix seconds)\n", me(a),
			a->to);
		rc = 2;
	} else if (!a->from || !a->to) {
		int64_t first = 0, last = 0;
		if (url ? gw_report_url_last(url, &last, &err) != 0
			: gw_report_data_span(&q, &first, &last, &err) != 0) {
			fprintf(stderr, "gpuwatch %s: %s: %s\n", me(a), source, err.msg);
			rc = 1;
		} else {
			/* logs: all of them; the store: its last hour (anomalies: day) */
			int64_t span = a->anomalies ? 86400000 : 3600000;
			if (!a->to)
				o.to = a->from && o.from > last ? o.from + span : last;
			if (!a->from && a->job) /* a job: wherever it ran */
				o.from = url ? o.to - 7 * 86400000LL : first;
			else if (!a->from)
				o.from = a->nlogs && first <= o.to ? first : o.to - span;
			if (!a->from && !a->to && o.from == o.to) /* a log of one sample */
				o.to = o.from + 1000;
		}
	}
	struct gw_report *r = NULL;
	struct gw_report_gpu_ref *refs = NULL;
	if (!rc && o.from >= o.to) {
		fprintf(stderr, "gpuwatch %s: --from must be before --to\n", me(a));
		rc = 2;
	} else if (!rc && a->job && narrow_to_job(&q, a->job, &o, &refs, &err) != 0) {
		fprintf(stderr, "gpuwatch %s: %s: %s\n", me(a), source, err.msg);
		rc = 1;
	} else if (!rc && gw_report_build(&q, &o, &r, &err) != 0) {
		fprintf(stderr, "gpuwatch %s: %s: %s (see --from and --to)\n", me(a), source, err.msg);
		rc = 1;
	}
	if (!rc) {
		struct gw_buf b;
		gw_buf_init(&b, (size_t)1 << 30);
		if (a->anomalies) {
			/* the report found them with the default sensitivity */
			if (a->sens > 0 && gw_anom_find(r, a->sens) != 0) {
				fprintf(stderr, "gpuwatch anomalies: out of memory\n");
				rc = 1;
			} else {
				gw_anom_report(r, fmt == GW_REPORT_JSON, &b);
			}
		} else if (a->png && gw_report_png_write(r, &err) != 0) {
			fprintf(stderr, "gpuwatch report: %s\n", err.msg);
			rc = 1;
		} else {
			gw_report_render(r, fmt, &b);
		}
		if (!rc)
			rc = write_out(a, &b);
		gw_buf_release(&b);
	}
	gw_report_free(r);
	free_refs(refs, o.nonly);
	gw_memstore_free(m);
	gw_report_url_close(url);
	if (db)
		gw_tsdb_close(db);
	return rc;
}

int gw_cmd_report(int argc, char **argv, const struct gw_cli *cli)
{
	(void)cli;
	struct args a;
	int rc = parse_args(argc, argv, &a, false);
	enum gw_report_format fmt = GW_REPORT_TEXT;
	double price = 0;
	if (rc >= 0) { /* --help, or a bad option */
		free(a.logs);
		return rc;
	}
	rc = pick_format(&a, &fmt);
	if (!rc && a.png && !*a.png) {
		fprintf(stderr, "gpuwatch report: --png needs a directory\n");
		rc = 2;
	} else if (!rc && a.png && !gw_chart_png_built()) {
		fprintf(stderr,
			"gpuwatch report: --png: this gpuwatch was built without PNG support; install "
			"libcairo2-dev (scripts/deps.sh does) and rebuild\n");
		rc = 2;
	}
	if (!rc && a.price) {
		char *end;
		price = strtod(a.price, &end);
		if (end == a.price || *end || !(price >= 0) || price > 1e9) {
			fprintf(stderr,
				"gpuwatch %s: --price-per-kwh %s: not a price (a number, 0 or more)\n",
				me(&a), a.price);
			rc = 2;
		}
	}
	if (!rc && a.start) {
		if (gw_import_parse_date(a.start, &a.start_ms) != 0) {
			fprintf(stderr,
				"gpuwatch %s: --start \"%s\" is not a date and time (\"2026-12-02 "
				"17:58:17\", "
				"RFC 3339 or date's output)\n",
				me(&a), a.start);
			rc = 2;
		}
		a.has_start = true;
	}
	if (!rc && a.interval) {
		char *end;
		double sec = strtod(a.interval, &end);
		if (end == a.interval || *end || !(sec >= 0.001 && sec <= 86400)) {
			fprintf(stderr,
				"gpuwatch %s: --interval is seconds between samples (0.001 to 86400), "
				"not \"%s\"\n",
				me(&a), a.interval);
			rc = 2;
		}
		a.interval_ms = (int64_t)(sec * 1000 + 0.5);
	}
	if (!rc)
		rc = run(&a, fmt, price);
	free(a.logs);
	return rc;
}

static void usage_anomalies(FILE *out)
{
	fprintf(out, "usage: gpuwatch anomalies [options] [LOG...]\n\n"
		     "Find anomalies in a time range of GPU history: per GPU, utilisation, memory,\n"
		     "temperature and power against a trailing baseline of the same series (median and\n"
		     "MAD, quantile range): spikes, shifts that held for minutes, slow drifts; and\n"
		     "power against utilisation (mismatch: full power at 0 %% utilisation). Each\n"
		     "with its time, GPU, metric, value, baseline and score. See docs/ANOMALIES.md.\n\n"
		     "Reads what gpuwatch report reads: the store (--storage.path), an agent (--url),\n"
		     "or nvidia-smi logs given as LOG.\n\n"
		     "Options:\n"
		     "  --storage.path DIR     the data directory (default data/)\n"
		     "  --url URL              a running agent's query API instead\n"
		     "  --from T, --to T       the range (RFC 3339 or Unix seconds); default: the last day\n"
		     "                         of the store's data, or the whole of the logs\n"
		     "  --format F             text or json (default text)\n"
		     "  --sensitivity S        robust deviations that make an anomaly (default 6; lower\n"
		     "                         finds more)\n"
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "  --start TIME, --interval SECONDS  as for gpuwatch report\n"
		     "  -h, --help             show this help\n\n"
		     "Exit status: 0 list written (empty or not), 1 no data in the range or an\n"
		     "unreadable input, 2 bad arguments.\n");
}

int gw_cmd_anomalies(int argc, char **argv, const struct gw_cli *cli)
{
	(void)cli;
	struct args a;
	int rc = parse_args(argc, argv, &a, true);
	if (rc >= 0) {
		free(a.logs);
		return rc;
	}
	rc = 0;
	enum gw_report_format fmt = GW_REPORT_TEXT;
	if (a.format && (gw_report_format_parse(a.format, &fmt) != 0 ||
			 (fmt != GW_REPORT_TEXT && fmt != GW_REPORT_JSON))) {
		fprintf(stderr, "gpuwatch anomalies: --format %s: not a format (text, json)\n", a.format);
		rc = 2;
	}
	if (!rc && a.sensitivity) {
		char *end;
		a.sens = strtod(a.sensitivity, &end);
		if (end == a.sensitivity || *end || !(a.sens > 0 && a.sens <= 1000)) {
			fprintf(stderr, "gpuwatch anomalies: --sensitivity %s: not a number over 0\n",
				a.sensitivity);
			rc = 2;
		}
	}
	if (!rc)
		rc = run(&a, fmt, 0);
	free(a.logs);
	return rc;
}
