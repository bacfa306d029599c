#include "nvml/gpm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* NVML metric id per gw_gpm_metric, and the factor to our unit. */
static const struct {
	unsigned int id;
	double scale;
} metrics[GW_GPM__COUNT] = {
	[GW_GPM_GR_ACTIVE] = {NVML_GPM_METRIC_GRAPHICS_UTIL, 0.01},
	[GW_GPM_SM_ACTIVE] = {NVML_GPM_METRIC_SM_UTIL, 0.01},
	[GW_GPM_SM_OCCUPANCY] = {NVML_GPM_METRIC_SM_OCCUPANCY, 0.01},
	[GW_GPM_TENSOR_ACTIVE] = {NVML_GPM_METRIC_ANY_TENSOR_UTIL, 0.01},
	[GW_GPM_DRAM_ACTIVE] = {NVML_GPM_METRIC_DRAM_BW_UTIL, 0.01},
	[GW_GPM_FP64_ACTIVE] = {NVML_GPM_METRIC_FP64_UTIL, 0.01},
	[GW_GPM_FP32_ACTIVE] = {NVML_GPM_METRIC_FP32_UTIL, 0.01},
	[GW_GPM_FP16_ACTIVE] = {NVML_GPM_METRIC_FP16_UTIL, 0.01},
	/* NVML reports traffic in MiB/s */
	[GW_GPM_PCIE_TX_BPS] = {NVML_GPM_METRIC_PCIE_TX_PER_SEC, 1048576.0},
	[GW_GPM_PCIE_RX_BPS] = {NVML_GPM_METRIC_PCIE_RX_PER_SEC, 1048576.0},
	[GW_GPM_NVLINK_TX_BPS] = {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, 1048576.0},
	[GW_GPM_NVLINK_RX_BPS] = {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, 1048576.0},
};

#define MIN_GAP_MS 100 /* NVML wants samples at least this far apart */

int gw_gpm_open(struct gw_nvml *nv, struct gw_gpu *gpu, struct gw_nvml_tally *tally)
{
	gpu->gpm = NULL;
	if (!nv->nvmlGpmQueryDeviceSupport || !nv->nvmlGpmSampleAlloc || !nv->nvmlGpmSampleGet ||
	    !nv->nvmlGpmMetricsGet || !nv->nvmlGpmSampleFree || gpu->lost)
		return 0;
	nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
	if (GW_NVML_CALL(tally, gpu, nv, nvmlGpmQueryDeviceSupport, gpu->dev, &sup) != NVML_SUCCESS ||
	    !sup.isSupportedDevice)
		return 0;
	struct gw_gpm *g = calloc(1, sizeof(*g));
	if (!g)
		return GW_ENOMEM;
	g->mg = calloc(1, sizeof(*g->mg));
	if (!g->mg) {
		free(g);
		return GW_ENOMEM;
	}
	if (GW_NVML_CALL(tally, gpu, nv, nvmlGpmSampleAlloc, &g->s[0]) != NVML_SUCCESS) {
		free(g->mg);
		free(g);
		return 0;
	}
	if (GW_NVML_CALL(tally, gpu, nv, nvmlGpmSampleAlloc, &g->s[1]) != NVML_SUCCESS) {
		nv->nvmlGpmSampleFree(g->s[0]);
		free(g->mg);
		free(g);
		return 0;
	}
	gpu->gpm = g;
	return 0;
}

void gw_gpm_close(struct gw_nvml *nv, struct gw_gpu *gpu)
{
	struct gw_gpm *g = gpu->gpm;
	if (!g)
		return;
	nv->nvmlGpmSampleFree(g->s[0]);
	nv->nvmlGpmSampleFree(g->s[1]);
	free(g->mg);
	free(g);
	gpu->gpm = NULL;
}

void gw_gpm_tick(struct gw_nvml *nv, struct gw_gpu *gpu, int64_t mono_ms, struct gw_nvml_tally *tally)
{
	struct gw_gpm *g = gpu->gpm;
	if (!g || gpu->lost || (g->last_ms && mono_ms - g->last_ms < MIN_GAP_MS))
		return;
	int next = g->last_ms ? !g->cur : g->cur;
	nvmlReturn_t r = GW_NVML_CALL(tally, gpu, nv, nvmlGpmSampleGet, gpu->dev, g->s[next]);
	if (r == NVML_ERROR_GPU_IS_LOST)
		gpu->lost = true;
	if (r != NVML_SUCCESS) {
		memset(g->valid, 0, sizeof(g->valid));
		return;
	}
	bool first = g->last_ms == 0;
	g->cur = next;
	g->last_ms = mono_ms ? mono_ms : 1;
	if (first)
		return; /* one sample: nothing to compare with yet */
	g->have_prev = true;
	nvmlGpmMetricsGet_t *mg = g->mg; /* only the entries asked for are cleared: the rest is never read */
	mg->version = NVML_GPM_METRICS_GET_VERSION;
	mg->numMetrics = GW_GPM__COUNT;
	mg->sample1 = g->s[!g->cur];
	mg->sample2 = g->s[g->cur];
	for (int i = 0; i < GW_GPM__COUNT; i++) {
		memset(&mg->metrics[i], 0, sizeof(mg->metrics[i]));
		mg->metrics[i].metricId = metrics[i].id;
	}
	r = GW_NVML_CALL(tally, gpu, nv, nvmlGpmMetricsGet, mg);
	for (int i = 0; i < GW_GPM__COUNT; i++) {
		g->valid[i] = r == NVML_SUCCESS && mg->metrics[i].nvmlReturn == NVML_SUCCESS;
		double x = g->valid[i] ? mg->metrics[i].value * metrics[i].scale : 0;
		/* Kept to the precision that means something, which is also what
		 * compresses: ratios to six decimals (DCGM's DCGM_FI_PROF_*
		 * print), traffic to whole bytes per second. Past that the
		 * digits are the noise of a ratio of two counter deltas. */
		g->v[i] = metrics[i].scale < 1 ? nearbyint(x * 1e6) / 1e6 : nearbyint(x);
	}
}
