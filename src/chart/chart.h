/*
 * chart.h - a line chart described once and drawn by a backend: SVG for
 * the report's HTML page, PNG through cairo for `report --png`. Both draw
 * the same calls (chart.c lays the chart out through struct gw_canvas), so
 * the two look alike: the same axes, labels, fonts and colours, the
 * colours being the agent page's (web/src/style.css and app.js).
 *
 * A chart is a y axis from 0 to top, a grid of four bands, five time
 * labels under it, and series of evenly spaced points (NaN: a gap). The
 * plot alone is W x H; the framed chart (a PNG on its own) adds the tile,
 * the title and a legend of four columns above the plot.
 *
 * The PNG backend is optional at build time (GW_HAVE_CAIRO, from
 * pkg-config's cairo) and loads libcairo.so.2 at run time, as curl.h does
 * libcurl: the one-shot commands keep loading only libc and libm.
 *
 * Ownership: a chart owns its series array (gw_chart_release); the series'
 * values and every string but the labels are borrowed. Threading: none.
 */
#ifndef GW_CHART_CHART_H
#define GW_CHART_CHART_H

#include "core/buf.h"
#include "core/err.h"

#include <stdbool.h>
#include <stddef.h>

/* The plot's size in pixels (SVG user units) and its margins. */
#define GW_CHART_W 800
#define GW_CHART_H 220

/* Series colours in order: the agent page's (web/src/app.js COLORS). */
#define GW_CHART_NCOLORS 8
extern const char *const gw_chart_colors[GW_CHART_NCOLORS];

/* What a drawn element is; the SVG backend leaves its colour to the page's CSS (light or dark). */
enum gw_chart_ink {
	GW_INK_TILE,   /* the framed chart's background */
	GW_INK_BORDER, /* its border */
	GW_INK_GRID,   /* grid lines */
	GW_INK_LABEL,  /* axis labels (11 px, muted) */
	GW_INK_TITLE,  /* the title (13 px, bold) */
	GW_INK_LEGEND, /* legend entries (11 px) */
	GW_INK_N
};
/* The light palette (web/src/style.css :root), for backends without CSS. */
extern const char *const gw_chart_ink_color[GW_INK_N];

enum gw_chart_anchor { GW_ANCHOR_START, GW_ANCHOR_MIDDLE, GW_ANCHOR_END };

struct gw_chart_series {
	char label[32];	   /* legend text, cut to fit its column */
	const char *color; /* "#rrggbb" */
	const double *y;   /* npoints values (times scale: the axis' unit); NaN: no sample */
};

struct gw_chart {
	const char *id;	   /* a file name's stem: "power" */
	const char *title; /* "Power" */
	const char *unit;  /* "W" */
	double top;	   /* the y axis runs from 0 to top (unit) */
	double scale;	   /* series values times scale: the unit */
	size_t npoints;	   /* per series, evenly spaced from the left edge to the right */
	char xlabel[5][8]; /* at 0, 1/4, 1/2, 3/4 and the whole width: "10:15" */
	struct gw_chart_series *series;
	size_t nseries;
};

/* Room for n series (zeroed); GW_ENOMEM. gw_chart_release frees it. */
int gw_chart_init(struct gw_chart *c, size_t nseries);
void gw_chart_release(struct gw_chart *c);

/* A round upper bound for an axis: 1, 2 or 5 times a power of ten (1 for v <= 0). */
double gw_chart_nice_max(double v);

/*
 * A backend: what the layout calls. Coordinates are pixels from the top
 * left; text's y is its baseline. A path is start, points (move: a new
 * stroke after a gap), end.
 */
struct gw_canvas {
	void *ctx;
	void (*tile)(void *ctx, double x, double y, double w, double h);
	void (*line)(void *ctx, double x1, double y1, double x2, double y2, enum gw_chart_ink ink);
	void (*text)(void *ctx, double x, double y, enum gw_chart_anchor a, enum gw_chart_ink ink,
		     const char *s);
	void (*swatch)(void *ctx, double x, double y, double size, const char *color);
	void (*path_start)(void *ctx, const char *color);
	void (*path_point)(void *ctx, double x, double y, bool move);
	void (*path_end)(void *ctx);
};

/* The plot (grid, labels, series) with its top left corner at y0. */
void gw_chart_draw_plot(const struct gw_chart *c, const struct gw_canvas *cv, double y0);

/* The framed chart: tile, title, legend, plot; its size first. */
void gw_chart_framed_size(const struct gw_chart *c, int *w, int *h);
void gw_chart_draw_framed(const struct gw_chart *c, const struct gw_canvas *cv);

/* The plot as an inline <svg> element (HTML), appended to b; its colours come from the page's CSS. */
int gw_chart_svg(const struct gw_chart *c, struct gw_buf *b);

/* --- PNG through cairo (chart_png.c) --- */

struct gw_chart_png;

/* Whether this build has the PNG backend (built with cairo's headers). */
bool gw_chart_png_built(void);

/*
 * Load libcairo.so.2 ($GPUWATCH_CAIRO_LIBRARY overrides the name).
 * GW_ENOTSUP when the build has no PNG backend; GW_ENOLIB when the library
 * cannot be loaded. The library stays loaded after gw_chart_png_close.
 */
int gw_chart_png_open(struct gw_chart_png **out, struct gw_err *err);
void gw_chart_png_close(struct gw_chart_png *p);

/* The framed chart as a PNG file's bytes, appended to out. */
int gw_chart_png_draw(struct gw_chart_png *p, const struct gw_chart *c, struct gw_buf *out,
		      struct gw_err *err);

#endif
