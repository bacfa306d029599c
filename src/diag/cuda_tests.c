/*
 * cuda_tests.c - the measurements of levels 2 and 3 on one GPU whose
 * context is current: PCIe bandwidth each way against the link NVML
 * reports, device memory bandwidth against the board's peak, a memory
 * pattern test, and level 3's compute stress watched through NVML.
 *
 * Thresholds (docs/HEALTH.md): PCIe pass at >= 50 % of the link's
 * theoretical rate per direction (max generation x max width, after
 * encoding), warn from 25 %, fail below; memory bandwidth pass at >= 40 %
 * of the peak CUDA reports (2 x memory clock x bus width), warn from 15 %,
 * fail below. The kernels are simple grid-stride loops, not tuned copies,
 * hence the margins.
 */
#include "diag/cuda_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PCIE_BYTES ((size_t)256 << 20)
#define PCIE_REPS 8
#define MEM_WORDS ((size_t)64 << 20) /* 512 MiB of u64 per buffer */
#define MEM_REPS 10
#define BLOCK 256
#define STRESS_SAMPLE 4096 /* floats compared between launches */
#define STRESS_LAUNCH_S 0.2

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Verdict of a measured rate against a reference: pass >= pass_frac, warn >= warn_frac. */
static enum gw_diag_result grade(double got, double ref, double pass_frac, double warn_frac)
{
	return got >= ref * pass_frac ? GW_DIAG_PASS : got >= ref * warn_frac ? GW_DIAG_WARN : GW_DIAG_FAIL;
}

/* GB/s of one lane after encoding: 8b/10b for gen 1-2, 128b/130b from gen 3 (PCIe specifications). */
static double lane_gbs(unsigned int gen)
{
	static const double rate[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
	return gen < sizeof(rate) / sizeof(rate[0]) ? rate[gen] : 0;
}

static void pcie_one(struct gw_cuda_gpu *g, bool h2d, void *host, CUdeviceptr dev, double link_gbs,
		     const char *link)
{
	const struct gw_cuda *cu = g->cu;
	const char *name = h2d ? "PCIe host to device" : "PCIe device to host";
	char msg[256], th[160], m[160];
	snprintf(th, sizeof(th), ">= 50%% of %s (%.1f GB/s) to pass, >= 25%% to warn", link, link_gbs);
	CUresult rc = GW_CUDA_SUCCESS;
	double t0 = 0;
	for (int i = 0; i <= PCIE_REPS && rc == GW_CUDA_SUCCESS; i++) {
		if (i == 1) /* the first copy warms the path up */
			t0 = now_s();
		rc = h2d ? cu->cuMemcpyHtoD(dev, host, PCIE_BYTES) : cu->cuMemcpyDtoH(host, dev, PCIE_BYTES);
	}
	if (rc == GW_CUDA_SUCCESS)
		rc = cu->cuCtxSynchronize();
	if (rc != GW_CUDA_SUCCESS) {
		gw_diag_add(g->r, "Integration", name, g->index, GW_DIAG_FAIL, "", th, "the copy failed: %s",
			    gw_cuda_msg(cu, rc, msg, sizeof(msg)));
		return;
	}
	double gbs = (double)PCIE_BYTES * PCIE_REPS / (now_s() - t0) / 1e9;
	snprintf(m, sizeof(m), "%.1f GB/s", gbs);
	if (link_gbs <= 0) {
		gw_diag_add(g->r, "Integration", name, g->index, GW_DIAG_SKIP, m,
			    "the PCIe link NVML reports",
			    "NVML reports no PCIe link generation and width to compare with");
		return;
	}
	enum gw_diag_result res = grade(gbs, link_gbs, 0.5, 0.25);
	gw_diag_add(g->r, "Integration", name, g->index, res, m, th, "%.0f%% of the link's %.1f GB/s%s",
		    100 * gbs / link_gbs, link_gbs,
		    res == GW_DIAG_PASS ? "" : ": a link trained down, a shared switch or a slow root port");
}

void gw_cuda_pcie(struct gw_cuda_gpu *g)
{
	const struct gw_cuda *cu = g->cu;
	struct gw_nvml *nv = g->nv;
	unsigned int gen = 0, width = 0;
	if (!nv->nvmlDeviceGetMaxPcieLinkGeneration ||
	    nv->nvmlDeviceGetMaxPcieLinkGeneration(g->gpu->dev, &gen) || !nv->nvmlDeviceGetMaxPcieLinkWidth ||
	    nv->nvmlDeviceGetMaxPcieLinkWidth(g->gpu->dev, &width))
		gen = width = 0;
	char link[64], msg[256];
	snprintf(link, sizeof(link), "PCIe gen %u x%u", gen, width);
	double link_gbs = lane_gbs(gen) * width;
	void *host = NULL;
	CUdeviceptr dev = 0;
	CUresult rc = cu->cuMemHostAlloc(&host, PCIE_BYTES, 0);
	if (rc == GW_CUDA_SUCCESS && (rc = cu->cuMemAlloc(&dev, PCIE_BYTES)) != GW_CUDA_SUCCESS)
		dev = 0;
	if (rc != GW_CUDA_SUCCESS) {
		gw_cuda_msg(cu, rc, msg, sizeof(msg));
		for (int i = 0; i < 2; i++)
			gw_diag_add(g->r, "Integration", i ? "PCIe device to host" : "PCIe host to device",
				    g->index, GW_DIAG_FAIL, "", "256 MiB pinned host and device buffers",
				    "allocating the buffers failed: %s", msg);
	} else {
		memset(host, 0x5a, PCIE_BYTES);
		pcie_one(g, true, host, dev, link_gbs, link);
		pcie_one(g, false, host, dev, link_gbs, link);
	}
	if (dev)
		cu->cuMemFree(dev);
	if (host)
		cu->cuMemFreeHost(host);
}

static CUresult launch(struct gw_cuda_gpu *g, const char *kernel, void **params)
{
	CUfunction f;
	CUresult rc = g->cu->cuModuleGetFunction(&f, g->mod, kernel);
	if (rc == GW_CUDA_SUCCESS)
		rc = g->cu->cuLaunchKernel(f, g->sms * 8, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL);
	return rc;
}

static void bandwidth(struct gw_cuda_gpu *g, CUdeviceptr a, CUdeviceptr b)
{
	const struct gw_cuda *cu = g->cu;
	int khz = 0, bits = 0;
	if (cu->cuDeviceGetAttribute(&khz, GW_CU_ATTR_MEM_CLOCK_KHZ, g->dev) != GW_CUDA_SUCCESS ||
	    cu->cuDeviceGetAttribute(&bits, GW_CU_ATTR_MEM_BUS_BITS, g->dev) != GW_CUDA_SUCCESS)
		khz = bits = 0;
	double peak = 2.0 * khz * 1e3 * bits / 8 / 1e9; /* GB/s: double data rate */
	unsigned long long n = MEM_WORDS;
	void *params[] = {&a, &b, &n};
	char msg[256], th[160], m[96];
	snprintf(th, sizeof(th), ">= 40%% of the peak %.0f GB/s to pass, >= 15%% to warn", peak);
	CUresult rc = launch(g, "gw_copy", params);
	if (rc == GW_CUDA_SUCCESS)
		rc = cu->cuCtxSynchronize();
	double t0 = now_s();
	for (int i = 0; i < MEM_REPS && rc == GW_CUDA_SUCCESS; i++)
		rc = launch(g, "gw_copy", params);
	if (rc == GW_CUDA_SUCCESS)
		rc = cu->cuCtxSynchronize();
	if (rc != GW_CUDA_SUCCESS) {
		gw_diag_add(g->r, "Hardware", "Memory bandwidth", g->index, GW_DIAG_FAIL, "", th,
			    "the copy kernel failed: %s", gw_cuda_msg(cu, rc, msg, sizeof(msg)));
		return;
	}
	double gbs = 2.0 * (double)MEM_WORDS * 8 * MEM_REPS / (now_s() - t0) / 1e9; /* read + write */
	snprintf(m, sizeof(m), "%.0f GB/s (read + write)", gbs);
	if (peak <= 0) {
		gw_diag_add(g->r, "Hardware", "Memory bandwidth", g->index, GW_DIAG_SKIP, m,
			    "the board's peak", "CUDA reports no memory clock and bus width to compare with");
		return;
	}
	gw_diag_add(g->r, "Hardware", "Memory bandwidth", g->index, grade(gbs, peak, 0.4, 0.15), m, th,
		    "%.0f%% of the peak %.0f GB/s (%d MHz x %d bits x 2)", 100 * gbs / peak, peak, khz / 1000,
		    bits);
}

/* Fill with i ^ seed, read back, count the words that differ; for four seeds. */
static void pattern(struct gw_cuda_gpu *g, CUdeviceptr buf, CUdeviceptr errs)
{
	static const unsigned long long seeds[] = {0, ~0ULL, 0xAAAAAAAAAAAAAAAAULL, 0x5555555555555555ULL};
	const struct gw_cuda *cu = g->cu;
	unsigned long long n = MEM_WORDS;
	unsigned int bad = 0;
	char msg[256], m[96];
	const char *th = "every word reads back as written (address ^ 0, ~0, 0xAA.., 0x55..)";
	CUresult rc = cu->cuMemsetD32(errs, 0, 1);
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]) && rc == GW_CUDA_SUCCESS; s++) {
		unsigned long long seed = seeds[s];
		void *fill[] = {&buf, &n, &seed};
		void *check[] = {&buf, &n, &seed, &errs};
		if ((rc = launch(g, "gw_fill", fill)) == GW_CUDA_SUCCESS)
			rc = launch(g, "gw_check", check);
	}
	if (rc == GW_CUDA_SUCCESS)
		rc = cu->cuMemcpyDtoH(&bad, errs, sizeof(bad));
	if (rc != GW_CUDA_SUCCESS) {
		gw_diag_add(g->r, "Hardware", "Memory pattern", g->index, GW_DIAG_FAIL, "", th,
			    "the pattern kernels failed: %s", gw_cuda_msg(cu, rc, msg, sizeof(msg)));
		return;
	}
	snprintf(m, sizeof(m), "%u wrong words in 4 x %zu MiB", bad, MEM_WORDS * 8 >> 20);
	if (bad)
		gw_diag_add(g->r, "Hardware", "Memory pattern", g->index, GW_DIAG_FAIL, m, th,
			    "memory returned other values than written: check ECC errors and retired pages");
	else
		gw_diag_add(g->r, "Hardware", "Memory pattern", g->index, GW_DIAG_PASS, m, th, "no errors");
}

void gw_cuda_memory(struct gw_cuda_gpu *g)
{
	const struct gw_cuda *cu = g->cu;
	CUdeviceptr a = 0, b = 0, errs = 0;
	char msg[256];
	CUresult rc = cu->cuMemAlloc(&a, MEM_WORDS * 8);
	if (rc == GW_CUDA_SUCCESS && (rc = cu->cuMemAlloc(&b, MEM_WORDS * 8)) != GW_CUDA_SUCCESS)
		b = 0;
	if (rc == GW_CUDA_SUCCESS && (rc = cu->cuMemAlloc(&errs, 64)) != GW_CUDA_SUCCESS)
		errs = 0;
	if (rc != GW_CUDA_SUCCESS) {
		gw_cuda_msg(cu, rc, msg, sizeof(msg));
		gw_diag_add(g->r, "Hardware", "Memory bandwidth", g->index, GW_DIAG_FAIL, "", "2 x 512 MiB",
			    "allocating device memory failed: %s", msg);
		gw_diag_add(g->r, "Hardware", "Memory pattern", g->index, GW_DIAG_FAIL, "", "512 MiB",
			    "allocating device memory failed: %s", msg);
	} else {
		bandwidth(g, a, b);
		pattern(g, a, errs);
	}
	if (errs)
		cu->cuMemFree(errs);
	if (b)
		cu->cuMemFree(b);
	if (a)
		cu->cuMemFree(a);
}
