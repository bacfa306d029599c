/*
 * procs.h - the processes running on one GPU, as NVML reports them.
 *
 * A process may hold a compute context, a graphics context or both; NVML
 * lists the two kinds separately. gw_procs_list() asks for both (the _v3
 * symbols first, then the v1 ones), merges them per pid, and names each
 * process with nvmlSystemGetProcessName. The result keeps NVML's order:
 * compute processes as the driver listed them, then graphics-only ones,
 * because `--query-compute-apps` prints the driver's order while the table
 * and pmon sort by pid (gw_procs_sort_pid).
 *
 * Ownership: the caller owns the struct gw_procs and calls gw_procs_release.
 * Threading: reentrant; no state outside the arguments.
 */
#ifndef GW_COLLECT_PROCS_H
#define GW_COLLECT_PROCS_H

#include "collect/cgroup.h"
#include "nvml/binding.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_PROC_NAME_MAX 256
#define GW_PROC_ID_NONE 0xFFFFFFFFU /* gpuInstanceId/computeInstanceId without MIG */

struct gw_proc {
	unsigned int pid;
	bool compute;             /* has a compute context */
	bool graphics;            /* has a graphics context */
	bool mem_valid;           /* NVML knew its memory */
	uint64_t used_bytes;      /* device memory of the context, bytes */
	unsigned int gi, ci;      /* MIG instance ids or GW_PROC_ID_NONE */
	char name[GW_PROC_NAME_MAX]; /* full path as NVML gives it; "" if unknown */
	struct gw_attr attr;         /* owner; filled by the sampler when asked, else all "" */
	int sm_pct, mem_pct;         /* per-process utilisation, %, -1 when unknown (gw_procs_util) */
};

struct gw_procs {
	struct gw_proc *v;
	size_t n;
};

/*
 * Fill *out with the processes of dev. Returns 0 (also when NVML supports
 * neither list: then out is empty), GW_EGPULOST, GW_ENOMEM, or GW_ENVML.
 */
int gw_procs_list(struct gw_nvml *nv, nvmlDevice_t dev, struct gw_procs *out);

struct gw_nvml_tally;

/* gw_procs_list() of one GPU, its failed NVML calls counted in tally (nvml/tally.h; may be NULL). */
int gw_procs_list_counted(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_procs *out,
			  struct gw_nvml_tally *tally);

/*
 * Per-process SM and memory utilisation from the driver's sample buffer:
 * the newest sample of each process after *last_seen_us (us since the
 * epoch; 0 on the first call: the last 5 s), which is then advanced.
 * Processes without a new sample keep -1. Returns 0 (also when unsupported
 * or nothing is new) or GW_ENOMEM.
 */
int gw_procs_util(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_procs *p, unsigned long long *last_seen_us,
		  struct gw_nvml_tally *tally);

/* Stable sort by pid (the table's and pmon's order). */
void gw_procs_sort_pid(struct gw_procs *p);

void gw_procs_release(struct gw_procs *p);

/* The last path component of a process name ("/usr/bin/Xorg" -> "Xorg"). */
const char *gw_proc_basename(const char *name);

#endif
