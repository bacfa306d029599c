/*
 * health.c - `gpuwatch health`: the health watches once, like `dcgmi health
 * -c`. The GPUs are read through the sampler the agent uses (so both feed
 * the watches the same values); with --window the command watches that
 * long first, so the watches over rates (PCIe replays, NVLink errors,
 * violation time) and XID events have something to see.
 *
 * Exit codes: 0 every watch passes, 20 a warning and no failure, 21 a
 * failure; nvidia-smi's codes for what stops the check (2 bad argument,
 * 6 no such GPU, 9 driver not loaded, 12 library not found, 255 other).
 */
#include "cmd/cmd.h"
#include "cmd/smi_util.h"
#include "collect/sampler.h"
#include "health/reading.h"
#include "health/report.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_HEALTH_WARN 20
#define EXIT_HEALTH_FAIL 21
#define WINDOW_MAX_S 3600
#define TICK_MS 250

struct opts {
	const char *ids;
	bool json;
	unsigned int window_ms;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: gpuwatch health [-i ID[,ID...]] [--json] [-w SECONDS]\n\n"
	    "Run the health watches once (DCGM's: PCIe, memory, InfoROM, thermal, power,\n"
	    "NVLink, driver) and print each GPU's verdict with what to do; see docs/HEALTH.md.\n\n"
	    "Options:\n"
	    "  -i, --id=ID        only these GPUs: index, UUID or PCI bus id, comma separated\n"
	    "      --json         print JSON: {\"overall\", \"gpus\": [{\"index\", \"uuid\", \"status\",\n"
	    "                     \"incidents\": [{\"system\", \"severity\", \"code\", \"message\", "
	    "\"since\"}]}]}\n"
	    "  -w, --window=S     watch S seconds (0..%d) before answering: rates (PCIe replays,\n"
	    "                     NVLink errors, violation time) and XIDs need time to show\n"
	    "                     (default 0: the state of the counters only)\n"
	    "  -h, --help         show this help\n\n"
	    "Exit status: 0 all pass, %d a warning (no failure), %d a failure; 2 bad argument,\n"
	    "6 no such GPU, 9 driver not loaded, 12 NVML not found, 255 other error.\n",
	    WINDOW_MAX_S, EXIT_HEALTH_WARN, EXIT_HEALTH_FAIL);
}

/* -1: go on; else the exit code. */
static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {{"id", required_argument, NULL, 'i'},
					      {"json", no_argument, NULL, 'j'},
					      {"window", required_argument, NULL, 'w'},
					      {"help", no_argument, NULL, 'h'},
					      {NULL, 0, NULL, 0}};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:w:h", longs, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ids = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'w': {
			char *end;
			errno = 0;
			double s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(s >= 0 && s <= WINDOW_MAX_S)) {
				fprintf(stderr,
					"gpuwatch health: -w %s: not a number of seconds from 0 to %d\n",
					optarg, WINDOW_MAX_S);
				return GW_EXIT_BADARG;
			}
			o->window_ms = (unsigned int)(s * 1000 + 0.5);
			break;
		}
		case 'h':
			usage(stdout);
			return GW_EXIT_OK;
		case ':':
			fprintf(stderr, "gpuwatch health: %s needs a value\n", argv[optind - 1]);
			return GW_EXIT_BADARG;
		default:
			fprintf(stderr, "gpuwatch health: unknown option '%s'; see gpuwatch health --help\n",
				argv[optind - 1]);
			return GW_EXIT_BADARG;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuwatch health: unexpected argument '%s'; see gpuwatch health --help\n",
			argv[optind]);
		return GW_EXIT_BADARG;
	}
	return -1;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Every GPU of the latest frame into the watches; rep[g] is its verdict. */
static void evaluate(struct gw_sampler *s, struct gw_health *h, const struct gw_health_map *map,
		     struct gw_health_report *rep, uint64_t *seen)
{
	const struct gw_frame *f = gw_sampler_acquire(s);
	if (f && f->seq != *seen) {
		*seen = f->seq;
		for (unsigned int g = 0; g < f->ngpus && g < h->ngpus; g++) {
			struct gw_health_reading r;
			gw_health_reading_from_frame(map, f, g, &r);
			gw_health_eval(h, g, &r, &rep[g]);
		}
	}
	gw_sampler_release(s, f);
}

/* Watch for the window and print; the exit code. */
static int check(struct gw_nvml *nv, struct gw_gpu *gpus, unsigned int n, const bool *sel,
		 const struct opts *o)
{
	struct gw_err err;
	gw_err_clear(&err);
	/* the slow fields (ECC, retired pages) as often as the rest: a one-shot wants them fresh */
	struct gw_sampler_opts so = {
	    .interval_ms = TICK_MS, .slow_interval_ms = TICK_MS, .proc_interval_ms = 3600000};
	struct gw_sampler *s = NULL;
	struct gw_health h;
	struct gw_health_map map;
	struct gw_health_report *rep = calloc(n, sizeof(*rep));
	struct gw_health_report *out = calloc(n, sizeof(*out));
	struct gw_health_gpu_id *ids = calloc(n, sizeof(*ids));
	int rc = GW_EXIT_OTHER;
	if (!rep || !out || !ids || gw_health_init(&h, n, NULL) != 0) {
		fprintf(stderr, "gpuwatch health: out of memory\n");
		goto done_mem;
	}
	gw_health_map_init(&map);
	if (gw_sampler_new(&s, nv, gpus, n, &so, &err) != 0 || gw_sampler_start(s, &err) != 0) {
		fprintf(stderr, "gpuwatch health: cannot read the GPUs: %s\n", err.msg);
		goto done;
	}
	uint64_t seen = 0;
	evaluate(s, &h, &map, rep, &seen);
	for (unsigned int waited = 0; waited < o->window_ms; waited += TICK_MS) {
		sleep_ms(o->window_ms - waited < TICK_MS ? o->window_ms - waited : TICK_MS);
		evaluate(s, &h, &map, rep, &seen);
	}
	unsigned int k = 0;
	for (unsigned int g = 0; g < n; g++)
		if (sel[g]) {
			ids[k] = (struct gw_health_gpu_id){gpus[g].index, gpus[g].uuid};
			out[k++] = rep[g];
		}
	struct gw_buf b;
	gw_buf_init(&b, (size_t)16 << 20);
	if (o->json)
		gw_health_json(&b, ids, out, k);
	else
		gw_health_text(&b, ids, out, k);
	fwrite(b.data, 1, b.len, stdout);
	gw_buf_release(&b);
	enum gw_health_status all = gw_health_overall(out, k);
	rc = all == GW_HEALTH_FAIL ? EXIT_HEALTH_FAIL : all == GW_HEALTH_WARN ? EXIT_HEALTH_WARN : GW_EXIT_OK;
	int wrc = gw_cli_finish_stdout();
	if (wrc)
		rc = wrc;
done:
	gw_sampler_free(s);
	gw_health_release(&h);
done_mem:
	free(rep);
	free(out);
	free(ids);
	return rc;
}

int gw_cmd_health(int argc, char **argv, const struct gw_cli *cli)
{
	struct opts o = {0};
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
		fprintf(stderr, "gpuwatch health: %s\n", err.msg);
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
			fprintf(stderr, "gpuwatch health: %s\n", o.ids ? "-i: no such GPU" : "no GPUs found");
			rc = GW_EXIT_QUERY_FAILED;
		} else {
			rc = check(nv, gpus, n, sel, &o);
		}
	}
	free(sel);
	free(gpus);
	gw_nvml_close(nv);
	return rc;
}
