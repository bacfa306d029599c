/*
 * gpu_metrics.h - a sampler frame as a Prometheus exposition: the DCGM
 * families dcgm-exporter publishes (same names, types, help, label set and
 * label order, values in DCGM's units, doubles as "%f"), then gpuwatch's
 * native families (base units, counters ending in _total, per-process and
 * per-XID series, the GPU info series, the agent's own health).
 *
 * A GPU with HPC jobs (frame gpus[].jobs, collect/hpcjob.h) has each of its
 * DCGM series once per job with an hpc_job label after dcgm-exporter's
 * others, as dcgm-exporter publishes them; the native families keep one
 * series per GPU, and gpuwatch_hpc_job_info{gpu,...,hpc_job} 1 names the
 * jobs for joins.
 *
 * Ownership: gw_metrics_prepare() fills a caller-embedded struct that
 * borrows the counters; gw_metrics_render() appends to a caller's buffer.
 * Threading: render is reentrant (one buffer per call).
 */
#ifndef GW_EXPORT_GPU_METRICS_H
#define GW_EXPORT_GPU_METRICS_H

#include "collect/sampler.h"
#include "export/counters.h"
#include "export/expfmt.h"

struct gw_metrics {
	const struct gw_counters *counters;
	int *field_of; /* per counter: table index of its field, or a special source (< 0) */
	char hostname[256];
	char driver[96];
	char nvml[96];
	const char *version;
	bool simulated;
	bool native;   /* include gpuwatch_* families */
	bool dcgm;     /* include DCGM_FI_* families */
	/* more native families, rendered last (the agent's store); NULL: none */
	void (*extra)(void *arg, struct gw_expfmt *w);
	void *extra_arg;
	/*
	 * DCGM_EXP_GPU_HEALTH_STATUS's source (the agent's health watches): GPU
	 * g's (frame position) result under dcgm-exporter's health_watch name
	 * ("PCIE", ..., "ALL"): 0 pass, 10 warn, 20 fail, with DCGM's error
	 * code in *code; -1: no result for it. NULL: the family is left out.
	 */
	int (*health)(void *arg, unsigned int g, const char *watch, const char **code);
	void *health_arg;
};

int gw_metrics_prepare(struct gw_metrics *m, const struct gw_counters *counters, struct gw_nvml *nv);

/*
 * The Hostname label's value, as dcgm-exporter sets it: $NODE_NAME where
 * Kubernetes' downward API gives the node's name (a pod's own host name is
 * the pod's), else the host name, else "unknown". The agent's history
 * stores the same, so stored series equal the exposed ones.
 */
void gw_metrics_hostname(char *buf, size_t len);
void gw_metrics_release(struct gw_metrics *m);

int gw_metrics_render(const struct gw_metrics *m, const struct gw_frame *f, enum gw_expfmt_kind kind,
		      struct gw_buf *out);

/*
 * Each process sample /metrics shows (gpuwatch_process_memory_used_bytes,
 * _sm_utilization_ratio, _memory_utilization_ratio), family by family, with
 * the labels it shows it under (the GPU's, pid, process, type, and the
 * owner's: container, pod_uid or the pod's names, slurm_job, user): what the
 * agent's history stores of them. The strings live for the call only.
 */
typedef void (*gw_proc_sample_fn)(void *arg, const char *family, const struct gw_label *l, size_t n, double v);
void gw_metrics_each_proc(const struct gw_frame *f, gw_proc_sample_fn fn, void *arg);

#endif
