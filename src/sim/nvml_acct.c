/*
 * nvml_acct.c - accounting: the driver's record of each compute process's
 * life on a GPU, kept while accounting mode is on (`accounting = yes`).
 *
 * The record lists first the `accounted` lines of the scenario, in order
 * (processes that ran before it starts, as the captures' buffers hold
 * them, or a scenario process's whole-life figures), then every other
 * compute process of the scenario that has started, running or ended (its
 * `end`), up to `accounting_buffer` entries, the newest kept. A running
 * process reports time 0, as the driver does until the context ends.
 * Without a record's figures, utilisation is the mean of the process's
 * pinned sm/mem sequence, else its share of the GPU's current utilisation,
 * and the memory high-water mark is its memory now, or at its end.
 */
#include "scenario.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static const struct gwsim_proc *proc_of(const struct gwsim_gpu *g, unsigned int pid)
{
	for (unsigned int i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid && (g->procs[i].type & GWSIM_PROC_COMPUTE))
			return &g->procs[i];
	return NULL;
}

static const struct gwsim_acct *acct_of(const struct gwsim_gpu *g, unsigned int pid)
{
	for (unsigned int i = 0; i < g->nacct; i++)
		if (g->acct[i].pid == pid)
			return &g->acct[i];
	return NULL;
}

/* A record whose process has not started yet is not in the buffer. */
static bool acct_listed(const struct gwsim_gpu *g, const struct gwsim_acct *a)
{
	const struct gwsim_proc *p = proc_of(g, a->pid);
	return !p || g->d.t >= p->start;
}

static bool proc_listed(const struct gwsim_gpu *g, const struct gwsim_proc *p)
{
	return (p->type & GWSIM_PROC_COMPUTE) && g->d.t >= p->start && !acct_of(g, p->pid);
}

static unsigned int listed(const struct gwsim_gpu *g, unsigned int *out, unsigned int max)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < g->nacct; i++)
		if (acct_listed(g, &g->acct[i]) && n++ < max && out)
			out[n - 1] = g->acct[i].pid;
	for (unsigned int i = 0; i < g->nprocs; i++)
		if (proc_listed(g, &g->procs[i]) && n++ < max && out)
			out[n - 1] = g->procs[i].pid;
	return n;
}

static nvmlReturn_t pids(const struct gwsim_gpu *g, unsigned int *count, unsigned int *out)
{
	if (!g->st.accounting)
		return NVML_ERROR_NOT_SUPPORTED; /* what the driver answers with the mode off */
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned int all[GWSIM_MAX_ACCT + GWSIM_MAX_PROCS];
	unsigned int n = listed(g, all, GWSIM_MAX_ACCT + GWSIM_MAX_PROCS);
	unsigned int skip = n > g->st.accounting_buffer ? n - g->st.accounting_buffer : 0;
	n -= skip;
	if (*count < n || (n && !out)) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	memcpy(out, all + skip, n * sizeof(*out));
	*count = n;
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
	const struct gwsim_proc *p = proc_of(g, pid);
	const struct gwsim_acct *a = acct_of(g, pid);
	if ((!p && !a) || (p && t < p->start))
		return NVML_ERROR_NOT_FOUND;
	memset(s, 0, sizeof(*s));
	if (p) {
		bool running = gwsim_proc_alive(p, t);
		s->gpuUtilization = util(&p->sm, p->sm_share, g->d.now.util_gpu);
		s->memoryUtilization = util(&p->mem, p->mem_share, g->d.now.util_mem);
		s->maxMemoryUsage = (unsigned long long)(gwsim_proc_mem(p, running ? t : p->end) * MIB);
		s->time = running ? 0 : (unsigned long long)llround((p->end - p->start) * 1000.0);
		s->startTime = gwsim_t_to_us(p->start);
		s->isRunning = running;
	}
	if (a) {
		if (a->sm >= 0)
			s->gpuUtilization = (unsigned int)a->sm;
		if (a->mem >= 0)
			s->memoryUtilization = (unsigned int)a->mem;
		if (a->max_mib >= 0)
			s->maxMemoryUsage = (unsigned long long)(a->max_mib * MIB);
		if (a->time_ms >= 0)
			s->time = (unsigned long long)a->time_ms;
	}
	return NVML_SUCCESS;
}

/* accounted = PID [sm=PCT] [mem=PCT] [max=MIB] [time=MS] */
int gwsim_acct_parse(struct gwsim_gpu *g, const char *v, char *err, size_t errlen)
{
	struct gwsim_acct a = {.sm = -1, .mem = -1, .max_mib = -1, .time_ms = -1};
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", v);
	char *p = buf;
	double x;
	for (int i = 0;; i++) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		char *w = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
		if (i == 0) {
			if (gwsim_parse_range("accounted pid", w, 1, 4194304, &x, err, errlen) != 0)
				return -1;
			a.pid = (unsigned int)x;
			continue;
		}
		char *eq = strchr(w, '=');
		double *dst = NULL, hi = 0;
		if (eq)
			*eq++ = '\0';
		if (eq && strcmp(w, "sm") == 0)
			dst = &a.sm, hi = 100;
		else if (eq && strcmp(w, "mem") == 0)
			dst = &a.mem, hi = 100;
		else if (eq && strcmp(w, "max") == 0)
			dst = &a.max_mib, hi = 16777216;
		else if (eq && strcmp(w, "time") == 0)
			dst = &a.time_ms, hi = GWSIM_T_MAX * 1000.0;
		if (!dst)
			return snprintf(
				   err, errlen,
				   "accounted wants PID [sm=PCT] [mem=PCT] [max=MIB] [time=MS], not \"%s\"",
				   w),
			       -1;
		char key[32];
		snprintf(key, sizeof(key), "accounted %s", w);
		if (gwsim_parse_range(key, eq, 0, hi, dst, err, errlen) != 0)
			return -1;
	}
	if (!a.pid)
		return snprintf(err, errlen, "accounted wants PID [sm=PCT] [mem=PCT] [max=MIB] [time=MS]"),
		       -1;
	for (unsigned int i = 0; i < g->nacct; i++)
		if (g->acct[i].pid == a.pid) /* an overlay's line replaces the base's in place */
			return g->acct[i] = a, 0;
	if (g->nacct >= GWSIM_MAX_ACCT)
		return snprintf(err, errlen, "too many accounted records on GPU %u (max %d)", g->index,
				GWSIM_MAX_ACCT),
		       -1;
	g->acct[g->nacct++] = a;
	return 0;
}

GWSIM_DEV(nvmlDeviceGetAccountingPids, (nvmlDevice_t d, unsigned int *count, unsigned int *pidsOut),
	  pids(g, count, pidsOut))
GWSIM_DEV(nvmlDeviceGetAccountingStats, (nvmlDevice_t d, unsigned int pid, nvmlAccountingStats_t *statsOut),
	  stats(g, pid, statsOut))
