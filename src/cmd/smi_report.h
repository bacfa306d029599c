/*
 * smi_report.h - `gpuwatch smi -q`: nvidia-smi's full text report
 * ("==============NVSMI LOG==============") read from NVML, and the -d
 * filter that keeps only some of its sections.
 *
 * Every value is an NVML call's answer; a call the driver (or simulator)
 * does not support prints "N/A", a deprecated one NVML's own message, as
 * nvidia-smi does. The layout follows nvidia-smi of the driver NVML reports
 * (lines added in driver 595 appear from 595 on).
 *
 * Ownership: all arguments borrowed. Threading: one caller per FILE.
 */
#ifndef GW_CMD_SMI_REPORT_H
#define GW_CMD_SMI_REPORT_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/*
 * nvidia-smi's -d display types, one bit each. The report shows only
 * sections whose type is in the mask; GW_SMI_D_ALL (no -d) shows the whole
 * report, identity lines included.
 */
#define GW_SMI_DISPLAY_LIST(X)                                                                                  \
	X(MEMORY) X(UTILIZATION) X(ECC) X(TEMPERATURE) X(POWER) X(CLOCK) X(COMPUTE) X(PIDS) X(PERFORMANCE)      \
	X(SUPPORTED_CLOCKS) X(PAGE_RETIREMENT) X(ACCOUNTING) X(ENCODER_STATS) X(SUPPORTED_GPU_TARGET_TEMP)      \
	X(VOLTAGE) X(FBC_STATS) X(ROW_REMAPPER) X(GSP_FIRMWARE_VERSION) X(POWER_SMOOTHING) X(POWER_PROFILES)

enum gw_smi_display_bit {
#define GW_SMI_D_BIT(name) GW_SMI_DB_##name,
	GW_SMI_DISPLAY_LIST(GW_SMI_D_BIT)
#undef GW_SMI_D_BIT
	GW_SMI_DB__COUNT
};
#define GW_SMI_D(name) (1U << GW_SMI_DB_##name)
#define GW_SMI_D_ALL 0xFFFFFFFFU

/* "MEMORY,ECC" -> mask. Returns 0, or GW_EINVAL for an empty list or an
 * unknown name (case-insensitive, as nvidia-smi). */
int gw_smi_display_parse(const char *list, unsigned int *mask);

/*
 * The report is head, one gpu block per GPU, tail. xml: nvidia-smi's -x
 * form of the same values (<nvidia_smi_log>, nvsmi_device_v12.dtd names).
 */
/* The log banner, timestamp, driver and CUDA versions and GPU count. */
void gw_smi_report_head(FILE *out, struct gw_nvml *nv, const struct timespec *now, unsigned int attached, bool xml);

/* One GPU's block. Returns 0, or GW_EGPULOST when the GPU fell off the bus. */
int gw_smi_report_gpu(FILE *out, struct gw_nvml *nv, const struct gw_gpu *gpu, unsigned int display, bool xml);

/* What closes the report (XML's root element). */
void gw_smi_report_tail(FILE *out, bool xml);

#endif
