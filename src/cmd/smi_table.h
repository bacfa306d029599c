/*
 * smi_table.h - nvidia-smi's default table and `-L` list, rendered from data.
 *
 * The renderers are pure: they take already-collected cells (strings as the
 * table shows them: "37%", "40C", "P8", "214MiB", "N/A") and lay them out
 * byte for byte as nvidia-smi does, so unit tests render captured states
 * without a GPU. smi_collect.c fills these structs from NVML through the
 * field table.
 *
 * Ownership: all structs are caller-owned plain data; nothing is kept.
 * Threading: reentrant.
 */
#ifndef GW_CMD_SMI_TABLE_H
#define GW_CMD_SMI_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define GW_SMI_CELL 24

struct gw_smi_head {
	struct tm stamp;  /* local time of the snapshot (first line) */
	char smi_version[80]; /* "590.48.01": nvidia-smi ships with the driver */
	char driver[80];      /* "590.48.01", or "N/A" */
	char cuda[16];        /* "13.1", or "N/A" */
};

struct gw_smi_gpu_row {
	unsigned int index;
	char name[96];
	char persistence[8]; /* "On", "Off" */
	char bus_id[32];
	char disp[8];        /* Disp.A: "On", "Off" */
	char ecc[GW_SMI_CELL]; /* volatile uncorrected ECC: "0", "N/A"; MIG: ECC mode "On" */
	char fan[8];         /* "37%", "N/A" */
	char temp[8];        /* "40C", "N/A" */
	char perf[8];        /* "P0" */
	char pwr_use[16];    /* "37W", "N/A" */
	char pwr_cap[16];    /* "250W", "N/A" */
	char mem_used[16];   /* "214MiB" */
	char mem_total[16];  /* "8192MiB" */
	char util[8];        /* "0%", "N/A" */
	char compute[GW_SMI_CELL]; /* "Default", "E. Process", ... */
	char mig[GW_SMI_CELL];     /* "Disabled", "Enabled", "N/A" */
};

struct gw_smi_mig_row {
	unsigned int gpu, gi, ci, dev;
	char mem_used[16], mem_total[16];   /* "26MiB", "40448MiB" */
	char bar1_used[16], bar1_total[16]; /* "0MiB", "24739MiB" */
	char sm[8], ecc[8];                 /* "60", "0" */
	char ce[8], enc[8], dec[8], ofa[8], jpg[8];
};

struct gw_smi_proc_row {
	unsigned int gpu;
	char gi[12], ci[12]; /* "N/A" without MIG */
	unsigned int pid;
	char type[4];      /* "C", "G", "C+G" */
	char name[256];
	char mem[16];      /* "2566MiB", "N/A" */
};

struct gw_smi_table {
	struct gw_smi_head head;
	const struct gw_smi_gpu_row *gpus;
	size_t ngpus;
	const struct gw_smi_mig_row *migs; /* MIG devices section, if any */
	size_t nmigs;
	const struct gw_smi_proc_row *procs;
	size_t nprocs;
};

/* The whole default table, date line to the last border. */
void gw_smi_table_render(FILE *out, const struct gw_smi_table *t);

/* One -L line ("GPU 0: NAME (UUID: GPU-...)") and a MIG device line under it. */
void gw_smi_list_gpu(FILE *out, unsigned int index, const char *name, const char *uuid);
void gw_smi_list_mig(FILE *out, const char *profile, unsigned int dev, const char *uuid);

/* Cells as the table prints them; each returns buf. */
const char *gw_smi_cell_mib(char *buf, size_t n, unsigned long long bytes);

#endif
