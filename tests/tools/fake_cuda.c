/*
 * fake_cuda.c - a stand-in for libcuda.so.1 that tests/integration/diag.sh
 * loads through GPUWATCH_CUDA_LIBRARY, so the CUDA tests' plumbing (calls,
 * results, messages) runs without a GPU. Nothing is computed: device
 * pointers are tokens, copies to the device and kernels do nothing, copies
 * to the host write zeros. Environment:
 *   FAKE_CUDA_FAIL=NAME      that function answers CUresult 999
 *   FAKE_CUDA_BAD_WORDS=N    the memory pattern test's error count reads N
 */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define FAKE_FAILURE 999

static CUresult answer(const char *fn)
{
	const char *f = getenv("FAKE_CUDA_FAIL");
	return f && strcmp(f, fn) == 0 ? FAKE_FAILURE : 0;
}

CUresult cuInit(unsigned int flags)
{
	(void)flags;
	return answer("cuInit");
}

CUresult cuGetErrorString(CUresult err, const char **s)
{
	*s = err == FAKE_FAILURE ? "fake failure" : "fake: unexpected code";
	return 0;
}

CUresult cuDeviceGetByPCIBusId(int *dev, const char *bus)
{
	*dev = bus && *bus ? 0 : -1;
	return answer("cuDeviceGetByPCIBusId");
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	*v = attr == 16 ? 4 : attr == 36 ? 1000000 : attr == 37 ? 64 : 0; /* 4 SMs, 1 GHz x 64 bits: 16 GB/s */
	return answer("cuDeviceGetAttribute");
}

CUresult cuCtxCreate_v2(void **ctx, unsigned int flags, int dev)
{
	(void)flags, (void)dev;
	*ctx = (void *)0x1;
	return answer("cuCtxCreate_v2");
}

CUresult cuCtxDestroy_v2(void *ctx) { return ctx ? 0 : 1; }
CUresult cuCtxSynchronize(void) { return answer("cuCtxSynchronize"); }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	*p = (CUdeviceptr)bytes | 1ULL << 40;
	return answer("cuMemAlloc_v2");
}

CUresult cuMemFree_v2(CUdeviceptr p) { return p ? 0 : 1; }

CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
	(void)flags;
	if (answer("cuMemHostAlloc"))
		return FAKE_FAILURE;
	*p = malloc(bytes);
	return *p ? 0 : 2;
}

CUresult cuMemFreeHost(void *p)
{
	free(p);
	return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
	(void)dst, (void)src, (void)bytes;
	return answer("cuMemcpyHtoD_v2");
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
	(void)src;
	if (bytes <= (1 << 20)) /* results and counters; bulk copies are left as they are */
		memset(dst, 0, bytes);
	const char *bad = getenv("FAKE_CUDA_BAD_WORDS");
	if (bad && bytes == sizeof(unsigned int)) {
		unsigned int n = (unsigned int)strtoul(bad, NULL, 10);
		memcpy(dst, &n, sizeof(n));
	}
	return answer("cuMemcpyDtoH_v2");
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n)
{
	(void)dst, (void)v, (void)n;
	return answer("cuMemsetD32_v2");
}

CUresult cuModuleLoadData(void **mod, const void *image)
{
	*mod = (void *)0x2;
	return strstr(image, ".entry gw_fill") ? answer("cuModuleLoadData") : 1;
}

CUresult cuModuleUnload(void *mod) { return mod ? 0 : 1; }

CUresult cuModuleGetFunction(void **f, void *mod, const char *name)
{
	(void)mod;
	*f = (void *)0x3;
	return strncmp(name, "gw_", 3) == 0 ? answer("cuModuleGetFunction") : 500;
}

CUresult cuLaunchKernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			unsigned int by, unsigned int bz, unsigned int shared, void *s, void **params, void **extra)
{
	(void)f, (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)s, (void)extra;
	return gx && bx && params ? answer("cuLaunchKernel") : 1;
}
