/*
 * nvml_device.c - identity, PCIe and mode getters: the static face of a
 * board (struct gwsim_static), plus PCIe throughput and replays.
 *
 * An empty string or a zero capability in the static data means the board
 * does not have it, and the getter answers NOT_SUPPORTED, the way the real
 * driver answers for a GeForce serial number or a datacenter fan.
 */
#include "sim.h"

#include <string.h>


static nvmlReturn_t str_opt(char *dst, unsigned int len, const char *src)
{
	if (!src[0])
		return NVML_ERROR_NOT_SUPPORTED;
	return gwsim_copy_str(dst, len, src);
}

static nvmlReturn_t put_u(unsigned int *p, unsigned int v)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = v;
	return NVML_SUCCESS;
}

static nvmlReturn_t put_i(int *p, int v)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = v;
	return NVML_SUCCESS;
}

/* ---- identity ------------------------------------------------------------ */
GWSIM_DEV(nvmlDeviceGetName, (nvmlDevice_t d, char *name, unsigned int length),
	  gwsim_copy_str(name, length, g->st.name))
GWSIM_DEV(nvmlDeviceGetSerial, (nvmlDevice_t d, char *serial, unsigned int length),
	  str_opt(serial, length, g->st.serial))
GWSIM_DEV_MIG(nvmlDeviceGetUUID, (nvmlDevice_t d, char *uuid, unsigned int length),
	      m ? gwsim_mig_uuid(g, m, uuid, length) : gwsim_copy_str(uuid, length, g->st.uuid))
GWSIM_DEV(nvmlDeviceGetIndex, (nvmlDevice_t d, unsigned int *index), put_u(index, g->index))
GWSIM_DEV(nvmlDeviceGetMinorNumber, (nvmlDevice_t d, unsigned int *minor), put_u(minor, g->st.minor))
GWSIM_DEV(nvmlDeviceGetPciInfo_v3, (nvmlDevice_t d, nvmlPciInfo_t *pci), gwsim_pci_info(g, pci))
GWSIM_DEV(nvmlDeviceGetPciInfo_v2, (nvmlDevice_t d, nvmlPciInfo_t *pci), gwsim_pci_info(g, pci))
GWSIM_DEV(nvmlDeviceGetBoardPartNumber, (nvmlDevice_t d, char *part, unsigned int length),
	  str_opt(part, length, g->st.board_part))
GWSIM_DEV(nvmlDeviceGetVbiosVersion, (nvmlDevice_t d, char *version, unsigned int length),
	  gwsim_copy_str(version, length, g->st.vbios))
GWSIM_DEV(nvmlDeviceGetInforomImageVersion, (nvmlDevice_t d, char *version, unsigned int length),
	  str_opt(version, length, g->st.inforom_img))

static nvmlReturn_t inforom(const struct gwsim_gpu *g, nvmlInforomObject_t object, char *version, unsigned int length)
{
	switch (object) {
	case NVML_INFOROM_OEM:
		return str_opt(version, length, g->st.inforom_oem);
	case NVML_INFOROM_ECC:
		return str_opt(version, length, g->st.inforom_ecc);
	case NVML_INFOROM_POWER:
		return str_opt(version, length, g->st.inforom_pwr);
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

GWSIM_DEV(nvmlDeviceGetInforomVersion,
	  (nvmlDevice_t d, nvmlInforomObject_t object, char *version, unsigned int length),
	  inforom(g, object, version, length))
GWSIM_DEV(nvmlDeviceValidateInforom, (nvmlDevice_t d), g->st.inforom_img[0] ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED)
GWSIM_DEV(nvmlDeviceGetArchitecture, (nvmlDevice_t d, nvmlDeviceArchitecture_t *arch),
	  put_i(arch, (int)g->st.arch))

static nvmlReturn_t cc(const struct gwsim_gpu *g, int *major, int *minor)
{
	if (!major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	*major = (int)g->st.cc_major;
	*minor = (int)g->st.cc_minor;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetCudaComputeCapability, (nvmlDevice_t d, int *major, int *minor), cc(g, major, minor))

/* ---- PCIe ------------------------------------------------------------------ */
static unsigned int pcie_gen_now(const struct gwsim_gpu *g)
{
	if (gwsim_pinned(g, GWSIM_PIN_PCIE_GEN))
		return (unsigned int)gwsim_pin(g, GWSIM_PIN_PCIE_GEN);
	/* GeForce boards drop the link to gen 1 when idle to save power */
	return g->d.now.reasons & nvmlClocksEventReasonGpuIdle ? g->st.pcie_gen_idle : g->st.pcie_gen;
}

static nvmlReturn_t pcie_tput(const struct gwsim_gpu *g, nvmlPcieUtilCounter_t counter, unsigned int *kbps)
{
	if (!kbps || (counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES))
		return NVML_ERROR_INVALID_ARGUMENT;
	*kbps = (unsigned int)(counter == NVML_PCIE_UTIL_TX_BYTES ? g->d.now.pcie_tx : g->d.now.pcie_rx);
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetCurrPcieLinkGeneration, (nvmlDevice_t d, unsigned int *gen), put_u(gen, pcie_gen_now(g)))
GWSIM_DEV(nvmlDeviceGetMaxPcieLinkGeneration, (nvmlDevice_t d, unsigned int *gen), put_u(gen, g->st.pcie_gen_max))
GWSIM_DEV(nvmlDeviceGetGpuMaxPcieLinkGeneration, (nvmlDevice_t d, unsigned int *gen),
	  put_u(gen, g->st.pcie_gen_max))
GWSIM_DEV(nvmlDeviceGetCurrPcieLinkWidth, (nvmlDevice_t d, unsigned int *width), put_u(width, g->st.pcie_width))
GWSIM_DEV(nvmlDeviceGetMaxPcieLinkWidth, (nvmlDevice_t d, unsigned int *width), put_u(width, g->st.pcie_width_max))
GWSIM_DEV(nvmlDeviceGetPcieThroughput, (nvmlDevice_t d, nvmlPcieUtilCounter_t counter, unsigned int *kbps),
	  pcie_tput(g, counter, kbps))
GWSIM_DEV(nvmlDeviceGetPcieReplayCounter, (nvmlDevice_t d, unsigned int *value), put_u(value, g->h.pcie_replays))

/* ---- modes ----------------------------------------------------------------- */
static nvmlReturn_t two(unsigned int *a, unsigned int *b, unsigned int va, unsigned int vb)
{
	if (!a || !b)
		return NVML_ERROR_INVALID_ARGUMENT;
	*a = va;
	*b = vb;
	return NVML_SUCCESS;
}

static nvmlReturn_t ecc_mode(const struct gwsim_gpu *g, nvmlEnableState_t *cur, nvmlEnableState_t *pend)
{
	if (!g->st.ecc)
		return NVML_ERROR_NOT_SUPPORTED;
	return two((unsigned int *)cur, (unsigned int *)pend, NVML_FEATURE_ENABLED, NVML_FEATURE_ENABLED);
}

static nvmlReturn_t mig_mode(const struct gwsim_gpu *g, unsigned int *cur, unsigned int *pend)
{
	if (!g->st.mig_capable)
		return NVML_ERROR_NOT_SUPPORTED;
	return two(cur, pend, g->st.mig_mode, g->st.mig_mode);
}

static nvmlReturn_t gom(nvmlGpuOperationMode_t *cur, nvmlGpuOperationMode_t *pend)
{
	return two((unsigned int *)cur, (unsigned int *)pend, 0, 0);
}

GWSIM_DEV(nvmlDeviceGetDisplayMode, (nvmlDevice_t d, nvmlEnableState_t *mode), put_i(mode, (int)g->st.display_mode))
GWSIM_DEV(nvmlDeviceGetDisplayActive, (nvmlDevice_t d, nvmlEnableState_t *active),
	  put_i(active, (int)g->st.display_active))
GWSIM_DEV(nvmlDeviceGetPersistenceMode, (nvmlDevice_t d, nvmlEnableState_t *mode),
	  put_i(mode, (int)g->st.persistence))
GWSIM_DEV(nvmlDeviceGetAccountingMode, (nvmlDevice_t d, nvmlEnableState_t *mode), put_i(mode, (int)g->st.accounting))
GWSIM_DEV(nvmlDeviceGetAccountingBufferSize, (nvmlDevice_t d, unsigned int *size),
	  put_u(size, g->st.accounting_buffer))
GWSIM_DEV(nvmlDeviceGetComputeMode, (nvmlDevice_t d, nvmlComputeMode_t *mode), put_i(mode, (int)g->st.compute_mode))
GWSIM_DEV(nvmlDeviceGetGpuOperationMode,
	  (nvmlDevice_t d, nvmlGpuOperationMode_t *current, nvmlGpuOperationMode_t *pending), gom(current, pending))
GWSIM_DEV(nvmlDeviceGetEccMode, (nvmlDevice_t d, nvmlEnableState_t *current, nvmlEnableState_t *pending),
	  ecc_mode(g, current, pending))
GWSIM_DEV(nvmlDeviceGetMigMode, (nvmlDevice_t d, unsigned int *current, unsigned int *pending),
	  mig_mode(g, current, pending))
GWSIM_DEV(nvmlDeviceGetGspFirmwareMode, (nvmlDevice_t d, unsigned int *enabled, unsigned int *defaultMode),
	  two(enabled, defaultMode, g->st.gsp, g->st.gsp))
