/*
 * chart.c - the layout of a chart, drawn through a backend's canvas: the
 * one description the SVG and the PNG are both drawn from.
 */
#include "chart/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *const gw_chart_colors[GW_CHART_NCOLORS] = {"#1565c0", "#c62828", "#2e7d32", "#ef6c00",
						       "#6a1b9a", "#00838f", "#ad1457", "#4e342e"};

/* style.css: --tile, --line, --line, --muted, --fg, --fg */
const char *const gw_chart_ink_color[GW_INK_N] = {"#ffffff", "#d8dbde", "#d8dbde",
						  "#6b7075", "#1d1f21", "#1d1f21"};

/* The plot's margins: room for the y labels on the left and the times below. */
#define ML 48
#define MR 12
#define MT 10
#define MB 24

/* The framed chart: padding, the title's line, legend rows of four columns. */
#define PAD 12
#define TITLE_H 28
#define LEGEND_COLS 4
#define LEGEND_ROW 16
#define SWATCH 10

int gw_chart_init(struct gw_chart *c, size_t nseries)
{
	*c = (struct gw_chart){.scale = 1, .top = 1};
	if (nseries && !(c->series = calloc(nseries, sizeof(*c->series))))
		return GW_ENOMEM;
	c->nseries = nseries;
	return 0;
}

void gw_chart_release(struct gw_chart *c)
{
	free(c->series);
	c->series = NULL;
	c->nseries = 0;
}

double gw_chart_nice_max(double v)
{
	if (!(v > 0))
		return 1;
	double p = pow(10, floor(log10(v)));
	for (double m = 1; m <= 10; m *= 2) {
		if (m == 4)
			m = 5;
		if (m * p >= v)
			return m * p;
	}
	return 10 * p;
}

static void grid(const struct gw_chart *c, const struct gw_canvas *cv, double y0)
{
	double ph = GW_CHART_H - MT - MB, pw = GW_CHART_W - ML - MR;
	for (int k = 0; k <= 4; k++) {
		double y = y0 + MT + ph - ph * k / 4;
		/* a board's total memory is no round number: four digits at most */
		char s[32];
		double v = c->top * k / 4;
		snprintf(s, sizeof(s), v >= 1000 ? "%.0f" : "%.4g", v);
		cv->line(cv->ctx, ML, y, GW_CHART_W - MR, y, GW_INK_GRID);
		cv->text(cv->ctx, ML - 4, y + 4, GW_ANCHOR_END, GW_INK_LABEL, s);
	}
	for (int k = 0; k <= 4; k++) {
		enum gw_chart_anchor a = k == 0 ? GW_ANCHOR_START : k == 4 ? GW_ANCHOR_END : GW_ANCHOR_MIDDLE;
		cv->text(cv->ctx, ML + pw * k / 4, y0 + GW_CHART_H - 6, a, GW_INK_LABEL, c->xlabel[k]);
	}
}

static void series(const struct gw_chart *c, const struct gw_chart_series *s, const struct gw_canvas *cv,
		   double y0)
{
	double ph = GW_CHART_H - MT - MB, pw = GW_CHART_W - ML - MR;
	double span = (double)(c->npoints > 1 ? c->npoints - 1 : 1);
	cv->path_start(cv->ctx, s->color);
	bool pen = false;
	for (size_t k = 0; k < c->npoints; k++) {
		if (isnan(s->y[k])) {
			pen = false;
			continue;
		}
		double v = s->y[k] * c->scale / c->top;
		double x = ML + pw * (double)k / span;
		double y = y0 + MT + ph - ph * (v > 1 ? 1 : v < 0 ? 0 : v);
		cv->path_point(cv->ctx, x, y, !pen);
		pen = true;
	}
	cv->path_end(cv->ctx);
}

void gw_chart_draw_plot(const struct gw_chart *c, const struct gw_canvas *cv, double y0)
{
	grid(c, cv, y0);
	for (size_t i = 0; i < c->nseries; i++)
		if (c->series[i].y)
			series(c, &c->series[i], cv, y0);
}

static size_t legend_rows(const struct gw_chart *c)
{
	size_t rows = (c->nseries + LEGEND_COLS - 1) / LEGEND_COLS;
	return rows ? rows : 1;
}

void gw_chart_framed_size(const struct gw_chart *c, int *w, int *h)
{
	*w = GW_CHART_W;
	*h = TITLE_H + (int)legend_rows(c) * LEGEND_ROW + GW_CHART_H;
}

void gw_chart_draw_framed(const struct gw_chart *c, const struct gw_canvas *cv)
{
	int w, h;
	gw_chart_framed_size(c, &w, &h);
	cv->tile(cv->ctx, 0, 0, w, h);
	char title[96];
	snprintf(title, sizeof(title), "%s (%s)", c->title, c->unit);
	cv->text(cv->ctx, PAD, 20, GW_ANCHOR_START, GW_INK_TITLE, title);
	double col = (double)(GW_CHART_W - 2 * PAD) / LEGEND_COLS;
	for (size_t i = 0; i < c->nseries; i++) {
		double x = PAD + col * (double)(i % LEGEND_COLS);
		double y = TITLE_H + LEGEND_ROW * (double)(i / LEGEND_COLS);
		cv->swatch(cv->ctx, x, y + 2, SWATCH, c->series[i].color);
		cv->text(cv->ctx, x + SWATCH + 4, y + 11, GW_ANCHOR_START, GW_INK_LEGEND, c->series[i].label);
	}
	gw_chart_draw_plot(c, cv, TITLE_H + (double)legend_rows(c) * LEGEND_ROW);
}
