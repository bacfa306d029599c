/*
 * fields_rows.h - shorthand for writing field rows (fields_tab_*.c only).
 *
 * Rows use designated initialisers through these short macros so a row
 * reads as "name, unit, format, reader(args), canonical unit, DCGM,
 * Prometheus, dmon, description" without the member-name noise.
 */
#ifndef GW_FIELDS_ROWS_H
#define GW_FIELDS_ROWS_H

#include "fields/fields_table.h"

#define F(n) .name = n
#define AKA(a) .aliases = {a, NULL}
#define UNIT(u) .unit = u
#define FMT(x) .fmt = GW_FMT_##x
#define HEX(w) .fmt = GW_FMT_HEX, .width = w
#define RD(fn, ...) .read = gw_rd_##fn, .arg = {__VA_ARGS__}
#define CU(x) .cunit = GW_CU_##x
/* Text printed when not available (nvidia-smi's own text for this field). */
#define NA(s) .na = s
#define NAU(s) .na = s, .na_unit = true
#define DCGM(n, id) .dcgm = #n, .dcgm_id = id
#define PROM(n, t, h) .prom = n, .ptype = GW_PT_##t, .help = h
#define DMON(col) .dmon = col
#define SEC(s) .section = GW_SEC_##s
#define FLAGS(x) .flags = (x)
#define DESC(d) .desc = d
#define ENUM(arr) .fmt = GW_FMT_ENUM, .names = arr, .nnames = (uint8_t)(sizeof(arr) / sizeof(arr[0]))

/* No NVML source in nvml_api.h: always "not available", printed as s. */
#define NOSRC(s) .read = gw_rd_none, .na = s

/* --help-query-gpu sections, indexes into gw_field_sections[]. */
enum gw_field_section_id {
	GW_SEC_NONE,
	GW_SEC_VGPU_DRIVER,
	GW_SEC_VGPU_DEVICE,
	GW_SEC_DRIVER_MODEL,
	GW_SEC_INFOROM,
	GW_SEC_GOM,
	GW_SEC_CLOCK_EVENTS,
	GW_SEC_CLOCK_EVENT_COUNTERS,
	GW_SEC_MEMORY,
	GW_SEC_UTILIZATION,
	GW_SEC_ENCODER_STATS,
	GW_SEC_DRAM_ENCRYPTION,
	GW_SEC_ECC_MODE,
	GW_SEC_ECC_ERRORS,
	GW_SEC_RETIRED_PAGES,
	GW_SEC_REMAPPED_ROWS,
	GW_SEC_REMAP_HISTOGRAM,
	GW_SEC_CLOCKS_APP,
	GW_SEC_CLOCKS_DEFAULT_APP,
	GW_SEC_CLOCKS_MAX,
	GW_SEC_MIG_MODE,
	GW_SEC_GSP_MODE,
	GW_SEC_PROTECTED_MEMORY,
	GW_SEC_PLATFORM,
	GW_SEC__COUNT
};

/* Indexes of gw_rd_uint's getter table (readers_dev.c). */
enum gw_uint_getter {
	GW_U_PCIE_GEN_CUR,
	GW_U_PCIE_GEN_MAX,
	GW_U_PCIE_GEN_GPU_MAX,
	GW_U_PCIE_WIDTH_CUR,
	GW_U_PCIE_WIDTH_MAX,
	GW_U_DISPLAY_MODE,
	GW_U_DISPLAY_ACTIVE,
	GW_U_PERSISTENCE,
	GW_U_ACCOUNTING,
	GW_U_ACCOUNTING_BUF,
	GW_U_FAN,
	GW_U_PSTATE,
	GW_U_COMPUTE_MODE,
	GW_U_POWER_USAGE,
	GW_U_POWER_LIMIT,
	GW_U_POWER_ENFORCED,
	GW_U_POWER_DEFAULT,
	GW_U_PCIE_REPLAY,
	GW_U_RETIRED_PENDING,
};

/* gw_rd_pair getters. */
enum gw_pair_getter { GW_P_ECC_MODE, GW_P_MIG_MODE, GW_P_GSP_MODE, GW_P_GOM, GW_P_POWER_CONSTRAINTS };

/* nvml.h's field ids of the NVLink error totals over all links (not in nvml_api.h's list). */
#define GW_NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL 38
#define GW_NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL 45
#define GW_NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL 52
#define GW_NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL 59

/* NVML field id of the GPU recovery action (not in nvml_api.h's list). */
#define GW_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230

#endif
