/*
 * report_html.c - the report as one self-contained HTML page: the findings,
 * inline SVG charts of utilisation, memory, power and temperature (a line
 * per GPU over the report's grid) and the statistics tables, in the colours
 * of the agent's page (web/src/style.css). No script, no external asset:
 * the file can be mailed or attached to a ticket.
 */
#include "analysis/report_int.h"

#include "analysis/anomaly_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void esc(struct gw_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			gw_buf_puts(b, "&lt;");
			break;
		case '>':
			gw_buf_puts(b, "&gt;");
			break;
		case '&':
			gw_buf_puts(b, "&amp;");
			break;
		case '"':
			gw_buf_puts(b, "&quot;");
			break;
		default:
			gw_buf_putc(b, *s);
		}
	}
}

/* The page's palette (style.css), light and dark, and the lines' colours. */
static const char style[] =
    ":root{--bg:#fafafa;--fg:#1d1f21;--muted:#6b7075;--tile:#fff;--line:#d8dbde;--ok:#2e7d32;--warn:#ef6c00;"
    "--bad:#c62828;--accent:#1565c0}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#111315;--fg:#e6e6e6;--muted:#9aa0a6;--tile:#1b1e21;"
    "--line:#30363d;--ok:#66bb6a;--warn:#ffa726;--bad:#ef5350;--accent:#64b5f6}}\n"
    "*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;background:var(--bg);"
    "color:var(--fg)}\n"
    "header{display:flex;gap:1em;align-items:baseline;padding:.6em 1em;border-bottom:1px solid var(--line)}"
    "header h1{font-size:1.2em;margin:0}header small,.muted{color:var(--muted)}\n"
    "section{padding:0 1em 1em}h2{font-size:1.05em;margin:.8em 0 .4em}\n"
    ".tile{background:var(--tile);border:1px solid var(--line);border-radius:6px;padding:.6em .8em;"
    "margin-bottom:.6em}\n"
    ".kind{font-weight:600;color:var(--warn)}.kind.hardware{color:var(--bad)}\n"
    "#charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:.8em}\n"
    ".chart{background:var(--tile);border:1px solid var(--line);border-radius:6px;padding:.4em}"
    ".chart h3{font-size:.95em;margin:0 0 .2em .4em}\n"
    "svg text{fill:var(--muted);font-size:11px}svg .grid{stroke:var(--line)}svg path{fill:none;"
    "stroke-width:1.3}\n"
    "table{border-collapse:collapse;background:var(--tile);border:1px solid var(--line)}"
    "th,td{padding:.15em .6em;border-bottom:1px solid var(--line);text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".legend span{margin-right:1em}.legend i{display:inline-block;width:.8em;height:.8em;margin-right:.3em;"
    "border-radius:2px}\n";

static const char *const colors[] = {"#1565c0", "#ef6c00", "#2e7d32", "#c62828",
				     "#6a1b9a", "#00838f", "#9e9d24", "#5d4037"};
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

#define W 800
#define H 220
#define ML 48
#define MR 12
#define MT 10
#define MB 24

/* A round upper bound for the y axis: 1, 2 or 5 times a power of ten. */
static double nice_max(double v)
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

static void chart(struct gw_buf *b, const struct gw_report *r, int id, const char *title, double scale,
		  double fixed_max)
{
	double top = fixed_max;
	if (!(top > 0)) {
		double mx = 0;
		for (size_t i = 0; i < r->ngpus; i++)
			if (r->gpu[i].stat[id].n && r->gpu[i].stat[id].max * scale > mx)
				mx = r->gpu[i].stat[id].max * scale;
		top = nice_max(mx);
	}
	gw_buf_printf(b,
		      "<div class=\"chart\"><h3>%s (%s)</h3>\n<svg viewBox=\"0 0 %d %d\" width=\"100%%\" "
		      "role=\"img\" aria-label=\"%s\">\n",
		      title, gw_report_stat_info[id].unit, W, H, title);
	double pw = W - ML - MR, ph = H - MT - MB;
	for (int k = 0; k <= 4; k++) {
		double y = MT + ph - ph * k / 4;
		gw_buf_printf(b,
			      "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			      "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			      ML, W - MR, y, y, ML - 4, y + 4, top * k / 4);
	}
	for (int k = 0; k <= 4; k++) {
		int64_t t = r->from + (r->to - r->from) * k / 4;
		char s[32];
		gw_rpt_time(t, s, sizeof(s));
		gw_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.5s</text>\n",
			      ML + pw * k / 4, H - 6,
			      k == 0   ? "start"
			      : k == 4 ? "end"
				       : "middle",
			      s + 11);
	}
	for (size_t i = 0; i < r->ngpus; i++) {
		const double *g = r->gpu[i].grid[id];
		if (!g)
			continue;
		gw_buf_printf(b, "<path stroke=\"%s\" d=\"", colors[i % NCOLORS]);
		bool pen = false;
		for (size_t k = 0; k < r->ngrid; k++) {
			if (isnan(g[k])) {
				pen = false;
				continue;
			}
			double x = ML + pw * (double)k / (double)(r->ngrid > 1 ? r->ngrid - 1 : 1);
			double v = g[k] * scale / top;
			double y = MT + ph - ph * (v > 1 ? 1 : v < 0 ? 0 : v);
			gw_buf_printf(b, "%c%.1f %.1f", pen ? 'L' : 'M', x, y);
			pen = true;
		}
		gw_buf_puts(b, "\"/>\n");
	}
	gw_buf_puts(b, "</svg></div>\n");
}

static void time_span(struct gw_buf *b, int64_t from, int64_t to)
{
	char f[32], t[32];
	gw_rpt_time(from, f, sizeof(f));
	gw_rpt_time(to, t, sizeof(t));
	gw_buf_printf(b, "%s .. %s UTC", f, strncmp(f, t, 11) == 0 ? t + 11 : t);
}

static void stat_table(struct gw_buf *b, const struct gw_report_stat *st)
{
	gw_buf_puts(b,
		    "<table><tr><th>metric</th><th>unit</th><th>mean</th><th>p50</th><th>p95</th><th>min</th>"
		    "<th>max</th></tr>\n");
	for (int id = 0; id < GW_RS_N; id++) {
		const struct gw_report_stat_info *in = &gw_report_stat_info[id];
		if (!st[id].n)
			continue;
		gw_buf_printf(b, "<tr><td>%s</td><td>%s</td>", in->words, in->unit);
		const double v[] = {st[id].mean, st[id].p50, st[id].p95, st[id].min, st[id].max};
		for (size_t k = 0; k < 5; k++)
			gw_buf_printf(b, "<td class=\"num\">%.*f</td>", fabs(v[k] * in->scale) >= 100 ? 0 : 1,
				      v[k] * in->scale);
		gw_buf_puts(b, "</tr>\n");
	}
	gw_buf_puts(b, "</table>\n");
}

static void energy(struct gw_buf *b, const struct gw_report *r, double j)
{
	gw_buf_printf(b, "%.3f kWh", j / 3.6e6);
	if (r->price_per_kwh > 0) {
		gw_buf_printf(b, ", cost %.2f ", j / 3.6e6 * r->price_per_kwh);
		esc(b, r->currency);
	}
}

/* The anomalies section, a tile each: GPU, metric, kind, time range, evidence with its score. */
static void anomalies(const struct gw_report *r, struct gw_buf *b)
{
	gw_buf_printf(b, "<h2>Anomalies (%zu)</h2>\n<p class=\"muted\">window %.0f s, sensitivity %.1f</p>\n",
		      r->nanom, r->anom_params.window_s, r->anom_params.sensitivity);
	if (!r->nanom)
		gw_buf_puts(b,
			    "<p class=\"muted\">None: every metric kept to its own recent behaviour.</p>\n");
	for (size_t i = 0; i < r->nanom; i++) {
		const struct gw_report_anomaly *a = &r->anom[i];
		char ev[256];
		gw_anom_evidence(r, a, ev, sizeof(ev));
		gw_buf_printf(b, "<div class=\"tile anomaly\"><span class=\"kind\">%s %s</span> on GPU ",
			      gw_report_stat_info[a->metric].words, gw_anom_kind_name(a->f.kind));
		esc(b, r->gpu[a->gpu].index);
		gw_buf_puts(b, " <small class=\"muted\">");
		time_span(b, (int64_t)(a->f.t_start * 1000), (int64_t)(a->f.t_end * 1000));
		gw_buf_printf(b, "</small> score %.1f<br>", a->f.score);
		esc(b, ev);
		gw_buf_puts(b, "</div>\n");
	}
}

int gw_rpt_render_html(const struct gw_report *r, struct gw_buf *b)
{
	gw_buf_puts(
	    b,
	    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width\"><title>gpuwatch report</title>\n<style>");
	gw_buf_puts(b, style);
	gw_buf_puts(b, "</style></head><body>\n<header><h1>gpuwatch report</h1><small>");
	esc(b, r->source);
	gw_buf_puts(b, "</small></header>\n<section><p>Range ");
	time_span(b, r->from, r->to);
	gw_buf_puts(b, "; samples ");
	time_span(b, r->first, r->last);
	gw_buf_printf(b, "; %zu GPU%s; energy ", r->ngpus, r->ngpus == 1 ? "" : "s");
	energy(b, r, r->energy_j);
	gw_buf_printf(b, ".</p>\n<h2>Findings (%zu)</h2>\n", r->nfind);
	if (!r->nfind)
		gw_buf_puts(b, "<p class=\"muted\">None: nothing in the range crossed a threshold.</p>\n");
	for (size_t i = 0; i < r->nfind; i++) {
		const struct gw_report_finding *f = &r->find[i];
		const char *kind = gw_report_kind_name(f->kind);
		gw_buf_printf(b, "<div class=\"tile\"><span class=\"kind %s\">%s</span> on GPU ", kind, kind);
		for (size_t k = 0; k < f->ngpus; k++) {
			gw_buf_puts(b, k ? ", " : "");
			esc(b, r->gpu[f->gpus[k]].index);
		}
		gw_buf_puts(b, " <small class=\"muted\">");
		time_span(b, f->from, f->to);
		gw_buf_puts(b, "</small><br>");
		esc(b, f->evidence);
		gw_buf_puts(b, "<br><b>Advice:</b> ");
		esc(b, f->advice);
		gw_buf_puts(b, "</div>\n");
	}
	anomalies(r, b);
	gw_buf_puts(b, "<h2>Charts</h2>\n<p class=\"legend\">");
	for (size_t i = 0; i < r->ngpus; i++) {
		gw_buf_printf(b, "<span><i style=\"background:%s\"></i>GPU ", colors[i % NCOLORS]);
		esc(b, r->gpu[i].index);
		if (r->gpu[i].instance[0]) {
			gw_buf_puts(b, " ");
			esc(b, r->gpu[i].instance);
		}
		gw_buf_puts(b, "</span>");
	}
	gw_buf_puts(b, "</p>\n<div id=\"charts\">\n");
	chart(b, r, GW_RS_UTIL, "Utilisation", 100, 100);
	double total = 0;
	for (size_t i = 0; i < r->ngpus; i++)
		total = r->gpu[i].mem_total > total ? r->gpu[i].mem_total : total;
	/* memory against the largest board's total: how full it is shows at a glance */
	chart(b, r, GW_RS_MEM, "Memory used", gw_report_stat_info[GW_RS_MEM].scale,
	      total * gw_report_stat_info[GW_RS_MEM].scale);
	chart(b, r, GW_RS_POWER, "Power", 1, 0);
	chart(b, r, GW_RS_TEMP, "Temperature", 1, 0);
	gw_buf_puts(b, "</div>\n");
	for (size_t i = 0; i < r->ngpus; i++) {
		const struct gw_report_gpu *g = &r->gpu[i];
		gw_buf_puts(b, "<h2>GPU ");
		esc(b, g->index);
		gw_buf_puts(b, " <small class=\"muted\">");
		esc(b, g->name);
		gw_buf_puts(b, " ");
		esc(b, g->uuid);
		gw_buf_puts(b, " ");
		esc(b, g->instance);
		gw_buf_puts(b, "</small></h2>\n");
		stat_table(b, g->stat);
		char d[32];
		gw_rpt_duration(g->idle_s, d, sizeof(d));
		gw_buf_printf(b, "<p>Idle %s; ", d);
		gw_rpt_duration(g->near_full_s, d, sizeof(d));
		gw_buf_printf(b, "memory near full %s; throttled:", d);
		bool any = false;
		for (int k = 0; k < GW_RR_N; k++) {
			if (g->throttle_s[k] <= 0)
				continue;
			gw_rpt_duration(g->throttle_s[k], d, sizeof(d));
			gw_buf_printf(b, "%s %s %s", any ? "," : "", gw_report_reason_info[k].key, d);
			any = true;
		}
		gw_buf_puts(b, any ? "; energy " : " never; energy ");
		energy(b, r, g->energy_j);
		gw_buf_puts(b, ".</p>\n");
	}
	if (r->njobs) {
		gw_buf_printf(b,
			      "<h2>Jobs (%zu)</h2>\n<table><tr><th>job</th><th>GPUs</th><th>GPU hours</th>"
			      "<th>utilisation %%</th><th>memory max GiB</th><th>energy kWh</th></tr>\n",
			      r->njobs);
		for (size_t i = 0; i < r->njobs; i++) {
			const struct gw_report_job *j = &r->job[i];
			gw_buf_puts(b, "<tr><td>");
			esc(b, j->id);
			gw_buf_puts(b, "</td><td>");
			for (size_t k = 0; k < j->ngpus; k++) {
				gw_buf_puts(b, k ? ", " : "");
				esc(b, r->gpu[j->gpus[k]].index);
			}
			gw_buf_printf(b,
				      "</td><td class=\"num\">%.2f</td><td class=\"num\">%.1f</td><td "
				      "class=\"num\">%.1f</td>"
				      "<td class=\"num\">%.3f</td></tr>\n",
				      j->gpu_seconds / 3600, j->util_mean * 100, j->mem_max / 1073741824.0,
				      j->energy_j / 3.6e6);
		}
		gw_buf_puts(b, "</table>\n");
	}
	gw_buf_puts(b, "<h2>Node</h2>\n");
	stat_table(b, r->node);
	gw_buf_puts(b, "</section></body></html>\n");
	return 0;
}
