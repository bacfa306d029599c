/*
 * smi_report_ecc.c - nvidia-smi -q's memory health: ECC mode and error
 * counters (SRAM split by parity/SEC-DED from Ampere on, a single SRAM
 * uncorrectable line before), repair status, retired pages and remapped
 * rows with the bank availability histogram.
 */
#include "cmd/smi_report_int.h"

static const char *yes_no(unsigned int v)
{
	return v ? "Yes" : "No";
}

static void kv_count(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned long long v)
{
	if (ret == NVML_SUCCESS)
		kv(r, depth, label, "%llu", v);
	else
		kv(r, depth, label, "%s", vtext(r, ret));
}

static nvmlReturn_t counter(struct gw_smi_rep *r, nvmlMemoryErrorType_t type, nvmlEccCounterType_t when,
			    nvmlMemoryLocation_t where, unsigned long long *v)
{
	*v = 0;
	return NV(r, nvmlDeviceGetMemoryErrorCounter, r->d, type, when, where, v);
}

static void dram_lines(struct gw_smi_rep *r, nvmlEccCounterType_t when)
{
	unsigned long long v;
	nvmlReturn_t ret = counter(r, NVML_MEMORY_ERROR_TYPE_CORRECTED, when, NVML_MEMORY_LOCATION_DRAM, &v);
	kv_count(r, 3, "DRAM Correctable", ret, v);
	ret = counter(r, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, when, NVML_MEMORY_LOCATION_DRAM, &v);
	kv_count(r, 3, "DRAM Uncorrectable", ret, v);
}

/* Turing and older: one SRAM uncorrectable counter per period. */
static void ecc_errors_old(struct gw_smi_rep *r)
{
	static const struct {
		nvmlEccCounterType_t when;
		const char *title;
	} periods[] = {{NVML_VOLATILE_ECC, "Volatile"}, {NVML_AGGREGATE_ECC, "Aggregate"}};
	for (size_t i = 0; i < 2; i++) {
		unsigned long long v;
		head(r, 2, periods[i].title);
		nvmlReturn_t ret =
			counter(r, NVML_MEMORY_ERROR_TYPE_CORRECTED, periods[i].when, NVML_MEMORY_LOCATION_SRAM, &v);
		kv_count(r, 3, "SRAM Correctable", ret, v);
		ret = counter(r, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, periods[i].when, NVML_MEMORY_LOCATION_SRAM, &v);
		kv_count(r, 3, "SRAM Uncorrectable", ret, v);
		dram_lines(r, periods[i].when);
	}
}

/* Ampere on: SRAM status split by parity and SEC-DED, with the sources of
 * aggregate uncorrectable errors and the repair flags. */
static void ecc_errors_new(struct gw_smi_rep *r)
{
	char s[32];
	nvmlEccSramErrorStatus_t st = {.version = GW_NVML_STRUCT_VERSION(nvmlEccSramErrorStatus_t, 1)};
	nvmlReturn_t ret = NV(r, nvmlDeviceGetSramEccErrorStatus, r->d, &st);
	head(r, 2, "Volatile");
	kv_count(r, 3, "SRAM Correctable", ret, st.volatileCor);
	kv_count(r, 3, "SRAM Uncorrectable Parity", ret, st.volatileUncParity);
	kv_count(r, 3, "SRAM Uncorrectable SEC-DED", ret, st.volatileUncSecDed);
	dram_lines(r, NVML_VOLATILE_ECC);
	head(r, 2, "Aggregate");
	kv_count(r, 3, "SRAM Correctable", ret, st.aggregateCor);
	kv_count(r, 3, "SRAM Uncorrectable Parity", ret, st.aggregateUncParity);
	kv_count(r, 3, "SRAM Uncorrectable SEC-DED", ret, st.aggregateUncSecDed);
	dram_lines(r, NVML_AGGREGATE_ECC);
	kv(r, 3, "SRAM Threshold Exceeded", "%s", ret == NVML_SUCCESS ? yes_no(st.bThresholdExceeded) : vtext(r, ret));
	head(r, 2, "Aggregate Uncorrectable SRAM Sources");
	kv_count(r, 3, "SRAM L2", ret, st.aggregateUncBucketL2);
	kv_count(r, 3, "SRAM SM", ret, st.aggregateUncBucketSm);
	kv_count(r, 3, "SRAM Microcontroller", ret, st.aggregateUncBucketMcu);
	kv_count(r, 3, "SRAM PCIE", ret, st.aggregateUncBucketPcie);
	kv_count(r, 3, "SRAM Other", ret, st.aggregateUncBucketOther);
	nvmlRepairStatus_t rs = {.version = GW_NVML_STRUCT_VERSION(nvmlRepairStatus_t, 1)};
	ret = NV(r, nvmlDeviceGetRepairStatus, r->d, &rs);
	kv(r, 2, "Channel Repair Pending", "%s", ret == NVML_SUCCESS ? yes_no(rs.bChannelRepairPending) : vtext(r, ret));
	kv(r, 2, "TPC Repair Pending", "%s", ret == NVML_SUCCESS ? yes_no(rs.bTpcRepairPending) : vtext(r, ret));
	kv(r, 2, "Unrepairable Memory", "%s", info(r, "unrepairable_memory", s, sizeof(s)));
}

void gw_smi_rep_ecc(struct gw_smi_rep *r)
{
	nvmlEnableState_t cur = 0, pend = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetEccMode, r->d, &cur, &pend);
	head(r, 1, "ECC Mode");
	kv(r, 2, "Current", "%s", ret == NVML_SUCCESS ? (cur ? "Enabled" : "Disabled") : vtext(r, ret));
	kv(r, 2, "Pending", "%s", ret == NVML_SUCCESS ? (pend ? "Enabled" : "Disabled") : vtext(r, ret));
	head(r, 1, "ECC Errors");
	if (r->arch_ret == NVML_SUCCESS && r->arch >= NVML_DEVICE_ARCH_AMPERE)
		ecc_errors_new(r);
	else
		ecc_errors_old(r);
}

void gw_smi_rep_retired(struct gw_smi_rep *r)
{
	head(r, 1, "Retired Pages");
	static const struct {
		nvmlPageRetirementCause_t cause;
		const char *label;
	} causes[] = {{NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, "Single Bit ECC"},
		      {NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, "Double Bit ECC"}};
	for (size_t i = 0; i < 2; i++) {
		unsigned int n = 0; /* count only: NVML fills no addresses when asked for 0 */
		nvmlReturn_t ret = NV(r, nvmlDeviceGetRetiredPages, r->d, causes[i].cause, &n, NULL);
		if (ret == NVML_ERROR_INSUFFICIENT_SIZE)
			ret = NVML_SUCCESS;
		kv_count(r, 2, causes[i].label, ret, n);
	}
	nvmlEnableState_t pending = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetRetiredPagesPendingStatus, r->d, &pending);
	kv(r, 2, "Pending Page Blacklist", "%s", ret == NVML_SUCCESS ? yes_no((unsigned int)pending) : vtext(r, ret));
}

void gw_smi_rep_remapped(struct gw_smi_rep *r)
{
	unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
	char s[32];
	nvmlReturn_t ret = NV(r, nvmlDeviceGetRemappedRows, r->d, &corr, &unc, &pending, &failed);
	if (ret != NVML_SUCCESS) {
		kv(r, 1, "Remapped Rows", "%s", vtext(r, ret));
		return;
	}
	/* from driver 595, rows remapped but not yet in use are listed too */
	bool inactive = r->driver_major >= 595;
	head(r, 1, "Remapped Rows");
	kv(r, 2, "Correctable Error", "%u", corr);
	if (inactive)
		kv(r, 2, "Inactive Correctable Error", "%s", info(r, "remap_inactive_correctable", s, sizeof(s)));
	kv(r, 2, "Uncorrectable Error", "%u", unc);
	if (inactive)
		kv(r, 2, "Inactive Uncorrectable Error", "%s", info(r, "remap_inactive_uncorrectable", s, sizeof(s)));
	kv(r, 2, "Pending", "%s", yes_no(pending));
	kv(r, 2, "Remapping Failure Occurred", "%s", yes_no(failed));
	nvmlRowRemapperHistogramValues_t h = {0};
	ret = NV(r, nvmlDeviceGetRowRemapperHistogram, r->d, &h);
	head(r, 2, "Bank Remap Availability Histogram");
	const unsigned int v[5] = {h.max, h.high, h.partial, h.low, h.none};
	static const char *const l[5] = {"Max", "High", "Partial", "Low", "None"};
	for (size_t i = 0; i < 5; i++)
		kv_uint(r, 3, l[i], ret, v[i], " bank(s)");
}
