/*
 * dcgm_names.h - the names a dcgm-exporter counters file may use, so the
 * counters parser can tell a typo (DCGM_FI_DEV_GPU_TEMPP: refused) from a
 * real DCGM field gpuwatch does not read (left out with a note):
 *
 *   - DCGM's field names (DCGM_FI_*, from DCGM's dcgm_fields.h), per-link
 *     and per-engine names (_L0.._L17, NVDEC0..7) included;
 *   - dcgm-exporter's own families (DCGM_EXP_*);
 *   - the lower-case names of dcgm-exporter 1.x files (dcgm_sm_clock,
 *     dcgm_fi_prof_pcie_tx_bytes), each mapped to the DCGM field it reads.
 *
 * Ownership: static, read-only tables. Threading: reentrant.
 */
#ifndef GW_EXPORT_DCGM_NAMES_H
#define GW_EXPORT_DCGM_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Whether name is a DCGM field (DCGM_FI_...) or a dcgm-exporter family (DCGM_EXP_...). */
bool gw_dcgm_name_known(const char *name);

/*
 * The DCGM field a dcgm-exporter 1.x name reads ("dcgm_gpu_temp" ->
 * "DCGM_FI_DEV_GPU_TEMP"; "dcgm_fi_prof_dram_active" -> its upper-case
 * DCGM name), written into out (n bytes). Returns false for a name that is
 * no 1.x name.
 */
bool gw_dcgm_legacy_field(const char *name, char *out, size_t n);

/*
 * DCGM 4.6's new names for fields the counters files know by their older
 * ones (DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTAL for
 * DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L3, DCGM_FI_DEV_NVLINK_THROUGHPUT_*
 * for DCGM_FI_DEV_NVLINK_BANDWIDTH_*, DCGM_FI_DEV_GPU_BRAND for
 * DCGM_FI_DEV_BRAND): true with the older name in out.
 */
bool gw_dcgm_alias(const char *name, char *out, size_t n);

#endif
