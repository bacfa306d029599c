#include "collect/mig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIG_DEVICES_CAP 64 /* far beyond any GPU's 7, so a broken count cannot run away */

/*
 * NVML names GPU-instance profiles ("MIG 3g.40gb") but not MIG devices: the
 * device's profile is the one with its slice count and memory size. A
 * compute instance smaller than its GPU instance is "<slices>c." before it.
 */
static void profile_name(struct gw_nvml *nv, nvmlDevice_t gpu, struct gw_mig *m)
{
	if (!m->attrs_valid || !nv->nvmlDeviceGetGpuInstanceProfileInfoV)
		return;
	for (unsigned int id = 0; id < NVML_GPU_INSTANCE_PROFILE_COUNT; id++) {
		nvmlGpuInstanceProfileInfo_v2_t info;
		memset(&info, 0, sizeof(info));
		info.version = nvmlGpuInstanceProfileInfo_v2;
		if (nv->nvmlDeviceGetGpuInstanceProfileInfoV(gpu, id, &info) != NVML_SUCCESS)
			continue;
		if (info.sliceCount != m->attrs.gpuInstanceSliceCount ||
		    info.memorySizeMB != m->attrs.memorySizeMB)
			continue;
		info.name[sizeof(info.name) - 1] = '\0';
		const char *name = strncmp(info.name, "MIG ", 4) == 0 ? info.name + 4 : info.name;
		snprintf(m->gi_profile, sizeof(m->gi_profile), "%.47s", name);
		if (m->attrs.computeInstanceSliceCount < m->attrs.gpuInstanceSliceCount)
			snprintf(m->profile, sizeof(m->profile), "%uc.%.32s",
				 m->attrs.computeInstanceSliceCount, name);
		else
			snprintf(m->profile, sizeof(m->profile), "%.47s", name);
		return;
	}
}

static void read_one(struct gw_nvml *nv, nvmlDevice_t gpu, struct gw_mig *m)
{
	if (nv->nvmlDeviceGetGpuInstanceId && nv->nvmlDeviceGetGpuInstanceId(m->dev, &m->gi) != NVML_SUCCESS)
		m->gi = 0;
	if (nv->nvmlDeviceGetComputeInstanceId &&
	    nv->nvmlDeviceGetComputeInstanceId(m->dev, &m->ci) != NVML_SUCCESS)
		m->ci = 0;
	if (nv->nvmlDeviceGetUUID && nv->nvmlDeviceGetUUID(m->dev, m->uuid, sizeof(m->uuid)) != NVML_SUCCESS)
		m->uuid[0] = '\0';
	m->attrs_valid = nv->nvmlDeviceGetAttributes_v2 &&
			 nv->nvmlDeviceGetAttributes_v2(m->dev, &m->attrs) == NVML_SUCCESS;
	nvmlMemory_v2_t mem = {.version = nvmlMemory_v2};
	if (nv->nvmlDeviceGetMemoryInfo_v2 && nv->nvmlDeviceGetMemoryInfo_v2(m->dev, &mem) == NVML_SUCCESS) {
		m->mem_valid = true;
		m->mem_used = mem.used;
		m->mem_total = mem.total;
		m->mem_free = mem.free;
		m->mem_reserved = mem.reserved;
	}
	nvmlBAR1Memory_t bar1;
	if (nv->nvmlDeviceGetBAR1MemoryInfo &&
	    nv->nvmlDeviceGetBAR1MemoryInfo(m->dev, &bar1) == NVML_SUCCESS) {
		m->bar1_valid = true;
		m->bar1_used = bar1.bar1Used;
		m->bar1_total = bar1.bar1Total;
		m->bar1_free = bar1.bar1Free;
	}
	unsigned long long ecc;
	if (nv->nvmlDeviceGetTotalEccErrors &&
	    nv->nvmlDeviceGetTotalEccErrors(m->dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
					    &ecc) == NVML_SUCCESS) {
		m->ecc_valid = true;
		m->ecc_unc_volatile = ecc;
	}
	profile_name(nv, gpu, m);
}

int gw_mig_list(struct gw_nvml *nv, nvmlDevice_t gpu, struct gw_migs *out)
{
	out->v = NULL;
	out->n = 0;
	unsigned int max = 0, cur = 0, pend = 0;
	if (!nv->nvmlDeviceGetMaxMigDeviceCount || !nv->nvmlDeviceGetMigDeviceHandleByIndex ||
	    !nv->nvmlDeviceGetMigMode)
		return 0;
	nvmlReturn_t r = nv->nvmlDeviceGetMigMode(gpu, &cur, &pend);
	if (r == NVML_ERROR_GPU_IS_LOST)
		return GW_EGPULOST;
	if (r != NVML_SUCCESS || cur != NVML_DEVICE_MIG_ENABLE)
		return 0;
	r = nv->nvmlDeviceGetMaxMigDeviceCount(gpu, &max);
	if (r == NVML_ERROR_GPU_IS_LOST)
		return GW_EGPULOST;
	if (r != NVML_SUCCESS || max == 0)
		return 0;
	if (max > MIG_DEVICES_CAP)
		max = MIG_DEVICES_CAP;
	out->v = calloc(max, sizeof(*out->v));
	if (!out->v)
		return GW_ENOMEM;
	for (unsigned int i = 0; i < max; i++) {
		nvmlDevice_t h;
		r = nv->nvmlDeviceGetMigDeviceHandleByIndex(gpu, i, &h);
		if (r == NVML_ERROR_GPU_IS_LOST) {
			gw_migs_release(out);
			return GW_EGPULOST;
		}
		if (r != NVML_SUCCESS) /* indexes may have gaps: NOT_FOUND where none */
			continue;
		struct gw_mig *m = &out->v[out->n++];
		m->dev = h;
		m->index = i;
		read_one(nv, gpu, m);
	}
	return 0;
}

void gw_migs_release(struct gw_migs *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}
