/*
 * pmon.c - `gpuwatch pmon`: one line per process per GPU per sample,
 * nvidia-smi pmon's columns. Utilisation comes from
 * nvmlDeviceGetProcessUtilization with the last timestamp seen per GPU, so
 * each sample shows only what ran since the previous one ("-" when a
 * process had no sample, or none on that engine); a GPU without processes
 * prints one "-" row.
 */
#include "cmd/smi_monrun.h"
#include "collect/procs.h"

#include <stdlib.h>
#include <string.h>

#define PMON_MAX_GPUS 64
#define MIB (1024ULL * 1024ULL)

struct pmon_state {
	unsigned long long last_seen[PMON_MAX_GPUS]; /* us; 0 = the whole driver buffer */
};

enum { P_FB, P_CCPM, P_SM, P_MEM, P_ENC, P_DEC, P_JPG, P_OFA };

static void usage(FILE *out)
{
	fputs("usage: gpuwatch pmon [OPTION [ARG]]...\n\n"
	      "GPU process statistics in scrolling format, one line per process\n"
	      "(nvidia-smi pmon compatible).\n\n"
	      "    -i,   --id=        GPUs: indexes, UUIDs or PCI bus ids, comma separated\n"
	      "    -d,   --delay=     seconds between samples [default=1]\n"
	      "    -c,   --count=     number of samples, then exit [default: until Ctrl+C]\n"
	      "    -s,   --select=    u - utilization (sm mem enc dec jpg ofa) [default=u]\n"
	      "                       m - frame buffer and CC protected memory (fb ccpm)\n"
	      "    -o,   --options=   D - prefix each line with the date, T - with the time\n"
	      "    -f,   --filename=  log to a file rather than to stdout\n"
	      "          --format=    csv[,noheader][,nounits]\n"
	      "    -h,   --help       this help\n",
	      out);
}

/* Samples newer than *last_seen; advances it. NULL result means none. */
static nvmlProcessUtilizationSample_t *utilization(struct gw_nvml *nv, nvmlDevice_t d, unsigned long long *last_seen,
						    unsigned int *n)
{
	*n = 0;
	if (!nv->nvmlDeviceGetProcessUtilization)
		return NULL;
	unsigned int count = 0;
	nvmlReturn_t ret = nv->nvmlDeviceGetProcessUtilization(d, NULL, &count, *last_seen);
	if ((ret != NVML_SUCCESS && ret != NVML_ERROR_INSUFFICIENT_SIZE) || count == 0)
		return NULL;
	nvmlProcessUtilizationSample_t *s = calloc(count, sizeof(*s));
	if (!s)
		return NULL;
	if (nv->nvmlDeviceGetProcessUtilization(d, s, &count, *last_seen) != NVML_SUCCESS) {
		free(s);
		return NULL;
	}
	for (unsigned int i = 0; i < count; i++)
		if (s[i].timeStamp > *last_seen)
			*last_seen = s[i].timeStamp;
	*n = count;
	return s;
}

/* The newest sample of pid, or NULL. */
static const nvmlProcessUtilizationSample_t *sample_of(const nvmlProcessUtilizationSample_t *s, unsigned int n,
							unsigned int pid)
{
	const nvmlProcessUtilizationSample_t *best = NULL;
	for (unsigned int i = 0; i < n; i++)
		if (s[i].pid == pid && (!best || s[i].timeStamp > best->timeStamp))
			best = &s[i];
	return best;
}

static void cell(int id, const struct gw_proc *p, const nvmlProcessUtilizationSample_t *u, char *c, size_t n)
{
	switch (id) {
	case P_FB:
		if (p->mem_valid)
			snprintf(c, n, "%llu", (unsigned long long)(p->used_bytes / MIB));
		else
			snprintf(c, n, "-");
		return;
	case P_CCPM:
		snprintf(c, n, "0"); /* no confidential-computing memory without CC mode */
		return;
	case P_SM:
	case P_MEM:
	case P_ENC:
	case P_DEC:
		if (u) {
			unsigned int v = id == P_SM ? u->smUtil : id == P_MEM ? u->memUtil : id == P_ENC ? u->encUtil : u->decUtil;
			/* an engine the process had no sample on (NVML_VALUE_NOT_AVAILABLE)
			 * prints "-" like a process without samples; 0 is a real 0 */
			if (v <= 100) {
				snprintf(c, n, "%u", v);
				return;
			}
		}
		break;
	default:
		break; /* jpg and ofa have no per-process samples in this NVML call */
	}
	snprintf(c, n, "-");
}

static void sample_gpu(struct gw_mon_run *r, struct pmon_state *st, unsigned int g, const struct tm *tm)
{
	struct gw_procs procs = {0};
	if (r->gpus[g].lost || gw_procs_list(r->nv, r->gpus[g].dev, &procs) == GW_EGPULOST) {
		r->gpus[g].lost = true;
		r->any_lost = true;
	}
	gw_procs_sort_pid(&procs);
	unsigned int nu = 0;
	unsigned long long dummy = 0;
	unsigned long long *last = g < PMON_MAX_GPUS ? &st->last_seen[g] : &dummy;
	nvmlProcessUtilizationSample_t *u = procs.n ? utilization(r->nv, r->gpus[g].dev, last, &nu) : NULL;
	char cells[GW_MON_MAX_COLS][GW_MON_CELL];
	if (procs.n == 0)
		gw_pmon_row(r->out, &r->opts, tm, r->gpus[g].index, NULL, NULL, NULL, r->ncols, NULL);
	for (size_t i = 0; i < procs.n; i++) {
		const struct gw_proc *p = &procs.v[i];
		const nvmlProcessUtilizationSample_t *s = sample_of(u, nu, p->pid);
		for (size_t k = 0; k < r->ncols; k++)
			cell(r->cols[k]->id, p, s, cells[k], GW_MON_CELL);
		const char *type = p->compute && p->graphics ? "C+G" : p->compute ? "C" : "G";
		gw_pmon_row(r->out, &r->opts, tm, r->gpus[g].index, &p->pid, type, (const char(*)[GW_MON_CELL])cells,
			    r->ncols, p->name);
	}
	free(u);
	gw_procs_release(&procs);
}

static void sample(struct gw_mon_run *r, void *state, const struct timespec *now)
{
	struct tm tm;
	time_t t = now->tv_sec;
	localtime_r(&t, &tm);
	for (unsigned int g = 0; g < r->ngpus; g++)
		if (r->sel[g])
			sample_gpu(r, state, g, &tm);
}

int gw_cmd_pmon(int argc, char **argv, const struct gw_cli *cli)
{
	static const struct gw_mon_cmd cmd = {"pmon", "u", false, usage, gw_pmon_header, sample};
	struct pmon_state s;
	memset(&s, 0, sizeof(s));
	return gw_mon_main(&cmd, &s, argc, argv, cli);
}
