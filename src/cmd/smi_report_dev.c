/*
 * smi_report_dev.c - the sections of nvidia-smi -q from PCI on: link,
 * performance, memory, utilisation, ECC and row remapping, temperature,
 * power, clocks, fabric and processes. Layout and wording are nvidia-smi's
 * (shared/reference/nvidia-smi-captures); every value is an NVML answer.
 */
#include "cmd/smi_report_int.h"

#include "collect/procs.h"

#include <string.h>

#define MIB (1024.0 * 1024.0)

/* kv of an unsigned long long counter, or the call's failure text. */
static void kv_ull(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned long long v,
		   const char *unit)
{
	if (ret == NVML_SUCCESS)
		kv(r, depth, label, "%llu%s", v, unit);
	else
		kv(r, depth, label, "%s", vtext(r, ret));
}

/* kv of milliwatts as nvidia-smi's "627.32 W". */
static void kv_watts(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned long long mw)
{
	if (ret == NVML_SUCCESS)
		kv(r, depth, label, "%.2f W", (double)mw / 1000.0);
	else
		kv(r, depth, label, "%s", vtext(r, ret));
}

/* ---- PCI ------------------------------------------------------------------------- */
static const char *const atomics[] = {"FETCHADD_32", "FETCHADD_64", "SWAP_32", "SWAP_64", "CAS_32", "CAS_64", "CAS_128"};

static void kv_atomics(struct gw_smi_rep *r, const char *label, unsigned int field)
{
	long long mask = 0;
	char s[128] = "";
	nvmlReturn_t ret = gw_smi_rep_field(r, field, 0, &mask);
	if (ret != NVML_SUCCESS) {
		kv(r, 2, label, "%s", vtext(r, ret));
		return;
	}
	/* each name is followed by a blank, the last one too, as nvidia-smi prints */
	for (size_t i = 0; i < sizeof(atomics) / sizeof(atomics[0]); i++)
		if (mask & (1LL << i)) {
			strncat(s, atomics[i], sizeof(s) - strlen(s) - 1);
			strncat(s, " ", sizeof(s) - strlen(s) - 1);
		}
	kv(r, 2, label, "%s", s);
}

void gw_smi_rep_pci(struct gw_smi_rep *r)
{
	char s[32];
	nvmlPciInfoExt_t pci = {.version = GW_NVML_STRUCT_VERSION(nvmlPciInfoExt_t, 1)};
	nvmlReturn_t ret = NV(r, nvmlDeviceGetPciInfoExt, r->d, &pci);
	head(r, 1, "PCI");
	if (ret == NVML_SUCCESS) {
		kv(r, 2, "Bus", "0x%02X", pci.bus);
		kv(r, 2, "Device", "0x%02X", pci.device);
		kv(r, 2, "Domain", "0x%04X", pci.domain);
		kv(r, 2, "Base Classcode", "0x%X", pci.baseClass);
		kv(r, 2, "Sub Classcode", "0x%X", pci.subClass);
		kv(r, 2, "Device Id", "0x%08X", pci.pciDeviceId);
		kv(r, 2, "Bus Id", "%s", pci.busId);
		kv(r, 2, "Sub System Id", "0x%08X", pci.pciSubSystemId);
	} else {
		static const char *const l[] = {"Bus", "Device", "Domain", "Base Classcode", "Sub Classcode",
						"Device Id", "Bus Id", "Sub System Id"};
		for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
			kv(r, 2, l[i], "%s", vtext(r, ret));
	}
	unsigned int u = 0;
	head(r, 2, "GPU Link Info");
	head(r, 3, "PCIe Generation");
	ret = NV(r, nvmlDeviceGetMaxPcieLinkGeneration, r->d, &u);
	kv_uint(r, 4, "Max", ret, u, "");
	ret = NV(r, nvmlDeviceGetCurrPcieLinkGeneration, r->d, &u);
	kv_uint(r, 4, "Current", ret, u, "");
	kv_uint(r, 4, "Device Current", ret, u, "");
	ret = NV(r, nvmlDeviceGetGpuMaxPcieLinkGeneration, r->d, &u);
	kv_uint(r, 4, "Device Max", ret, u, "");
	kv(r, 4, "Host Max", "%s", info(r, "pcie_host_max_gen", s, sizeof(s)));
	head(r, 3, "Link Width");
	ret = NV(r, nvmlDeviceGetMaxPcieLinkWidth, r->d, &u);
	kv_uint(r, 4, "Max", ret, u, "x");
	ret = NV(r, nvmlDeviceGetCurrPcieLinkWidth, r->d, &u);
	kv_uint(r, 4, "Current", ret, u, "x");
	/* boards behind a PLX bridge report it with nvmlDeviceGetBridgeChipInfo; none here */
	head(r, 2, "Bridge Chip");
	kv(r, 3, "Type", "N/A");
	kv(r, 3, "Firmware", "N/A");
	ret = NV(r, nvmlDeviceGetPcieReplayCounter, r->d, &u);
	kv_uint(r, 2, "Replays Since Reset", ret, u, "");
	long long v = 0;
	ret = gw_smi_rep_field(r, GW_NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER, 0, &v);
	kv_ull(r, 2, "Replay Number Rollovers", ret, (unsigned long long)v, "");
	ret = NV(r, nvmlDeviceGetPcieThroughput, r->d, NVML_PCIE_UTIL_TX_BYTES, &u);
	kv_uint(r, 2, "Tx Throughput", ret, u, " KB/s");
	ret = NV(r, nvmlDeviceGetPcieThroughput, r->d, NVML_PCIE_UTIL_RX_BYTES, &u);
	kv_uint(r, 2, "Rx Throughput", ret, u, " KB/s");
	kv_atomics(r, "Atomic Caps Outbound", NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK);
	kv_atomics(r, "Atomic Caps Inbound", NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK);
}

/* ---- performance --------------------------------------------------------------------- */
static const struct {
	unsigned long long bit;
	int depth;
	const char *label;
} reasons[] = {
	{nvmlClocksEventReasonGpuIdle, 2, "Idle"},
	{nvmlClocksEventReasonApplicationsClocksSetting, 2, "Applications Clocks Setting"},
	{nvmlClocksEventReasonSwPowerCap, 2, "SW Power Cap"},
	{nvmlClocksThrottleReasonHwSlowdown, 2, "HW Slowdown"},
	{nvmlClocksThrottleReasonHwThermalSlowdown, 3, "HW Thermal Slowdown"},
	{nvmlClocksThrottleReasonHwPowerBrakeSlowdown, 3, "HW Power Brake Slowdown"},
	{nvmlClocksEventReasonSyncBoost, 2, "Sync Boost"},
	{nvmlClocksEventReasonSwThermalSlowdown, 2, "SW Thermal Slowdown"},
	{nvmlClocksEventReasonDisplayClockSetting, 2, "Display Clock Setting"},
};

/* violation time counters, ns, printed in us */
static const struct {
	unsigned int field;
	const char *label;
} counters[] = {
	{NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP, "SW Power Capping"},
	{NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST, "Sync Boost"},
	{NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, "SW Thermal Slowdown"},
	{NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, "HW Thermal Slowdown"},
	{NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, "HW Power Braking"},
};

void gw_smi_rep_perf(struct gw_smi_rep *r)
{
	unsigned int u = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetFanSpeed, r->d, &u);
	kv_uint(r, 1, "Fan Speed", ret, u, " %");
	nvmlPstates_t ps = 0;
	ret = NV(r, nvmlDeviceGetPerformanceState, r->d, &ps);
	if (ret == NVML_SUCCESS)
		kv(r, 1, "Performance State", "P%d", (int)ps);
	else
		kv(r, 1, "Performance State", "%s", vtext(r, ret));
	unsigned long long cur = 0, sup = 0;
	nvmlReturn_t rc = NV(r, nvmlDeviceGetCurrentClocksEventReasons, r->d, &cur);
	nvmlReturn_t rs = NV(r, nvmlDeviceGetSupportedClocksEventReasons, r->d, &sup);
	head(r, 1, "Clocks Event Reasons");
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (rc != NVML_SUCCESS)
			kv(r, reasons[i].depth, reasons[i].label, "%s", vtext(r, rc));
		else if (rs == NVML_SUCCESS && !(sup & reasons[i].bit))
			kv(r, reasons[i].depth, reasons[i].label, "N/A");
		else
			kv(r, reasons[i].depth, reasons[i].label, "%s", cur & reasons[i].bit ? "Active" : "Not Active");
	}
	head(r, 1, "Clocks Event Reasons Counters");
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		long long ns = 0;
		ret = gw_smi_rep_field(r, counters[i].field, 0, &ns);
		kv_ull(r, 2, counters[i].label, ret, (unsigned long long)ns / 1000ULL, " us");
	}
}

void gw_smi_rep_sparse(struct gw_smi_rep *r)
{
	char s[32];
	kv(r, 1, "Sparse Operation Mode", "%s", info(r, "sparse_operation_mode", s, sizeof(s)));
}

/* ---- memory ---------------------------------------------------------------------------- */
static void mem_block(struct gw_smi_rep *r, const char *title, nvmlReturn_t ret, unsigned long long total,
		      const unsigned long long *reserved, unsigned long long used, unsigned long long free)
{
	head(r, 1, title);
	kv_ull(r, 2, "Total", ret, (unsigned long long)(total / MIB), " MiB");
	if (reserved)
		kv_ull(r, 2, "Reserved", ret, (unsigned long long)(*reserved / MIB), " MiB");
	kv_ull(r, 2, "Used", ret, (unsigned long long)(used / MIB), " MiB");
	kv_ull(r, 2, "Free", ret, (unsigned long long)(free / MIB), " MiB");
}

void gw_smi_rep_memory(struct gw_smi_rep *r)
{
	nvmlMemory_v2_t m = {.version = GW_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2)};
	nvmlReturn_t ret = NV(r, nvmlDeviceGetMemoryInfo_v2, r->d, &m);
	mem_block(r, "FB Memory Usage", ret, m.total, &m.reserved, m.used, m.free);
	nvmlBAR1Memory_t b = {0};
	ret = NV(r, nvmlDeviceGetBAR1MemoryInfo, r->d, &b);
	mem_block(r, "BAR1 Memory Usage", ret, b.bar1Total, NULL, b.bar1Used, b.bar1Free);
	nvmlMemory_t cc = {0};
	ret = NV(r, nvmlDeviceGetConfComputeProtectedMemoryUsage, r->d, &cc);
	mem_block(r, "Conf Compute Protected Memory Usage", ret, cc.total, NULL, cc.used, cc.free);
}

void gw_smi_rep_compute(struct gw_smi_rep *r)
{
	static const char *const modes[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
	nvmlComputeMode_t m = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetComputeMode, r->d, &m);
	kv(r, 1, "Compute Mode", "%s",
	   ret != NVML_SUCCESS ? vtext(r, ret) : (unsigned int)m < 4 ? modes[m] : "Unknown");
}

void gw_smi_rep_util(struct gw_smi_rep *r)
{
	nvmlUtilization_t u = {0};
	unsigned int v = 0, period = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetUtilizationRates, r->d, &u);
	head(r, 1, "Utilization");
	kv_uint(r, 2, "GPU", ret, u.gpu, " %");
	kv_uint(r, 2, "Memory", ret, u.memory, " %");
	ret = NV(r, nvmlDeviceGetEncoderUtilization, r->d, &v, &period);
	kv_uint(r, 2, "Encoder", ret, v, " %");
	ret = NV(r, nvmlDeviceGetDecoderUtilization, r->d, &v, &period);
	kv_uint(r, 2, "Decoder", ret, v, " %");
	ret = NV(r, nvmlDeviceGetJpgUtilization, r->d, &v, &period);
	kv_uint(r, 2, "JPEG", ret, v, " %");
	ret = NV(r, nvmlDeviceGetOfaUtilization, r->d, &v, &period);
	kv_uint(r, 2, "OFA", ret, v, " %");
}

static void stats_block(struct gw_smi_rep *r, const char *title, nvmlReturn_t ret, unsigned int n, unsigned int fps,
			unsigned int lat)
{
	head(r, 1, title);
	kv_uint(r, 2, "Active Sessions", ret, n, "");
	kv_uint(r, 2, "Average FPS", ret, fps, "");
	kv_uint(r, 2, "Average Latency", ret, lat, "");
}

void gw_smi_rep_encoder(struct gw_smi_rep *r)
{
	unsigned int n = 0, fps = 0, lat = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetEncoderStats, r->d, &n, &fps, &lat);
	stats_block(r, "Encoder Stats", ret, n, fps, lat);
}

void gw_smi_rep_fbc(struct gw_smi_rep *r)
{
	nvmlFBCStats_t s = {0};
	nvmlReturn_t ret = NV(r, nvmlDeviceGetFBCStats, r->d, &s);
	stats_block(r, "FBC Stats", ret, s.sessionsCount, s.averageFPS, s.averageLatency);
}

void gw_smi_rep_dram_encryption(struct gw_smi_rep *r)
{
	/* nvmlDeviceGetDramEncryptionMode: Blackwell and newer; not bound */
	head(r, 1, "DRAM Encryption Mode");
	kv(r, 2, "Current", "N/A");
	kv(r, 2, "Pending", "N/A");
}

/* ---- temperature ------------------------------------------------------------------------ */
static void kv_threshold(struct gw_smi_rep *r, const char *label, nvmlTemperatureThresholds_t t)
{
	unsigned int v = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetTemperatureThreshold, r->d, t, &v);
	kv_uint(r, 2, label, ret, v, " C");
}

static void kv_tlimit(struct gw_smi_rep *r, const char *label, unsigned int field)
{
	long long v = 0;
	nvmlReturn_t ret = gw_smi_rep_field(r, field, 0, &v);
	if (ret == NVML_SUCCESS)
		kv(r, 2, label, "%lld C", v);
	else
		kv(r, 2, label, "%s", vtext(r, ret));
}

void gw_smi_rep_temperature(struct gw_smi_rep *r)
{
	unsigned int t = 0;
	long long mem = 0;
	nvmlMarginTemperature_t m = {.version = GW_NVML_STRUCT_VERSION(nvmlMarginTemperature_t, 1)};
	head(r, 1, "Temperature");
	nvmlReturn_t ret = NV(r, nvmlDeviceGetTemperature, r->d, NVML_TEMPERATURE_GPU, &t);
	kv_uint(r, 2, "GPU Current Temp", ret, t, " C");
	nvmlReturn_t rm = NV(r, nvmlDeviceGetMarginTemperature, r->d, &m);
	if (rm == NVML_SUCCESS)
		kv(r, 2, "GPU T.Limit Temp", "%d C", m.marginTemperature);
	else
		kv(r, 2, "GPU T.Limit Temp", "%s", vtext(r, rm));
	/* with T.Limit, nvidia-smi gives the limits relative to it */
	bool tl = rm == NVML_SUCCESS;
	if (tl) {
		kv_tlimit(r, "GPU Shutdown T.Limit Temp", NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT);
		kv_tlimit(r, "GPU Slowdown T.Limit Temp", NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT);
		kv_tlimit(r, "GPU Max Operating T.Limit Temp", NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT);
	} else {
		kv_threshold(r, "GPU Shutdown Temp", NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
		kv_threshold(r, "GPU Slowdown Temp", NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
		kv_threshold(r, "GPU Max Operating Temp", NVML_TEMPERATURE_THRESHOLD_GPU_MAX);
	}
	kv_threshold(r, "GPU Target Temperature", NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR);
	ret = gw_smi_rep_field(r, NVML_FI_DEV_MEMORY_TEMP, 0, &mem);
	if (ret == NVML_SUCCESS)
		kv(r, 2, "Memory Current Temp", "%lld C", mem);
	else
		kv(r, 2, "Memory Current Temp", "%s", vtext(r, ret));
	if (tl)
		kv_tlimit(r, "Memory Max Operating T.Limit Temp", NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT);
	else
		kv_threshold(r, "Memory Max Operating Temp", NVML_TEMPERATURE_THRESHOLD_MEM_MAX);
}

/* ---- power -------------------------------------------------------------------------------- */
static void kv_power_field(struct gw_smi_rep *r, const char *label, unsigned int field, unsigned int scope)
{
	long long mw = 0;
	nvmlReturn_t ret = gw_smi_rep_field(r, field, scope, &mw);
	kv_watts(r, 2, label, ret, (unsigned long long)mw);
}

void gw_smi_rep_power(struct gw_smi_rep *r)
{
	unsigned int mw = 0, lo = 0, hi = 0;
	nvmlReturn_t ret;
	head(r, 1, "GPU Power Readings");
	kv_power_field(r, "Average Power Draw", NVML_FI_DEV_POWER_AVERAGE, NVML_POWER_SCOPE_GPU);
	kv_power_field(r, "Instantaneous Power Draw", NVML_FI_DEV_POWER_INSTANT, NVML_POWER_SCOPE_GPU);
	ret = NV(r, nvmlDeviceGetEnforcedPowerLimit, r->d, &mw);
	kv_watts(r, 2, "Current Power Limit", ret, mw);
	ret = NV(r, nvmlDeviceGetPowerManagementLimit, r->d, &mw);
	kv_watts(r, 2, "Requested Power Limit", ret, mw);
	ret = NV(r, nvmlDeviceGetPowerManagementDefaultLimit, r->d, &mw);
	kv_watts(r, 2, "Default Power Limit", ret, mw);
	ret = NV(r, nvmlDeviceGetPowerManagementLimitConstraints, r->d, &lo, &hi);
	kv_watts(r, 2, "Min Power Limit", ret, lo);
	kv_watts(r, 2, "Max Power Limit", ret, hi);
	head(r, 1, "GPU Memory Power Readings "); /* sic: nvidia-smi's trailing blank */
	kv_power_field(r, "Average Power Draw", NVML_FI_DEV_POWER_AVERAGE, NVML_POWER_SCOPE_MEMORY);
	kv_power_field(r, "Instantaneous Power Draw", NVML_FI_DEV_POWER_INSTANT, NVML_POWER_SCOPE_MEMORY);
	head(r, 1, "Module Power Readings");
	kv_power_field(r, "Average Power Draw", NVML_FI_DEV_POWER_AVERAGE, NVML_POWER_SCOPE_MODULE);
	kv_power_field(r, "Instantaneous Power Draw", NVML_FI_DEV_POWER_INSTANT, NVML_POWER_SCOPE_MODULE);
	/* module limits come from nvmlDeviceGetPowerManagementLimit_v2 on
	 * Grace Hopper modules only; not bound */
	static const char *const l[] = {"Current Power Limit", "Requested Power Limit", "Default Power Limit",
					"Min Power Limit", "Max Power Limit"};
	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		kv(r, 2, l[i], "N/A");
}

void gw_smi_rep_power_smoothing(struct gw_smi_rep *r)
{
	/* nvmlDevicePowerSmoothing*: Blackwell and newer; not bound */
	kv(r, 1, "Power Smoothing", "N/A");
}

void gw_smi_rep_power_profiles(struct gw_smi_rep *r)
{
	/* nvmlDeviceWorkloadPowerProfile*: Blackwell and newer; not bound */
	head(r, 1, "Workload Power Profiles");
	kv(r, 2, "Requested Profiles", "N/A");
	kv(r, 2, "Enforced Profiles", "N/A");
}

void gw_smi_rep_edpp(struct gw_smi_rep *r)
{
	char s[32];
	kv(r, 1, "EDPp Multiplier", "%s", info(r, "edpp_multiplier", s, sizeof(s)));
}

/* ---- clocks --------------------------------------------------------------------------------- */
typedef nvmlReturn_t (*clock_fn)(nvmlDevice_t, nvmlClockType_t, unsigned int *);

static void clock_block(struct gw_smi_rep *r, const char *title, clock_fn fn, bool sm_video)
{
	static const struct {
		nvmlClockType_t type;
		const char *label;
		bool sm_video;
	} c[] = {{NVML_CLOCK_GRAPHICS, "Graphics", false},
		 {NVML_CLOCK_SM, "SM", true},
		 {NVML_CLOCK_MEM, "Memory", false},
		 {NVML_CLOCK_VIDEO, "Video", true}};
	head(r, 1, title);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (c[i].sm_video && !sm_video)
			continue;
		unsigned int mhz = 0;
		nvmlReturn_t ret = fn ? fn(r->d, c[i].type, &mhz) : NVML_ERROR_FUNCTION_NOT_FOUND;
		kv_uint(r, 2, c[i].label, ret, mhz, " MHz");
	}
}

void gw_smi_rep_clocks(struct gw_smi_rep *r)
{
	clock_block(r, "Clocks", r->nv->nvmlDeviceGetClockInfo, true);
	clock_block(r, "Applications Clocks", r->nv->nvmlDeviceGetApplicationsClock, false);
	clock_block(r, "Default Applications Clocks", r->nv->nvmlDeviceGetDefaultApplicationsClock, false);
	/* deferred memory clock: nvmlDeviceGetMemClkVfOffset era API, unsupported here; not bound */
	head(r, 1, "Deferred Clocks");
	kv(r, 2, "Memory", "N/A");
	clock_block(r, "Max Clocks", r->nv->nvmlDeviceGetMaxClockInfo, true);
	unsigned int mhz = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetMaxCustomerBoostClock, r->d, NVML_CLOCK_GRAPHICS, &mhz);
	head(r, 1, "Max Customer Boost Clocks");
	kv_uint(r, 2, "Graphics", ret, mhz, " MHz");
	/* auto boost: nvmlDeviceGetAutoBoostedClocksEnabled, unsupported since Volta; not bound */
	head(r, 1, "Clock Policy");
	kv(r, 2, "Auto Boost", "N/A");
	kv(r, 2, "Auto Boost Default", "N/A");
}

/* ---- fabric, processes, capabilities ------------------------------------------------------------ */
void gw_smi_rep_fabric(struct gw_smi_rep *r)
{
	static const char *const states[] = {"N/A", "Not Started", "In Progress", "Completed"};
	nvmlGpuFabricInfo_t f;
	memset(&f, 0, sizeof(f));
	nvmlReturn_t ret = NV(r, nvmlDeviceGetGpuFabricInfo, r->d, &f);
	head(r, 1, "Fabric");
	if (ret == NVML_SUCCESS) {
		const unsigned char *u = f.clusterUuid;
		kv(r, 2, "State", "%s", f.state < 4 ? states[f.state] : "Unknown");
		kv(r, 2, "Status", "%s", f.status == NVML_SUCCESS ? "Success" : vtext(r, f.status));
		kv(r, 2, "CliqueId", "%u", f.cliqueId);
		kv(r, 2, "ClusterUUID",
		   "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
		   u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	} else {
		kv(r, 2, "State", "%s", vtext(r, ret));
		kv(r, 2, "Status", "%s", vtext(r, ret));
		kv(r, 2, "CliqueId", "%s", vtext(r, ret));
		kv(r, 2, "ClusterUUID", "%s", vtext(r, ret));
	}
	/* the health mask is nvmlDeviceGetGpuFabricInfoV's (v3); no board here has one: not bound */
	head(r, 2, "Health");
	static const char *const h[] = {"Summary", "Bandwidth", "Route Recovery in progress", "Route Unhealthy",
					"Access Timeout Recovery", "Incorrect Configuration"};
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		kv(r, 3, h[i], "N/A");
	if (r->driver_major >= 595)
		kv(r, 3, "Partition Assigned", "N/A");
}

#define pkv(r, depth, label, ...) gw_smi_rep_kvw(r, depth, GW_SMI_REP_PROC_WIDTH, label, __VA_ARGS__)

void gw_smi_rep_processes(struct gw_smi_rep *r)
{
	struct gw_procs p = {0};
	int rc = gw_procs_list(r->nv, r->d, &p);
	if (rc == GW_EGPULOST)
		r->lost = true;
	if (rc == 0 && p.n == 0 && r->xml) {
		head(r, 1, "Processes"); /* XML: an empty element */
		gw_procs_release(&p);
		return;
	}
	if (rc != 0 || p.n == 0) {
		kv(r, 1, "Processes", "%s", rc == 0 ? "None" : "N/A");
		gw_procs_release(&p);
		return;
	}
	gw_procs_sort_pid(&p);
	head(r, 1, "Processes");
	/* XML wraps each process in <process_info>, its fields all one level down */
	int d = r->xml ? 3 : 2;
	for (size_t i = 0; i < p.n; i++) {
		const struct gw_proc *q = &p.v[i];
		if (r->xml)
			head(r, 2, "process_info");
		if (q->gi == GW_PROC_ID_NONE)
			pkv(r, d, "GPU instance ID", "N/A");
		else
			pkv(r, d, "GPU instance ID", "%u", q->gi);
		if (q->ci == GW_PROC_ID_NONE)
			pkv(r, d, "Compute instance ID", "N/A");
		else
			pkv(r, d, "Compute instance ID", "%u", q->ci);
		pkv(r, d, "Process ID", "%u", q->pid);
		pkv(r, 3, "Type", "%s", q->compute && q->graphics ? "C+G" : q->compute ? "C" : "G");
		pkv(r, 3, "Name", "%s", q->name[0] ? q->name : "N/A");
		if (q->mem_valid)
			pkv(r, 3, "Used GPU Memory", "%llu MiB", (unsigned long long)(q->used_bytes / (1024 * 1024)));
		else
			pkv(r, 3, "Used GPU Memory", "N/A");
	}
	gw_procs_release(&p);
}

void gw_smi_rep_capabilities(struct gw_smi_rep *r)
{
	nvmlDeviceCapabilities_t c = {.version = GW_NVML_STRUCT_VERSION(nvmlDeviceCapabilities_t, 1)};
	nvmlReturn_t ret = NV(r, nvmlDeviceGetCapabilities, r->d, &c);
	head(r, 1, "Capabilities");
	kv(r, 2, "EGM", "%s", ret != NVML_SUCCESS ? vtext(r, ret) : c.capMask & NVML_DEV_CAP_EGM ? "enabled" : "disabled");
}

