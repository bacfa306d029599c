/*
 * collect/procs against a fake NVML: the sizing protocol (count 0 first,
 * grow on INSUFFICIENT_SIZE), merging compute and graphics per pid, the v1
 * fallback, names, and a lost GPU.
 */
#include "collect/procs.h"
#include "harness.h"

#include <string.h>

/* The fake driver's state: tests are single-threaded, so file scope is fine here. */
static unsigned int fake_calls;
static unsigned int fake_grow; /* processes that appear after the sizing call */
static nvmlReturn_t fake_fail;

static const nvmlProcessInfo_t compute[] = {
	{5022, 503ULL << 20, GW_PROC_ID_NONE, GW_PROC_ID_NONE},
	{2165, 25ULL << 20, GW_PROC_ID_NONE, GW_PROC_ID_NONE},
	{5021, 360ULL << 20, GW_PROC_ID_NONE, GW_PROC_ID_NONE},
};
static const nvmlProcessInfo_t graphics[] = {
	{2165, 25ULL << 20, GW_PROC_ID_NONE, GW_PROC_ID_NONE},
	{2496, 200ULL << 20, GW_PROC_ID_NONE, GW_PROC_ID_NONE},
};

static nvmlReturn_t list(const nvmlProcessInfo_t *src, unsigned int have, unsigned int *count, nvmlProcessInfo_t *out)
{
	fake_calls++;
	if (fake_fail)
		return fake_fail;
	if (*count < have) {
		*count = have;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	memcpy(out, src, have * sizeof(*out));
	*count = have;
	return NVML_SUCCESS;
}

static nvmlReturn_t fake_compute(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *out)
{
	(void)d;
	/* the first answer undercounts: a process started in between */
	unsigned int have = 3;
	if (fake_grow && fake_calls == 0) {
		fake_calls++;
		*count = 1;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	return list(compute, have, count, out);
}

static nvmlReturn_t fake_graphics(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *out)
{
	(void)d;
	return list(graphics, 2, count, out);
}

static nvmlReturn_t fake_compute_v1(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_v1_t *out)
{
	(void)d;
	fake_calls++;
	if (*count < 1) {
		*count = 1;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	out[0].pid = 77;
	out[0].usedGpuMemory = 5ULL << 20;
	*count = 1;
	return NVML_SUCCESS;
}

static nvmlReturn_t fake_name(unsigned int pid, char *name, unsigned int len)
{
	snprintf(name, len, pid == 2165 ? "/usr/bin/kwin_wayland" : pid == 2496 ? "/usr/bin/plasma-keyboard" : "ffmpeg");
	return NVML_SUCCESS;
}

static void test_merge_and_sort(void)
{
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv));
	nv.nvmlDeviceGetComputeRunningProcesses_v3 = fake_compute;
	nv.nvmlDeviceGetGraphicsRunningProcesses_v3 = fake_graphics;
	nv.nvmlSystemGetProcessName = fake_name;
	fake_calls = 0;
	fake_grow = 1;
	fake_fail = 0;
	struct gw_procs p;
	CHECK_INT_EQ(gw_procs_list(&nv, NULL, &p), 0);
	CHECK_INT_EQ(p.n, 4);
	/* driver order kept: compute first, then graphics-only */
	CHECK_INT_EQ(p.v[0].pid, 5022);
	CHECK_INT_EQ(p.v[1].pid, 2165);
	CHECK(p.v[1].compute && p.v[1].graphics);
	CHECK(!p.v[3].compute && p.v[3].graphics);
	CHECK_STR_EQ(p.v[1].name, "/usr/bin/kwin_wayland");
	CHECK_INT_EQ(p.v[0].used_bytes >> 20, 503);
	gw_procs_sort_pid(&p);
	CHECK_INT_EQ(p.v[0].pid, 2165);
	CHECK_INT_EQ(p.v[3].pid, 5022);
	CHECK_STR_EQ(gw_proc_basename(p.v[1].name), "plasma-keyboard");
	gw_procs_release(&p);
}

static void test_v1_fallback(void)
{
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv));
	nv.nvmlDeviceGetComputeRunningProcesses = fake_compute_v1;
	struct gw_procs p;
	CHECK_INT_EQ(gw_procs_list(&nv, NULL, &p), 0);
	CHECK_INT_EQ(p.n, 1);
	CHECK_INT_EQ(p.v[0].pid, 77);
	CHECK_INT_EQ(p.v[0].gi, GW_PROC_ID_NONE);
	CHECK_STR_EQ(p.v[0].name, ""); /* no name function: unnamed */
	gw_procs_release(&p);
}

static void test_lost_and_unsupported(void)
{
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv));
	nv.nvmlDeviceGetComputeRunningProcesses_v3 = fake_compute;
	struct gw_procs p;
	fake_calls = 0;
	fake_grow = 0;
	fake_fail = NVML_ERROR_GPU_IS_LOST;
	CHECK_INT_EQ(gw_procs_list(&nv, NULL, &p), GW_EGPULOST);
	CHECK_INT_EQ(p.n, 0);
	fake_fail = NVML_ERROR_NOT_SUPPORTED;
	CHECK_INT_EQ(gw_procs_list(&nv, NULL, &p), 0);
	CHECK_INT_EQ(p.n, 0);
	fake_fail = 0;
	gw_procs_release(&p);
	gw_procs_release(NULL);
}

int main(void)
{
	RUN(test_merge_and_sort);
	RUN(test_v1_fallback);
	RUN(test_lost_and_unsupported);
	return harness_done();
}
