/*
 * chart_svg.c - the SVG backend: a chart as an inline <svg> element of an
 * HTML page. Grid lines and labels carry classes, not colours, so the
 * page's CSS paints them in its light or dark palette; series carry their
 * colour.
 */
#include "chart/chart.h"

#include <stdio.h>
#include <string.h>

static const char *const ink_class[GW_INK_N] = {"tile", "border", "grid", "label", "title", "legend"};
static const char *const anchor_name[] = {"start", "middle", "end"};

struct svg {
	struct gw_buf *b;
};

/* A coordinate: one decimal, none when it is whole. */
static void num(struct gw_buf *b, double v)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "%.1f", v);
	if (n > 2 && n < (int)sizeof(s) && strcmp(s + n - 2, ".0") == 0)
		s[n - 2] = '\0';
	gw_buf_puts(b, strcmp(s, "-0") == 0 ? "0" : s);
}

static void attr(struct gw_buf *b, const char *name, double v)
{
	gw_buf_printf(b, " %s=\"", name);
	num(b, v);
	gw_buf_putc(b, '"');
}

static void esc(struct gw_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			gw_buf_puts(b, "&lt;");
		else if (*s == '>')
			gw_buf_puts(b, "&gt;");
		else if (*s == '&')
			gw_buf_puts(b, "&amp;");
		else if (*s == '"')
			gw_buf_puts(b, "&quot;");
		else
			gw_buf_putc(b, *s);
	}
}

static void tile(void *ctx, double x, double y, double w, double h)
{
	struct svg *s = ctx;
	gw_buf_puts(s->b, "<rect class=\"tile\"");
	attr(s->b, "x", x);
	attr(s->b, "y", y);
	attr(s->b, "width", w);
	attr(s->b, "height", h);
	gw_buf_puts(s->b, " rx=\"6\"/>\n");
}

static void line(void *ctx, double x1, double y1, double x2, double y2, enum gw_chart_ink ink)
{
	struct svg *s = ctx;
	gw_buf_printf(s->b, "<line class=\"%s\"", ink_class[ink]);
	attr(s->b, "x1", x1);
	attr(s->b, "x2", x2);
	attr(s->b, "y1", y1);
	attr(s->b, "y2", y2);
	gw_buf_puts(s->b, "/>");
}

static void text(void *ctx, double x, double y, enum gw_chart_anchor a, enum gw_chart_ink ink,
		 const char *str)
{
	struct svg *s = ctx;
	gw_buf_puts(s->b, "<text");
	if (ink != GW_INK_LABEL) /* labels: the CSS's default for svg text */
		gw_buf_printf(s->b, " class=\"%s\"", ink_class[ink]);
	attr(s->b, "x", x);
	attr(s->b, "y", y);
	gw_buf_printf(s->b, " text-anchor=\"%s\">", anchor_name[a]);
	esc(s->b, str);
	gw_buf_puts(s->b, "</text>\n");
}

static void swatch(void *ctx, double x, double y, double size, const char *color)
{
	struct svg *s = ctx;
	gw_buf_puts(s->b, "<rect");
	attr(s->b, "x", x);
	attr(s->b, "y", y);
	attr(s->b, "width", size);
	attr(s->b, "height", size);
	gw_buf_printf(s->b, " rx=\"2\" fill=\"%s\"/>\n", color);
}

static void path_start(void *ctx, const char *color)
{
	struct svg *s = ctx;
	gw_buf_printf(s->b, "<path stroke=\"%s\" d=\"", color);
}

static void path_point(void *ctx, double x, double y, bool move)
{
	struct svg *s = ctx;
	gw_buf_putc(s->b, move ? 'M' : 'L');
	num(s->b, x);
	gw_buf_putc(s->b, ' ');
	num(s->b, y);
}

static void path_end(void *ctx)
{
	struct svg *s = ctx;
	gw_buf_puts(s->b, "\"/>\n");
}

int gw_chart_svg(const struct gw_chart *c, struct gw_buf *b)
{
	struct svg s = {.b = b};
	const struct gw_canvas cv = {&s, tile, line, text, swatch, path_start, path_point, path_end};
	gw_buf_printf(b, "<svg viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\" aria-label=\"", GW_CHART_W,
		      GW_CHART_H);
	esc(b, c->title);
	gw_buf_puts(b, "\">\n");
	gw_chart_draw_plot(c, &cv, 0);
	return gw_buf_puts(b, "</svg>");
}
