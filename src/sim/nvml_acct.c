/*
 * nvml_acct.c - accounting: the driver's record of each compute process's
 * life on a GPU, kept while accounting mode is on (`accounting = yes`).
 *
 * Every compute process of the scenario that has started is in the record,
 * running or ended (its `end`), in the driver's order, up to
 * `accounting_buffer` of them, the newest kept. A running process reports
 * time 0, as the driver does until the context ends. Utilisation is the
 * mean of the process's pinned sm/mem sequence, else its share of the GPU's
 * current utilisation; the memory high-water mark is its memory now, or at
 * its end.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static bool accounted(const struct gwsim_proc *p, double t)
{
	return (p->type & GWSIM_PROC_COMPUTE) && t >= p->start;
}

static nvmlReturn_t pids(const struct gwsim_gpu *g, unsigned int *count, unsigned int *out)
{
	if (!g->st.accounting)
		return NVML_ERROR_NOT_SUPPORTED; /* what the driver answers with the mode off */
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned int n = 0, skip = 0;
	for (unsigned int i = 0; i < g->nprocs; i++)
		n += accounted(&g->procs[i], g->d.t);
	if (n > g->st.accounting_buffer) {
		skip = n - g->st.accounting_buffer;
		n = g->st.accounting_buffer;
	}
	if (*count < n || (n && !out)) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	unsigned int j = 0;
	for (unsigned int i = 0; i < g->nprocs; i++) {
		if (!accounted(&g->procs[i], g->d.t) || (skip && skip--))
			continue;
		out[j++] = g->procs[i].pid;
	}
	*count = j;
	return NVML_SUCCESS;
}

static unsigned int util(const struct gwsim_pseq *seq, double share, double gpu_now)
{
	double sum = 0;
	unsigned int n = 0;
	for (unsigned int i = 0; i < seq->n; i++)
		if (!isnan(seq->v[i]))
			sum += seq->v[i], n++;
	double v = n ? sum / n : share * gpu_now;
	return (unsigned int)floor(v + 0.5);
}

static nvmlReturn_t stats(const struct gwsim_gpu *g, unsigned int pid, nvmlAccountingStats_t *s)
{
	if (!g->st.accounting)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	double t = g->d.t;
	for (unsigned int i = 0; i < g->nprocs; i++) {
		const struct gwsim_proc *p = &g->procs[i];
		if (p->pid != pid || !accounted(p, t))
			continue;
		bool running = gwsim_proc_alive(p, t);
		memset(s, 0, sizeof(*s));
		s->gpuUtilization = util(&p->sm, p->sm_share, g->d.now.util_gpu);
		s->memoryUtilization = util(&p->mem, p->mem_share, g->d.now.util_mem);
		s->maxMemoryUsage = (unsigned long long)(gwsim_proc_mem(p, running ? t : p->end) * MIB);
		s->time = running ? 0 : (unsigned long long)llround((p->end - p->start) * 1000.0);
		s->startTime = gwsim_t_to_us(p->start);
		s->isRunning = running;
		return NVML_SUCCESS;
	}
	return NVML_ERROR_NOT_FOUND;
}

GWSIM_DEV(nvmlDeviceGetAccountingPids, (nvmlDevice_t d, unsigned int *count, unsigned int *pidsOut),
	  pids(g, count, pidsOut))
GWSIM_DEV(nvmlDeviceGetAccountingStats, (nvmlDevice_t d, unsigned int pid, nvmlAccountingStats_t *statsOut),
	  stats(g, pid, statsOut))
