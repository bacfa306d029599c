/*
 * The HTTP API's JSON writer: sample values as Go's
 * strconv.FormatFloat(v, 'f', -1, 64) writes them ('e' outside [1e-6, 1e21)
 * as Prometheus' writer does), and time stamps.
 */
#include "api/json.h"
#include "model/number.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The definition, spelled out the slow way: the fewest significant digits
 * that read back as v (printf picks the closest digits of each length),
 * printed as fixed point, zeros after the last of them as Go pads. */
static void reference(char *out, size_t cap, double v)
{
	char e[40];
	int digits = 1;
	for (; digits <= 17; digits++) {
		snprintf(e, sizeof(e), "%.*e", digits - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	int exp = atoi(strchr(e, 'e') + 1);
	int decimals = digits - 1 - exp;
	if (decimals >= 0) {
		snprintf(out, cap, "%.*f", decimals, v);
		return;
	}
	size_t o = 0;
	for (const char *p = e; *p != 'e'; p++)
		if (*p != '.')
			out[o++] = *p;
	for (int z = 0; z < -decimals; z++)
		out[o++] = '0';
	out[o] = '\0';
	(void)cap;
}

static int check_one(double v)
{
	char want[400], got[400];
	reference(want, sizeof(want), v);
	size_t n = gw_num_format_f(got, sizeof(got), v);
	got[n] = '\0';
	if (strcmp(want, got) != 0) {
		uint64_t bits;
		memcpy(&bits, &v, sizeof(bits));
		fprintf(stderr, "  value %.17g (bits %016llx): want %s, got %s\n", v, (unsigned long long)bits,
			want, got);
		return 1;
	}
	return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_known_values(void)
{
	struct {
		double v;
		const char *s;
	} cases[] = {
		{0, "0"},         {-0.0, "-0"},           {1, "1"},
		{-1, "-1"},       {0.1, "0.1"},           {423.117, "423.117"},
		{1e-7, "0.0000001"}, {123456789, "123456789"}, {1e21, "1000000000000000000000"}, {1e23, "100000000000000000000000"},
		{0x1p60, "1152921504606847000"},
		{0.3, "0.3"},     {0.1 + 0.2, "0.30000000000000004"}, {2.5e-5, "0.000025"},
		{9007199254740991.0, "9007199254740991"}, {1.0 / 3, "0.3333333333333333"},
		{-73.5, "-73.5"}, {1435781451.781, "1435781451.781"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[400];
		size_t n = gw_num_format_f(got, sizeof(got), cases[i].v);
		got[n] = '\0';
		CHECK_STR_EQ(got, cases[i].s);
	}
}

/* Random bit patterns, random short decimals (the fast path's domain) and
 * values right at its edges, all equal to the definition. */
static void test_matches_definition(void)
{
	int bad = 0;
	for (int i = 0; i < 20000 && bad < 10; i++) {
		uint64_t bits = next();
		double v;
		memcpy(&v, &bits, sizeof(v));
		if (isfinite(v))
			bad += check_one(v);
	}
	static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
	for (int i = 0; i < 40000 && bad < 10; i++) {
		uint64_t r = next();
		double m = (double)(r >> 20 & ((1ULL << (r % 44 + 1)) - 1));
		double v = m / p10[(r >> 8) % 13];
		if (r & 1)
			v = -v;
		bad += check_one(v);
		bad += check_one(nextafter(v, INFINITY));
		bad += check_one((double)(next() >> 11) / 9007199254740992.0); /* [0, 1), 53 bits */
	}
	/* computed values (rates, averages, ratios) at every scale the exact
	 * shortest path takes, its edges and just past them */
	for (int i = 0; i < 60000 && bad < 10; i++) {
		uint64_t r = next(), q = next();
		double v = (double)(r >> 11) / (double)((q >> 40) + 1);
		v = ldexp(frexp(v, &(int){0}), (int)(q % 118) - 62);
		bad += check_one(v) + check_one(nextafter(v, 0)) + check_one(nextafter(v, INFINITY));
	}
	bad += check_one(0x1p-60) + check_one(nextafter(0x1p-60, 0)) + check_one(nextafter(0x1p53, 0));
	for (int k = -64; k < 64 && bad < 10; k++)
		bad += check_one(9007199254740992.0 + 2.0 * k); /* 2^53 ± ulps */
	/* the slow path's search: powers of two (the uneven neighbourhood) and
	 * their neighbours, short and long digit strings far from 1 */
	for (int k = -1074; k <= 1023 && bad < 10; k += 3) {
		double p = ldexp(1, k);
		bad += check_one(p) + check_one(nextafter(p, 0)) + check_one(nextafter(p, INFINITY)) + check_one(1.5 * p);
	}
	static const double odd[] = {1.5e-20, 5e300, 1e23, 8.41e21, 2.2250738585072014e-308, 4.9e-324, 1.7976931348623157e308};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		bad += check_one(odd[i]) + check_one(-odd[i]);
	CHECK_INT_EQ(bad, 0);
}

static void test_value_and_time(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	gw_json_value(&b, NAN);
	gw_json_value(&b, INFINITY);
	gw_json_value(&b, -INFINITY);
	gw_json_value(&b, 627.25);
	gw_buf_putc(&b, ' ');
	gw_json_time(&b, 1435781451781);
	gw_buf_putc(&b, ' ');
	gw_json_time(&b, 1435781451000);
	gw_buf_putc(&b, ' ');
	gw_json_time(&b, 5);
	gw_buf_putc(&b, ' ');
	gw_json_time(&b, -1500);
	gw_buf_putc(&b, ' ');
	gw_json_time(&b, 0);
	CHECK_STR_EQ(b.data, "\"NaN\"\"+Inf\"\"-Inf\"\"627.25\" 1435781451.781 1435781451 0.005 -1.500 0");
	/* Prometheus' writer: an exponent below 1e-6 and from 1e21 up */
	gw_buf_reset(&b);
	const double e[] = {1e21, 9.99e20, 1e-6, 9.9e-7, -1.5e300, 5e-324, 1e100, 0, -1.0442570054008248e95};
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		gw_json_value(&b, e[i]);
		gw_buf_putc(&b, ' ');
	}
	CHECK_STR_EQ(b.data, "\"1e+21\" \"999000000000000000000\" \"0.000001\" \"9.9e-07\" \"-1.5e+300\" \"5e-324\" "
			     "\"1e+100\" \"0\" \"-1.0442570054008248e+95\" ");
	/* ... but an instant query's scalar never has one */
	gw_buf_reset(&b);
	gw_json_scalar(&b, 1e22);
	gw_json_scalar(&b, -1e-7);
	gw_json_scalar(&b, NAN);
	CHECK_STR_EQ(b.data, "\"10000000000000000000000\"\"-0.0000001\"\"NaN\"");
	gw_buf_release(&b);
}

int main(void)
{
	RUN(test_known_values);
	RUN(test_matches_definition);
	RUN(test_value_and_time);
	return harness_done();
}
