/*
 * smi_apps.h - nvidia-smi's record queries, `--query-compute-apps`,
 * `--query-accounted-apps`, `--query-retired-pages` and
 * `--query-remapped-rows` with `--format=csv...`, and their help texts.
 *
 * Each prints records of a GPU (a process, an accounted process, a
 * retired page, the row remapper's counts) beside the GPU's identity
 * (timestamp, name, bus id, serial, UUID), in the order NVML gives them
 * (nvidia-smi does not sort these queries). Their columns are one table
 * here, not GPU metrics of the field table; the GPU's serial goes through
 * the field table. What fills the records: compute processes here
 * (collect/procs), the rest in smi_pages.c.
 *
 * Ownership: caller-owned arguments. Threading: reentrant.
 */
#ifndef GW_CMD_SMI_APPS_H
#define GW_CMD_SMI_APPS_H

#include "cmd/smi_query.h"
#include "collect/procs.h"

#define GW_SMI_APPS_MAX 32

enum gw_smi_listq {
	GW_SMI_Q_COMPUTE_APPS,
	GW_SMI_Q_ACCOUNTED_APPS,
	GW_SMI_Q_RETIRED_PAGES,
	GW_SMI_Q_REMAPPED_ROWS,
};

/* One record: the members its query's columns read. */
struct gw_smi_rec {
	unsigned int pid;
	char name[GW_PROC_NAME_MAX];
	bool mem_valid;
	unsigned long long mem_bytes;	 /* compute: used now; accounted: the high-water mark */
	bool acct_valid;		 /* accounted: NVML gave the process's stats */
	unsigned int gpu_util, mem_util; /* accounted, % */
	unsigned long long time_ms;	 /* accounted: 0 while the process runs */
	bool page_valid;		 /* retired: NVML listed the page */
	unsigned long long addr;
	unsigned long long stamp; /* seconds since the epoch; 0 unknown */
	int cause;		  /* nvmlPageRetirementCause_t */
	bool remap_valid;	  /* remapped: NVML answered */
	unsigned int corr, unc, pending, failure;
};

/* The records of one GPU; *recs is malloc'd (free() it). GW_EGPULOST when it is lost. */
int gw_smi_recs_accounted(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n);
int gw_smi_recs_retired(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n);
int gw_smi_recs_remapped(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n);

/* Parse the field list into column ids; GW_EINVAL with the bad name in bad. */
int gw_smi_apps_parse(enum gw_smi_listq q, const char *list, int *cols, size_t *n, char *bad, size_t badlen);

void gw_smi_apps_header(FILE *out, const int *cols, size_t n, const struct gw_smi_format *fmt);

/* Rows for one GPU; GW_EGPULOST when it is lost (then nothing is printed). */
int gw_smi_apps_rows(enum gw_smi_listq q, FILE *out, const int *cols, size_t n,
		     const struct gw_smi_format *fmt, const struct gw_read_ctx *ctx);

/* --help-query-compute-apps and its siblings. */
void gw_smi_apps_help(enum gw_smi_listq q, FILE *out);

#endif
