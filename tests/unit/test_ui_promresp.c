/*
 * test_ui_promresp.c - the JSON side of reading an API answer: sample
 * values without the locale, labels with escapes and UTF-8, time stamps
 * as integers, reals and numbers too big for either, every malformed or
 * cut answer refused with GW_EPARSE and the right message (never a crash),
 * and the size and depth caps held before the JSON is read.
 * (The answer's shape and the snapshot built from it: test_ui_remote.c.)
 */
#include "harness.h"

#include "ui/promresp.h"
#include "ui/rsnap.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VECTOR(...)                                                                                          \
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" __VA_ARGS__ "]}}"

static const char answer[] = VECTOR(
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"0\",\"Hostname\":"
    "\"n\\u00e9\\ud83d\\ude00\"},"
    "\"value\":[1796251142.025,\"100\"]},"
    "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"gpu\":\"1\"},\"value\":[1796251142,\"-Inf\"]}");

static int parse_n(struct gw_ui_promresp *r, const char *s, size_t n, int want_rc, struct gw_err *err)
{
	gw_err_clear(err);
	int rc = gw_ui_promresp_parse(r, s, n, err);
	if (rc != want_rc)
		fprintf(stderr, "parse(%.60s): rc %d (%s), want %d\n", s, rc, err->msg, want_rc);
	CHECK_INT_EQ(rc, want_rc);
	if (rc)
		CHECK(err->msg[0] != '\0' && r->doc == NULL && r->series == NULL);
	return rc;
}

static int parse(struct gw_ui_promresp *r, const char *s, int want_rc, struct gw_err *err)
{
	return parse_n(r, s, strlen(s), want_rc, err);
}

static void test_values(void)
{
	double v = 0;
	CHECK_INT_EQ(gw_ui_promresp_value("627.4", 5, &v), 0);
	CHECK(v == 627.4);
	CHECK_INT_EQ(gw_ui_promresp_value("0.1", 3, &v), 0);
	CHECK(v == 0.1);
	CHECK_INT_EQ(gw_ui_promresp_value("-1e-3", 5, &v), 0);
	CHECK(v == -0.001);
	CHECK_INT_EQ(gw_ui_promresp_value("150754820096", 12, &v), 0);
	CHECK(v == 150754820096.0);
	CHECK_INT_EQ(gw_ui_promresp_value("1796251142.025", 14, &v), 0);
	CHECK_DBL_NEAR(v, 1796251142.025, 1e-6);
	CHECK_INT_EQ(gw_ui_promresp_value("123456789012345678901234", 24, &v), 0);
	CHECK_DBL_NEAR(v, 1.23456789012345678e23, 1e8);
	CHECK_INT_EQ(gw_ui_promresp_value("1e400", 5, &v), 0);
	CHECK(isinf(v));
	CHECK_INT_EQ(gw_ui_promresp_value("NaN", 3, &v), 0);
	CHECK(isnan(v));
	CHECK_INT_EQ(gw_ui_promresp_value("+Inf", 4, &v), 0);
	CHECK(isinf(v) && v > 0);
	CHECK_INT_EQ(gw_ui_promresp_value("Inf", 3, &v), 0);
	CHECK(isinf(v) && v > 0);
	CHECK_INT_EQ(gw_ui_promresp_value("-Inf", 4, &v), 0);
	CHECK(isinf(v) && v < 0);
	const char *bad[] = {"",     "1e",  "01",  "1.",  ".5",	 "+1",	    "-",
			     "0x10", "1,5", "nan", "12 ", "inf", "Infinity"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT_EQ(gw_ui_promresp_value(bad[i], strlen(bad[i]), &v), GW_EPARSE);
	/* values as Prometheus formats them (shortest round-trip, up to 15 digits): what strtod makes of them
	 */
	const char *exact[] = {"0.99", "29605494784", "1e-05", "0.000123", "3.14159265358979",
			       "97.7", "1.5e+21"};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		CHECK_INT_EQ(gw_ui_promresp_value(exact[i], strlen(exact[i]), &v), 0);
		CHECK(v == strtod(exact[i], NULL));
	}
	/* a decimal comma locale changes nothing (where one is installed) */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		CHECK_INT_EQ(gw_ui_promresp_value("2.5", 3, &v), 0);
		CHECK(v == 2.5);
		struct gw_ui_promresp r;
		struct gw_err err;
		if (parse(&r, VECTOR("{\"metric\":{},\"value\":[12.5,\"0.25\"]}"), 0, &err) == 0) {
			CHECK(r.pts[0].t_ms == 12500 && r.pts[0].v == 0.25);
			gw_ui_promresp_release(&r);
		}
		setlocale(LC_NUMERIC, "C");
	}
}

/* Time stamps: integers, reals and numbers no integer holds all come through as seconds. */
static void test_times(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	if (parse(&r, answer, 0, &err) == 0) {
		CHECK_INT_EQ(r.nseries, 2);
		CHECK_INT_EQ(r.pts[0].t_ms, 1796251142025LL);
		CHECK_INT_EQ(r.pts[1].t_ms, 1796251142000LL); /* an integer */
		CHECK(isinf(r.pts[1].v) && r.pts[1].v < 0);
		gw_ui_promresp_release(&r);
	}
	if (parse(&r, VECTOR("{\"metric\":{},\"value\":[1733160000.5,\"1\"]}"), 0, &err) == 0) {
		CHECK_INT_EQ(r.pts[0].t_ms, 1733160000500LL);
		gw_ui_promresp_release(&r);
	}
	if (parse(&r, VECTOR("{\"metric\":{},\"value\":[-1.5e3,\"1\"]}"), 0, &err) == 0) {
		CHECK_INT_EQ(r.pts[0].t_ms, -1500000LL);
		gw_ui_promresp_release(&r);
	}
	/* past what a long long holds: a number (out of range here), not a syntax error */
	parse(&r, VECTOR("{\"metric\":{},\"value\":[123456789012345678901234,\"1\"]}"), GW_EPARSE, &err);
	CHECK(strstr(err.msg, "time out of range") != NULL);
	/* a huge integer where nothing reads it does not spoil the answer */
	if (parse(&r,
		  "{\"status\":\"success\",\"stats\":{\"n\":123456789012345678901234},\"data\":{"
		  "\"resultType\":\"vector\","
		  "\"result\":[]}}",
		  0, &err) == 0)
		gw_ui_promresp_release(&r);
}

/* Labels decoded: escapes, \u to UTF-8, surrogate pairs, raw UTF-8; an escaped NUL ends the label. */
static void test_labels(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	const char *doc = VECTOR(
	    "{\"metric\":{\"a\":\"a\\\"b\\\\c\\/d\\n\",\"b\":\"\\u00e9\\u20ac\",\"c\":\"\\ud83d\\ude00\","
	    "\"d\":\"x\\u0000y\",\"e\":\"\xc3\xa9t\xc3\xa9\"},\"value\":[1,\"1\"]}");
	if (parse(&r, doc, 0, &err) != 0)
		return;
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "a"), "a\"b\\c/d\n");
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "b"), "\xc3\xa9\xe2\x82\xac");
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "c"), "\xf0\x9f\x98\x80");
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "d"), "x");
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "e"), "\xc3\xa9t\xc3\xa9");
	gw_ui_promresp_release(&r);
}

static void test_malformed(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	/* each in the place of a label's value, so only the JSON is wrong */
	const char *bad[] = {
	    "[1,]",
	    "{\"a\":1,}",
	    "{\"a\" 1}",
	    "{a:1}",
	    "[1 2]",
	    "[01]",
	    "[1.]",
	    "[-]",
	    "[.5]",
	    "[NaN]",
	    "[Infinity]",
	    "\"a\\x\"",
	    "\"a\\u12\"",
	    "\"\\udc00\"",
	    "\"\\ud800\"",
	    "\"\\ud800\\u0041\"",
	    "\"a\tb\"",
	    "\"\xff\"",
	    "\"\xc3\"",
	    "{\"a\":}",
	    "[,1]",
	    "{,}",
	    "{\"a\":1 \"b\":2}",
	    "'a'",
	    "tru",
	    "nul",
	    "x",
	};
	char doc[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(doc, sizeof(doc), VECTOR("{\"metric\":{\"a\":%s},\"value\":[1,\"1\"]}"), bad[i]);
		parse(&r, doc, GW_EPARSE, &err);
		if (!strstr(err.msg, "bad JSON at byte "))
			fprintf(stderr, "bad[%zu]: %s\n", i, err.msg);
		CHECK(strstr(err.msg, "bad JSON at byte ") != NULL);
	}
	const char *whole[] = {"", "   ", "{} {}", "[] x", "]", "<html>502 Bad Gateway</html>"};
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		parse(&r, whole[i], GW_EPARSE, &err);
	parse(&r, "{\"status\":\"success\",\"status\":\"error\"}", GW_EPARSE, &err); /* which one? neither */
	CHECK(strstr(err.msg, "duplicate") != NULL);
	parse_n(&r, "[1,\0 2]", 7, GW_EPARSE, &err); /* a NUL outside a string */
	CHECK(strstr(err.msg, "bad JSON at byte 3") != NULL);
	parse(&r, "[1 2", GW_EPARSE, &err); /* wrong before the end, not cut at it */
	CHECK(strstr(err.msg, "bad JSON at byte 3") != NULL);
	parse(&r, "[]", GW_EPARSE, &err); /* JSON, but not an answer */
	CHECK(strstr(err.msg, "no \"status\"") != NULL);
}

/* Every cut of an answer is refused, and the message says it ended early: top shows it on the node's row. */
static void test_truncated(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	size_t len = strlen(answer);
	for (size_t n = 0; n < len; n++) {
		gw_err_clear(&err);
		int rc = gw_ui_promresp_parse(&r, answer, n, &err);
		if (rc != GW_EPARSE || !strstr(err.msg, "ends early") || !strstr(err.msg, "(truncated?)"))
			fprintf(stderr, "prefix %zu: rc %d, %s\n", n, rc, err.msg);
		CHECK(rc == GW_EPARSE && r.doc == NULL && strstr(err.msg, "ends early") &&
		      strstr(err.msg, "(truncated?)"));
	}
}

static void test_caps(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	static char deep[70000];
	for (int n = 1; n <= GW_UI_PROMRESP_DEPTH_MAX + 1;
	     n++) { /* 64 levels are JSON (but no answer), 65 over the cap */
		memset(deep, '[', (size_t)n);
		memset(deep + n, ']', (size_t)n);
		deep[2 * n] = '\0';
		parse(&r, deep, n <= GW_UI_PROMRESP_DEPTH_MAX ? GW_EPARSE : GW_ERANGE, &err);
	}
	CHECK(strstr(err.msg, "deeper than 64 at byte 64") != NULL);
	memset(deep, '[', sizeof(deep) - 1); /* far past jansson's own 2048 */
	deep[sizeof(deep) - 1] = '\0';
	parse(&r, deep, GW_ERANGE, &err);
	/* brackets inside strings (escaped quotes too) are no nesting */
	char lbl[600];
	memset(lbl, '[', 500);
	memcpy(lbl + 500, "\\\"{{{{", 7);
	char doc[800];
	snprintf(doc, sizeof(doc), VECTOR("{\"metric\":{\"a\":\"%s\"},\"value\":[1,\"1\"]}"), lbl);
	if (parse(&r, doc, 0, &err) == 0) {
		CHECK(strlen(gw_ui_promresp_label(&r, &r.series[0], "a")) == 505);
		gw_ui_promresp_release(&r);
	}
	/* the size cap is checked before a byte is read */
	size_t big = (size_t)GW_UI_PROMRESP_SIZE_MAX + 1;
	char *huge = malloc(big);
	if (huge) {
		memset(huge, ' ', big);
		parse_n(&r, huge, big, GW_ERANGE, &err);
		CHECK(strstr(err.msg, "over the limit") != NULL);
		free(huge);
	}
}

/* Random damage to a real answer: any answer but a crash (ASan watches). */
static void test_mutations(void)
{
	size_t len = strlen(answer);
	char buf[sizeof(answer)];
	unsigned int seed = 12345, ok = 0;
	const char alphabet[] = "{}[]\",:\\u0123456789eE+-.tfnl \xff\x80";
	for (int i = 0; i < 20000; i++) {
		memcpy(buf, answer, len);
		for (int k = 0; k < 1 + i % 3; k++) {
			seed = seed * 1103515245u + 12345u;
			buf[(seed >> 8) % len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		struct gw_ui_promresp r;
		int rc = gw_ui_promresp_parse(&r, buf, len, NULL);
		CHECK(rc == 0 || rc == GW_EPARSE || rc == GW_EINVAL); /* EINVAL: "status" damaged */
		ok += rc == 0;
		if (rc == 0)
			gw_ui_promresp_release(&r);
	}
	CHECK(ok > 0); /* some damage leaves a valid answer (a digit for a digit) */
}

/* An agent's /metrics as --remote reads it: the same series an instant query gives. */
static void test_text(void)
{
	static const char text[] =
	    "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
	    "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
	    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H200\",Hostname=\"n\\\\1\\\"\\nx\"} 42\n"
	    "\n"
	    "  gpuwatch_build_info{version=\"0.1.0\",simulated=\"true\",} 1\r\n"
	    "gpuwatch_pcie_rx_bytes_per_second{ gpu = \"1\" } 1.2e+06 1796251142025\n"
	    "up NaN\n"
	    "# EOF";
	struct gw_ui_promresp r;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, text, strlen(text), 1000, NULL, &err), 0);
	CHECK_INT_EQ(r.nseries, 4);
	CHECK(!r.matrix);
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "__name__"), "DCGM_FI_DEV_GPU_UTIL");
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[0], "Hostname"), "n\\1\"\nx");
	CHECK(r.series[0].npts == 1 && r.series[0].pts[0].v == 42 && r.series[0].pts[0].t_ms == 1000);
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[1], "simulated"), "true");
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[2], "gpu"), "1");
	CHECK(r.series[2].pts[0].v == 1.2e6);
	CHECK_INT_EQ(r.series[2].pts[0].t_ms, 1796251142025LL);
	CHECK(isnan(r.series[3].pts[0].v));
	CHECK(gw_ui_promresp_label(&r, &r.series[3], "gpu") == NULL);
	gw_ui_promresp_release(&r);
	/* empty: no series, no error */
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, "", 0, 1000, NULL, &err), 0);
	CHECK_INT_EQ(r.nseries, 0);
	gw_ui_promresp_release(&r);
}

static bool only_a(const char *name)
{
	return strcmp(name, "a") == 0;
}

/* Families not asked for are skipped unread; a cut last line is read whatever its family. */
static void test_text_keep(void)
{
	static const char text[] = "a{x=\"1\"} 1\nb{x=\"1\" broken\nab 2\na{x=\"2\"} 3\n";
	struct gw_ui_promresp r;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, text, strlen(text), 1000, only_a, &err), 0);
	CHECK_INT_EQ(r.nseries, 2);
	CHECK(r.nseries == 2 && r.series[1].pts[0].v == 3);
	gw_ui_promresp_release(&r);
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, text, strlen(text), 1000, NULL, &err), GW_EPARSE);
	CHECK_STR_EQ(err.msg, "line 2: expected , or } after a label");
	static const char cut[] = "a 1\nb{x=\"";
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, cut, strlen(cut), 1000, only_a, &err), GW_EPARSE);
	CHECK(strstr(err.msg, "truncated?") != NULL);
}

/* What is not an exposition is refused with its line and why; a cut last line says so. */
static void test_text_malformed(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"{\"status\":\"success\"}\n", "line 1: expected a metric name"},
	    {"a 1\nb{x=\"1\",x=\"2\"} 1\n", "line 2: label x given twice"},
	    {"a{x=1} 1\n", "line 1: expected =\"value\" after a label name"},
	    {"a{x=\"1\" y=\"2\"} 1\n", "line 1: expected , or } after a label"},
	    {"a{x=\"\\t\"} 1\n", "line 1: unknown escape \\t in a label value"},
	    {"a{x=\"1\n\"} 1\n", "line 1: unterminated label value"},
	    {"a{x=\"\xff\"} 1\n", "line 1: label x is not UTF-8"},
	    {"a\n", "line 1: no value"},
	    {"a 1,5\n", "line 1: \"1,5\" is not a number"},
	    {"a 1 soon\n", "line 1: \"soon\" is not a time stamp"},
	    {"a 1 2 3\n", "line 1: unexpected text after the value"},
	    {"# TYPE a gauge\na{gpu=\"0\",UUID=\"GPU-", "text ends early at byte 35 (truncated?): line 2: unterminated label value"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gw_ui_promresp r;
		struct gw_err err;
		gw_err_clear(&err);
		CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, bad[i].text, strlen(bad[i].text), 1000, NULL, &err), GW_EPARSE);
		CHECK_STR_EQ(err.msg, bad[i].msg);
		CHECK(r.doc == NULL && r.series == NULL);
	}
}

/* An agent's /api/v1/health answer: verdicts, incidents with their tags, each system's worst; bad ones
 * refused. */
static void test_health_answer(void)
{
	static const char good[] =
	    "{\"overall\":\"fail\",\"gpus\":[{\"index\":0,\"uuid\":\"GPU-a\",\"status\":\"pass\","
	    "\"incidents\":[]},"
	    "{\"index\":3,\"uuid\":\"GPU-b\",\"status\":\"fail\",\"incidents\":["
	    "{\"system\":\"memory\",\"severity\":\"fail\",\"code\":\"DCGM_FR_VOLATILE_DBE_DETECTED\","
	    "\"message\":\"2 uncorrectable; drain\",\"since\":\"2026-07-03T22:11:10Z\"},"
	    "{\"system\":\"memory\",\"severity\":\"warn\",\"code\":\"DCGM_FR_PENDING_ROW_REMAP\",\"message\":"
	    "\"m\"},"
	    "{\"system\":\"driver\",\"severity\":\"warn\",\"code\":\"DCGM_FR_CONTAINED_ERROR\","
	    "\"message\":\"XID 94: a contained ECC error\"},"
	    "{\"system\":\"future\",\"severity\":\"fail\",\"code\":\"X\",\"message\":\"m\"}]}]}";
	struct gw_ui_rhealth h;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_ui_health_parse(&h, good, strlen(good), &err), 0);
	CHECK_INT_EQ(h.n, 2);
	if (h.n == 2) {
		CHECK(h.gpus[0].h.known && h.gpus[0].h.status == 0 && h.gpus[0].h.ninc == 0);
		const struct gw_ui_health *b = &h.gpus[1].h;
		CHECK_INT_EQ(h.gpus[1].index, 3);
		CHECK_STR_EQ(h.gpus[1].uuid, "GPU-b");
		CHECK_INT_EQ(b->status, 2);
		CHECK_INT_EQ(b->ninc, 3); /* a system this top does not know is left out */
		CHECK_INT_EQ(b->system[GW_HSYS_MEMORY], 2);
		CHECK_INT_EQ(b->system[GW_HSYS_DRIVER], 1);
		CHECK_INT_EQ(b->system[GW_HSYS_PCIE], 0);
		CHECK_STR_EQ(b->inc[0].tag, "DBE");
		CHECK_STR_EQ(b->inc[2].tag, "XID 94");
		CHECK_STR_EQ(b->inc[0].message, "2 uncorrectable; drain");
	}
	gw_ui_rhealth_release(&h);
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"{\"overall\":\"pass\"}", "not a health answer (no \"gpus\" array)"},
	    {"{\"gpus\":[{\"index\":-1,\"status\":\"pass\",\"incidents\":[]}]}",
	     "gpus[0]: expected index, status and incidents"},
	    {"{\"gpus\":[{\"index\":0,\"status\":\"good\",\"incidents\":[]}]}",
	     "gpus[0]: expected index, status and incidents"},
	    {"{\"gpus\":[{\"index\":0,\"status\":\"pass\",\"incidents\":[{\"system\":\"pcie\"}]}]}",
	     "gpus[0].incidents[0]: expected severity, code and message"},
	    {"{\"gpus\":[", "JSON ends early at byte 9 (truncated?): ']' expected near end of file"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gw_err_clear(&err);
		CHECK_INT_EQ(gw_ui_health_parse(&h, bad[i].text, strlen(bad[i].text), &err), GW_EPARSE);
		CHECK_STR_EQ(err.msg, bad[i].msg);
		CHECK(h.gpus == NULL && h.n == 0);
	}
}

int main(void)
{
	RUN(test_values);
	RUN(test_times);
	RUN(test_labels);
	RUN(test_malformed);
	RUN(test_truncated);
	RUN(test_caps);
	RUN(test_mutations);
	RUN(test_text);
	RUN(test_text_malformed);
	RUN(test_text_keep);
	RUN(test_health_answer);
	return harness_done();
}
