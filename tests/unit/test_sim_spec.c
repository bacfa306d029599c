/* Simulator: the --sim spec and scenario parsers, identity, determinism. */
#include "harness.h"
#include "nvml/binding.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static struct gw_nvml *open_sim(const char *spec, struct gw_err *err)
{
	struct gw_nvml *nv = NULL;
	struct gw_nvml_opts opts = {.sim = spec};
	gw_err_clear(err);
	if (gw_nvml_open(&nv, &opts, err) != 0)
		return NULL;
	return nv;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_spec_errors(void)
{
	struct gw_err err;
	CHECK(open_sim("8xH300", &err) == NULL);
	CHECK_INT_EQ(err.code, GW_EINVAL);
	CHECK(strstr(err.msg, "unknown GPU model \"H300\" (known: H200, H100") != NULL);
	CHECK(open_sim("8yH200", &err) == NULL);
	CHECK(strstr(err.msg, "bad GPU spec \"8yH200\"") != NULL);
	CHECK(open_sim("0xH200", &err) == NULL);
	CHECK(open_sim("2xH200:dancing", &err) == NULL);
	CHECK(strstr(err.msg, "unknown workload \"dancing\"") != NULL);
	CHECK(open_sim("2xH200,colour=red", &err) == NULL);
	CHECK(strstr(err.msg, "unknown option \"colour\"") != NULL);
	CHECK(open_sim("/nonexistent/x.scn", &err) == NULL);
	CHECK(strstr(err.msg, "cannot open scenario file /nonexistent/x.scn") != NULL);
}

static void test_scenario_errors(void)
{
	char path[] = "/tmp/gwsim_test_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	struct gw_err err;
	write_file(path, "[sim]\nseed = 3\n[gpu 0]\nmodel = H200\ntemprature_c = 30\n");
	CHECK(open_sim(path, &err) == NULL);
	char want[128];
	snprintf(want, sizeof(want), "%s:5: unknown key \"temprature_c\"", path);
	CHECK(strstr(err.msg, want) != NULL);
	write_file(path, "[gpu 1]\nmodel = H200\n");
	CHECK(open_sim(path, &err) == NULL);
	CHECK(strstr(err.msg, ":2: GPU 1 defined before GPU 0") != NULL);
	write_file(path, "[gpu 0]\nmodel = H200\nfault = 10s xid\n");
	CHECK(open_sim(path, &err) == NULL);
	CHECK(strstr(err.msg, ":3: expected \"xid N\"") != NULL);
	write_file(path, "[gpu 0]\nmodel = H200\nprocess = 12 python X 100\n");
	CHECK(open_sim(path, &err) == NULL);
	CHECK(strstr(err.msg, ":3: process type must be C, G or C+G") != NULL);
	unlink(path);
}

static void test_aliases_and_identity(void)
{
	struct gw_err err;
	struct gw_nvml *nv = open_sim("8xh100-80gb-hbm3", &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_gpu *g = NULL;
	unsigned int n = 0;
	CHECK_INT_EQ(gw_nvml_gpus_list(nv, &g, &n, &err), 0);
	CHECK_INT_EQ(n, 8);
	static const char *const bus[8] = {"00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0",
					   "00000000:5D:00.0", "00000000:9A:00.0", "00000000:AB:00.0",
					   "00000000:BA:00.0", "00000000:DB:00.0"};
	for (unsigned int i = 0; i < n; i++) {
		CHECK_STR_EQ(g[i].name, "NVIDIA H100 80GB HBM3");
		CHECK_STR_EQ(g[i].bus_id, bus[i]);
		CHECK_INT_EQ(strlen(g[i].uuid), 40);
		CHECK(strncmp(g[i].uuid, "GPU-", 4) == 0 && g[i].uuid[12] == '-' && g[i].uuid[17] == '-');
		for (unsigned int j = 0; j < i; j++)
			CHECK(strcmp(g[i].uuid, g[j].uuid) != 0);
	}
	char serial[32];
	CHECK_INT_EQ(nv->nvmlDeviceGetSerial(g[0].dev, serial, sizeof(serial)), NVML_SUCCESS);
	CHECK_INT_EQ(strlen(serial), 13);
	nvmlDevice_t d;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByUUID(g[3].uuid, &d), NVML_SUCCESS);
	CHECK(d == g[3].dev);
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByPciBusId_v2("0000:9a:00.0", &d), NVML_SUCCESS);
	CHECK(d == g[4].dev);
	char drv[80];
	CHECK_INT_EQ(nv->nvmlSystemGetDriverVersion(drv, sizeof(drv)), NVML_SUCCESS);
	CHECK_STR_EQ(drv, "590.48.01");
	CHECK_INT_EQ(nv->nvmlSystemGetNVMLVersion(drv, sizeof(drv)), NVML_SUCCESS);
	CHECK_STR_EQ(drv, "590.48");
	CHECK_INT_EQ(nv->nvmlSystemGetDriverVersion(drv, 4), NVML_ERROR_INSUFFICIENT_SIZE);
	free(g);
	gw_nvml_close(nv);
}

/* Everything a GPU reports after the same virtual time, for comparison. */
static void snapshot(const char *spec, double advance, unsigned int out[8], char uuid[96])
{
	struct gw_err err;
	struct gw_nvml *nv = open_sim(spec, &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	int (*adv)(double);
	*(void **)&adv = dlsym(nv->lib, "gwsim_clock_advance");
	CHECK(adv != NULL);
	adv(advance);
	nvmlDevice_t d;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(1, &d), NVML_SUCCESS);
	nvmlUtilization_t u;
	nv->nvmlDeviceGetPowerUsage(d, &out[0]);
	nv->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &out[1]);
	nv->nvmlDeviceGetUtilizationRates(d, &u);
	out[2] = u.gpu;
	out[3] = u.memory;
	nv->nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &out[4]);
	unsigned long long e = 0;
	nv->nvmlDeviceGetTotalEnergyConsumption(d, &e);
	out[5] = (unsigned int)(e / 1000);
	nv->nvmlDeviceGetUUID(d, uuid, 96);
	gw_nvml_close(nv);
}

static void test_determinism(void)
{
	unsigned int a[8] = {0}, b[8] = {0}, c[8] = {0};
	char ua[96] = "", ub[96] = "", uc[96] = "";
	snapshot("2xH200:training,seed=5,clock=manual", 1234.5, a, ua);
	snapshot("2xH200:training,seed=5,clock=manual", 1234.5, b, ub);
	snapshot("2xH200:training,seed=6,clock=manual", 1234.5, c, uc);
	for (int i = 0; i < 6; i++)
		CHECK_INT_EQ(a[i], b[i]);
	CHECK_STR_EQ(ua, ub);
	CHECK(strcmp(ua, uc) != 0);
	CHECK(a[0] > 100000); /* training draws real power after 20 min */
	CHECK(a[5] > 0);
}

static void test_capture_scenario(void)
{
	const char *dir = getenv("GW_TEST_DATA");
	char path[512];
	snprintf(path, sizeof(path), "%s/data/scenarios/h200-idle.scn", dir ? dir : "tests");
	struct gw_err err;
	struct gw_nvml *nv = open_sim(path, &err);
	CHECK(nv != NULL);
	if (!nv) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	nvmlDevice_t d;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
	unsigned int v = 0;
	nv->nvmlDeviceGetPowerUsage(d, &v);
	CHECK_INT_EQ(v, 77710);
	nv->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v);
	CHECK_INT_EQ(v, 28);
	nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
	CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo_v2(d, &m), NVML_SUCCESS);
	CHECK_INT_EQ(m.total >> 20, 143771);
	CHECK_INT_EQ(m.reserved >> 20, 614);
	CHECK_INT_EQ(m.used >> 20, 0);
	CHECK_INT_EQ(m.free >> 20, 143158);
	nvmlMemory_t m1;
	CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo(d, &m1), NVML_SUCCESS);
	CHECK_INT_EQ(m1.used >> 20, 613); /* v1 counts reserved as used */
	unsigned long long r = 0;
	nv->nvmlDeviceGetCurrentClocksEventReasons(d, &r);
	CHECK_INT_EQ(r, 1);
	char s[96];
	nv->nvmlDeviceGetUUID(d, s, sizeof(s));
	CHECK_STR_EQ(s, "GPU-00000000-0000-0000-0000-000000000000");
	nvmlEnableState_t mode;
	CHECK_INT_EQ(nv->nvmlDeviceGetDisplayMode(d, &mode), NVML_ERROR_DEPRECATED);
	CHECK_INT_EQ(nv->nvmlDeviceGetFanSpeed(d, &v), NVML_ERROR_NOT_SUPPORTED);
	CHECK_INT_EQ(nv->nvmlDeviceGetRetiredPagesPendingStatus(d, &mode), NVML_ERROR_NOT_SUPPORTED);
	gw_nvml_close(nv);
}

int main(void)
{
	RUN(test_spec_errors);
	RUN(test_scenario_errors);
	RUN(test_aliases_and_identity);
	RUN(test_determinism);
	RUN(test_capture_scenario);
	return harness_done();
}
