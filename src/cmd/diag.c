/*
 * diag.c - `gpuwatch diag -r 1|2|3`: the deployment checks and CUDA tests
 * of src/diag/, printed as `dcgmi diag` prints its results (a boxed table,
 * one row per check) or as JSON.
 *
 * Exit codes: 0 every check passes (SKIPs allowed), 22 a warning and no
 * failure, 23 a failure; 20/21 stay health's, and nvidia-smi's codes say
 * what stops the run (2 bad argument, 6 no such GPU, 9 driver not loaded,
 * 12 library not found, 255 other).
 */
#include "diag/diag.h"
#include "api/json.h"
#include "cmd/cmd.h"
#include "cmd/smi_util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_DIAG_WARN 22
#define EXIT_DIAG_FAIL 23
#define STRESS_S 30 /* level 3's compute stress, by default */
#define STRESS_MAX_S 3600
#define COL1 32
#define COL2 50

struct opts {
	const char *ids;
	bool json;
	int level;
	unsigned int stress_s;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: gpuwatch diag -r LEVEL [-i ID[,ID...]] [--json] [--stress S]\n\n"
	    "Run diagnostics like dcgmi diag; see docs/HEALTH.md (\"diag\").\n\n"
	    "Levels:\n"
	    "  1  deployment: NVML and driver versions, device files, CUDA environment\n"
	    "     variables, persistence mode, pending page retirement and row remap,\n"
	    "     InfoROM, MIG mode, compute mode, NVSwitch fabric (seconds)\n"
	    "  2  level 1 plus CUDA tests through libcuda.so.1: context, allocation, PCIe\n"
	    "     bandwidth both ways, device memory bandwidth and a memory pattern test\n"
	    "  3  level 2 plus a %d s compute stress watching clocks, temperature and XIDs\n\n"
	    "Options:\n"
	    "  -r, --run=LEVEL    1, 2 or 3 (required)\n"
	    "  -i, --id=ID        only these GPUs: index, UUID or PCI bus id, comma separated\n"
	    "      --stress=S     level 3's compute stress lasts S seconds per GPU (1..%d, default %d)\n"
	    "      --json         print JSON: {\"level\", \"overall\", \"tests\": [{\"name\", \"category\",\n"
	    "                     \"gpu\", \"result\", \"measured\", \"threshold\", \"message\"}]}\n"
	    "  -h, --help         show this help\n\n"
	    "Environment:\n"
	    "  GPUWATCH_CUDA_LIBRARY  CUDA driver library to load (default libcuda.so.1)\n"
	    "  GPUWATCH_DEV_DIR       where the device files are (default /dev)\n\n"
	    "Exit status: 0 all pass (skips allowed), %d a warning (no failure), %d a failure;\n"
	    "2 bad argument, 6 no such GPU, 9 driver not loaded, 12 NVML not found, 255 other.\n",
	    STRESS_S, STRESS_MAX_S, STRESS_S, EXIT_DIAG_WARN, EXIT_DIAG_FAIL);
}

/* -1: go on; else the exit code. */
static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
	    {"run", required_argument, NULL, 'r'}, {"id", required_argument, NULL, 'i'},
	    {"json", no_argument, NULL, 'j'},	   {"stress", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},	   {NULL, 0, NULL, 0}};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":r:i:h", longs, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strcmp(optarg, "1") && strcmp(optarg, "2") && strcmp(optarg, "3")) {
				fprintf(stderr, "gpuwatch diag: -r %s: the level is 1, 2 or 3\n", optarg);
				return GW_EXIT_BADARG;
			}
			o->level = optarg[0] - '0';
			break;
		case 'i':
			o->ids = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 's': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || optarg[0] == '-' || v < 1 || v > STRESS_MAX_S) {
				fprintf(stderr,
					"gpuwatch diag: --stress %s: not a number of seconds from 1 to %d\n",
					optarg, STRESS_MAX_S);
				return GW_EXIT_BADARG;
			}
			o->stress_s = (unsigned int)v;
			break;
		}
		case 'h':
			usage(stdout);
			return GW_EXIT_OK;
		case ':':
			fprintf(stderr, "gpuwatch diag: %s needs a value\n", argv[optind - 1]);
			return GW_EXIT_BADARG;
		default:
			fprintf(stderr, "gpuwatch diag: unknown option '%s'; see gpuwatch diag --help\n",
				argv[optind - 1]);
			return GW_EXIT_BADARG;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuwatch diag: unexpected argument '%s'; see gpuwatch diag --help\n",
			argv[optind]);
		return GW_EXIT_BADARG;
	}
	if (!o->level) {
		fprintf(stderr,
			"gpuwatch diag: -r LEVEL is required (1, 2 or 3); see gpuwatch diag --help\n");
		return GW_EXIT_BADARG;
	}
	return -1;
}

static void rule(struct gw_buf *b, char fill, const char *section)
{
	char left[COL1 + 1];
	memset(left, fill, COL1);
	left[COL1] = 0;
	if (section)
		memcpy(left + 5, section, strlen(section) < COL1 - 7 ? strlen(section) : COL1 - 7);
	gw_buf_printf(b, "+%s+", left);
	for (int i = 0; i < COL2; i++)
		gw_buf_putc(b, fill);
	gw_buf_puts(b, "+\n");
}

/* "| left | text" with text wrapped over as many rows as it needs. */
static void row(struct gw_buf *b, const char *left, const char *text)
{
	const int w = COL2 - 2;
	do {
		int len = (int)strlen(text);
		if (len > w) {
			len = w;
			while (len > w / 2 && text[len] != ' ')
				len--;
			if (text[len] != ' ')
				len = w;
		}
		gw_buf_printf(b, "| %-*.*s | %-*.*s |\n", COL1 - 2, COL1 - 2, left, w, len, text);
		left = "";
		text += len;
		while (*text == ' ')
			text++;
	} while (*text);
}

static void text(struct gw_buf *b, const struct gw_diag_run *r, int level)
{
	char lvl[32];
	snprintf(lvl, sizeof(lvl), "Level %d", level);
	rule(b, '-', NULL);
	row(b, "Diagnostic", "Result");
	rule(b, '=', NULL);
	const char *cat = "";
	for (size_t i = 0; i < r->n; i++) {
		const struct gw_diag_test *t = &r->t[i];
		if (strcmp(cat, t->category) != 0) {
			char s[40];
			snprintf(s, sizeof(s), "  %s  ", t->category);
			rule(b, '-', s);
			cat = t->category;
		}
		char name[64], res[sizeof(t->measured) + sizeof(t->message) + 16];
		if (t->gpu == GW_DIAG_SYSTEM)
			snprintf(name, sizeof(name), "%s", t->name);
		else
			snprintf(name, sizeof(name), "%.22s GPU %d", t->name, t->gpu);
		if (t->result == GW_DIAG_PASS)
			snprintf(res, sizeof(res), "Pass");
		else
			snprintf(res, sizeof(res), "%s - %s%s%s", gw_diag_result_name(t->result), t->measured,
				 *t->measured ? ": " : "", t->message);
		row(b, name, res);
	}
	rule(b, '-', NULL);
	gw_buf_printf(b, "%s: %s\n", lvl, gw_diag_result_name(gw_diag_overall(r)));
}

static void json(struct gw_buf *b, const struct gw_diag_run *r, int level)
{
	gw_buf_printf(b, "{\"level\":%d,\"overall\":", level);
	gw_json_str(b, gw_diag_result_name(gw_diag_overall(r)));
	gw_buf_puts(b, ",\"tests\":[");
	for (size_t i = 0; i < r->n; i++) {
		const struct gw_diag_test *t = &r->t[i];
		gw_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
		gw_json_str(b, t->name);
		gw_buf_puts(b, ",\"category\":");
		gw_json_str(b, t->category);
		if (t->gpu != GW_DIAG_SYSTEM)
			gw_buf_printf(b, ",\"gpu\":%d", t->gpu);
		gw_buf_puts(b, ",\"result\":");
		gw_json_str(b, gw_diag_result_name(t->result));
		gw_buf_puts(b, ",\"measured\":");
		gw_json_str(b, t->measured);
		gw_buf_puts(b, ",\"threshold\":");
		gw_json_str(b, t->threshold);
		gw_buf_puts(b, ",\"message\":");
		gw_json_str(b, t->message);
		gw_buf_putc(b, '}');
	}
	gw_buf_puts(b, "]}\n");
}

static int run(struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n, const bool *sel,
	       const struct opts *o)
{
	struct gw_diag_env env = {
	    .dev_dir = getenv("GPUWATCH_DEV_DIR") ? getenv("GPUWATCH_DEV_DIR") : "/dev",
	    .cuda_visible_devices = getenv("CUDA_VISIBLE_DEVICES"),
	    .cuda_launch_blocking = getenv("CUDA_LAUNCH_BLOCKING"),
	    .cuda_device_max_connections = getenv("CUDA_DEVICE_MAX_CONNECTIONS"),
	    .cuda_mps_pipe_directory = getenv("CUDA_MPS_PIPE_DIRECTORY"),
	    .cuda_library = getenv("GPUWATCH_CUDA_LIBRARY"),
	};
	struct gw_diag_run r;
	gw_diag_run_init(&r);
	int rc = gw_diag_deployment(&r, nv, gpus, n, sel, &env);
	if (rc == 0 && o->level >= 2)
		rc = gw_diag_cuda(&r, nv, gpus, n, sel, &env, o->level >= 3 ? o->stress_s : 0);
	if (rc != 0) {
		fprintf(stderr, "gpuwatch diag: out of memory\n");
		gw_diag_run_release(&r);
		return GW_EXIT_OTHER;
	}
	struct gw_buf b;
	gw_buf_init(&b, (size_t)16 << 20);
	if (o->json)
		json(&b, &r, o->level);
	else
		text(&b, &r, o->level);
	fwrite(b.data, 1, b.len, stdout);
	gw_buf_release(&b);
	enum gw_diag_result all = gw_diag_overall(&r);
	gw_diag_run_release(&r);
	rc = all == GW_DIAG_FAIL ? EXIT_DIAG_FAIL : all == GW_DIAG_WARN ? EXIT_DIAG_WARN : GW_EXIT_OK;
	int wrc = gw_cli_finish_stdout();
	return wrc ? wrc : rc;
}

int gw_cmd_diag(int argc, char **argv, const struct gw_cli *cli)
{
	struct opts o = {.stress_s = STRESS_S};
	int rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	struct gw_nvml *nv = NULL;
	if ((rc = gw_cli_open_nvml(cli, &nv)) != 0)
		return rc;
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	struct gw_err err;
	gw_err_clear(&err);
	bool *sel = NULL;
	if (gw_nvml_gpus_list(nv, &gpus, &n, &err) != 0) {
		fprintf(stderr, "gpuwatch diag: %s\n", err.msg);
		rc = GW_EXIT_OTHER;
	} else if (!(sel = calloc(n ? n : 1, sizeof(*sel)))) {
		rc = GW_EXIT_OTHER;
	} else {
		int nsel = (int)n;
		if (o.ids)
			nsel = gw_smi_select(gpus, n, o.ids, sel);
		else
			for (unsigned int i = 0; i < n; i++)
				sel[i] = true;
		if (nsel <= 0) {
			fprintf(stderr, "gpuwatch diag: %s\n", o.ids ? "-i: no such GPU" : "no GPUs found");
			rc = GW_EXIT_QUERY_FAILED;
		} else {
			rc = run(nv, gpus, n, sel, &o);
		}
	}
	free(sel);
	free(gpus);
	gw_nvml_close(nv);
	return rc;
}
