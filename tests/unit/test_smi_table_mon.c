/*
 * dmon and pmon lines rendered from the captured samples; golden files hold
 * the capture's text for the same samples.
 */
#include "cmd/smi_mon.h"
#include "smi_golden.h"

#include <string.h>

static void select_cols(int pmon, const char *letters, const struct gw_mon_col **cols, size_t *n)
{
	size_t tn;
	const struct gw_mon_col *t = pmon ? gw_pmon_cols(&tn) : gw_dmon_cols(&tn);
	char bad = 0;
	CHECK_INT_EQ(gw_mon_select(t, tn, letters, !pmon, cols, n, &bad), 0);
}

/* One dmon row from a space-separated list of cells. */
static void dmon_line(FILE *out, const struct gw_mon_opts *o, const struct tm *now, const char *cells_text,
		      size_t n)
{
	char cells[GW_MON_MAX_COLS][GW_MON_CELL];
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", cells_text);
	size_t i = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, " ", &save); tok && i < n; tok = strtok_r(NULL, " ", &save))
		snprintf(cells[i++], GW_MON_CELL, "%s", tok);
	gw_dmon_row(out, o, now, 0, (const char(*)[GW_MON_CELL])cells, n);
}

static void test_dmon_h200_load(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(0, "puc", cols, &n);
	CHECK_INT_EQ(n, 11);
	struct gw_mon_opts o = {0};
	static const char *rows[] = {
		"630 53 41 100 8 0 0 0 0 3201 1980", "628 53 42 100 8 0 0 0 0 3201 1980",
		"629 53 42 100 8 0 0 0 0 3201 1980", "632 54 42 100 8 0 0 0 0 3201 1980",
		"630 54 42 100 8 0 0 0 0 3201 1980",
	};
	RENDER(text, {
		gw_dmon_header(out, &o, cols, n);
		for (size_t i = 0; i < 5; i++)
			dmon_line(out, &o, NULL, rows[i], n);
	});
	golden_check("dmon_h200_load.txt", text);
	free(text);
}

static void test_dmon_rtx2080_idle(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(0, "puc", cols, &n);
	struct gw_mon_opts o = {0};
	RENDER(text, {
		gw_dmon_header(out, &o, cols, n);
		for (size_t i = 0; i < 5; i++)
			dmon_line(out, &o, NULL, "36 40 - 0 10 0 0 0 0 405 300", n);
	});
	golden_check("dmon_rtx2080_595_idle.txt", text);
	free(text);
}

/* Groups follow the order of -s; -o DT adds 12-wide date and time columns. */
static void test_dmon_all_groups_dt(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(0, "pucvmet", cols, &n);
	CHECK_INT_EQ(n, 21);
	struct gw_mon_opts o = {0};
	CHECK_INT_EQ(gw_mon_parse_options("DT", &o), 0);
	struct tm t;
	memset(&t, 0, sizeof(t));
	t.tm_year = 126, t.tm_mon = 7, t.tm_mday = 16, t.tm_hour = 9, t.tm_min = 22, t.tm_sec = 34;
	RENDER(text, {
		gw_dmon_header(out, &o, cols, n);
		dmon_line(out, &o, &t, "6 38 - 0 0 0 0 0 0 405 180 0 0 2 2 0 - - 0 0 2", n);
	});
	const char *want =
		"#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa"
		"   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n"
		"#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %"
		"    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n"
		" 20260816    09:22:34       0      6     38      -      0      0      0      0      0      0"
		"    405    180      0      0      2      2      0      -      -      0      0      2 \n";
	CHECK_STR_EQ(text, want);
	free(text);
	char bad = 0;
	size_t tn;
	const struct gw_mon_col *t2 = gw_dmon_cols(&tn);
	CHECK_INT_EQ(gw_mon_select(t2, tn, "px", true, cols, &n, &bad), -1);
	CHECK_INT_EQ(bad, 'x');
	CHECK_INT_EQ(gw_mon_parse_options("DX", &o), -1);
}

static void test_dmon_csv(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(0, "p", cols, &n);
	struct gw_mon_opts o = {.csv = true};
	RENDER(text, {
		gw_dmon_header(out, &o, cols, n);
		dmon_line(out, &o, NULL, "77 28 31", n);
	});
	CHECK_STR_EQ(text, "#gpu, pwr, gtemp, mtemp\n#Idx, W, C, C\n0, 77, 28, 31\n");
	free(text);
}

struct prow {
	unsigned int pid;
	const char *type, *cells, *name;
};

static void pmon_rows(FILE *out, const struct gw_mon_opts *o, const struct prow *r, size_t nr, size_t n)
{
	for (size_t k = 0; k < nr; k++) {
		char cells[GW_MON_MAX_COLS][GW_MON_CELL];
		char buf[128];
		snprintf(buf, sizeof(buf), "%s", r[k].cells);
		size_t i = 0;
		char *save = NULL;
		for (char *tok = strtok_r(buf, " ", &save); tok && i < n; tok = strtok_r(NULL, " ", &save))
			snprintf(cells[i++], GW_MON_CELL, "%s", tok);
		gw_pmon_row(out, o, NULL, 0, &r[k].pid, r[k].type, (const char(*)[GW_MON_CELL])cells, n, r[k].name);
	}
}

static void test_pmon_rtx4080_load(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(1, "u", cols, &n);
	CHECK_INT_EQ(n, 6);
	struct gw_mon_opts o = {0};
	static const struct prow s[5][7] = {
		{{2165, "C+G", "- - - 0 - -", "/usr/bin/kwin_wayland"}, {2496, "G", "- - - - - -", "/usr/bin/plasma-keyboard"},
		 {2620, "G", "- - - - - -", "/usr/bin/Xwayland"}, {2954, "G", "- - - - - -", "/usr/bin/plasmashell"},
		 {3527, "G", "- - - - - -", "/usr/bin/xwaylandvideobridge"}, {5021, "C", "0 0 15 - - -", "ffmpeg"},
		 {5022, "C", "5 1 54 - - -", "ffmpeg"}},
		{{2165, "C+G", "- - - 0 - -", "/usr/bin/kwin_wayland"}, {2496, "G", "- - - - - -", "/usr/bin/plasma-keyboard"},
		 {2620, "G", "- - - - - -", "/usr/bin/Xwayland"}, {2954, "G", "- - - - - -", "/usr/bin/plasmashell"},
		 {3527, "G", "- - - - - -", "/usr/bin/xwaylandvideobridge"}, {5021, "C", "1 0 28 - - -", "ffmpeg"},
		 {5022, "C", "4 1 42 - - -", "ffmpeg"}},
		{{2165, "C+G", "- - - 0 - -", "/usr/bin/kwin_wayland"}, {2496, "G", "- - - - - -", "/usr/bin/plasma-keyboard"},
		 {2620, "G", "- - - - - -", "/usr/bin/Xwayland"}, {2954, "G", "- - - - - -", "/usr/bin/plasmashell"},
		 {3527, "G", "- - - - - -", "/usr/bin/xwaylandvideobridge"}, {5021, "C", "- - 42 - - -", "ffmpeg"},
		 {5022, "C", "6 2 27 - - -", "ffmpeg"}},
		{{2165, "C+G", "- - - 0 - -", "/usr/bin/kwin_wayland"}, {2496, "G", "- - - - - -", "/usr/bin/plasma-keyboard"},
		 {2620, "G", "- - - - - -", "/usr/bin/Xwayland"}, {2954, "G", "- - - - - -", "/usr/bin/plasmashell"},
		 {3527, "G", "- - - - - -", "/usr/bin/xwaylandvideobridge"}, {5021, "C", "3 1 42 - - -", "ffmpeg"},
		 {5022, "C", "2 0 28 - - -", "ffmpeg"}},
		{{2165, "C+G", "- - - 0 - -", "/usr/bin/kwin_wayland"}, {2496, "G", "- - - - - -", "/usr/bin/plasma-keyboard"},
		 {2620, "G", "- - - - - -", "/usr/bin/Xwayland"}, {2954, "G", "- - - - - -", "/usr/bin/plasmashell"},
		 {3527, "G", "- - - - - -", "/usr/bin/xwaylandvideobridge"}, {5021, "C", "2 0 14 - - -", "ffmpeg"},
		 {5022, "C", "3 1 55 - - -", "ffmpeg"}},
	};
	RENDER(text, {
		gw_pmon_header(out, &o, cols, n);
		for (size_t i = 0; i < 5; i++)
			pmon_rows(out, &o, s[i], 7, n);
	});
	golden_check("pmon_rtx4080_load.txt", text);
	free(text);
}

static void test_pmon_h200_idle(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(1, "u", cols, &n);
	struct gw_mon_opts o = {0};
	RENDER(text, {
		gw_pmon_header(out, &o, cols, n);
		for (size_t i = 0; i < 5; i++)
			gw_pmon_row(out, &o, NULL, 0, NULL, NULL, NULL, n, NULL);
	});
	golden_check("pmon_h200_idle.txt", text);
	free(text);
}

static void test_pmon_memory_first(void)
{
	const struct gw_mon_col *cols[GW_MON_MAX_COLS];
	size_t n;
	select_cols(1, "um", cols, &n);
	CHECK_INT_EQ(n, 8);
	CHECK_STR_EQ(cols[0]->name, "fb");
	struct gw_mon_opts o = {0};
	RENDER(text, gw_pmon_header(out, &o, cols, n));
	CHECK_STR_EQ(text, "# gpu         pid   type     fb   ccpm     sm    mem    enc    dec    jpg    ofa    command \n"
			   "# Idx           #    C/G     MB     MB      %      %      %      %      %      %    name \n");
	free(text);
}

int main(void)
{
	RUN(test_dmon_h200_load);
	RUN(test_dmon_rtx2080_idle);
	RUN(test_dmon_all_groups_dt);
	RUN(test_dmon_csv);
	RUN(test_pmon_rtx4080_load);
	RUN(test_pmon_h200_idle);
	RUN(test_pmon_memory_first);
	return harness_done();
}
