/*
 * diag.h - `gpuwatch diag`'s checks, like `dcgmi diag -r 1|2|3`: level 1
 * (deployment) reads the driver, the device files, the environment and each
 * GPU's pending-repair state through NVML; levels 2 and 3 add CUDA tests
 * through the driver API (cuda*.c), loaded at run time.
 *
 * Each check appends one gw_diag_test to a gw_diag_run: PASS, WARN, FAIL
 * or SKIP with what was measured, the threshold it was held to and why.
 * A check that cannot measure says SKIP and the reason, never PASS.
 *
 * Ownership: the caller owns the run (gw_diag_run_init / _release) and the
 * environment strings it passes (borrowed). Threading: one run per thread.
 */
#ifndef GW_DIAG_DIAG_H
#define GW_DIAG_DIAG_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stddef.h>

enum gw_diag_result { GW_DIAG_PASS, GW_DIAG_SKIP, GW_DIAG_WARN, GW_DIAG_FAIL }; /* worst last */

#define GW_DIAG_SYSTEM (-1) /* gpu of a check about the whole system */

struct gw_diag_test {
	char name[40];
	char category[24]; /* "Deployment", "Integration", "Hardware", "Stress" */
	int gpu;	   /* NVML index, or GW_DIAG_SYSTEM */
	enum gw_diag_result result;
	char measured[200];
	char threshold[200];
	char message[400];
};

struct gw_diag_run {
	struct gw_diag_test *t;
	size_t n, cap;
};

/* What level 1 reads from outside NVML; every string may be NULL (unset). */
struct gw_diag_env {
	const char *dev_dir; /* where the device files are: "/dev" */
	const char *cuda_visible_devices;
	const char *cuda_launch_blocking;
	const char *cuda_device_max_connections;
	const char *cuda_mps_pipe_directory;
	const char *cuda_library; /* NULL: "libcuda.so.1" */
};

void gw_diag_run_init(struct gw_diag_run *r);
void gw_diag_run_release(struct gw_diag_run *r);

/* Append a test; GW_ENOMEM when it cannot grow (the test is dropped). */
int gw_diag_add(struct gw_diag_run *r, const char *category, const char *name, int gpu,
		enum gw_diag_result res, const char *measured, const char *threshold, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* The worst result of the run (SKIPs count as PASS). */
enum gw_diag_result gw_diag_overall(const struct gw_diag_run *r);
const char *gw_diag_result_name(enum gw_diag_result res); /* "Pass", "Warn", ... */

/* Level 1 over the selected GPUs (sel[i] for gpus[i]). */
int gw_diag_deployment(struct gw_diag_run *r, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n,
		       const bool *sel, const struct gw_diag_env *env);

/*
 * Levels 2 and 3: the CUDA tests on each selected GPU. Under the simulator,
 * or when libcuda cannot be loaded, every CUDA test is SKIP with the reason.
 * stress_s: seconds of level 3's compute stress (0: level 2 only).
 */
int gw_diag_cuda(struct gw_diag_run *r, struct gw_nvml *nv, const struct gw_gpu *gpus, unsigned int n,
		 const bool *sel, const struct gw_diag_env *env, unsigned int stress_s);

#endif
