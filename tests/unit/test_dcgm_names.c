/* DCGM's field names, dcgm-exporter 1.x's names and the XID descriptions (export/dcgm_names.h, export/xid.h). */
#include "export/dcgm_names.h"
#include "export/xid.h"
#include "harness.h"

#include <string.h>

static void test_known(void)
{
	CHECK(gw_dcgm_name_known("DCGM_FI_DEV_GPU_TEMP"));
	CHECK(gw_dcgm_name_known("DCGM_FI_DRIVER_VERSION"));
	CHECK(gw_dcgm_name_known("DCGM_FI_DEV_VGPU_LICENSE_STATUS"));
	CHECK(gw_dcgm_name_known("DCGM_EXP_XID_ERRORS_COUNT"));
	/* per-link and per-engine names, within their ranges */
	CHECK(gw_dcgm_name_known("DCGM_FI_DEV_NVLINK_BANDWIDTH_L0"));
	CHECK(gw_dcgm_name_known("DCGM_FI_DEV_NVLINK_BANDWIDTH_L17"));
	CHECK(!gw_dcgm_name_known("DCGM_FI_DEV_NVLINK_BANDWIDTH_L18"));
	CHECK(!gw_dcgm_name_known("DCGM_FI_DEV_NVLINK_BANDWIDTH_L01"));
	CHECK(!gw_dcgm_name_known("DCGM_FI_DEV_NVLINK_BANDWIDTH_L"));
	CHECK(gw_dcgm_name_known("DCGM_FI_PROF_NVDEC7_ACTIVE"));
	CHECK(!gw_dcgm_name_known("DCGM_FI_PROF_NVDEC8_ACTIVE"));
	CHECK(gw_dcgm_name_known("DCGM_FI_PROF_NVLINK_L3_RX_BYTES"));
	/* typos and other spellings */
	CHECK(!gw_dcgm_name_known("DCGM_FI_DEV_GPU_TEMPP"));
	CHECK(!gw_dcgm_name_known("dcgm_fi_dev_gpu_temp"));
	CHECK(!gw_dcgm_name_known("DCGM_EXP_NOPE"));
	CHECK(!gw_dcgm_name_known(""));
}

static void test_legacy(void)
{
	char f[128];
	static const char *const pairs[][2] = {
		{"dcgm_sm_clock", "DCGM_FI_DEV_SM_CLOCK"},
		{"dcgm_memory_clock", "DCGM_FI_DEV_MEM_CLOCK"},
		{"dcgm_gpu_temp", "DCGM_FI_DEV_GPU_TEMP"},
		{"dcgm_gpu_utilization", "DCGM_FI_DEV_GPU_UTIL"},
		{"dcgm_xid_errors", "DCGM_FI_DEV_XID_ERRORS"},
		{"dcgm_ecc_dbe_aggregate_total", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"},
		{"dcgm_retired_pages_pending", "DCGM_FI_DEV_RETIRED_PENDING"},
		{"dcgm_nvlink_flit_crc_error_count_total", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL"},
		{"dcgm_nvlink_bandwidth_total", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"},
		/* dcgm_fi_* names are the DCGM name in lower case */
		{"dcgm_fi_prof_pcie_tx_bytes", "DCGM_FI_PROF_PCIE_TX_BYTES"},
		{"dcgm_fi_prof_gr_engine_active", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		CHECK(gw_dcgm_legacy_field(pairs[i][0], f, sizeof(f)));
		CHECK_STR_EQ(f, pairs[i][1]);
	}
	CHECK(!gw_dcgm_legacy_field("dcgm_gpu_tempp", f, sizeof(f)));
	CHECK(!gw_dcgm_legacy_field("dcgm_fi_prof_nope", f, sizeof(f)));
	CHECK(!gw_dcgm_legacy_field("dcgm_fi_PROF_DRAM_ACTIVE", f, sizeof(f)));
	CHECK(!gw_dcgm_legacy_field("DCGM_FI_DEV_GPU_TEMP", f, sizeof(f)));
	CHECK(!gw_dcgm_legacy_field("dcgm_fi_prof_dram_active", f, 8)); /* no room: refused, not cut */
}

static void test_xid(void)
{
	CHECK_STR_EQ(gw_xid_text(0), "No Error");
	CHECK_STR_EQ(gw_xid_text(13), "Graphics Engine Exception");
	CHECK_STR_EQ(gw_xid_text(48), "Double Bit ECC Error");
	CHECK_STR_EQ(gw_xid_text(79), "GPU has fallen off the bus");
	CHECK_STR_EQ(gw_xid_text(94), "Contained ECC error");
	CHECK_STR_EQ(gw_xid_text(95), "Uncontained ECC error");
	CHECK_STR_EQ(gw_xid_text(119), "GSP RPC Timeout");
	CHECK_STR_EQ(gw_xid_text(120), "GSP Error");
	CHECK_STR_EQ(gw_xid_text(8), "GPU stopped processing (timeout)"); /* the first entry */
	CHECK_STR_EQ(gw_xid_text(143), "GPU Initialization Failure");     /* the last */
	CHECK_STR_EQ(gw_xid_text(14), "Unknown XID");
	CHECK_STR_EQ(gw_xid_text(100000), "Unknown XID");
	/* every common XID has its own text */
	static const unsigned int common[] = {13, 31, 43, 45, 48, 61, 62, 63, 64, 68, 69, 74, 79, 92, 94, 95, 119, 120};
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		CHECK(strcmp(gw_xid_text(common[i]), "Unknown XID") != 0);
}

/* DCGM 4.6's names for fields the counters files know by older ones. */
static void test_aliases(void)
{
	char out[96];
	CHECK(gw_dcgm_alias("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTAL", out, sizeof(out)));
	CHECK_STR_EQ(out, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L3");
	CHECK(gw_dcgm_alias("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_L17_TOTAL", out, sizeof(out)));
	CHECK_STR_EQ(out, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L17");
	CHECK(gw_dcgm_alias("DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL", out, sizeof(out)));
	CHECK_STR_EQ(out, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL");
	CHECK(gw_dcgm_alias("DCGM_FI_DEV_NVLINK_THROUGHPUT_L12", out, sizeof(out)));
	CHECK_STR_EQ(out, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L12");
	CHECK(gw_dcgm_alias("DCGM_FI_DEV_GPU_BRAND", out, sizeof(out)));
	CHECK_STR_EQ(out, "DCGM_FI_DEV_BRAND");
	CHECK(!gw_dcgm_alias("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L18_TOTAL", out, sizeof(out)));
	CHECK(!gw_dcgm_alias("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTALS", out, sizeof(out)));
	CHECK(!gw_dcgm_alias("DCGM_FI_DEV_NVLINK_THROUGHPUT_L", out, sizeof(out)));
	CHECK(!gw_dcgm_alias("DCGM_FI_DEV_GPU_TEMP", out, sizeof(out)));
}

int main(void)
{
	RUN(test_known);
	RUN(test_legacy);
	RUN(test_xid);
	RUN(test_aliases);
	return harness_done();
}
