/*
 * test_report.c - the report's statistics and each finding's detector on
 * synthetic series in a memstore: what triggers a finding, which GPUs and
 * which time range it names, and what stays quiet.
 */
#include "analysis/report_int.h"
#include "store/memstore.h"

#include "../harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0
#define T0 1783072800000LL /* 2026-07-03 10:00:00 UTC */
#define HOUR 3600000LL

typedef double (*val_fn)(int gpu, int64_t s);

static void add(struct gw_memstore *m, const char *name, int gpu, const char *extra_name,
		const char *extra_value, int64_t seconds, int64_t every_s, val_fn f)
{
	char idx[8];
	snprintf(idx, sizeof(idx), "%d", gpu);
	struct gw_lpair l[] = {{"__name__", name},	 {"gpu", idx},	       {"instance", "node1"},
			       {"model", "NVIDIA H200"}, {"uuid", "GPU-test"}, {extra_name, extra_value}};
	long id = gw_memstore_series(m, l, extra_name ? 6 : 5);
	CHECK(id >= 0);
	for (int64_t s = 0; s <= seconds; s += every_s)
		CHECK_INT_EQ(gw_memstore_append(m, id, T0 + s * 1000, f(gpu, s)), 0);
}

static double zero(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 0;
}
static double one(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 1;
}
static double total80(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 80 * GIB;
}
static double held40(int g, int64_t s)
{
	(void)s;
	return g == 0 ? 40 * GIB : 0.2 * GIB;
}
static double util30(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 0.3;
}
static double held_all(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 30 * GIB;
}
static double per_second(int g, int64_t s)
{
	(void)g;
	return (double)s;
}

static struct gw_report *build(struct gw_memstore *m, int64_t from, int64_t to)
{
	struct gw_querier q = gw_memstore_querier(m);
	struct gw_report_opts o = {.from = from, .to = to};
	struct gw_report *r = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_report_build(&q, &o, &r, &err);
	if (rc)
		fprintf(stderr, "build: %s\n", err.msg);
	CHECK_INT_EQ(rc, 0);
	return r;
}

/* The finding of kind k, or NULL; the count of them in *n. */
static const struct gw_report_finding *find(const struct gw_report *r, enum gw_report_kind k, size_t *n)
{
	const struct gw_report_finding *f = NULL;
	size_t c = 0;
	for (size_t i = 0; r && i < r->nfind; i++)
		if (r->find[i].kind == k) {
			f = f ? f : &r->find[i];
			c++;
		}
	if (n)
		*n = c;
	return f;
}

static void test_stat(void)
{
	double v[102], s[102];
	for (int i = 0; i < 100; i++)
		v[i] = i + 1;
	v[100] = NAN;
	v[101] = 50.5;
	struct gw_report_stat st;
	gw_rpt_stat(v, 101, s, &st); /* the NaN left out */
	CHECK_INT_EQ(st.n, 100);
	CHECK_DBL_NEAR(st.mean, 50.5, 1e-12);
	CHECK_DBL_NEAR(st.p50, 50.5, 1e-12);
	CHECK_DBL_NEAR(st.p95, 95.05, 1e-9);
	CHECK_DBL_NEAR(st.min, 1, 0);
	CHECK_DBL_NEAR(st.max, 100, 0);
	gw_rpt_stat(v + 100, 1, s, &st);
	CHECK_INT_EQ(st.n, 0);
	CHECK(isnan(st.mean));
}

static void test_increase_and_weights(void)
{
	int64_t t[] = {0, 1000, 2000, 3000, 4000, 600000};
	double v[] = {0, 5, 10, 2, 4, 4};
	int64_t f, l;
	CHECK_DBL_NEAR(gw_rpt_increase(t, v, 6, &f, &l), 14, 0); /* 10, then 2 after the reset, then 2 */
	CHECK_INT_EQ(f, 1000);
	CHECK_INT_EQ(l, 4000);
	double w[6];
	gw_rpt_weights(t, 6, 300000, w);
	CHECK_DBL_NEAR(w[0], 1, 0);
	CHECK_DBL_NEAR(w[4], 300, 0); /* a gap counts up to the lookback only */
	CHECK_DBL_NEAR(w[5], 1, 0);   /* the last: the median interval */
	double x[] = {0, 1, 2, 3}, y[] = {1, 3, 5, 7};
	struct gw_rpt_fit fit;
	CHECK(gw_rpt_linfit(x, y, 4, &fit));
	CHECK_DBL_NEAR(fit.b, 2, 1e-12);
	CHECK_DBL_NEAR(fit.a, 1, 1e-12);
	CHECK_DBL_NEAR(fit.r2, 1, 1e-12);
}

static void test_idle_allocated(void)
{
	struct gw_memstore *m = gw_memstore_new();
	for (int g = 0; g < 2; g++) {
		add(m, "gpuwatch_utilization_gpu_ratio", g, NULL, NULL, 3600, 1, zero);
		add(m, "gpuwatch_memory_used_bytes", g, NULL, NULL, 3600, 1, held40);
		add(m, "gpuwatch_memory_total_bytes", g, NULL, NULL, 3600, 10, total80);
	}
	struct gw_report *r = build(m, T0, T0 + HOUR);
	size_t n;
	const struct gw_report_finding *f = find(r, GW_RK_IDLE_ALLOCATED, &n);
	CHECK_INT_EQ(n, 1); /* GPU 1 holds 0.2 GiB: not held */
	CHECK(f && f->ngpus == 1 && strcmp(r->gpu[f->gpus[0]].index, "0") == 0);
	CHECK(f && f->from == T0 && f->to == T0 + HOUR);
	CHECK(f && strstr(f->evidence, "40.0 GiB of memory held"));
	CHECK_INT_EQ(r->nfind, 1);
	CHECK_DBL_NEAR(r->gpu[0].idle_s, 3601, 0);
	CHECK_DBL_NEAR(r->gpu[0].stat[GW_RS_MEM].mean, 40 * GIB, 1);
	gw_report_free(r);
	gw_memstore_free(m);
}

static void test_input_bound_low(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, util30);
	add(m, "gpuwatch_memory_used_bytes", 0, NULL, NULL, 3600, 1, held40);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	const struct gw_report_finding *f = find(r, GW_RK_INPUT_BOUND, NULL);
	CHECK(f && strstr(f->evidence, "averaged 30%"));
	CHECK(!find(r, GW_RK_UNSTABLE_UTILIZATION, NULL)); /* steady at 30% */
	gw_report_free(r);
	gw_memstore_free(m);
}

/* Busy, with a 3 s dip every 60 s; GPU 1's dips 30 s later when shifted. */
static int64_t shift_s;
static double dipping(int g, int64_t s)
{
	int64_t k = (s + (g == 1 ? shift_s : 0)) % 60;
	return k < 3 ? 0.0 : 1.0;
}

static void test_sync_stall_and_dips(void)
{
	for (int shifted = 0; shifted < 2; shifted++) {
		shift_s = shifted ? 30 : 0;
		struct gw_memstore *m = gw_memstore_new();
		for (int g = 0; g < 2; g++) {
			add(m, "gpuwatch_utilization_gpu_ratio", g, NULL, NULL, 3600, 1, dipping);
			add(m, "gpuwatch_memory_used_bytes", g, NULL, NULL, 3600, 1, held_all);
			add(m, "gpuwatch_memory_total_bytes", g, NULL, NULL, 3600, 60, total80);
		}
		struct gw_report *r = build(m, T0, T0 + HOUR);
		size_t n;
		const struct gw_report_finding *s = find(r, GW_RK_SYNC_STALL, NULL);
		const struct gw_report_finding *in = find(r, GW_RK_INPUT_BOUND, &n);
		if (!shifted) {
			CHECK(s && s->ngpus == 2);
			CHECK(s && s->from == T0 &&
			      s->to == T0 + HOUR); /* the last dip starts at the last sample */
			CHECK(!in);
		} else {
			CHECK(!s);
			CHECK(in && strstr(in->evidence, "61 times"));
		}
		CHECK_INT_EQ(r->gpu[0].ndips, 61);
		CHECK(!find(r, GW_RK_UNSTABLE_UTILIZATION, NULL));
		gw_report_free(r);
		gw_memstore_free(m);
	}
}

/* GPUs 0 and 2 dip together, GPU 1 at other times */
static double dipping3(int g, int64_t s)
{
	int64_t k = (s + (g == 1 ? 30 : 0)) % 60;
	return k < 3 ? 0.0 : 1.0;
}

static void test_sync_stall_some(void)
{
	struct gw_memstore *m = gw_memstore_new();
	for (int g = 0; g < 3; g++) {
		add(m, "gpuwatch_utilization_gpu_ratio", g, NULL, NULL, 3600, 1, dipping3);
		add(m, "gpuwatch_memory_used_bytes", g, NULL, NULL, 3600, 1, held_all);
	}
	struct gw_report *r = build(m, T0, T0 + HOUR);
	size_t n;
	const struct gw_report_finding *s = find(r, GW_RK_SYNC_STALL, &n);
	CHECK_INT_EQ(n, 1);
	CHECK(s && s->ngpus == 2 && s->gpus[0] == 0 && s->gpus[1] == 2);
	const struct gw_report_finding *in = find(r, GW_RK_INPUT_BOUND, &n);
	CHECK_INT_EQ(n, 1); /* GPU 1's dips are its own */
	CHECK(in && in->ngpus == 1 && in->gpus[0] == 1);
	gw_report_free(r);
	gw_memstore_free(m);
}

static double swinging(int g, int64_t s)
{
	(void)g;
	return 0.3 + 0.25 * sin((double)s * 0.7);
}

static void test_unstable(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, swinging);
	add(m, "gpuwatch_memory_used_bytes", 0, NULL, NULL, 3600, 1, held_all);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	const struct gw_report_finding *f = find(r, GW_RK_UNSTABLE_UTILIZATION, NULL);
	CHECK(f && f->from == T0 && f->to == T0 + HOUR);
	CHECK(f && strstr(f->evidence, "around a mean of 30%"));
	gw_report_free(r);
	gw_memstore_free(m);
}

static double uneven(int g, int64_t s)
{
	(void)s;
	return g == 2 ? 0.5 : 0.9;
}

static void test_imbalance(void)
{
	struct gw_memstore *m = gw_memstore_new();
	for (int g = 0; g < 3; g++) {
		add(m, "gpuwatch_utilization_gpu_ratio", g, NULL, NULL, 3600, 1, uneven);
		add(m, "gpuwatch_memory_used_bytes", g, NULL, NULL, 3600, 1, held_all);
	}
	struct gw_report *r = build(m, T0, T0 + HOUR);
	size_t n;
	const struct gw_report_finding *f = find(r, GW_RK_IMBALANCE, &n);
	CHECK_INT_EQ(n, 1);
	CHECK(f && f->ngpus == 2 && strcmp(r->gpu[f->gpus[1]].index, "2") == 0);
	CHECK(f && strstr(f->evidence, "averaged down to 50%"));
	gw_report_free(r);
	gw_memstore_free(m);
}

static double nearly_full(int g, int64_t s)
{
	(void)g;
	return s >= 1800 && s < 2400 ? 78 * GIB : 60 * GIB;
}
static double leaking(int g, int64_t s)
{
	(void)g;
	return 10 * GIB + (double)s / 3600.0 * 30 * GIB;
}

static void test_memory(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_memory_used_bytes", 0, NULL, NULL, 3600, 1, nearly_full);
	add(m, "gpuwatch_memory_total_bytes", 0, NULL, NULL, 3600, 60, total80);
	add(m, "gpuwatch_utilization_gpu_ratio", 1, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_memory_used_bytes", 1, NULL, NULL, 3600, 1, leaking);
	add(m, "gpuwatch_memory_total_bytes", 1, NULL, NULL, 3600, 60, total80);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	size_t n;
	const struct gw_report_finding *f = find(r, GW_RK_MEMORY_PRESSURE, &n);
	CHECK_INT_EQ(n, 1);
	CHECK(f && strcmp(r->gpu[f->gpus[0]].index, "0") == 0);
	CHECK(f && llabs(f->from - (T0 + 1800000)) <= r->step && llabs(f->to - (T0 + 2399000)) <= r->step);
	CHECK_DBL_NEAR(r->gpu[0].near_full_s, 600, 0);
	f = find(r, GW_RK_MEMORY_LEAK, &n);
	CHECK_INT_EQ(n, 1);
	CHECK(f && strcmp(r->gpu[f->gpus[0]].index, "1") == 0);
	/* 40 GiB at the end, 30 GiB/h: 40 GiB left is 1h 20m */
	CHECK(f && strstr(f->evidence, "+30.00 GiB/h") && strstr(f->evidence, "full in about 1h 20m"));
	gw_report_free(r);
	gw_memstore_free(m);
}

static double gen4(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 4;
}
static double width16(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 16;
}
static double copying(int g, int64_t s)
{
	(void)g;
	return s >= 600 && s < 900 ? 28e9 : 1e8;
}

static void test_pcie_bound(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_pcie_rx_bytes_per_second", 0, NULL, NULL, 3600, 10, copying);
	add(m, "gpuwatch_pcie_link_gen", 0, NULL, NULL, 3600, 10, gen4);
	add(m, "gpuwatch_pcie_link_width", 0, NULL, NULL, 3600, 10, width16);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	CHECK_DBL_NEAR(r->gpu[0].pcie_capacity, 1969e6 * 16, 1);
	const struct gw_report_finding *f = find(r, GW_RK_PCIE_BOUND, NULL);
	CHECK(f && llabs(f->from - (T0 + 600000)) <= r->step && llabs(f->to - (T0 + 900000)) <= 2 * r->step);
	gw_report_free(r);
	gw_memstore_free(m);
}

static double thermal_bits(int g, int64_t s)
{
	(void)g;
	return s >= 1200 && s < 2400 ? 0x20 : 0;
}
static double thermal_counter(int g, int64_t s)
{
	(void)g;
	return s < 1200 ? 0 : s < 2400 ? (double)s - 1200 : 1200;
}
static double limit455(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 455;
}
static double default700(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 700;
}

static void test_throttling(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_clocks_event_reasons", 0, NULL, NULL, 3600, 1, thermal_bits);
	add(m, "gpuwatch_clocks_event_sw_thermal_seconds_total", 0, NULL, NULL, 3600, 1, thermal_counter);
	add(m, "gpuwatch_utilization_gpu_ratio", 1, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_clocks_event_sw_power_cap_seconds_total", 1, NULL, NULL, 3600, 1, per_second);
	add(m, "gpuwatch_power_enforced_limit_watts", 1, NULL, NULL, 3600, 10, limit455);
	add(m, "gpuwatch_power_default_limit_watts", 1, NULL, NULL, 3600, 10, default700);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	const struct gw_report_finding *f = find(r, GW_RK_THERMAL_THROTTLING, NULL);
	CHECK(f && f->ngpus == 1 && strcmp(r->gpu[f->gpus[0]].index, "0") == 0);
	CHECK(f && llabs(f->from - (T0 + 1200000)) <= r->step && llabs(f->to - (T0 + 2399000)) <= r->step);
	CHECK_DBL_NEAR(r->gpu[0].throttle_s[GW_RR_SW_THERMAL], 1200, 0);
	CHECK(r->gpu[0].throttle_counted[GW_RR_SW_THERMAL]);
	f = find(r, GW_RK_POWER_CAPPED, NULL);
	CHECK(f && strcmp(r->gpu[f->gpus[0]].index, "1") == 0);
	CHECK(f && strstr(f->advice, "below the board's default (700 W)"));
	CHECK(!find(r, GW_RK_THERMAL_THROTTLING, NULL) ||
	      find(r, GW_RK_THERMAL_THROTTLING, NULL)->ngpus == 1);
	gw_report_free(r);
	gw_memstore_free(m);
}

static double xid_at_30m(int g, int64_t s)
{
	(void)g;
	return s >= 1800 ? 1 : 0;
}

static void test_hardware(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_xid_errors_total", 0, "xid", "79", 3600, 1, xid_at_30m);
	add(m, "gpuwatch_utilization_gpu_ratio", 1, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_pcie_replays_total", 1, NULL, NULL, 3600, 10, zero);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	size_t n;
	const struct gw_report_finding *f = find(r, GW_RK_HARDWARE, &n);
	CHECK_INT_EQ(n, 1); /* replays that did not grow say nothing */
	CHECK(f && f->from == T0 + 1800000 && f->to == T0 + 1800000);
	CHECK(f && strstr(f->evidence, "1 XID (79)"));
	gw_report_free(r);
	gw_memstore_free(m);
}

static void test_energy_and_render(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add(m, "gpuwatch_utilization_gpu_ratio", 0, NULL, NULL, 3600, 1, one);
	add(m, "gpuwatch_energy_consumed_joules_total", 0, NULL, NULL, 3600, 1, per_second);
	struct gw_querier q = gw_memstore_querier(m);
	struct gw_report_opts o = {.from = T0, .to = T0 + HOUR, .price_per_kwh = 0.5, .currency = "EUR"};
	struct gw_report *r = NULL;
	CHECK_INT_EQ(gw_report_build(&q, &o, &r, NULL), 0);
	CHECK_DBL_NEAR(r->energy_j, 3600, 0);
	CHECK(r->gpu[0].energy_from_counter);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 24);
	for (int fmt = GW_REPORT_TEXT; fmt <= GW_REPORT_HTML; fmt++) {
		gw_buf_reset(&b);
		CHECK_INT_EQ(gw_report_render(r, (enum gw_report_format)fmt, &b), 0);
		CHECK(b.len > 100);
	}
	CHECK(strstr(b.data, "<svg") && !strstr(b.data, "http://") && !strstr(b.data, "<script"));
	gw_buf_reset(&b);
	gw_report_render(r, GW_REPORT_JSON, &b);
	CHECK(strstr(b.data, "\"energy_joules\":3600,"));
	CHECK(strstr(b.data, "\"cost\":0.0005,\"currency\":\"EUR\"}"));
	CHECK(strstr(b.data, "\"index\":0,"));
	gw_buf_release(&b);
	gw_report_free(r);
	/* nothing in the range: a clear error */
	struct gw_err err;
	gw_err_clear(&err);
	o.from = T0 + 2 * HOUR;
	o.to = T0 + 3 * HOUR;
	CHECK_INT_EQ(gw_report_build(&q, &o, &r, &err), GW_ENOTFOUND);
	CHECK(!r && strstr(err.msg, "no GPU samples"));
	int64_t first, last;
	CHECK_INT_EQ(gw_report_data_span(&q, &first, &last, &err), 0);
	CHECK_INT_EQ(first, T0);
	CHECK_INT_EQ(last, T0 + HOUR);
	gw_memstore_free(m);
}

static double power100(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 100;
}

static void add_job(struct gw_memstore *m, const char *job, int gpu, int64_t from_s, int64_t to_s)
{
	char idx[8];
	snprintf(idx, sizeof(idx), "%d", gpu);
	struct gw_lpair l[] = {{"__name__", "gpuwatch_hpc_job_info"},
			       {"gpu", idx},
			       {"hpc_job", job},
			       {"instance", "node1"},
			       {"model", "NVIDIA H200"},
			       {"uuid", "GPU-test"}};
	long id = gw_memstore_series(m, l, 6);
	for (int64_t s = from_s; s <= to_s; s++)
		CHECK_INT_EQ(gw_memstore_append(m, id, T0 + s * 1000, 1), 0);
}

static void test_jobs(void)
{
	struct gw_memstore *m = gw_memstore_new();
	for (int g = 0; g < 2; g++) {
		add(m, "gpuwatch_utilization_gpu_ratio", g, NULL, NULL, 3600, 1, one);
		add(m, "gpuwatch_power_draw_watts", g, NULL, NULL, 3600, 1, power100);
	}
	add_job(m, "A", 0, 0, 3600);
	add_job(m, "B", 0, 1800, 3600);
	add_job(m, "B", 1, 0, 3600);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	CHECK_INT_EQ(r->njobs, 2);
	const struct gw_report_job *a = &r->job[0], *b = &r->job[1];
	CHECK_STR_EQ(a->id, "A");
	CHECK_INT_EQ(a->ngpus, 1);
	CHECK_INT_EQ(b->ngpus, 2);
	/* GPU 0's second half hour is shared: each job gets half its energy */
	CHECK_DBL_NEAR(a->gpu_seconds, 3600, 6);
	CHECK_DBL_NEAR(b->gpu_seconds, 5400, 6);
	CHECK_DBL_NEAR(a->energy_j, 100 * 1800 + 50 * 1800, 600);
	CHECK_DBL_NEAR(b->energy_j, 50 * 1800 + 100 * 3600, 600);
	CHECK_DBL_NEAR(a->energy_j + b->energy_j, 100 * 7200, 600);
	CHECK_DBL_NEAR(b->util_mean, 1, 0);
	CHECK(llabs(b->first - T0) <= r->step && llabs(b->last - (T0 + HOUR)) <= r->step);
	struct gw_buf buf;
	gw_buf_init(&buf, 1 << 22);
	gw_report_render(r, GW_REPORT_JSON, &buf);
	CHECK(strstr(buf.data, "\"jobs\":[{\"hpc_job\":\"A\",\"gpus\":[0]"));
	gw_buf_release(&buf);
	gw_report_free(r);
	gw_memstore_free(m);
}

/* A series of NODE's GPU 0 holding v for 600 s. */
static void add_on(struct gw_memstore *m, const char *node, const char *name, const char *job, double v)
{
	struct gw_lpair l[] = {{"__name__", name}, {"gpu", "0"}, {"instance", node}, {"hpc_job", job}};
	long id = gw_memstore_series(m, l, job ? 4 : 3);
	CHECK(id >= 0);
	for (int64_t s = 0; s <= 600; s++)
		CHECK_INT_EQ(gw_memstore_append(m, id, T0 + s * 1000, v), 0);
}

/* A job on GPU 0 of two nodes (as a Prometheus scraping both holds it): one job, a part per node. */
static void test_jobs_nodes(void)
{
	struct gw_memstore *m = gw_memstore_new();
	const char *node[] = {"a:9400", "b:9400", "c:9400"};
	for (int i = 0; i < 3; i++) {
		add_on(m, node[i], "gpuwatch_utilization_gpu_ratio", NULL, 0.25 * (i + 1));
		add_on(m, node[i], "gpuwatch_power_draw_watts", NULL, 100.0 * (i + 1));
		add_on(m, node[i], "gpuwatch_hpc_job_info", i < 2 ? "J" : "K", 1);
	}
	struct gw_report *r = build(m, T0, T0 + 600000);
	CHECK_INT_EQ(r->njobs, 2);
	const struct gw_report_job *j = &r->job[0];
	CHECK_STR_EQ(j->id, "J");
	CHECK_INT_EQ(j->ngpus, 2);
	CHECK_INT_EQ(j->nnodes, 2);
	CHECK_INT_EQ(r->job[1].nnodes, 1);
	const struct gw_report_job_node *a = &j->node[0], *b = &j->node[1];
	CHECK_STR_EQ(a->instance, "a:9400");
	CHECK_STR_EQ(b->instance, "b:9400");
	CHECK(a->ngpus == 1 && b->ngpus == 1 && a->gpus[0] != b->gpus[0]);
	CHECK_DBL_NEAR(a->util_mean, 0.25, 1e-12);
	CHECK_DBL_NEAR(b->util_mean, 0.5, 1e-12);
	CHECK_DBL_NEAR(j->util_mean, 0.375, 1e-12);
	CHECK_DBL_NEAR(a->energy_j * 2, b->energy_j, 1e-6);
	CHECK_DBL_NEAR(a->energy_j + b->energy_j, j->energy_j, 1e-6);
	CHECK_DBL_NEAR(a->gpu_seconds + b->gpu_seconds, j->gpu_seconds, 1e-9);
	CHECK_DBL_NEAR(a->gpu_seconds, 600, 2);
	struct gw_buf buf;
	gw_buf_init(&buf, 1 << 22);
	gw_report_render(r, GW_REPORT_JSON, &buf);
	CHECK(strstr(buf.data, "\"nodes\":[{\"instance\":\"a:9400\",\"gpus\":[0],"));
	CHECK(strstr(buf.data, "{\"instance\":\"b:9400\",\"gpus\":[0],"));
	gw_buf_reset(&buf);
	gw_report_render(r, GW_REPORT_TEXT, &buf);
	CHECK(strstr(buf.data, "\n  J          2 nodes                0,0"));
	CHECK(strstr(buf.data, "\n             a:9400                 0                     0.17      25.0"));
	CHECK(strstr(buf.data, "\n  K          c:9400                 0  "));
	gw_buf_reset(&buf);
	gw_report_render(r, GW_REPORT_HTML, &buf);
	CHECK(strstr(buf.data, "<tr><td>&nbsp;&nbsp;node b:9400</td><td>0</td>"));
	gw_buf_release(&buf);
	gw_report_free(r);
	gw_memstore_free(m);
}

/* dcgm-exporter's series only: its names, units and labels (as a Prometheus scraping it stores them) */
static void add_dcgm(struct gw_memstore *m, const char *name, int64_t seconds, val_fn f)
{
	struct gw_lpair l[] = {{"Hostname", "node1"},	   {"UUID", "GPU-dcgm"},
			       {"__name__", name},	   {"gpu", "0"},
			       {"instance", "node1:9400"}, {"modelName", "NVIDIA A100-SXM4-80GB"}};
	long id = gw_memstore_series(m, l, 6);
	for (int64_t s = 0; s <= seconds; s++)
		CHECK_INT_EQ(gw_memstore_append(m, id, T0 + s * 1000, f(0, s)), 0);
}

static double pct3(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 3;
}
static double fb_used(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 40000;
}
static double fb_free(int g, int64_t s)
{
	(void)g;
	(void)s;
	return 41000;
}
static double millijoules(int g, int64_t s)
{
	(void)g;
	return (double)s * 100000;
}
static double thermal_ns(int g, int64_t s)
{
	(void)g;
	return (double)s * 1e9;
}

static void test_dcgm_names(void)
{
	struct gw_memstore *m = gw_memstore_new();
	add_dcgm(m, "DCGM_FI_DEV_GPU_UTIL", 3600, pct3);
	add_dcgm(m, "DCGM_FI_DEV_FB_USED", 3600, fb_used);
	add_dcgm(m, "DCGM_FI_DEV_FB_FREE", 3600, fb_free);
	add_dcgm(m, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 3600, millijoules);
	add_dcgm(m, "DCGM_FI_DEV_THERMAL_VIOLATION", 3600, thermal_ns);
	struct gw_report *r = build(m, T0, T0 + HOUR);
	CHECK_INT_EQ(r->ngpus, 1);
	const struct gw_report_gpu *g = &r->gpu[0];
	CHECK_STR_EQ(g->uuid, "GPU-dcgm");
	CHECK_STR_EQ(g->name, "NVIDIA A100-SXM4-80GB");
	CHECK_DBL_NEAR(g->stat[GW_RS_UTIL].mean, 0.03, 1e-12);
	CHECK_DBL_NEAR(g->stat[GW_RS_MEM].max, 40000 * 1048576.0, 0);
	CHECK_DBL_NEAR(g->mem_total, 81000 * 1048576.0, 0);	     /* used + free */
	CHECK_DBL_NEAR(r->energy_j, 360000, 1e-6);		     /* mJ */
	CHECK_DBL_NEAR(g->throttle_s[GW_RR_SW_THERMAL], 3600, 1e-6); /* ns */
	CHECK(find(r, GW_RK_IDLE_ALLOCATED, NULL));
	CHECK(find(r, GW_RK_THERMAL_THROTTLING, NULL));
	gw_report_free(r);
	gw_memstore_free(m);
}

int main(void)
{
	RUN(test_stat);
	RUN(test_increase_and_weights);
	RUN(test_idle_allocated);
	RUN(test_input_bound_low);
	RUN(test_sync_stall_and_dips);
	RUN(test_sync_stall_some);
	RUN(test_unstable);
	RUN(test_imbalance);
	RUN(test_memory);
	RUN(test_pcie_bound);
	RUN(test_throttling);
	RUN(test_hardware);
	RUN(test_energy_and_render);
	RUN(test_jobs);
	RUN(test_jobs_nodes);
	RUN(test_dcgm_names);
	return harness_done();
}
