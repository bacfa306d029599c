/*
 * nvml_system.c - NVML's library-level calls: init/shutdown, versions,
 * error strings, device enumeration and handles.
 */
#include "sim.h"
#include "gwsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	nvmlReturn_t ret;
	const char *text;
} errstr[] = {
	{NVML_SUCCESS, "Success"},
	{NVML_ERROR_UNINITIALIZED, "Uninitialized"},
	{NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument"},
	{NVML_ERROR_NOT_SUPPORTED, "Not Supported"},
	{NVML_ERROR_NO_PERMISSION, "Insufficient Permissions"},
	{NVML_ERROR_ALREADY_INITIALIZED, "Already Initialized"},
	{NVML_ERROR_NOT_FOUND, "Not Found"},
	{NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size"},
	{NVML_ERROR_INSUFFICIENT_POWER, "Insufficient External Power"},
	{NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"},
	{NVML_ERROR_TIMEOUT, "Timeout"},
	{NVML_ERROR_IRQ_ISSUE, "Interrupt request issue"},
	{NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found"},
	{NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found"},
	{NVML_ERROR_CORRUPTED_INFOROM, "Corrupted infoROM"},
	{NVML_ERROR_GPU_IS_LOST, "GPU is lost"},
	{NVML_ERROR_RESET_REQUIRED, "GPU requires reset"},
	{NVML_ERROR_OPERATING_SYSTEM, "GPU access blocked by the operating system"},
	{NVML_ERROR_LIB_RM_VERSION_MISMATCH, "RM has detected an NVML/RM version mismatch."},
	{NVML_ERROR_IN_USE, "In use by another client"},
	{NVML_ERROR_MEMORY, "Insufficient Memory"},
	{NVML_ERROR_NO_DATA, "No data"},
	{NVML_ERROR_VGPU_ECC_NOT_SUPPORTED,
	 "The requested vgpu operation is not available on target device, because ECC is enabled"},
	{NVML_ERROR_INSUFFICIENT_RESOURCES, "Ran out of critical resources, other than memory"},
	{NVML_ERROR_FREQ_NOT_SUPPORTED, "The requested frequency is not supported"},
	{NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "Argument version mismatch"},
	{NVML_ERROR_DEPRECATED, "Requested functionality has been deprecated"},
	{NVML_ERROR_NOT_READY, "System is not ready for the request"},
	{NVML_ERROR_GPU_NOT_FOUND, "GPU not found"},
	{NVML_ERROR_INVALID_STATE, "Invalid state"},
	{NVML_ERROR_UNKNOWN, "Unknown Error"},
};

GWSIM_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
	for (size_t i = 0; i < sizeof(errstr) / sizeof(errstr[0]); i++)
		if (errstr[i].ret == result)
			return errstr[i].text;
	return "Unknown Error";
}

GWSIM_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	pthread_mutex_lock(&gwsim.lock);
	bool configured = gwsim.configured;
	pthread_mutex_unlock(&gwsim.lock);
	if (!configured) {
		/* Loaded directly as libnvidia-ml (GPUWATCH_NVML_LIBRARY): take the
		 * spec from the environment, else a DGX-like default. */
		const char *spec = getenv("GPUWATCH_SIM");
		char err[GWSIM_ERRLEN];
		if (gwsim_configure(spec && *spec ? spec : "8xH200", err, sizeof(err)) != 0)
			return NVML_ERROR_UNKNOWN;
	}
	pthread_mutex_lock(&gwsim.lock);
	nvmlReturn_t r = gwsim.init_error;
	if (r == NVML_SUCCESS)
		gwsim.init_count++;
	pthread_mutex_unlock(&gwsim.lock);
	return r;
}

GWSIM_EXPORT nvmlReturn_t nvmlInit(void)
{
	return nvmlInit_v2();
}

GWSIM_EXPORT nvmlReturn_t nvmlShutdown(void)
{
	pthread_mutex_lock(&gwsim.lock);
	nvmlReturn_t r = NVML_SUCCESS;
	if (gwsim.init_count <= 0)
		r = NVML_ERROR_UNINITIALIZED;
	else
		gwsim.init_count--;
	pthread_mutex_unlock(&gwsim.lock);
	return r;
}

GWSIM_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS)
		r = gwsim_copy_str(version, length, gwsim.driver);
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS)
		r = gwsim_copy_str(version, length, gwsim.nvml);
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS && !cudaDriverVersion)
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS)
		*cudaDriverVersion = gwsim.cuda;
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	return nvmlSystemGetCudaDriverVersion_v2(cudaDriverVersion);
}

GWSIM_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r != NVML_SUCCESS)
		return gwsim_leave(r);
	r = NVML_ERROR_NOT_FOUND;
	for (unsigned int i = 0; i < gwsim.ngpus && r == NVML_ERROR_NOT_FOUND; i++) {
		const struct gwsim_gpu *g = &gwsim.gpus[i];
		for (unsigned int j = 0; j < g->nprocs; j++)
			if (g->procs[j].pid == pid) {
				r = gwsim_copy_str(name, length, g->procs[j].name);
				break;
			}
	}
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS && !deviceCount)
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS)
		*deviceCount = gwsim.ngpus;
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
	return nvmlDeviceGetCount_v2(deviceCount);
}

/* A handle for GPU i, or GPU_IS_LOST once it fell off the bus. */
static nvmlReturn_t handle(unsigned int i, nvmlDevice_t *device)
{
	if (!device || i >= gwsim.ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct gwsim_gpu *g = &gwsim.gpus[i];
	gwsim_advance(g, gwsim_now_t());
	if (g->h.lost)
		return NVML_ERROR_GPU_IS_LOST;
	*device = gwsim_handle(g);
	return NVML_SUCCESS;
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS)
		r = handle(index, device);
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return nvmlDeviceGetHandleByIndex_v2(index, device);
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS && (!uuid || !device))
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS) {
		r = NVML_ERROR_NOT_FOUND;
		for (unsigned int i = 0; i < gwsim.ngpus; i++)
			if (strcasecmp(gwsim.gpus[i].st.uuid, uuid) == 0)
				r = handle(i, device);
	}
	return gwsim_leave(r);
}

static bool parse_bus_id(const char *s, unsigned int *dom, unsigned int *bus, unsigned int *dev)
{
	unsigned int fn = 0;
	if (sscanf(s, "%x:%x:%x.%x", dom, bus, dev, &fn) == 4)
		return true;
	*dom = 0;
	return sscanf(s, "%x:%x.%x", bus, dev, &fn) == 3;
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	unsigned int dom, bus, dev;
	if (r == NVML_SUCCESS && (!pciBusId || !device || !parse_bus_id(pciBusId, &dom, &bus, &dev)))
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS) {
		r = NVML_ERROR_NOT_FOUND;
		for (unsigned int i = 0; i < gwsim.ngpus; i++) {
			unsigned int d2, b2, v2;
			if (parse_bus_id(gwsim.gpus[i].st.bus_id, &d2, &b2, &v2) && d2 == dom && b2 == bus && v2 == dev)
				r = handle(i, device);
		}
	}
	return gwsim_leave(r);
}

GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
	return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

nvmlReturn_t gwsim_pci_info(const struct gwsim_gpu *g, nvmlPciInfo_t *pci)
{
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	unsigned int dom = 0, bus = 0, dev = 0;
	parse_bus_id(g->st.bus_id, &dom, &bus, &dev);
	pci->domain = dom;
	pci->bus = bus;
	pci->device = dev;
	pci->pciDeviceId = g->st.pci_device_id;
	pci->pciSubSystemId = g->st.pci_subsys_id;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", dom & 0xFFFF, bus & 0xFF, dev & 0xFF);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", dom, bus & 0xFF, dev & 0xFF);
	return NVML_SUCCESS;
}
