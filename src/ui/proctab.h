/*
 * proctab.h - the process table's columns, sorting and filtering.
 *
 * The columns are one table (name, width, comparison) that the drawing code
 * and the sort keys both read. A view is an array of indexes into the
 * model's rows, so sorting never moves the rows themselves.
 *
 * Ownership: the caller owns the index array. Threading: reentrant.
 */
#ifndef GW_UI_PROCTAB_H
#define GW_UI_PROCTAB_H

#include "ui/model.h"

enum gw_ui_pcol { GW_PC_NODE, GW_PC_PID, GW_PC_USER, GW_PC_OWNER, GW_PC_GPU, GW_PC_MEM, GW_PC_SM, GW_PC_CMD, GW_PC__COUNT };

struct gw_ui_pcol_info {
	const char *name; /* header text */
	int width;        /* columns; 0: the rest of the line */
	bool right;       /* right-aligned (numbers) */
	bool desc_first;  /* first sort on this column is descending (memory, SM) */
	bool remote;      /* shown only for remote processes (the node) */
};

const struct gw_ui_pcol_info *gw_ui_pcol_at(enum gw_ui_pcol c);

/* Whether column c is shown: the node column only when the processes are remote. */
bool gw_ui_pcol_shown(enum gw_ui_pcol c, bool remote);

/* The shown column after (dir > 0) or before (dir < 0) c, wrapping around. */
enum gw_ui_pcol gw_ui_pcol_step(enum gw_ui_pcol c, int dir, bool remote);

/* Format one cell of row p (no padding). */
void gw_ui_pcell(const struct gw_ui_proc *p, enum gw_ui_pcol c, char *buf, size_t n);

/* Whether the row matches filter: a case-insensitive substring of any cell; "" matches all. */
bool gw_ui_proc_match(const struct gw_ui_proc *p, const char *filter);

/*
 * Fill idx with the rows of m that match filter, sorted by column c
 * (descending when desc), ties by GPU then pid. idx has room for
 * m->nprocs entries. Returns the number filled.
 */
size_t gw_ui_procs_view(const struct gw_ui_model *m, const char *filter, enum gw_ui_pcol c, bool desc, size_t *idx);

#endif
