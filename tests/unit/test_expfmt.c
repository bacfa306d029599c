/* The exposition writers: escaping, numbers, family layout, negotiation. */
#include "core/err.h"
#include "export/expfmt.h"
#include "export/series.h"
#include "harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The formatting gw_expfmt_number() had before its fast paths: the output must not change. */
static void reference_number(char *out, size_t n, double v)
{
	if (isnan(v))
		snprintf(out, n, "NaN");
	else if (isinf(v))
		snprintf(out, n, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(out, n, "%.0f", v);
	else
		snprintf(out, n, "%.17g", v);
	if (!isnan(v) && !isinf(v) && v != floor(v)) {
		for (int prec = 6; prec < 17; prec++) {
			char t2[64];
			snprintf(t2, sizeof(t2), "%.*g", prec, v);
			double back;
			if (sscanf(t2, "%lf", &back) == 1 && back == v) {
				snprintf(out, n, "%s", t2);
				break;
			}
		}
	}
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Byte for byte what the reference writes, over values of every shape. */
static void test_numbers_like_reference(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 10);
	int bad = 0;
	for (int i = 0; i < 400000 && bad < 5; i++) {
		double v;
		uint64_t r = rnd();
		switch (i % 8) {
		case 0: /* any finite bit pattern */
			memcpy(&v, &r, sizeof(v));
			if (!isfinite(v))
				continue;
			break;
		case 1: /* a measured value in base units */
			v = (double)(r % 100000000) / 1000.0 * (r & 1 ? 1.1 : 1.0 / 3);
			break;
		case 2: /* a ratio */
			v = (double)(r % 10001) / 10000.0;
			break;
		case 3: /* a power of two, where round-tripping is uneven */
			v = ldexp(1.0, (int)(r % 2100) - 1074);
			break;
		case 4: /* a neighbour of a power of two */
			v = nextafter(ldexp(1.0, (int)(r % 200) - 100), (r & 1) ? 0 : INFINITY);
			break;
		case 5: /* integers around the digit-by-digit limit, both signs */
			v = (double)(int64_t)(r % 4000000000000000ULL) - 2e15;
			break;
		case 6: /* short decimals */
			v = (double)(int64_t)(r % 2000001 - 1000000) / pow(10, (double)(r % 9));
			break;
		default: /* joules and seconds: big with a fraction */
			v = (double)(r % 1000000000000ULL) / 1000.0;
			break;
		}
		char want[64];
		reference_number(want, sizeof(want), v);
		gw_buf_reset(&b);
		CHECK_INT_EQ(gw_expfmt_number(&b, v), 0);
		if (!b.data || strcmp(b.data, want) != 0) {
			fprintf(stderr, "value %.17g (%a): got \"%s\", want \"%s\"\n", v, v, b.data ? b.data : "",
				want);
			bad++;
		}
	}
	CHECK_INT_EQ(bad, 0);
	const double edge[] = {-0.0, 1e15, -1e15, 999999999999999.0, 1e15 - 0.5, 5e-324, 2.2250738585072014e-308,
			       0.1 + 0.2, 1e21, 123456789012345678.0, 0.5, -0.25, 1e-7};
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		char want[64];
		reference_number(want, sizeof(want), edge[i]);
		gw_buf_reset(&b);
		gw_expfmt_number(&b, edge[i]);
		CHECK_STR_EQ(b.data, want);
	}
	gw_buf_release(&b);
}

/* Labels written once and reused give exactly the lines a label array gives. */
static void test_prerendered_labels(void)
{
	struct gw_buf a, b, l;
	gw_buf_init(&a, 1 << 16);
	gw_buf_init(&b, 1 << 16);
	gw_buf_init(&l, 1 << 16);
	struct gw_label lab[] = {{"gpu", "0"}, {"model", "x \"y\"\\z\nw"}};
	CHECK_INT_EQ(gw_expfmt_labels(&l, lab, 2), 0);
	struct gw_expfmt w1, w2;
	gw_expfmt_init(&w1, &a, GW_EXPFMT_TEXT);
	gw_expfmt_init(&w2, &b, GW_EXPFMT_TEXT);
	gw_expfmt_family(&w1, "m", "h", GW_METRIC_GAUGE);
	gw_expfmt_family(&w2, "m", "h", GW_METRIC_GAUGE);
	gw_expfmt_sample(&w1, lab, 2, 0.25);
	gw_expfmt_sample_pre(&w2, l.data, l.len, 0.25);
	gw_expfmt_sample_text(&w1, lab, 2, "7.000000");
	gw_expfmt_sample_pre_text(&w2, l.data, l.len, "7.000000");
	gw_expfmt_sample(&w1, NULL, 0, 3);
	gw_expfmt_sample_pre(&w2, "", 0, 3);
	CHECK_INT_EQ(gw_expfmt_finish(&w1), 0);
	CHECK_INT_EQ(gw_expfmt_finish(&w2), 0);
	CHECK_STR_EQ(b.data, a.data);
	CHECK(strstr(b.data, "m{gpu=\"0\",model=\"x \\\"y\\\"\\\\z\\nw\"} 0.25\n") != NULL);
	gw_buf_release(&a);
	gw_buf_release(&b);
	gw_buf_release(&l);
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

static void test_summary(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	struct gw_expfmt w;
	gw_expfmt_init(&w, &b, GW_EXPFMT_OPENMETRICS);
	gw_expfmt_family(&w, "x_latency_seconds", "Latency.", GW_METRIC_SUMMARY);
	struct gw_label l = {"am", "http://a\"b"};
	gw_expfmt_sample_suffix(&w, "_sum", &l, 1, 0.25);
	gw_expfmt_sample_suffix(&w, "_count", &l, 1, 2);
	CHECK_INT_EQ(gw_expfmt_finish(&w), 0);
	CHECK_STR_EQ(b.data, "# HELP x_latency_seconds Latency.\n"
			     "# TYPE x_latency_seconds summary\n"
			     "x_latency_seconds_sum{am=\"http://a\\\"b\"} 0.25\n"
			     "x_latency_seconds_count{am=\"http://a\\\"b\"} 2\n"
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

/* DCGM values are stored as "%f" prints them: six decimals, read back. */
static void test_round6_like_printf(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t bad = 0, n = 0;
	char buf[400];
	const double fixed[] = {0.0000005,  0.0000015,	2.5e-7,	    -0.0000005, 0.1234565, 999999.9999995,
				1000000.5e-6, 1e6,	1e6 + 0.5e-6, 123456789.1234565, 1e300, -0.0,
				5e-324,	    0.8684358651472648, 0.4799999999999773, 20263319.570545822};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++, n++) {
		snprintf(buf, sizeof(buf), "%f", fixed[i]);
		double want = strtod(buf, NULL), got = gw_series_round6(fixed[i]);
		if (memcmp(&want, &got, sizeof(got)) != 0) {
			fprintf(stderr, "round6(%.17g) = %.17g, printf says %s\n", fixed[i], got, buf);
			bad++;
		}
	}
	for (int i = 0; i < 400000; i++, n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v;
		switch (i % 4) {
		case 0: /* ratios and percentages */
			v = (double)(x >> 11) / 9007199254740992.0;
			break;
		case 1: /* a value right at a six-decimal tie, or next to one */
			v = ((double)(x % 2000000000) + 0.5) / 1e6 + (double)((int)(x >> 60) - 8) * 1e-17;
			break;
		case 2: /* bytes per second, watts, joules */
			v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (double)(x % 12));
			break;
		default: /* any bit pattern that is a finite double */
			memcpy(&v, &x, sizeof(v));
			if (!isfinite(v))
				v = 1.5;
		}
		snprintf(buf, sizeof(buf), "%f", v);
		double want = strtod(buf, NULL), got = gw_series_round6(v);
		if (memcmp(&want, &got, sizeof(got)) != 0 && !(want == 0 && got == 0)) {
			if (bad < 5)
				fprintf(stderr, "round6(%.17g) = %.17g, printf says %s\n", v, got, buf);
			bad++;
		}
	}
	CHECK_INT_EQ(bad, 0);
	CHECK(n > 400000);
	CHECK(isnan(gw_series_round6(NAN)));
	CHECK(isinf(gw_series_round6(INFINITY)));
}

int main(void)
{
	RUN(test_text_family);
	RUN(test_escaping);
	RUN(test_numbers);
	RUN(test_numbers_like_reference);
	RUN(test_prerendered_labels);
	RUN(test_openmetrics_counter);
	RUN(test_summary);
	RUN(test_overflow_is_sticky);
	RUN(test_negotiate);
	RUN(test_round6_like_printf);
	return harness_done();
}
