/*
 * chart_png.c - the PNG backend: the framed chart drawn with cairo into an
 * image surface, in the light palette of the agent's page, and encoded as
 * PNG into a buffer. cairo (with fontconfig, freetype, pixman, libpng) is
 * loaded when a report first asks for PNGs, not at every start.
 */
#include "chart/chart.h"

#ifdef GW_HAVE_CAIRO

#include <cairo.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define GW_CAIRO_SONAME "libcairo.so.2"

#define GW_CAIRO_FUNCS(X)                                                                                    \
	X(cairo_image_surface_create)                                                                        \
	X(cairo_surface_status)                                                                              \
	X(cairo_surface_destroy)                                                                             \
	X(cairo_surface_write_to_png_stream)                                                                 \
	X(cairo_create)                                                                                      \
	X(cairo_status)                                                                                      \
	X(cairo_status_to_string)                                                                            \
	X(cairo_destroy)                                                                                     \
	X(cairo_set_source_rgb)                                                                              \
	X(cairo_set_line_width)                                                                              \
	X(cairo_new_path)                                                                                    \
	X(cairo_new_sub_path)                                                                                \
	X(cairo_close_path)                                                                                  \
	X(cairo_move_to)                                                                                     \
	X(cairo_line_to)                                                                                     \
	X(cairo_arc)                                                                                         \
	X(cairo_stroke)                                                                                      \
	X(cairo_fill_preserve)                                                                               \
	X(cairo_fill)                                                                                        \
	X(cairo_select_font_face)                                                                            \
	X(cairo_set_font_size)                                                                               \
	X(cairo_text_extents)                                                                                \
	X(cairo_show_text)

struct gw_chart_png {
#define GW_CAIRO_MEMBER(name) __typeof__(&name) name;
	GW_CAIRO_FUNCS(GW_CAIRO_MEMBER)
#undef GW_CAIRO_MEMBER
};

bool gw_chart_png_built(void)
{
	return true;
}

int gw_chart_png_open(struct gw_chart_png **out, struct gw_err *err)
{
	*out = NULL;
	const char *path = getenv("GPUWATCH_CAIRO_LIBRARY");
	if (!path || !*path)
		path = GW_CAIRO_SONAME;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return gw_err_set(err, GW_ENOLIB, "cannot load %s (install libcairo2): %s", path, dlerror());
	struct gw_chart_png *p = calloc(1, sizeof(*p));
	if (!p)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
#define GW_CAIRO_RESOLVE(name)                                                                               \
	*(void **)&p->name = dlsym(h, #name);                                                                \
	if (!p->name) {                                                                                      \
		free(p);                                                                                     \
		return gw_err_set(err, GW_ENOLIB, "%s lacks %s (cairo 1.10 or newer is needed)", path,       \
				  #name);                                                                    \
	}
	GW_CAIRO_FUNCS(GW_CAIRO_RESOLVE)
#undef GW_CAIRO_RESOLVE
	*out = p;
	return 0;
}

void gw_chart_png_close(struct gw_chart_png *p)
{
	free(p);
}

struct draw {
	const struct gw_chart_png *f;
	cairo_t *cr;
};

static void color(const struct draw *d, const char *hex)
{
	unsigned v = 0;
	if (!hex || sscanf(hex, "#%6x", &v) != 1)
		v = 0;
	d->f->cairo_set_source_rgb(d->cr, (v >> 16 & 0xff) / 255.0, (v >> 8 & 0xff) / 255.0,
				   (v & 0xff) / 255.0);
}

static void rounded(const struct draw *d, double x, double y, double w, double h, double r)
{
	const struct gw_chart_png *f = d->f;
	f->cairo_new_sub_path(d->cr);
	f->cairo_arc(d->cr, x + w - r, y + r, r, -M_PI / 2, 0);
	f->cairo_arc(d->cr, x + w - r, y + h - r, r, 0, M_PI / 2);
	f->cairo_arc(d->cr, x + r, y + h - r, r, M_PI / 2, M_PI);
	f->cairo_arc(d->cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
	f->cairo_close_path(d->cr);
}

static void tile(void *ctx, double x, double y, double w, double h)
{
	struct draw *d = ctx;
	/* a 1 px border on pixel centres, inside the image */
	rounded(d, x + 0.5, y + 0.5, w - 1, h - 1, 6);
	color(d, gw_chart_ink_color[GW_INK_TILE]);
	d->f->cairo_fill_preserve(d->cr);
	color(d, gw_chart_ink_color[GW_INK_BORDER]);
	d->f->cairo_set_line_width(d->cr, 1);
	d->f->cairo_stroke(d->cr);
}

static void line(void *ctx, double x1, double y1, double x2, double y2, enum gw_chart_ink ink)
{
	struct draw *d = ctx;
	/* horizontal and vertical lines on pixel centres: sharp, not two grey rows */
	if (y1 == y2)
		y1 = y2 = floor(y1) + 0.5;
	if (x1 == x2)
		x1 = x2 = floor(x1) + 0.5;
	color(d, gw_chart_ink_color[ink]);
	d->f->cairo_set_line_width(d->cr, 1);
	d->f->cairo_move_to(d->cr, x1, y1);
	d->f->cairo_line_to(d->cr, x2, y2);
	d->f->cairo_stroke(d->cr);
}

static void text(void *ctx, double x, double y, enum gw_chart_anchor a, enum gw_chart_ink ink, const char *s)
{
	struct draw *d = ctx;
	const struct gw_chart_png *f = d->f;
	/* the page's font: system-ui, sans-serif; 11 px labels, 13 px bold titles */
	f->cairo_select_font_face(d->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
				  ink == GW_INK_TITLE ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	f->cairo_set_font_size(d->cr, ink == GW_INK_TITLE ? 13 : 11);
	if (a != GW_ANCHOR_START) {
		cairo_text_extents_t e;
		f->cairo_text_extents(d->cr, s, &e);
		x -= a == GW_ANCHOR_END ? e.x_advance : e.x_advance / 2;
	}
	color(d, gw_chart_ink_color[ink]);
	f->cairo_move_to(d->cr, x, y);
	f->cairo_show_text(d->cr, s);
	f->cairo_new_path(d->cr);
}

static void swatch(void *ctx, double x, double y, double size, const char *hex)
{
	struct draw *d = ctx;
	rounded(d, x, y, size, size, 2);
	color(d, hex);
	d->f->cairo_fill(d->cr);
}

static void path_start(void *ctx, const char *hex)
{
	struct draw *d = ctx;
	d->f->cairo_new_path(d->cr);
	color(d, hex);
	d->f->cairo_set_line_width(d->cr, 1.3); /* the page's svg path stroke-width */
}

static void path_point(void *ctx, double x, double y, bool move)
{
	struct draw *d = ctx;
	(move ? d->f->cairo_move_to : d->f->cairo_line_to)(d->cr, x, y);
}

static void path_end(void *ctx)
{
	struct draw *d = ctx;
	d->f->cairo_stroke(d->cr);
}

static cairo_status_t put(void *closure, const unsigned char *data, unsigned int len)
{
	return gw_buf_append(closure, data, len) == 0 ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int gw_chart_png_draw(struct gw_chart_png *p, const struct gw_chart *c, struct gw_buf *out,
		      struct gw_err *err)
{
	int w, h;
	gw_chart_framed_size(c, &w, &h);
	cairo_surface_t *s = p->cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_status_t st = p->cairo_surface_status(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		p->cairo_surface_destroy(s);
		return gw_err_set(err, st == CAIRO_STATUS_NO_MEMORY ? GW_ENOMEM : GW_EIO, "cairo: %s",
				  p->cairo_status_to_string(st));
	}
	struct draw d = {p, p->cairo_create(s)};
	const struct gw_canvas cv = {&d, tile, line, text, swatch, path_start, path_point, path_end};
	gw_chart_draw_framed(c, &cv);
	st = p->cairo_status(d.cr);
	p->cairo_destroy(d.cr);
	if (st == CAIRO_STATUS_SUCCESS)
		st = p->cairo_surface_write_to_png_stream(s, put, out);
	p->cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS)
		return gw_err_set(err, st == CAIRO_STATUS_NO_MEMORY ? GW_ENOMEM : GW_EIO,
				  "drawing %s: cairo: %s", c->id, p->cairo_status_to_string(st));
	return 0;
}

#else /* built without cairo */

bool gw_chart_png_built(void)
{
	return false;
}

int gw_chart_png_open(struct gw_chart_png **out, struct gw_err *err)
{
	*out = NULL;
	return gw_err_set(err, GW_ENOTSUP,
			  "this gpuwatch was built without PNG support: install cairo's headers "
			  "(libcairo2-dev; scripts/deps.sh does) and rebuild");
}

void gw_chart_png_close(struct gw_chart_png *p)
{
	(void)p;
}

int gw_chart_png_draw(struct gw_chart_png *p, const struct gw_chart *c, struct gw_buf *out,
		      struct gw_err *err)
{
	(void)p, (void)c, (void)out;
	return gw_err_set(err, GW_ENOTSUP, "this gpuwatch was built without PNG support");
}

#endif
