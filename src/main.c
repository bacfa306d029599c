/*
 * main.c - the command table and global options; nothing else.
 */
#include "cmd/cmd.h"
#include "version.h"

#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct gw_cli *cli);
	const char *summary;
};

static const struct command commands[] = {
	{"smi", gw_cmd_smi, "nvidia-smi compatible tables, lists and CSV queries"},
	{"dmon", gw_cmd_dmon, "device monitor, nvidia-smi dmon compatible"},
	{"pmon", gw_cmd_pmon, "process monitor, nvidia-smi pmon compatible"},
	{"agent", gw_cmd_agent, "sampling daemon: dcgm-exporter compatible /metrics, history, PromQL API"},
	{"health", gw_cmd_health, "health watches once, like dcgmi health -c (exit 0 pass, 20 warn, 21 fail)"},
	{"diag", gw_cmd_diag, "diagnostics like dcgmi diag -r 1|2|3 (exit 0 pass, 22 warn, 23 fail)"},
	{"query", gw_cmd_query, "PromQL over the local store, like promtool query"},
	{"serve", gw_cmd_serve, "the query API over a store without sampling (imported logs, copied stores)"},
	{"import", gw_cmd_import, "import nvidia-smi CSV logs into the store"},
	{"export", gw_cmd_export, "write the store as OpenMetrics (for promtool backfill) or CSV"},
	{"top", gw_cmd_top, "live terminal view: every GPU, its history and its processes"},
	{"rules", gw_cmd_rules, "check Prometheus rule files and run their unit tests, like promtool"},
	{"mfu", gw_cmd_mfu, "model/hardware FLOPs utilisation of a training run, with the formulas used"},
	{"memplan", gw_cmd_memplan, "will a run fit in GPU memory: bytes per GPU, largest micro-batch"},
	{"report", gw_cmd_report, "statistics, charts and findings with advice over history or nvidia-smi logs"},
	{"anomalies", gw_cmd_anomalies, "spikes, shifts and drifts per GPU against each metric's own baseline"},
	{"record", gw_cmd_record, "run a CI command, sample the GPUs meanwhile: JSON summary, asserts, JUnit"},
	{"sim", gw_cmd_sim, "simulator tools: `sim record` writes days of simulated history in seconds"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch [--sim SPEC] COMMAND [ARGS...]\n"
		     "       gpuwatch COMMAND --help\n\n"
		     "Watch NVIDIA GPUs: live, with history, alerts and answers.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nGlobal options:\n"
		     "  --sim SPEC    use the simulated fleet instead of the NVIDIA driver; SPEC is\n"
		     "                COUNTxMODEL[:WORKLOAD][,...] (e.g. 8xH200,4xL40S:inference)\n"
		     "                or a scenario file (see docs/SIMULATOR.md)\n"
		     "  -h, --help    show this help\n"
		     "  --version     show the version\n\n"
		     "Environment:\n"
		     "  GPUWATCH_NVML_LIBRARY  NVML library to load (default libnvidia-ml.so.1)\n"
		     "  GPUWATCH_SIM_LIBRARY   simulator library (default: next to the binary)\n");
}

int main(int argc, char **argv)
{
	struct gw_cli cli = {0};
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--sim") == 0 || strncmp(a, "--sim=", 6) == 0) {
			cli.sim = a[5] == '=' ? a + 6 : i + 1 < argc ? argv[++i] : NULL;
			if (!cli.sim) {
				fprintf(stderr, "gpuwatch: --sim needs a SPEC (e.g. --sim 8xH200)\n");
				return 2;
			}
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "help") == 0) {
			if (strcmp(a, "help") == 0 && i + 1 < argc) { /* `gpuwatch help smi` == `gpuwatch smi --help` */
				argv[i] = argv[i + 1];
				argv[i + 1] = "--help";
				break;
			}
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("gpuwatch %s\n", GW_VERSION);
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "gpuwatch: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		if (strcmp(argv[i], commands[c].name) == 0) {
			cli.argv0 = commands[c].name;
			return commands[c].run(argc - i, argv + i, &cli);
		}
	}
	fprintf(stderr, "gpuwatch: '%s' is not a gpuwatch command; see 'gpuwatch --help'\n", argv[i]);
	return 2;
}
