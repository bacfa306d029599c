/*
 * report_text.c - the report for people: plain text for a terminal and
 * Markdown for a wiki or a ticket, from one walk over the report; and the
 * format dispatcher.
 */
#include "analysis/report_int.h"

#include "analysis/anomaly_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* "0-7", "0,2,5": a job's GPU indexes, runs joined. */
static void gpu_runs(struct gw_buf *b, const struct gw_report *r, const size_t *gpus, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		long a = strtol(r->gpu[gpus[i]].index, NULL, 10);
		while (j + 1 < n && strtol(r->gpu[gpus[j + 1]].index, NULL, 10) == a + (long)(j + 1 - i) &&
		       strcmp(r->gpu[gpus[j + 1]].instance, r->gpu[gpus[i]].instance) == 0)
			j++;
		gw_buf_printf(b, "%s%s", i ? "," : "", r->gpu[gpus[i]].index);
		if (j > i)
			gw_buf_printf(b, "-%s", r->gpu[gpus[j]].index);
		i = j + 1;
	}
}

void gw_rpt_train_text(const struct gw_report *r, struct gw_buf *b, bool md)
{
	if (!r->ntrain)
		return;
	gw_buf_printf(b, "%sTraining (%zu job%s counting tokens)\n%s", md ? "## " : "", r->ntrain,
		      r->ntrain == 1 ? "" : "s", md ? "\n" : "");
	for (size_t i = 0; i < r->ntrain; i++) {
		const struct gw_report_train *t = &r->train[i];
		char d[32];
		gw_rpt_duration(t->seconds, d, sizeof(d));
		gw_buf_printf(b, "%s%s%s%s  GPU ", md ? "- **" : "  ", t->job, md ? "**" : "", md ? "," : "");
		gpu_runs(b, r, t->gpus, t->ngpus);
		gw_buf_printf(b, ": %.4g tokens in %s, %.0f tokens/s", t->tokens, d,
			      t->seconds > 0 ? t->tokens / t->seconds : 0.0);
		if (t->energy_j > 0 && t->tokens_metered > 0) {
			gw_buf_printf(b, "; %.3f kWh, %.4g J a token (%.3g tokens/J)%s", t->energy_j / 3.6e6,
				      t->energy_j / t->tokens_metered, t->tokens_metered / t->energy_j,
				      t->energy_partial ? ", over the time its GPUs' power is known" : "");
			if (r->price_per_kwh > 0)
				gw_buf_printf(b, ", cost %.4g%s%s a million tokens",
					      t->energy_j / 3.6e6 * r->price_per_kwh / t->tokens_metered * 1e6,
					      r->currency[0] ? " " : "", r->currency);
		}
		gw_buf_putc(b, '\n');
		for (size_t k = 0; k < t->nlim; k++) {
			const struct gw_report_plimit *l = &t->lim[k];
			gw_rpt_duration(l->seconds, d, sizeof(d));
			gw_buf_printf(b, "%s%s%.0f W limit: %.0f tokens/s, %.0f W drawn, %.3g tokens/J over %s\n",
				      md ? "  - " : "      ", k ? "" : "at a ", l->watts, l->tokens / l->seconds,
				      l->energy_j / l->seconds, l->tokens / l->energy_j, d);
		}
	}
	gw_buf_putc(b, '\n');
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

/* One row of the jobs table: a job's totals (id set) or its part on one node. */
static void job_row(struct gw_buf *b, bool md, const struct gw_report *r, const char *id, const char *node,
		    const struct gw_report_job_node *n)
{
	char gpus[96] = "";
	size_t len = 0;
	for (size_t k = 0; k < n->ngpus && len < sizeof(gpus); k++)
		len += (size_t)snprintf(gpus + len, sizeof(gpus) - len, "%s%s", k ? "," : "",
					r->gpu[n->gpus[k]].index);
	if (md)
		gw_buf_printf(b, "| %s | %s | %s", id, node, gpus);
	else
		gw_buf_printf(b, "  %-10s %-22s %-16s", id, node, gpus);
	/* GPU hours to the hundredth: a short job is still more than nothing */
	const double v[] = {n->gpu_seconds / 3600, n->util_mean * 100, n->mem_max / 1073741824.0,
			    n->energy_j / 3.6e6};
	const int prec[] = {2, 1, 1, 3};
	for (size_t k = 0; k < 4; k++)
		if (isnan(v[k]))
			gw_buf_printf(b, md ? " | -" : " %9s", "-");
		else
			gw_buf_printf(b, md ? " | %.*f" : " %9.*f", prec[k], v[k]);
	gw_buf_puts(b, md ? " |\n" : "\n");
}

/* The jobs of the range; one spanning nodes gets a row per node under its total. */
static void jobs_table(struct gw_buf *b, bool md, const struct gw_report *r)
{
	gw_buf_printf(b, "%sJobs (%zu)\n", md ? "## " : "", r->njobs);
	if (md)
		gw_buf_puts(b,
			    "\n| job | node | GPUs | GPU hours | utilisation % | memory max GiB | energy kWh "
			    "|\n|---|---|---|--:|--:|--:|--:|\n");
	else
		gw_buf_printf(b, "  %-10s %-22s %-16s %9s %9s %9s %9s\n", "job", "node", "GPUs", "GPU h",
			      "util %", "mem GiB", "kWh");
	for (size_t i = 0; i < r->njobs; i++) {
		const struct gw_report_job *j = &r->job[i];
		const struct gw_report_job_node all = {.gpus = j->gpus,
						       .ngpus = j->ngpus,
						       .gpu_seconds = j->gpu_seconds,
						       .energy_j = j->energy_j,
						       .util_mean = j->util_mean,
						       .mem_max = j->mem_max};
		char nodes[32];
		snprintf(nodes, sizeof(nodes), "%zu nodes", j->nnodes);
		job_row(b, md, r, j->id, j->nnodes == 1 ? j->node[0].instance : nodes, &all);
		for (size_t k = 0; j->nnodes > 1 && k < j->nnodes; k++)
			job_row(b, md, r, "", j->node[k].instance, &j->node[k]);
	}
	gw_buf_putc(b, '\n');
}

/* report --png: the chart files, as images in Markdown. */
static int png_files(struct gw_buf *b, const struct gw_report *r, bool md)
{
	gw_buf_printf(b, "%sCharts (PNG)\n%s", md ? "## " : "", md ? "\n" : "");
	for (size_t k = 0; k < GW_REPORT_NCHARTS; k++) {
		struct gw_chart c;
		char path[4096];
		int rc = gw_report_chart(r, k, &c);
		if (rc)
			return rc;
		int w, h;
		gw_chart_framed_size(&c, &w, &h);
		if (gw_report_chart_file(r, k, path, sizeof(path)) == 0) {
			if (md)
				gw_buf_printf(b, "![%s (%s)](<%s>)\n", c.title, c.unit, path);
			else
				gw_buf_printf(b, "  %-20s %s  %dx%d\n", c.title, path, w, h);
		}
		gw_chart_release(&c);
	}
	gw_buf_putc(b, '\n');
	return 0;
}

/* The scraped inference servers, only when there are some. */
static void inference(struct gw_buf *b, const struct gw_report *r, bool md)
{
	if (!r->nscrapes)
		return;
	gw_buf_printf(b, "\n%sInference servers (%zu, scraped by the agent)\n%s", md ? "## " : "",
		      r->nscrapes, md ? "\n" : "");
	for (size_t i = 0; i < r->nscrapes; i++) {
		const struct gw_report_scrape *sc = &r->scrape[i];
		char d[32];
		gw_rpt_duration(sc->seconds, d, sizeof(d));
		gw_buf_printf(b, md ? "- **%s** %s: up %.1f%% of %s\n" : "  %s  %s  up %.1f%% of %s\n",
			      sc->job, sc->instance, sc->up_ratio * 100, d);
		for (size_t k = 0; k < sc->nrate; k++)
			gw_buf_printf(
			    b, md ? "  - %s: %.4g %s (%.6g in all)\n" : "    %-40s %12.4g %s (%.6g in all)\n",
			    sc->rate[k].name, sc->rate[k].per_s, sc->rate[k].unit, sc->rate[k].increase);
	}
}

void gw_rpt_owners_text(const struct gw_report *r, struct gw_buf *b, bool md)
{
	if (!r->nowners)
		return;
	gw_buf_printf(b, "%sOwners (%zu, from the processes' user, Slurm job, pod and container)\n", md ? "## " : "",
		      r->nowners);
	if (md)
		gw_buf_puts(b, "\n| kind | owner | GPUs | GPU hours | SM % | memory max GiB | energy kWh |\n"
			       "|---|---|---|--:|--:|--:|--:|\n");
	else
		gw_buf_printf(b, "  %-10s %-30s %-12s %9s %9s %9s %9s\n", "kind", "owner", "GPUs", "GPU h", "SM %",
			      "mem GiB", "kWh");
	for (size_t i = 0; i < r->nowners; i++) {
		const struct gw_report_owner *o = &r->owner[i];
		char gpus[96] = "";
		size_t len = 0;
		for (size_t k = 0; k < o->ngpus && len < sizeof(gpus); k++)
			len += (size_t)snprintf(gpus + len, sizeof(gpus) - len, "%s%s", k ? "," : "",
						r->gpu[o->gpus[k]].index);
		/* a container by its short id, as docker and crictl show it */
		int nlen = strcmp(o->kind, "container") == 0 && strlen(o->name) == 64 ? 12 : (int)strlen(o->name);
		gw_buf_printf(b, md ? "| %s | %.*s | %s" : "  %-10s %-30.*s %-12s", o->kind, nlen, o->name, gpus);
		const double v[] = {o->gpu_seconds / 3600, o->sm_mean * 100, o->mem_max / 1073741824.0, o->energy_j / 3.6e6};
		const int prec[] = {2, 1, 1, 3};
		for (size_t k = 0; k < 4; k++)
			if (isnan(v[k]))
				gw_buf_printf(b, md ? " | -" : " %9s", "-");
			else
				gw_buf_printf(b, md ? " | %.*f" : " %9.*f", prec[k], v[k]);
		gw_buf_puts(b, md ? " |\n" : "\n");
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
	gw_rpt_train_text(r, b, md);
	if (r->njobs)
		jobs_table(b, md, r);
	gw_rpt_owners_text(r, b, md);
	if (r->png_dir) {
		int rc = png_files(b, r, md);
		if (rc)
			return rc;
	}

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
	inference(b, r, md);
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
