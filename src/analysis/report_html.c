/*
 * report_html.c - the report as one self-contained HTML page: the findings,
 * inline SVG charts of utilisation, memory, power and temperature (a line
 * per GPU over the report's grid: report_chart.c, drawn by chart/chart_svg.c)
 * and the statistics tables, in the colours of the agent's page
 * (web/src/style.css). No script, no external asset: the file can be
 * mailed or attached to a ticket.
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

/* The page's palette (style.css), light and dark; the lines' colours are chart.h's. */
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

/* A chart: its title over its SVG, both drawn from the report's chart description. */
static int chart(struct gw_buf *b, const struct gw_report *r, size_t k)
{
	struct gw_chart c;
	int rc = gw_report_chart(r, k, &c);
	if (rc)
		return rc;
	gw_buf_printf(b, "<div class=\"chart\"><h3>%s (%s)</h3>\n", c.title, c.unit);
	gw_chart_svg(&c, b);
	gw_buf_puts(b, "</div>\n");
	gw_chart_release(&c);
	return 0;
}

/* report --png: where the same charts were written. */
static void png_files(struct gw_buf *b, const struct gw_report *r)
{
	gw_buf_puts(b, "<p class=\"muted\">As PNG files:");
	for (size_t k = 0; k < GW_REPORT_NCHARTS; k++) {
		char path[4096];
		if (gw_report_chart_file(r, k, path, sizeof(path)) != 0)
			continue;
		gw_buf_puts(b, k ? ", " : " ");
		esc(b, path);
	}
	gw_buf_puts(b, "</p>\n");
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

void gw_rpt_train_html(const struct gw_report *r, struct gw_buf *b)
{
	if (!r->ntrain)
		return;
	gw_buf_printf(b, "<h2>Training (%zu)</h2>\n<table><tr><th>job</th><th>GPUs</th><th>power limit W</th>"
			 "<th>hours</th><th>tokens/s</th><th>W drawn</th><th>tokens/J</th></tr>\n", r->ntrain);
	for (size_t i = 0; i < r->ntrain; i++) {
		const struct gw_report_train *t = &r->train[i];
		gw_buf_puts(b, "<tr><td>");
		esc(b, t->job);
		gw_buf_puts(b, "</td><td>");
		for (size_t k = 0; k < t->ngpus; k++) {
			gw_buf_puts(b, k ? ", " : "");
			esc(b, r->gpu[t->gpus[k]].index);
		}
		gw_buf_printf(b, "</td><td>all</td><td class=\"num\">%.2f</td><td class=\"num\">%.0f</td>"
				 "<td class=\"num\">%.0f</td><td class=\"num\">%.3g</td></tr>\n",
			      t->seconds / 3600, t->seconds > 0 ? t->tokens / t->seconds : 0.0,
			      t->seconds > 0 ? t->energy_j / t->seconds : 0.0,
			      t->energy_j > 0 ? t->tokens_metered / t->energy_j : 0.0);
		for (size_t k = 0; k < t->nlim; k++) {
			const struct gw_report_plimit *l = &t->lim[k];
			gw_buf_printf(b, "<tr><td></td><td></td><td class=\"num\">%.0f</td><td class=\"num\">%.2f</td>"
					 "<td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">%.3g</td></tr>\n",
				      l->watts, l->seconds / 3600, l->tokens / l->seconds, l->energy_j / l->seconds,
				      l->tokens / l->energy_j);
		}
	}
	gw_buf_puts(b, "</table>\n");
}

/* A row of the jobs table: a job's totals, or (a job spanning nodes) its part on one node. */
static void job_row(struct gw_buf *b, const struct gw_report *r, const char *name,
		    const struct gw_report_job_node *n)
{
	gw_buf_puts(b, n->instance ? "<tr><td>&nbsp;&nbsp;node " : "<tr><td>");
	esc(b, name);
	gw_buf_puts(b, "</td><td>");
	for (size_t k = 0; k < n->ngpus; k++) {
		gw_buf_puts(b, k ? ", " : "");
		esc(b, r->gpu[n->gpus[k]].index);
	}
	gw_buf_printf(b,
		      "</td><td class=\"num\">%.2f</td><td class=\"num\">%.1f</td><td "
		      "class=\"num\">%.1f</td>"
		      "<td class=\"num\">%.3f</td></tr>\n",
		      n->gpu_seconds / 3600, n->util_mean * 100, n->mem_max / 1073741824.0,
		      n->energy_j / 3.6e6);
}

/* The scraped inference servers, only when there are some. */
static void inference(struct gw_buf *b, const struct gw_report *r)
{
	if (!r->nscrapes)
		return;
	gw_buf_printf(
	    b,
	    "<h2>Inference servers (%zu)</h2>\n<table><tr><th>job</th><th>instance</th><th>up %%</th>"
	    "<th>counter</th><th>mean rate</th><th>in all</th></tr>\n",
	    r->nscrapes);
	for (size_t i = 0; i < r->nscrapes; i++) {
		const struct gw_report_scrape *sc = &r->scrape[i];
		for (size_t k = 0; k < (sc->nrate ? sc->nrate : 1); k++) {
			gw_buf_puts(b, "<tr><td>");
			esc(b, k ? "" : sc->job);
			gw_buf_puts(b, "</td><td>");
			esc(b, k ? "" : sc->instance);
			if (k)
				gw_buf_puts(b, "</td><td>");
			else
				gw_buf_printf(b, "</td><td class=\"num\">%.1f", sc->up_ratio * 100);
			gw_buf_puts(b, "</td><td>");
			if (sc->nrate) {
				esc(b, sc->rate[k].name);
				gw_buf_printf(b, "</td><td class=\"num\">%.4g ", sc->rate[k].per_s);
				esc(b, sc->rate[k].unit);
				gw_buf_printf(b, "</td><td class=\"num\">%.6g", sc->rate[k].increase);
			} else {
				gw_buf_puts(b, "</td><td></td><td>");
			}
			gw_buf_puts(b, "</td></tr>\n");
		}
	}
	gw_buf_puts(b, "</table>\n");
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

void gw_rpt_owners_html(const struct gw_report *r, struct gw_buf *b)
{
	if (!r->nowners)
		return;
	gw_buf_printf(b, "<h2>Owners (%zu)</h2>\n<table><tr><th>kind</th><th>owner</th><th>GPUs</th><th>GPU hours</th>"
			 "<th>SM %%</th><th>memory max GiB</th><th>energy kWh</th></tr>\n", r->nowners);
	for (size_t i = 0; i < r->nowners; i++) {
		const struct gw_report_owner *o = &r->owner[i];
		gw_buf_puts(b, "<tr><td>");
		esc(b, o->kind);
		gw_buf_puts(b, "</td><td>");
		esc(b, o->name);
		gw_buf_puts(b, "</td><td>");
		for (size_t k = 0; k < o->ngpus; k++) {
			gw_buf_puts(b, k ? ", " : "");
			esc(b, r->gpu[o->gpus[k]].index);
		}
		gw_buf_printf(b, "</td><td class=\"num\">%.2f</td><td class=\"num\">%.1f</td><td class=\"num\">%.1f</td>"
				 "<td class=\"num\">%.3f</td></tr>\n",
			      o->gpu_seconds / 3600, o->sm_mean * 100, o->mem_max / 1073741824.0, o->energy_j / 3.6e6);
	}
	gw_buf_puts(b, "</table>\n");
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
		gw_buf_printf(b, "<span><i style=\"background:%s\"></i>GPU ",
			      gw_chart_colors[i % GW_CHART_NCOLORS]);
		esc(b, r->gpu[i].index);
		if (r->gpu[i].instance[0]) {
			gw_buf_puts(b, " ");
			esc(b, r->gpu[i].instance);
		}
		gw_buf_puts(b, "</span>");
	}
	gw_buf_puts(b, "</p>\n<div id=\"charts\">\n");
	for (size_t k = 0; k < GW_REPORT_NCHARTS; k++) {
		int rc = chart(b, r, k);
		if (rc)
			return rc;
	}
	gw_buf_puts(b, "</div>\n");
	if (r->png_dir)
		png_files(b, r);
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
			const struct gw_report_job_node all = {.gpus = j->gpus,
							       .ngpus = j->ngpus,
							       .gpu_seconds = j->gpu_seconds,
							       .energy_j = j->energy_j,
							       .util_mean = j->util_mean,
							       .mem_max = j->mem_max};
			job_row(b, r, j->id, &all);
			for (size_t k = 0; j->nnodes > 1 && k < j->nnodes; k++)
				job_row(b, r, j->node[k].instance, &j->node[k]);
		}
		gw_buf_puts(b, "</table>\n");
	}
	gw_rpt_owners_html(r, b);
	gw_rpt_train_html(r, b);
	inference(b, r);
	gw_buf_puts(b, "<h2>Node</h2>\n");
	stat_table(b, r->node);
	gw_buf_puts(b, "</section></body></html>\n");
	return 0;
}
