/*
 * gpm.h - GPU Performance Monitoring (Hopper and newer): SM activity,
 * occupancy, tensor and FP pipe activity, DRAM bandwidth, PCIe and NVLink
 * bytes per second — the counters that say how well an LLM job uses a GPU,
 * which plain "GPU-Util" (a kernel was running) cannot.
 *
 * NVML computes them from two samples taken at least 100 ms apart. The
 * sampler calls gw_gpm_tick() once per tick per GPU; it takes a new sample
 * when the last one is old enough, computes the metrics against the previous
 * sample, and keeps them in the GPU's struct gw_gpm, where the field table's
 * GPM readers find them without calling NVML. Values: ratios 0..1 for
 * activities (as DCGM's DCGM_FI_PROF_* report them), bytes per second for
 * traffic (NVML reports MiB/s).
 *
 * Ownership: gw_gpm_open() allocates gpu->gpm (NULL when unsupported);
 * gw_gpm_close() frees it. Threading: one sampler thread per GPU.
 */
#ifndef GW_NVML_GPM_H
#define GW_NVML_GPM_H

#include "nvml/tally.h"

#include <stdbool.h>
#include <stdint.h>

enum gw_gpm_metric {
	GW_GPM_GR_ACTIVE,
	GW_GPM_SM_ACTIVE,
	GW_GPM_SM_OCCUPANCY,
	GW_GPM_TENSOR_ACTIVE,
	GW_GPM_DRAM_ACTIVE,
	GW_GPM_FP64_ACTIVE,
	GW_GPM_FP32_ACTIVE,
	GW_GPM_FP16_ACTIVE,
	GW_GPM_PCIE_TX_BPS,
	GW_GPM_PCIE_RX_BPS,
	GW_GPM_NVLINK_TX_BPS,
	GW_GPM_NVLINK_RX_BPS,
	GW_GPM__COUNT
};

struct gw_gpm {
	nvmlGpmSample_t s[2];
	int cur;             /* index of the newest sample */
	bool have_prev;      /* s[!cur] holds an earlier sample */
	int64_t last_ms;     /* monotonic ms of the newest sample */
	double v[GW_GPM__COUNT];
	bool valid[GW_GPM__COUNT];
	nvmlGpmMetricsGet_t *mg; /* ~13 KiB request, kept: not for a thread's stack, not per tick */
};

/* Set gpu->gpm when the GPU supports GPM (returns 0 either way). Failed
 * NVML calls are counted in tally (NULL: not counted), here and in tick. */
int gw_gpm_open(struct gw_nvml *nv, struct gw_gpu *gpu, struct gw_nvml_tally *tally);
void gw_gpm_close(struct gw_nvml *nv, struct gw_gpu *gpu);

/* Sample (if >= 100 ms since the last) and refresh the metrics. */
void gw_gpm_tick(struct gw_nvml *nv, struct gw_gpu *gpu, int64_t mono_ms, struct gw_nvml_tally *tally);

#endif
