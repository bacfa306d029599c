/*
 * test_report_scrape.c - the report's inference servers (report_scrape.c)
 * on synthetic series in a memstore: which targets are listed, their up
 * share, which counters get rates (Triton's names without _total too),
 * summed over series and across a reset, and the section in each format.
 */
#include "analysis/report_int.h"
#include "store/memstore.h"

#include "../harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T0 1783072800000LL /* 2026-07-03 10:00:00 UTC */
#define SECONDS 3600

/* A series of v(s) every 10 s over the hour. */
static void add(struct gw_memstore *m, const struct gw_lpair *l, size_t n, double (*v)(int64_t s, double k),
		double k)
{
	long id = gw_memstore_series(m, l, n);
	CHECK(id >= 0);
	for (int64_t s = 0; s <= SECONDS; s += 10)
		CHECK_INT_EQ(gw_memstore_append(m, id, T0 + s * 1000, v(s, k)), 0);
}

static double constant(int64_t s, double k)
{
	(void)s;
	return k;
}
static double counter(int64_t s, double k)
{
	return (double)s * k;
}
static double half_up(int64_t s, double k)
{
	(void)k;
	return s < SECONDS / 2 ? 1 : 0;
}
/* k a second, reset to 0 at half time */
static double reset(int64_t s, double k)
{
	return (double)(s < SECONDS / 2 ? s : s - SECONDS / 2) * k;
}

static void fill(struct gw_memstore *m)
{
	const struct gw_lpair gpu[] = {
	    {"__name__", "gpuwatch_utilization_gpu_ratio"}, {"gpu", "0"}, {"instance", "n1"}};
	add(m, gpu, 3, constant, 0.5);
	const struct gw_lpair dur[] = {
	    {"__name__", "scrape_duration_seconds"}, {"job", "triton"}, {"instance", "n1:8002"}};
	add(m, dur, 3, constant, 0.01);
	const struct gw_lpair up[] = {{"__name__", "up"}, {"job", "triton"}, {"instance", "n1:8002"}};
	add(m, up, 3, half_up, 0);
	const char *models[] = {"resnet", "bert"};
	for (int i = 0; i < 2; i++) {
		const struct gw_lpair ok[] = {{"__name__", "nv_inference_request_success"},
					      {"job", "triton"},
					      {"instance", "n1:8002"},
					      {"model", models[i]}};
		add(m, ok, 4, counter, 10 + i * 20); /* 10 and 30 a second: 40 in all */
	}
	const struct gw_lpair tok[] = {
	    {"__name__", "x_tokens_total"}, {"job", "triton"}, {"instance", "n1:8002"}};
	add(m, tok, 3, reset, 2);
	/* a gauge and a histogram's count: no rate */
	const struct gw_lpair util[] = {
	    {"__name__", "nv_gpu_utilization"}, {"job", "triton"}, {"instance", "n1:8002"}};
	add(m, util, 3, constant, 0.7);
	const struct gw_lpair cnt[] = {
	    {"__name__", "nv_request_tokens_count"}, {"job", "triton"}, {"instance", "n1:8002"}};
	add(m, cnt, 3, counter, 1);
	/* the agent's own up (no scrape_duration_seconds): not a scraped server */
	const struct gw_lpair self[] = {{"__name__", "up"}, {"job", "gpuwatch"}, {"instance", "n1"}};
	add(m, self, 3, constant, 1);
}

static const struct gw_report_rate *rate(const struct gw_report_scrape *sc, const char *name)
{
	for (size_t i = 0; i < sc->nrate; i++)
		if (strcmp(sc->rate[i].name, name) == 0)
			return &sc->rate[i];
	return NULL;
}

static void test_inference(void)
{
	struct gw_memstore *m = gw_memstore_new();
	fill(m);
	struct gw_querier q = gw_memstore_querier(m);
	struct gw_report_opts o = {.from = T0, .to = T0 + SECONDS * 1000LL};
	struct gw_report *r = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_report_build(&q, &o, &r, &err), 0);
	if (!r) {
		gw_memstore_free(m);
		return;
	}
	CHECK_INT_EQ(r->nscrapes, 1);
	const struct gw_report_scrape *sc = &r->scrape[0];
	CHECK_STR_EQ(sc->job, "triton");
	CHECK_STR_EQ(sc->instance, "n1:8002");
	CHECK_DBL_NEAR(sc->seconds, SECONDS, 1e-9);
	CHECK_DBL_NEAR(sc->up_ratio, 180.0 / 361.0, 1e-9); /* 180 of the 361 scrapes were before half time */
	CHECK_INT_EQ(sc->nrate, 2);
	const struct gw_report_rate *ok = rate(sc, "nv_inference_request_success");
	CHECK(ok != NULL);
	if (ok) {
		CHECK_STR_EQ(ok->unit, "requests/s");
		CHECK_DBL_NEAR(ok->per_s, 40, 1e-9);
	}
	const struct gw_report_rate *tok = rate(sc, "x_tokens_total");
	CHECK(tok != NULL);
	if (tok) { /* 2 a second over both halves: the reset is counted from 0, as increase() counts it */
		CHECK_STR_EQ(tok->unit, "tokens/s");
		CHECK_DBL_NEAR(tok->increase, 2.0 * (SECONDS - 10), 1e-9);
	}
	struct gw_buf b;
	gw_buf_init(&b, 1 << 24);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_TEXT, &b), 0);
	CHECK(strstr(b.data,
		     "Inference servers (1, scraped by the agent)\n  triton  n1:8002  up 49.9% of 1h") !=
	      NULL);
	CHECK(strstr(
		  b.data,
		  "    nv_inference_request_success                       40 requests/s (144000 in all)\n") !=
	      NULL);
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_JSON, &b), 0);
	CHECK(
	    strstr(b.data, "\"inference\":[{\"job\":\"triton\",\"instance\":\"n1:8002\",\"seconds\":3600,") !=
	    NULL);
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_report_render(r, GW_REPORT_HTML, &b), 0);
	CHECK(strstr(b.data, "<h2>Inference servers (1)</h2>") != NULL);
	gw_buf_release(&b);
	gw_report_free(r);
	gw_memstore_free(m);
}

int main(void)
{
	RUN(test_inference);
	return harness_done();
}
