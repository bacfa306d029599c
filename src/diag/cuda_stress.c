/*
 * cuda_stress.c - level 3's compute stress: the FMA kernel launched again
 * and again for the given seconds on one GPU while NVML is read after each
 * launch (SM clock, temperature, clock event reasons) and its XID events
 * drained. Each launch must give the same results as the first: a GPU that
 * computes differently under heat is broken even when nothing else says so.
 *
 * Verdict: FAIL on a CUDA error, an XID or results that differ; WARN on a
 * hardware slowdown (HW, HW thermal, power brake) or the driver's thermal
 * slowdown (SW thermal), or a temperature at the
 * slowdown threshold; else PASS.
 */
#include "diag/cuda_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK 256
#define SAMPLE 4096	 /* floats compared between launches */
#define START_ITERS 4096 /* FMA loop count of the first launch, then scaled to ~0.2 s */
#define LAUNCH_S 0.2
#define SLOWDOWN                                                                                             \
	(nvmlClocksThrottleReasonHwSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown |                    \
	 nvmlClocksThrottleReasonHwPowerBrakeSlowdown | nvmlClocksEventReasonSwThermalSlowdown)

struct watch {
	unsigned int clk_min, clk_max, temp_max, slow_c, xids, last_xid, launches;
	unsigned long long reasons; /* every reason seen */
	bool mismatch;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sample(struct gw_nvml *nv, nvmlDevice_t d, nvmlEventSet_t set, struct watch *w)
{
	unsigned int v;
	unsigned long long reasons;
	if (nv->nvmlDeviceGetClockInfo && nv->nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
		w->clk_min = w->clk_min && w->clk_min < v ? w->clk_min : v;
		w->clk_max = w->clk_max > v ? w->clk_max : v;
	}
	if (nv->nvmlDeviceGetTemperature &&
	    nv->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS && v > w->temp_max)
		w->temp_max = v;
	if (nv->nvmlDeviceGetCurrentClocksEventReasons &&
	    nv->nvmlDeviceGetCurrentClocksEventReasons(d, &reasons) == NVML_SUCCESS)
		w->reasons |= reasons;
	nvmlEventData_t ev;
	while (set && nv->nvmlEventSetWait_v2(set, &ev, 0) == NVML_SUCCESS)
		if (ev.eventType == nvmlEventTypeXidCriticalError) {
			w->xids++;
			w->last_xid = (unsigned int)ev.eventData;
		}
}

/* An event set for this GPU's XIDs, or NULL where NVML has none. */
static nvmlEventSet_t xid_events(struct gw_nvml *nv, nvmlDevice_t d)
{
	nvmlEventSet_t set = NULL;
	if (!nv->nvmlEventSetCreate || !nv->nvmlDeviceRegisterEvents || !nv->nvmlEventSetWait_v2 ||
	    !nv->nvmlEventSetFree || nv->nvmlEventSetCreate(&set) != NVML_SUCCESS)
		return NULL;
	if (nv->nvmlDeviceRegisterEvents(d, nvmlEventTypeXidCriticalError, set) != NVML_SUCCESS) {
		nv->nvmlEventSetFree(set);
		return NULL;
	}
	return set;
}

/* One launch of gw_fma and its first SAMPLE results into got. */
static CUresult run_once(struct gw_cuda_gpu *g, CUfunction f, CUdeviceptr out, unsigned int iters, float *got)
{
	void *params[] = {&out, &iters};
	CUresult rc = g->cu->cuLaunchKernel(f, g->sms * 8, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL);
	if (rc == GW_CUDA_SUCCESS)
		rc = g->cu->cuCtxSynchronize();
	if (rc == GW_CUDA_SUCCESS)
		rc = g->cu->cuMemcpyDtoH(got, out, SAMPLE * sizeof(float));
	return rc;
}

static void verdict(struct gw_cuda_gpu *g, const struct watch *w, CUresult rc, bool have_set)
{
	char m[200], msg[256];
	const char *th = "no CUDA error, no XID, identical results, no hardware slowdown";
	snprintf(m, sizeof(m), "%u launches; SM clock %u-%u MHz; max %u C (slowdown %u C); %u XIDs",
		 w->launches, w->clk_min, w->clk_max, w->temp_max, w->slow_c, w->xids);
	if (rc != GW_CUDA_SUCCESS)
		gw_diag_add(g->r, "Stress", "Compute stress", g->index, GW_DIAG_FAIL, m, th,
			    "the stress kernel failed: %s", gw_cuda_msg(g->cu, rc, msg, sizeof(msg)));
	else if (w->xids)
		gw_diag_add(g->r, "Stress", "Compute stress", g->index, GW_DIAG_FAIL, m, th,
			    "XID %u under load: see the XID catalogue in docs/HEALTH.md", w->last_xid);
	else if (w->mismatch)
		gw_diag_add(
		    g->r, "Stress", "Compute stress", g->index, GW_DIAG_FAIL, m, th,
		    "the same kernel gave different results between launches: the GPU computes wrong");
	else if (w->reasons & SLOWDOWN)
		gw_diag_add(g->r, "Stress", "Compute stress", g->index, GW_DIAG_WARN, m, th,
			    "slowdown under load (clock event reasons 0x%llx): check cooling and power",
			    w->reasons & SLOWDOWN);
	else if (w->slow_c && w->temp_max >= w->slow_c)
		gw_diag_add(g->r, "Stress", "Compute stress", g->index, GW_DIAG_WARN, m, th,
			    "the GPU reached its slowdown temperature: check cooling");
	else
		gw_diag_add(g->r, "Stress", "Compute stress", g->index, GW_DIAG_PASS, m, th,
			    "stable under load%s", have_set ? "" : " (XID events not available from NVML)");
}

void gw_cuda_stress(struct gw_cuda_gpu *g, unsigned int seconds)
{
	struct gw_nvml *nv = g->nv;
	nvmlDevice_t d = g->gpu->dev;
	struct watch w = {0};
	if (nv->nvmlDeviceGetTemperatureThreshold)
		nv->nvmlDeviceGetTemperatureThreshold(d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &w.slow_c);
	float *first = malloc(SAMPLE * sizeof(float)), *got = malloc(SAMPLE * sizeof(float));
	nvmlEventSet_t set = xid_events(nv, d);
	CUdeviceptr out = 0;
	CUfunction f;
	size_t bytes = (size_t)g->sms * 8 * BLOCK * sizeof(float);
	CUresult rc = g->cu->cuModuleGetFunction(&f, g->mod, "gw_fma");
	if (rc == GW_CUDA_SUCCESS)
		rc = g->cu->cuMemAlloc(&out, bytes < SAMPLE * sizeof(float) ? SAMPLE * sizeof(float) : bytes);
	unsigned int iters = START_ITERS;
	double t0 = 0, t;
	/* the first launch pays for loading the module: time the second to size the rest */
	if (rc == GW_CUDA_SUCCESS && first && got &&
	    (rc = run_once(g, f, out, iters, first)) == GW_CUDA_SUCCESS &&
	    (t0 = now_s(), rc = run_once(g, f, out, iters, first)) == GW_CUDA_SUCCESS) {
		double took = now_s() - t0;
		double scale = took > 0 ? LAUNCH_S / took : 1;
		iters = scale > 1 ? (unsigned int)(iters * (scale < 1e5 ? scale : 1e5)) : iters;
		if ((rc = run_once(g, f, out, iters, first)) == GW_CUDA_SUCCESS) /* the reference */
			w.launches = 1;
		t0 = now_s();
		for (t = t0; rc == GW_CUDA_SUCCESS && t - t0 < seconds; t = now_s()) {
			rc = run_once(g, f, out, iters, got);
			w.launches++;
			w.mismatch = w.mismatch ||
				     (rc == GW_CUDA_SUCCESS && memcmp(first, got, SAMPLE * sizeof(float)));
			sample(nv, d, set, &w);
		}
	}
	if (rc == GW_CUDA_SUCCESS && (!first || !got))
		gw_diag_add(g->r, "Stress", "Compute stress", g->index, GW_DIAG_SKIP, "", "",
			    "out of host memory");
	else
		verdict(g, &w, rc, set != NULL);
	if (out)
		g->cu->cuMemFree(out);
	if (set)
		nv->nvmlEventSetFree(set);
	free(first);
	free(got);
}
