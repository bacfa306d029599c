/*
 * smi.c - `gpuwatch smi`: nvidia-smi's table, -L, -q (-d, -x), --query-gpu
 * and the record queries (--query-compute-apps, -accounted-apps,
 * -retired-pages, -remapped-rows), with -i, -l/-lms and -f, and
 * nvidia-smi's messages and exit codes; `smi topo` and `smi nvlink` go to
 * smi_topo.c. Options are parsed before NVML is touched, so help and
 * argument errors cost nothing.
 */
#include "cmd/cmd.h"
#include "cmd/smi_apps.h"
#include "cmd/smi_args.h"
#include "cmd/smi_collect.h"
#include "cmd/smi_query.h"
#include "cmd/smi_report.h"
#include "cmd/smi_topo.h"
#include "cmd/smi_util.h"

#include <stdlib.h>
#include <string.h>

enum smi_mode { M_TABLE, M_LIST, M_QUERY_GPU, M_QUERY_APPS, M_REPORT };

struct smi_opts {
	enum smi_mode mode;
	const char *ids;      /* -i */
	const char *file;     /* -f */
	long interval_ms;     /* -l / -lms; 0 = once */
	const char *query;    /* field list */
	const char *format;   /* --format */
	int modes;            /* how many mode options were given */
	const char *mode_opt; /* the option that chose the mode, for messages */
	enum gw_smi_listq listq; /* M_QUERY_APPS: which record query */
	unsigned int display; /* -d: GW_SMI_D_* sections of -q; 0 = not given */
	bool xml;             /* -x: -q as XML */
};

/* The record queries: option, its help option. */
static const struct {
	enum gw_smi_listq q;
	const char *opt;
	const char *help;
} listqs[] = {
	{GW_SMI_Q_COMPUTE_APPS, "--query-compute-apps", "--help-query-compute-apps"},
	{GW_SMI_Q_ACCOUNTED_APPS, "--query-accounted-apps", "--help-query-accounted-apps"},
	{GW_SMI_Q_RETIRED_PAGES, "--query-retired-pages", "--help-query-retired-pages"},
	{GW_SMI_Q_REMAPPED_ROWS, "--query-remapped-rows", "--help-query-remapped-rows"},
};
#define N_LISTQS (sizeof(listqs) / sizeof(listqs[0]))

static void usage(FILE *out)
{
	fputs("usage: gpuwatch smi [OPTION [ARG]]...\n\n"
	      "nvidia-smi compatible output: the same text, CSV and exit codes.\n\n"
	      "    -h,   --help                Print usage information and exit.\n"
	      "    -L,   --list-gpus           Display a list of GPUs connected to the system.\n"
	      "    <no arguments>              Show a summary of GPUs connected to the system.\n"
	      "    -q,   --query               Display GPU info (nvidia-smi's full report).\n"
	      "    -x,   --xml-format          With -q, produce XML output.\n"
	      "    -d,   --display=            With -q, display only selected information: MEMORY,\n"
	      "                                UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK, COMPUTE,\n"
	      "                                PIDS, PERFORMANCE, SUPPORTED_CLOCKS, PAGE_RETIREMENT,\n"
	      "                                ACCOUNTING, ENCODER_STATS, SUPPORTED_GPU_TARGET_TEMP,\n"
	      "                                VOLTAGE, FBC_STATS, ROW_REMAPPER, GSP_FIRMWARE_VERSION,\n"
	      "                                POWER_SMOOTHING, POWER_PROFILES (comma separated).\n"
	      "    -i,   --id=                 Target specific GPUs: an index, a UUID or a PCI bus id,\n"
	      "                                or a comma separated list of them.\n"
	      "    -f,   --filename=           Log to a specified file, rather than to stdout.\n"
	      "    -l,   --loop=               Probe until Ctrl+C at specified second interval (default 5).\n"
	      "    -lms, --loop-ms=            Probe until Ctrl+C at specified millisecond interval.\n"
	      "    --query-gpu=                Information about GPU.\n"
	      "                                Call --help-query-gpu for more info.\n"
	      "    --query-compute-apps=       List of currently active compute processes.\n"
	      "                                Call --help-query-compute-apps for more info.\n"
	      "    --query-accounted-apps=     List of accounted compute processes.\n"
	      "                                Call --help-query-accounted-apps for more info.\n"
	      "    --query-retired-pages=      List of device memory pages that have been retired.\n"
	      "                                Call --help-query-retired-pages for more info.\n"
	      "    --query-remapped-rows=      Information about remapped rows.\n"
	      "                                Call --help-query-remapped-rows for more info.\n"
	      "    --format=                   Comma separated list of format options:\n"
	      "                                  csv - comma separated values (MANDATORY)\n"
	      "                                  noheader - skip the first line with column headers\n"
	      "                                  nounits - don't print units for numerical values\n\n"
	      "    topo -m                     The GPU topology matrix: NVLink bonds, PCIe paths,\n"
	      "                                CPU and NUMA affinity. \"gpuwatch smi topo -h\" for more.\n"
	      "    nvlink -s                   Each GPU's NVLinks and their speed.\n"
	      "                                \"gpuwatch smi nvlink -h\" for more.\n\n"
	      "A bad argument prints nvidia-smi's message on standard output and what was\n"
	      "wrong on standard error. nvidia-smi's options that change GPU state (-pm, -pl,\n"
	      "-r, -ac, ...) and the ones gpuwatch lacks are refused by name (exit 3).\n\n"
	      "Exit codes: 0 ok, 2 bad argument, 3 not available in gpuwatch, 6 no such GPU,\n"
	      "9 driver not loaded, 12 NVML library not found, 15 a GPU fell off the bus,\n"
	      "255 other error.\n",
	      out);
}

/* "--name=value" or "--name value"; also the short spelling "-x value". */
static const char *opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);
	if (strncmp(a, lng, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, lng) == 0 || (shrt && strcmp(a, shrt) == 0))
		return *i + 1 < argc ? argv[++*i] : NULL;
	return NULL;
}

static bool is_opt(const char *a, const char *lng, const char *shrt)
{
	size_t n = strlen(lng);
	return (strncmp(a, lng, n) == 0 && (a[n] == '=' || a[n] == '\0')) || (shrt && strcmp(a, shrt) == 0);
}

/* A second mode option ("-L" after "--query-gpu") is refused by name. */
static int set_mode(struct smi_opts *o, enum smi_mode m, const char *opt)
{
	if (o->modes++)
		return gw_smi_badarg("%s with %s: one of -L, -q, --query-gpu and --query-* at a time", opt, o->mode_opt);
	o->mode = m;
	o->mode_opt = opt;
	return -1;
}

static int parse_interval(struct smi_opts *o, const char *opt, const char *s, long unit_ms)
{
	unsigned long v;
	const char *what = unit_ms == 1 ? "milliseconds" : "seconds";
	if (o->interval_ms)
		return gw_smi_badarg("%s: one interval only (-l or -lms, once)", opt);
	if (!s)
		return gw_smi_badarg("%s: needs a number of %s", opt, what);
	if (!gw_smi_parse_uint(s, &v) || v > 86400000UL / (unsigned long)unit_ms)
		return gw_smi_badarg("%s %s: not a number of %s", opt, s, what);
	if (v == 0)
		return gw_smi_badarg("%s %s: the interval must be at least 1", opt, s);
	o->interval_ms = (long)v * unit_ms;
	return -1;
}

/* Returns -1 to go on, or an exit code (help printed, or an error). */
static int parse(int argc, char **argv, struct smi_opts *o)
{
	int rc = -1;
	for (int i = 1; i < argc && rc < 0; i++) {
		const char *a = argv[i];
		size_t q = 0;
		for (; q < N_LISTQS && !is_opt(a, listqs[q].opt, NULL) && strcmp(a, listqs[q].help) != 0; q++)
			;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return GW_EXIT_OK;
		} else if (strcmp(a, "--help-query-gpu") == 0) {
			gw_smi_help_query_gpu(stdout);
			return GW_EXIT_OK;
		} else if (q < N_LISTQS && strcmp(a, listqs[q].help) == 0) {
			gw_smi_apps_help(listqs[q].q, stdout);
			return GW_EXIT_OK;
		} else if (strcmp(a, "-L") == 0 || strcmp(a, "--list-gpus") == 0) {
			rc = set_mode(o, M_LIST, a);
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--query") == 0) {
			rc = set_mode(o, M_REPORT, a);
		} else if (strcmp(a, "-x") == 0 || strcmp(a, "--xml-format") == 0) {
			o->xml = true;
		} else if (is_opt(a, "--display", "-d")) {
			const char *d = opt_value(argc, argv, &i, "--display", "-d");
			if (!d)
				rc = gw_smi_badarg("%s: needs a list of -q sections (MEMORY,TEMPERATURE,...)", a);
			else if (gw_smi_display_parse(d, &o->display) != 0)
				rc = gw_smi_badarg("-d %s: not a list of -q sections (MEMORY, UTILIZATION, ECC, TEMPERATURE, "
						   "POWER, CLOCK, COMPUTE, PIDS, PERFORMANCE, SUPPORTED_CLOCKS, PAGE_RETIREMENT, "
						   "ACCOUNTING, ...)",
						   d);
		} else if (is_opt(a, "--query-gpu", NULL)) {
			rc = set_mode(o, M_QUERY_GPU, "--query-gpu");
			if (rc < 0 && !(o->query = opt_value(argc, argv, &i, "--query-gpu", NULL)))
				rc = gw_smi_badarg("--query-gpu: needs a list of fields (see --help-query-gpu)");
		} else if (q < N_LISTQS) {
			rc = set_mode(o, M_QUERY_APPS, listqs[q].opt);
			o->listq = listqs[q].q;
			if (rc < 0 && !(o->query = opt_value(argc, argv, &i, listqs[q].opt, NULL)))
				rc = gw_smi_badarg("%s: needs a list of fields (see %s)", listqs[q].opt, listqs[q].help);
		} else if (is_opt(a, "--format", NULL)) {
			if (!(o->format = opt_value(argc, argv, &i, "--format", NULL)))
				rc = gw_smi_badarg("--format: needs csv[,noheader][,nounits]");
		} else if (is_opt(a, "--id", "-i")) {
			if (!(o->ids = opt_value(argc, argv, &i, "--id", "-i")))
				rc = gw_smi_badarg("%s: needs a GPU index, UUID or PCI bus id", a);
		} else if (is_opt(a, "--filename", "-f")) {
			if (!(o->file = opt_value(argc, argv, &i, "--filename", "-f")))
				rc = gw_smi_badarg("%s: needs a file name", a);
		} else if (is_opt(a, "--loop-ms", "-lms")) {
			const char *opt = strncmp(a, "--loop-ms", 9) == 0 ? "--loop-ms" : "-lms";
			rc = parse_interval(o, opt, opt_value(argc, argv, &i, "--loop-ms", "-lms"), 1);
		} else if (strcmp(a, "-l") == 0 || strcmp(a, "--loop") == 0) {
			/* the interval is optional: the next word is it unless it is an option */
			bool given = i + 1 < argc && argv[i + 1][0] != '-';
			rc = parse_interval(o, a, given ? argv[++i] : "5", 1000);
		} else if (strncmp(a, "--loop=", 7) == 0) {
			rc = parse_interval(o, "--loop", a + 7, 1000);
		} else if ((rc = gw_smi_theirs(a)) < 0) {
			rc = gw_smi_badarg("%s: no such option (see gpuwatch smi -h)", a);
		}
	}
	if (rc >= 0)
		return rc;
	if (o->format && o->mode != M_QUERY_GPU && o->mode != M_QUERY_APPS)
		return gw_smi_badarg("--format is only for --query-gpu and the other --query-* options");
	if ((o->mode == M_QUERY_GPU || o->mode == M_QUERY_APPS) && !o->format)
		return gw_smi_badarg("--format is needed with %s", o->mode_opt);
	if (o->mode == M_LIST && o->interval_ms)
		return gw_smi_badarg("-l/-lms do not apply to -L");
	if (o->display && o->mode != M_REPORT)
		return gw_smi_badarg("-d/--display: only with -q");
	if (o->xml && o->mode != M_REPORT)
		return gw_smi_badarg("-x/--xml-format: only with -q");
	if (o->xml && o->display)
		return gw_smi_badarg("-x with -d: the XML report is written whole; leave out -d");
	return -1;
}

struct smi_run {
	struct smi_opts o;
	struct gw_nvml *nv;
	struct gw_gpu *gpus;
	unsigned int count;
	bool *sel;
	FILE *out;
	struct gw_smi_format fmt;
	const struct gw_field **qfields;
	size_t nq;
	int acols[GW_SMI_APPS_MAX];
	size_t nacols;
	bool any_lost;
};

static struct gw_read_ctx ctx_for(struct smi_run *r, unsigned int i, const struct timespec *now)
{
	struct gw_read_ctx c = {.nv = r->nv, .gpu = &r->gpus[i], .gpu_count = r->count, .now = *now};
	return c;
}

static void note_lost(struct smi_run *r, unsigned int i)
{
	if (!r->gpus[i].lost)
		fprintf(stderr, "Unable to determine the device handle for GPU%s: GPU is lost.  Reboot the system to "
				"recover this GPU\n",
			r->gpus[i].bus_id);
	r->gpus[i].lost = true;
	r->any_lost = true;
}

static int print_table(struct smi_run *r, const struct timespec *now)
{
	struct gw_smi_table t = {0};
	struct gw_smi_gpu_row *rows = calloc(r->count ? r->count : 1, sizeof(*rows));
	struct gw_smi_proc_row *procs = NULL;
	struct gw_smi_mig_row *migs = NULL;
	size_t nprocs = 0, nmigs = 0;
	if (!rows)
		return GW_ENOMEM;
	gw_smi_collect_head(r->nv, &t.head, now);
	for (unsigned int i = 0; i < r->count; i++) {
		if (!r->sel[i])
			continue;
		struct gw_read_ctx c = ctx_for(r, i, now);
		if (gw_smi_collect_gpu(&c, &rows[t.ngpus++]) == GW_EGPULOST)
			note_lost(r, i);
	}
	for (unsigned int i = 0; i < r->count; i++)
		if (r->sel[i] && gw_smi_collect_migs(r->nv, &r->gpus[i], &migs, &nmigs) == GW_EGPULOST)
			note_lost(r, i);
	for (unsigned int i = 0; i < r->count; i++)
		if (r->sel[i] && gw_smi_collect_procs(r->nv, &r->gpus[i], &procs, &nprocs) == GW_EGPULOST)
			note_lost(r, i);
	t.gpus = rows;
	t.migs = migs;
	t.nmigs = nmigs;
	t.procs = procs;
	t.nprocs = nprocs;
	gw_smi_table_render(r->out, &t);
	free(rows);
	free(migs);
	free(procs);
	return 0;
}

static void print_report(struct smi_run *r, const struct timespec *now)
{
	/* "Attached GPUs" counts the system's GPUs, also when -i picks some */
	unsigned int display = r->o.display ? r->o.display : GW_SMI_D_ALL;
	gw_smi_report_head(r->out, r->nv, now, r->count, r->o.xml);
	for (unsigned int i = 0; i < r->count; i++)
		if (r->sel[i] && gw_smi_report_gpu(r->out, r->nv, &r->gpus[i], display, r->o.xml) == GW_EGPULOST)
			note_lost(r, i);
	gw_smi_report_tail(r->out, r->o.xml);
}

static void print_once(struct smi_run *r, bool first)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	switch (r->o.mode) {
	case M_TABLE:
		print_table(r, &now);
		break;
	case M_LIST:
		for (unsigned int i = 0; i < r->count; i++)
			if (r->sel[i]) {
				gw_smi_list_gpu(r->out, r->gpus[i].index, r->gpus[i].name, r->gpus[i].uuid);
				if (gw_smi_list_migs(r->out, r->nv, &r->gpus[i]) == GW_EGPULOST)
					note_lost(r, i);
			}
		break;
	case M_QUERY_GPU:
		if (first)
			gw_smi_query_header(r->out, r->qfields, r->nq, &r->fmt);
		for (unsigned int i = 0; i < r->count; i++) {
			struct gw_read_ctx c = ctx_for(r, i, &now);
			if (r->sel[i] && gw_smi_query_row(r->out, r->qfields, r->nq, &r->fmt, &c) == GW_EGPULOST)
				note_lost(r, i);
		}
		break;
	case M_REPORT:
		print_report(r, &now);
		break;
	case M_QUERY_APPS:
		if (first)
			gw_smi_apps_header(r->out, r->acols, r->nacols, &r->fmt);
		for (unsigned int i = 0; i < r->count; i++) {
			struct gw_read_ctx c = ctx_for(r, i, &now);
			if (r->sel[i] &&
			    gw_smi_apps_rows(r->o.listq, r->out, r->acols, r->nacols, &r->fmt, &c) == GW_EGPULOST)
				note_lost(r, i);
		}
		break;
	}
	fflush(r->out);
}

/* Field lists and --format are checked before NVML is opened. */
static int prepare_query(struct smi_run *r)
{
	char bad[128];
	if (r->o.mode != M_QUERY_GPU && r->o.mode != M_QUERY_APPS)
		return -1;
	if (gw_smi_format_parse(r->o.format, &r->fmt, bad, sizeof(bad)) != 0)
		return gw_smi_badarg("--format=%s: \"%s\" is not a format option (csv, noheader, nounits)", r->o.format,
				     bad);
	if (!r->fmt.csv)
		return gw_smi_badarg("--format=%s: csv is mandatory", r->o.format);
	int rc = r->o.mode == M_QUERY_GPU
			 ? gw_smi_query_parse(r->o.query, &r->qfields, &r->nq, bad, sizeof(bad))
			 : gw_smi_apps_parse(r->o.listq, r->o.query, r->acols, &r->nacols, bad, sizeof(bad));
	if (rc != 0) {
		const char *help = r->o.mode == M_QUERY_GPU ? "--help-query-gpu" : "--help-query-*";
		for (size_t q = 0; q < N_LISTQS; q++)
			if (r->o.mode == M_QUERY_APPS && listqs[q].q == r->o.listq)
				help = listqs[q].help;
		printf("Field \"%s\" is not a valid field to query.\n\n", bad);
		fflush(stdout);
		fprintf(stderr, "%s=%s: no such field (see %s)\n", r->o.mode_opt, bad, help);
		return GW_EXIT_BADARG;
	}
	return -1;
}

static int run(struct smi_run *r, const struct gw_cli *cli)
{
	int rc = gw_cli_open_nvml(cli, &r->nv);
	if (rc != 0)
		return rc;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_nvml_gpus_list(r->nv, &r->gpus, &r->count, &err) != 0) {
		fprintf(stderr, "gpuwatch: %s\n", err.msg);
		return GW_EXIT_OTHER;
	}
	r->sel = calloc(r->count ? r->count : 1, sizeof(*r->sel));
	if (!r->sel)
		return GW_EXIT_OTHER;
	int nsel = (int)r->count;
	if (r->o.ids)
		nsel = gw_smi_select(r->gpus, r->count, r->o.ids, r->sel);
	else
		for (unsigned int i = 0; i < r->count; i++)
			r->sel[i] = true;
	if (nsel <= 0) {
		puts("No devices were found");
		return GW_EXIT_QUERY_FAILED;
	}
	for (unsigned int i = 0; i < r->count; i++)
		if (r->gpus[i].lost)
			note_lost(r, i);
	if (r->o.file && !(r->out = fopen(r->o.file, "w"))) {
		fprintf(stderr, "gpuwatch: cannot open %s for writing\n", r->o.file);
		return GW_EXIT_OTHER;
	}
	if (!r->out)
		r->out = stdout;
	if (r->o.interval_ms)
		gw_smi_loop_begin();
	for (bool first = true;; first = false) {
		print_once(r, first);
		if (!r->o.interval_ms || gw_smi_wait_ms(r->o.interval_ms))
			break;
	}
	if (ferror(r->out))
		return GW_EXIT_OTHER;
	return r->any_lost ? GW_EXIT_GPULOST : GW_EXIT_OK;
}

int gw_cmd_smi(int argc, char **argv, const struct gw_cli *cli)
{
	struct smi_run r;
	memset(&r, 0, sizeof(r));
	if (argc > 1 && strcmp(argv[1], "topo") == 0)
		return gw_smi_topo_main(argc - 1, argv + 1, cli);
	if (argc > 1 && strcmp(argv[1], "nvlink") == 0)
		return gw_smi_nvlink_main(argc - 1, argv + 1, cli);
	int rc = parse(argc, argv, &r.o);
	if (rc >= 0)
		return rc;
	rc = prepare_query(&r);
	if (rc < 0)
		rc = run(&r, cli);
	if (r.out && r.out != stdout && fclose(r.out) != 0 && rc == 0)
		rc = GW_EXIT_OTHER;
	free(r.sel);
	free(r.gpus);
	free((void *)r.qfields);
	gw_nvml_close(r.nv);
	int wrc = gw_cli_finish_stdout();
	return rc ? rc : wrc;
}
