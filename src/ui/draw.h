/*
 * draw.h - top's screen, drawn with ncurses from the model and view state.
 *
 * Drawing reads the model and the view state and writes stdscr; it never
 * calls NVML and changes nothing but the view's derived fields (the process
 * view cache and scroll positions). Layout adapts to the terminal size on
 * every call, so a resize is just a redraw.
 *
 * Ownership: the view borrows the model and owns pview (grown as needed;
 * the caller frees it). Threading: the UI thread only (ncurses is not
 * thread-safe).
 */
#ifndef GW_UI_DRAW_H
#define GW_UI_DRAW_H

#include "ui/model.h"
#include "ui/proctab.h"

enum gw_ui_mode { GW_MODE_AUTO, GW_MODE_FULL, GW_MODE_COMPACT };

struct gw_ui_view {
	const struct gw_ui_model *m;
	bool utf8, color, simulated;
	bool blocks; /* charts in block characters instead of braille (UTF-8 only; key b) */
	char host[64];
	unsigned int interval_ms;
	int64_t window_ms;
	enum gw_ui_mode mode;
	bool detail;      /* one GPU, with charts */
	bool help;        /* the key help over everything */
	bool focus_procs; /* arrows move in the process list */
	unsigned int sel_gpu;
	size_t sel_proc; /* position in the process view */
	enum gw_ui_pcol sort;
	bool desc;
	char filter[64];
	bool editing_filter;
	char line[200]; /* a prompt or message for the bottom line; "" none */
	/* derived on each draw */
	size_t *pview, npview, pview_cap;
	unsigned int gpu_top; /* first GPU row shown when they do not all fit */
	int nodew;            /* remote: width of the node column */
	bool ttf_col;         /* some GPU has an OOM forecast: rows keep a slot for it */
};

/* Colour pairs (call after start_color when colour is used). */
void gw_ui_draw_init_colors(void);

/* Draw the whole screen (no refresh; the caller calls doupdate/refresh). */
void gw_ui_draw(struct gw_ui_view *v);

/* Refresh v->pview from the model, filter and sort; keeps sel_proc in range.
 * Returns 0 or GW_ENOMEM (then the view is empty). */
int gw_ui_view_procs(struct gw_ui_view *v);

#endif
