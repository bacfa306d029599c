/*
 * dmon.c - `gpuwatch dmon`: one line per GPU per sample, nvidia-smi dmon's
 * columns. Columns that are --query-gpu fields are read through the field
 * table; the rest (BAR1, PCIe replays and throughput, violation time) have
 * no query name and are read here from the binding.
 */
#include "cmd/smi_monrun.h"

#include <string.h>

#define MIB (1024ULL * 1024ULL)

/* Per-GPU memory between samples: violation counters are cumulative (ns). */
struct dmon_state {
	unsigned long long pviol_ns[64], tviol_ns[64];
	struct timespec last[64];
	bool have[64];
};

/* Field names of the columns that are query fields, by column id. */
static const char *const field_of[] = {
	"power.draw", "temperature.gpu", "temperature.memory", "utilization.gpu", "utilization.memory",
	"utilization.encoder", "utilization.decoder", "utilization.jpeg", "utilization.ofa",
	"clocks.current.memory", "clocks.current.graphics", NULL, NULL, "memory.used", NULL,
	"protected_memory.used", "ecc.errors.corrected.volatile.total", "ecc.errors.uncorrected.volatile.total",
	NULL, NULL, NULL,
};

enum { C_PVIOL = 11, C_TVIOL = 12, C_BAR1 = 14, C_PCI = 18, C_RXPCI = 19, C_TXPCI = 20 };

static void usage(FILE *out)
{
	fputs("usage: gpuwatch dmon [OPTION [ARG]]...\n\n"
	      "GPU statistics in scrolling format, one line per GPU per sample\n"
	      "(nvidia-smi dmon compatible).\n\n"
	      "    -i,   --id=        GPUs: indexes, UUIDs or PCI bus ids, comma separated\n"
	      "    -d,   --delay=     seconds between samples [default=1]\n"
	      "    -c,   --count=     number of samples, then exit [default: until Ctrl+C]\n"
	      "    -s,   --select=    metric groups, in the order given [default=puc]:\n"
	      "                         p - power usage and temperature (pwr gtemp mtemp)\n"
	      "                         u - utilization (sm mem enc dec jpg ofa)\n"
	      "                         c - memory and processor clocks (mclk pclk)\n"
	      "                         v - power and thermal violations (pviol tviol)\n"
	      "                         m - frame buffer, BAR1 and CC protected memory (fb bar1 ccpm)\n"
	      "                         e - ECC errors and PCIe replays (sbecc dbecc pci)\n"
	      "                         t - PCIe receive and transmit throughput (rxpci txpci)\n"
	      "    -o,   --options=   D - prefix each line with the date, T - with the time\n"
	      "    -f,   --filename=  log to a file rather than to stdout\n"
	      "          --format=    csv[,noheader][,nounits]\n"
	      "    -h,   --help       this help\n",
	      out);
}

static double elapsed_s(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Share of the last interval spent in a violation, from the cumulative ns. */
static void violation(struct gw_mon_run *r, struct dmon_state *s, unsigned int g, const struct timespec *now,
		      int col, char *cell, size_t n)
{
	nvmlViolationTime_t v;
	nvmlPerfPolicyType_t policy = col == C_PVIOL ? NVML_PERF_POLICY_POWER : NVML_PERF_POLICY_THERMAL;
	unsigned long long *prev = col == C_PVIOL ? &s->pviol_ns[g] : &s->tviol_ns[g];
	if (!r->nv->nvmlDeviceGetViolationStatus || g >= 64 ||
	    r->nv->nvmlDeviceGetViolationStatus(r->gpus[g].dev, policy, &v) != NVML_SUCCESS) {
		snprintf(cell, n, "-");
		return;
	}
	double pct = 0;
	if (s->have[g]) {
		double dt = elapsed_s(&s->last[g], now);
		if (dt > 0 && v.violationTime >= *prev)
			pct = (double)(v.violationTime - *prev) / 1e9 / dt * 100.0;
	}
	*prev = v.violationTime;
	if (pct > 100)
		pct = 100;
	if (col == C_PVIOL)
		snprintf(cell, n, "%d", (int)pct);
	else
		snprintf(cell, n, "%d", pct > 0 ? 1 : 0);
}

static void direct(struct gw_mon_run *r, unsigned int g, int col, char *cell, size_t n)
{
	struct gw_nvml *nv = r->nv;
	nvmlDevice_t d = r->gpus[g].dev;
	unsigned int u;
	nvmlBAR1Memory_t bar1;
	snprintf(cell, n, "-");
	if (col == C_BAR1 && nv->nvmlDeviceGetBAR1MemoryInfo && nv->nvmlDeviceGetBAR1MemoryInfo(d, &bar1) == NVML_SUCCESS)
		snprintf(cell, n, "%llu", bar1.bar1Used / MIB);
	else if (col == C_PCI && nv->nvmlDeviceGetPcieReplayCounter && nv->nvmlDeviceGetPcieReplayCounter(d, &u) == NVML_SUCCESS)
		snprintf(cell, n, "%u", u);
	else if ((col == C_RXPCI || col == C_TXPCI) && nv->nvmlDeviceGetPcieThroughput &&
		 nv->nvmlDeviceGetPcieThroughput(d, col == C_RXPCI ? NVML_PCIE_UTIL_RX_BYTES : NVML_PCIE_UTIL_TX_BYTES,
						 &u) == NVML_SUCCESS)
		snprintf(cell, n, "%u", u / 1000); /* NVML: KB/s; dmon: MB/s */
}

static void sample(struct gw_mon_run *r, void *state, const struct timespec *now)
{
	struct dmon_state *s = state;
	char cells[GW_MON_MAX_COLS][GW_MON_CELL];
	for (unsigned int g = 0; g < r->ngpus; g++) {
		if (!r->sel[g])
			continue;
		for (size_t i = 0; i < r->ncols; i++) {
			int id = r->cols[i]->id;
			if (r->gpus[g].lost)
				snprintf(cells[i], GW_MON_CELL, "-");
			else if (field_of[id])
				gw_mon_field_cell(r, g, now, field_of[id], cells[i], GW_MON_CELL);
			else if (id == C_PVIOL || id == C_TVIOL)
				violation(r, s, g, now, id, cells[i], GW_MON_CELL);
			else
				direct(r, g, id, cells[i], GW_MON_CELL);
		}
		if (g < 64) {
			s->last[g] = *now;
			s->have[g] = true;
		}
		struct tm tm;
		time_t t = now->tv_sec;
		localtime_r(&t, &tm);
		gw_dmon_row(r->out, &r->opts, &tm, r->gpus[g].index, (const char(*)[GW_MON_CELL])cells, r->ncols);
	}
}

int gw_cmd_dmon(int argc, char **argv, const struct gw_cli *cli)
{
	static const struct gw_mon_cmd cmd = {"dmon", "puc", true, usage, gw_dmon_header, sample};
	struct dmon_state s;
	memset(&s, 0, sizeof(s));
	return gw_mon_main(&cmd, &s, argc, argv, cli);
}
