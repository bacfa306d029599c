#include "collect/procs.h"

#include "nvml/tally.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Processes come and go between the sizing call and the fetch; a few rounds suffice. */
#define FETCH_TRIES 5
/* Slack added to the count NVML reported, for processes that start meanwhile. */
#define FETCH_SLACK 8
#define FETCH_CAP 65536

typedef nvmlReturn_t (*list_v3_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
typedef nvmlReturn_t (*list_v1_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *);

static int ret_to_err(nvmlReturn_t r)
{
	return r == NVML_ERROR_GPU_IS_LOST ? GW_EGPULOST : r == NVML_ERROR_MEMORY ? GW_ENOMEM : GW_ENVML;
}

/*
 * NVML's sizing protocol: a call with count 0 answers SUCCESS (no processes)
 * or INSUFFICIENT_SIZE with the count needed; we then grow and call again.
 * Records are normalised to nvmlProcessInfo_t so v1 callers look the same.
 */
/* Where failed calls are counted: a tally (or NULL) and the GPU (or NULL). */
struct tally_at {
	struct gw_nvml_tally *tally;
	const struct gw_gpu *gpu;
};

static int fetch(const struct tally_at *at, nvmlDevice_t dev, list_v3_fn v3, list_v1_fn v1, enum gw_nvml_fn fn,
		 nvmlProcessInfo_t **out, unsigned int *n)
{
	*out = NULL;
	*n = 0;
	unsigned int cap = 0;
	size_t rec = v3 ? sizeof(nvmlProcessInfo_t) : sizeof(nvmlProcessInfo_v1_t);
	void *buf = NULL;
	for (int t = 0; t < FETCH_TRIES; t++) {
		unsigned int count = cap;
		nvmlReturn_t r = v3 ? v3(dev, &count, buf) : v1(dev, &count, buf);
		gw_nvml_tally_note(at->tally, at->gpu, fn, r);
		if (r == NVML_SUCCESS) {
			nvmlProcessInfo_t *res = calloc(count ? count : 1, sizeof(*res));
			if (!res) {
				free(buf);
				return GW_ENOMEM;
			}
			for (unsigned int i = 0; i < count; i++) {
				if (v3) {
					res[i] = ((nvmlProcessInfo_t *)buf)[i];
				} else {
					const nvmlProcessInfo_v1_t *o = (nvmlProcessInfo_v1_t *)buf + i;
					res[i].pid = o->pid;
					res[i].usedGpuMemory = o->usedGpuMemory;
					res[i].gpuInstanceId = GW_PROC_ID_NONE;
					res[i].computeInstanceId = GW_PROC_ID_NONE;
				}
			}
			free(buf);
			*out = res;
			*n = count;
			return 0;
		}
		if (r != NVML_ERROR_INSUFFICIENT_SIZE) {
			free(buf);
			return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_NOT_FOUND ? 0 : ret_to_err(r);
		}
		if (count > FETCH_CAP)
			break;
		cap = count + FETCH_SLACK;
		void *nb = realloc(buf, (size_t)cap * rec);
		if (!nb) {
			free(buf);
			return GW_ENOMEM;
		}
		buf = nb;
	}
	free(buf);
	return GW_ENVML;
}

static struct gw_proc *find_pid(struct gw_procs *p, unsigned int pid)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].pid == pid)
			return &p->v[i];
	return NULL;
}

static int merge(struct gw_procs *p, const nvmlProcessInfo_t *rec, unsigned int n, bool compute)
{
	for (unsigned int i = 0; i < n; i++) {
		struct gw_proc *e = find_pid(p, rec[i].pid);
		if (!e) {
			struct gw_proc *nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
			if (!nv)
				return GW_ENOMEM;
			p->v = nv;
			e = &p->v[p->n++];
			memset(e, 0, sizeof(*e));
			e->pid = rec[i].pid;
			e->sm_pct = e->mem_pct = -1;
			e->gi = rec[i].gpuInstanceId;
			e->ci = rec[i].computeInstanceId;
		}
		/* A C+G process shows its compute context's memory, seen first. */
		if (!e->mem_valid && rec[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE_ULL) {
			e->mem_valid = true;
			e->used_bytes = rec[i].usedGpuMemory;
		}
		if (compute)
			e->compute = true;
		else
			e->graphics = true;
	}
	return 0;
}

static void name_all(const struct tally_at *at, struct gw_nvml *nv, struct gw_procs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		p->v[i].name[0] = '\0';
		if (nv->nvmlSystemGetProcessName &&
		    GW_NVML_CALL(at->tally, at->gpu, nv, nvmlSystemGetProcessName, p->v[i].pid, p->v[i].name,
				 sizeof(p->v[i].name)) != NVML_SUCCESS)
			p->v[i].name[0] = '\0';
		p->v[i].name[sizeof(p->v[i].name) - 1] = '\0';
	}
}

static int list(const struct tally_at *at, struct gw_nvml *nv, nvmlDevice_t dev, struct gw_procs *out)
{
	out->v = NULL;
	out->n = 0;
	const struct {
		list_v3_fn v3;
		list_v1_fn v1;
		enum gw_nvml_fn fn3, fn1;
		bool compute;
	} kinds[] = {
		{nv->nvmlDeviceGetComputeRunningProcesses_v3, nv->nvmlDeviceGetComputeRunningProcesses,
		 GW_NVML_FN_nvmlDeviceGetComputeRunningProcesses_v3, GW_NVML_FN_nvmlDeviceGetComputeRunningProcesses, true},
		{nv->nvmlDeviceGetGraphicsRunningProcesses_v3, nv->nvmlDeviceGetGraphicsRunningProcesses,
		 GW_NVML_FN_nvmlDeviceGetGraphicsRunningProcesses_v3, GW_NVML_FN_nvmlDeviceGetGraphicsRunningProcesses,
		 false},
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (!kinds[k].v3 && !kinds[k].v1)
			continue;
		nvmlProcessInfo_t *rec;
		unsigned int n;
		int rc = fetch(at, dev, kinds[k].v3, kinds[k].v3 ? NULL : kinds[k].v1,
			       kinds[k].v3 ? kinds[k].fn3 : kinds[k].fn1, &rec, &n);
		if (rc == 0)
			rc = merge(out, rec, n, kinds[k].compute);
		free(rec);
		if (rc != 0) {
			gw_procs_release(out);
			return rc;
		}
	}
	name_all(at, nv, out);
	return 0;
}

int gw_procs_list(struct gw_nvml *nv, nvmlDevice_t dev, struct gw_procs *out)
{
	const struct tally_at none = {NULL, NULL};
	return list(&none, nv, dev, out);
}

int gw_procs_list_counted(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_procs *out,
			  struct gw_nvml_tally *tally)
{
	const struct tally_at at = {tally, gpu};
	return list(&at, nv, gpu->dev, out);
}

static int cmp_pid(const void *a, const void *b)
{
	const struct gw_proc *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void gw_procs_sort_pid(struct gw_procs *p)
{
	/* pids are unique within one list, so qsort's instability does not show */
	if (p->n > 1)
		qsort(p->v, p->n, sizeof(p->v[0]), cmp_pid);
}

void gw_procs_release(struct gw_procs *p)
{
	if (!p)
		return;
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

const char *gw_proc_basename(const char *name)
{
	const char *s = strrchr(name, '/');
	return s ? s + 1 : name;
}

int gw_procs_util(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_procs *p, unsigned long long *last_seen_us,
		  struct gw_nvml_tally *tally)
{
	if (!nv->nvmlDeviceGetProcessUtilization || p->n == 0)
		return 0;
	enum { CAP = 512 }; /* the driver keeps far fewer samples per GPU */
	nvmlProcessUtilizationSample_t *buf = calloc(CAP, sizeof(*buf));
	if (!buf)
		return GW_ENOMEM;
	unsigned int n = CAP;
	/* 0 would return the whole buffer, stale samples included: start 5 s back. */
	if (!*last_seen_us) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		*last_seen_us = (unsigned long long)ts.tv_sec * 1000000ULL - 5000000ULL;
	}
	nvmlReturn_t r = GW_NVML_CALL(tally, gpu, nv, nvmlDeviceGetProcessUtilization, gpu->dev, buf, &n, *last_seen_us);
	if (r == NVML_SUCCESS) {
		unsigned long long newest = *last_seen_us;
		for (size_t i = 0; i < p->n; i++) {
			unsigned long long best = 0;
			for (unsigned int k = 0; k < n && k < CAP; k++) {
				if (buf[k].pid != p->v[i].pid || buf[k].timeStamp < best)
					continue;
				best = buf[k].timeStamp;
				/* an engine without a sample reads above 100 (NVML_VALUE_NOT_AVAILABLE) */
				p->v[i].sm_pct = buf[k].smUtil <= 100 ? (int)buf[k].smUtil : -1;
				p->v[i].mem_pct = buf[k].memUtil <= 100 ? (int)buf[k].memUtil : -1;
			}
		}
		for (unsigned int k = 0; k < n && k < CAP; k++)
			if (buf[k].timeStamp > newest)
				newest = buf[k].timeStamp;
		*last_seen_us = newest;
	}
	free(buf);
	return 0;
}
