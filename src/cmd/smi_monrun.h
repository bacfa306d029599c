/*
 * smi_monrun.h - the option parsing and sampling loop dmon and pmon share.
 *
 * Both take -s, -d, -c, -i, -o, -f, --format and -h, open NVML, select
 * GPUs, print the two header lines once and then call a per-sample
 * function every -d seconds until -c samples or Ctrl-C.
 *
 * Ownership: struct gw_mon_run is caller-owned; gw_mon_run_release frees
 * what gw_mon_run_open allocated. Threading: main thread only.
 */
#ifndef GW_CMD_SMI_MONRUN_H
#define GW_CMD_SMI_MONRUN_H

#include "cmd/cmd.h"
#include "cmd/smi_mon.h"

struct gw_mon_run {
	/* options */
	const char *select; /* -s letters */
	unsigned long delay_s;
	unsigned long count; /* 0 = until Ctrl-C */
	const char *ids, *file;
	struct gw_mon_opts opts;
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t ncols;
	/* state */
	struct gw_nvml *nv;
	struct gw_gpu *gpus;
	unsigned int ngpus;
	bool *sel;
	FILE *out;
	bool any_lost;
};

struct gw_mon_cmd {
	const char *name;          /* "dmon" */
	const char *default_select; /* "puc" */
	bool select_in_order;      /* dmon: groups in the order given */
	void (*usage)(FILE *out);
	void (*header)(FILE *out, const struct gw_mon_opts *o, const struct gw_mon_col *const *cols, size_t n);
	/* One sample of every selected GPU; state is the command's own. */
	void (*sample)(struct gw_mon_run *r, void *state, const struct timespec *now);
};

/* Parse, open, loop, clean up; returns the exit code. */
int gw_mon_main(const struct gw_mon_cmd *cmd, void *state, int argc, char **argv, const struct gw_cli *cli);

/* Cell text of a field read through the field table: "-" when unavailable. */
void gw_mon_field_cell(struct gw_mon_run *r, unsigned int gpu, const struct timespec *now, const char *field,
		       char *cell, size_t n);

#endif
