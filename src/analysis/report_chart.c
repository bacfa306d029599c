/*
 * report_chart.c - the report's charts as chart descriptions (chart/chart.h):
 * one per gauge, a line per GPU over the report's grid. The HTML page draws
 * them as SVG, report --png as PNG files, from these same descriptions.
 */
#include "analysis/report_int.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *id, *title;
	int stat;
} charts[GW_REPORT_NCHARTS] = {
    {"utilisation", "Utilisation", GW_RS_UTIL},
    {"memory", "Memory used", GW_RS_MEM},
    {"power", "Power", GW_RS_POWER},
    {"temperature", "Temperature", GW_RS_TEMP},
};

/* The y axis' top in the display unit: fixed for utilisation and memory, else rounded up from the peak. */
static double top_of(const struct gw_report *r, int id, double scale)
{
	if (id == GW_RS_UTIL)
		return 100;
	if (id == GW_RS_MEM) {
		/* against the largest board's total: how full it is shows at a glance */
		double total = 0;
		for (size_t i = 0; i < r->ngpus; i++)
			total = r->gpu[i].mem_total > total ? r->gpu[i].mem_total : total;
		if (total > 0)
			return total * scale;
	}
	double mx = 0;
	for (size_t i = 0; i < r->ngpus; i++)
		if (r->gpu[i].stat[id].n && r->gpu[i].stat[id].max * scale > mx)
			mx = r->gpu[i].stat[id].max * scale;
	return gw_chart_nice_max(mx);
}

int gw_report_chart(const struct gw_report *r, size_t k, struct gw_chart *c)
{
	if (k >= GW_REPORT_NCHARTS)
		return GW_EINVAL;
	int rc = gw_chart_init(c, r->ngpus);
	if (rc)
		return rc;
	int id = charts[k].stat;
	c->id = charts[k].id;
	c->title = charts[k].title;
	c->unit = gw_report_stat_info[id].unit;
	c->scale = gw_report_stat_info[id].scale;
	c->top = top_of(r, id, c->scale);
	c->npoints = r->ngrid;
	for (int j = 0; j <= 4; j++) {
		char s[32];
		gw_rpt_time(r->from + (r->to - r->from) * j / 4, s, sizeof(s));
		snprintf(c->xlabel[j], sizeof(c->xlabel[j]), "%.5s", s + 11); /* HH:MM */
	}
	for (size_t i = 0; i < r->ngpus; i++) {
		const struct gw_report_gpu *g = &r->gpu[i];
		struct gw_chart_series *s = &c->series[i];
		s->color = gw_chart_colors[i % GW_CHART_NCOLORS];
		s->y = g->grid[id];
		snprintf(s->label, sizeof(s->label), "GPU %s%s%s", g->index, g->instance[0] ? " " : "",
			 g->instance);
	}
	return 0;
}

int gw_report_chart_file(const struct gw_report *r, size_t k, char *out, size_t len)
{
	if (k >= GW_REPORT_NCHARTS || !r->png_dir)
		return GW_EINVAL;
	size_t n = strlen(r->png_dir);
	bool slash = n && r->png_dir[n - 1] == '/';
	int w = snprintf(out, len, "%s%s%s.png", r->png_dir, slash ? "" : "/", charts[k].id);
	return w < 0 || (size_t)w >= len ? GW_ERANGE : 0;
}
