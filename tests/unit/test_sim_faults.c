/* Simulator faults: GPU lost, XID/ECC events, injected codes and timeouts,
 * spikes between polls, fault times on a warm clock, missing symbols,
 * nvmlInit failure. */
#include "harness.h"
#include "sim_text.h"
#include "nvml/binding.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>


static int (*advance_fn(struct gw_nvml *nv))(double)
{
	int (*adv)(double);
	*(void **)&adv = dlsym(nv->lib, "gwsim_clock_advance");
	return adv;
}

static void test_gpu_lost_and_xid(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\nfleet = 2xH200:training\nclock = manual\n"
				       "[gpu 1]\nfault = 10s xid 31\nfault = 20s lost\n",
				       &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	int (*adv)(double) = advance_fn(nv);
	nvmlDevice_t d0, d1;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(0, &d0), NVML_SUCCESS);
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(1, &d1), NVML_SUCCESS);
	nvmlEventSet_t set;
	CHECK_INT_EQ(nv->nvmlEventSetCreate(&set), NVML_SUCCESS);
	CHECK_INT_EQ(nv->nvmlDeviceRegisterEvents(d1, nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, set),
		     NVML_SUCCESS);
	nvmlEventData_t e;
	CHECK_INT_EQ(nv->nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
	adv(15);
	CHECK_INT_EQ(nv->nvmlEventSetWait_v2(set, &e, 100), NVML_SUCCESS);
	CHECK_INT_EQ(e.eventType, nvmlEventTypeXidCriticalError);
	CHECK_INT_EQ(e.eventData, 31);
	CHECK(e.device == d1);
	unsigned int t;
	CHECK_INT_EQ(nv->nvmlDeviceGetTemperature(d1, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
	adv(10);
	CHECK_INT_EQ(nv->nvmlDeviceGetTemperature(d1, NVML_TEMPERATURE_GPU, &t), NVML_ERROR_GPU_IS_LOST);
	CHECK_INT_EQ(nv->nvmlDeviceGetTemperature(d0, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
	nvmlDevice_t again;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(1, &again), NVML_ERROR_GPU_IS_LOST);
	CHECK_INT_EQ(nv->nvmlEventSetWait_v2(set, &e, 100), NVML_SUCCESS);
	CHECK_INT_EQ(e.eventData, 79); /* fell off the bus */
	struct gw_gpu *g = NULL;
	unsigned int n = 0;
	CHECK_INT_EQ(gw_nvml_gpus_list(nv, &g, &n, &err), 0);
	CHECK_INT_EQ(n, 2);
	if (n == 2)
		CHECK(g[1].lost && !g[0].lost);
	free(g);
	nv->nvmlEventSetFree(set);
	gw_nvml_close(nv);
}

static void test_ecc_and_remap(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\nclock = manual\n[gpu 0]\nmodel = H100\necc.corr.agg.dram = 4\n"
				       "fault = 5 ecc-sbe 3\nfault = 6 ecc-dbe 1\nfault = 7 pcie-replay 9\n",
				       &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	nvmlDevice_t d;
	nv->nvmlDeviceGetHandleByIndex_v2(0, &d);
	nvmlEventSet_t set;
	nv->nvmlEventSetCreate(&set);
	CHECK_INT_EQ(nv->nvmlDeviceRegisterEvents(d, nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError, set),
		     NVML_SUCCESS);
	advance_fn(nv)(10);
	unsigned long long c = 0;
	CHECK_INT_EQ(nv->nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &c),
		     NVML_SUCCESS);
	CHECK_INT_EQ(c, 3);
	nv->nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &c);
	CHECK_INT_EQ(c, 7);
	nv->nvmlDeviceGetMemoryErrorCounter(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
					    NVML_MEMORY_LOCATION_DRAM, &c);
	CHECK_INT_EQ(c, 1);
	CHECK_INT_EQ(nv->nvmlDeviceGetMemoryErrorCounter(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
							 NVML_MEMORY_LOCATION_L1_CACHE, &c),
		     NVML_ERROR_NOT_SUPPORTED);
	unsigned int corr, unc, pend, fail, replays;
	CHECK_INT_EQ(nv->nvmlDeviceGetRemappedRows(d, &corr, &unc, &pend, &fail), NVML_SUCCESS);
	CHECK_INT_EQ(unc, 1);
	CHECK_INT_EQ(pend, 1);
	nv->nvmlDeviceGetPcieReplayCounter(d, &replays);
	CHECK_INT_EQ(replays, 9);
	nvmlEventData_t e;
	CHECK_INT_EQ(nv->nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
	CHECK_INT_EQ(e.eventType, nvmlEventTypeSingleBitEccError);
	CHECK_INT_EQ(nv->nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
	CHECK_INT_EQ(e.eventType, nvmlEventTypeDoubleBitEccError);
	nv->nvmlEventSetFree(set);
	gw_nvml_close(nv);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_fail_and_timeout(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\nfleet = 1xL40S\nclock = manual\n"
				       "[gpu 0]\nfault = 0 timeout nvmlDeviceGetPowerUsage 200\n"
				       "fault = 0 fail nvmlDeviceGetTemperature UNKNOWN 30\n",
				       &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	nvmlDevice_t d;
	nv->nvmlDeviceGetHandleByIndex_v2(0, &d);
	unsigned int v;
	double t0 = now_s();
	CHECK_INT_EQ(nv->nvmlDeviceGetPowerUsage(d, &v), NVML_ERROR_TIMEOUT);
	CHECK(now_s() - t0 >= 0.19);
	CHECK_INT_EQ(nv->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v), NVML_ERROR_UNKNOWN);
	CHECK_STR_EQ(nv->nvmlErrorString(NVML_ERROR_UNKNOWN), "Unknown Error");
	advance_fn(nv)(31);
	CHECK_INT_EQ(nv->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
	/* run-time injection through the control API */
	int (*inject)(unsigned int, const char *, char *, unsigned int);
	*(void **)&inject = dlsym(nv->lib, "gwsim_inject");
	char msg[128];
	CHECK_INT_EQ(inject(0, "fail nvmlDeviceGetClockInfo NO_PERMISSION", msg, sizeof(msg)), 0);
	CHECK_INT_EQ(nv->nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &v), NVML_ERROR_NO_PERMISSION);
	CHECK(inject(0, "explode", msg, sizeof(msg)) != 0);
	CHECK(strstr(msg, "unknown fault \"explode\"") != NULL);
	gw_nvml_close(nv);
}

static void test_missing_and_unsupported(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\nmissing = nvmlDeviceGetSamples, nvmlGpmSampleGet\n"
				       "[gpu 0]\nmodel = RTX4080S\nunsupported = nvmlDeviceGetEncoderUtilization\n",
				       &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	CHECK(nv->nvmlDeviceGetSamples == NULL);
	CHECK(nv->nvmlGpmSampleGet == NULL);
	CHECK(nv->nvmlDeviceGetProcessUtilization != NULL);
	nvmlDevice_t d;
	nv->nvmlDeviceGetHandleByIndex_v2(0, &d);
	unsigned int u, p;
	CHECK_INT_EQ(nv->nvmlDeviceGetEncoderUtilization(d, &u, &p), NVML_ERROR_NOT_SUPPORTED);
	char serial[32];
	CHECK_INT_EQ(nv->nvmlDeviceGetSerial(d, serial, sizeof(serial)), NVML_ERROR_NOT_SUPPORTED);
	nvmlEnableState_t a, b;
	CHECK_INT_EQ(nv->nvmlDeviceGetEccMode(d, &a, &b), NVML_ERROR_NOT_SUPPORTED);
	CHECK_INT_EQ(nv->nvmlDeviceGetFanSpeed(d, &u), NVML_SUCCESS);
	gw_nvml_close(nv);
}

/* A spike overrides a value for a window shorter than a poll: the driver's
 * samples inside it show it, polls and samples outside it do not. */
static void test_spike(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\nfleet = 1xH200:training\nclock = manual\n"
				       "[gpu 0]\nutil_gpu = 20\npower_mw = 300000\n"
				       "fault = 1400ms spike util_gpu 90 200ms\nfault = 1.4 spike power_mw 650000 0.2s\n",
				       &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	nvmlDevice_t d;
	nv->nvmlDeviceGetHandleByIndex_v2(0, &d);
	advance_fn(nv)(2.0);
	nvmlUtilization_t u;
	CHECK_INT_EQ(nv->nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
	CHECK_INT_EQ(u.gpu, 20); /* the poll at 2 s is after it */
	nvmlSample_t s[120];
	unsigned int n = 120;
	nvmlValueType_t vt;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
	CHECK_INT_EQ(n, 12); /* 1/6 s .. 2 s */
	unsigned long long epoch = s[0].timeStamp - 166667;
	unsigned int high = 0;
	for (unsigned int i = 0; i < n; i++) {
		bool in = s[i].timeStamp >= epoch + 1400000 && s[i].timeStamp < epoch + 1600000;
		CHECK_INT_EQ(s[i].sampleValue.uiVal, in ? 90 : 20);
		high += in;
	}
	CHECK_INT_EQ(high, 1); /* the sample at 1.5 s */
	n = 120;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(d, NVML_TOTAL_POWER_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
	unsigned int peak = 0;
	for (unsigned int i = 0; i < n; i++)
		peak = s[i].sampleValue.uiVal > peak ? s[i].sampleValue.uiVal : peak;
	CHECK_INT_EQ(peak, 650000);
	/* lastSeenTimeStamp: only newer samples; none newer is NOT_FOUND */
	unsigned long long last = s[n - 1].timeStamp;
	n = 120;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(d, NVML_TOTAL_POWER_SAMPLES, last, &vt, &n, s), NVML_ERROR_NOT_FOUND);
	n = 120;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(d, NVML_TOTAL_POWER_SAMPLES, last - 1, &vt, &n, s), NVML_SUCCESS);
	CHECK_INT_EQ(n, 1);
	CHECK(s[0].timeStamp == last);
	/* injected at run time, from now */
	int (*inject)(unsigned int, const char *, char *, unsigned int);
	*(void **)&inject = dlsym(nv->lib, "gwsim_inject");
	char msg[160];
	CHECK_INT_EQ(inject(0, "spike util_mem 77 1", msg, sizeof(msg)), 0);
	CHECK_INT_EQ(nv->nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
	CHECK_INT_EQ(u.memory, 77);
	advance_fn(nv)(1.5);
	CHECK_INT_EQ(nv->nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
	CHECK(u.memory != 77);
	const char *bad[] = {"spike util_gpu", "spike temp_c 5 1", "spike util_gpu x 1", "spike util_gpu 5 0",
			     "spike util_gpu 5 1h"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		CHECK(inject(0, bad[i], msg, sizeof(msg)) != 0);
		CHECK(strstr(msg, "expected \"spike util_gpu|util_mem|power_mw VALUE SECONDS\"") != NULL);
	}
	gw_nvml_close(nv);
}

/* A real-clock fleet starts warm (virtual time mid-hour), yet its scenario's
 * fault times count from the start of the run, as written. */
static void test_fault_times_from_start(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\nfleet = 1xH200:training\n"
				       "[gpu 0]\nfault = 0 fail nvmlDeviceGetPowerUsage UNKNOWN 0.4\n"
				       "fault = 300ms spike util_gpu 99 2s\nfault = 2h lost\n",
				       &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	nvmlDevice_t d;
	CHECK_INT_EQ(nv->nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS); /* not lost at 2 h */
	unsigned int mw;
	nvmlUtilization_t u;
	CHECK_INT_EQ(nv->nvmlDeviceGetPowerUsage(d, &mw), NVML_ERROR_UNKNOWN); /* the window is now */
	CHECK_INT_EQ(nv->nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
	CHECK(u.gpu != 99); /* the spike is still ahead */
	struct timespec pause = {0, 500 * 1000000L};
	nanosleep(&pause, NULL);
	CHECK_INT_EQ(nv->nvmlDeviceGetPowerUsage(d, &mw), NVML_SUCCESS); /* and over */
	CHECK_INT_EQ(nv->nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
	CHECK_INT_EQ(u.gpu, 99);
	gw_nvml_close(nv);
}

static void test_init_failure(void)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text("[sim]\ninit_error = DRIVER_NOT_LOADED\n", &err);
	CHECK(nv == NULL);
	CHECK_INT_EQ(err.code, GW_ENODRIVER);
	CHECK(strstr(err.msg, "Driver Not Loaded") != NULL);
}

int main(void)
{
	RUN(test_gpu_lost_and_xid);
	RUN(test_ecc_and_remap);
	RUN(test_fail_and_timeout);
	RUN(test_spike);
	RUN(test_fault_times_from_start);
	RUN(test_missing_and_unsupported);
	RUN(test_init_failure);
	return harness_done();
}
