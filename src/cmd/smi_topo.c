/*
 * smi_topo.c - `smi topo -m` and `smi nvlink -s` (see smi_topo.h).
 *
 * nvidia-smi's matrix, as the captures show it: a tab-separated header
 * underlined with ANSI escapes, one row per GPU whose cells are " X " for
 * itself, NV<links> when NVLink joins the pair, else the PCIe level (SYS,
 * NODE, PHB, PXB, PIX); then CPU affinity, NUMA affinity, an empty column
 * and the GPU NUMA ID; then the legend.
 */
#include "cmd/smi_topo.h"
#include "cmd/smi_args.h"
#include "cmd/smi_table.h"
#include "cmd/smi_util.h"
#include "nvml/topo.h"

#include <stdlib.h>
#include <string.h>

static const char legend[] =
    "Legend:\n\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
    "(e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

/* The GPUs, opened; on failure the exit code is returned and nothing is held. */
static int open_gpus(const struct gw_cli *cli, struct gw_nvml **nv, struct gw_gpu **gpus, unsigned int *n)
{
	int rc = gw_cli_open_nvml(cli, nv);
	if (rc != 0)
		return rc;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_nvml_gpus_list(*nv, gpus, n, &err) != 0) {
		fprintf(stderr, "gpuwatch: %s\n", err.msg);
		gw_nvml_close(*nv);
		*nv = NULL;
		return GW_EXIT_OTHER;
	}
	return 0;
}

static void topo_usage(FILE *out)
{
	fputs("usage: gpuwatch smi topo -m\n\n"
	      "    -h, --help                  Print usage information and exit.\n"
	      "    -m, --matrix                Display the GPUDirect communication matrix for the system.\n\n"
	      "nvidia-smi's -mp, -i, -c, -n, -p and -p2p are not implemented.\n",
	      out);
}

static void nvlink_usage(FILE *out)
{
	fputs("usage: gpuwatch smi nvlink -s [-i ID]\n\n"
	      "    -h, --help                  Print usage information and exit.\n"
	      "    -s, --status                Display link state (active/inactive) and speed.\n"
	      "    -i, --id=                   Target specific GPUs: an index, a UUID or a PCI bus id,\n"
	      "                                or a comma separated list of them.\n\n"
	      "nvidia-smi's -l, -c, -p, -r, -e and the other counters are not implemented.\n",
	      out);
}

/* The options nvidia-smi's topo and nvlink have beyond ours. */
static const char *const topo_theirs[] = {"-mp", "--matrix_pci",   "-i", "--id",       "-c",   "--cpu",
					  "-n",	 "--nearest_gpus", "-p", "--gpu_path", "-p2p", "--p2pstatus",
					  NULL};
static const char *const nvlink_theirs[] = {
    "-l", "--link",	     "-c",  "--capabilities",	"-p",  "--pcibusid",	  "-R",	 "--remotelinkinfo",
    "-e", "--errorcounters", "-ec", "--error-counters", "-gt", "--getthroughput", "-sc", "--setcontrol",
    "-g", "--getcontrol",    "-r",  "--resetcontrol",	"-gn", "--gpmmetrics",	  NULL};

static bool in_list(const char *a, const char *const *list)
{
	for (size_t i = 0; list[i]; i++) {
		size_t n = strlen(list[i]);
		if (strncmp(a, list[i], n) == 0 && (a[n] == '\0' || a[n] == '='))
			return true;
	}
	return false;
}

static void topo_row(FILE *out, struct gw_nvml *nv, const struct gw_gpu *gpus, const struct gw_nvlinks *links,
		     unsigned int n, unsigned int i)
{
	fprintf(out, "GPU%u\t", gpus[i].index);
	for (unsigned int j = 0; j < n; j++) {
		unsigned int bond = i == j ? 0 : gw_nvlinks_between(&links[i], &links[j], gpus[j].bus_id);
		nvmlGpuTopologyLevel_t level;
		if (i == j)
			fputs(" X \t", out);
		else if (bond)
			fprintf(out, "NV%u\t", bond);
		else if (gw_topo_level(nv, gpus[i].dev, gpus[j].dev, &level) == 0)
			fprintf(out, "%s\t", gw_topo_level_name(level));
		else
			fputs("N/A\t", out);
	}
	char cpus[512], numa[128];
	unsigned int id;
	if (gw_topo_cpus(nv, gpus[i].dev, cpus, sizeof(cpus)) != 0)
		snprintf(cpus, sizeof(cpus), "N/A");
	if (gw_topo_numa(nv, gpus[i].dev, numa, sizeof(numa)) != 0)
		snprintf(numa, sizeof(numa), "N/A");
	fprintf(out, "%s\t%s\t\t", cpus, numa);
	if (gw_topo_gpu_numa_id(nv, gpus[i].dev, &id) == 0)
		fprintf(out, "%u\n", id);
	else
		fputs("N/A\n", out);
}

static int topo_matrix(FILE *out, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n)
{
	struct gw_nvlinks *links = calloc(n ? n : 1, sizeof(*links));
	if (!links)
		return GW_EXIT_OTHER;
	for (unsigned int i = 0; i < n; i++)
		gw_nvlinks_read(nv, gpus[i].dev, &links[i]); /* none: n = 0, PCIe cells */
	fputs("\t\033[4m", out);
	for (unsigned int j = 0; j < n; j++)
		fprintf(out, "GPU%u\t", gpus[j].index);
	fputs("CPU Affinity\tNUMA Affinity\tGPU NUMA ID\033[0m\n", out);
	for (unsigned int i = 0; i < n; i++)
		topo_row(out, nv, gpus, links, n, i);
	fprintf(out, "\n%s", legend);
	free(links);
	return 0;
}

int gw_smi_topo_main(int argc, char **argv, const struct gw_cli *cli)
{
	bool matrix = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			topo_usage(stdout);
			return GW_EXIT_OK;
		} else if (strcmp(a, "-m") == 0 || strcmp(a, "--matrix") == 0) {
			matrix = true;
		} else if (in_list(a, topo_theirs)) {
			return gw_smi_not_implemented(a, "smi topo", "only -m is");
		} else {
			return gw_smi_badarg("topo %s: no such option (see gpuwatch smi topo -h)", a);
		}
	}
	if (!matrix)
		return gw_smi_badarg("topo: -m is needed (the only view gpuwatch prints)");
	struct gw_nvml *nv = NULL;
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	int rc = open_gpus(cli, &nv, &gpus, &n);
	if (rc == 0)
		rc = topo_matrix(stdout, nv, gpus, n);
	free(gpus);
	gw_nvml_close(nv);
	int wrc = gw_cli_finish_stdout();
	return rc ? rc : wrc;
}

static void nvlink_status(FILE *out, struct gw_nvml *nv, const struct gw_gpu *g)
{
	gw_smi_list_gpu(out, g->index, g->name, g->uuid);
	unsigned int mig = 0, pending = 0;
	if (nv->nvmlDeviceGetMigMode && nv->nvmlDeviceGetMigMode(g->dev, &mig, &pending) == NVML_SUCCESS &&
	    mig) {
		fputs("Nvlink queries are not supported for Devices in MIG mode\n", out);
		return;
	}
	struct gw_nvlinks l;
	if (gw_nvlinks_read(nv, g->dev, &l) != 0) {
		fputs("Device does not have or support Nvlink\n", out);
		return;
	}
	if (l.nactive == 0) {
		fputs("NVML: Unable to retrieve Nvlink information as all links are inActive\n", out);
		return;
	}
	for (unsigned int i = 0; i < l.n; i++) {
		if (!l.v[i].active)
			fprintf(out, "\t Link %u: <inactive>\n", l.v[i].id);
		else if (l.v[i].speed_valid)
			fprintf(out, "\t Link %u: %.3f GB/s\n", l.v[i].id, l.v[i].speed_mbps / 1000.0);
		else
			fprintf(out, "\t Link %u: N/A\n", l.v[i].id);
	}
}

int gw_smi_nvlink_main(int argc, char **argv, const struct gw_cli *cli)
{
	bool status = false;
	const char *ids = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			nvlink_usage(stdout);
			return GW_EXIT_OK;
		} else if (strcmp(a, "-s") == 0 || strcmp(a, "--status") == 0) {
			status = true;
		} else if (strcmp(a, "-i") == 0 || strcmp(a, "--id") == 0) {
			if (i + 1 >= argc)
				return gw_smi_badarg("nvlink %s: needs a GPU index, UUID or PCI bus id", a);
			ids = argv[++i];
		} else if (strncmp(a, "--id=", 5) == 0) {
			ids = a + 5;
		} else if (in_list(a, nvlink_theirs)) {
			return gw_smi_not_implemented(a, "smi nvlink", "only -s is");
		} else {
			return gw_smi_badarg("nvlink %s: no such option (see gpuwatch smi nvlink -h)", a);
		}
	}
	if (!status)
		return gw_smi_badarg("nvlink: -s is needed (the only view gpuwatch prints)");
	struct gw_nvml *nv = NULL;
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	int rc = open_gpus(cli, &nv, &gpus, &n);
	bool *sel = NULL;
	if (rc == 0 && !(sel = calloc(n ? n : 1, sizeof(*sel))))
		rc = GW_EXIT_OTHER;
	if (rc == 0) {
		int nsel = (int)n;
		if (ids)
			nsel = gw_smi_select(gpus, n, ids, sel);
		else
			memset(sel, 1, n * sizeof(*sel));
		if (nsel <= 0) {
			puts("No devices were found");
			rc = GW_EXIT_QUERY_FAILED;
		}
	}
	for (unsigned int i = 0; rc == 0 && i < n; i++)
		if (sel[i])
			nvlink_status(stdout, nv, &gpus[i]);
	free(sel);
	free(gpus);
	gw_nvml_close(nv);
	int wrc = gw_cli_finish_stdout();
	return rc ? rc : wrc;
}
