/*
 * binding.h - NVML loaded at run time, for real or simulated GPUs.
 *
 * gw_nvml_open() dlopens one NVML implementation: the driver's
 * libnvidia-ml.so.1 (or GPUWATCH_NVML_LIBRARY), or, when a simulator spec is
 * given, libgpuwatch-sim.so (GPUWATCH_SIM_LIBRARY overrides where it is
 * looked for). Every function of GW_NVML_FUNCS is looked up newest symbol
 * first, then its fallback; a missing REQ function means the library is not
 * NVML, a missing OPT function leaves its pointer NULL (callers treat NULL as
 * "not supported"). nvmlInit runs once here and nvmlShutdown once in
 * gw_nvml_close(): one gw_nvml per process.
 *
 * Ownership: the caller owns the struct gw_nvml and the GPU array it gets
 * from gw_nvml_gpus_list(). Threading: NVML itself is thread-safe; the
 * struct is read-only after open, so any thread may call through it.
 */
#ifndef GW_NVML_BINDING_H
#define GW_NVML_BINDING_H

#include "core/err.h"
#include "nvml/nvml_api.h"

#include <stdbool.h>

#define GW_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"
#define GW_SIM_LIBRARY_NAME "libgpuwatch-sim.so"

struct gw_nvml_opts {
	const char *library; /* NULL: $GPUWATCH_NVML_LIBRARY, else the driver's */
	const char *sim;     /* non-NULL: simulator spec ("8xH200", a file) */
};

struct gw_nvml {
	void *lib;
	bool simulated;
	char path[512]; /* what was loaded */
#define GW_NVML_MEMBER(need, name, params, fallback) nvmlReturn_t(*name) params;
	GW_NVML_FUNCS(GW_NVML_MEMBER)
#undef GW_NVML_MEMBER
	const char *(*nvmlErrorString)(nvmlReturn_t);
};

struct gw_gpm;
struct gw_dsamples;

/* One GPU as seen at open time. */
struct gw_gpu {
	nvmlDevice_t dev;
	unsigned int index;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:83:00.0" */
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	bool lost; /* set once a call returned GPU_IS_LOST */
	struct gw_gpm *gpm; /* GPM state while a sampler runs (collect/gpm.h), else NULL */
	struct gw_dsamples *dsamples; /* driver sample buffers drained by a sampler (collect/dsamples.h) */
};

/*
 * Load and initialise NVML. Errors: GW_ENOLIB (library missing or not NVML),
 * GW_ENODRIVER (nvmlInit says the driver is not loaded), GW_ENVML (other
 * nvmlInit failure), GW_EINVAL (bad simulator spec). err says which.
 */
int gw_nvml_open(struct gw_nvml **out, const struct gw_nvml_opts *opts, struct gw_err *err);
void gw_nvml_close(struct gw_nvml *nv);

/* Enumerate the GPUs; *gpus is malloc'd, free() it. */
int gw_nvml_gpus_list(struct gw_nvml *nv, struct gw_gpu **gpus, unsigned int *count, struct gw_err *err);

/* Human text for an NVML return code (never NULL). */
const char *gw_nvml_strerror(const struct gw_nvml *nv, nvmlReturn_t ret);

/* Map an NVML return code to a GW_E* code. */
int gw_nvml_to_gw(nvmlReturn_t ret);

/*
 * Every function of GW_NVML_FUNCS by its position in the list, so
 * bookkeeping per function (failure counts) is an array indexed by it.
 */
enum gw_nvml_fn {
#define GW_NVML_FN_ENUM(need, name, params, fallback) GW_NVML_FN_##name,
	GW_NVML_FUNCS(GW_NVML_FN_ENUM)
#undef GW_NVML_FN_ENUM
	GW_NVML_FN__COUNT
};

/* The function's name as the binding knows it, newest symbol ("nvmlDeviceGetPciInfo_v3"). */
const char *gw_nvml_fn_name(enum gw_nvml_fn fn);

/*
 * Whether a return code means the call failed, as opposed to succeeding or
 * answering that this GPU, driver or agent lacks the feature. Not failures:
 * SUCCESS; NOT_SUPPORTED, FUNCTION_NOT_FOUND, FREQ_NOT_SUPPORTED,
 * VGPU_ECC_NOT_SUPPORTED and DEPRECATED (the hardware or driver has no such
 * thing); NO_PERMISSION (how the agent runs: a steady property, shown as the
 * value's state, not something that happens); NOT_FOUND and NO_DATA
 * (nothing to report, e.g. no driver sample newer than the last one read);
 * INSUFFICIENT_SIZE (the sizing step of NVML's list protocol). Every other
 * code is a failure: TIMEOUT, UNKNOWN, GPU_IS_LOST, RESET_REQUIRED,
 * IRQ_ISSUE, MEMORY, CORRUPTED_INFOROM, UNINITIALIZED, INVALID_ARGUMENT, ...
 */
bool gw_nvml_failed(nvmlReturn_t ret);

#endif
