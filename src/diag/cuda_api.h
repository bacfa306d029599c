/*
 * cuda_api.h - the CUDA driver API functions the diag tests call, declared
 * here so the build needs no CUDA headers and no libcuda: the library is
 * dlopened at run time (libcuda.so.1, or $GPUWATCH_CUDA_LIBRARY) and each
 * function looked up by its versioned symbol (cuda.h maps cuMemAlloc to
 * cuMemAlloc_v2 and so on). The types and constants are the driver API's
 * (CUDA Driver API reference), only those used.
 *
 * Ownership: a gw_cuda is owned by whoever called gw_cuda_open and closed
 * with gw_cuda_close. Threading: a context is current on the thread that
 * created it; the tests run on one thread.
 */
#ifndef GW_DIAG_CUDA_API_H
#define GW_DIAG_CUDA_API_H

#include <stddef.h>

typedef int CUresult; /* CUDA_SUCCESS 0 */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

#define GW_CUDA_SUCCESS 0
#define GW_CU_ATTR_SM_COUNT 16	    /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
#define GW_CU_ATTR_MEM_CLOCK_KHZ 36 /* CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE */
#define GW_CU_ATTR_MEM_BUS_BITS 37  /* CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH */

/* X(name, symbol, params) */
#define GW_CUDA_FUNCS(X)                                                                                     \
	X(cuInit, "cuInit", (unsigned int flags))                                                            \
	X(cuGetErrorString, "cuGetErrorString", (CUresult err, const char **str))                            \
	X(cuDeviceGetByPCIBusId, "cuDeviceGetByPCIBusId", (CUdevice * dev, const char *busid))               \
	X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attr, CUdevice dev))                    \
	X(cuCtxCreate, "cuCtxCreate_v2", (CUcontext * ctx, unsigned int flags, CUdevice dev))                \
	X(cuCtxDestroy, "cuCtxDestroy_v2", (CUcontext ctx))                                                  \
	X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                                      \
	X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr * p, size_t bytes))                                      \
	X(cuMemFree, "cuMemFree_v2", (CUdeviceptr p))                                                        \
	X(cuMemHostAlloc, "cuMemHostAlloc", (void **p, size_t bytes, unsigned int flags))                    \
	X(cuMemFreeHost, "cuMemFreeHost", (void *p))                                                         \
	X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr dst, const void *src, size_t bytes))                 \
	X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t bytes))                       \
	X(cuMemsetD32, "cuMemsetD32_v2", (CUdeviceptr dst, unsigned int v, size_t n))                        \
	X(cuModuleLoadData, "cuModuleLoadData", (CUmodule * mod, const void *image))                         \
	X(cuModuleUnload, "cuModuleUnload", (CUmodule mod))                                                  \
	X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction * f, CUmodule mod, const char *name))      \
	X(cuLaunchKernel, "cuLaunchKernel",                                                                  \
	  (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,                 \
	   unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params, void **extra))

struct gw_cuda {
	void *lib;
#define GW_CUDA_MEMBER(name, sym, params) CUresult(*name) params;
	GW_CUDA_FUNCS(GW_CUDA_MEMBER)
#undef GW_CUDA_MEMBER
};

/* The PTX module of the tests' kernels (cuda_ptx.c), NUL-terminated as cuModuleLoadData wants. */
extern const char gw_diag_ptx[];

#endif
