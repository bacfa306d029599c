/*
 * nvml_perf.c - the performance face of a board: fans, P-state, clock event
 * reasons and violation counters, memory, temperature, power and clocks.
 * Values come from the snapshot physics.c keeps in g->d.now (pins applied).
 */
#include "sim.h"

#include <math.h>
#include <string.h>

#define MIB 1048576ULL

static nvmlReturn_t put_u(unsigned int *p, double v)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = (unsigned int)llround(v);
	return NVML_SUCCESS;
}

static nvmlReturn_t put_ull(unsigned long long *p, unsigned long long v)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = v;
	return NVML_SUCCESS;
}

/* ---- fans, P-state, clock event reasons ---------------------------------- */
static nvmlReturn_t fan(const struct gwsim_gpu *g, unsigned int i, unsigned int *speed)
{
	if (i >= g->st.fans)
		return g->st.fans ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_SUPPORTED;
	return put_u(speed, g->d.now.fan_pct);
}

GWSIM_DEV(nvmlDeviceGetFanSpeed, (nvmlDevice_t d, unsigned int *speed), fan(g, 0, speed))
GWSIM_DEV(nvmlDeviceGetFanSpeed_v2, (nvmlDevice_t d, unsigned int fan_i, unsigned int *speed), fan(g, fan_i, speed))
GWSIM_DEV(nvmlDeviceGetNumFans, (nvmlDevice_t d, unsigned int *numFans),
	  g->st.fans ? put_u(numFans, g->st.fans) : NVML_ERROR_NOT_SUPPORTED)

static nvmlReturn_t pstate(const struct gwsim_gpu *g, nvmlPstates_t *p)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = (nvmlPstates_t)g->d.now.pstate;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetPerformanceState, (nvmlDevice_t d, nvmlPstates_t *pState), pstate(g, pState))
GWSIM_DEV(nvmlDeviceGetCurrentClocksEventReasons, (nvmlDevice_t d, unsigned long long *reasons),
	  put_ull(reasons, g->d.now.reasons))
GWSIM_DEV(nvmlDeviceGetCurrentClocksThrottleReasons, (nvmlDevice_t d, unsigned long long *reasons),
	  put_ull(reasons, g->d.now.reasons))
GWSIM_DEV(nvmlDeviceGetSupportedClocksEventReasons, (nvmlDevice_t d, unsigned long long *reasons),
	  put_ull(reasons, g->st.supported_reasons))
GWSIM_DEV(nvmlDeviceGetSupportedClocksThrottleReasons, (nvmlDevice_t d, unsigned long long *reasons),
	  put_ull(reasons, g->st.supported_reasons))

/* ns spent throttled for a reason; index as in gwsim_dyn.viol_ns */
unsigned long long gwsim_violation_ns(const struct gwsim_gpu *g, unsigned int i)
{
	static const enum gwsim_pin pins[6] = {GWSIM_PIN_VIOL_POWER,     GWSIM_PIN_VIOL_THERMAL,
					       GWSIM_PIN_VIOL_SYNC,      GWSIM_PIN_VIOL_SW_THERM,
					       GWSIM_PIN_VIOL_HW_THERM,  GWSIM_PIN_VIOL_HW_BRAKE};
	if (gwsim_pinned(g, pins[i]))
		return (unsigned long long)gwsim_pin(g, pins[i]);
	return (unsigned long long)g->d.viol_ns[i];
}

static nvmlReturn_t violation(const struct gwsim_gpu *g, nvmlPerfPolicyType_t policy, nvmlViolationTime_t *v)
{
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	int i;
	switch (policy) {
	case NVML_PERF_POLICY_POWER:
		i = 0;
		break;
	case NVML_PERF_POLICY_THERMAL:
		i = 1;
		break;
	case NVML_PERF_POLICY_SYNC_BOOST:
		i = 2;
		break;
	case NVML_PERF_POLICY_BOARD_LIMIT:
	case NVML_PERF_POLICY_LOW_UTILIZATION:
	case NVML_PERF_POLICY_RELIABILITY:
	case NVML_PERF_POLICY_TOTAL_APP_CLOCKS:
	case NVML_PERF_POLICY_TOTAL_BASE_CLOCKS:
		i = -1;
		break;
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	v->referenceTime = gwsim_t_to_us(g->d.t);
	v->violationTime = i < 0 ? 0 : gwsim_violation_ns(g, (unsigned int)i);
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetViolationStatus, (nvmlDevice_t d, nvmlPerfPolicyType_t policy, nvmlViolationTime_t *time),
	  violation(g, policy, time))

/* ---- memory ---------------------------------------------------------------- */
/* The driver's free is one MiB more than total - reserved - used in most
 * captures (H200, H100, L40S, RTX 2080 idle), two in the GeForce ones
 * under load and the RTX 4080 idle: mem_free_extra_mib adds the second. */
static unsigned long long mem_free(const struct gwsim_gpu *g, unsigned long long used)
{
	unsigned long long total = g->st.mem_total_mib * MIB, res = g->st.mem_reserved_mib * MIB;
	unsigned long long free_b = total > res + used ? total - res - used + (1 + g->st.mem_free_extra_mib) * MIB : 0;
	return free_b > total - used ? total - used : free_b;
}

static nvmlReturn_t memory_v2(const struct gwsim_gpu *g, nvmlMemory_v2_t *m)
{
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	unsigned long long used = (unsigned long long)g->d.now.mem_used_mib * MIB;
	m->total = g->st.mem_total_mib * MIB;
	m->reserved = g->st.mem_reserved_mib * MIB;
	m->used = used;
	m->free = mem_free(g, used);
	return NVML_SUCCESS;
}

/* v1: "used" is everything not free, reserved included. */
static nvmlReturn_t memory_v1(const struct gwsim_gpu *g, nvmlMemory_t *m)
{
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned long long used = (unsigned long long)g->d.now.mem_used_mib * MIB;
	m->total = g->st.mem_total_mib * MIB;
	m->free = mem_free(g, used);
	m->used = m->total - m->free;
	return NVML_SUCCESS;
}

static nvmlReturn_t bar1(const struct gwsim_gpu *g, nvmlBAR1Memory_t *b)
{
	if (!b)
		return NVML_ERROR_INVALID_ARGUMENT;
	b->bar1Total = g->st.bar1_total_mib * MIB;
	b->bar1Used = g->st.bar1_used_mib * MIB;
	b->bar1Free = b->bar1Total - b->bar1Used;
	return NVML_SUCCESS;
}

/* A MIG device's memory is its GPU instance's: nothing reserved. */
static nvmlReturn_t mig_memory(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m, nvmlMemory_v2_t *v2,
			       nvmlMemory_t *v1)
{
	if ((!v2 && !v1) || (v2 && v2->version != nvmlMemory_v2))
		return v2 ? NVML_ERROR_ARGUMENT_VERSION_MISMATCH : NVML_ERROR_INVALID_ARGUMENT;
	unsigned long long total = gwsim_mig_mem_total(g, m) * MIB;
	unsigned long long used = (unsigned long long)gwsim_mig_mem_used(g, m) * MIB;
	/* The MIG captures' -q: an instance running no process frees one MiB
	 * more than total - used (as the whole GPU does), one running some
	 * exactly the rest. */
	unsigned long long free_b = total - used;
	if (used >= MIB && !gwsim_mig_busy(g, m))
		free_b += MIB;
	if (v2) {
		v2->total = total;
		v2->reserved = 0;
		v2->used = used;
		v2->free = free_b;
	} else {
		v1->total = total;
		v1->used = total - free_b;
		v1->free = free_b;
	}
	return NVML_SUCCESS;
}

GWSIM_DEV_MIG(nvmlDeviceGetMemoryInfo_v2, (nvmlDevice_t d, nvmlMemory_v2_t *memory),
	      m ? mig_memory(g, m, memory, NULL) : memory_v2(g, memory))
GWSIM_DEV_MIG(nvmlDeviceGetMemoryInfo, (nvmlDevice_t d, nvmlMemory_t *memory),
	      m ? mig_memory(g, m, NULL, memory) : memory_v1(g, memory))
GWSIM_DEV_MIG(nvmlDeviceGetBAR1MemoryInfo, (nvmlDevice_t d, nvmlBAR1Memory_t *bar1_info),
	      m ? gwsim_mig_bar1(m, bar1_info) : bar1(g, bar1_info))

/* ---- temperature ----------------------------------------------------------- */
double gwsim_temp(const struct gwsim_gpu *g)
{
	return gwsim_pinned(g, GWSIM_PIN_TEMP) ? gwsim_pin(g, GWSIM_PIN_TEMP) : g->d.temp_c;
}

double gwsim_mem_temp(const struct gwsim_gpu *g)
{
	return gwsim_pinned(g, GWSIM_PIN_MEM_TEMP) ? gwsim_pin(g, GWSIM_PIN_MEM_TEMP) : g->d.mem_temp_c;
}

static nvmlReturn_t temperature(const struct gwsim_gpu *g, nvmlTemperatureSensors_t s, unsigned int *t)
{
	if (s != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	return put_u(t, floor(gwsim_temp(g) + 0.5));
}

static nvmlReturn_t threshold(const struct gwsim_gpu *g, nvmlTemperatureThresholds_t type, unsigned int *t)
{
	const struct gwsim_static *st = &g->st;
	unsigned int v;
	switch (type) {
	case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
		v = st->temp_shutdown;
		break;
	case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
		v = st->temp_slowdown;
		break;
	case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
		v = st->has_mem_temp ? st->temp_mem_max : 0;
		break;
	case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
		v = st->temp_gpu_max;
		break;
	case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN:
	case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR:
	case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX:
		v = st->temp_target; /* GeForce "target temperature" */
		break;
	case NVML_TEMPERATURE_THRESHOLD_GPS_CURR:
		v = 0;
		break;
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	return v ? put_u(t, v) : NVML_ERROR_NOT_SUPPORTED;
}

GWSIM_DEV(nvmlDeviceGetTemperature, (nvmlDevice_t d, nvmlTemperatureSensors_t sensor, unsigned int *temp),
	  temperature(g, sensor, temp))
GWSIM_DEV(nvmlDeviceGetTemperatureThreshold, (nvmlDevice_t d, nvmlTemperatureThresholds_t type, unsigned int *temp),
	  threshold(g, type, temp))

/* ---- power and energy -------------------------------------------------------- */
/* nvmlDeviceGetPowerUsage: a 1 s average on Ampere and newer, except GA100
 * (A100), which like older boards reports the instant value. */
double gwsim_power_usage(const struct gwsim_gpu *g)
{
	if (gwsim_pinned(g, GWSIM_PIN_POWER))
		return gwsim_pin(g, GWSIM_PIN_POWER);
	bool avg = g->st.arch >= NVML_DEVICE_ARCH_AMPERE && !(g->st.cc_major == 8 && g->st.cc_minor == 0);
	return avg ? g->d.now.power_avg_mw : g->d.now.power_mw;
}

static nvmlReturn_t energy(const struct gwsim_gpu *g, unsigned long long *mj)
{
	if (g->st.arch < NVML_DEVICE_ARCH_VOLTA)
		return NVML_ERROR_NOT_SUPPORTED;
	double e = gwsim_pinned(g, GWSIM_PIN_ENERGY) ? gwsim_pin(g, GWSIM_PIN_ENERGY) : g->d.energy_mj;
	return put_ull(mj, (unsigned long long)e);
}

static nvmlReturn_t constraints(const struct gwsim_gpu *g, unsigned int *lo, unsigned int *hi)
{
	if (!lo || !hi)
		return NVML_ERROR_INVALID_ARGUMENT;
	*lo = g->st.power_min_mw;
	*hi = g->st.power_max_mw;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetPowerManagementMode, (nvmlDevice_t d, nvmlEnableState_t *mode),
	  put_u((unsigned int *)mode, NVML_FEATURE_ENABLED))
GWSIM_DEV(nvmlDeviceGetPowerUsage, (nvmlDevice_t d, unsigned int *milliwatts), put_u(milliwatts, gwsim_power_usage(g)))
GWSIM_DEV(nvmlDeviceGetPowerManagementLimit, (nvmlDevice_t d, unsigned int *milliwatts),
	  put_u(milliwatts, g->st.power_limit_mw))
GWSIM_DEV(nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t d, unsigned int *milliwatts),
	  put_u(milliwatts, g->st.power_limit_mw))
GWSIM_DEV(nvmlDeviceGetPowerManagementDefaultLimit, (nvmlDevice_t d, unsigned int *milliwatts),
	  put_u(milliwatts, g->st.power_default_mw))
GWSIM_DEV(nvmlDeviceGetPowerManagementLimitConstraints, (nvmlDevice_t d, unsigned int *minLimit, unsigned int *maxLimit),
	  constraints(g, minLimit, maxLimit))
GWSIM_DEV(nvmlDeviceGetTotalEnergyConsumption, (nvmlDevice_t d, unsigned long long *millijoules), energy(g, millijoules))

/* ---- clocks ---------------------------------------------------------------------- */
static nvmlReturn_t clock_now(const struct gwsim_gpu *g, nvmlClockType_t type, unsigned int *mhz)
{
	const struct gwsim_now *n = &g->d.now;
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
		return put_u(mhz, gwsim_pinned(g, GWSIM_PIN_CLK_GFX) ? gwsim_pin(g, GWSIM_PIN_CLK_GFX) : n->clk_sm);
	case NVML_CLOCK_SM:
		return put_u(mhz, n->clk_sm);
	case NVML_CLOCK_MEM:
		return put_u(mhz, n->clk_mem);
	case NVML_CLOCK_VIDEO:
		return put_u(mhz, n->clk_video);
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

static nvmlReturn_t clock_max(const struct gwsim_gpu *g, nvmlClockType_t type, unsigned int *mhz)
{
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
	case NVML_CLOCK_SM:
		return put_u(mhz, g->st.clk_max_sm);
	case NVML_CLOCK_MEM:
		return put_u(mhz, g->st.clk_max_mem);
	case NVML_CLOCK_VIDEO:
		return put_u(mhz, g->st.clk_max_video);
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

static nvmlReturn_t clock_app(const struct gwsim_gpu *g, nvmlClockType_t type, unsigned int *mhz)
{
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
	case NVML_CLOCK_SM:
		return put_u(mhz, g->st.clk_app_sm);
	case NVML_CLOCK_MEM:
		return put_u(mhz, g->st.clk_app_mem);
	case NVML_CLOCK_VIDEO:
		return put_u(mhz, g->st.clk_max_video);
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

static nvmlReturn_t clock_any(const struct gwsim_gpu *g, nvmlClockType_t type, nvmlClockId_t id, unsigned int *mhz)
{
	switch (id) {
	case NVML_CLOCK_ID_CURRENT:
		return clock_now(g, type, mhz);
	case NVML_CLOCK_ID_APP_CLOCK_TARGET:
	case NVML_CLOCK_ID_APP_CLOCK_DEFAULT:
		return clock_app(g, type, mhz);
	case NVML_CLOCK_ID_CUSTOMER_BOOST_MAX:
		return clock_max(g, type, mhz);
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

GWSIM_DEV(nvmlDeviceGetClockInfo, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), clock_now(g, type, mhz))
GWSIM_DEV(nvmlDeviceGetMaxClockInfo, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), clock_max(g, type, mhz))
GWSIM_DEV(nvmlDeviceGetApplicationsClock, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz),
	  clock_app(g, type, mhz))
GWSIM_DEV(nvmlDeviceGetDefaultApplicationsClock, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz),
	  clock_app(g, type, mhz))
GWSIM_DEV(nvmlDeviceGetClock, (nvmlDevice_t d, nvmlClockType_t type, nvmlClockId_t id, unsigned int *mhz),
	  clock_any(g, type, id, mhz))
