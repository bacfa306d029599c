/*
 * nvml_gpm.c - GPU Performance Monitoring (Hopper and newer): a sample
 * snapshots the physics integrals (activity-seconds, bytes); metrics are the
 * differences of two samples over their virtual time apart.
 *
 * Units as nvml.h documents them: utilisations in percent (0..100), PCIe and
 * NVLink traffic in MiB/s.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

GWSIM_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *sample)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS && !sample)
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS) {
		struct gwsim_gpm_sample *s = calloc(1, sizeof(*s));
		if (!s) {
			r = NVML_ERROR_MEMORY;
		} else {
			s->magic = GWSIM_GPM_MAGIC;
			s->gpu = -1;
			*sample = (nvmlGpmSample_t)(void *)s;
		}
	}
	return gwsim_leave(r);
}

static struct gwsim_gpm_sample *sample_of(nvmlGpmSample_t h)
{
	struct gwsim_gpm_sample *s = (struct gwsim_gpm_sample *)(void *)h;
	return s && s->magic == GWSIM_GPM_MAGIC ? s : NULL;
}

GWSIM_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample)
{
	struct gwsim_gpm_sample *s = sample_of(sample);
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	s->magic = 0;
	free(s);
	return NVML_SUCCESS;
}

static nvmlReturn_t support(const struct gwsim_gpu *g, nvmlGpmSupport_t *s)
{
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (s->version != NVML_GPM_SUPPORT_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	s->isSupportedDevice = g->st.gpm;
	return NVML_SUCCESS;
}

static nvmlReturn_t take(const struct gwsim_gpu *g, nvmlGpmSample_t h)
{
	struct gwsim_gpm_sample *s = sample_of(h);
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!g->st.gpm)
		return NVML_ERROR_NOT_SUPPORTED;
	const struct gwsim_dyn *d = &g->d;
	s->gpu = (int)g->index;
	s->t = d->t;
	s->gr = d->gpm_gr;
	s->sm = d->gpm_sm;
	s->occ = d->gpm_occ;
	s->tensor = d->gpm_tensor;
	s->dram = d->gpm_dram;
	s->fp16 = d->gpm_fp16;
	s->fp32 = d->gpm_fp32;
	s->fp64 = d->gpm_fp64;
	s->pcie_tx = d->gpm_pcie_tx;
	s->pcie_rx = d->gpm_pcie_rx;
	s->nvl_tx = d->gpm_nvl_tx;
	s->nvl_rx = d->gpm_nvl_rx;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlGpmQueryDeviceSupport, (nvmlDevice_t d, nvmlGpmSupport_t *gpmSupport), support(g, gpmSupport))
GWSIM_DEV(nvmlGpmSampleGet, (nvmlDevice_t d, nvmlGpmSample_t gpmSample), take(g, gpmSample))

struct metric_info {
	unsigned int id;
	const char *short_name, *long_name, *unit;
};

static const struct metric_info infos[] = {
	{NVML_GPM_METRIC_GRAPHICS_UTIL, "gr_util", "graphics engine utilization", "%"},
	{NVML_GPM_METRIC_SM_UTIL, "sm_util", "SM utilization", "%"},
	{NVML_GPM_METRIC_SM_OCCUPANCY, "sm_occupancy", "SM occupancy", "%"},
	{NVML_GPM_METRIC_INTEGER_UTIL, "integer_util", "integer pipe utilization", "%"},
	{NVML_GPM_METRIC_ANY_TENSOR_UTIL, "any_tensor_util", "tensor pipe utilization", "%"},
	{NVML_GPM_METRIC_DFMA_TENSOR_UTIL, "dfma_tensor_util", "DFMA tensor pipe utilization", "%"},
	{NVML_GPM_METRIC_HMMA_TENSOR_UTIL, "hmma_tensor_util", "HMMA tensor pipe utilization", "%"},
	{NVML_GPM_METRIC_IMMA_TENSOR_UTIL, "imma_tensor_util", "IMMA tensor pipe utilization", "%"},
	{NVML_GPM_METRIC_DRAM_BW_UTIL, "dram_bw_util", "DRAM bandwidth utilization", "%"},
	{NVML_GPM_METRIC_FP64_UTIL, "fp64_util", "FP64 pipe utilization", "%"},
	{NVML_GPM_METRIC_FP32_UTIL, "fp32_util", "FP32 pipe utilization", "%"},
	{NVML_GPM_METRIC_FP16_UTIL, "fp16_util", "FP16 pipe utilization", "%"},
	{NVML_GPM_METRIC_PCIE_TX_PER_SEC, "pcie_tx", "PCIe transmit bandwidth", "MiB/sec"},
	{NVML_GPM_METRIC_PCIE_RX_PER_SEC, "pcie_rx", "PCIe receive bandwidth", "MiB/sec"},
	{NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, "nvlink_total_rx", "NVLink read bandwidth, all links", "MiB/sec"},
	{NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, "nvlink_total_tx", "NVLink write bandwidth, all links", "MiB/sec"},
};

static nvmlReturn_t metric(const struct gwsim_gpm_sample *a, const struct gwsim_gpm_sample *b, unsigned int id,
			   double *v)
{
	double dt = b->t - a->t;
	double pct = 100.0 / dt, mibs = 1.0 / (1048576.0 * dt);
	switch (id) {
	case NVML_GPM_METRIC_GRAPHICS_UTIL:
		*v = (b->gr - a->gr) * pct;
		break;
	case NVML_GPM_METRIC_SM_UTIL:
		*v = (b->sm - a->sm) * pct;
		break;
	case NVML_GPM_METRIC_SM_OCCUPANCY:
		*v = (b->occ - a->occ) * pct;
		break;
	case NVML_GPM_METRIC_INTEGER_UTIL:
		*v = 0.1 * (b->sm - a->sm) * pct;
		break;
	case NVML_GPM_METRIC_ANY_TENSOR_UTIL:
		*v = (b->tensor - a->tensor) * pct;
		break;
	case NVML_GPM_METRIC_DFMA_TENSOR_UTIL:
		*v = 0.5 * (b->fp64 - a->fp64) * pct;
		break;
	case NVML_GPM_METRIC_HMMA_TENSOR_UTIL:
		*v = 0.95 * (b->tensor - a->tensor) * pct;
		break;
	case NVML_GPM_METRIC_IMMA_TENSOR_UTIL:
		*v = 0.05 * (b->tensor - a->tensor) * pct;
		break;
	case NVML_GPM_METRIC_DRAM_BW_UTIL:
		*v = (b->dram - a->dram) * pct;
		break;
	case NVML_GPM_METRIC_FP64_UTIL:
		*v = (b->fp64 - a->fp64) * pct;
		break;
	case NVML_GPM_METRIC_FP32_UTIL:
		*v = (b->fp32 - a->fp32) * pct;
		break;
	case NVML_GPM_METRIC_FP16_UTIL:
		*v = (b->fp16 - a->fp16) * pct;
		break;
	case NVML_GPM_METRIC_PCIE_TX_PER_SEC:
		*v = (b->pcie_tx - a->pcie_tx) * mibs;
		break;
	case NVML_GPM_METRIC_PCIE_RX_PER_SEC:
		*v = (b->pcie_rx - a->pcie_rx) * mibs;
		break;
	case NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC:
		*v = (b->nvl_rx - a->nvl_rx) * mibs;
		break;
	case NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC:
		*v = (b->nvl_tx - a->nvl_tx) * mibs;
		break;
	default:
		return NVML_ERROR_NOT_SUPPORTED;
	}
	return NVML_SUCCESS;
}

GWSIM_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r != NVML_SUCCESS)
		return gwsim_leave(r);
	if (!m)
		return gwsim_leave(NVML_ERROR_INVALID_ARGUMENT);
	if (m->version != NVML_GPM_METRICS_GET_VERSION)
		return gwsim_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	const struct gwsim_gpm_sample *a = sample_of(m->sample1), *b = sample_of(m->sample2);
	if (!a || !b || a->gpu < 0 || a->gpu != b->gpu || !(b->t > a->t) || m->numMetrics > GW_NVML_GPM_METRIC_MAX)
		return gwsim_leave(NVML_ERROR_INVALID_ARGUMENT);
	for (unsigned int i = 0; i < m->numMetrics; i++) {
		nvmlGpmMetric_t *x = &m->metrics[i];
		x->value = 0;
		x->nvmlReturn = metric(a, b, x->metricId, &x->value);
		memset(&x->metricInfo, 0, sizeof(x->metricInfo));
		for (size_t j = 0; j < sizeof(infos) / sizeof(infos[0]); j++) {
			if (infos[j].id == x->metricId) {
				x->metricInfo.shortName = (char *)infos[j].short_name;
				x->metricInfo.longName = (char *)infos[j].long_name;
				x->metricInfo.unit = (char *)infos[j].unit;
			}
		}
	}
	return gwsim_leave(NVML_SUCCESS);
}
