/* Simulator: MIG layouts, their placement and the NVML calls on MIG handles. */
#include "collect/mig.h"
#include "harness.h"
#include "nvml/binding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024ULL * 1024ULL)

static struct gw_nvml *open_sim(const char *spec, struct gw_err *err)
{
	struct gw_nvml *nv = NULL;
	struct gw_nvml_opts opts = {.sim = spec};
	gw_err_clear(err);
	if (gw_nvml_open(&nv, &opts, err) != 0)
		return NULL;
	return nv;
}

static nvmlDevice_t gpu0(struct gw_nvml *nv)
{
	nvmlDevice_t d = NULL;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
	return d;
}

/* The captures' H100 layout: GPU instances 2, 3, 9, 10 (3g from the top half, the rest from the bottom). */
static void test_h100_layout(void)
{
	struct gw_err err;
	struct gw_nvml *nv = open_sim("1xH100:mig=3g.40gb+2g.20gb+2x1g.10gb", &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	nvmlDevice_t g = gpu0(nv);
	unsigned int cur = 9, pend = 9, max = 0, is = 9;
	CHECK_INT_EQ(nv->nvmlDeviceGetMigMode(g, &cur, &pend), NVML_SUCCESS);
	CHECK_INT_EQ(cur, NVML_DEVICE_MIG_ENABLE);
	CHECK_INT_EQ(nv->nvmlDeviceGetMaxMigDeviceCount(g, &max), NVML_SUCCESS);
	CHECK_INT_EQ(max, 7);
	CHECK_INT_EQ(nv->nvmlDeviceIsMigDeviceHandle(g, &is), NVML_SUCCESS);
	CHECK_INT_EQ(is, 0);

	static const unsigned int gis[] = {2, 3, 9, 10}, sms[] = {60, 32, 16, 16};
	static const unsigned long long mem[] = {40448, 20096, 9984, 9984},
					bar1[] = {24739, 12369, 6184, 6184};
	for (unsigned int i = 0; i < 4; i++) {
		nvmlDevice_t m = NULL, parent = NULL;
		CHECK_INT_EQ(nv->nvmlDeviceGetMigDeviceHandleByIndex(g, i, &m), NVML_SUCCESS);
		CHECK(m != NULL && m != g);
		CHECK_INT_EQ(nv->nvmlDeviceIsMigDeviceHandle(m, &is), NVML_SUCCESS);
		CHECK_INT_EQ(is, 1);
		CHECK_INT_EQ(nv->nvmlDeviceGetDeviceHandleFromMigDeviceHandle(m, &parent), NVML_SUCCESS);
		CHECK(parent == g);
		unsigned int id = 99;
		CHECK_INT_EQ(nv->nvmlDeviceGetGpuInstanceId(m, &id), NVML_SUCCESS);
		CHECK_INT_EQ(id, gis[i]);
		CHECK_INT_EQ(nv->nvmlDeviceGetComputeInstanceId(m, &id), NVML_SUCCESS);
		CHECK_INT_EQ(id, 0);
		nvmlDeviceAttributes_t a;
		CHECK_INT_EQ(nv->nvmlDeviceGetAttributes_v2(m, &a), NVML_SUCCESS);
		CHECK_INT_EQ(a.multiprocessorCount, sms[i]);
		CHECK_INT_EQ(a.memorySizeMB, mem[i]);
		CHECK_INT_EQ(a.gpuInstanceSliceCount, a.computeInstanceSliceCount);
		nvmlMemory_v2_t mv = {.version = nvmlMemory_v2};
		CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo_v2(m, &mv), NVML_SUCCESS);
		CHECK_INT_EQ(mv.total, mem[i] * MIB);
		CHECK_INT_EQ(mv.free,
			     mv.total - mv.used + MIB); /* the driver's extra MiB, as in the captures */
		nvmlBAR1Memory_t b;
		CHECK_INT_EQ(nv->nvmlDeviceGetBAR1MemoryInfo(m, &b), NVML_SUCCESS);
		CHECK_INT_EQ(b.bar1Total, bar1[i] * MIB);
		char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
		CHECK_INT_EQ(nv->nvmlDeviceGetUUID(m, uuid, sizeof(uuid)), NVML_SUCCESS);
		CHECK(strncmp(uuid, "MIG-", 4) == 0);
	}
	nvmlDevice_t m = NULL;
	CHECK_INT_EQ(nv->nvmlDeviceGetMigDeviceHandleByIndex(g, 4, &m), NVML_ERROR_NOT_FOUND);
	CHECK_INT_EQ(nv->nvmlDeviceGetMigDeviceHandleByIndex(g, 7, &m), NVML_ERROR_INVALID_ARGUMENT);
	unsigned int id;
	CHECK_INT_EQ(nv->nvmlDeviceGetGpuInstanceId(g, &id), NVML_ERROR_NOT_SUPPORTED);
	/* a MIG handle is not a GPU: calls it does not answer refuse it */
	CHECK_INT_EQ(nv->nvmlDeviceGetMigDeviceHandleByIndex(g, 0, &m), NVML_SUCCESS);
	unsigned int temp;
	CHECK_INT_EQ(nv->nvmlDeviceGetTemperature(m, NVML_TEMPERATURE_GPU, &temp),
		     NVML_ERROR_INVALID_ARGUMENT);

	nvmlGpuInstanceProfileInfo_v2_t info = {.version = nvmlGpuInstanceProfileInfo_v2};
	CHECK_INT_EQ(nv->nvmlDeviceGetGpuInstanceProfileInfoV(g, NVML_GPU_INSTANCE_PROFILE_3_SLICE, &info),
		     NVML_SUCCESS);
	CHECK_STR_EQ(info.name, "MIG 3g.40gb");
	CHECK_INT_EQ(info.instanceCount, 2);
	info.version = 1;
	CHECK_INT_EQ(nv->nvmlDeviceGetGpuInstanceProfileInfoV(g, NVML_GPU_INSTANCE_PROFILE_3_SLICE, &info),
		     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	gw_nvml_close(nv);
}

/* Compute instances share their GPU instance: one GI id, CI ids 0 and 1, -L names "1c.3g.71gb". */
static void test_h200_compute_instances(void)
{
	struct gw_err err;
	struct gw_nvml *nv = open_sim("1xH200:burn:mig=1c.3g.71gb+2c.3g.71gb+2g.35gb+2x1g.18gb", &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_migs m;
	CHECK_INT_EQ(gw_mig_list(nv, gpu0(nv), &m), 0);
	CHECK_INT_EQ(m.n, 5);
	if (m.n == 5) {
		static const char *names[] = {"1c.3g.71gb", "2c.3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"};
		static const unsigned int gi[] = {2, 2, 3, 9, 10}, ci[] = {0, 1, 0, 0, 0},
					  sm[] = {16, 32, 32, 16, 16};
		for (size_t i = 0; i < 5; i++) {
			CHECK_STR_EQ(m.v[i].profile, names[i]);
			CHECK_INT_EQ(m.v[i].gi, gi[i]);
			CHECK_INT_EQ(m.v[i].ci, ci[i]);
			CHECK_INT_EQ(m.v[i].attrs.multiprocessorCount, sm[i]);
			CHECK(m.v[i].mem_valid && m.v[i].bar1_valid);
		}
		CHECK_INT_EQ(m.v[0].mem_total, 71424 * MIB);
		CHECK_INT_EQ(m.v[0].mem_used, m.v[1].mem_used);
		CHECK(strcmp(m.v[0].uuid, m.v[1].uuid) != 0);
	}
	gw_migs_release(&m);
	gw_nvml_close(nv);
}

static void test_layout_errors(void)
{
	struct gw_err err;
	CHECK(open_sim("1xH100:mig=3g.40gb+3g.40gb+2g.20gb", &err) == NULL);
	CHECK(strstr(err.msg, "MIG profile 2g.20gb does not fit") != NULL);
	CHECK(open_sim("1xH100:mig=7g.80gb", &err) == NULL);
	CHECK(strstr(err.msg, "unknown MIG profile \"7g.80gb\" for H100 (known: 1g.10gb, 2g.20gb, 3g.40gb") !=
	      NULL);
	CHECK(open_sim("1xH100:mig=4c.3g.40gb", &err) == NULL);
	CHECK(strstr(err.msg, "has 1..3 slices") != NULL);
	CHECK(open_sim("1xL40S:mig=1g.10gb", &err) == NULL);
	CHECK(strstr(err.msg, "has no MIG") != NULL);
	CHECK(open_sim("1xH100:mig=8x1g.10gb", &err) == NULL);
	/* seven 1g instances fill the seven compute slices */
	struct gw_nvml *nv = open_sim("1xH100:mig=7x1g.10gb", &err);
	CHECK(nv != NULL);
	if (nv) {
		struct gw_migs m;
		CHECK_INT_EQ(gw_mig_list(nv, gpu0(nv), &m), 0);
		CHECK_INT_EQ(m.n, 7);
		if (m.n == 7)
			CHECK_INT_EQ(m.v[6].gi, 13);
		gw_migs_release(&m);
		gw_nvml_close(nv);
	}
	/* without a layout: MIG off, no devices */
	nv = open_sim("1xH100", &err);
	CHECK(nv != NULL);
	if (nv) {
		struct gw_migs m;
		CHECK_INT_EQ(gw_mig_list(nv, gpu0(nv), &m), 0);
		CHECK_INT_EQ(m.n, 0);
		gw_nvml_close(nv);
	}
}

/* Scenario keys: processes in an instance count in its memory and carry its ids. */
static void test_scenario_keys(void)
{
	char path[] = "/tmp/gwsim_mig_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	const char *text = "[sim]\nclock = manual\n[gpu 0]\nmodel = H100\nmig = 3g.40gb+2x1g.10gb\n"
			   "mig_base_mib = 39\nmig_uuid = MIG-a MIG-b\n"
			   "process = 100 ./a C 1000 gi=2 ci=0\nprocess = 101 ./b C 500 gi=7 ci=0\n";
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	struct gw_err err;
	struct gw_nvml *nv = open_sim(path, &err);
	CHECK(nv != NULL);
	if (nv) {
		struct gw_migs m;
		CHECK_INT_EQ(gw_mig_list(nv, gpu0(nv), &m), 0);
		CHECK_INT_EQ(m.n, 3);
		if (m.n == 3) {
			CHECK_INT_EQ(m.v[0].mem_used, (39 + 1000) * MIB);
			CHECK_INT_EQ(m.v[0].mem_free,
				     m.v[0].mem_total - m.v[0].mem_used); /* busy: no extra MiB */
			CHECK_INT_EQ(m.v[1].mem_used, (9 + 500) * MIB);
			CHECK_INT_EQ(m.v[2].mem_used, 9 * MIB);
			CHECK_STR_EQ(m.v[0].uuid, "MIG-a");
			CHECK_STR_EQ(m.v[1].uuid, "MIG-b");
		}
		gw_migs_release(&m);
		nvmlProcessInfo_t p[4];
		unsigned int n = 4;
		CHECK_INT_EQ(nv->nvmlDeviceGetComputeRunningProcesses_v3(gpu0(nv), &n, p), NVML_SUCCESS);
		CHECK_INT_EQ(n, 2);
		CHECK_INT_EQ(p[0].gpuInstanceId, 2);
		CHECK_INT_EQ(p[1].gpuInstanceId, 7); /* 1g placed from the bottom: slices 0 and 1 */
		CHECK_INT_EQ(p[1].computeInstanceId, 0);
		gw_nvml_close(nv);
	}
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("[gpu 0]\nmodel = H100\nmig_base_mib = 3\n", f);
		fclose(f);
	}
	CHECK(open_sim(path, &err) == NULL);
	CHECK(strstr(err.msg, "set mig first") != NULL);
	unlink(path);
	CHECK(open_sim("1xH100:burn:idle", &err) == NULL);
	CHECK(strstr(err.msg, "expected WORKLOAD and/or mig=LAYOUT") != NULL);
}

int main(void)
{
	RUN(test_h100_layout);
	RUN(test_h200_compute_instances);
	RUN(test_layout_errors);
	RUN(test_scenario_keys);
	return harness_done();
}
