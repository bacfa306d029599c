/*
 * test_scrape.c - scrape targets and bodies (ingest/scrape.h): --scrape's
 * syntax and what it refuses, the instance a URL names, and a body's
 * samples labelled as Prometheus labels them, all or nothing.
 */
#include "ingest/scrape.h"

#include "harness.h"
#include "promql/ast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_target(void)
{
	struct gw_scrape_target t;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_scrape_target_parse("vllm=http://127.0.0.1:8000/metrics@5s", 15000,
					    gw_promql_duration, &t, &err),
		     0);
	CHECK_STR_EQ(t.job, "vllm");
	CHECK_STR_EQ(t.url, "http://127.0.0.1:8000/metrics");
	CHECK_STR_EQ(t.instance, "127.0.0.1:8000");
	CHECK_INT_EQ(t.interval_ms, 5000);
	CHECK_INT_EQ(t.timeout_ms, 5000);
	/* defaults: job "scrape", the interval given, a timeout of at most 10 s */
	CHECK_INT_EQ(
	    gw_scrape_target_parse("http://gpu-01:8002/metrics", 15000, gw_promql_duration, &t, &err), 0);
	CHECK_STR_EQ(t.job, "scrape");
	CHECK_INT_EQ(t.interval_ms, 15000);
	CHECK_INT_EQ(t.timeout_ms, 10000);
	/* an '@' of user info is the URL's; '=' in a query string is no job */
	CHECK_INT_EQ(gw_scrape_target_parse("http://u:p@h:9/m?a=b", 15000, gw_promql_duration, &t, &err), 0);
	CHECK_STR_EQ(t.job, "scrape");
	CHECK_STR_EQ(t.url, "http://u:p@h:9/m?a=b");
	CHECK_STR_EQ(t.instance, "h:9");
	CHECK_INT_EQ(
	    gw_scrape_target_parse("tgi=https://[::1]/metrics@1m", 15000, gw_promql_duration, &t, &err), 0);
	CHECK_STR_EQ(t.instance, "[::1]:443");
	CHECK_INT_EQ(t.interval_ms, 60000);
	static const char *const bad[][2] = {
	    {"vllm=localhost:8000/metrics", "wants [JOB=]http://"},
	    {"=http://h:1/m", "job name"},
	    {"http://h:1/m@10ms", "100ms or more"},
	    {"http:///metrics", "no host"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gw_err_clear(&err);
		CHECK(gw_scrape_target_parse(bad[i][0], 15000, gw_promql_duration, &t, &err) != 0);
		if (!strstr(err.msg, bad[i][1]))
			fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", bad[i][0], err.msg, bad[i][1]);
		CHECK(strstr(err.msg, bad[i][1]) != NULL);
	}
}

static const char *label(const struct gw_scrape_batch *b, size_t i, const char *name)
{
	const struct gw_scrape_sample *s = &b->s[i];
	for (size_t j = 0; j < s->n; j++)
		if (strcmp(b->l[s->first + j].name, name) == 0)
			return b->l[s->first + j].value;
	return NULL;
}

/* Parse a copy of text into b; the batch's labels point into *body, freed at the next call. */
static int parse(struct gw_scrape_batch *b, char **body, const char *text, const struct gw_scrape_target *t,
		 struct gw_err *err)
{
	size_t len = strlen(text);
	free(*body);
	*body = malloc(len + 1);
	memcpy(*body, text, len + 1);
	gw_err_clear(err);
	return gw_scrape_parse(b, *body, len, t, err);
}

static void test_body(void)
{
	struct gw_scrape_target t;
	struct gw_err err;
	CHECK_INT_EQ(
	    gw_scrape_target_parse("vllm=http://127.0.0.1:8000/metrics", 15000, gw_promql_duration, &t, &err),
	    0);
	struct gw_scrape_batch b;
	gw_scrape_batch_init(&b, 100);
	char *body = NULL;
	const char *text =
	    "# HELP vllm:num_requests_running Requests running.\r\n"
	    "# TYPE vllm:num_requests_running gauge\n"
	    "vllm:num_requests_running{model_name=\"llama\",adapter=\"\"} 4\n"
	    "\n"
	    "vllm:generation_tokens_total{model_name=\"llama\",job=\"inner\",instance=\"pod-7\"} 1e3\n"
	    "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} 12 1700000000000\n"
	    "nan_gauge NaN\n"
	    "req_total{path=\"/a}\\\"\"} 5 # {trace_id=\"x\"} 1 1.7e9";
	CHECK_INT_EQ(parse(&b, &body, text, &t, &err), 0);
	CHECK_INT_EQ(b.ns, 5);
	CHECK_INT_EQ(b.lines, 8);
	CHECK_STR_EQ(label(&b, 0, "__name__"), "vllm:num_requests_running");
	CHECK_STR_EQ(label(&b, 0, "job"), "vllm");
	CHECK_STR_EQ(label(&b, 0, "instance"), "127.0.0.1:8000");
	CHECK(label(&b, 0, "adapter") == NULL); /* empty: no label */
	CHECK_INT_EQ(b.s[0].n, 4);
	CHECK_DBL_NEAR(b.s[1].v, 1000, 0);
	/* the body's own job and instance are kept under exported_* */
	CHECK_STR_EQ(label(&b, 1, "exported_job"), "inner");
	CHECK_STR_EQ(label(&b, 1, "exported_instance"), "pod-7");
	CHECK_STR_EQ(label(&b, 1, "job"), "vllm");
	CHECK_INT_EQ(b.s[1].n, 6);
	CHECK_DBL_NEAR(b.s[2].v, 12, 0); /* the time stamp is dropped, the value kept */
	CHECK(isnan(b.s[3].v));
	/* an OpenMetrics exemplar is dropped; a brace in a label value is the value's */
	CHECK_STR_EQ(label(&b, 4, "path"), "/a}\"");
	CHECK_DBL_NEAR(b.s[4].v, 5, 0);
	/* all or nothing: one bad line fails the scrape and leaves the batch empty */
	CHECK(parse(&b, &body, "a 1\nb{x=\"1\" 2\nc 3\n", &t, &err) == GW_EPARSE);
	CHECK_INT_EQ(b.ns, 0);
	CHECK(strstr(err.msg, "line 2:") != NULL);
	CHECK(parse(&b, &body, "<html>not found</html>\n", &t, &err) == GW_EPARSE);
	/* a NUL byte is no text */
	char bin[] = "a 1\nb\0 2\n";
	gw_err_clear(&err);
	CHECK(gw_scrape_parse(&b, bin, sizeof(bin) - 1, &t, &err) == GW_EPARSE);
	CHECK(strstr(err.msg, "NUL") != NULL);
	/* an empty body is a scrape of nothing, not a failure */
	CHECK_INT_EQ(parse(&b, &body, "", &t, &err), 0);
	CHECK_INT_EQ(b.ns, 0);
	gw_scrape_batch_release(&b);
	free(body);
}

static void test_limit(void)
{
	struct gw_scrape_target t;
	struct gw_err err;
	CHECK_INT_EQ(gw_scrape_target_parse("j=http://h:1/m", 15000, gw_promql_duration, &t, &err), 0);
	struct gw_scrape_batch b;
	gw_scrape_batch_init(&b, 2);
	char *body = NULL;
	CHECK_INT_EQ(parse(&b, &body, "a 1\nb 2\n", &t, &err), 0);
	CHECK_INT_EQ(b.ns, 2);
	CHECK(parse(&b, &body, "a 1\nb 2\nc 3\n", &t, &err) == GW_EOVERFLOW);
	CHECK(strstr(err.msg, "more than 2 samples") != NULL);
	CHECK_INT_EQ(b.ns, 0);
	gw_scrape_batch_release(&b);
	free(body);
}

int main(void)
{
	RUN(test_target);
	RUN(test_body);
	RUN(test_limit);
	return harness_done();
}
