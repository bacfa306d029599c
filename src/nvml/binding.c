#include "nvml/binding.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sym {
	const char *name;
	const char *fallback;
	bool required;
	size_t offset;
};

#define GW_NVML_NEED_REQ true
#define GW_NVML_NEED_OPT false

static const struct sym syms[] = {
#define GW_NVML_SYM(need, name, params, fb)                                                        \
	{#name, fb, GW_NVML_NEED_##need, offsetof(struct gw_nvml, name)},
	GW_NVML_FUNCS(GW_NVML_SYM)
#undef GW_NVML_SYM
};

typedef int (*sim_configure_fn)(const char *spec, char *errbuf, unsigned int errlen);

/* Directory of the running executable, so build/gpuwatch finds build/libgpuwatch-sim.so. */
static int exe_dir(char *buf, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", buf, n - 1);
	if (len <= 0)
		return GW_EIO;
	buf[len] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return GW_EIO;
	*slash = '\0';
	return 0;
}

static void *open_sim(char *path, size_t n, struct gw_err *err)
{
	const char *env = getenv("GPUWATCH_SIM_LIBRARY");
	if (env && *env) {
		snprintf(path, n, "%s", env);
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			gw_err_set(err, GW_ENOLIB, "cannot load simulator %s: %s", path, dlerror());
		return h;
	}
	char dir[PATH_MAX];
	if (exe_dir(dir, sizeof(dir)) == 0) {
		const char *rel[] = {"/", "/../lib/gpuwatch/", "/../lib/", "/../"};
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			int len = snprintf(path, n, "%s%s%s", dir, rel[i], GW_SIM_LIBRARY_NAME);
			if (len < 0 || (size_t)len >= n)
				continue; /* too long a path: not ours to load */
			if (access(path, R_OK) == 0) {
				void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
				if (h)
					return h;
				gw_err_set(err, GW_ENOLIB, "cannot load simulator %s: %s", path, dlerror());
				return NULL;
			}
		}
	}
	snprintf(path, n, "%s", GW_SIM_LIBRARY_NAME);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		gw_err_set(err, GW_ENOLIB,
			   "cannot find %s next to the gpuwatch binary (set GPUWATCH_SIM_LIBRARY)",
			   GW_SIM_LIBRARY_NAME);
	return h;
}

typedef int (*sim_missing_fn)(const char *name);

/*
 * The simulator can pretend an exported function is absent (an old driver),
 * so the binding's "function not found" paths run in tests: it answers
 * gwsim_symbol_missing(name) != 0 for those.
 */
static void *lookup(void *lib, sim_missing_fn missing, const char *name)
{
	if (missing && missing(name))
		return NULL;
	return dlsym(lib, name);
}

static int resolve(struct gw_nvml *nv, struct gw_err *err)
{
	sim_missing_fn missing = NULL;
	if (nv->simulated)
		*(void **)&missing = dlsym(nv->lib, "gwsim_symbol_missing");
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = lookup(nv->lib, missing, syms[i].name);
		if (!p && syms[i].fallback)
			p = lookup(nv->lib, missing, syms[i].fallback);
		if (!p && syms[i].required)
			return gw_err_set(err, GW_ENOLIB, "%s is not an NVML library: no symbol %s",
					  nv->path, syms[i].name);
		memcpy((char *)nv + syms[i].offset, &p, sizeof(p));
	}
	*(void **)&nv->nvmlErrorString = dlsym(nv->lib, "nvmlErrorString");
	return 0;
}

int gw_nvml_to_gw(nvmlReturn_t ret)
{
	switch (ret) {
	case NVML_SUCCESS:
		return 0;
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return GW_ENODRIVER;
	case NVML_ERROR_LIBRARY_NOT_FOUND:
	case NVML_ERROR_FUNCTION_NOT_FOUND:
		return GW_ENOLIB;
	case NVML_ERROR_GPU_IS_LOST:
		return GW_EGPULOST;
	case NVML_ERROR_NOT_SUPPORTED:
		return GW_ENOTSUP;
	case NVML_ERROR_NO_PERMISSION:
		return GW_EPERM;
	case NVML_ERROR_TIMEOUT:
		return GW_ETIMEOUT;
	case NVML_ERROR_NOT_FOUND:
		return GW_ENOTFOUND;
	case NVML_ERROR_INVALID_ARGUMENT:
		return GW_EINVAL;
	case NVML_ERROR_MEMORY:
		return GW_ENOMEM;
	default:
		return GW_ENVML;
	}
}

const char *gw_nvml_fn_name(enum gw_nvml_fn fn)
{
	/* syms[] is generated from the same list, in the same order */
	return (size_t)fn < sizeof(syms) / sizeof(syms[0]) ? syms[fn].name : "unknown";
}

bool gw_nvml_failed(nvmlReturn_t ret)
{
	switch (ret) {
	case NVML_SUCCESS:
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND:
	case NVML_ERROR_FREQ_NOT_SUPPORTED:
	case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
	case NVML_ERROR_DEPRECATED:
	case NVML_ERROR_NO_PERMISSION:
	case NVML_ERROR_NOT_FOUND:
	case NVML_ERROR_NO_DATA:
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return false;
	default:
		return true;
	}
}

const char *gw_nvml_strerror(const struct gw_nvml *nv, nvmlReturn_t ret)
{
	if (nv && nv->nvmlErrorString) {
		const char *s = nv->nvmlErrorString(ret);
		if (s)
			return s;
	}
	switch (ret) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT:
		return "Timeout";
	default:
		return "Unknown Error";
	}
}

int gw_nvml_open(struct gw_nvml **out, const struct gw_nvml_opts *opts, struct gw_err *err)
{
	*out = NULL;
	struct gw_nvml *nv = calloc(1, sizeof(*nv));
	if (!nv)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (opts && opts->sim) {
		nv->simulated = true;
		nv->lib = open_sim(nv->path, sizeof(nv->path), err);
	} else {
		const char *lib = opts && opts->library ? opts->library : getenv("GPUWATCH_NVML_LIBRARY");
		if (!lib || !*lib)
			lib = GW_NVML_DEFAULT_LIBRARY;
		snprintf(nv->path, sizeof(nv->path), "%s", lib);
		nv->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (!nv->lib)
			gw_err_set(err, GW_ENOLIB, "cannot load %s: %s", lib, dlerror());
	}
	if (!nv->lib) {
		free(nv);
		return GW_ENOLIB;
	}
	int rc = 0;
	if (nv->simulated) {
		/* Configure first: the scenario decides which symbols look missing. */
		sim_configure_fn configure;
		*(void **)&configure = dlsym(nv->lib, "gwsim_configure");
		if (!configure) {
			rc = gw_err_set(err, GW_ENOLIB, "%s is not the gpuwatch simulator", nv->path);
		} else {
			char msg[GW_ERR_MSG_MAX];
			msg[0] = '\0';
			if (configure(opts->sim, msg, sizeof(msg)) != 0)
				rc = gw_err_set(err, GW_EINVAL, "--sim %s: %s", opts->sim, msg);
		}
	}
	if (rc == 0)
		rc = resolve(nv, err);
	if (rc == 0) {
		nvmlReturn_t ret = nv->nvmlInit_v2();
		if (ret != NVML_SUCCESS) {
			rc = gw_nvml_to_gw(ret);
			if (rc == GW_ENOTSUP || rc == GW_ENOTFOUND)
				rc = GW_ENVML;
			gw_err_set(err, rc, "nvmlInit: %s", gw_nvml_strerror(nv, ret));
		}
	}
	if (rc != 0) {
		dlclose(nv->lib);
		free(nv);
		return rc;
	}
	*out = nv;
	return 0;
}

void gw_nvml_close(struct gw_nvml *nv)
{
	if (!nv)
		return;
	nv->nvmlShutdown();
	dlclose(nv->lib);
	free(nv);
}

int gw_nvml_gpus_list(struct gw_nvml *nv, struct gw_gpu **gpus, unsigned int *count, struct gw_err *err)
{
	*gpus = NULL;
	*count = 0;
	unsigned int n = 0;
	nvmlReturn_t ret = nv->nvmlDeviceGetCount_v2(&n);
	if (ret != NVML_SUCCESS)
		return gw_err_set(err, gw_nvml_to_gw(ret), "nvmlDeviceGetCount: %s", gw_nvml_strerror(nv, ret));
	struct gw_gpu *g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (unsigned int i = 0; i < n; i++) {
		g[i].index = i;
		ret = nv->nvmlDeviceGetHandleByIndex_v2(i, &g[i].dev);
		if (ret == NVML_ERROR_GPU_IS_LOST) {
			g[i].lost = true;
			continue;
		}
		if (ret != NVML_SUCCESS) {
			free(g);
			return gw_err_set(err, gw_nvml_to_gw(ret), "nvmlDeviceGetHandleByIndex(%u): %s", i,
					  gw_nvml_strerror(nv, ret));
		}
		if (nv->nvmlDeviceGetUUID &&
		    nv->nvmlDeviceGetUUID(g[i].dev, g[i].uuid, sizeof(g[i].uuid)) == NVML_ERROR_GPU_IS_LOST)
			g[i].lost = true;
		if (nv->nvmlDeviceGetName)
			nv->nvmlDeviceGetName(g[i].dev, g[i].name, sizeof(g[i].name));
		nvmlPciInfo_t pci;
		if (nv->nvmlDeviceGetPciInfo_v3 && nv->nvmlDeviceGetPciInfo_v3(g[i].dev, &pci) == NVML_SUCCESS)
			snprintf(g[i].bus_id, sizeof(g[i].bus_id), "%s", pci.busId);
	}
	*gpus = g;
	*count = n;
	return 0;
}
