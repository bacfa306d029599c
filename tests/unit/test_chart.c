/*
 * test_chart.c - the chart layout (src/chart/): what the SVG backend
 * writes, what the framed layout draws and where, and, in builds with
 * cairo, that the PNG backend's bytes are a PNG of the framed size.
 */
#include "harness.h"

#include "chart/chart.h"

#include <stdint.h>
#include <stdlib.h>

static const double ys[2][5] = {{0, 50, NAN, 100, 150}, {10, 10, 10, 10, 10}};

/* A chart of two series over five points, the first with a gap. */
static void sample(struct gw_chart *c, size_t nseries)
{
	CHECK_INT_EQ(gw_chart_init(c, nseries), 0);
	c->id = "power";
	c->title = "Power <W>";
	c->unit = "W";
	c->top = 100;
	c->npoints = 5;
	static const char *const times[5] = {"10:00", "10:15", "10:30", "10:45", "11:00"};
	for (int k = 0; k < 5; k++)
		snprintf(c->xlabel[k], sizeof(c->xlabel[k]), "%s", times[k]);
	for (size_t i = 0; i < nseries; i++) {
		c->series[i].y = ys[i % 2];
		c->series[i].color = gw_chart_colors[i % GW_CHART_NCOLORS];
		snprintf(c->series[i].label, sizeof(c->series[i].label), "GPU %zu", i);
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void test_svg(void)
{
	struct gw_chart c;
	sample(&c, 2);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	CHECK_INT_EQ(gw_chart_svg(&c, &b), 0);
	CHECK(strncmp(b.data, "<svg viewBox=\"0 0 800 220\"", 26) == 0);
	CHECK(strstr(b.data, "aria-label=\"Power &lt;W&gt;\"") != NULL);
	CHECK_INT_EQ(count(b.data, "<line class=\"grid\""), 5);
	/* y labels 0..100 right-aligned at the margin; times under the plot */
	CHECK(strstr(b.data, "<text x=\"44\" y=\"200\" text-anchor=\"end\">0</text>") != NULL);
	CHECK(strstr(b.data, "<text x=\"44\" y=\"14\" text-anchor=\"end\">100</text>") != NULL);
	CHECK(strstr(b.data, "<text x=\"788\" y=\"214\" text-anchor=\"end\">11:00</text>") != NULL);
	/* the gap starts a new stroke; values over the top are drawn at it */
	CHECK(strstr(b.data, "<path stroke=\"#1565c0\" d=\"M48 196L233 103M603 10L788 10\"/>") != NULL);
	CHECK(strstr(b.data, "<path stroke=\"#c62828\" d=\"M48 177.4L233 177.4") != NULL);
	CHECK(strcmp(b.data + b.len - 6, "</svg>") == 0);
	gw_buf_release(&b);
	gw_chart_release(&c);
}

/* A canvas that counts what it is asked to draw and keeps the lowest point drawn. */
struct rec {
	int tiles, swatches, texts, paths;
	double max_y;
	char last_legend[32];
};
static void r_tile(void *ctx, double x, double y, double w, double h)
{
	struct rec *r = ctx;
	r->tiles++;
	r->max_y = y + h > r->max_y ? y + h : r->max_y;
}
static void r_line(void *ctx, double x1, double y1, double x2, double y2, enum gw_chart_ink ink)
{
	(void)ctx, (void)x1, (void)y1, (void)x2, (void)y2, (void)ink;
}
static void r_text(void *ctx, double x, double y, enum gw_chart_anchor a, enum gw_chart_ink ink,
		   const char *s)
{
	struct rec *r = ctx;
	r->texts++;
	if (ink == GW_INK_LEGEND)
		snprintf(r->last_legend, sizeof(r->last_legend), "%s", s);
}
static void r_swatch(void *ctx, double x, double y, double size, const char *color)
{
	((struct rec *)ctx)->swatches++;
}
static void r_start(void *ctx, const char *color)
{
	((struct rec *)ctx)->paths++;
}
static void r_point(void *ctx, double x, double y, bool move)
{
	(void)ctx, (void)x, (void)y, (void)move;
}
static void r_end(void *ctx)
{
	(void)ctx;
}

static void test_framed(void)
{
	for (size_t n = 1; n <= 9; n++) {
		struct gw_chart c;
		sample(&c, n);
		int w, h;
		gw_chart_framed_size(&c, &w, &h);
		CHECK_INT_EQ(w, 800);
		/* a legend row of four GPUs each, over the 220 px plot */
		CHECK_INT_EQ(h, 28 + 16 * (int)((n + 3) / 4) + 220);
		struct rec r = {0};
		const struct gw_canvas cv = {&r, r_tile, r_line, r_text, r_swatch, r_start, r_point, r_end};
		gw_chart_draw_framed(&c, &cv);
		CHECK_INT_EQ(r.tiles, 1);
		CHECK_DBL_NEAR(r.max_y, h, 0);
		CHECK_INT_EQ(r.swatches, (int)n);
		CHECK_INT_EQ(r.paths, (int)n);
		CHECK_INT_EQ(r.texts, 1 + (int)n + 10); /* title, legend, 5 + 5 axis labels */
		char want[32];
		snprintf(want, sizeof(want), "GPU %zu", n - 1);
		CHECK_STR_EQ(r.last_legend, want);
		gw_chart_release(&c);
	}
}

static void test_nice_max(void)
{
	CHECK_DBL_NEAR(gw_chart_nice_max(0), 1, 0);
	CHECK_DBL_NEAR(gw_chart_nice_max(NAN), 1, 0);
	CHECK_DBL_NEAR(gw_chart_nice_max(0.7), 1, 1e-12);
	CHECK_DBL_NEAR(gw_chart_nice_max(130), 200, 1e-9);
	CHECK_DBL_NEAR(gw_chart_nice_max(201), 500, 1e-9);
	CHECK_DBL_NEAR(gw_chart_nice_max(700), 1000, 1e-9);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_png(void)
{
	struct gw_chart_png *png = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_chart_png_open(&png, &err);
	if (!gw_chart_png_built()) {
		CHECK_INT_EQ(rc, GW_ENOTSUP);
		CHECK(strstr(err.msg, "built without PNG support") != NULL);
		return;
	}
	CHECK_INT_EQ(rc, 0);
	if (rc) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	struct gw_chart c;
	sample(&c, 5);
	struct gw_buf b;
	gw_buf_init(&b, 16 << 20);
	CHECK_INT_EQ(gw_chart_png_draw(png, &c, &b, &err), 0);
	const unsigned char *p = (const unsigned char *)b.data;
	CHECK(b.len > 33 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(p + 12, "IHDR", 4) == 0);
	int w, h;
	gw_chart_framed_size(&c, &w, &h);
	if (b.len > 33) {
		CHECK_INT_EQ(be32(p + 16), w);
		CHECK_INT_EQ(be32(p + 20), h);
	}
	/* a full buffer is cairo's write error, not a crash */
	struct gw_buf small;
	gw_buf_init(&small, 100);
	CHECK(gw_chart_png_draw(png, &c, &small, &err) != 0);
	CHECK(err.msg[0] != '\0');
	gw_buf_release(&small);
	gw_buf_release(&b);
	gw_chart_release(&c);
	gw_chart_png_close(png);

	/* a library that cannot be loaded says which */
	setenv("GPUWATCH_CAIRO_LIBRARY", "/nonexistent/libcairo.so.2", 1);
	CHECK_INT_EQ(gw_chart_png_open(&png, &err), GW_ENOLIB);
	CHECK(strstr(err.msg, "cannot load /nonexistent/libcairo.so.2") != NULL);
	unsetenv("GPUWATCH_CAIRO_LIBRARY");
}

int main(void)
{
	RUN(test_svg);
	RUN(test_framed);
	RUN(test_nice_max);
	RUN(test_png);
	return harness_done();
}
