/*
 * deployment.c - level 1: the driver and NVML, the device files and each
 * GPU's state that stops or slows CUDA work (pending page retirement or row
 * remap, a corrupt InfoROM, a MIG change waiting for a reset, the NVSwitch
 * fabric), read straight from NVML so every answer is the driver's now.
 */
#include "diag/diag_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAT "Deployment"

/* NVML's version carries the driver's ("12.590.44.01" or "590.44"): the driver's major must be in it. */
static bool versions_agree(const char *drv, const char *nvml)
{
	char major[16];
	size_t k = strcspn(drv, ".");
	if (k == 0 || k >= sizeof(major))
		return false;
	memcpy(major, drv, k);
	major[k] = 0;
	for (const char *p = nvml; *p;) {
		size_t len = strcspn(p, ".");
		if (len == k && strncmp(p, major, k) == 0)
			return true;
		p += len;
		if (*p)
			p++;
	}
	return false;
}

static void versions(struct gw_diag_run *r, struct gw_nvml *nv)
{
	char drv[96] = "", ver[96] = "", m[300];
	nvmlReturn_t a = nv->nvmlSystemGetDriverVersion ? nv->nvmlSystemGetDriverVersion(drv, sizeof(drv))
							: NVML_ERROR_FUNCTION_NOT_FOUND;
	nvmlReturn_t b = nv->nvmlSystemGetNVMLVersion ? nv->nvmlSystemGetNVMLVersion(ver, sizeof(ver))
						      : NVML_ERROR_FUNCTION_NOT_FOUND;
	gw_diag_add(r, CAT, "NVML library", GW_DIAG_SYSTEM, GW_DIAG_PASS, nv->path, "loads and initialises",
		    "%s loaded and nvmlInit succeeded", nv->simulated ? "the simulator's NVML" : "NVML");
	snprintf(m, sizeof(m), "driver %s, NVML %s", a == NVML_SUCCESS ? drv : "?",
		 b == NVML_SUCCESS ? ver : "?");
	const char *th = "both readable; NVML's version names the driver's major version";
	if (a != NVML_SUCCESS || b != NVML_SUCCESS)
		gw_diag_add(r, CAT, "Driver version", GW_DIAG_SYSTEM, GW_DIAG_FAIL, m, th,
			    "cannot read the %s version: %s", a != NVML_SUCCESS ? "driver" : "NVML",
			    gw_nvml_strerror(nv, a != NVML_SUCCESS ? a : b));
	else if (!versions_agree(drv, ver))
		gw_diag_add(r, CAT, "Driver version", GW_DIAG_SYSTEM, GW_DIAG_FAIL, m, th,
			    "NVML %s does not belong to driver %s: a library left from another driver; "
			    "reinstall the driver or fix the library path",
			    ver, drv);
	else
		gw_diag_add(r, CAT, "Driver version", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
			    "the driver and NVML agree");
}

static void device_file(struct gw_diag_run *r, const char *path, int gpu)
{
	const char *th = "exists, readable and writable by this user";
	if (access(path, F_OK) != 0)
		gw_diag_add(r, CAT, "Device files", gpu, GW_DIAG_FAIL, path, th,
			    "%s does not exist: the driver's module is not loaded or the node was not "
			    "created (nvidia-modprobe, or pass the device into the container)",
			    path);
	else if (access(path, R_OK | W_OK) != 0)
		gw_diag_add(r, CAT, "Device files", gpu, GW_DIAG_FAIL, path, th,
			    "%s is not readable and writable by this user: CUDA cannot open the GPU "
			    "(check its mode and the user's groups)",
			    path);
	else
		gw_diag_add(r, CAT, "Device files", gpu, GW_DIAG_PASS, path, th, "usable");
}

static void device_files(struct gw_diag_run *r, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n,
			 const bool *sel, const char *dir)
{
	const char *th = "exists, readable and writable by this user";
	char path[512];
	if (nv->simulated) {
		gw_diag_add(r, CAT, "Device files", GW_DIAG_SYSTEM, GW_DIAG_SKIP, "", th,
			    "simulated GPUs: no device files");
		return;
	}
	snprintf(path, sizeof(path), "%s/nvidiactl", dir);
	device_file(r, path, GW_DIAG_SYSTEM);
	snprintf(path, sizeof(path), "%s/nvidia-uvm", dir);
	device_file(r, path, GW_DIAG_SYSTEM);
	for (unsigned int g = 0; g < n; g++) {
		if (!sel[g])
			continue;
		unsigned int minor;
		nvmlReturn_t rc = nv->nvmlDeviceGetMinorNumber
				      ? nv->nvmlDeviceGetMinorNumber(gpus[g].dev, &minor)
				      : NVML_ERROR_FUNCTION_NOT_FOUND;
		if (rc != NVML_SUCCESS) {
			gw_diag_add(r, CAT, "Device files", (int)gpus[g].index, GW_DIAG_SKIP, "", th,
				    "minor number not readable: %s", gw_nvml_strerror(nv, rc));
			continue;
		}
		snprintf(path, sizeof(path), "%s/nvidia%u", dir, minor);
		device_file(r, path, (int)gpus[g].index);
	}
}

/* SKIP for a check whose NVML call answered rc; false when rc is SUCCESS. */
static bool skipped(struct gw_diag_run *r, struct gw_nvml *nv, const char *name, int gpu, nvmlReturn_t rc,
		    const char *th)
{
	if (rc == NVML_SUCCESS)
		return false;
	gw_diag_add(r, CAT, name, gpu, GW_DIAG_SKIP, "", th, "%s",
		    rc == NVML_ERROR_FUNCTION_NOT_FOUND ? "this NVML has no such query"
		    : rc == NVML_ERROR_NOT_SUPPORTED	? "this GPU does not report it (NVML: Not Supported)"
							: gw_nvml_strerror(nv, rc));
	return true;
}

#define CALL(nv, fn, ...) ((nv)->fn ? (nv)->fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

static void persistence(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "enabled";
	nvmlEnableState_t on;
	if (skipped(r, nv, "Persistence mode", gpu, CALL(nv, nvmlDeviceGetPersistenceMode, d, &on), th))
		return;
	if (on == NVML_FEATURE_ENABLED)
		gw_diag_add(r, CAT, "Persistence mode", gpu, GW_DIAG_PASS, "enabled", th,
			    "the driver stays initialised between jobs");
	else
		gw_diag_add(r, CAT, "Persistence mode", gpu, GW_DIAG_WARN, "disabled", th,
			    "the driver tears the GPU down when the last client exits: every job pays the "
			    "initialisation again; run nvidia-persistenced");
}

static void pages(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "no page retirement pending";
	nvmlEnableState_t p;
	if (skipped(r, nv, "Page retirement", gpu, CALL(nv, nvmlDeviceGetRetiredPagesPendingStatus, d, &p),
		    th))
		return;
	if (p == NVML_FEATURE_ENABLED)
		gw_diag_add(r, CAT, "Page retirement", gpu, GW_DIAG_FAIL, "pending", th,
			    "pages wait to be retired: the bad memory stays in use until the GPU is reset "
			    "(drain the node, then reset the GPU or reboot)");
	else
		gw_diag_add(r, CAT, "Page retirement", gpu, GW_DIAG_PASS, "none pending", th,
			    "no retirement pending");
}

static void remap(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "no row remap pending or failed";
	unsigned int corr, unc, pend, fail;
	char m[120];
	if (skipped(r, nv, "Row remapping", gpu,
		    CALL(nv, nvmlDeviceGetRemappedRows, d, &corr, &unc, &pend, &fail), th))
		return;
	snprintf(m, sizeof(m), "%u correctable, %u uncorrectable rows; pending %s, failure %s", corr, unc,
		 pend ? "yes" : "no", fail ? "yes" : "no");
	if (fail)
		gw_diag_add(r, CAT, "Row remapping", gpu, GW_DIAG_FAIL, m, th,
			    "a row remap failed: the memory cannot be repaired; the GPU needs replacing");
	else if (pend)
		gw_diag_add(r, CAT, "Row remapping", gpu, GW_DIAG_FAIL, m, th,
			    "a row remap waits for a GPU reset: drain the node and reset the GPU");
	else
		gw_diag_add(r, CAT, "Row remapping", gpu, GW_DIAG_PASS, m, th, "nothing pending");
}

static void inforom(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "nvmlDeviceValidateInforom succeeds";
	nvmlReturn_t rc = CALL(nv, nvmlDeviceValidateInforom, d);
	if (rc == NVML_ERROR_CORRUPTED_INFOROM)
		gw_diag_add(r, CAT, "InfoROM", gpu, GW_DIAG_FAIL, "corrupted", th,
			    "the InfoROM checksum is wrong: ECC and retirement records may be lost; "
			    "have the board serviced");
	else if (!skipped(r, nv, "InfoROM", gpu, rc, th))
		gw_diag_add(r, CAT, "InfoROM", gpu, GW_DIAG_PASS, "valid", th, "checksum valid");
}

static void mig(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "current mode equals pending mode";
	unsigned int cur, pend;
	char m[80];
	nvmlReturn_t rc = CALL(nv, nvmlDeviceGetMigMode, d, &cur, &pend);
	if (rc == NVML_ERROR_NOT_SUPPORTED) {
		gw_diag_add(r, CAT, "MIG mode", gpu, GW_DIAG_SKIP, "", th, "the GPU has no MIG");
		return;
	}
	if (skipped(r, nv, "MIG mode", gpu, rc, th))
		return;
	snprintf(m, sizeof(m), "current %s, pending %s", cur ? "enabled" : "disabled",
		 pend ? "enabled" : "disabled");
	if (cur != pend)
		gw_diag_add(
		    r, CAT, "MIG mode", gpu, GW_DIAG_WARN, m, th,
		    "a MIG mode change waits for a GPU reset: the GPU runs in the old mode until then");
	else
		gw_diag_add(r, CAT, "MIG mode", gpu, GW_DIAG_PASS, m, th, "no change pending");
}

static void compute_mode(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "compute not prohibited; no graphics processes";
	nvmlComputeMode_t mode;
	if (skipped(r, nv, "Compute mode", gpu, CALL(nv, nvmlDeviceGetComputeMode, d, &mode), th))
		return;
	static const char *const names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
	const char *name = mode >= 0 && mode < 4 ? names[mode] : "?";
	unsigned int count = 0;
	nvmlReturn_t rc = CALL(nv, nvmlDeviceGetGraphicsRunningProcesses_v3, d, &count, NULL);
	bool known = rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE;
	char m[120];
	snprintf(m, sizeof(m), "compute mode %s; graphics processes: %s", name,
		 known ? (count ? "yes" : "none") : "unknown");
	if (mode == NVML_COMPUTEMODE_PROHIBITED)
		gw_diag_add(
		    r, CAT, "Compute mode", gpu, GW_DIAG_FAIL, m, th,
		    "compute mode Prohibited: no CUDA context can be created (nvidia-smi -c DEFAULT)");
	else if (known && count > 0)
		gw_diag_add(r, CAT, "Compute mode", gpu, GW_DIAG_WARN, m, th,
			    "%u graphics process(es) share this compute GPU: they take memory and time "
			    "slices from CUDA jobs",
			    count);
	else
		gw_diag_add(r, CAT, "Compute mode", gpu, GW_DIAG_PASS, m, th, "CUDA contexts allowed%s",
			    known ? "; no graphics processes" : "");
}

static void fabric(struct gw_diag_run *r, struct gw_nvml *nv, nvmlDevice_t d, int gpu)
{
	const char *th = "fabric registration completed with success";
	nvmlGpuFabricInfo_t fi;
	memset(&fi, 0, sizeof(fi));
	nvmlReturn_t rc = CALL(nv, nvmlDeviceGetGpuFabricInfo, d, &fi);
	if (rc == NVML_ERROR_NOT_SUPPORTED ||
	    (rc == NVML_SUCCESS && fi.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED)) {
		gw_diag_add(r, CAT, "Fabric manager", gpu, GW_DIAG_SKIP, "", th,
			    "NVML reports no NVSwitch fabric for this GPU");
		return;
	}
	if (skipped(r, nv, "Fabric manager", gpu, rc, th))
		return;
	if (fi.state == NVML_GPU_FABRIC_STATE_NOT_STARTED)
		gw_diag_add(r, CAT, "Fabric manager", gpu, GW_DIAG_FAIL, "not started", th,
			    "the GPU has not joined the NVSwitch fabric: is nvidia-fabricmanager running? "
			    "CUDA fails to initialise until it has");
	else if (fi.state == NVML_GPU_FABRIC_STATE_IN_PROGRESS)
		gw_diag_add(r, CAT, "Fabric manager", gpu, GW_DIAG_WARN, "in progress", th,
			    "fabric registration is still in progress");
	else if (fi.status != NVML_SUCCESS)
		gw_diag_add(r, CAT, "Fabric manager", gpu, GW_DIAG_FAIL, "completed with an error", th,
			    "fabric registration failed: %s", gw_nvml_strerror(nv, fi.status));
	else
		gw_diag_add(r, CAT, "Fabric manager", gpu, GW_DIAG_PASS, "completed", th,
			    "the GPU is registered with the fabric (clique %u)", fi.cliqueId);
}

int gw_diag_deployment(struct gw_diag_run *r, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n,
		       const bool *sel, const struct gw_diag_env *env)
{
	size_t before = r->n;
	versions(r, nv);
	device_files(r, nv, gpus, n, sel, env->dev_dir ? env->dev_dir : "/dev");
	gw_diag_env_checks(r, env, gpus, n);
	for (unsigned int g = 0; g < n; g++) {
		if (!sel[g])
			continue;
		int gpu = (int)gpus[g].index;
		persistence(r, nv, gpus[g].dev, gpu);
		pages(r, nv, gpus[g].dev, gpu);
		remap(r, nv, gpus[g].dev, gpu);
		inforom(r, nv, gpus[g].dev, gpu);
		mig(r, nv, gpus[g].dev, gpu);
		compute_mode(r, nv, gpus[g].dev, gpu);
		fabric(r, nv, gpus[g].dev, gpu);
	}
	return r->n > before ? 0 : GW_ENOMEM;
}
