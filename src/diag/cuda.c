/*
 * cuda.c - levels 2 and 3: the CUDA tests (not yet: each is SKIP).
 */
#include "diag/diag_int.h"

int gw_diag_cuda(struct gw_diag_run *r, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n,
		 const bool *sel, const struct gw_diag_env *env, unsigned int stress_s)
{
	(void)nv, (void)gpus, (void)n, (void)sel, (void)env, (void)stress_s;
	return gw_diag_add(r, "Integration", "CUDA", GW_DIAG_SYSTEM, GW_DIAG_SKIP, "", "", "not built yet");
}
