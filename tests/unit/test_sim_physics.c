/* Simulator physics: energy is the integral of power, temperature lags
 * power, throttling sets the right reasons and counters, samples ring. */
#include "harness.h"
#include "nvml/binding.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static struct gw_nvml *nv;
static nvmlDevice_t dev;
static int (*advance)(double);

static int open_sim(const char *spec)
{
	struct gw_err err;
	struct gw_nvml_opts opts = {.sim = spec};
	nv = NULL;
	if (gw_nvml_open(&nv, &opts, &err) != 0) {
		fprintf(stderr, "open %s: %s\n", spec, err.msg);
		return -1;
	}
	*(void **)&advance = dlsym(nv->lib, "gwsim_clock_advance");
	return nv->nvmlDeviceGetHandleByIndex_v2(0, &dev) == NVML_SUCCESS && advance ? 0 : -1;
}

static unsigned int field_uint(unsigned int id)
{
	nvmlFieldValue_t f = {.fieldId = id};
	CHECK_INT_EQ(nv->nvmlDeviceGetFieldValues(dev, 1, &f), NVML_SUCCESS);
	CHECK_INT_EQ(f.nvmlReturn, NVML_SUCCESS);
	return f.value.uiVal;
}

static unsigned long long field_ull(unsigned int id)
{
	nvmlFieldValue_t f = {.fieldId = id};
	CHECK_INT_EQ(nv->nvmlDeviceGetFieldValues(dev, 1, &f), NVML_SUCCESS);
	CHECK_INT_EQ(f.nvmlReturn, NVML_SUCCESS);
	return f.value.ullVal;
}

static void test_energy_is_integral_of_power(void)
{
	CHECK(open_sim("1xH100:training,clock=manual,seed=3") == 0);
	unsigned long long e0 = 0, e1 = 0;
	advance(50);
	nv->nvmlDeviceGetTotalEnergyConsumption(dev, &e0);
	double integral = 0; /* mJ */
	const double dt = 0.02;
	for (int i = 0; i < 3000; i++) { /* 60 s of instant power, 20 ms apart */
		advance(dt);
		integral += field_uint(NVML_FI_DEV_POWER_INSTANT) * dt;
	}
	nv->nvmlDeviceGetTotalEnergyConsumption(dev, &e1);
	double de = (double)(e1 - e0);
	CHECK(de > 60 * 100000.0); /* well above idle: training ran */
	CHECK_DBL_NEAR(de, integral, integral * 0.02);
	gw_nvml_close(nv);
}

static void test_temperature_lags_power(void)
{
	CHECK(open_sim("1xH200:burn,clock=manual") == 0);
	unsigned int t0, t5, t300, t600, p;
	nv->nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t0);
	advance(5);
	nv->nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t5);
	advance(295);
	nv->nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t300);
	advance(300);
	nv->nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t600);
	nv->nvmlDeviceGetPowerUsage(dev, &p);
	CHECK(p > 550000 && p < 700000); /* gpu-burn on an H200: ~627 W */
	CHECK(t5 > t0);                  /* moving at once... */
	CHECK(t5 < t300 - 10);           /* ...but with inertia */
	CHECK(t300 >= 48 && t300 <= 56); /* the capture settled at 52-54 C */
	CHECK(t600 >= t300 && t600 - t300 <= 1);
	gw_nvml_close(nv);
}

static void test_thermal_throttling(void)
{
	CHECK(open_sim("1xH200:thermal,clock=manual") == 0);
	advance(900);
	unsigned long long r = 0;
	unsigned int sm, temp;
	nv->nvmlDeviceGetCurrentClocksEventReasons(dev, &r);
	nv->nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &sm);
	nv->nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &temp);
	CHECK(temp >= 87);
	CHECK(r & (nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown));
	CHECK(!(r & nvmlClocksEventReasonGpuIdle));
	CHECK(sm < 1980);
	nvmlViolationTime_t v;
	CHECK_INT_EQ(nv->nvmlDeviceGetViolationStatus(dev, NVML_PERF_POLICY_THERMAL, &v), NVML_SUCCESS);
	CHECK(v.violationTime > 1000000000ULL); /* more than a second throttled */
	unsigned long long sw = field_ull(NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN);
	unsigned long long hw = field_ull(NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN);
	CHECK(sw + hw > 0);
	gw_nvml_close(nv);
}

static void test_power_cap(void)
{
	CHECK(open_sim("1xH100:powercap,clock=manual") == 0);
	advance(120);
	unsigned int p, limit, sm;
	unsigned long long r;
	nv->nvmlDeviceGetEnforcedPowerLimit(dev, &limit);
	CHECK_INT_EQ(limit, 455000);
	nv->nvmlDeviceGetPowerUsage(dev, &p);
	CHECK(p <= limit * 1.01 && p > limit * 0.9);
	nv->nvmlDeviceGetCurrentClocksEventReasons(dev, &r);
	CHECK(r & nvmlClocksEventReasonSwPowerCap);
	nv->nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &sm);
	CHECK(sm < 1980 && sm % 15 == 0);
	CHECK(field_ull(NVML_FI_DEV_PERF_POLICY_POWER) > 100000000000ULL); /* > 100 s of 120 */
	gw_nvml_close(nv);
}

static void test_memory_is_sum_of_processes(void)
{
	CHECK(open_sim("1xH200:training,clock=manual") == 0);
	advance(10);
	unsigned int n = 0;
	CHECK_INT_EQ(nv->nvmlDeviceGetComputeRunningProcesses_v3(dev, &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
	CHECK_INT_EQ(n, 1);
	nvmlProcessInfo_t p[4];
	n = 4;
	CHECK_INT_EQ(nv->nvmlDeviceGetComputeRunningProcesses_v3(dev, &n, p), NVML_SUCCESS);
	CHECK_INT_EQ(n, 1);
	CHECK_INT_EQ(p[0].gpuInstanceId, 0xFFFFFFFFU);
	nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
	CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo_v2(dev, &m), NVML_SUCCESS);
	CHECK_INT_EQ(m.used, p[0].usedGpuMemory);
	m.version = 2; /* the classic mistake: refused, not misread */
	CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo_v2(dev, &m), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	nvmlProcessInfo_v1_t p1[2];
	n = 2;
	CHECK_INT_EQ(nv->nvmlDeviceGetComputeRunningProcesses(dev, &n, p1), NVML_SUCCESS);
	CHECK_INT_EQ(p1[0].pid, p[0].pid);
	char cg[256];
	int (*cgroup)(unsigned int, char *, unsigned int);
	*(void **)&cgroup = dlsym(nv->lib, "gwsim_process_cgroup");
	CHECK_INT_EQ(cgroup(p[0].pid, cg, sizeof(cg)), 0);
	CHECK(strstr(cg, "/slurmstepd.scope/job_") != NULL);
	CHECK_INT_EQ(cgroup(1, cg, sizeof(cg)), -1);
	gw_nvml_close(nv);
}

static void test_samples_ring(void)
{
	CHECK(open_sim("1xH200:inference,clock=manual") == 0);
	advance(30);
	nvmlValueType_t vt;
	unsigned int cap = 0;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(dev, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &cap, NULL), NVML_SUCCESS);
	CHECK_INT_EQ(cap, 120);
	nvmlSample_t s[120];
	unsigned int n = cap;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(dev, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
	CHECK_INT_EQ(n, 120); /* 30 s elapsed: the ring holds the last 20 s */
	CHECK_INT_EQ(vt, NVML_VALUE_TYPE_UNSIGNED_INT);
	CHECK_INT_EQ(s[1].timeStamp - s[0].timeStamp, 166667);
	unsigned long long last = s[n - 1].timeStamp;
	n = 120;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(dev, NVML_GPU_UTILIZATION_SAMPLES, last, &vt, &n, s),
		     NVML_ERROR_NOT_FOUND);
	advance(1.0);
	n = 120;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(dev, NVML_GPU_UTILIZATION_SAMPLES, last, &vt, &n, s), NVML_SUCCESS);
	CHECK(n == 6 || n == 5 || n == 7);
	CHECK(s[0].timeStamp > last);
	unsigned int np = 0;
	CHECK_INT_EQ(nv->nvmlDeviceGetProcessUtilization(dev, NULL, &np, 0), NVML_ERROR_INSUFFICIENT_SIZE);
	CHECK_INT_EQ(np, 1);
	nvmlProcessUtilizationSample_t pu[2];
	np = 2;
	CHECK_INT_EQ(nv->nvmlDeviceGetProcessUtilization(dev, pu, &np, 0), NVML_SUCCESS);
	CHECK_INT_EQ(np, 1);
	np = 2;
	CHECK_INT_EQ(nv->nvmlDeviceGetProcessUtilization(dev, pu, &np, pu[0].timeStamp), NVML_ERROR_NOT_FOUND);
	gw_nvml_close(nv);
}

static void test_gpm(void)
{
	CHECK(open_sim("1xH100:training,clock=manual,seed=2") == 0);
	advance(100);
	nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
	CHECK_INT_EQ(nv->nvmlGpmQueryDeviceSupport(dev, &sup), NVML_SUCCESS);
	CHECK_INT_EQ(sup.isSupportedDevice, 1);
	nvmlGpmSample_t a, b;
	CHECK_INT_EQ(nv->nvmlGpmSampleAlloc(&a), NVML_SUCCESS);
	CHECK_INT_EQ(nv->nvmlGpmSampleAlloc(&b), NVML_SUCCESS);
	CHECK_INT_EQ(nv->nvmlGpmSampleGet(dev, a), NVML_SUCCESS);
	advance(10);
	CHECK_INT_EQ(nv->nvmlGpmSampleGet(dev, b), NVML_SUCCESS);
	static nvmlGpmMetricsGet_t mg;
	memset(&mg, 0, sizeof(mg));
	mg.version = NVML_GPM_METRICS_GET_VERSION;
	mg.numMetrics = 4;
	mg.sample1 = a;
	mg.sample2 = b;
	mg.metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
	mg.metrics[1].metricId = NVML_GPM_METRIC_ANY_TENSOR_UTIL;
	mg.metrics[2].metricId = NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC;
	mg.metrics[3].metricId = 999;
	CHECK_INT_EQ(nv->nvmlGpmMetricsGet(&mg), NVML_SUCCESS);
	CHECK(mg.metrics[0].value > 30 && mg.metrics[0].value <= 100);
	CHECK(mg.metrics[1].value > 5 && mg.metrics[1].value < mg.metrics[0].value);
	CHECK(mg.metrics[2].value > 1000); /* MiB/s of all-reduce */
	CHECK_INT_EQ(mg.metrics[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
	nv->nvmlGpmSampleFree(a);
	nv->nvmlGpmSampleFree(b);
	gw_nvml_close(nv);
	CHECK(open_sim("1xL40S") == 0);
	sup.isSupportedDevice = 7;
	CHECK_INT_EQ(nv->nvmlGpmQueryDeviceSupport(dev, &sup), NVML_SUCCESS);
	CHECK_INT_EQ(sup.isSupportedDevice, 0);
	gw_nvml_close(nv);
}

/* Tokens and energy over `secs` of virtual time from now. */
static void work_over(double secs, double *tokens, double *joules)
{
	int (*total)(unsigned int, double *);
	*(void **)&total = dlsym(nv->lib, "gwsim_tokens_total");
	CHECK(total != NULL);
	double t0 = 0, t1 = 0;
	unsigned long long e0 = 0, e1 = 0;
	CHECK_INT_EQ(total(0, &t0), 0);
	nv->nvmlDeviceGetTotalEnergyConsumption(dev, &e0);
	advance(secs);
	CHECK_INT_EQ(total(0, &t1), 0);
	nv->nvmlDeviceGetTotalEnergyConsumption(dev, &e1);
	*tokens = t1 - t0;
	*joules = (double)(e1 - e0) / 1000.0;
}

/* The throughput model: tokens follow the SM clock a power limit allows, with the memory-bound share. */
static void test_throughput_model(void)
{
	CHECK(open_sim("1xH200:powercap,clock=manual") == 0);
	int (*inject)(unsigned int, const char *, char *, unsigned int);
	*(void **)&inject = dlsym(nv->lib, "gwsim_inject");
	char err[160];
	CHECK_INT_EQ(inject(0, "power-limit 700", err, sizeof(err)), 0);
	advance(30);
	unsigned int limit = 0, sm = 0;
	nv->nvmlDeviceGetEnforcedPowerLimit(dev, &limit);
	CHECK_INT_EQ(limit, 700000);
	nv->nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &sm);
	double tok_hi, j_hi;
	work_over(300, &tok_hi, &j_hi);
	/* H200: 7,300 tokens/s at full clocks, a quarter of the step memory bound */
	double want = 7300.0 / (0.75 / (sm / 1980.0) + 0.25);
	CHECK(sm > 1800 && sm < 1980);
	CHECK(tok_hi / 300 > want * 0.99 && tok_hi / 300 < want * 1.01);

	CHECK_INT_EQ(inject(0, "power-limit 450", err, sizeof(err)), 0);
	advance(30);
	nv->nvmlDeviceGetEnforcedPowerLimit(dev, &limit);
	CHECK_INT_EQ(limit, 450000);
	double tok_lo, j_lo;
	work_over(300, &tok_lo, &j_lo);
	CHECK(tok_lo < tok_hi * 0.95);			/* slower ... */
	CHECK(tok_lo / j_lo > tok_hi / j_hi * 1.10);	/* ... but more tokens a joule */
	CHECK(j_lo / 300 < 455 && j_lo / 300 > 420); /* drawing about the limit */

	CHECK_INT_EQ(inject(0, "power-limit 50", err, sizeof(err)), 0); /* clamped to the board's minimum */
	advance(1);
	nv->nvmlDeviceGetEnforcedPowerLimit(dev, &limit);
	CHECK_INT_EQ(limit, 200000);
	CHECK_INT_EQ(inject(0, "power-limit lots", err, sizeof(err)), -1);
	CHECK(strstr(err, "power-limit WATTS") != NULL);
	gw_nvml_close(nv);

	/* an inference GPU makes no training tokens */
	CHECK(open_sim("1xH200:inference,clock=manual") == 0);
	int (*total)(unsigned int, double *);
	*(void **)&total = dlsym(nv->lib, "gwsim_tokens_total");
	double t = -1;
	advance(60);
	CHECK_INT_EQ(total(0, &t), 1);
	CHECK(t == 0);
	CHECK_INT_EQ(total(5, &t), -1);
	gw_nvml_close(nv);
}

int main(void)
{
	RUN(test_energy_is_integral_of_power);
	RUN(test_temperature_lags_power);
	RUN(test_thermal_throttling);
	RUN(test_power_cap);
	RUN(test_throughput_model);
	RUN(test_memory_is_sum_of_processes);
	RUN(test_samples_ring);
	RUN(test_gpm);
	return harness_done();
}
