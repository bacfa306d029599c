/*
 * test_jsonread.c - the strict JSON reader: values and accessors, escapes
 * and UTF-8, numbers without the locale, every malformed or truncated
 * text refused with GW_EPARSE (never a crash), and the depth and size caps.
 */
#include "harness.h"

#include "core/jsonread.h"

#include <locale.h>
#include <stdlib.h>

static struct gw_jdoc *parse(const char *s, int want_rc)
{
	struct gw_jdoc *d = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_jsonread_parse(&d, s, strlen(s), NULL, &err);
	if (rc != want_rc)
		fprintf(stderr, "parse(%.60s): rc %d (%s), want %d\n", s, rc, err.msg, want_rc);
	CHECK_INT_EQ(rc, want_rc);
	CHECK(rc == 0 ? d != NULL : d == NULL);
	if (rc)
		CHECK(err.msg[0] != '\0');
	return d;
}

static void test_values(void)
{
	struct gw_jdoc *d = parse(" {\"a\": [1, -2.5, 3e2, true, false, null], \"b\": {\"c\": \"x\"}, \"e\": {}, \"f\": []} ", 0);
	if (!d)
		return;
	const struct gw_jval *root = gw_jsonread_root(d);
	CHECK_INT_EQ(root->type, GW_JOBJ);
	CHECK_INT_EQ(root->n, 4);
	const struct gw_jval *a = gw_jsonread_get(d, root, "a");
	CHECK(a && a->type == GW_JARR && a->n == 6);
	CHECK_DBL_NEAR(gw_jsonread_at(d, a, 0)->num, 1, 0);
	CHECK_DBL_NEAR(gw_jsonread_at(d, a, 1)->num, -2.5, 0);
	CHECK_DBL_NEAR(gw_jsonread_at(d, a, 2)->num, 300, 0);
	CHECK_INT_EQ(gw_jsonread_at(d, a, 3)->type, GW_JTRUE);
	CHECK_INT_EQ(gw_jsonread_at(d, a, 4)->type, GW_JFALSE);
	CHECK_INT_EQ(gw_jsonread_at(d, a, 5)->type, GW_JNULL);
	CHECK(gw_jsonread_at(d, a, 6) == NULL);
	CHECK_STR_EQ(gw_jsonread_str(gw_jsonread_get(d, gw_jsonread_get(d, root, "b"), "c")), "x");
	CHECK_INT_EQ(gw_jsonread_get(d, root, "e")->n, 0);
	CHECK(gw_jsonread_first(d, gw_jsonread_get(d, root, "f")) == NULL);
	CHECK(gw_jsonread_get(d, root, "zz") == NULL);
	CHECK(gw_jsonread_get(d, a, "a") == NULL); /* not an object */
	CHECK(gw_jsonread_str(gw_jsonread_at(d, a, 0)) == NULL);
	int n = 0;
	for (const struct gw_jval *v = gw_jsonread_first(d, root); v; v = gw_jsonread_next(d, v))
		n++;
	CHECK_INT_EQ(n, 4);
	gw_jsonread_free(d);
	gw_jsonread_free(NULL);
}

static void test_strings(void)
{
	struct gw_jdoc *d = parse("[\"a\\\"b\\\\c\\/d\\n\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\", \"x\\u0000y\", \"\xc3\xa9t\xc3\xa9\"]", 0);
	if (!d)
		return;
	const struct gw_jval *r = gw_jsonread_root(d);
	CHECK_STR_EQ(gw_jsonread_at(d, r, 0)->s, "a\"b\\c/d\n");
	CHECK_STR_EQ(gw_jsonread_at(d, r, 1)->s, "\xc3\xa9\xe2\x82\xac");
	CHECK_STR_EQ(gw_jsonread_at(d, r, 2)->s, "\xf0\x9f\x98\x80");
	CHECK_INT_EQ(gw_jsonread_at(d, r, 3)->len, 3); /* an escaped NUL keeps the length */
	CHECK_STR_EQ(gw_jsonread_at(d, r, 4)->s, "\xc3\xa9t\xc3\xa9");
	gw_jsonread_free(d);
}

static void test_numbers(void)
{
	double v = 0;
	CHECK_INT_EQ(gw_jsonread_number("627.4", 5, &v), 0);
	CHECK(v == 627.4);
	CHECK_INT_EQ(gw_jsonread_number("0.1", 3, &v), 0);
	CHECK(v == 0.1);
	CHECK_INT_EQ(gw_jsonread_number("-1e-3", 5, &v), 0);
	CHECK(v == -0.001);
	CHECK_INT_EQ(gw_jsonread_number("150754820096", 12, &v), 0);
	CHECK(v == 150754820096.0);
	CHECK_INT_EQ(gw_jsonread_number("1796251142.025", 14, &v), 0);
	CHECK_DBL_NEAR(v, 1796251142.025, 1e-6);
	CHECK_INT_EQ(gw_jsonread_number("123456789012345678901234", 24, &v), 0);
	CHECK_DBL_NEAR(v, 1.23456789012345678e23, 1e8);
	CHECK_INT_EQ(gw_jsonread_number("1e400", 5, &v), 0);
	CHECK(isinf(v));
	CHECK_INT_EQ(gw_jsonread_number("NaN", 3, &v), 0);
	CHECK(isnan(v));
	CHECK_INT_EQ(gw_jsonread_number("+Inf", 4, &v), 0);
	CHECK(isinf(v) && v > 0);
	CHECK_INT_EQ(gw_jsonread_number("-Inf", 4, &v), 0);
	CHECK(isinf(v) && v < 0);
	const char *bad[] = {"", "1e", "01", "1.", ".5", "+1", "-", "0x10", "1,5", "nan", "12 "};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT_EQ(gw_jsonread_number(bad[i], strlen(bad[i]), &v), GW_EPARSE);
	/* a decimal comma locale changes nothing (where one is installed) */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		CHECK_INT_EQ(gw_jsonread_number("2.5", 3, &v), 0);
		CHECK(v == 2.5);
		setlocale(LC_NUMERIC, "C");
	}
}

static void test_malformed(void)
{
	const char *bad[] = {
		"", "   ", "{", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "[01]", "[1.]", "[-]",
		"[.5]", "[NaN]", "[Infinity]", "tru", "nul", "\"abc", "\"a\\x\"", "\"a\\u12\"", "\"\\udc00\"",
		"\"\\ud800\"", "\"\\ud800\\u0041\"", "\"a\tb\"", "\"\xff\"", "\"\xc3\"", "{} {}", "[] x", "]",
		"{\"a\":}", "[,1]", "{,}", "{\"a\":1 \"b\":2}", "'a'",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		gw_jsonread_free(parse(bad[i], GW_EPARSE));
	/* embedded NUL outside a string */
	struct gw_jdoc *d = NULL;
	CHECK_INT_EQ(gw_jsonread_parse(&d, "[1,\0 2]", 7, NULL, NULL), GW_EPARSE);
}

/* Every proper prefix of a document is refused, and the message says it ended early. */
static void test_truncated(void)
{
	const char *doc = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":"
			  "{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"gpu\":\"0\"},\"value\":[1796251142.025,\"100\"]}]}}";
	size_t len = strlen(doc);
	for (size_t n = 0; n < len; n++) {
		struct gw_jdoc *d = NULL;
		struct gw_err err;
		gw_err_clear(&err);
		int rc = gw_jsonread_parse(&d, doc, n, NULL, &err);
		if (rc != GW_EPARSE || !strstr(err.msg, "ends early"))
			fprintf(stderr, "prefix %zu: rc %d, %s\n", n, rc, err.msg);
		CHECK(rc == GW_EPARSE && d == NULL && strstr(err.msg, "ends early"));
	}
	struct gw_jdoc *d = NULL;
	CHECK_INT_EQ(gw_jsonread_parse(&d, doc, len, NULL, NULL), 0);
	gw_jsonread_free(d);
}

static void test_caps(void)
{
	char deep[70000];
	for (int n = 1; n <= 65; n++) { /* 64 levels pass, 65 do not */
		memset(deep, '[', (size_t)n);
		memset(deep + n, ']', (size_t)n);
		deep[2 * n] = '\0';
		struct gw_jdoc *d = NULL;
		int rc = gw_jsonread_parse(&d, deep, strlen(deep), NULL, NULL);
		CHECK_INT_EQ(rc, n <= GW_JSON_DEPTH_MAX ? 0 : GW_ERANGE);
		gw_jsonread_free(d);
	}
	memset(deep, '[', sizeof(deep) - 1); /* far deeper than any C stack would survive recursively */
	deep[sizeof(deep) - 1] = '\0';
	struct gw_jdoc *d = NULL;
	CHECK_INT_EQ(gw_jsonread_parse(&d, deep, strlen(deep), NULL, NULL), GW_ERANGE);
	struct gw_json_limits lim = {.max_bytes = 8, .max_depth = 2};
	CHECK_INT_EQ(gw_jsonread_parse(&d, "[1,2,3,4,5]", 11, &lim, NULL), GW_ERANGE);
	CHECK_INT_EQ(gw_jsonread_parse(&d, "[[[1]]]", 7, &lim, NULL), GW_ERANGE);
	CHECK_INT_EQ(gw_jsonread_parse(&d, "[[1]]", 5, &lim, NULL), 0);
	gw_jsonread_free(d);
}

/* Random damage to a valid document: any answer but a crash (ASan watches). */
static void test_mutations(void)
{
	const char *doc = "{\"a\":[1,2.5e3,\"x\\u00e9\",{\"b\":null,\"c\":[true,false]}],\"d\":\"\\ud83d\\ude00\"}";
	size_t len = strlen(doc);
	char buf[128];
	unsigned int seed = 12345, ok = 0;
	const char alphabet[] = "{}[]\",:\\u0123456789eE+-.tfnl \xff\x80";
	for (int i = 0; i < 20000; i++) {
		memcpy(buf, doc, len);
		for (int k = 0; k < 1 + i % 3; k++) {
			seed = seed * 1103515245u + 12345u;
			buf[(seed >> 8) % len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		struct gw_jdoc *d = NULL;
		int rc = gw_jsonread_parse(&d, buf, len, NULL, NULL);
		CHECK(rc == 0 || rc == GW_EPARSE);
		ok += rc == 0;
		gw_jsonread_free(d);
	}
	CHECK(ok > 0); /* some damage leaves valid JSON (a digit for a digit) */
}

int main(void)
{
	RUN(test_values);
	RUN(test_strings);
	RUN(test_numbers);
	RUN(test_malformed);
	RUN(test_truncated);
	RUN(test_caps);
	RUN(test_mutations);
	return harness_done();
}
