/* The exposition writers: escaping, numbers, family layout, negotiation. */
#include "core/err.h"
#include "export/expfmt.h"
#include "harness.h"

#include <math.h>

static void test_text_family(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	struct gw_expfmt w;
	gw_expfmt_init(&w, &b, GW_EXPFMT_TEXT);
	gw_expfmt_family(&w, "DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", GW_METRIC_GAUGE);
	struct gw_label l[] = {{"gpu", "0"}, {"UUID", "GPU-1"}, {"modelName", "NVIDIA H200"}};
	gw_expfmt_sample(&w, l, 3, 52);
	CHECK_INT_EQ(gw_expfmt_finish(&w), 0);
	CHECK_STR_EQ(b.data, "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
			     "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
			     "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H200\"} 52\n");
	gw_buf_release(&b);
}

static void test_escaping(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	struct gw_expfmt w;
	gw_expfmt_init(&w, &b, GW_EXPFMT_TEXT);
	gw_expfmt_family(&w, "x", "a \\ b\nc \"q\"", GW_METRIC_GAUGE);
	struct gw_label l[] = {{"v", "a\\b\"c\nd"}};
	gw_expfmt_sample(&w, l, 1, 1);
	CHECK_STR_EQ(b.data, "# HELP x a \\\\ b\\nc \"q\"\n# TYPE x gauge\nx{v=\"a\\\\b\\\"c\\nd\"} 1\n");
	gw_buf_release(&b);
}

static void test_numbers(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 10);
	const struct {
		double v;
		const char *s;
	} cases[] = {{0, "0"},          {-3, "-3"},        {627.4, "627.4"},     {0.1, "0.1"},
		     {1e20, "1e+20"},   {NAN, "NaN"},      {INFINITY, "+Inf"},   {-INFINITY, "-Inf"},
		     {1.0 / 3, "0.3333333333333333"}, {150754820096.0, "150754820096"}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gw_buf_reset(&b);
		CHECK_INT_EQ(gw_expfmt_number(&b, cases[i].v), 0);
		CHECK_STR_EQ(b.data, cases[i].s);
	}
	gw_buf_release(&b);
}

static void test_openmetrics_counter(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	struct gw_expfmt w;
	gw_expfmt_init(&w, &b, GW_EXPFMT_OPENMETRICS);
	gw_expfmt_family(&w, "gpuwatch_energy_consumed_joules_total", "Energy.", GW_METRIC_COUNTER);
	gw_expfmt_sample(&w, NULL, 0, 12.5);
	CHECK_INT_EQ(gw_expfmt_finish(&w), 0);
	CHECK_STR_EQ(b.data, "# HELP gpuwatch_energy_consumed_joules Energy.\n"
			     "# TYPE gpuwatch_energy_consumed_joules counter\n"
			     "gpuwatch_energy_consumed_joules_total 12.5\n"
			     "# EOF\n");
	gw_buf_release(&b);
}

static void test_overflow_is_sticky(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 40);
	struct gw_expfmt w;
	gw_expfmt_init(&w, &b, GW_EXPFMT_TEXT);
	gw_expfmt_family(&w, "a_long_metric_name_here", "and a help text that does not fit", GW_METRIC_GAUGE);
	gw_expfmt_sample(&w, NULL, 0, 1);
	CHECK_INT_EQ(gw_expfmt_finish(&w), GW_EOVERFLOW);
	gw_buf_release(&b);
}

static void test_negotiate(void)
{
	CHECK_INT_EQ(gw_expfmt_negotiate(NULL), GW_EXPFMT_TEXT);
	CHECK_INT_EQ(gw_expfmt_negotiate("text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), GW_EXPFMT_TEXT);
	CHECK_INT_EQ(gw_expfmt_negotiate("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
		     GW_EXPFMT_OPENMETRICS);
}

int main(void)
{
	RUN(test_text_family);
	RUN(test_escaping);
	RUN(test_numbers);
	RUN(test_openmetrics_counter);
	RUN(test_overflow_is_sticky);
	RUN(test_negotiate);
	return harness_done();
}
