/*
 * report_text.c - the report for people: plain text for a terminal and
 * Markdown for a wiki or a ticket, from one walk over the report; and the
 * format dispatcher.
 */
#include "analysis/report_int.h"

#include "analysis/anomaly_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void cell(struct gw_buf *b, bool md, double v, int width)
{
	if (md)
		gw_buf_puts(b, " | ");
	if (isnan(v))
		gw_buf_printf(b, "%*s", md ? 0 : width, "-");
	else
		gw_buf_printf(b, "%*.*f", md ? 0 : width, fabs(v) >= 100 ? 0 : 1, v);
}

static void stats_table(struct gw_buf *b, bool md, const struct gw_report_stat *st)
{
	if (md)
		gw_buf_puts(
		    b, "\n| metric | unit | mean | p50 | p95 | min | max |\n|---|---|--:|--:|--:|--:|--:|\n");
	else
		gw_buf_printf(b, "  %-16s %-5s %9s %9s %9s %9s %9s\n", "", "", "mean", "p50", "p95", "min",
			      "max");
	for (int id = 0; id < GW_RS_N; id++) {
		const struct gw_report_stat_info *in = &gw_report_stat_info[id];
		if (!st[id].n)
			continue;
		if (md)
			gw_buf_printf(b, "| %s | %s", in->words, in->unit);
		else
			gw_buf_printf(b, "  %-16s %-5s", in->words, in->unit);
		const double v[] = {st[id].mean, st[id].p50, st[id].p95, st[id].min, st[id].max};
		for (size_t k = 0; k < 5; k++)
			cell(b, md, v[k] * in->scale, 10);
		gw_buf_puts(b, md ? " |\n" : "\n");
	}
	if (md)
		gw_buf_putc(b, '\n');
}

static void energy(struct gw_buf *b, const struct gw_report *r, double j)
{
	gw_buf_printf(b, "%.3f kWh (%.0f kJ)", j / 3.6e6, j / 1000);
	if (r->price_per_kwh > 0)
		gw_buf_printf(b, ", cost %.2f%s%s", j / 3.6e6 * r->price_per_kwh, r->currency[0] ? " " : "",
			      r->currency);
}

static void durations(struct gw_buf *b, const struct gw_report *r, const struct gw_report_gpu *g, bool md)
{
	char d[32];
	const char *lead = md ? "- " : "  ";
	gw_rpt_duration(g->seconds, d, sizeof(d));
	gw_buf_printf(b, "%scovered %s; ", lead, d);
	gw_rpt_duration(g->idle_s, d, sizeof(d));
	gw_buf_printf(b, "idle (utilisation under %.0f%%) %s; ", GW_REPORT_IDLE_UTIL * 100, d);
	gw_rpt_duration(g->near_full_s, d, sizeof(d));
	gw_buf_printf(b, "memory %.0f%% full or more %s\n", GW_REPORT_NEAR_FULL * 100, d);
	gw_buf_printf(b, "%sthrottled:", lead);
	bool any = false;
	for (int k = 0; k < GW_RR_N; k++) {
		if (g->throttle_s[k] <= 0)
			continue;
		gw_rpt_duration(g->throttle_s[k], d, sizeof(d));
		gw_buf_printf(b, "%s %s %s", any ? "," : "", gw_report_reason_info[k].key, d);
		any = true;
	}
	gw_buf_printf(b, "%s\n%senergy ", any ? "" : " never", lead);
	energy(b, r, g->energy_j);
	gw_buf_puts(b, g->energy_from_counter ? " (energy counter)\n" : " (power integrated)\n");
}

static void span(struct gw_buf *b, int64_t from, int64_t to)
{
	char f[32], t[32];
	gw_rpt_time(from, f, sizeof(f));
	gw_rpt_time(to, t, sizeof(t));
	/* the same day: the second time without its date */
	gw_buf_printf(b, "%s .. %s UTC", f, strncmp(f, t, 11) == 0 ? t + 11 : t);
}

/* The anomalies section: each with its GPU, metric and kind, time range and evidence (score included). */
static void anomalies(const struct gw_report *r, struct gw_buf *b, bool md)
{
	gw_buf_printf(b, "%sAnomalies (%zu; window %.0f s, sensitivity %.1f)\n%s", md ? "## " : "", r->nanom,
		      r->anom_params.window_s, r->anom_params.sensitivity, md ? "\n" : "");
	if (!r->nanom)
		gw_buf_puts(b, md ? "None: every metric kept to its own recent behaviour.\n" : "  none\n");
	for (size_t i = 0; i < r->nanom; i++) {
		const struct gw_report_anomaly *a = &r->anom[i];
		char ev[256];
		gw_anom_evidence(r, a, ev, sizeof(ev));
		gw_buf_printf(b, md ? "%zu. **%s %s** on GPU %s, " : "  %zu. %s %s  GPU %s  ", i + 1,
			      gw_report_stat_info[a->metric].words, gw_anom_kind_name(a->f.kind),
			      r->gpu[a->gpu].index);
		span(b, (int64_t)(a->f.t_start * 1000), (int64_t)(a->f.t_end * 1000));
		gw_buf_printf(b, md ? ", score %.1f  \n   %s\n" : "  score %.1f\n     %s\n", a->f.score, ev);
	}
	gw_buf_putc(b, '\n');
}

static int render_text(const struct gw_report *r, struct gw_buf *b, bool md)
{
	gw_buf_printf(b, "%sgpuwatch report%s%s\n\n", md ? "# " : "", r->source[0] ? ": " : "", r->source);
	gw_buf_puts(b, md ? "Range: " : "range    ");
	span(b, r->from, r->to);
	gw_buf_puts(b, md ? "  \nSamples: " : "\nsamples  ");
	span(b, r->first, r->last);
	gw_buf_printf(b, ", %zu GPU%s%s", r->ngpus, r->ngpus == 1 ? "" : "s",
		      md ? "  \nEnergy: " : "\nenergy   ");
	energy(b, r, r->energy_j);
	gw_buf_puts(b, "\n\n");

	gw_buf_printf(b, "%sFindings (%zu)\n%s", md ? "## " : "", r->nfind, md ? "\n" : "");
	if (!r->nfind)
		gw_buf_puts(b, md ? "None: nothing in the range crossed a threshold.\n" : "  none\n");
	for (size_t i = 0; i < r->nfind; i++) {
		const struct gw_report_finding *f = &r->find[i];
		gw_buf_printf(b, md ? "%zu. **%s** on GPU " : "  %zu. %s  GPU ", i + 1,
			      gw_report_kind_name(f->kind));
		for (size_t k = 0; k < f->ngpus; k++)
			gw_buf_printf(b, "%s%s", k ? ", " : "", r->gpu[f->gpus[k]].index);
		gw_buf_puts(b, md ? ", " : "  ");
		span(b, f->from, f->to);
		gw_buf_printf(b, md ? "  \n   %s  \n   *Advice:* %s\n" : "\n     %s\n     advice: %s\n",
			      f->evidence, f->advice);
	}
	gw_buf_putc(b, '\n');
	anomalies(r, b, md);

	for (size_t i = 0; i < r->ngpus; i++) {
		const struct gw_report_gpu *g = &r->gpu[i];
		gw_buf_printf(b, "%sGPU %s", md ? "## " : "", g->index);
		const char *parts[] = {g->name, g->uuid};
		for (size_t k = 0; k < 2; k++)
			if (parts[k][0])
				gw_buf_printf(b, "  %s", parts[k]);
		if (g->instance[0])
			gw_buf_printf(b, "  (%s)", g->instance);
		gw_buf_putc(b, '\n');
		stats_table(b, md, g->stat);
		durations(b, r, g, md);
		gw_buf_putc(b, '\n');
	}
	gw_buf_printf(
	    b,
	    "%sNode (%zu GPU%s: mean utilisation and clocks, summed memory, power and PCIe, hottest "
	    "temperature)\n",
	    md ? "## " : "", r->ngpus, r->ngpus == 1 ? "" : "s");
	stats_table(b, md, r->node);
	return 0;
}

int gw_report_format_parse(const char *s, enum gw_report_format *out)
{
	static const char *const names[] = {"text", "md", "json", "html"};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum gw_report_format)i;
			return 0;
		}
	if (strcmp(s, "markdown") == 0) {
		*out = GW_REPORT_MD;
		return 0;
	}
	return GW_EINVAL;
}

int gw_report_render(const struct gw_report *r, enum gw_report_format f, struct gw_buf *b)
{
	switch (f) {
	case GW_REPORT_TEXT:
		return render_text(r, b, false);
	case GW_REPORT_MD:
		return render_text(r, b, true);
	case GW_REPORT_JSON:
		return gw_rpt_render_json(r, b);
	case GW_REPORT_HTML:
		return gw_rpt_render_html(r, b);
	}
	return GW_EINVAL;
}
