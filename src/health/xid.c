/*
 * xid.c - the XIDs the health watches act on: which watch each belongs to,
 * how bad it is and what to do. Codes, watches and severities are DCGM's
 * (the XIDs its health module always watches, reported under its ALL
 * watch, and those of each subsystem); the advice follows NVIDIA's XID
 * catalogue, in our words.
 */
#include "health/health_int.h"

#include <stddef.h>

#define ALL true
#define SUB false
#define W GW_HEALTH_WARN
#define F GW_HEALTH_FAIL

static const char reset[] = "drain the GPU and reset it (or reboot the node); RMA if it recurs";
static const char app[] =
    "usually the application's fault; if it recurs across applications, run a diagnostic";
static const char pcie[] = "check the slot, riser and cables, and reseat the GPU if the errors go on";
static const char cool[] = "check the cooling: fans, airflow and inlet temperature";
static const char power[] = "check the power supply, cables and power limits";
static const char nvlink[] = "watch the NVLink error counters; run a diagnostic if they grow";

/* Sorted by code. */
static const struct health_xid xids[] = {
    {31, GW_HSYS_MEMORY, W, SUB, "DCGM_FR_XID_ERROR", "a GPU memory page fault (MMU error)", app},
    {32, GW_HSYS_MEMORY, W, SUB, "DCGM_FR_XID_ERROR",
     "an invalid or corrupted push buffer stream (PBDMA error)", app},
    {38, GW_HSYS_PCIE, W, SUB, "DCGM_FR_XID_ERROR", "a PCIe bus error", pcie},
    {39, GW_HSYS_PCIE, W, SUB, "DCGM_FR_XID_ERROR", "a PCIe fabric error", pcie},
    {42, GW_HSYS_PCIE, W, SUB, "DCGM_FR_XID_ERROR", "a PCIe replay error", pcie},
    {43, GW_HSYS_MEMORY, W, SUB, "DCGM_FR_XID_ERROR",
     "a channel stopped by the driver (reset channel verification)", app},
    {48, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_XID_ERROR", "a double-bit ECC error", reset},
    {54, GW_HSYS_POWER, W, SUB, "DCGM_FR_XID_ERROR", "a power state change", power},
    {56, GW_HSYS_POWER, W, SUB, "DCGM_FR_XID_ERROR", "a clock change", power},
    {57, GW_HSYS_POWER, W, SUB, "DCGM_FR_CLOCK_THROTTLE_POWER", "a clock change for power", power},
    {58, GW_HSYS_POWER, W, SUB, "DCGM_FR_XID_ERROR", "a clock change for temperature", cool},
    {60, GW_HSYS_THERMAL, W, SUB, "DCGM_FR_CLOCK_THROTTLE_THERMAL", "clocks lowered by a thermal limit",
     cool},
    {61, GW_HSYS_THERMAL, W, SUB, "DCGM_FR_XID_ERROR", "a thermal power brake (EDPP)", cool},
    {62, GW_HSYS_THERMAL, W, SUB, "DCGM_FR_XID_ERROR", "a thermal violation", cool},
    {63, GW_HSYS_MEMORY, W, SUB, "DCGM_FR_PENDING_PAGE_RETIREMENTS",
     "a page retirement or row remap was recorded",
     "reset the GPU when convenient so it takes effect; the GPU can still run work"},
    {64, GW_HSYS_MEMORY, F, SUB, "DCGM_FR_ROW_REMAP_FAILURE",
     "a page retirement or row remap could not be recorded",
     "drain the GPU, run a field diagnostic and RMA it"},
    {67, GW_HSYS_NVLINK, W, SUB, "DCGM_FR_XID_ERROR", "an NVLink error", nvlink},
    {73, GW_HSYS_NVLINK, W, SUB, "DCGM_FR_XID_ERROR", "an NVLink flow control error", nvlink},
    {74, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_XID_ERROR", "an NVLink error the link did not recover from",
     "drain the GPU and reset it; if links keep failing, check the NVLink fabric and RMA"},
    {78, GW_HSYS_POWER, W, SUB, "DCGM_FR_XID_ERROR", "a forced power state change", power},
    {79, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_FALLEN_OFF_BUS", "the GPU fell off the bus",
     "drain the node and reboot it; check power, seating and cooling; RMA if it recurs"},
    {94, GW_HSYS_DRIVER, W, ALL, "DCGM_FR_CONTAINED_ERROR",
     "a contained ECC error (the application that used the memory was stopped)",
     "restart the affected work; reset the GPU when convenient so the row remap takes effect"},
    {95, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_UNCONTAINED_ERROR",
     "an uncontained ECC error (every application on the GPU is affected)",
     "drain the GPU and reset it (or reboot the node)"},
    {119, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_XID_ERROR", "a GSP RPC timeout", reset},
    {120, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_XID_ERROR", "a GSP error", reset},
    {121, GW_HSYS_NVLINK, W, SUB, "DCGM_FR_XID_ERROR", "a corrected C2C link error", nvlink},
    {137, GW_HSYS_NVLINK, W, SUB, "DCGM_FR_XID_ERROR", "an NVLink FLA privilege error", nvlink},
    {140, GW_HSYS_DRIVER, F, ALL, "DCGM_FR_XID_ERROR", "an unrecovered ECC error", reset},
};

const struct health_xid *health_xid_find(unsigned int code)
{
	size_t lo = 0, hi = sizeof(xids) / sizeof(xids[0]);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (xids[mid].code == code)
			return &xids[mid];
		if (xids[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
