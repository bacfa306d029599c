/*
 * fields_tab_ecc.c - rows for ECC mode and error counters, retired pages
 * and remapped rows.
 */
#include "fields/fields_rows.h"

#define CORR NVML_MEMORY_ERROR_TYPE_CORRECTED
#define UNC NVML_MEMORY_ERROR_TYPE_UNCORRECTED
#define VOL NVML_VOLATILE_ECC
#define AGG NVML_AGGREGATE_ECC

/* One counter of nvmlDeviceGetMemoryErrorCounter (type, counter, location). */
#define ECC(nm, t, cnt, loc, dcgm, prom, d)                                                                \
	{F("ecc.errors." nm), FMT(UINT), RD(ecc, t, cnt, loc), CU(COUNT), SEC(ECC_ERRORS), FLAGS(GW_FL_SLOW), dcgm,               \
	 PROM(prom, COUNTER, d), DESC(d)}
#define ECC_TOTAL(nm, t, cnt, dcgm, prom, d)                                                               \
	{F("ecc.errors." nm), FMT(UINT), RD(ecc_total, t, cnt), CU(COUNT), SEC(ECC_ERRORS), FLAGS(GW_FL_SLOW), dcgm,              \
	 PROM(prom, COUNTER, d), DMON(t == CORR && cnt == VOL ? "sbecc" : t == UNC && cnt == VOL ? "dbecc" : NULL), DESC(d)}
/* Counters of nvmlDeviceGetSramEccErrorStatus, which nvml_api.h does not
 * declare: printed as the H200 capture prints them. */
#define SRAM(nm, text, d) {F("ecc.errors.uncorrected." nm), FMT(UINT), NOSRC(text), CU(COUNT), SEC(ECC_ERRORS), DESC(d)}
#define NODCGM .dcgm = NULL

/* The 9 per-location counters of one (type, counter) pair. */
#define ECC_GROUP(tn, t, cn, cnt, P, D_DEV, I_DEV, D_REG, I_REG, D_L1, I_L1, D_L2, I_L2, D_TEX, I_TEX, D_CBU, I_CBU,  \
		  D_SRM, I_SRM, D_TOT, I_TOT)                                                                   \
	ECC(tn "." cn ".device_memory", t, cnt, NVML_MEMORY_LOCATION_DEVICE_MEMORY, DCGM(D_DEV, I_DEV),        \
	    "gpuwatch_ecc_" P "_device_memory_total", "Errors in device memory (DRAM)."),                       \
	ECC(tn "." cn ".dram", t, cnt, NVML_MEMORY_LOCATION_DRAM, NODCGM, NULL,                                \
	    "Errors in device memory (DRAM); same counter as device_memory."),                                \
	ECC(tn "." cn ".register_file", t, cnt, NVML_MEMORY_LOCATION_REGISTER_FILE, DCGM(D_REG, I_REG),        \
	    "gpuwatch_ecc_" P "_register_file_total", "Errors in the register file."),                         \
	ECC(tn "." cn ".l1_cache", t, cnt, NVML_MEMORY_LOCATION_L1_CACHE, DCGM(D_L1, I_L1),                    \
	    "gpuwatch_ecc_" P "_l1_cache_total", "Errors in the L1 cache."),                                   \
	ECC(tn "." cn ".l2_cache", t, cnt, NVML_MEMORY_LOCATION_L2_CACHE, DCGM(D_L2, I_L2),                    \
	    "gpuwatch_ecc_" P "_l2_cache_total", "Errors in the L2 cache."),                                   \
	ECC(tn "." cn ".texture_memory", t, cnt, NVML_MEMORY_LOCATION_TEXTURE_MEMORY, DCGM(D_TEX, I_TEX),      \
	    "gpuwatch_ecc_" P "_texture_memory_total", "Parity errors in texture memory."),                    \
	ECC(tn "." cn ".cbu", t, cnt, NVML_MEMORY_LOCATION_CBU, DCGM(D_CBU, I_CBU), "gpuwatch_ecc_" P "_cbu_total", \
	    "Parity errors in the CBU."),                                                                      \
	ECC(tn "." cn ".sram", t, cnt, NVML_MEMORY_LOCATION_SRAM, DCGM(D_SRM, I_SRM),                          \
	    "gpuwatch_ecc_" P "_sram_total", "Errors in on-chip SRAMs."),                                       \
	ECC_TOTAL(tn "." cn ".total", t, cnt, DCGM(D_TOT, I_TOT), "gpuwatch_ecc_" P "_total",                 \
		  "Errors anywhere on the chip.")

const struct gw_field gw_fields_ecc[] = {
	{F("ecc.mode.current"), FMT(ENABLED), RD(pair, GW_P_ECC_MODE, 0), SEC(ECC_MODE), DCGM(DCGM_FI_DEV_ECC_CURRENT, 300),
	 PROM("gpuwatch_ecc_mode", GAUGE, "1 when ECC is enabled."), DESC("ECC mode in use.")},
	{F("ecc.mode.pending"), FMT(ENABLED), RD(pair, GW_P_ECC_MODE, 1), SEC(ECC_MODE), DCGM(DCGM_FI_DEV_ECC_PENDING, 301),
	 DESC("ECC mode after the next reboot.")},
	ECC_GROUP("corrected", CORR, "volatile", VOL, "corrected_volatile", DCGM_FI_DEV_ECC_SBE_VOL_DEV, 318,
		  DCGM_FI_DEV_ECC_SBE_VOL_REG, 320, DCGM_FI_DEV_ECC_SBE_VOL_L1, 314, DCGM_FI_DEV_ECC_SBE_VOL_L2, 316,
		  DCGM_FI_DEV_ECC_SBE_VOL_TEX, 322, DCGM_FI_DEV_ECC_SBE_VOL_CBU, 336, DCGM_FI_DEV_ECC_SBE_VOL_SRM, 342,
		  DCGM_FI_DEV_ECC_SBE_VOL_TOTAL, 310),
	ECC_GROUP("corrected", CORR, "aggregate", AGG, "corrected_aggregate", DCGM_FI_DEV_ECC_SBE_AGG_DEV, 328,
		  DCGM_FI_DEV_ECC_SBE_AGG_REG, 330, DCGM_FI_DEV_ECC_SBE_AGG_L1, 324, DCGM_FI_DEV_ECC_SBE_AGG_L2, 326,
		  DCGM_FI_DEV_ECC_SBE_AGG_TEX, 332, DCGM_FI_DEV_ECC_SBE_AGG_CBU, 340, DCGM_FI_DEV_ECC_SBE_AGG_SRM, 344,
		  DCGM_FI_DEV_ECC_SBE_AGG_TOTAL, 312),
	ECC_GROUP("uncorrected", UNC, "volatile", VOL, "uncorrected_volatile", DCGM_FI_DEV_ECC_DBE_VOL_DEV, 319,
		  DCGM_FI_DEV_ECC_DBE_VOL_REG, 321, DCGM_FI_DEV_ECC_DBE_VOL_L1, 315, DCGM_FI_DEV_ECC_DBE_VOL_L2, 317,
		  DCGM_FI_DEV_ECC_DBE_VOL_TEX, 323, DCGM_FI_DEV_ECC_DBE_VOL_CBU, 337, DCGM_FI_DEV_ECC_DBE_VOL_SRM, 343,
		  DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, 311),
	ECC_GROUP("uncorrected", UNC, "aggregate", AGG, "uncorrected_aggregate", DCGM_FI_DEV_ECC_DBE_AGG_DEV, 329,
		  DCGM_FI_DEV_ECC_DBE_AGG_REG, 331, DCGM_FI_DEV_ECC_DBE_AGG_L1, 325, DCGM_FI_DEV_ECC_DBE_AGG_L2, 327,
		  DCGM_FI_DEV_ECC_DBE_AGG_TEX, 333, DCGM_FI_DEV_ECC_DBE_AGG_CBU, 341, DCGM_FI_DEV_ECC_DBE_AGG_SRM, 345,
		  DCGM_FI_DEV_ECC_DBE_AGG_TOTAL, 313),
	SRAM("volatile.sram.parity", "0", "Distinct uncorrectable parity errors in SRAM since driver load."),
	SRAM("volatile.sram.secded", "0", "Distinct uncorrectable SEC-DED errors in SRAM since driver load."),
	SRAM("aggregate.sram.parity", "0", "Distinct uncorrectable parity errors in SRAM over the board's life."),
	SRAM("aggregate.sram.secded", "0", "Distinct uncorrectable SEC-DED errors in SRAM over the board's life."),
	{F("ecc.errors.uncorrected.aggregate.sram.thresholdExceeded"), FMT(YESNO), NOSRC("No"), SEC(ECC_ERRORS),
	 DCGM(DCGM_FI_DEV_THRESHOLD_SRM, 346), DESC("\"Yes\" once SRAM errors passed the threshold that calls for service.")},
	SRAM("aggregate.sram.l2", "0", "Distinct uncorrectable SRAM errors in the L2 cache over the board's life."),
	SRAM("aggregate.sram.sm", "0", "Distinct uncorrectable SRAM errors in the SMs over the board's life."),
	SRAM("aggregate.sram.mcu", "0", "Distinct uncorrectable SRAM errors in microcontrollers over the board's life."),
	SRAM("aggregate.sram.pcie", "0", "Uncorrectable SRAM errors in the PCIe block over the board's life."),
	SRAM("aggregate.sram.other", "0", "Distinct uncorrectable SRAM errors anywhere else over the board's life."),
	{F("retired_pages.single_bit_ecc.count"), AKA("retired_pages.sbe"), FMT(UINT),
	 RD(retired, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS), CU(COUNT), SEC(RETIRED_PAGES), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_RETIRED_SBE, 390), PROM("gpuwatch_retired_pages_sbe", GAUGE, "Pages retired after repeated single-bit errors."),
	 DESC("Pages retired after repeated single-bit ECC errors.")},
	{F("retired_pages.double_bit.count"), AKA("retired_pages.dbe"), FMT(UINT),
	 RD(retired, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR), CU(COUNT), SEC(RETIRED_PAGES), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_RETIRED_DBE, 391), PROM("gpuwatch_retired_pages_dbe", GAUGE, "Pages retired after a double-bit error."),
	 DESC("Pages retired after a double-bit ECC error.")},
	{F("retired_pages.pending"), FMT(YESNO), RD(uint, GW_U_RETIRED_PENDING), SEC(RETIRED_PAGES), FLAGS(GW_FL_SLOW), DCGM(DCGM_FI_DEV_RETIRED_PENDING, 392),
	 PROM("gpuwatch_retired_pages_pending", GAUGE, "1 when pages wait to be retired at the next reboot."),
	 DESC("\"Yes\" when pages wait to be retired at the next reboot; they can still be handed out until then.")},
	{F("remapped_rows.correctable"), AKA("remapped_rows.sbe"), FMT(UINT), RD(remapped, 0), CU(COUNT), SEC(REMAPPED_ROWS), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, 394),
	 PROM("gpuwatch_remapped_rows_correctable", GAUGE, "Rows remapped after correctable errors."),
	 DESC("Rows remapped after repeated correctable (single-bit) errors.")},
	{F("remapped_rows.uncorrectable"), AKA("remapped_rows.dbe"), FMT(UINT), RD(remapped, 1), CU(COUNT), SEC(REMAPPED_ROWS), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, 393),
	 PROM("gpuwatch_remapped_rows_uncorrectable", GAUGE, "Rows remapped after uncorrectable errors."),
	 DESC("Rows remapped after an uncorrectable (double-bit) error.")},
	{F("remapped_rows.pending"), FMT(YESNO), RD(remapped, 2), SEC(REMAPPED_ROWS), FLAGS(GW_FL_SLOW), DCGM(DCGM_FI_DEV_ROW_REMAP_PENDING, 396),
	 PROM("gpuwatch_remapped_rows_pending", GAUGE, "1 when a row remap waits for a GPU reset."),
	 DESC("\"Yes\" when a remap waits for a GPU reset.")},
	{F("remapped_rows.failure"), FMT(YESNO), RD(remapped, 3), SEC(REMAPPED_ROWS), FLAGS(GW_FL_SLOW), DCGM(DCGM_FI_DEV_ROW_REMAP_FAILURE, 395),
	 PROM("gpuwatch_remapped_rows_failure", GAUGE, "1 once a row remap has failed."),
	 DESC("\"Yes\" once a remap has ever failed on this GPU.")},
	{F("remapped_rows.histogram.max"), FMT(UINT), RD(remap_histogram, 0), CU(COUNT), SEC(REMAP_HISTOGRAM), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_BANKS_REMAP_ROWS_AVAIL_MAX, 385), DESC("Banks with all their spare rows left.")},
	{F("remapped_rows.histogram.high"), FMT(UINT), RD(remap_histogram, 1), CU(COUNT), SEC(REMAP_HISTOGRAM), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_BANKS_REMAP_ROWS_AVAIL_HIGH, 386), DESC("Banks with many spare rows left.")},
	{F("remapped_rows.histogram.partial"), FMT(UINT), RD(remap_histogram, 2), CU(COUNT), SEC(REMAP_HISTOGRAM), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_BANKS_REMAP_ROWS_AVAIL_PARTIAL, 387), DESC("Banks with some spare rows left.")},
	{F("remapped_rows.histogram.low"), FMT(UINT), RD(remap_histogram, 3), CU(COUNT), SEC(REMAP_HISTOGRAM), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_BANKS_REMAP_ROWS_AVAIL_LOW, 388), DESC("Banks with few spare rows left.")},
	{F("remapped_rows.histogram.none"), FMT(UINT), RD(remap_histogram, 4), CU(COUNT), SEC(REMAP_HISTOGRAM), FLAGS(GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_BANKS_REMAP_ROWS_AVAIL_NONE, 389), DESC("Banks with no spare rows left.")},
	/* NVLink error totals over all links, as field values (what DCGM reads for its _TOTAL fields) */
#define NVLINK_ERR(nm, fid, dcgm, d)                                                                          \
	{F("nvlink.errors." nm ".total"), FMT(UINT), RD(field_value, fid, 0), CU(COUNT), FLAGS(GW_FL_NOSMI), dcgm, DESC(d)}
	NVLINK_ERR("crc_flit", GW_NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL,
		   DCGM(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, 409), "NVLink flow-control CRC errors, all links."),
	NVLINK_ERR("crc_data", GW_NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL,
		   DCGM(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL, 419), "NVLink data CRC errors, all links."),
	NVLINK_ERR("replay", GW_NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL,
		   DCGM(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, 429), "NVLink retries, all links."),
	NVLINK_ERR("recovery", GW_NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL,
		   DCGM(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, 439), "NVLink recovery errors, all links."),
#undef NVLINK_ERR
	{F("nvlink.links_active"), FMT(UINT), RD(nvlink_active, 0), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_SLOW),
	 PROM("gpuwatch_nvlink_links_active", GAUGE, "NVLinks up."),
	 DESC("NVLinks up (active); a GPU without NVLink has none to count.")},
	/* DCGM's NVLink bandwidth: data received plus sent over every link, as DCGM's rate of the KiB counters */
	{F("nvlink.bandwidth.total"), FMT(UINT), RD(nvlink_kib, -1), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_KIB_RATE),
	 DCGM(DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, 449),
	 DESC("NVLink data received and sent over all links since the previous sample: KiB per second / 1000, as DCGM computes it.")},
	/* the same per link, read only when a counters file lists it (DCGM's ids: L0-L5 440.., L6-L11 475.., L12-L14 446.., L15-L17 494..) */
#define NVLINK_BW(l, id)                                                                                       \
	{F("nvlink.bandwidth.l" #l), FMT(UINT), RD(nvlink_kib, l), CU(COUNT),                                 \
	 FLAGS(GW_FL_NOSMI | GW_FL_KIB_RATE | GW_FL_ON_DEMAND), DCGM(DCGM_FI_DEV_NVLINK_BANDWIDTH_L##l, id),   \
	 DESC("NVLink data received and sent over link " #l ", as DCGM's total is computed.")}
	NVLINK_BW(0, 440), NVLINK_BW(1, 441), NVLINK_BW(2, 442), NVLINK_BW(3, 443), NVLINK_BW(4, 444),
	NVLINK_BW(5, 445), NVLINK_BW(6, 475), NVLINK_BW(7, 476), NVLINK_BW(8, 477), NVLINK_BW(9, 478),
	NVLINK_BW(10, 479), NVLINK_BW(11, 480), NVLINK_BW(12, 446), NVLINK_BW(13, 447), NVLINK_BW(14, 448),
	NVLINK_BW(15, 494), NVLINK_BW(16, 495), NVLINK_BW(17, 496),
#undef NVLINK_BW
	/* each link's error counters, read only when a counters file lists them (DCGM's field ids by link) */
	{F("nvlink.errors.crc_flit.l0"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 0), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0", .dcgm_id = 400, DESC("NVLink flow-control CRC errors on link 0.")},
	{F("nvlink.errors.crc_flit.l1"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 1), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L1", .dcgm_id = 401, DESC("NVLink flow-control CRC errors on link 1.")},
	{F("nvlink.errors.crc_flit.l2"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 2), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L2", .dcgm_id = 402, DESC("NVLink flow-control CRC errors on link 2.")},
	{F("nvlink.errors.crc_flit.l3"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 3), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L3", .dcgm_id = 403, DESC("NVLink flow-control CRC errors on link 3.")},
	{F("nvlink.errors.crc_flit.l4"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 4), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L4", .dcgm_id = 404, DESC("NVLink flow-control CRC errors on link 4.")},
	{F("nvlink.errors.crc_flit.l5"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 5), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L5", .dcgm_id = 405, DESC("NVLink flow-control CRC errors on link 5.")},
	{F("nvlink.errors.crc_flit.l6"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 6), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6", .dcgm_id = 451, DESC("NVLink flow-control CRC errors on link 6.")},
	{F("nvlink.errors.crc_flit.l7"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 7), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L7", .dcgm_id = 452, DESC("NVLink flow-control CRC errors on link 7.")},
	{F("nvlink.errors.crc_flit.l8"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 8), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L8", .dcgm_id = 453, DESC("NVLink flow-control CRC errors on link 8.")},
	{F("nvlink.errors.crc_flit.l9"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 9), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L9", .dcgm_id = 454, DESC("NVLink flow-control CRC errors on link 9.")},
	{F("nvlink.errors.crc_flit.l10"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 10), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L10", .dcgm_id = 455, DESC("NVLink flow-control CRC errors on link 10.")},
	{F("nvlink.errors.crc_flit.l11"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 11), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L11", .dcgm_id = 456, DESC("NVLink flow-control CRC errors on link 11.")},
	{F("nvlink.errors.crc_flit.l12"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 12), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L12", .dcgm_id = 406, DESC("NVLink flow-control CRC errors on link 12.")},
	{F("nvlink.errors.crc_flit.l13"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 13), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L13", .dcgm_id = 407, DESC("NVLink flow-control CRC errors on link 13.")},
	{F("nvlink.errors.crc_flit.l14"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 14), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L14", .dcgm_id = 408, DESC("NVLink flow-control CRC errors on link 14.")},
	{F("nvlink.errors.crc_flit.l15"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 15), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L15", .dcgm_id = 481, DESC("NVLink flow-control CRC errors on link 15.")},
	{F("nvlink.errors.crc_flit.l16"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 16), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L16", .dcgm_id = 482, DESC("NVLink flow-control CRC errors on link 16.")},
	{F("nvlink.errors.crc_flit.l17"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_FLIT, 17), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L17", .dcgm_id = 483, DESC("NVLink flow-control CRC errors on link 17.")},
	{F("nvlink.errors.crc_data.l0"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 0), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0", .dcgm_id = 410, DESC("NVLink data CRC errors on link 0.")},
	{F("nvlink.errors.crc_data.l1"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 1), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L1", .dcgm_id = 411, DESC("NVLink data CRC errors on link 1.")},
	{F("nvlink.errors.crc_data.l2"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 2), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L2", .dcgm_id = 412, DESC("NVLink data CRC errors on link 2.")},
	{F("nvlink.errors.crc_data.l3"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 3), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L3", .dcgm_id = 413, DESC("NVLink data CRC errors on link 3.")},
	{F("nvlink.errors.crc_data.l4"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 4), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L4", .dcgm_id = 414, DESC("NVLink data CRC errors on link 4.")},
	{F("nvlink.errors.crc_data.l5"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 5), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L5", .dcgm_id = 415, DESC("NVLink data CRC errors on link 5.")},
	{F("nvlink.errors.crc_data.l6"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 6), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6", .dcgm_id = 457, DESC("NVLink data CRC errors on link 6.")},
	{F("nvlink.errors.crc_data.l7"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 7), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L7", .dcgm_id = 458, DESC("NVLink data CRC errors on link 7.")},
	{F("nvlink.errors.crc_data.l8"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 8), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L8", .dcgm_id = 459, DESC("NVLink data CRC errors on link 8.")},
	{F("nvlink.errors.crc_data.l9"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 9), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L9", .dcgm_id = 460, DESC("NVLink data CRC errors on link 9.")},
	{F("nvlink.errors.crc_data.l10"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 10), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L10", .dcgm_id = 461, DESC("NVLink data CRC errors on link 10.")},
	{F("nvlink.errors.crc_data.l11"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 11), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L11", .dcgm_id = 462, DESC("NVLink data CRC errors on link 11.")},
	{F("nvlink.errors.crc_data.l12"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 12), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L12", .dcgm_id = 416, DESC("NVLink data CRC errors on link 12.")},
	{F("nvlink.errors.crc_data.l13"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 13), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L13", .dcgm_id = 417, DESC("NVLink data CRC errors on link 13.")},
	{F("nvlink.errors.crc_data.l14"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 14), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L14", .dcgm_id = 418, DESC("NVLink data CRC errors on link 14.")},
	{F("nvlink.errors.crc_data.l15"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 15), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L15", .dcgm_id = 484, DESC("NVLink data CRC errors on link 15.")},
	{F("nvlink.errors.crc_data.l16"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 16), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L16", .dcgm_id = 485, DESC("NVLink data CRC errors on link 16.")},
	{F("nvlink.errors.crc_data.l17"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_CRC_DATA, 17), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L17", .dcgm_id = 486, DESC("NVLink data CRC errors on link 17.")},
	{F("nvlink.errors.replay.l0"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 0), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0", .dcgm_id = 420, DESC("NVLink replay errors on link 0.")},
	{F("nvlink.errors.replay.l1"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 1), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L1", .dcgm_id = 421, DESC("NVLink replay errors on link 1.")},
	{F("nvlink.errors.replay.l2"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 2), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L2", .dcgm_id = 422, DESC("NVLink replay errors on link 2.")},
	{F("nvlink.errors.replay.l3"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 3), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L3", .dcgm_id = 423, DESC("NVLink replay errors on link 3.")},
	{F("nvlink.errors.replay.l4"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 4), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L4", .dcgm_id = 424, DESC("NVLink replay errors on link 4.")},
	{F("nvlink.errors.replay.l5"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 5), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L5", .dcgm_id = 425, DESC("NVLink replay errors on link 5.")},
	{F("nvlink.errors.replay.l6"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 6), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6", .dcgm_id = 463, DESC("NVLink replay errors on link 6.")},
	{F("nvlink.errors.replay.l7"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 7), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L7", .dcgm_id = 464, DESC("NVLink replay errors on link 7.")},
	{F("nvlink.errors.replay.l8"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 8), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L8", .dcgm_id = 465, DESC("NVLink replay errors on link 8.")},
	{F("nvlink.errors.replay.l9"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 9), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L9", .dcgm_id = 466, DESC("NVLink replay errors on link 9.")},
	{F("nvlink.errors.replay.l10"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 10), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L10", .dcgm_id = 467, DESC("NVLink replay errors on link 10.")},
	{F("nvlink.errors.replay.l11"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 11), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L11", .dcgm_id = 468, DESC("NVLink replay errors on link 11.")},
	{F("nvlink.errors.replay.l12"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 12), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L12", .dcgm_id = 426, DESC("NVLink replay errors on link 12.")},
	{F("nvlink.errors.replay.l13"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 13), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L13", .dcgm_id = 427, DESC("NVLink replay errors on link 13.")},
	{F("nvlink.errors.replay.l14"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 14), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L14", .dcgm_id = 428, DESC("NVLink replay errors on link 14.")},
	{F("nvlink.errors.replay.l15"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 15), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L15", .dcgm_id = 487, DESC("NVLink replay errors on link 15.")},
	{F("nvlink.errors.replay.l16"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 16), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L16", .dcgm_id = 488, DESC("NVLink replay errors on link 16.")},
	{F("nvlink.errors.replay.l17"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_REPLAY, 17), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L17", .dcgm_id = 489, DESC("NVLink replay errors on link 17.")},
	{F("nvlink.errors.recovery.l0"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 0), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0", .dcgm_id = 430, DESC("NVLink recovery errors on link 0.")},
	{F("nvlink.errors.recovery.l1"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 1), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L1", .dcgm_id = 431, DESC("NVLink recovery errors on link 1.")},
	{F("nvlink.errors.recovery.l2"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 2), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L2", .dcgm_id = 432, DESC("NVLink recovery errors on link 2.")},
	{F("nvlink.errors.recovery.l3"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 3), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L3", .dcgm_id = 433, DESC("NVLink recovery errors on link 3.")},
	{F("nvlink.errors.recovery.l4"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 4), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L4", .dcgm_id = 434, DESC("NVLink recovery errors on link 4.")},
	{F("nvlink.errors.recovery.l5"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 5), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L5", .dcgm_id = 435, DESC("NVLink recovery errors on link 5.")},
	{F("nvlink.errors.recovery.l6"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 6), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6", .dcgm_id = 469, DESC("NVLink recovery errors on link 6.")},
	{F("nvlink.errors.recovery.l7"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 7), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L7", .dcgm_id = 470, DESC("NVLink recovery errors on link 7.")},
	{F("nvlink.errors.recovery.l8"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 8), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L8", .dcgm_id = 471, DESC("NVLink recovery errors on link 8.")},
	{F("nvlink.errors.recovery.l9"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 9), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L9", .dcgm_id = 472, DESC("NVLink recovery errors on link 9.")},
	{F("nvlink.errors.recovery.l10"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 10), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L10", .dcgm_id = 473, DESC("NVLink recovery errors on link 10.")},
	{F("nvlink.errors.recovery.l11"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 11), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L11", .dcgm_id = 474, DESC("NVLink recovery errors on link 11.")},
	{F("nvlink.errors.recovery.l12"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 12), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L12", .dcgm_id = 436, DESC("NVLink recovery errors on link 12.")},
	{F("nvlink.errors.recovery.l13"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 13), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L13", .dcgm_id = 437, DESC("NVLink recovery errors on link 13.")},
	{F("nvlink.errors.recovery.l14"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 14), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L14", .dcgm_id = 438, DESC("NVLink recovery errors on link 14.")},
	{F("nvlink.errors.recovery.l15"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 15), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L15", .dcgm_id = 491, DESC("NVLink recovery errors on link 15.")},
	{F("nvlink.errors.recovery.l16"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 16), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L16", .dcgm_id = 492, DESC("NVLink recovery errors on link 16.")},
	{F("nvlink.errors.recovery.l17"), FMT(UINT), RD(nvlink_err, NVML_NVLINK_ERROR_DL_RECOVERY, 17), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_ON_DEMAND),
	 .dcgm = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L17", .dcgm_id = 493, DESC("NVLink recovery errors on link 17.")},
};
const size_t gw_fields_ecc_n = sizeof(gw_fields_ecc) / sizeof(gw_fields_ecc[0]);
