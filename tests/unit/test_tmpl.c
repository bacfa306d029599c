/*
 * test_tmpl.c - alert templates render byte for byte as Prometheus 2.42
 * renders them. The expected strings in test_tmpl_cases.h are promtool's
 * own renderings and messages (tmpl_promtool.py regenerates them); the
 * data here mirrors what promtool saw: alert "A<i>" on
 * m{case="<i>",gpu="0",instance="h1:9400",job="dcgm"} and `query` over
 * three q series.
 */
#include "harness.h"
#include "rules/tmpl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct render_case {
	const char *tmpl;
	const char *value;
	const char *want;
};

struct parse_case {
	const char *tmpl;
	const char *want;
};

#include "test_tmpl_cases.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

static const struct gw_lpair q_pairs[3][3] = {
    {{"__name__", "q"}, {"gpu", "0"}, {"host", "b"}},
    {{"__name__", "q"}, {"gpu", "1"}, {"host", "a"}},
    {{"__name__", "q"}, {"gpu", "2"}, {"host", "c"}},
};
static const double q_values[3] = {10, 20, 5};

static int fake_query(void *ctx, const char *expr, struct gw_arena *arena, struct gw_vector *out,
		      struct gw_err *err)
{
	int *calls = ctx;
	(*calls)++;
	out->n = 0;
	out->s = gw_arena_alloc(arena, 3 * sizeof(*out->s));
	if (!out->s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (!strcmp(expr, "q")) {
		/* not sorted: templates must not depend on the engine's order */
		static const size_t order[3] = {2, 0, 1};
		for (size_t i = 0; i < 3; i++) {
			out->s[i].labels = (struct gw_labels){q_pairs[order[i]], 3};
			out->s[i].v = q_values[order[i]];
		}
		out->n = 3;
	} else if (!strcmp(expr, "sum(q)")) {
		out->s[0].labels = (struct gw_labels){NULL, 0};
		out->s[0].v = 35;
		out->n = 1;
	} else if (strcmp(expr, "nope") != 0) {
		return gw_err_set(err, GW_EPARSE, "1:1: parse error: unexpected %s", expr);
	}
	return 0;
}

struct case_data {
	char case_no[16];
	struct gw_lpair pairs[5];
	struct gw_tmpl_data d;
	int calls;
};

static void case_data_init(struct case_data *c, size_t i, double value)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->case_no, sizeof(c->case_no), "%zu", i);
	const struct gw_lpair p[5] = {
	    {"__name__", "m"}, {"case", c->case_no}, {"gpu", "0"}, {"instance", "h1:9400"}, {"job", "dcgm"},
	};
	memcpy(c->pairs, p, sizeof(p));
	c->d.labels = (struct gw_labels){c->pairs, 5};
	c->d.value = value;
	c->d.query = fake_query;
	c->d.query_ctx = &c->calls;
}

static void test_promtool_renderings(void)
{
	int failed = 0;
	for (size_t i = 0; i < NCASES(render_cases); i++) {
		const struct render_case *rc = &render_cases[i];
		struct case_data c;
		case_data_init(&c, i, strtod(rc->value, NULL));
		char alert[16];
		snprintf(alert, sizeof(alert), "A%zu", i);
		struct gw_buf out;
		gw_buf_init(&out, 1 << 20);
		struct gw_err err = {0};
		int r = gw_tmpl_expand_alert(alert, rc->tmpl, &c.d, &out, &err);
		const char *got = out.data ? out.data : "";
		if (strcmp(got, rc->want) != 0) {
			fprintf(stderr, "case %zu: %s\n  got:  %s\n  want: %s\n", i, rc->tmpl, got, rc->want);
			failed++;
		}
		/* an error substitutes the message and is returned too */
		CHECK_INT_EQ(r != 0, strncmp(rc->want, "<error expanding template: ", 27) == 0);
		gw_buf_release(&out);
	}
	CHECK_INT_EQ(failed, 0);
	CHECK(NCASES(render_cases) >= 60);
}

static void test_promtool_parse_errors(void)
{
	int failed = 0;
	for (size_t i = 0; i < NCASES(parse_cases); i++) {
		char alert[16];
		snprintf(alert, sizeof(alert), "P%zu", i);
		struct gw_err err = {0};
		int r = gw_tmpl_check(alert, parse_cases[i].tmpl, &err);
		if (r != GW_EPARSE || strcmp(err.msg, parse_cases[i].want) != 0) {
			fprintf(stderr, "parse case %zu: %s\n  got:  %s (%d)\n  want: %s\n", i,
				parse_cases[i].tmpl, err.msg, r, parse_cases[i].want);
			failed++;
		}
	}
	CHECK_INT_EQ(failed, 0);
}

static void test_check_accepts(void)
{
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_tmpl_check("X", "{{ $labels.gpu }} {{ humanize $value }} {{ .Labels | }}", &err), 0);
	CHECK_INT_EQ(gw_tmpl_check("X", "", &err), 0);
}

/* A parse error at run time reads as Prometheus substitutes it. */
static void test_expand_parse_error(void)
{
	struct case_data c;
	case_data_init(&c, 0, 1);
	struct gw_buf out;
	gw_buf_init(&out, 4096);
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_tmpl_expand_alert("HighTemp", "{{ nosuch }}", &c.d, &out, &err), GW_EPARSE);
	CHECK_STR_EQ(out.data,
		     "<error expanding template: error parsing template __alert_HighTemp: template: "
		     "__alert_HighTemp:1: function \"nosuch\" not defined>");
	CHECK_STR_EQ(err.msg,
		     "error parsing template __alert_HighTemp: template: __alert_HighTemp:1: function "
		     "\"nosuch\" not defined");
	gw_buf_release(&out);
}

static void test_plain_name_and_context_cut(void)
{
	struct gw_tmpl *t = NULL;
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_tmpl_parse("ann", "x\n  {{ humanize \"a long string argument\" }}", &t, &err), 0);
	struct case_data c;
	case_data_init(&c, 0, 1);
	struct gw_buf out;
	gw_buf_init(&out, 4096);
	gw_buf_puts(&out, "kept:");
	CHECK_INT_EQ(gw_tmpl_exec(t, &c.d, &out, &err), GW_EINVAL);
	CHECK_STR_EQ(
	    err.msg,
	    "template: ann:2:5: executing \"ann\" at <humanize \"a long string argument\">: error calling "
	    "humanize: strconv.ParseFloat: parsing \"a long string argument\": invalid syntax");
	/* output of a failed execution is taken back */
	CHECK_STR_EQ(out.data, "kept:");
	gw_buf_release(&out);
	gw_tmpl_free(t);
	gw_tmpl_free(NULL);
}

static void test_external_url_and_query_absent(void)
{
	struct case_data c;
	case_data_init(&c, 0, 1);
	c.d.external_url = "https://prom.example.com/sub/path";
	c.d.query = NULL;
	struct gw_buf out;
	gw_buf_init(&out, 4096);
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_tmpl_expand_alert("U", "{{ externalURL }}|{{ pathPrefix }}|{{ $externalURL }}", &c.d,
					  &out, &err),
		     0);
	CHECK_STR_EQ(out.data,
		     "https://prom.example.com/sub/path|/sub/path|https://prom.example.com/sub/path");
	gw_buf_reset(&out);
	CHECK(gw_tmpl_expand_alert("U", "{{ query \"up\" }}", &c.d, &out, &err) != 0);
	CHECK_STR_EQ(out.data,
		     "<error expanding template: error executing template __alert_U: template: "
		     "__alert_U:1:115: executing \"__alert_U\" at <query \"up\">: error calling query: "
		     "query not available>");
	gw_buf_release(&out);
}

static void test_external_labels(void)
{
	struct case_data c;
	case_data_init(&c, 0, 1);
	const struct gw_lpair ext[2] = {{"cluster", "eu1"}, {"replica", "a"}};
	c.d.external = (struct gw_labels){ext, 2};
	struct gw_buf out;
	gw_buf_init(&out, 4096);
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_tmpl_expand_alert("E", "{{ $externalLabels.cluster }} {{ .ExternalLabels }}", &c.d,
					  &out, &err),
		     0);
	CHECK_STR_EQ(out.data, "eu1 map[cluster:eu1 replica:a]");
	gw_buf_release(&out);
}

struct shared_exec {
	const struct gw_tmpl *t;
	int mismatches;
};

static void *exec_many(void *arg)
{
	struct shared_exec *se = arg;
	struct case_data c;
	case_data_init(&c, 7, 91.5);
	struct gw_buf out;
	gw_buf_init(&out, 4096);
	struct gw_err err = {0};
	for (int i = 0; i < 2000; i++) {
		gw_buf_reset(&out);
		if (gw_tmpl_exec(se->t, &c.d, &out, &err) != 0 ||
		    strcmp(out.data, "GPU 0 case 7: 91.5 (hot) 1 a 2 c ") != 0)
			se->mismatches++;
	}
	gw_buf_release(&out);
	return NULL;
}

/* One parsed template, executed from two threads at once, as the header allows. */
static void test_exec_from_threads(void)
{
	struct gw_tmpl *t = NULL;
	struct gw_err err = {0};
	CHECK_INT_EQ(
	    gw_tmpl_parse("thr",
			  "GPU {{ .Labels.gpu }} case {{ .Labels.case }}: {{ .Value }} "
			  "({{ if gt .Value 90.0 }}hot{{ else }}ok{{ end }}) "
			  "{{ range sortByLabel \"host\" (query \"q\") }}{{ if ne .Labels.host \"b\" }}"
			  "{{ .Labels.gpu }} {{ .Labels.host }} {{ end }}{{ end }}",
			  &t, &err),
	    0);
	if (!t)
		return;
	struct shared_exec a = {t, 0}, b = {t, 0};
	pthread_t ta, tb;
	pthread_create(&ta, NULL, exec_many, &a);
	pthread_create(&tb, NULL, exec_many, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	CHECK_INT_EQ(a.mismatches + b.mismatches, 0);
	gw_tmpl_free(t);
}

/* A full output buffer fails the expansion instead of cutting it short. */
static void test_output_limit(void)
{
	struct gw_tmpl *t = NULL;
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_tmpl_parse("lim", "abc{{ $.Labels }}", &t, &err), 0);
	struct case_data c;
	case_data_init(&c, 0, 1);
	struct gw_buf out;
	gw_buf_init(&out, 16);
	CHECK_INT_EQ(gw_tmpl_exec(t, &c.d, &out, &err), GW_EOVERFLOW);
	CHECK_INT_EQ(out.len, 0);
	gw_buf_release(&out);
	gw_buf_init(&out, 1024);
	CHECK_INT_EQ(gw_tmpl_exec(t, &c.d, &out, &err), 0);
	CHECK_STR_EQ(out.data, "abcmap[__name__:m case:0 gpu:0 instance:h1:9400 job:dcgm]");
	gw_buf_release(&out);
	gw_tmpl_free(t);
}

/* A parsed template runs many times without parsing again: microseconds each. */
static void test_exec_is_cheap(void)
{
	struct gw_tmpl *t = NULL;
	struct gw_err err = {0};
	CHECK_INT_EQ(
	    gw_tmpl_parse(
		"__alert_GpuHot",
		"{{$labels := .Labels}}{{$value := .Value}}GPU {{ $labels.gpu }} on "
		"{{ $labels.instance }} is at {{ $value | humanize }}°C ({{ printf \"%.1f\" $value }})",
		&t, &err),
	    0);
	if (!t)
		return;
	struct case_data c;
	case_data_init(&c, 0, 87.25);
	struct gw_buf out;
	gw_buf_init(&out, 4096);
	struct timespec a, b;
	const int n = 20000;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		gw_buf_reset(&out);
		gw_tmpl_exec(t, &c.d, &out, &err);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / n;
	CHECK_STR_EQ(out.data, "GPU 0 on h1:9400 is at 87.25°C (87.2)");
	fprintf(stderr, "exec: %.2f us per annotation\n", us);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n / 10; i++) {
		gw_buf_reset(&out);
		gw_tmpl_expand_alert("GpuHot", "GPU {{ $labels.gpu }} at {{ $value | humanize }}°C", &c.d,
				     &out, &err);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us_expand =
	    ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / (n / 10);
	CHECK_STR_EQ(out.data, "GPU 0 at 87.25°C");
	fprintf(stderr, "expand (parse + exec): %.2f us per annotation\n", us_expand);
	CHECK(us < 200); /* generous: sanitizer builds on shared machines */
	gw_buf_release(&out);
	gw_tmpl_free(t);
}

int main(void)
{
	RUN(test_promtool_renderings);
	RUN(test_promtool_parse_errors);
	RUN(test_check_accepts);
	RUN(test_expand_parse_error);
	RUN(test_plain_name_and_context_cut);
	RUN(test_external_url_and_query_absent);
	RUN(test_external_labels);
	RUN(test_exec_from_threads);
	RUN(test_output_limit);
	RUN(test_exec_is_cheap);
	return harness_done();
}
