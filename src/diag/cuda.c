/*
 * cuda.c - levels 2 and 3: the CUDA driver API loaded at run time, one
 * context per selected GPU (found by its PCI bus id, so CUDA's device order
 * and CUDA_VISIBLE_DEVICES do not matter), then the tests of cuda_tests.c.
 * Whatever stops a test is its SKIP or FAIL with the driver's own words.
 */
#include "diag/cuda_int.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_LIBRARY "libcuda.so.1"

/* Every CUDA test's name and category, in the order they run; stress only at level 3. */
static const struct {
	const char *name, *category;
	bool stress;
} tests[] = {
    {"CUDA context", "Integration", false},	   {"PCIe host to device", "Integration", false},
    {"PCIe device to host", "Integration", false}, {"Memory bandwidth", "Hardware", false},
    {"Memory pattern", "Hardware", false},	   {"Compute stress", "Stress", true},
};

#define NTESTS (sizeof(tests) / sizeof(tests[0]))

const char *gw_cuda_msg(const struct gw_cuda *cu, CUresult rc, char *buf, size_t len)
{
	const char *s = NULL;
	if (cu->cuGetErrorString(rc, &s) != GW_CUDA_SUCCESS || !s)
		s = "unknown error";
	snprintf(buf, len, "CUresult %d: %s", rc, s);
	return buf;
}

/* SKIP every CUDA test from the first'th on, for one GPU (or the system: gpu < 0). */
static void skip_from(struct gw_diag_run *r, size_t first, int gpu, unsigned int stress_s, const char *why)
{
	for (size_t i = first; i < NTESTS; i++)
		if (!tests[i].stress || stress_s)
			gw_diag_add(r, tests[i].category, tests[i].name, gpu, GW_DIAG_SKIP, "",
				    "see docs/HEALTH.md", "%s", why);
}

/* dlopen the driver API and look up every function; *why says what failed. */
static int cuda_open(struct gw_cuda *cu, const char *name, char *why, size_t len)
{
	memset(cu, 0, sizeof(*cu));
	cu->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib) {
		const char *e = dlerror();
		snprintf(why, len, "%s not found: %s", name, e ? e : "unknown error");
		return GW_ENOLIB;
	}
#define GW_CUDA_LOOKUP(fn, sym, params)                                                                      \
	if (!(*(void **)&cu->fn = dlsym(cu->lib, sym))) {                                                    \
		snprintf(why, len, "%s is not the CUDA driver: it has no %s", name, sym);                    \
		dlclose(cu->lib);                                                                            \
		cu->lib = NULL;                                                                              \
		return GW_ENOLIB;                                                                            \
	}
	GW_CUDA_FUNCS(GW_CUDA_LOOKUP)
#undef GW_CUDA_LOOKUP
	return 0;
}

/* NVML's "00000000:83:00.0" as CUDA's "0000:83:00.0". */
static void cuda_bus_id(const char *nvml, char *out, size_t len)
{
	size_t dom = strcspn(nvml, ":");
	snprintf(out, len, "%s", dom == 8 && strncmp(nvml, "0000", 4) == 0 ? nvml + 4 : nvml);
}

static void one_gpu(struct gw_cuda_gpu *g, unsigned int stress_s)
{
	char bus[32], msg[256];
	const struct gw_cuda *cu = g->cu;
	cuda_bus_id(g->gpu->bus_id, bus, sizeof(bus));
	const char *th = "device found by PCI bus id; context created; 1 MiB allocated";
	CUresult rc = cu->cuDeviceGetByPCIBusId(&g->dev, bus);
	if (rc != GW_CUDA_SUCCESS && g->visible) { /* hidden on purpose: not this GPU's fault */
		gw_diag_add(g->r, "Integration", "CUDA context", g->index, GW_DIAG_SKIP, bus, th,
			    "CUDA_VISIBLE_DEVICES=%s hides this GPU from CUDA: %s", g->visible,
			    gw_cuda_msg(cu, rc, msg, sizeof(msg)));
		skip_from(g->r, 1, g->index, stress_s, "hidden from CUDA by CUDA_VISIBLE_DEVICES");
		return;
	}
	if (rc != GW_CUDA_SUCCESS) {
		gw_diag_add(g->r, "Integration", "CUDA context", g->index, GW_DIAG_FAIL, bus, th,
			    "CUDA has no device at %s though NVML has: %s", bus,
			    gw_cuda_msg(cu, rc, msg, sizeof(msg)));
		skip_from(g->r, 1, g->index, stress_s, "no CUDA device for this GPU");
		return;
	}
	CUcontext ctx = NULL;
	CUdeviceptr p = 0;
	int sms = 0;
	const char *step = "cuCtxCreate";
	if ((rc = cu->cuCtxCreate(&ctx, 0, g->dev)) != GW_CUDA_SUCCESS)
		ctx = NULL;
	else if ((step = "cuMemAlloc", rc = cu->cuMemAlloc(&p, (size_t)1 << 20)) == GW_CUDA_SUCCESS &&
		 (step = "cuMemFree", rc = cu->cuMemFree(p)) == GW_CUDA_SUCCESS)
		rc = (step = "cuDeviceGetAttribute",
		      cu->cuDeviceGetAttribute(&sms, GW_CU_ATTR_SM_COUNT, g->dev));
	if (rc != GW_CUDA_SUCCESS) {
		gw_diag_add(g->r, "Integration", "CUDA context", g->index, GW_DIAG_FAIL, bus, th,
			    "%s failed: %s", step, gw_cuda_msg(cu, rc, msg, sizeof(msg)));
		skip_from(g->r, 1, g->index, stress_s, "no usable CUDA context on this GPU");
		if (ctx)
			cu->cuCtxDestroy(ctx);
		return;
	}
	g->sms = sms > 0 ? (unsigned int)sms : 1;
	gw_diag_add(g->r, "Integration", "CUDA context", g->index, GW_DIAG_PASS, bus, th,
		    "CUDA device %d, %d multiprocessors", g->dev, sms);
	if ((rc = cu->cuModuleLoadData(&g->mod, gw_diag_ptx)) != GW_CUDA_SUCCESS) {
		g->mod = NULL;
		snprintf(msg, sizeof(msg), "the tests' PTX did not load: ");
		gw_cuda_msg(cu, rc, msg + strlen(msg), sizeof(msg) - strlen(msg));
	}
	gw_cuda_pcie(g);
	if (g->mod) {
		gw_cuda_memory(g);
		if (stress_s)
			gw_cuda_stress(g, stress_s);
		cu->cuModuleUnload(g->mod);
	} else {
		for (size_t i = 3; i < NTESTS; i++)
			if (!tests[i].stress || stress_s)
				gw_diag_add(g->r, tests[i].category, tests[i].name, g->index, GW_DIAG_FAIL,
					    "", "the kernels load", "%s", msg);
	}
	cu->cuCtxDestroy(ctx);
}

int gw_diag_cuda(struct gw_diag_run *r, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n,
		 const bool *sel, const struct gw_diag_env *env, unsigned int stress_s)
{
	size_t before = r->n;
	const char *name = env->cuda_library && *env->cuda_library ? env->cuda_library : DEFAULT_LIBRARY;
	struct gw_cuda cu;
	char why[600];
	if (cuda_open(&cu, name, why, sizeof(why)) != 0) {
		skip_from(r, 0, GW_DIAG_SYSTEM, stress_s, why);
		return r->n > before ? 0 : GW_ENOMEM;
	}
	CUresult rc;
	if (nv->simulated) {
		skip_from(r, 0, GW_DIAG_SYSTEM, stress_s, "simulated GPUs have no CUDA");
	} else if ((rc = cu.cuInit(0)) != GW_CUDA_SUCCESS) {
		char msg[256];
		gw_diag_add(r, "Integration", "CUDA context", GW_DIAG_SYSTEM, GW_DIAG_FAIL, name,
			    "cuInit succeeds", "cuInit failed: %s", gw_cuda_msg(&cu, rc, msg, sizeof(msg)));
		skip_from(r, 1, GW_DIAG_SYSTEM, stress_s, "CUDA did not initialise");
	} else {
		for (unsigned int i = 0; i < n; i++) {
			if (!sel[i])
				continue;
			struct gw_cuda_gpu g = {.r = r,
						.nv = nv,
						.cu = &cu,
						.gpu = &gpus[i],
						.index = (int)gpus[i].index,
						.visible = env->cuda_visible_devices};
			one_gpu(&g, stress_s);
		}
	}
	dlclose(cu.lib);
	return r->n > before ? 0 : GW_ENOMEM;
}
