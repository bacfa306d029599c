/*
 * fields_tab_perf.c - rows for fan, performance state, clock event reasons
 * and their counters, memory, compute mode, utilisation, encoder stats and
 * DRAM encryption.
 */
#include "fields/fields_rows.h"

static const char *const compute_mode_names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};

/* One clock event reason: Active / Not Active from the active mask. */
#define EVENT(nm, bit, d)                                                                                  \
	{F("clocks_event_reasons." nm), AKA("clocks_throttle_reasons." nm), FMT(ACTIVE),                   \
	 RD(clock_events, 2, (int)(bit)), SEC(CLOCK_EVENTS), DESC(d)}

/* Time a reason held the clocks down; NVML field value in ns, shown in us. */
#define EVENT_NS(nm, fid, dcgm, pname, col, d)                                                            \
	{F("clocks_event_reasons_counters." nm), UNIT("us"), FMT(NS_AS_US), RD(field_value, fid, 0), CU(NS),  \
	 SEC(CLOCK_EVENT_COUNTERS), dcgm, PROM(pname, COUNTER, d), DMON(col), DESC(d)}
#define NODCGM .dcgm = NULL

const struct gw_field gw_fields_perf[] = {
	{F("fan.speed"), UNIT("%"), FMT(UINT), RD(uint, GW_U_FAN), CU(PERCENT), DCGM(DCGM_FI_DEV_FAN_SPEED, 191),
	 PROM("gpuwatch_fan_speed_ratio", GAUGE, "Intended fan speed as a fraction of the maximum (may exceed 1)."),
	 DESC("Intended fan speed as a percentage of the product's maximum; can exceed 100. Many data-centre GPUs have no fan of their own.")},
	{F("pstate"), FMT(PSTATE), RD(uint, GW_U_PSTATE), CU(COUNT), DCGM(DCGM_FI_DEV_PSTATE, 190),
	 PROM("gpuwatch_pstate", GAUGE, "Performance state, 0 (fastest) to 15."),
	 DESC("Performance state, from P0 (fastest) to P12 or P15 (slowest).")},
	{F("clocks_event_reasons.supported"), AKA("clocks_throttle_reasons.supported"), HEX(16), RD(clock_events, 0),
	 FLAGS(GW_FL_STATIC), SEC(CLOCK_EVENTS), DESC("Bit mask of the clock event reasons this GPU can report (nvml.h lists the bits).")},
	{F("clocks_event_reasons.active"), AKA("clocks_throttle_reasons.active"), HEX(16), RD(clock_events, 1),
	 SEC(CLOCK_EVENTS), DCGM(DCGM_FI_DEV_CLOCKS_EVENT_REASONS, 112),
	 PROM("gpuwatch_clocks_event_reasons", GAUGE, "Bit mask of the reasons currently lowering the clocks."),
	 DESC("Bit mask of the clock event reasons active now.")},
	EVENT("gpu_idle", nvmlClocksEventReasonGpuIdle, "Nothing runs, so the clocks drop toward idle."),
	EVENT("applications_clocks_setting", nvmlClocksEventReasonApplicationsClocksSetting,
	      "Clocks are held to the applications clocks setting (--applications-clocks)."),
	EVENT("sw_power_cap", nvmlClocksEventReasonSwPowerCap,
	      "Software power capping lowers the clocks to keep power under the power limit (--power-limit)."),
	EVENT("hw_slowdown", nvmlClocksThrottleReasonHwSlowdown,
	      "Hardware slowdown (clocks cut by half or more) is engaged: too hot, an external power brake, or a power spike."),
	EVENT("hw_thermal_slowdown", nvmlClocksThrottleReasonHwThermalSlowdown,
	      "Hardware slowdown because the GPU is too hot."),
	EVENT("hw_power_brake_slowdown", nvmlClocksThrottleReasonHwPowerBrakeSlowdown,
	      "Hardware slowdown because an external power brake (e.g. the power supply) asked for it."),
	EVENT("sw_thermal_slowdown", nvmlClocksEventReasonSwThermalSlowdown,
	      "Software thermal capping lowers the clocks because the GPU is above its maximum operating temperature."),
	EVENT("sync_boost", nvmlClocksEventReasonSyncBoost,
	      "The GPU is in a sync boost group and runs at the lowest clocks any member can sustain."),
	EVENT_NS("sw_power_cap", NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP, DCGM(DCGM_FI_DEV_POWER_VIOLATION, 240),
		 "gpuwatch_clocks_event_sw_power_cap_seconds_total", "pviol", "Time software power capping held the clocks down."),
	EVENT_NS("sync_boost", NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST, DCGM(DCGM_FI_DEV_SYNC_BOOST_VIOLATION, 242),
		 "gpuwatch_clocks_event_sync_boost_seconds_total", NULL, "Time the clocks were held to the sync boost group's minimum."),
	EVENT_NS("sw_thermal_slowdown", NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, DCGM(DCGM_FI_DEV_THERMAL_VIOLATION, 241),
		 "gpuwatch_clocks_event_sw_thermal_seconds_total", "tviol", "Time software thermal capping held the clocks down."),
	EVENT_NS("hw_thermal_slowdown", NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, NODCGM,
		 "gpuwatch_clocks_event_hw_thermal_seconds_total", NULL, "Time hardware thermal slowdown was engaged."),
	EVENT_NS("hw_power_brake_slowdown", NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, NODCGM,
		 "gpuwatch_clocks_event_hw_power_brake_seconds_total", NULL, "Time an external power brake held the clocks down."),
	/* DCGM's violation counters with no clock-event field value: nvmlDeviceGetViolationStatus, ns */
#define VIOLATION(nm, policy, dcgm, d)                                                                        \
	{F("violation." nm), UNIT("ns"), FMT(UINT), RD(violation, policy), CU(NS), FLAGS(GW_FL_NOSMI), dcgm, DESC(d)}
	VIOLATION("board_limit", NVML_PERF_POLICY_BOARD_LIMIT, DCGM(DCGM_FI_DEV_BOARD_LIMIT_VIOLATION, 243),
		  "Time the board's limits held the clocks down."),
	VIOLATION("low_utilization", NVML_PERF_POLICY_LOW_UTILIZATION, DCGM(DCGM_FI_DEV_LOW_UTIL_VIOLATION, 244),
		  "Time low utilization held the clocks down."),
	VIOLATION("reliability", NVML_PERF_POLICY_RELIABILITY, DCGM(DCGM_FI_DEV_RELIABILITY_VIOLATION, 245),
		  "Time reliability limits held the clocks down."),
	VIOLATION("total_app_clocks", NVML_PERF_POLICY_TOTAL_APP_CLOCKS, DCGM(DCGM_FI_DEV_TOTAL_APP_CLOCKS_VIOLATION, 246),
		  "Time the clocks were held below the applications clocks, for any reason."),
	VIOLATION("total_base_clocks", NVML_PERF_POLICY_TOTAL_BASE_CLOCKS,
		  DCGM(DCGM_FI_DEV_TOTAL_BASE_CLOCKS_VIOLATION, 247),
		  "Time the clocks were held below the base clocks, for any reason."),
#undef VIOLATION
	{F("memory.total"), UNIT("MiB"), FMT(MIB), RD(memory, 0), CU(BYTES), FLAGS(GW_FL_STATIC), SEC(MEMORY),
	 DCGM(DCGM_FI_DEV_FB_TOTAL, 250), PROM("gpuwatch_memory_total_bytes", GAUGE, "Total device memory."),
	 DESC("Total device memory.")},
	{F("memory.reserved"), UNIT("MiB"), FMT(MIB), RD(memory, 1), CU(BYTES), SEC(MEMORY), DCGM(DCGM_FI_DEV_FB_RESERVED, 253),
	 PROM("gpuwatch_memory_reserved_bytes", GAUGE, "Device memory reserved by driver and firmware."),
	 DESC("Device memory the driver and firmware keep for themselves.")},
	{F("memory.used"), UNIT("MiB"), FMT(MIB), RD(memory, 2), CU(BYTES), SEC(MEMORY), DCGM(DCGM_FI_DEV_FB_USED, 252),
	 PROM("gpuwatch_memory_used_bytes", GAUGE, "Device memory allocated by running contexts."), DMON("fb"),
	 DESC("Device memory allocated by running contexts.")},
	{F("memory.free"), UNIT("MiB"), FMT(MIB), RD(memory, 3), CU(BYTES), SEC(MEMORY), DCGM(DCGM_FI_DEV_FB_FREE, 251),
	 PROM("gpuwatch_memory_free_bytes", GAUGE, "Device memory not allocated."), DESC("Device memory still free.")},
	{F("compute_mode"), ENUM(compute_mode_names), RD(uint, GW_U_COMPUTE_MODE), DCGM(DCGM_FI_DEV_COMPUTE_MODE, 65),
	 DESC("Who may create compute contexts: \"Default\" (many contexts), \"Exclusive_Thread\" (deprecated), \"Prohibited\" (none), \"Exclusive_Process\" (one context, many threads).")},
	{F("compute_cap"), FMT(STR), RD(compute_cap, 0), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_CUDA_COMPUTE_CAPABILITY, 63),
	 PROM("compute_cap", INFO, "CUDA compute capability."), DESC("CUDA compute capability as major.minor.")},
	{F("utilization.gpu"), UNIT("%"), FMT(UINT), RD(utilization, 0), CU(PERCENT), SEC(UTILIZATION), DCGM(DCGM_FI_DEV_GPU_UTIL, 203),
	 PROM("gpuwatch_utilization_gpu_ratio", GAUGE, "Fraction of the last sample period in which a kernel ran."), DMON("sm"),
	 DESC("Share of the last sample period in which at least one kernel ran (not how many SMs were busy).")},
	{F("utilization.memory"), UNIT("%"), FMT(UINT), RD(utilization, 1), CU(PERCENT), SEC(UTILIZATION),
	 DCGM(DCGM_FI_DEV_MEM_COPY_UTIL, 204),
	 PROM("gpuwatch_utilization_memory_ratio", GAUGE, "Fraction of the last sample period in which device memory was read or written."),
	 DMON("mem"), DESC("Share of the last sample period in which device memory was being read or written.")},
	{F("utilization.encoder"), UNIT("%"), FMT(UINT), RD(engine_util, 0), CU(PERCENT), SEC(UTILIZATION), DCGM(DCGM_FI_DEV_ENC_UTIL, 206),
	 PROM("gpuwatch_utilization_encoder_ratio", GAUGE, "Video encoder busy fraction."), DMON("enc"),
	 DESC("Share of the last sample period in which the video encoder was busy.")},
	{F("utilization.decoder"), UNIT("%"), FMT(UINT), RD(engine_util, 1), CU(PERCENT), SEC(UTILIZATION), DCGM(DCGM_FI_DEV_DEC_UTIL, 207),
	 PROM("gpuwatch_utilization_decoder_ratio", GAUGE, "Video decoder busy fraction."), DMON("dec"),
	 DESC("Share of the last sample period in which the video decoder was busy.")},
	{F("utilization.jpeg"), UNIT("%"), FMT(UINT), RD(engine_util, 2), CU(PERCENT), SEC(UTILIZATION),
	 PROM("gpuwatch_utilization_jpeg_ratio", GAUGE, "JPEG engine busy fraction."), DMON("jpg"),
	 DESC("Share of the last sample period in which the JPEG engine was busy.")},
	{F("utilization.ofa"), UNIT("%"), FMT(UINT), RD(engine_util, 3), CU(PERCENT), SEC(UTILIZATION),
	 PROM("gpuwatch_utilization_ofa_ratio", GAUGE, "Optical flow accelerator busy fraction."), DMON("ofa"),
	 DESC("Share of the last sample period in which the optical flow accelerator was busy.")},
	{F("encoder.stats.sessionCount"), FMT(UINT), RD(encoder_stats, 0), CU(COUNT), SEC(ENCODER_STATS),
	 PROM("gpuwatch_encoder_sessions", GAUGE, "Active video encoder sessions."), DESC("Number of encoder sessions running.")},
	{F("encoder.stats.averageFps"), FMT(UINT), RD(encoder_stats, 1), CU(COUNT), SEC(ENCODER_STATS),
	 PROM("gpuwatch_encoder_average_fps", GAUGE, "Average frames per second over all encoder sessions."),
	 DESC("Average frames per second over all encoder sessions.")},
	{F("encoder.stats.averageLatency"), FMT(UINT), RD(encoder_stats, 2), CU(COUNT), SEC(ENCODER_STATS),
	 DESC("Average encode latency over all sessions, in microseconds.")},
	/* nvmlDeviceGetDramEncryptionMode is not declared. */
	{F("dramEncryption.mode.current"), FMT(ENABLED), NOSRC(NULL), SEC(DRAM_ENCRYPTION), DESC("DRAM encryption mode in use.")},
	{F("dramEncryption.mode.pending"), FMT(ENABLED), NOSRC(NULL), SEC(DRAM_ENCRYPTION),
	 DESC("DRAM encryption mode after the next reboot.")},
};
const size_t gw_fields_perf_n = sizeof(gw_fields_perf) / sizeof(gw_fields_perf[0]);
