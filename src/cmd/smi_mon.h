/*
 * smi_mon.h - the scrolling layouts of `dmon` and `pmon`, rendered from data.
 *
 * Both print two '#' header lines (names, units) and one line per GPU (dmon)
 * or per process (pmon) each sample, in nvidia-smi's fixed-width columns,
 * optionally prefixed with date and time (-o D, -o T) or as CSV. Columns
 * come from one table per command; dmon's -s letters choose groups in the
 * order given. Cells are strings: a value, or "-" when there is none.
 *
 * Ownership: everything is caller-owned; tables are static read-only.
 * Threading: reentrant.
 */
#ifndef GW_CMD_SMI_MON_H
#define GW_CMD_SMI_MON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define GW_MON_CELL 16
#define GW_MON_MAX_COLS 32

struct gw_mon_col {
	char group;       /* the -s letter that selects it */
	const char *name; /* header: "pwr" */
	const char *unit; /* second header line: "W" */
	int id;           /* what the collector reads (enum in dmon.c / pmon.c) */
};

struct gw_mon_opts {
	bool date;     /* -o D */
	bool time;     /* -o T */
	bool csv;      /* --format csv */
	bool noheader; /* csv only */
	bool nounits;  /* csv only: no unit line */
};

/* dmon's and pmon's column tables. */
const struct gw_mon_col *gw_dmon_cols(size_t *n);
const struct gw_mon_col *gw_pmon_cols(size_t *n);

/*
 * Select columns for -s letters: dmon in the order the letters are given,
 * pmon in table order. Returns 0, or -1 with the bad letter in *bad.
 */
int gw_mon_select(const struct gw_mon_col *table, size_t n, const char *letters, bool in_given_order,
		  const struct gw_mon_col **out, size_t *nout, char *bad);

/* Parse -o "DT"; returns 0 or -1 for a letter other than D, T. */
int gw_mon_parse_options(const char *s, struct gw_mon_opts *o);

void gw_dmon_header(FILE *out, const struct gw_mon_opts *o, const struct gw_mon_col *const *cols, size_t n);
void gw_dmon_row(FILE *out, const struct gw_mon_opts *o, const struct tm *now, unsigned int gpu,
		 const char (*cells)[GW_MON_CELL], size_t n);

void gw_pmon_header(FILE *out, const struct gw_mon_opts *o, const struct gw_mon_col *const *cols, size_t n);
/* pid NULL prints the idle row ("-" everywhere). name is the full process name. */
void gw_pmon_row(FILE *out, const struct gw_mon_opts *o, const struct tm *now, unsigned int gpu,
		 const unsigned int *pid, const char *type, const char (*cells)[GW_MON_CELL], size_t n,
		 const char *name);

#endif
