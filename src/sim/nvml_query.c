/*
 * nvml_query.c - the getters `smi -q` needs beyond monitoring: brand, PDI,
 * board and module ids, addressing/virtualisation/C2C modes, the extended
 * PCI info, T.Limit margins, SRAM ECC and repair status, fabric
 * registration, capabilities, and the field values for T.Limit thresholds,
 * PCIe atomics and memory power. All read struct gwsim_static (what the
 * board has, from models.c and the scenario); a zero there answers
 * NOT_SUPPORTED, as the driver does for a board without the feature.
 *
 * gwsim_device_info() answers, for simulated GPUs only, the few values
 * nvidia-smi prints that NVML has no public call for (gwsim.h).
 */
#include "sim.h"
#include "gwsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Field ids as gpuwatch asks for them (src/cmd/smi_report_int.h, src/fields). */
#define GWSIM_FI_PCIE_REPLAY_ROLLOVER_COUNTER 95
#define GWSIM_FI_GPU_RECOVERY_ACTION 230

static nvmlReturn_t put_u(unsigned int *p, unsigned int v)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = v;
	return NVML_SUCCESS;
}

static nvmlReturn_t put_if(bool has, unsigned int *p, unsigned int v)
{
	return has ? put_u(p, v) : NVML_ERROR_NOT_SUPPORTED;
}

/* A board's PDI is a 64-bit id fixed at manufacture; unless the scenario
 * gives the capture's, derive one from the UUID so it is stable per GPU. */
static unsigned long long pdi_of(const struct gwsim_gpu *g)
{
	if (g->st.pdi)
		return g->st.pdi;
	unsigned long long h = 1469598103934665603ULL; /* FNV-1a */
	for (const char *c = g->st.uuid; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	return h;
}

static nvmlReturn_t pdi(const struct gwsim_gpu *g, nvmlPdi_t *p)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	p->value = pdi_of(g);
	return NVML_SUCCESS;
}

/* nvidia-smi's Board ID on these boards is the PCI bus and device number. */
static nvmlReturn_t board_id(const struct gwsim_gpu *g, unsigned int *id)
{
	nvmlPciInfo_t pci;
	if (g->st.board_id)
		return put_u(id, g->st.board_id);
	nvmlReturn_t r = gwsim_pci_info(g, &pci);
	return r != NVML_SUCCESS ? r : put_u(id, pci.bus << 8 | pci.device);
}

static nvmlReturn_t addressing(const struct gwsim_gpu *g, nvmlDeviceAddressingMode_t *m)
{
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	m->value = g->st.addressing;
	return NVML_SUCCESS;
}

static nvmlReturn_t c2c(const struct gwsim_gpu *g, nvmlC2cModeInfo_v1_t *c)
{
	if (!g->st.c2c)
		return NVML_ERROR_NOT_SUPPORTED;
	return put_u(c ? &c->isC2cEnabled : NULL, 0);
}

static nvmlReturn_t pci_ext(const struct gwsim_gpu *g, nvmlPciInfoExt_t *e)
{
	nvmlPciInfo_t pci;
	if (!e)
		return NVML_ERROR_INVALID_ARGUMENT;
	nvmlReturn_t r = gwsim_pci_info(g, &pci);
	if (r != NVML_SUCCESS)
		return r;
	e->domain = pci.domain;
	e->bus = pci.bus;
	e->device = pci.device;
	e->pciDeviceId = pci.pciDeviceId;
	e->pciSubSystemId = pci.pciSubSystemId;
	e->baseClass = g->st.pci_base_class;
	e->subClass = g->st.pci_sub_class;
	memcpy(e->busId, pci.busId, sizeof(e->busId));
	return NVML_SUCCESS;
}

static int temp_now(const struct gwsim_gpu *g)
{
	return (int)floor(gwsim_temp(g) + 0.5);
}

/* T.Limit: degrees left before the GPU's maximum operating temperature. */
static nvmlReturn_t margin(const struct gwsim_gpu *g, nvmlMarginTemperature_t *m)
{
	if (!g->st.tlimit)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (gwsim_pinned(g, GWSIM_PIN_MARGIN))
		m->marginTemperature = (int)lround(gwsim_pin(g, GWSIM_PIN_MARGIN));
	else
		m->marginTemperature = (int)g->st.temp_gpu_max - temp_now(g);
	return NVML_SUCCESS;
}

static nvmlReturn_t cc_mem(nvmlMemory_t *m)
{
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(m, 0, sizeof(*m)); /* confidential computing off: nothing protected */
	return NVML_SUCCESS;
}

static nvmlReturn_t fbc(nvmlFBCStats_t *s)
{
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(s, 0, sizeof(*s)); /* no frame-buffer capture sessions */
	return NVML_SUCCESS;
}

/*
 * vGPU licensing: a bare-metal or pass-through GPU answers that licensing
 * does not apply (what DCGM reads as license status 0); a vGPU guest holds
 * a vGPU licence.
 */
static nvmlReturn_t grid_license(const struct gwsim_gpu *g, nvmlGridLicensableFeatures_t *f)
{
	if (!f)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(f, 0, sizeof(*f));
	if (g->st.virt_mode != NVML_GPU_VIRTUALIZATION_MODE_VGPU)
		return NVML_SUCCESS;
	f->isGridLicenseSupported = 1;
	f->licensableFeaturesCount = 1;
	nvmlGridLicensableFeature_t *v = &f->gridLicensableFeatures[0];
	v->featureCode = NVML_GRID_LICENSE_FEATURE_CODE_VGPU;
	v->featureState = 1;
	v->featureEnabled = 1;
	snprintf(v->productName, sizeof(v->productName), "NVIDIA Virtual Compute Server");
	return NVML_SUCCESS;
}

static nvmlReturn_t sram(const struct gwsim_gpu *g, nvmlEccSramErrorStatus_t *s)
{
	if (!g->st.ecc || g->st.arch < NVML_DEVICE_ARCH_AMPERE)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned int v = s->version;
	memset(s, 0, sizeof(*s));
	s->version = v;
	s->volatileCor = g->h.ecc[0][0][NVML_MEMORY_LOCATION_SRAM];
	s->aggregateCor = g->h.ecc[0][1][NVML_MEMORY_LOCATION_SRAM];
	/* the simulator's SRAM errors are all SEC-DED, counted against the SMs */
	s->volatileUncSecDed = g->h.ecc[1][0][NVML_MEMORY_LOCATION_SRAM];
	s->aggregateUncSecDed = g->h.ecc[1][1][NVML_MEMORY_LOCATION_SRAM];
	s->aggregateUncBucketSm = s->aggregateUncSecDed;
	return NVML_SUCCESS;
}

static nvmlReturn_t repair(const struct gwsim_gpu *g, nvmlRepairStatus_t *s)
{
	if (!g->st.repair)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	s->bChannelRepairPending = 0;
	s->bTpcRepairPending = 0;
	return NVML_SUCCESS;
}

/* Datacenter boards report a customer boost clock: their maximum. */
static nvmlReturn_t boost(const struct gwsim_gpu *g, nvmlClockType_t type, unsigned int *mhz)
{
	if (g->st.brand == NVML_BRAND_GEFORCE)
		return NVML_ERROR_NOT_SUPPORTED;
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
	case NVML_CLOCK_SM:
		return put_u(mhz, g->st.clk_max_sm);
	case NVML_CLOCK_MEM:
		return put_u(mhz, g->st.clk_max_mem);
	case NVML_CLOCK_VIDEO:
		return put_u(mhz, g->st.clk_max_video);
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

static nvmlReturn_t fabric(const struct gwsim_gpu *g, nvmlGpuFabricInfo_t *f)
{
	if (!g->st.fabric)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!f)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(f, 0, sizeof(*f)); /* a lone node: clique 0, the nil cluster */
	f->state = NVML_GPU_FABRIC_STATE_COMPLETED;
	f->status = NVML_SUCCESS;
	return NVML_SUCCESS;
}

static nvmlReturn_t caps(nvmlDeviceCapabilities_t *c)
{
	if (!c)
		return NVML_ERROR_INVALID_ARGUMENT;
	c->capMask = 0; /* no extended GPU memory */
	return NVML_SUCCESS;
}

static nvmlReturn_t gsp_version(const struct gwsim_gpu *g, char *version)
{
	if (!g->st.gsp)
		return NVML_ERROR_NOT_SUPPORTED;
	return gwsim_copy_str(version, NVML_GSP_FIRMWARE_VERSION_BUF_SIZE, gwsim.driver);
}

GWSIM_DEV(nvmlDeviceGetBrand, (nvmlDevice_t d, nvmlBrandType_t *type), put_u((unsigned int *)type, g->st.brand))
GWSIM_DEV(nvmlDeviceGetPdi, (nvmlDevice_t d, nvmlPdi_t *p), pdi(g, p))
GWSIM_DEV(nvmlDeviceGetMultiGpuBoard, (nvmlDevice_t d, unsigned int *multiGpuBool),
	  put_u(multiGpuBool, g->st.multi_gpu_board))
GWSIM_DEV(nvmlDeviceGetBoardId, (nvmlDevice_t d, unsigned int *boardId), board_id(g, boardId))
GWSIM_DEV(nvmlDeviceGetModuleId, (nvmlDevice_t d, unsigned int *moduleId),
	  put_if(g->st.module_id != 0, moduleId, g->st.module_id))
GWSIM_DEV(nvmlDeviceGetAddressingMode, (nvmlDevice_t d, nvmlDeviceAddressingMode_t *mode), addressing(g, mode))
GWSIM_DEV(nvmlDeviceGetC2cModeInfoV, (nvmlDevice_t d, nvmlC2cModeInfo_v1_t *info), c2c(g, info))
GWSIM_DEV(nvmlDeviceGetVirtualizationMode, (nvmlDevice_t d, nvmlGpuVirtualizationMode_t *mode),
	  put_u((unsigned int *)mode, g->st.virt_mode))
GWSIM_DEV(nvmlDeviceGetGridLicensableFeatures_v4, (nvmlDevice_t d, nvmlGridLicensableFeatures_t *f), grid_license(g, f))
GWSIM_DEV(nvmlDeviceGetGspFirmwareVersion, (nvmlDevice_t d, char *version), gsp_version(g, version))
GWSIM_DEV(nvmlDeviceGetPciInfoExt, (nvmlDevice_t d, nvmlPciInfoExt_t *pci), pci_ext(g, pci))
GWSIM_DEV(nvmlDeviceGetMarginTemperature, (nvmlDevice_t d, nvmlMarginTemperature_t *m), margin(g, m))
GWSIM_DEV(nvmlDeviceGetConfComputeProtectedMemoryUsage, (nvmlDevice_t d, nvmlMemory_t *memory), cc_mem(memory))
GWSIM_DEV(nvmlDeviceGetFBCStats, (nvmlDevice_t d, nvmlFBCStats_t *s), fbc(s))
GWSIM_DEV(nvmlDeviceGetSramEccErrorStatus, (nvmlDevice_t d, nvmlEccSramErrorStatus_t *s), sram(g, s))
GWSIM_DEV(nvmlDeviceGetRepairStatus, (nvmlDevice_t d, nvmlRepairStatus_t *s), repair(g, s))
GWSIM_DEV(nvmlDeviceGetMaxCustomerBoostClock, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz),
	  boost(g, type, mhz))
GWSIM_DEV(nvmlDeviceGetGpuFabricInfo, (nvmlDevice_t d, nvmlGpuFabricInfo_t *info), fabric(g, info))
GWSIM_DEV(nvmlDeviceGetCapabilities, (nvmlDevice_t d, nvmlDeviceCapabilities_t *c), caps(c))

/* ---- field values ------------------------------------------------------------ */
static nvmlReturn_t fv_sll(nvmlFieldValue_t *f, long long v)
{
	f->valueType = NVML_VALUE_TYPE_SIGNED_LONG_LONG;
	f->value.sllVal = v;
	return NVML_SUCCESS;
}

static nvmlReturn_t fv_uint(nvmlFieldValue_t *f, unsigned int v)
{
	f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
	f->value.ullVal = 0;
	f->value.uiVal = v;
	return NVML_SUCCESS;
}

/* HBM draws a share of board power that grows with memory traffic. */
static double mem_power_mw(const struct gwsim_gpu *g)
{
	if (gwsim_pinned(g, GWSIM_PIN_MEM_POWER))
		return gwsim_pin(g, GWSIM_PIN_MEM_POWER);
	return 0.1 * g->d.now.power_mw + 0.004 * g->d.now.util_mem * (double)g->st.power_default_mw / 100.0;
}

bool gwsim_query_field(const struct gwsim_gpu *g, nvmlFieldValue_t *f, nvmlReturn_t *ret)
{
	const struct gwsim_static *st = &g->st;
	int gmax = (int)st->temp_gpu_max;
	switch (f->fieldId) {
	case NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT:
		*ret = st->tlimit ? fv_sll(f, gmax - (long long)st->temp_shutdown) : NVML_ERROR_NOT_SUPPORTED;
		return true;
	case NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT:
		*ret = st->tlimit ? fv_sll(f, gmax - (long long)st->temp_slowdown) : NVML_ERROR_NOT_SUPPORTED;
		return true;
	case NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT:
		*ret = st->tlimit ? fv_sll(f, 0) : NVML_ERROR_NOT_SUPPORTED;
		return true;
	case NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT:
		/* memory's limit is its own T.Limit: 0 C of margin at the limit */
		*ret = st->tlimit && st->has_mem_temp ? fv_sll(f, 0) : NVML_ERROR_NOT_SUPPORTED;
		return true;
	case NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK:
		*ret = st->atomics_out ? fv_uint(f, st->atomics_out) : NVML_ERROR_NOT_SUPPORTED;
		return true;
	case NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK:
		*ret = st->atomics_in ? fv_uint(f, st->atomics_in) : NVML_ERROR_NOT_SUPPORTED;
		return true;
	case GWSIM_FI_GPU_RECOVERY_ACTION:
		*ret = fv_uint(f, 0); /* none: the simulator's GPUs never need a reset to recover */
		return true;
	case GWSIM_FI_PCIE_REPLAY_ROLLOVER_COUNTER:
		*ret = fv_uint(f, 0);
		return true;
	case NVML_FI_DEV_POWER_AVERAGE:
	case NVML_FI_DEV_POWER_INSTANT:
		if (f->scopeId == NVML_POWER_SCOPE_GPU)
			return false; /* the board's power: nvml_health.c */
		if (f->scopeId == NVML_POWER_SCOPE_MEMORY && st->mem_power && f->fieldId == NVML_FI_DEV_POWER_AVERAGE)
			*ret = fv_uint(f, (unsigned int)llround(mem_power_mw(g)));
		else
			*ret = NVML_ERROR_NOT_SUPPORTED;
		return true;
	default:
		return false;
	}
}

/* ---- what NVML has no public call for ---------------------------------------- */
static int info(const struct gwsim_gpu *g, const char *key, char *buf, unsigned int len)
{
	const struct gwsim_static *st = &g->st;
	int n = -1;
	if (strcmp(key, "gpu_part_number") == 0 && st->gpu_part[0])
		n = snprintf(buf, len, "%s", st->gpu_part);
	else if (strcmp(key, "pcie_host_max_gen") == 0 && st->pcie_gen_host_max)
		n = snprintf(buf, len, "%u", st->pcie_gen_host_max);
	else if (strcmp(key, "sparse_operation_mode") == 0 && st->sparse)
		n = snprintf(buf, len, "Disabled");
	else if (strcmp(key, "edpp_multiplier") == 0 && st->edpp)
		n = snprintf(buf, len, "100.00%%");
	else if (strcmp(key, "unrepairable_memory") == 0 && st->unrepairable)
		n = snprintf(buf, len, "No");
	else if ((strcmp(key, "remap_inactive_correctable") == 0 || strcmp(key, "remap_inactive_uncorrectable") == 0) &&
		 st->remap)
		n = snprintf(buf, len, "0"); /* the simulator remaps rows at once: none wait */
	else if (strcmp(key, "display_attached") == 0)
		n = snprintf(buf, len, "Yes");
	else
		return -1;
	return n >= 0 && (unsigned int)n < len ? 0 : -2;
}

GWSIM_EXPORT int gwsim_device_info(unsigned int gpu, const char *key, char *buf, unsigned int len)
{
	int rc = -1;
	pthread_mutex_lock(&gwsim.lock);
	if (gpu < gwsim.ngpus && key && buf && len)
		rc = info(&gwsim.gpus[gpu], key, buf, len);
	pthread_mutex_unlock(&gwsim.lock);
	return rc;
}
