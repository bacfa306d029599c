/*
 * draw.c - top's main screen: title, GPU rows (full or compact), the
 * process table, the event line, the bottom line and the help overlay.
 */
#include "ui/braille.h"
#include "ui/draw_priv.h"
#include "ui/format.h"

#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1024.0 * 1024.0)

int gw_ui_put(int y, int x, const char *s, int maxcells)
{
	int cells = 0;
	const char *p = s;
	while (*p && cells < maxcells) {
		p++; /* skip continuation bytes: one code point is one cell here */
		while ((*p & 0xC0) == 0x80)
			p++;
		cells++;
	}
	if (cells > 0)
		mvaddnstr(y, x, s, (int)(p - s));
	return cells;
}

void gw_ui_attr(const struct gw_ui_view *v, int pair, bool on)
{
	attr_t a = v->color ? COLOR_PAIR(pair) : 0;
	if (pair == GW_CP_BAD || pair == GW_CP_TITLE || !v->color)
		a |= pair == GW_CP_TITLE ? A_REVERSE : pair == GW_CP_OK || pair == GW_CP_CHART ? 0 : A_BOLD;
	if (on)
		attron(a);
	else
		attroff(a);
}

void gw_ui_draw_init_colors(void)
{
	use_default_colors();
	init_pair(GW_CP_OK, COLOR_GREEN, -1);
	init_pair(GW_CP_WARN, COLOR_YELLOW, -1);
	init_pair(GW_CP_BAD, COLOR_RED, -1);
	init_pair(GW_CP_TITLE, COLOR_CYAN, -1);
	init_pair(GW_CP_CHART, COLOR_CYAN, -1);
}

void gw_ui_val(const struct gw_value *val, double scale, int prec, const char *unit, char *buf, size_t n)
{
	double d;
	if (gw_ui_num(val, &d))
		snprintf(buf, n, "%.*f%s", prec, d / scale, unit);
	else
		snprintf(buf, n, "-");
}

const char *gw_ui_short_name(const char *name)
{
	return strncmp(name, "NVIDIA ", 7) == 0 ? name + 7 : name;
}

unsigned int gw_ui_chart_cols(const struct gw_ui_view *v, unsigned int w)
{
	return v->utf8 && !v->blocks ? 2 * w : w;
}

void gw_ui_chart_text(const struct gw_ui_view *v, char *buf, size_t n, const float *s, unsigned int w, double lo,
		      double hi, unsigned int row, unsigned int nrows)
{
	if (v->utf8 && !v->blocks)
		gw_ui_braille_row(buf, n, s, w, lo, hi, row, nrows);
	else
		gw_ui_chart_row(buf, n, s, w, lo, hi, row, nrows, v->utf8);
}

/* "12s", "5m", "3h": how long ago, for stale rows. */
static void age(int64_t ms, char *buf, size_t n)
{
	long long sec = ms > 0 ? ms / 1000 : 0;
	if (sec < 120)
		snprintf(buf, n, "%llds", sec);
	else if (sec < 7200)
		snprintf(buf, n, "%lldm", sec / 60);
	else
		snprintf(buf, n, "%lldh", sec / 3600);
}

void gw_ui_stale_text(const struct gw_ui_view *v, const struct gw_ui_gpu *u, char *buf, size_t n)
{
	buf[0] = '\0';
	if (u->node == GW_UI_NO_NODE || !u->stale || u->node >= v->m->nnodes)
		return;
	const struct gw_ui_node *nd = &v->m->nodes[u->node];
	const char *why = nd->err		       ? nd->why
			  : !nd->seen_ms	       ? "waiting for its first answer"
			  : u->placeholder ? "no GPU in its answer"
					   : "not in the last answer";
	int64_t seen = u->placeholder ? nd->seen_ms : u->seen_ms;
	char a[16];
	if (!seen) {
		snprintf(buf, n, "%s", why);
		return;
	}
	age(v->m->last_t_ms - seen, a, sizeof(a));
	snprintf(buf, n, "stale %s  %s", a, why);
}

/* The utilisation history in w cells at (y, x). */
static void sparkline(const struct gw_ui_view *v, unsigned int g, int y, int x, int w)
{
	float series[1024];
	char row[512 * 3 + 1];
	if (w > 512)
		w = 512;
	unsigned int nc = gw_ui_chart_cols(v, (unsigned int)w);
	gw_ui_hist_series(v->m, g, GW_UM_UTIL, v->m->last_t_ms, v->window_ms, series, nc);
	gw_ui_chart_text(v, row, sizeof(row), series, (unsigned int)w, 0, 100, 0, 1);
	gw_ui_attr(v, GW_CP_CHART, true);
	gw_ui_put(y, x, row, w);
	gw_ui_attr(v, GW_CP_CHART, false);
}

static void title(const struct gw_ui_view *v, int cols)
{
	char left[256], right[64];
	const struct gw_ui_model *m = v->m;
	time_t t = (time_t)(m->last_t_ms / 1000);
	struct tm tm;
	localtime_r(&t, &tm);
	if (m->remote) {
		unsigned int down = 0, real = 0, answered = 0, sim = 0;
		for (unsigned int i = 0; i < m->nnodes; i++) {
			down += m->nodes[i].err != 0;
			answered += m->nodes[i].seen_ms != 0;
			sim += m->nodes[i].simulated;
		}
		for (unsigned int g = 0; g < m->ngpus; g++)
			real += !m->gpus[g].placeholder;
		char d[32] = "", s[48] = "";
		if (down)
			snprintf(d, sizeof(d), " (%u down)", down);
		/* as the local view says it; a mixed fleet says how many nodes (the detail view says which) */
		if (sim && sim == answered)
			snprintf(s, sizeof(s), "  SIMULATED");
		else if (sim)
			snprintf(s, sizeof(s), "  SIMULATED %u of %u nodes", sim, answered);
		snprintf(left, sizeof(left), " gpuwatch top  %s  %u node%s%s  %u GPU%s%s", v->host, m->nnodes,
			 m->nnodes == 1 ? "" : "s", d, real, real == 1 ? "" : "s", s);
	} else {
		snprintf(left, sizeof(left), " gpuwatch top  %s  %u GPU%s%s", v->host, m->ngpus, m->ngpus == 1 ? "" : "s",
			 v->simulated ? "  SIMULATED" : "");
	}
	snprintf(right, sizeof(right), "every %.1fs  window %lldm  %02d:%02d:%02d ", v->interval_ms / 1000.0,
		 (long long)(v->window_ms / 60000), tm.tm_hour, tm.tm_min, tm.tm_sec);
	gw_ui_attr(v, GW_CP_TITLE, true);
	mvhline(0, 0, ' ', cols);
	gw_ui_put(0, 0, left, cols);
	int rl = (int)strlen(right);
	if ((int)strlen(left) + rl < cols)
		gw_ui_put(0, cols - rl, right, rl);
	gw_ui_attr(v, GW_CP_TITLE, false);
}

int gw_ui_health_pair(unsigned int status)
{
	return status == GW_HEALTH_FAIL ? GW_CP_BAD : status == GW_HEALTH_WARN ? GW_CP_WARN : GW_CP_OK;
}

const char *gw_ui_health_word(unsigned int status)
{
	return status == GW_HEALTH_FAIL ? "FAIL" : status == GW_HEALTH_WARN ? "WARN" : "PASS";
}

void gw_ui_health_systems(const struct gw_ui_health *h, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int s = 0; s < GW_HSYS__COUNT && h->status != GW_HEALTH_PASS && len < n; s++)
		if (h->system[s] == h->status)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "",
						gw_health_system_name((enum gw_health_system)s));
}

/* The OOM forecast's slot beside memory: " oom 42m", red under an hour; blank without one. */
static int put_ttf(const struct gw_ui_view *v, const struct gw_ui_gpu *u, int y, int x, int maxw)
{
	char buf[32], span[16];
	if (!v->ttf_col)
		return 0;
	if (u->ttf_s < 0) {
		snprintf(buf, sizeof(buf), "%8s", "");
		return gw_ui_put(y, x, buf, maxw);
	}
	gw_ui_span(u->ttf_s, span, sizeof(span));
	snprintf(buf, sizeof(buf), " oom %-3s", span);
	bool soon = u->ttf_s < 3600;
	if (soon)
		gw_ui_attr(v, GW_CP_BAD, true);
	int w = gw_ui_put(y, x, buf, maxw);
	if (soon)
		gw_ui_attr(v, GW_CP_BAD, false);
	return w;
}

/*
 * The health verdict after the values: " FAIL memory,driver", the systems
 * as many whole as fit (the detail view has them all); nothing where the
 * source has none.
 */
static int put_health(const struct gw_ui_view *v, const struct gw_ui_health *h, int y, int x, int maxw)
{
	char buf[96], sys[80];
	if (!h->known || maxw <= 0)
		return 0;
	gw_ui_health_systems(h, sys, sizeof(sys));
	int n = snprintf(buf, sizeof(buf), " %s", gw_ui_health_word(h->status));
	char *save = NULL;
	for (char *s = strtok_r(sys, ",", &save); s && n + 1 + (int)strlen(s) <= maxw; s = strtok_r(NULL, ",", &save))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%c%s", n > 5 ? ',' : ' ', s);
	int pair = gw_ui_health_pair(h->status);
	gw_ui_attr(v, pair, true);
	int w = gw_ui_put(y, x, buf, maxw);
	gw_ui_attr(v, pair, false);
	return w;
}

static int level_pair(double frac)
{
	return frac >= 0.9 ? GW_CP_BAD : frac >= 0.75 ? GW_CP_WARN : GW_CP_OK;
}

/* "100% [bar]" for a fraction, coloured by level. Returns cells used. */
static int put_bar(const struct gw_ui_view *v, int y, int x, double frac, bool valid, int barw, int maxw)
{
	char bar[64 * 3 + 1];
	if (maxw < barw + 2)
		return 0;
	gw_ui_bar(bar, sizeof(bar), valid ? frac : 0, (unsigned int)barw, v->utf8);
	gw_ui_put(y, x, "[", 1);
	gw_ui_attr(v, level_pair(frac), true);
	gw_ui_put(y, x + 1, bar, barw);
	gw_ui_attr(v, level_pair(frac), false);
	gw_ui_put(y, x + 1 + barw, "]", 1);
	return barw + 2;
}

/* One GPU's first (compact: only) row. */
static void gpu_row(struct gw_ui_view *v, unsigned int g, int y, int cols, bool compact)
{
	const struct gw_ui_gpu *u = &v->m->gpus[g];
	char buf[256], a[32], b[32];
	bool sel = !v->focus_procs && g == v->sel_gpu;
	int x = 0;
	if (sel)
		attron(A_REVERSE);
	if (u->node != GW_UI_NO_NODE) {
		snprintf(buf, sizeof(buf), "%-*.*s ", v->nodew, v->nodew, v->m->nodes[u->node].name);
		x += gw_ui_put(y, 0, buf, cols);
	}
	if (u->placeholder)
		snprintf(buf, sizeof(buf), " - %-8s", "");
	else
		snprintf(buf, sizeof(buf), "%2u %-8.8s", u->index, gw_ui_short_name(u->name));
	x += gw_ui_put(y, x, buf, cols - x);
	if (sel)
		attroff(A_REVERSE);
	gw_ui_stale_text(v, u, buf, sizeof(buf));
	if (buf[0]) { /* a remote GPU without fresh values: say why instead */
		gw_ui_attr(v, GW_CP_BAD, true);
		gw_ui_put(y, x + 1, buf, cols - x - 1);
		gw_ui_attr(v, GW_CP_BAD, false);
		return;
	}
	if (u->lost) {
		gw_ui_attr(v, GW_CP_BAD, true);
		snprintf(buf, sizeof(buf), " LOST - fell off the bus%s", u->last_xid ? " (XID 79)" : "");
		gw_ui_put(y, x, buf, cols - x);
		gw_ui_attr(v, GW_CP_BAD, false);
		return;
	}
	double util = 0, used = 0, total = 0, pw = 0, lim = 0, temp = 0, reasons = 0;
	bool uv = gw_ui_num(&u->cur[GW_UC_UTIL], &util);
	bool mv = gw_ui_num(&u->cur[GW_UC_MEMUSED], &used) && gw_ui_num(&u->cur[GW_UC_MEMTOTAL], &total) && total > 0;
	bool pv = gw_ui_num(&u->cur[GW_UC_POWER], &pw);
	bool lv = gw_ui_num(&u->cur[GW_UC_PLIMIT], &lim) && lim > 0;
	bool tv = gw_ui_num(&u->cur[GW_UC_TEMP], &temp);
	int avail = cols - x + 11; /* what the values have: the whole width for local GPUs */
	int barw = avail >= 120 ? 16 : avail >= 100 ? 12 : 8;
	if (v->ttf_col && avail < 100) /* the forecast's slot fits at 80 columns */
		barw = 5;
	bool bars = avail >= (u->node == GW_UI_NO_NODE ? 80 : 66);
	snprintf(buf, sizeof(buf), " %4s", uv ? "" : "-");
	if (uv)
		snprintf(buf, sizeof(buf), " %3.0f%%", util);
	x += gw_ui_put(y, x, buf, cols - x);
	if (bars)
		x += put_bar(v, y, x, util / 100.0, uv, barw, cols - x);
	gw_ui_size((uint64_t)used, a, sizeof(a));
	gw_ui_size((uint64_t)total, b, sizeof(b));
	snprintf(buf, sizeof(buf), " %6s/%-5s", mv ? a : "-", mv ? b : "-");
	x += gw_ui_put(y, x, buf, cols - x);
	if (bars)
		x += put_bar(v, y, x, mv ? used / total : 0, mv, barw, cols - x);
	x += put_ttf(v, u, y, x, cols - x);
	snprintf(buf, sizeof(buf), " %3.0fC", temp);
	if (!tv)
		snprintf(buf, sizeof(buf), "    -");
	gw_ui_attr(v, level_pair(temp / 90.0), tv);
	x += gw_ui_put(y, x, buf, cols - x);
	gw_ui_attr(v, level_pair(temp / 90.0), false);
	snprintf(a, sizeof(a), "%.0f", pw / 1000.0);
	snprintf(b, sizeof(b), "%.0f", lim / 1000.0);
	snprintf(buf, sizeof(buf), " %4s/%sW", pv ? a : "-", lv ? b : "-");
	x += gw_ui_put(y, x, buf, cols - x);
	x += put_health(v, &u->health, y, x, cols - x);
	if (gw_ui_num(&u->cur[GW_UC_REASONS], &reasons)) {
		char words[96];
		int severe = gw_ui_reasons((uint64_t)reasons, words, sizeof(words));
		if (severe) {
			snprintf(buf, sizeof(buf), " %s", words);
			gw_ui_attr(v, GW_CP_BAD, true);
			x += gw_ui_put(y, x, buf, cols - x);
			gw_ui_attr(v, GW_CP_BAD, false);
		}
	}
	if (u->xid_total || u->dbe || u->last_xid) {
		snprintf(buf, sizeof(buf), " XID%u", u->last_xid);
		gw_ui_attr(v, GW_CP_WARN, true);
		x += gw_ui_put(y, x, buf, cols - x);
		gw_ui_attr(v, GW_CP_WARN, false);
	}
	int w = cols - x - 1;
	if (compact && w >= 8) /* utilisation history in what is left */
		sparkline(v, g, y, x + 1, w);
}

/* The second row of the full mode: clocks, PCIe, fan, pstate, profiling. */
static void gpu_row2(struct gw_ui_view *v, unsigned int g, int y, int cols)
{
	const struct gw_ui_gpu *u = &v->m->gpus[g];
	if (u->lost || u->placeholder)
		return;
	if (u->stale) {
		time_t t = (time_t)(u->seen_ms / 1000);
		struct tm tm;
		char buf[64];
		localtime_r(&t, &tm);
		snprintf(buf, sizeof(buf), "   last values at %02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
		gw_ui_put(y, 0, buf, cols);
		if (cols - 31 >= 8)
			sparkline(v, g, y, 30, cols - 31);
		return;
	}
	char sm[24], mc[24], rx[24], tx[24], fan[24], ps[24], buf[256];
	gw_ui_val(&u->cur[GW_UC_SMCLK], 1, 0, "", sm, sizeof(sm));
	gw_ui_val(&u->cur[GW_UC_MEMCLK], 1, 0, "", mc, sizeof(mc));
	gw_ui_val(&u->cur[GW_UC_PCIERX], 1000, 1, "", rx, sizeof(rx)); /* KB/s -> MB/s */
	gw_ui_val(&u->cur[GW_UC_PCIETX], 1000, 1, "", tx, sizeof(tx));
	gw_ui_val(&u->cur[GW_UC_FAN], 1, 0, "%", fan, sizeof(fan));
	snprintf(ps, sizeof(ps), "P%lld", (long long)u->cur[GW_UC_PSTATE].i);
	int n = snprintf(buf, sizeof(buf), "   clk sm %s mem %s MHz  pcie rx %s tx %s MB/s  fan %s  %s", sm, mc, rx, tx, fan,
			 u->cur[GW_UC_PSTATE].state == GW_V_OK ? ps : "");
	for (int p = 0; p < GW_UP__COUNT && n > 0 && (size_t)n < sizeof(buf); p++) {
		double d;
		if (gw_ui_num(&u->prof[p], &d))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  %s %.0f%%", p == GW_UP_SMACT ? "smact" : "tensor",
				      d <= 1.0 ? d * 100 : d);
	}
	gw_ui_put(y, 0, buf, cols);
	int x = (int)strlen(buf) + 1;
	int w = cols - x - 1;
	if (w >= 8)
		sparkline(v, g, y, x, w);
}

int gw_ui_view_procs(struct gw_ui_view *v)
{
	if (v->m->nprocs > v->pview_cap) {
		size_t *p = realloc(v->pview, v->m->nprocs * sizeof(*p));
		if (!p) {
			v->npview = v->sel_proc = 0;
			return GW_ENOMEM;
		}
		v->pview = p;
		v->pview_cap = v->m->nprocs;
	}
	v->npview = gw_ui_procs_view(v->m, v->filter, v->sort, v->desc, v->pview);
	if (v->sel_proc >= v->npview)
		v->sel_proc = v->npview ? v->npview - 1 : 0;
	return 0;
}

static void procs(struct gw_ui_view *v, int top, int rows, int cols)
{
	char hdr[512], cell[GW_PROC_NAME_MAX + 8], buf[512];
	int x = 0;
	hdr[0] = '\0';
	for (int c = 0; c < GW_PC__COUNT && x < (int)sizeof(hdr) - 40; c++) {
		const struct gw_ui_pcol_info *ci = gw_ui_pcol_at((enum gw_ui_pcol)c);
		if (!gw_ui_pcol_shown((enum gw_ui_pcol)c, v->m->remote))
			continue;
		const char *mark = c == (int)v->sort ? (v->desc ? (v->utf8 ? "\u25BC" : "v") : (v->utf8 ? "\u25B2" : "^")) : "";
		char name[32];
		snprintf(name, sizeof(name), "%s%s", ci->name, mark);
		x += snprintf(hdr + x, sizeof(hdr) - (size_t)x, ci->right ? "%*s " : "%-*s ", ci->width, name);
	}
	attron(A_REVERSE);
	mvhline(top, 0, ' ', cols);
	gw_ui_put(top, 0, hdr, cols);
	if (v->filter[0] || v->editing_filter) {
		snprintf(buf, sizeof(buf), " filter: %s%s ", v->filter, v->editing_filter ? "_" : "");
		int l = (int)strlen(buf);
		if (l < cols)
			gw_ui_put(top, cols - l, buf, l);
	}
	attroff(A_REVERSE);
	int shown = rows - 1;
	if (shown <= 0)
		return;
	size_t first = v->sel_proc >= (size_t)shown ? v->sel_proc - (size_t)shown + 1 : 0;
	if (v->npview == 0) {
		gw_ui_put(top + 1, 1, v->filter[0] ? "(no process matches the filter)" : "(no processes)", cols - 1);
		return;
	}
	for (int r = 0; r < shown && first + (size_t)r < v->npview; r++) {
		size_t i = first + (size_t)r;
		const struct gw_ui_proc *p = &v->m->procs[v->pview[i]];
		x = 0;
		for (int c = 0; c < GW_PC__COUNT && x < (int)sizeof(buf) - 1; c++) {
			const struct gw_ui_pcol_info *ci = gw_ui_pcol_at((enum gw_ui_pcol)c);
			if (!gw_ui_pcol_shown((enum gw_ui_pcol)c, v->m->remote))
				continue;
			gw_ui_pcell(p, (enum gw_ui_pcol)c, cell, sizeof(cell));
			if (ci->width)
				x += snprintf(buf + x, sizeof(buf) - (size_t)x, ci->right ? "%*.*s " : "%-*.*s ", ci->width,
					      ci->width, cell);
			else
				x += snprintf(buf + x, sizeof(buf) - (size_t)x, "%s", cell);
		}
		bool sel = v->focus_procs && i == v->sel_proc;
		if (sel)
			attron(A_REVERSE);
		gw_ui_put(top + 1 + r, 0, buf, cols);
		if (sel)
			attroff(A_REVERSE);
	}
}

static void events_line(const struct gw_ui_view *v, int y, int cols)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "events:");
	for (unsigned int i = 0; i < 4 && n > 0 && (size_t)n < sizeof(buf); i++) {
		const struct gw_ui_event *e = gw_ui_model_event(v->m, i);
		if (!e)
			break;
		time_t t = (time_t)(e->t_ms / 1000);
		struct tm tm;
		localtime_r(&t, &tm);
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  %02d:%02d:%02d %s %s", tm.tm_hour, tm.tm_min,
			      tm.tm_sec, e->where, e->text);
	}
	gw_ui_attr(v, GW_CP_WARN, true);
	gw_ui_put(y, 0, buf, cols);
	gw_ui_attr(v, GW_CP_WARN, false);
}

static const char *const help_lines[] = {
	"Keys",
	"  ?          this help (any key closes it)",
	"  q, Ctrl-C  quit",
	"  + / -      refresh faster / slower (100 ms .. 10 s)",
	"  w          history window: 1, 5, 15, 60 minutes",
	"  c          layout: auto, full, compact",
	"  Up/Down    select a GPU (or a process, after Tab)",
	"  Tab        move between the GPU list and the process list",
	"  Enter      detail view of the selected GPU (Esc: back)",
	"  < / >      sort processes by the previous / next column",
	"  r          reverse the sort order",
	"  /          filter processes (Enter keeps, Esc clears)",
	"  T / K      send SIGTERM / SIGKILL to the selected process (asks;",
	"             never for processes of remote nodes)",
	"  b          charts: braille / block characters (UTF-8 terminals)",
	"",
	"GPU rows",
	"  PASS WARN FAIL  health watches' verdict and failing systems",
	"                  (Enter: the incidents and what to do)",
	"  oom 42m    memory full in 42 min at its trend (red within an hour)",
};

static void help(const struct gw_ui_view *v, int rows, int cols)
{
	int n = (int)(sizeof(help_lines) / sizeof(help_lines[0]));
	int w = 0;
	for (int i = 0; i < n; i++)
		w = (int)strlen(help_lines[i]) > w ? (int)strlen(help_lines[i]) : w;
	w += 4;
	if (w > cols)
		w = cols;
	int h = n + 2 > rows - 1 ? rows - 1 : n + 2;
	int y0 = 1 + (rows - 1 - h) / 2, x0 = (cols - w) / 2;
	for (int r = 0; r < h; r++) {
		mvhline(y0 + r, x0, ' ', w);
		if (r == 0 || r == h - 1) {
			mvhline(y0 + r, x0, v->utf8 ? ACS_HLINE : '-', w);
			continue;
		}
		if (r - 1 < n)
			gw_ui_put(y0 + r, x0 + 2, help_lines[r - 1], w - 3);
	}
}

static void bottom(const struct gw_ui_view *v, int y, int cols)
{
	const char *hint = v->line[0] ? v->line
				      : "? help  q quit  +/- refresh  w window  c layout  Enter detail  Tab procs  / filter";
	move(y, 0);
	clrtoeol();
	if (v->line[0])
		attron(A_BOLD);
	gw_ui_put(y, 0, hint, cols - 1); /* the last cell of the screen would scroll */
	if (v->line[0])
		attroff(A_BOLD);
}

void gw_ui_draw(struct gw_ui_view *v)
{
	int rows = LINES, cols = COLS;
	erase();
	if (rows < 2 || cols < 10 || !v->m->gpus) {
		gw_ui_put(0, 0, "gpuwatch top", cols);
		if (rows >= 2)
			gw_ui_put(1, 0, v->line, cols);
		return;
	}
	if (v->m->remote) { /* the node column: as wide as the longest name, within reason */
		int cap = cols >= 120 ? 24 : cols >= 100 ? 20 : 16;
		v->nodew = 4;
		for (unsigned int i = 0; i < v->m->nnodes; i++) {
			int l = (int)strlen(v->m->nodes[i].name);
			v->nodew = l > v->nodew ? l : v->nodew;
		}
		v->nodew = v->nodew > cap ? cap : v->nodew;
	}
	v->ttf_col = false;
	for (unsigned int g = 0; g < v->m->ngpus; g++)
		v->ttf_col |= v->m->gpus[g].ttf_s >= 0 && !v->m->gpus[g].lost && !v->m->gpus[g].placeholder;
	title(v, cols);
	gw_ui_view_procs(v);
	int body = rows - 2; /* rows between title and bottom line */
	bool ev = v->m->nevents > 0 && body >= 6;
	if (ev)
		body--;
	if (v->detail) {
		gw_ui_draw_detail(v, 1, body, cols);
	} else {
		unsigned int ng = v->m->ngpus;
		int min_procs = body >= 12 ? 4 : body >= 6 ? 2 : 0;
		bool compact = v->mode == GW_MODE_COMPACT ||
			       (v->mode == GW_MODE_AUTO && (int)(2 * ng) > body - min_procs);
		int per = compact ? 1 : 2;
		int gpu_rows = (int)ng * per;
		if (gpu_rows > body - min_procs)
			gpu_rows = (body - min_procs) / per * per;
		if (gpu_rows < per)
			gpu_rows = body >= per ? per : 0;
		unsigned int fit = (unsigned int)(gpu_rows / per);
		if (v->sel_gpu < v->gpu_top)
			v->gpu_top = v->sel_gpu;
		if (fit && v->sel_gpu >= v->gpu_top + fit)
			v->gpu_top = v->sel_gpu - fit + 1;
		if (v->gpu_top + fit > ng)
			v->gpu_top = ng > fit ? ng - fit : 0;
		for (unsigned int i = 0; i < fit && v->gpu_top + i < ng; i++) {
			unsigned int g = v->gpu_top + i;
			gpu_row(v, g, 1 + (int)i * per, cols, compact);
			if (!compact)
				gpu_row2(v, g, 2 + (int)i * per, cols);
		}
		int ptop = 1 + gpu_rows;
		if (body - gpu_rows >= 2)
			procs(v, ptop, body - gpu_rows, cols);
	}
	if (ev)
		events_line(v, rows - 2, cols);
	bottom(v, rows - 1, cols);
	if (v->help)
		help(v, rows, cols);
}
