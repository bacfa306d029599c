/*
 * smi_report_int.h - what the files of `smi -q` share: the per-GPU
 * printing state, the line printers and the section functions
 * (smi_report.c: identity; smi_report_dev.c: PCI to processes).
 */
#ifndef GW_CMD_SMI_REPORT_INT_H
#define GW_CMD_SMI_REPORT_INT_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* NVML field id of the GPU recovery action (the fields table uses the same). */
#ifndef GW_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
#define GW_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230
#endif
#define GW_NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER 95

/* Column where nvidia-smi puts ": " (the process block uses a narrower one). */
#define GW_SMI_REP_WIDTH 55
#define GW_SMI_REP_PROC_WIDTH 42
#define GW_SMI_REP_MAX_DEPTH 6 /* heading levels under a GPU */

struct gw_smi_rep {
	FILE *out;
	struct gw_nvml *nv;
	const struct gw_gpu *gpu;
	nvmlDevice_t d;
	nvmlDeviceArchitecture_t arch;
	nvmlReturn_t arch_ret;
	unsigned int driver_major; /* 590, 595: lines come and go with the driver */
	int (*sim_info)(unsigned int gpu, const char *key, char *buf, unsigned int len); /* simulator only */
	bool lost;
	bool xml; /* -x: write XML (smi_report_xml.c) */
	/* XML: the heading open at each depth (its text label, "" when none) and its element */
	char xml_open[GW_SMI_REP_MAX_DEPTH][64];
	char xml_tag[GW_SMI_REP_MAX_DEPTH][96];
};

/* Call an optional NVML function; an absent one answers FUNCTION_NOT_FOUND. */
#define NV(r, fn, ...) ((r)->nv->fn ? (r)->nv->fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

void gw_smi_rep_kvw(struct gw_smi_rep *r, int depth, int width, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void gw_smi_rep_head(struct gw_smi_rep *r, int depth, const char *label);
const char *gw_smi_rep_vtext(struct gw_smi_rep *r, nvmlReturn_t ret);
const char *gw_smi_rep_info(struct gw_smi_rep *r, const char *key, char *buf, size_t n);
void gw_smi_rep_kv_uint(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned int v,
			const char *unit);
void gw_smi_rep_xml_head(struct gw_smi_rep *r, int depth, const char *label);
void gw_smi_rep_xml_kv(struct gw_smi_rep *r, int depth, const char *label, const char *value);
void gw_smi_rep_xml_close(struct gw_smi_rep *r, int depth);
void gw_smi_rep_xml_text(FILE *out, const char *v);
nvmlReturn_t gw_smi_rep_field(struct gw_smi_rep *r, unsigned int id, unsigned int scope, long long *v);

/* Short names for the section files. */
#define kv(r, depth, label, ...) gw_smi_rep_kvw(r, depth, GW_SMI_REP_WIDTH, label, __VA_ARGS__)

static inline void head(struct gw_smi_rep *r, int depth, const char *label)
{
	gw_smi_rep_head(r, depth, label);
}

static inline const char *vtext(struct gw_smi_rep *r, nvmlReturn_t ret)
{
	return gw_smi_rep_vtext(r, ret);
}

static inline const char *info(struct gw_smi_rep *r, const char *key, char *buf, size_t n)
{
	return gw_smi_rep_info(r, key, buf, n);
}

static inline void kv_uint(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned int v,
			   const char *unit)
{
	gw_smi_rep_kv_uint(r, depth, label, ret, v, unit);
}

void gw_smi_rep_pci(struct gw_smi_rep *r);
void gw_smi_rep_perf(struct gw_smi_rep *r);
void gw_smi_rep_sparse(struct gw_smi_rep *r);
void gw_smi_rep_memory(struct gw_smi_rep *r);
void gw_smi_rep_compute(struct gw_smi_rep *r);
void gw_smi_rep_util(struct gw_smi_rep *r);
void gw_smi_rep_encoder(struct gw_smi_rep *r);
void gw_smi_rep_fbc(struct gw_smi_rep *r);
void gw_smi_rep_dram_encryption(struct gw_smi_rep *r);
void gw_smi_rep_ecc(struct gw_smi_rep *r);
void gw_smi_rep_retired(struct gw_smi_rep *r);
void gw_smi_rep_remapped(struct gw_smi_rep *r);
void gw_smi_rep_temperature(struct gw_smi_rep *r);
void gw_smi_rep_power(struct gw_smi_rep *r);
void gw_smi_rep_power_smoothing(struct gw_smi_rep *r);
void gw_smi_rep_power_profiles(struct gw_smi_rep *r);
void gw_smi_rep_edpp(struct gw_smi_rep *r);
void gw_smi_rep_clocks(struct gw_smi_rep *r);
void gw_smi_rep_fabric(struct gw_smi_rep *r);
void gw_smi_rep_processes(struct gw_smi_rep *r);
void gw_smi_rep_capabilities(struct gw_smi_rep *r);

/* smi_report_mig.c: the "MIG Device" sections after "MIG Mode" */
void gw_smi_rep_mig(struct gw_smi_rep *r);

#endif
