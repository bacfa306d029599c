/*
 * draw_detail.c - top's detail view of one GPU: every value, its throttle
 * reasons and events, and a chart per metric over the history window.
 */
#include "ui/draw_priv.h"
#include "ui/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHART_MAX_COLS 512

static const struct {
	const char *label;
	const char *unit;
	enum gw_ui_metric metric;
} charts[GW_UM__COUNT] = {
	{"utilization", "%", GW_UM_UTIL},
	{"memory used", "% of total", GW_UM_MEM},
	{"power", "W", GW_UM_POWER},
	{"temperature", "C", GW_UM_TEMP},
};

/* Top of a chart's scale: percent charts 100, power the limit, temperature 100 C or above. */
static double chart_hi(const struct gw_ui_gpu *u, enum gw_ui_metric k, const float *s, unsigned int n)
{
	double hi = 100, lim;
	if (k == GW_UM_POWER)
		hi = gw_ui_num(&u->cur[GW_UC_PLIMIT], &lim) && lim > 0 ? lim / 1000.0 : 0;
	for (unsigned int i = 0; i < n; i++)
		if (!isnan(s[i]) && s[i] > hi)
			hi = s[i];
	return hi > 0 ? hi : 1;
}

static void chart(struct gw_ui_view *v, const struct gw_ui_gpu *u, unsigned int g, int k, int top, int h, int cols)
{
	float s[2 * CHART_MAX_COLS];
	char row[CHART_MAX_COLS * 3 + 1], buf[160];
	int w = cols - 8;
	if (w > CHART_MAX_COLS)
		w = CHART_MAX_COLS;
	if (w < 4 || h < 2)
		return;
	int nc = (int)gw_ui_chart_cols(v, (unsigned int)w);
	gw_ui_hist_series(v->m, g, charts[k].metric, v->m->last_t_ms, v->window_ms, s, (unsigned int)nc);
	double hi = chart_hi(u, charts[k].metric, s, (unsigned int)nc), now = NAN, max = NAN;
	for (int i = 0; i < nc; i++) {
		if (isnan(s[i]))
			continue;
		now = s[i];
		max = isnan(max) || s[i] > max ? s[i] : max;
	}
	snprintf(buf, sizeof(buf), "%s (%s)  now %.0f  max %.0f  last %lld min", charts[k].label, charts[k].unit, now,
		 max, (long long)(v->window_ms / 60000));
	attron(A_BOLD);
	gw_ui_put(top, 0, buf, cols);
	attroff(A_BOLD);
	int rows = h - 1;
	for (int r = 0; r < rows; r++) {
		if (r == 0 || r == rows - 1) {
			snprintf(buf, sizeof(buf), "%6.0f ", r == 0 ? hi : 0.0);
			gw_ui_put(top + 1 + r, 0, buf, 7);
		}
		gw_ui_chart_text(v, row, sizeof(row), s, (unsigned int)w, 0, hi, (unsigned int)r, (unsigned int)rows);
		gw_ui_attr(v, GW_CP_CHART, true);
		gw_ui_put(top + 1 + r, 7, row, w);
		gw_ui_attr(v, GW_CP_CHART, false);
	}
}

static void values(const struct gw_ui_view *v, const struct gw_ui_gpu *u, int top, int cols)
{
	char b[8][32], buf[320], words[96];
	gw_ui_val(&u->cur[GW_UC_UTIL], 1, 0, "%", b[0], 32);
	gw_ui_val(&u->cur[GW_UC_MEMUTIL], 1, 0, "%", b[1], 32);
	gw_ui_val(&u->cur[GW_UC_MEMUSED], 1024.0 * 1024.0, 0, "", b[2], 32);
	gw_ui_val(&u->cur[GW_UC_MEMTOTAL], 1024.0 * 1024.0, 0, " MiB", b[3], 32);
	gw_ui_val(&u->cur[GW_UC_TEMP], 1, 0, "C", b[4], 32);
	gw_ui_val(&u->cur[GW_UC_POWER], 1000, 2, "", b[5], 32);
	gw_ui_val(&u->cur[GW_UC_PLIMIT], 1000, 0, " W", b[6], 32);
	snprintf(buf, sizeof(buf), "util %s  mem-util %s  memory %s / %s", b[0], b[1], b[2], b[3]);
	int x = gw_ui_put(top, 0, buf, cols);
	if (u->ttf_s >= 0) { /* the OOM forecast beside memory, red under an hour */
		char span[16];
		gw_ui_span(u->ttf_s, span, sizeof(span));
		snprintf(buf, sizeof(buf), "  full in %s", span);
		gw_ui_attr(v, u->ttf_s < 3600 ? GW_CP_BAD : GW_CP_WARN, true);
		x += gw_ui_put(top, x, buf, cols - x);
		gw_ui_attr(v, u->ttf_s < 3600 ? GW_CP_BAD : GW_CP_WARN, false);
	}
	snprintf(buf, sizeof(buf), "  temp %s  power %s / %s", b[4], b[5], b[6]);
	gw_ui_put(top, x, buf, cols - x);
	gw_ui_val(&u->cur[GW_UC_SMCLK], 1, 0, " MHz", b[0], 32);
	gw_ui_val(&u->cur[GW_UC_MEMCLK], 1, 0, " MHz", b[1], 32);
	gw_ui_val(&u->cur[GW_UC_PCIERX], 1000, 1, " MB/s", b[2], 32);
	gw_ui_val(&u->cur[GW_UC_PCIETX], 1000, 1, " MB/s", b[3], 32);
	gw_ui_val(&u->cur[GW_UC_FAN], 1, 0, "%", b[4], 32);
	snprintf(buf, sizeof(buf), "clocks sm %s mem %s  pcie rx %s tx %s  fan %s", b[0], b[1], b[2], b[3], b[4]);
	gw_ui_put(top + 1, 0, buf, cols);
	double mask = 0;
	int severe = 0;
	words[0] = '\0';
	if (gw_ui_num(&u->cur[GW_UC_REASONS], &mask))
		severe = gw_ui_reasons((uint64_t)mask, words, sizeof(words));
	snprintf(buf, sizeof(buf), "throttle: %s   XID events %llu (last %u)  ECC events sbe %llu dbe %llu",
		 words[0] ? words : "none", (unsigned long long)u->xid_total, u->last_xid, (unsigned long long)u->sbe,
		 (unsigned long long)u->dbe);
	if (severe)
		gw_ui_attr(v, GW_CP_BAD, true);
	gw_ui_put(top + 2, 0, buf, cols);
	if (severe)
		gw_ui_attr(v, GW_CP_BAD, false);
}

/* Lines health() draws in rows: the verdict, then an incident a line as room allows. */
static int health_lines(const struct gw_ui_health *h, int rows)
{
	if (!h->known)
		return 0;
	int want = 1 + (int)h->ninc, spare = rows - 4 - 6; /* the values, and two charts at least */
	if (spare < 1)
		return rows - 4 >= 4 ? 1 : 0;
	return want < spare ? want : spare;
}

/*
 * "health FAIL  memory: DBE  memory: remap pending (warn)  driver: XID 94 (warn)",
 * then each incident's message (what, then what to do) on a line of its own.
 */
static void health(const struct gw_ui_view *v, const struct gw_ui_health *h, int top, int lines, int cols)
{
	char buf[640], sys[80];
	int n = snprintf(buf, sizeof(buf), "health %s", gw_ui_health_word(h->status));
	for (unsigned int i = 0; i < h->ninc && n > 0 && (size_t)n < sizeof(buf); i++) {
		const struct gw_ui_incident *in = &h->inc[i];
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  %s: %s%s",
			      gw_health_system_name((enum gw_health_system)in->system), in->tag,
			      in->severity < h->status ? " (warn)" : "");
	}
	if (!h->ninc) { /* a source with verdicts only (Prometheus' gpuwatch_health_status) */
		gw_ui_health_systems(h, sys, sizeof(sys));
		if (sys[0])
			snprintf(buf + n, sizeof(buf) - (size_t)n, "  %s", sys);
	}
	int pair = gw_ui_health_pair(h->status);
	gw_ui_attr(v, pair, true);
	gw_ui_put(top, 0, buf, cols);
	gw_ui_attr(v, pair, false);
	for (int i = 1; i < lines && (unsigned int)(i - 1) < h->ninc; i++) {
		const struct gw_ui_incident *in = &h->inc[i - 1];
		snprintf(buf, sizeof(buf), "  %s %-7s %s", gw_ui_health_word(in->severity),
			 gw_health_system_name((enum gw_health_system)in->system), in->message);
		gw_ui_put(top + i, 0, buf, cols);
	}
}

void gw_ui_draw_detail(struct gw_ui_view *v, int top, int rows, int cols)
{
	unsigned int g = v->sel_gpu < v->m->ngpus ? v->sel_gpu : 0;
	const struct gw_ui_gpu *u = &v->m->gpus[g];
	char buf[640], node[GW_UI_NODE_NAME_MAX + 8] = "", stale[256];
	const struct gw_ui_node *nd = u->node != GW_UI_NO_NODE && u->node < v->m->nnodes ? &v->m->nodes[u->node] : NULL;
	if (nd)
		snprintf(node, sizeof(node), "%s  ", nd->name);
	gw_ui_stale_text(v, u, stale, sizeof(stale));
	/* then what the node lacks, where nothing worse is said */
	if (!stale[0] && nd && nd->note[0])
		snprintf(stale, sizeof(stale), "%.200s", nd->note);
	bool sim = (nd ? nd->simulated : v->simulated) && !u->placeholder;
	if (u->placeholder)
		snprintf(buf, sizeof(buf), "%sno GPU known  %.200s", node, stale);
	else
		snprintf(buf, sizeof(buf), "%sGPU %u  %s  %s%s%s%s%.200s", node, u->index, u->name, u->bus_id,
			 sim ? "  SIMULATED" : "", u->lost ? "  LOST - fell off the bus" : "", stale[0] ? "  " : "", stale);
	bool bad = u->lost || u->stale;
	if (bad)
		gw_ui_attr(v, GW_CP_BAD, true);
	attron(A_BOLD);
	gw_ui_put(top, 0, buf, cols);
	attroff(A_BOLD);
	if (bad)
		gw_ui_attr(v, GW_CP_BAD, false);
	if (rows < 2)
		return;
	if (rows >= 5)
		values(v, u, top + 1, cols);
	int used = rows >= 5 ? 4 : 1;
	int hl = u->placeholder ? 0 : health_lines(&u->health, rows);
	if (hl)
		health(v, &u->health, top + used, hl, cols);
	used += hl;
	int left = rows - used;
	/* four charts when each gets a label and two rows, else as many as fit */
	int n = left / 3 >= GW_UM__COUNT ? GW_UM__COUNT : left / 3;
	if (n == 0)
		return;
	int h = left / n;
	for (int k = 0; k < n; k++)
		chart(v, u, g, k, top + used + k * h, h, cols);
}
