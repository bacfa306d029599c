/*
 * test_report_chart.c - the report's charts (report_chart.c) on synthetic
 * series in a memstore: their order, axes, series and colours, the PNG file
 * names of --png, and that every format lists those files only with --png.
 */
#include "analysis/report_int.h"
#include "store/memstore.h"

#include "../harness.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0
#define T0 1783072800000LL /* 2026-07-03 10:00:00 UTC */

static void add(struct gw_memstore *m, const char *name, const char *gpu, double v)
{
	struct gw_lpair l[] = {{"__name__", name}, {"gpu", gpu}, {"instance", "node1"}};
	long id = gw_memstore_series(m, l, 3);
	CHECK(id >= 0);
	for (int64_t s = 0; s <= 3600; s += 10)
		CHECK_INT_EQ(gw_memstore_append(m, id, T0 + s * 1000, v), 0);
}

static struct gw_report *build(struct gw_memstore *m, const char *png_dir)
{
	struct gw_querier q = gw_memstore_querier(m);
	struct gw_report_opts o = {.from = T0, .to = T0 + 3600000, .png_dir = png_dir};
	struct gw_report *r = NULL;
	CHECK_INT_EQ(gw_report_build(&q, &o, &r, NULL), 0);
	return r;
}

static struct gw_memstore *two_gpus(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", "0", 0.9);
	add(m, "gpuwatch_utilization_gpu_ratio", "1", 0.3);
	add(m, "gpuwatch_memory_used_bytes", "0", 40 * GIB);
	add(m, "gpuwatch_memory_used_bytes", "1", 10 * GIB);
	add(m, "gpuwatch_memory_total_bytes", "0", 80 * GIB);
	add(m, "gpuwatch_memory_total_bytes", "1", 80 * GIB);
	add(m, "gpuwatch_power_draw_watts", "0", 430);
	add(m, "gpuwatch_power_draw_watts", "1", 120);
	return m;
}

static void test_charts(void)
{
	struct gw_memstore *m = two_gpus();
	struct gw_report *r = build(m, NULL);
	static const char *const ids[] = {"utilisation", "memory", "power", "temperature"};
	/* utilisation to 100 %, memory to the board's 80 GiB, power rounded up from 430 W */
	static const double tops[] = {100, 80, 500, 1};
	for (size_t k = 0; r && k < GW_REPORT_NCHARTS; k++) {
		struct gw_chart c;
		CHECK_INT_EQ(gw_report_chart(r, k, &c), 0);
		CHECK_STR_EQ(c.id, ids[k]);
		CHECK_DBL_NEAR(c.top, tops[k], 1e-9);
		CHECK_INT_EQ(c.npoints, r->ngrid);
		CHECK_INT_EQ(c.nseries, 2);
		CHECK_STR_EQ(c.xlabel[0], "10:00");
		CHECK_STR_EQ(c.xlabel[4], "11:00");
		CHECK_STR_EQ(c.series[1].label, "GPU 1 node1");
		CHECK_STR_EQ(c.series[1].color, gw_chart_colors[1]);
		if (k == 0) /* the values are the grid's, scaled to the unit by the chart */
			CHECK_DBL_NEAR(c.series[0].y[0] * c.scale, 90, 1e-9);
		if (k == 3) /* no temperature series: no lines, an axis all the same */
			CHECK(c.series[0].y == NULL && c.series[1].y == NULL);
		gw_chart_release(&c);
	}
	struct gw_chart c;
	CHECK_INT_EQ(gw_report_chart(r, GW_REPORT_NCHARTS, &c), GW_EINVAL);
	char path[64];
	CHECK_INT_EQ(gw_report_chart_file(r, 0, path, sizeof(path)), GW_EINVAL); /* no --png */
	gw_report_free(r);
	gw_memstore_free(m);
}

static void test_files(void)
{
	struct gw_memstore *m = two_gpus();
	char path[64];
	struct gw_report *r = build(m, "out/");
	CHECK_INT_EQ(gw_report_chart_file(r, 2, path, sizeof(path)), 0);
	CHECK_STR_EQ(path, "out/power.png");
	CHECK_INT_EQ(gw_report_chart_file(r, 0, path, 10), GW_ERANGE);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 24);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_JSON, &b), 0);
	CHECK(strstr(b.data, "\"charts\":[{\"id\":\"utilisation\",\"title\":\"Utilisation\",\"unit\":\"%\","
			     "\"file\":\"out/utilisation.png\",\"width\":800,\"height\":264},") != NULL);
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_TEXT, &b), 0);
	CHECK(strstr(b.data, "Charts (PNG)\n  Utilisation          out/utilisation.png  800x264\n") != NULL);
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_MD, &b), 0);
	CHECK(strstr(b.data, "![Memory used (GiB)](<out/memory.png>)\n") != NULL);
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_HTML, &b), 0);
	CHECK(strstr(b.data, "As PNG files: out/utilisation.png, out/memory.png, out/power.png, "
			     "out/temperature.png</p>") != NULL);
	gw_report_free(r);

	/* without --png: no listing anywhere */
	r = build(m, NULL);
	for (int f = GW_REPORT_TEXT; f <= GW_REPORT_HTML; f++) {
		gw_buf_reset(&b);
		CHECK_INT_EQ(gw_report_render(r, (enum gw_report_format)f, &b), 0);
		CHECK(!strstr(b.data, ".png") && !strstr(b.data, "\"charts\":"));
	}
	gw_buf_release(&b);
	gw_report_free(r);
	gw_memstore_free(m);
}

int main(void)
{
	RUN(test_charts);
	RUN(test_files);
	return harness_done();
}
