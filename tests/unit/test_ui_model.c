/*
 * test_ui_model.c - top's model without a terminal: frames in, current
 * values, history columns, events and the process view out; and the cell
 * formatting (bars, chart rows, reasons) in UTF-8 and ASCII.
 */
#include "harness.h"
#include "fields/fields.h"
#include "fields/fields_table.h"
#include "ui/braille.h"
#include "ui/format.h"
#include "ui/model.h"
#include "ui/proctab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NG 2

struct fake {
	struct gw_gpu ids[NG];
	struct gw_frame_gpu fg[NG];
	struct gw_frame f;
	struct gw_proc procs[3];
};

static void set_int(struct gw_value *vals, const char *field, int64_t i)
{
	const struct gw_field *f = gw_field_find_any(field);
	for (size_t k = 0; k < gw_fields_count(); k++) {
		if (gw_field_at(k) == f) {
			vals[k].state = GW_V_OK;
			vals[k].kind = GW_VK_INT;
			vals[k].i = i;
		}
	}
}

static void fake_init(struct fake *z)
{
	memset(z, 0, sizeof(*z));
	for (unsigned int g = 0; g < NG; g++) {
		z->ids[g].index = g;
		snprintf(z->ids[g].name, sizeof(z->ids[g].name), "NVIDIA H200");
		z->fg[g].gpu = &z->ids[g];
		z->fg[g].v = calloc(gw_fields_count(), sizeof(struct gw_value));
		for (size_t k = 0; k < gw_fields_count(); k++)
			z->fg[g].v[k].state = GW_V_NA;
		set_int(z->fg[g].v, "memory.total", 100LL << 30);
		set_int(z->fg[g].v, "memory.used", 25LL << 30);
		set_int(z->fg[g].v, "power.draw", 350000); /* mW */
	}
	static const unsigned int pids[3] = {300, 100, 200};
	static const uint64_t mib[3] = {10, 30, 20};
	static const char *const names[3] = {"python train.py", "/usr/bin/memhog", "./gpu_burn"};
	for (int i = 0; i < 3; i++) {
		z->procs[i].pid = pids[i];
		z->procs[i].mem_valid = true;
		z->procs[i].used_bytes = mib[i] << 20;
		z->procs[i].compute = true;
		z->procs[i].sm_pct = z->procs[i].mem_pct = -1; /* no sample from the driver */
		snprintf(z->procs[i].name, sizeof(z->procs[i].name), "%s", names[i]);
	}
	z->procs[2].sm_pct = 97;
	snprintf(z->procs[0].attr.slurm_job, sizeof(z->procs[0].attr.slurm_job), "4242");
	snprintf(z->procs[0].attr.user, sizeof(z->procs[0].attr.user), "alice");
	z->fg[0].procs.v = z->procs;
	z->fg[0].procs.n = 2;
	z->fg[1].procs.v = z->procs + 2;
	z->fg[1].procs.n = 1;
	z->f.ngpus = NG;
	z->f.gpus = z->fg;
}

static void fake_free(struct fake *z)
{
	for (unsigned int g = 0; g < NG; g++)
		free(z->fg[g].v);
}

static void tick(struct gw_ui_model *m, struct fake *z, int64_t t_ms, int util0)
{
	bool changed = false;
	z->f.seq++;
	z->f.t_ms = t_ms;
	set_int(z->fg[0].v, "utilization.gpu", util0);
	CHECK_INT_EQ(gw_ui_model_update(m, &z->f, &changed), 0);
	CHECK(changed);
}

static void test_values_and_history(void)
{
	struct fake z;
	struct gw_ui_model m;
	fake_init(&z);
	CHECK_INT_EQ(gw_ui_model_init(&m, 8), 0);
	for (int i = 0; i < 10; i++) /* more than the ring holds: the oldest go */
		tick(&m, &z, 1000 * (i + 1), i * 10);
	CHECK_INT_EQ(m.ngpus, NG);
	CHECK_INT_EQ(m.hist_n, 8);
	double d;
	CHECK(gw_ui_num(&m.gpus[0].cur[GW_UC_UTIL], &d));
	CHECK_DBL_NEAR(d, 90, 1e-9);
	CHECK(!gw_ui_num(&m.gpus[1].cur[GW_UC_UTIL], &d)); /* never set: not valid, not 0 */
	/* every column reads a field of the table, PCIe throughput too (no --query-gpu field) */
	for (int c = 0; c < GW_UC__COUNT; c++)
		CHECK(m.fidx[c] != SIZE_MAX);
	set_int(z.fg[1].v, "pcie.rx_throughput", 8691); /* KB/s */
	set_int(z.fg[1].v, "pcie.tx_throughput", 4217);
	tick(&m, &z, 10500, 90);
	CHECK(gw_ui_num(&m.gpus[1].cur[GW_UC_PCIERX], &d));
	CHECK_DBL_NEAR(d, 8691, 1e-9);
	CHECK(gw_ui_num(&m.gpus[1].cur[GW_UC_PCIETX], &d));
	CHECK_DBL_NEAR(d, 4217, 1e-9);
	bool changed = true;
	CHECK_INT_EQ(gw_ui_model_update(&m, &z.f, &changed), 0); /* same seq */
	CHECK(!changed);
	/* window 4 s ending at 10 s in 4 columns: samples 7..10 s, one per column */
	float s[4];
	gw_ui_hist_series(&m, 0, GW_UM_UTIL, 10000, 4000, s, 4);
	CHECK(isnan(s[0]) || s[0] == 60.0f); /* 6 s is on the edge */
	CHECK_DBL_NEAR(s[3], 90, 1e-6);
	CHECK_DBL_NEAR(s[2], 80, 1e-6);
	/* memory is charted as percent of total */
	gw_ui_hist_series(&m, 0, GW_UM_MEM, 10000, 4000, s, 4);
	CHECK_DBL_NEAR(s[3], 25, 1e-4);
	gw_ui_hist_series(&m, 0, GW_UM_POWER, 10000, 4000, s, 4);
	CHECK_DBL_NEAR(s[3], 350, 1e-4);
	/* two samples in one column: the maximum wins; beyond the ring: no data */
	gw_ui_hist_series(&m, 0, GW_UM_UTIL, 10000, 60000, s, 2);
	CHECK(isnan(s[0]));
	CHECK_DBL_NEAR(s[1], 90, 1e-6);
	gw_ui_model_release(&m);
	fake_free(&z);
}

/*
 * A 1 s refresh charted over 5 minutes in a 200-cell braille chart: 400
 * columns of 0.75 s for 300 samples. Every column from the first sample on
 * has a value, so a steady 100 % draws full cells, not stripes.
 */
static void test_hist_fills_columns(void)
{
	struct fake z;
	struct gw_ui_model m;
	fake_init(&z);
	CHECK_INT_EQ(gw_ui_model_init(&m, 3600), 0);
	for (int i = 1; i <= 300; i++)
		tick(&m, &z, 1000LL * i, i == 150 ? 100 : 60);
	float s[400];
	gw_ui_hist_series(&m, 0, GW_UM_UTIL, 300000, 300000, s, 400);
	CHECK(isnan(s[0])); /* before the first sample, at 1 s */
	int empty = 0, spike = 0;
	for (int c = 1; c < 400; c++) {
		empty += isnan(s[c]);
		spike += s[c] == 100.0f;
	}
	CHECK_INT_EQ(empty, 0);
	CHECK(spike >= 1 && spike <= 2); /* the spike's column, and at most one held until the next sample */
	CHECK_DBL_NEAR(s[399], 60, 1e-6);
	/* drawn: full cells, but for the first, whose left column is the older 60 % at the window's start */
	for (int i = 1; i <= 300; i++)
		tick(&m, &z, 300000 + 1000LL * i, 100);
	gw_ui_hist_series(&m, 0, GW_UM_UTIL, 600000, 300000, s, 400);
	char row[200 * 3 + 1];
	gw_ui_braille_row(row, sizeof(row), s, 200, 0, 100, 0, 1);
	size_t full = 0;
	for (size_t k = 3; k + 2 < strlen(row); k += 3)
		full += memcmp(row + k, "\xe2\xa3\xbf", 3) == 0; /* U+28FF, all eight dots */
	CHECK_INT_EQ(full, 199);
	/* fewer samples than columns: 6 samples 10 s apart over a minute in 120 columns */
	struct gw_ui_model m2;
	CHECK_INT_EQ(gw_ui_model_init(&m2, 64), 0);
	for (int i = 0; i < 6; i++)
		tick(&m2, &z, 1000000 + 10000LL * i, 10 * (i + 1));
	float s2[120];
	gw_ui_hist_series(&m2, 0, GW_UM_UTIL, 1050000, 60000, s2, 120);
	int first = -1;
	for (int c = 0; c < 120 && first < 0; c++)
		if (!isnan(s2[c]))
			first = c;
	CHECK(first >= 19 && first <= 21); /* the first sample, 10 s into the window */
	for (int c = first; c < 120; c++)
		CHECK(!isnan(s2[c]));
	CHECK_DBL_NEAR(s2[first + 1], 10, 1e-6); /* held, not made up */
	CHECK_DBL_NEAR(s2[119], 60, 1e-6);
	gw_ui_model_release(&m2);
	gw_ui_model_release(&m);
	fake_free(&z);
}

/* Holes that are real stay holes: a sample without a value, and a silence of missed ticks. */
static void test_hist_keeps_gaps(void)
{
	struct fake z;
	struct gw_ui_model m;
	fake_init(&z);
	CHECK_INT_EQ(gw_ui_model_init(&m, 3600), 0);
	for (int i = 1; i <= 100; i++)
		tick(&m, &z, 1000LL * i, 50);
	/* a frame whose utilisation is not known (GPU lost, node stale) */
	bool changed;
	z.f.seq++;
	z.f.t_ms = 101000;
	for (size_t k = 0; k < gw_fields_count(); k++)
		z.fg[0].v[k].state = GW_V_NA;
	CHECK_INT_EQ(gw_ui_model_update(&m, &z.f, &changed), 0);
	for (int i = 102; i <= 150; i++)
		tick(&m, &z, 1000LL * i, 50);
	/* then 60 s without a frame */
	for (int i = 211; i <= 300; i++)
		tick(&m, &z, 1000LL * i, 50);
	float s[400];
	gw_ui_hist_series(&m, 0, GW_UM_UTIL, 300000, 300000, s, 400);
	int c100 = (int)(100000LL * 400 / 300001), c101 = (int)(101000LL * 400 / 300001);
	int c102 = (int)(102000LL * 400 / 300001);
	CHECK_DBL_NEAR(s[c100], 50, 1e-6);
	for (int c = c100 + 1; c < c102; c++) /* from 100 s to 102 s: nothing known */
		CHECK(isnan(s[c]));
	CHECK(isnan(s[c101]));
	CHECK_DBL_NEAR(s[c102], 50, 1e-6);
	int c150 = (int)(150000LL * 400 / 300001), c211 = (int)(211000LL * 400 / 300001);
	CHECK_DBL_NEAR(s[c150], 50, 1e-6);
	for (int c = c150 + 1; c < c211; c++)
		CHECK(isnan(s[c]));
	CHECK_DBL_NEAR(s[c211], 50, 1e-6);
	gw_ui_model_release(&m);
	fake_free(&z);
}

static void test_events(void)
{
	struct fake z;
	struct gw_ui_model m;
	fake_init(&z);
	CHECK_INT_EQ(gw_ui_model_init(&m, 16), 0);
	z.fg[1].nxid = 1; /* an XID from before top started is history */
	z.fg[1].xid[0].code = 48;
	z.fg[1].xid[0].count = 1;
	z.fg[1].last_xid = 48;
	tick(&m, &z, 1000, 0);
	CHECK_INT_EQ(m.nevents, 0);
	z.fg[1].xid[0].count = 2;
	z.fg[1].xid[1].code = 79;
	z.fg[1].xid[1].count = 1;
	z.fg[1].nxid = 2;
	z.fg[1].last_xid = 79;
	z.fg[1].lost = true;
	z.fg[0].dbe_events = 1;
	tick(&m, &z, 2000, 0);
	CHECK_INT_EQ(m.nevents, 3);
	const struct gw_ui_event *e = gw_ui_model_event(&m, 0);
	CHECK(e && strstr(e->text, "lost") && e->gpu == 1);
	e = gw_ui_model_event(&m, 1);
	CHECK(e && strcmp(e->text, "XID 79") == 0);
	e = gw_ui_model_event(&m, 2);
	CHECK(e && strcmp(e->text, "ECC DBE +1") == 0 && e->gpu == 0);
	CHECK(gw_ui_model_event(&m, 3) == NULL);
	CHECK(m.gpus[1].lost);
	CHECK_INT_EQ(m.gpus[1].cur[GW_UC_UTIL].state, GW_V_GPU_LOST);
	tick(&m, &z, 3000, 0); /* nothing new */
	CHECK_INT_EQ(m.nevents, 3);
	gw_ui_model_release(&m);
	fake_free(&z);
}

static void test_procs(void)
{
	struct fake z;
	struct gw_ui_model m;
	fake_init(&z);
	CHECK_INT_EQ(gw_ui_model_init(&m, 4), 0);
	tick(&m, &z, 1000, 0);
	CHECK_INT_EQ(m.nprocs, 3);
	size_t idx[3];
	CHECK_INT_EQ(gw_ui_procs_view(&m, "", GW_PC_MEM, true, idx), 3);
	CHECK_INT_EQ(m.procs[idx[0]].pid, 100);
	CHECK_INT_EQ(m.procs[idx[2]].pid, 300);
	CHECK_INT_EQ(gw_ui_procs_view(&m, NULL, GW_PC_PID, false, idx), 3);
	CHECK_INT_EQ(m.procs[idx[0]].pid, 100);
	CHECK_INT_EQ(m.procs[idx[1]].pid, 200);
	CHECK_INT_EQ(gw_ui_procs_view(&m, NULL, GW_PC_GPU, true, idx), 3);
	CHECK_INT_EQ(m.procs[idx[0]].gpu, 1);
	/* filter: any cell, case-insensitive */
	CHECK_INT_EQ(gw_ui_procs_view(&m, "BURN", GW_PC_PID, false, idx), 1);
	CHECK_INT_EQ(m.procs[idx[0]].pid, 200);
	CHECK_INT_EQ(gw_ui_procs_view(&m, "job:4242", GW_PC_PID, false, idx), 1);
	CHECK_INT_EQ(m.procs[idx[0]].pid, 300);
	CHECK_INT_EQ(gw_ui_procs_view(&m, "nobody", GW_PC_PID, false, idx), 0);
	char cell[64];
	gw_ui_pcell(&m.procs[0], GW_PC_OWNER, cell, sizeof(cell));
	CHECK_STR_EQ(cell, "job:4242");
	gw_ui_pcell(&m.procs[0], GW_PC_MEM, cell, sizeof(cell));
	CHECK_STR_EQ(cell, "10MiB");
	gw_ui_pcell(&m.procs[0], GW_PC_SM, cell, sizeof(cell));
	CHECK_STR_EQ(cell, "-"); /* no sample: a dash, not 0 */
	for (size_t i = 0; i < m.nprocs; i++) {
		if (m.procs[i].pid != 200)
			continue;
		gw_ui_pcell(&m.procs[i], GW_PC_SM, cell, sizeof(cell));
		CHECK_STR_EQ(cell, "97");
	}
	CHECK_INT_EQ(gw_ui_procs_view(&m, NULL, GW_PC_SM, true, idx), 3);
	CHECK_INT_EQ(m.procs[idx[0]].pid, 200); /* busiest first */
	gw_ui_model_release(&m);
	fake_free(&z);
}

static void test_format(void)
{
	char buf[256];
	gw_ui_bar(buf, sizeof(buf), 0.5, 10, false);
	CHECK_STR_EQ(buf, "|||||     ");
	gw_ui_bar(buf, sizeof(buf), NAN, 4, false);
	CHECK_STR_EQ(buf, "    ");
	gw_ui_bar(buf, sizeof(buf), 1.0 / 16, 2, true); /* one eighth of the first cell */
	CHECK_STR_EQ(buf, "\u258F ");
	gw_ui_bar(buf, 8, 1.0, 10, true); /* a short buffer cuts between glyphs, never inside */
	CHECK_STR_EQ(buf, "\u2588\u2588");
	float v[4] = {0, 50, 100, NAN};
	gw_ui_chart_row(buf, sizeof(buf), v, 4, 0, 100, 0, 2, true); /* top row */
	CHECK_STR_EQ(buf, "  \u2588 ");
	gw_ui_chart_row(buf, sizeof(buf), v, 4, 0, 100, 1, 2, true); /* bottom row */
	CHECK_STR_EQ(buf, " \u2588\u2588 ");
	gw_ui_chart_row(buf, sizeof(buf), v, 4, 0, 100, 1, 2, false);
	CHECK_STR_EQ(buf, " ## ");
	float tiny[1] = {0.1f};
	gw_ui_chart_row(buf, sizeof(buf), tiny, 1, 0, 100, 0, 1, true); /* a sliver, not blank */
	CHECK_STR_EQ(buf, "\u2581");
	CHECK_INT_EQ(gw_ui_reasons(0x1, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "idle");
	CHECK_INT_EQ(gw_ui_reasons(0x4 | 0x40, buf, sizeof(buf)), 2);
	CHECK_STR_EQ(buf, "pwr-cap hw-therm");
	CHECK_INT_EQ(gw_ui_reasons(0, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "");
	gw_ui_size(32362ULL << 20, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "31.6G");
	gw_ui_size(143771ULL << 20, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "140G");
	gw_ui_size(512ULL << 20, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "512M");
}

/* The health watches and the OOM forecast run on the frames, as `gpuwatch health` and the agent run them. */
static void test_health_and_forecast(void)
{
	struct fake z;
	struct gw_ui_model m;
	fake_init(&z);
	CHECK_INT_EQ(gw_ui_model_init(&m, 64), 0);
	m.forecast_window_ms = 10000; /* a point a 100 ms step at most; ticks here are 1 s */
	for (unsigned int g = 0; g < NG; g++) {
		set_int(z.fg[g].v, "ecc.errors.uncorrected.volatile.total", 0);
		set_int(z.fg[g].v, "memory.free", 75LL << 30);
	}
	tick(&m, &z, 1000, 0);
	for (unsigned int g = 0; g < NG; g++) {
		CHECK(m.gpus[g].health.known);
		CHECK_INT_EQ(m.gpus[g].health.status, GW_HEALTH_PASS);
		CHECK(m.gpus[g].ttf_s < 0);
	}
	CHECK_INT_EQ(m.nevents, 0);
	/* GPU 0 leaks 1 GiB a second; GPU 1 has a double-bit error */
	set_int(z.fg[1].v, "ecc.errors.uncorrected.volatile.total", 2);
	for (int k = 1; k <= 8; k++) {
		set_int(z.fg[0].v, "memory.used", (25LL + k) << 30);
		set_int(z.fg[0].v, "memory.free", (75LL - k) << 30);
		tick(&m, &z, 1000 + k * 1000, 0);
	}
	const struct gw_ui_health *h = &m.gpus[1].health;
	CHECK_INT_EQ(h->status, GW_HEALTH_FAIL);
	CHECK_INT_EQ(h->system[GW_HSYS_MEMORY], GW_HEALTH_FAIL);
	CHECK_INT_EQ(h->system[GW_HSYS_PCIE], GW_HEALTH_PASS);
	CHECK(h->ninc >= 1 && strcmp(h->inc[0].tag, "DBE") == 0 && strstr(h->inc[0].message, "double-bit"));
	CHECK_INT_EQ(m.gpus[0].health.status, GW_HEALTH_PASS);
	const struct gw_ui_event *e = gw_ui_model_event(&m, 0);
	CHECK(e && strcmp(e->text, "health FAIL memory: DBE") == 0 && e->gpu == 1);
	/* 67 GiB free at 1 GiB a second */
	CHECK_DBL_NEAR(m.gpus[0].ttf_s, 67, 0.5);
	CHECK(m.gpus[1].ttf_s < 0);
	gw_ui_model_release(&m);
	fake_free(&z);
}

/* Incident tags, remote answers of /api/v1/health and the forecast's spans. */
static void test_health_text(void)
{
	char buf[32];
	gw_ui_health_tag("DCGM_FR_VOLATILE_DBE_DETECTED", "1 uncorrectable ...", buf, sizeof(buf));
	CHECK_STR_EQ(buf, "DBE");
	gw_ui_health_tag("DCGM_FR_XID_ERROR", "XID 31: a GPU memory page fault", buf, sizeof(buf));
	CHECK_STR_EQ(buf, "XID 31");
	gw_ui_health_tag("DCGM_FR_SOMETHING_NEW", "what", buf, sizeof(buf));
	CHECK_STR_EQ(buf, "SOMETHING_NEW");
	static const struct {
		double s;
		const char *want;
	} spans[] = {{-3, "0s"},    {45.2, "45s"}, {99.4, "99s"},     {99.6, "2m"},
		     {3540, "59m"}, {7200, "2h"},  {5 * 86400, "5d"}, {200 * 86400, ">99d"}};
	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		gw_ui_span(spans[i].s, buf, sizeof(buf));
		CHECK_STR_EQ(buf, spans[i].want);
	}
}

int main(void)
{
	RUN(test_values_and_history);
	RUN(test_hist_fills_columns);
	RUN(test_hist_keeps_gaps);
	RUN(test_events);
	RUN(test_procs);
	RUN(test_format);
	RUN(test_health_and_forecast);
	RUN(test_health_text);
	return harness_done();
}
