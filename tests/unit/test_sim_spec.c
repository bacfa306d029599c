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

/* Every number the short spec takes is bounded, and the error names the
 * key, the value and the range: speed=1e9 hung every call (a real clock
 * integrates each virtual second), a seed of -1 wrapped. */
static void test_spec_bounds(void)
{
	static const struct {
		const char *spec, *want;
	} cases[] = {
		{"1xH200,speed=1e9", "speed = 1e9 is out of range (0.001..10000)"},
		{"1xH200,speed=0", "speed = 0 is out of range (0.001..10000)"},
		{"1xH200,speed=inf", "speed wants a number 0.001..10000, not \"inf\""},
		{"1xH200,speed=nan", "speed wants a number 0.001..10000, not \"nan\""},
		{"1xH200,seed=-1", "seed wants a number 0..18446744073709551615, not \"-1\""},
		{"1xH200,seed=99999999999999999999", "seed = 99999999999999999999 is out of range"},
		{"99999999999999999999xH200", "GPU count 99999999999999999999 in \"99999999999999999999xH200\" is out of range (1..64)"},
		{"65xH200", "GPU count 65 in \"65xH200\" is out of range (1..64)"},
	};
	struct gw_err err;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(open_sim(cases[i].spec, &err) == NULL);
		if (!strstr(err.msg, cases[i].want))
			fprintf(stderr, "  %s: got \"%s\"\n", cases[i].spec, err.msg);
		CHECK(strstr(err.msg, cases[i].want) != NULL);
	}
	struct gw_nvml *nv = open_sim("1xH200,speed=10000,seed=18446744073709551615", &err);
	CHECK(nv != NULL);
	gw_nvml_close(nv);
}

/* The same in a scenario file: each key's value is checked against its
 * range, with FILE:LINE, the key, the value and the range. */
static void test_scenario_bounds(void)
{
	char path[] = "/tmp/gwsim_test_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	static const struct {
		const char *line, *want;
	} cases[] = {
		{"mem_total_mib = 99999999999999999999", "mem_total_mib = 99999999999999999999 is out of range (1..16777216)"},
		{"mem_total_mib = -1", "mem_total_mib = -1 is out of range (1..16777216)"},
		{"power_limit_mw = 1e12", "power_limit_mw = 1e12 is out of range (0..10000000)"},
		{"temp_ambient_c = nan", "temp_ambient_c wants a number -50..100, not \"nan\""},
		{"thermal_tau_s = 0", "thermal_tau_s = 0 is out of range (0.01..3600)"},
		{"clock_max_sm_mhz = 0", "clock_max_sm_mhz = 0 is out of range (1..50000)"},
		{"nvlinks = 4294967296", "nvlinks = 4294967296 is out of range (0..18)"},
		{"pstate_busy = 16", "pstate_busy = 16 is out of range (0..15)"},
		{"cc = -1.5", "cc wants MAJOR.MINOR, each 0..99, not \"-1.5\""},
		{"temp_c = 50 1e999", "temp_c wants a number 0..200, not \"1e999\""},
		{"util_gpu = 101", "util_gpu = 101 is out of range (0..100)"},
		{"energy_mj = 1e30", "energy_mj = 1e30 is out of range (0..9007199254740992)"},
		{"supported_reasons = 0x1ffffffffffffffff", "supported_reasons = 0x1ffffffffffffffff is out of range"},
		{"load = nan", "load wants a number 0..1, not \"nan\""},
		{"ecc.corr.vol.dram = 1e300", "ecc.corr.vol.dram = 1e300 is out of range (0..9007199254740992)"},
		{"retired.sbe = 0x1000, junk", "retired.sbe wants a number 0..18446744073709551615, not \"junk\""},
		{"remap_hist = 1,2,3,4,-1", "remap_hist = -1 is out of range (0..1000000)"},
		{"remap_corr = 5e9", "remap_corr = 5e9 is out of range (0..1000000000)"},
		{"last_xid = 70000", "last_xid = 70000 is out of range (0..65535)"},
		{"process = 0 python C 100", "process pid = 0 is out of range (1..4194304)"},
		{"process = 12 python C 1e300", "process memory (MiB) = 1e300 is out of range (0..16777216)"},
		{"process = 12 python C 100 share=2", "process share = 2 is out of range (0..1)"},
		{"process = 12 python C 100 start=1e300", "process start = 1e300 is not a time 0..3650d"},
		{"process = 12 python C 100 sm=101", "bad value for process option sm = 101"},
		{"fault = 1e300s xid 79", "bad fault time \"1e300s\" (0..3650d"},
		{"fault = 3651d xid 79", "bad fault time \"3651d\""},
		{"fault = 1s xid 70000", "xid = 70000 is out of range (0..65535)"},
		{"fault = 1s xid -1", "xid = -1 is out of range (0..65535)"},
		{"fault = 1s ecc-sbe 1e9", "ecc error count = 1e9 is out of range (1..1000000)"},
		{"fault = 1s pcie-replay 0", "pcie-replay count = 0 is out of range (1..1000000)"},
		{"fault = 1s retire-page sbe 0xfffffffffffffffff", "retire-page address = 0xfffffffffffffffff is out of range"},
		{"fault = 1s throttle sw-power 1e300", "throttle duration \"1e300\" is not 0..315360000 seconds"},
		{"fault = 1s spike power_mw 1e12 1s", "power_mw = 1e12 is out of range (0..10000000)"},
		{"fault = 1s spike util_gpu 50.5 1s", "util_gpu wants a whole number, not \"50.5\""},
		{"fault = 1s timeout nvmlDeviceGetTemperature 1e12", "timeout delay (ms) = 1e12 is out of range (0..600000)"},
		{"fault = 1s fail nvmlDeviceGetTemperature NOT_SUPPORTED nan", "fail window \"nan\" is not 0..315360000 seconds"},
		{"fault = 1s fail nvmlDeviceGetTemperature 4294967296", "unknown NVML return code \"4294967296\""},
		{"mem_reserved_mib = 200000", "GPU 0: mem_reserved_mib 200000 + mem_base_mib"},
	};
	struct gw_err err;
	char text[512];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[gpu 0]\nmodel = H200\n%s\n", cases[i].line);
		write_file(path, text);
		CHECK(open_sim(path, &err) == NULL);
		if (!strstr(err.msg, cases[i].want))
			fprintf(stderr, "  %s: got \"%s\"\n", cases[i].line, err.msg);
		CHECK(strstr(err.msg, cases[i].want) != NULL);
	}
	static const struct {
		const char *text, *want;
	} sim[] = {
		{"[sim]\nepoch = 99999-99-99\n", ":2: epoch = 99999-99-99 is not a time from 1970-01-01 00:00:00 to 2199-12-31"},
		{"[sim]\nepoch = 2026-02-30 00:00:00\n", "epoch = 2026-02-30 00:00:00 is not a time"},
		{"[sim]\nepoch = 2026-01-01 24:00:00\n", "epoch = 2026-01-01 24:00:00 is not a time"},
		{"[sim]\nepoch = 2200-01-01 00:00:00\n", "epoch = 2200-01-01 00:00:00 is not a time"},
		{"[sim]\nepoch = 1e300\n", "epoch = 1e300 is not a time"},
		{"[sim]\nepoch = -5\n", "epoch = -5 is not a time"},
		{"[sim]\nepoch = 2026-01-01 00:00:00junk\n", "epoch = 2026-01-01 00:00:00junk is not a time"},
		{"[sim]\nspeed = 1e9\n", ":2: speed = 1e9 is out of range (0.001..10000)"},
		{"[sim]\nseed = 1e300\n", "seed wants a number 0..18446744073709551615, not \"1e300\""},
		{"[sim]\ncuda = 4294967.1\n", "cuda = 4294967.1 is out of range (1.0..99.99, or 1000..99990)"},
		{"[sim]\ncuda = 1e12\n", "cuda = 1e12 is out of range (1000..99990)"},
		{"[sim]\nfleet = 1xH200,speed=1e9\n", "speed = 1e9 is out of range"},
		{"[sim]\nfleet = 2xH200\n[gpu 0-1x]\nload = 1\n", "bad GPU selector \"0-1x\" (N, N-M or *, GPUs 0..63)"},
		{"[sim]\nfleet = 1xH200\n[gpu 99999999999]\nload = 1\n", "bad GPU selector \"99999999999\""},
	};
	for (size_t i = 0; i < sizeof(sim) / sizeof(sim[0]); i++) {
		write_file(path, sim[i].text);
		CHECK(open_sim(path, &err) == NULL);
		if (!strstr(err.msg, sim[i].want))
			fprintf(stderr, "  %s: got \"%s\"\n", sim[i].text, err.msg);
		CHECK(strstr(err.msg, sim[i].want) != NULL);
	}
	/* The edges themselves are accepted. */
	write_file(path, "[sim]\nepoch = 2199-12-31 23:59:59.999999\nspeed = 0.001\ncuda = 13.1\n"
			 "[gpu 0]\nmodel = H200\nmem_total_mib = 16777216\nfault = 3650d xid 65535\n"
			 "process = 4194304 python C 0 share=1 start=0 end=3650d\n");
	struct gw_nvml *nv = open_sim(path, &err);
	if (!nv)
		fprintf(stderr, "  edges: %s\n", err.msg);
	CHECK(nv != NULL);
	gw_nvml_close(nv);
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

/* The UUIDs of a spec's GPUs, joined by spaces; "" when it does not open. */
static void uuids_of(const char *spec, char *out, size_t len)
{
	struct gw_err err;
	out[0] = '\0';
	struct gw_nvml *nv = open_sim(spec, &err);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_gpu *g = NULL;
	unsigned int n = 0;
	CHECK_INT_EQ(gw_nvml_gpus_list(nv, &g, &n, &err), 0);
	size_t w = 0;
	for (unsigned int i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(out + w, len - w, "%s%s", i ? " " : "", g[i].uuid);
	free(g);
	gw_nvml_close(nv);
}

/*
 * A UUID names one board: the same board index of two models, or the same
 * model on two simulated hosts, must not share one (a store counting GPUs
 * by UUID would merge them), while the same spec gives the same UUIDs.
 */
static void test_uuid_per_model_and_host(void)
{
	char h200[128], h100[128], a100[128], mixed[256], again[256], host_a[128], host_b[128], host_a2[128];
	uuids_of("1xH200", h200, sizeof(h200));
	uuids_of("1xH100", h100, sizeof(h100));
	uuids_of("1xA100", a100, sizeof(a100));
	CHECK_INT_EQ(strlen(h200), 40);
	CHECK(strcmp(h200, h100) != 0);
	CHECK(strcmp(h200, a100) != 0);
	CHECK(strcmp(h100, a100) != 0);
	uuids_of("1xH200,1xH100,1xA100", mixed, sizeof(mixed));
	uuids_of("1xH200,1xH100,1xA100", again, sizeof(again));
	CHECK_STR_EQ(mixed, again);
	CHECK_INT_EQ(strlen(mixed), 3 * 40 + 2);
	CHECK(strncmp(mixed, mixed + 41, 40) != 0 && strncmp(mixed, mixed + 82, 40) != 0 &&
	      strncmp(mixed + 41, mixed + 82, 40) != 0);
	uuids_of("1xH200,host=node-a", host_a, sizeof(host_a));
	uuids_of("1xH200,host=node-b", host_b, sizeof(host_b));
	uuids_of("1xH200,host=node-a", host_a2, sizeof(host_a2));
	CHECK(strcmp(host_a, host_b) != 0);
	CHECK(strcmp(host_a, h200) != 0);
	CHECK_STR_EQ(host_a, host_a2);

	/* A scenario's [sim] host does the same; a pinned uuid stays as written. */
	char dir[] = "/tmp/gw_sim_host_XXXXXX", path[256], pinned[128];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.scn", dir);
	write_file(path, "[sim]\nhost = node-a\n[gpu 0]\nmodel = H200\n[gpu 1]\nmodel = H200\n"
			 "uuid = GPU-11111111-2222-3333-4444-555555555555\n");
	uuids_of(path, pinned, sizeof(pinned));
	CHECK(strncmp(pinned, host_a, 40) == 0);
	CHECK_STR_EQ(pinned + 41, "GPU-11111111-2222-3333-4444-555555555555");
	unlink(path);
	rmdir(dir);

	struct gw_err err;
	CHECK(open_sim("1xH200,host=no spaces", &err) == NULL);
	CHECK(strstr(err.msg, "is not a host name") != NULL);
}

int main(void)
{
	RUN(test_spec_errors);
	RUN(test_scenario_errors);
	RUN(test_spec_bounds);
	RUN(test_scenario_bounds);
	RUN(test_aliases_and_identity);
	RUN(test_determinism);
	RUN(test_capture_scenario);
	RUN(test_uuid_per_model_and_host);
	return harness_done();
}
