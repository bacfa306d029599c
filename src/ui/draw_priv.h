/*
 * draw_priv.h - helpers shared by draw.c and draw_detail.c; not for other
 * modules. Same ownership and threading as draw.h.
 */
#ifndef GW_UI_DRAW_PRIV_H
#define GW_UI_DRAW_PRIV_H

#include "ui/draw.h"

#include <curses.h>

enum { GW_CP_OK = 1, GW_CP_WARN, GW_CP_BAD, GW_CP_TITLE, GW_CP_CHART };

/* Write at most maxcells terminal cells of UTF-8 text s at (y, x); returns cells written. */
int gw_ui_put(int y, int x, const char *s, int maxcells);

/* Turn a colour pair (with A_BOLD as the monochrome stand-in) on or off. */
void gw_ui_attr(const struct gw_ui_view *v, int pair, bool on);

/* A number cell of a value: "%.*f" with unit, or "-" when not valid. */
void gw_ui_val(const struct gw_value *val, double scale, int prec, const char *unit, char *buf, size_t n);

/* Short board name: "NVIDIA H200" -> "H200". */
const char *gw_ui_short_name(const char *name);

/* History columns a chart w cells wide needs: two per cell in braille. */
unsigned int gw_ui_chart_cols(const struct gw_ui_view *v, unsigned int w);

/* Row `row` of a chart nrows high, w cells, from gw_ui_chart_cols(v, w) values, in the view's style. */
void gw_ui_chart_text(const struct gw_ui_view *v, char *buf, size_t n, const float *s, unsigned int w, double lo,
		      double hi, unsigned int row, unsigned int nrows);

/* What a remote GPU's row says instead of values: "stale 12s  unreachable: ...", "" when live. */
void gw_ui_stale_text(const struct gw_ui_view *v, const struct gw_ui_gpu *u, char *buf, size_t n);

/* The colour pair of a health status. */
int gw_ui_health_pair(unsigned int status);

/* "PASS", "WARN", "FAIL". */
const char *gw_ui_health_word(unsigned int status);

/* The systems at the verdict's status, comma separated ("memory,driver"); "" for PASS. */
void gw_ui_health_systems(const struct gw_ui_health *h, char *buf, size_t n);

void gw_ui_draw_detail(struct gw_ui_view *v, int top, int rows, int cols);

#endif
