/*
 * cuda_int.h - one GPU's CUDA session, shared by cuda.c (loading, the
 * context, the SKIPs) and cuda_tests.c (the measurements).
 */
#ifndef GW_DIAG_CUDA_INT_H
#define GW_DIAG_CUDA_INT_H

#include "diag/cuda_api.h"
#include "diag/diag_int.h"

struct gw_cuda_gpu {
	struct gw_diag_run *r;
	struct gw_nvml *nv;
	const struct gw_cuda *cu;
	const struct gw_gpu *gpu;
	const char *visible; /* $CUDA_VISIBLE_DEVICES, or NULL */
	int index;	     /* NVML index, for the results */
	CUdevice dev;
	CUmodule mod;	  /* the tests' kernels, NULL when they did not load */
	unsigned int sms; /* multiprocessors: sizes the grids */
};

/* "CUDA_ERROR_X (text)" for rc into buf. */
const char *gw_cuda_msg(const struct gw_cuda *cu, CUresult rc, char *buf, size_t len);

void gw_cuda_pcie(struct gw_cuda_gpu *g);
void gw_cuda_memory(struct gw_cuda_gpu *g);
void gw_cuda_stress(struct gw_cuda_gpu *g, unsigned int seconds);

#endif
