/* Prometheus' query API over a memstore, through a real HTTP server. */
#include "api/prom_api.h"
#include "harness.h"
#include "http_client.h"
#include "store/memstore.h"

static int64_t fixed_now(void)
{
	return 1000 * 1000; /* t = 1000 s */
}

struct fixture {
	struct gw_memstore *m;
	struct gw_api api;
	struct gw_http *srv;
	unsigned short port;
	struct gw_http_route routes[GW_API_NROUTES];
};

static void meta(void *ctx, const char *metric, long limit, struct gw_buf *out)
{
	gw_buf_puts(out, limit == 0 ? "{}" : "{\"gpu_temp\":[{\"type\":\"gauge\",\"help\":\"GPU temperature.\",\"unit\":\"\"}]}");
}

static int setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->m = gw_memstore_new();
	struct gw_lpair a[] = {{"__name__", "gpu_temp"}, {"gpu", "0"}, {"instance", "n1"}};
	struct gw_lpair b[] = {{"__name__", "gpu_temp"}, {"gpu", "1"}, {"instance", "n1"}};
	struct gw_lpair c[] = {{"__name__", "fb_used"}, {"gpu", "0"}, {"instance", "n1"}};
	long ia = gw_memstore_series(f->m, a, 3), ib = gw_memstore_series(f->m, b, 3),
	     ic = gw_memstore_series(f->m, c, 3);
	for (int i = 0; i <= 100; i++) { /* every 10 s from 0 to 1000 s */
		gw_memstore_append(f->m, ia, i * 10000, 50 + i % 3);
		gw_memstore_append(f->m, ib, i * 10000, 80.5);
		gw_memstore_append(f->m, ic, i * 10000, 1000 * i);
	}
	f->api.q = gw_memstore_querier(f->m);
	f->api.version = "9.9.9";
	f->api.now_ms = fixed_now;
	f->api.metadata = meta;
	gw_api_routes(&f->api, f->routes);
	struct gw_http_opts o = {.listen = "127.0.0.1:0", .routes = f->routes, .nroutes = GW_API_NROUTES};
	struct gw_err err;
	if (gw_http_start(&f->srv, &o, &err) != 0)
		return -1;
	f->port = gw_http_port(f->srv);
	return 0;
}

static void teardown(struct fixture *f)
{
	gw_http_stop(f->srv);
	gw_memstore_free(f->m);
}

static void expect(struct fixture *f, const char *path, int status, const char *body)
{
	char *r = http_get(f->port, path);
	if (http_status(r) != status || strcmp(http_body(r), body) != 0)
		fprintf(stderr, "GET %s\n", path);
	CHECK_INT_EQ(http_status(r), status);
	CHECK_STR_EQ(http_body(r), body);
	free(r);
}

static void test_query(void)
{
	struct fixture f;
	CHECK_INT_EQ(setup(&f), 0);
	expect(&f, "/api/v1/query?query=gpu_temp%7Bgpu%3D%221%22%7D&time=500",
	       200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"__name__\":"
	       "\"gpu_temp\",\"gpu\":\"1\",\"instance\":\"n1\"},\"value\":[500,\"80.5\"]}]}}");
	/* Default time is now; a scalar; RFC 3339 time. */
	expect(&f, "/api/v1/query?query=1%2B1", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1000,\"2\"]}}");
	expect(&f, "/api/v1/query?query=time()&time=1970-01-01T00:01:40.5Z", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[100.500,\"100.5\"]}}");
	expect(&f, "/api/v1/query?query=%22s%22&time=1", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"s\"]}}");
	expect(&f, "/api/v1/query?query=sum(fb_used)%20%2F%200&time=10", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
	       "\"value\":[10,\"+Inf\"]}]}}");
	expect(&f, "/api/v1/query?query=fb_used%5B20s%5D&time=100", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"__name__\":"
	       "\"fb_used\",\"gpu\":\"0\",\"instance\":\"n1\"},\"values\":[[80,\"8000\"],[90,\"9000\"],[100,"
	       "\"10000\"]]}]}}");
	/* POST form, as Grafana sends it. */
	char *r = http_post_form(f.port, "/api/v1/query", "query=avg(gpu_temp)&time=20");
	CHECK_INT_EQ(http_status(r), 200);
	CHECK_STR_EQ(http_body(r), "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":"
				   "{},\"value\":[20,\"66.25\"]}]}}");
	free(r);
	teardown(&f);
}

static void test_query_range(void)
{
	struct fixture f;
	CHECK_INT_EQ(setup(&f), 0);
	expect(&f, "/api/v1/query_range?query=fb_used%2F1000&start=0&end=30&step=15s", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"gpu\":\"0\","
	       "\"instance\":\"n1\"},\"values\":[[0,\"0\"],[15,\"1\"],[30,\"3\"]]}]}}");
	expect(&f, "/api/v1/query_range?query=up&start=0&end=20000&step=1", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"exceeded maximum resolution of 11,000 "
	       "points per timeseries. Try decreasing the query resolution (?step=XX)\"}");
	expect(&f, "/api/v1/query_range?query=up&start=10&end=5&step=1", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"end\\\": end "
	       "timestamp must not be before start time\"}");
	expect(&f, "/api/v1/query_range?query=up&start=0&end=5&step=0", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"step\\\": zero or "
	       "negative query resolution step widths are not accepted. Try a positive integer\"}");
	expect(&f, "/api/v1/query_range?query=up&start=x&end=5&step=1", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"start\\\": cannot "
	       "parse \\\"x\\\" to a valid timestamp\"}");
	expect(&f, "/api/v1/query_range?query=up%5B5m%5D&start=0&end=5&step=1", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid "
	       "expression type \\\"range vector\\\" for range query, must be Scalar or instant Vector\"}");
	teardown(&f);
}

static void test_errors(void)
{
	struct fixture f;
	CHECK_INT_EQ(setup(&f), 0);
	expect(&f, "/api/v1/query?query=sum(", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"query\\\": 1:5: "
	       "parse error: unclosed left parenthesis\"}");
	expect(&f, "/api/v1/query", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"query\\\": "
	       "1:1: parse error: no expression found in input\"}");
	/* An execution error: many-to-many matching. */
	char *r = http_get(f.port, "/api/v1/query?query=gpu_temp%20%2B%20on(instance)%20gpu_temp&time=10");
	CHECK_INT_EQ(http_status(r), 422);
	CHECK(strstr(http_body(r), "\"errorType\":\"execution\"") != NULL);
	free(r);
	teardown(&f);
}

static void test_series_and_labels(void)
{
	struct fixture f;
	CHECK_INT_EQ(setup(&f), 0);
	expect(&f, "/api/v1/labels", 200, "{\"status\":\"success\",\"data\":[\"__name__\",\"gpu\",\"instance\"]}");
	expect(&f, "/api/v1/label/__name__/values", 200, "{\"status\":\"success\",\"data\":[\"fb_used\",\"gpu_temp\"]}");
	expect(&f, "/api/v1/label/gpu/values?match[]=gpu_temp", 200, "{\"status\":\"success\",\"data\":[\"0\",\"1\"]}");
	expect(&f, "/api/v1/label/gpu/values?match[]=fb_used", 200, "{\"status\":\"success\",\"data\":[\"0\"]}");
	expect(&f, "/api/v1/label/gpu/values?start=2000&end=3000", 200, "{\"status\":\"success\",\"data\":[]}");
	expect(&f, "/api/v1/series?match[]=gpu_temp%7Bgpu%3D~%221%7C2%22%7D&match[]=fb_used", 200,
	       "{\"status\":\"success\",\"data\":[{\"__name__\":\"fb_used\",\"gpu\":\"0\",\"instance\":\"n1\"},"
	       "{\"__name__\":\"gpu_temp\",\"gpu\":\"1\",\"instance\":\"n1\"}]}");
	expect(&f, "/api/v1/series", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"no match[] parameter provided\"}");
	expect(&f, "/api/v1/label/bad-name/values", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid label name: \\\"bad-name\\\"\"}");
	expect(&f, "/api/v1/status/buildinfo", 200,
	       "{\"status\":\"success\",\"data\":{\"version\":\"9.9.9\",\"revision\":\"\",\"branch\":\"gpuwatch\","
	       "\"buildUser\":\"\",\"buildDate\":\"\",\"goVersion\":\"\"}}");
	expect(&f, "/api/v1/metadata", 200,
	       "{\"status\":\"success\",\"data\":{\"gpu_temp\":[{\"type\":\"gauge\",\"help\":\"GPU temperature.\","
	       "\"unit\":\"\"}]}}");
	teardown(&f);
}

static void test_time_parsing(void)
{
	int64_t ms;
	CHECK_INT_EQ(gw_api_parse_time("1435781451.781", &ms), 0);
	CHECK_INT_EQ(ms, 1435781451781LL);
	CHECK_INT_EQ(gw_api_parse_time("2015-07-01T20:10:51.781Z", &ms), 0);
	CHECK_INT_EQ(ms, 1435781451781LL);
	CHECK_INT_EQ(gw_api_parse_time("2015-07-01T22:10:51+02:00", &ms), 0);
	CHECK_INT_EQ(ms, 1435781451000LL);
	CHECK(gw_api_parse_time("yesterday", &ms) != 0);
	CHECK(gw_api_parse_time("2015-07-01T20:10:51", &ms) != 0);
	CHECK_INT_EQ(gw_api_parse_duration("15s", &ms), 0);
	CHECK_INT_EQ(ms, 15000);
	CHECK_INT_EQ(gw_api_parse_duration("0.5", &ms), 0);
	CHECK_INT_EQ(ms, 500);
	CHECK(gw_api_parse_duration("5parsecs", &ms) != 0);
	/* An offset must be exactly +hh:mm; nothing past the string is read. */
	CHECK(gw_api_parse_time("2015-07-01T20:10:51+1:2", &ms) != 0);
	CHECK(gw_api_parse_time("2015-07-01T20:10:51+01:2", &ms) != 0);
	CHECK(gw_api_parse_time("2015-07-01T20:10:51+01", &ms) != 0);
	CHECK(gw_api_parse_time("2015-07-01T20:10:51+24:00", &ms) != 0);
	CHECK(gw_api_parse_time("2015-07-01T20:10:51.Z", &ms) != 0);
	CHECK_INT_EQ(gw_api_parse_time("2015-07-01T20:10:51-00:30", &ms), 0);
	CHECK_INT_EQ(ms, 1435783251000LL);
	/* Out of the engine's range: GW_ERANGE, not a wrapped number. */
	CHECK_INT_EQ(gw_api_parse_time("1e300", &ms), GW_ERANGE);
	CHECK_INT_EQ(gw_api_parse_time("-1e300", &ms), GW_ERANGE);
	CHECK_INT_EQ(gw_api_parse_time("inf", &ms), GW_ERANGE);
	CHECK(gw_api_parse_time("nan", &ms) != 0);
	CHECK_INT_EQ(gw_api_parse_time("-9e15", &ms), GW_ERANGE);
	CHECK_INT_EQ(gw_api_parse_time("2e15", &ms), 0);
	CHECK_INT_EQ(ms, 2000000000000000000LL);
	CHECK(gw_api_parse_duration("1e300", &ms) != 0);
	CHECK(gw_api_parse_duration("nan", &ms) != 0);
	CHECK(gw_api_parse_duration("100000000000y", &ms) != 0);
}

/* A POST body "query=" + pre + n * unit + mid + n * close, form-encoded. */
static char *nested_body(const char *unit, size_t n, const char *mid, const char *close)
{
	size_t lu = strlen(unit), lm = strlen(mid), lc = strlen(close);
	char *b = malloc(6 + n * (lu + lc) + lm + 1), *w = b;
	memcpy(w, "query=", 6);
	w += 6;
	for (size_t i = 0; i < n; i++, w += lu)
		memcpy(w, unit, lu);
	memcpy(w, mid, lm);
	w += lm;
	for (size_t i = 0; i < n; i++, w += lc)
		memcpy(w, close, lc);
	*w = '\0';
	return b;
}

static void expect_post_error(struct fixture *f, char *body, const char *want)
{
	char *r = http_post_form(f->port, "/api/v1/query", body);
	CHECK_INT_EQ(http_status(r), 400);
	CHECK(strstr(http_body(r), want) != NULL);
	if (!strstr(http_body(r), want))
		fprintf(stderr, "  body: %.300s\n", http_body(r));
	free(r);
	free(body);
}

/* Requests that once took the server down or misbehaved: each answers with a
 * clear error (or Prometheus' result) and the server keeps answering. */
static void test_hostile_requests(void)
{
	struct fixture f;
	CHECK_INT_EQ(setup(&f), 0);
	/* Date functions of times past int64 (NaN and infinities too): 2.42's
	 * answers, Go's dates of int64's minimum, not a crash. */
	const struct {
		const char *q, *v;
	} far_dates[] = {{"days_in_month(vector(NaN))", "31"}, {"year(vector(1e300))", "292277026596"},
			 {"month(vector(-1e300))", "12"},      {"hour(vector(%2BInf))", "15"},
			 {"day_of_week(vector(-Inf))", "0"},   {"minute(vector(9.3e18))", "30"}};
	for (size_t i = 0; i < sizeof(far_dates) / sizeof(far_dates[0]); i++) {
		char path[200], want[200];
		snprintf(path, sizeof(path), "/api/v1/query?query=%s&time=10", far_dates[i].q);
		snprintf(want, sizeof(want),
			 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
			 "\"value\":[10,\"%s\"]}]}}",
			 far_dates[i].v);
		expect(&f, path, 200, want);
	}
	expect(&f, "/api/v1/query?query=year(vector(1435781451))&time=10", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
	       "\"value\":[10,\"2015\"]}]}}");

	/* Nesting past GW_PQ_MAX_DEPTH, every way the parser recurses or a tree
	 * grows: parentheses, unary minus, right operands, left chains, calls. */
	const char *deep = "parse error: query is nested too deeply: more than 256 levels";
	expect_post_error(&f, nested_body("(", 100000, "1", ")"), deep);
	expect_post_error(&f, nested_body("-", 900000, "1", ""), deep);
	expect_post_error(&f, nested_body("1%2B(", 100000, "1", ""), deep);
	expect_post_error(&f, nested_body("1%2B", 100000, "1", ""), deep);
	expect_post_error(&f, nested_body("abs(", 50000, "gpu_temp", ")"), deep);
	expect_post_error(&f, nested_body("sum(", 50000, "gpu_temp", ")"), deep);
	/* Just inside the bound: evaluated, not refused. */
	char *r, *ok = nested_body("abs(", 250, "gpu_temp%7Bgpu%3D%221%22%7D", ")");
	r = http_post_form(f.port, "/api/v1/query?time=500", ok);
	CHECK_INT_EQ(http_status(r), 200);
	CHECK(strstr(http_body(r), "\"value\":[500,\"80.5\"]") != NULL);
	free(r);
	free(ok);
	ok = nested_body("gpu_temp%20or%20", 250, "gpu_temp", "");
	r = http_post_form(f.port, "/api/v1/query?time=500", ok);
	CHECK_INT_EQ(http_status(r), 200);
	free(r);
	free(ok);

	/* Times: a malformed offset is refused without reading past it; times
	 * and durations past what int64 ms can carry through the engine are
	 * refused, never wrapped. */
	expect(&f, "/api/v1/query?query=1&time=2015-07-01T20:10:51%2B1:2", 400,
	       "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"time\\\": "
	       "Invalid time value for 'time': cannot parse \\\"2015-07-01T20:10:51+1:2\\\" to a valid timestamp\"}");
	const char *too_far = "/api/v1/query?query=time()&time=1e300";
	r = http_get(f.port, too_far);
	CHECK_INT_EQ(http_status(r), 400);
	CHECK(strstr(http_body(r), "timestamp \\\"1e300\\\" out of range") != NULL);
	free(r);
	r = http_get(f.port, "/api/v1/query?query=time()&time=-1e300");
	CHECK_INT_EQ(http_status(r), 400);
	free(r);
	r = http_get(f.port, "/api/v1/query_range?query=1&start=-9.2e15&end=9.2e15&step=1e12");
	CHECK_INT_EQ(http_status(r), 400);
	free(r);
	r = http_get(f.port, "/api/v1/query_range?query=1&start=-2e15&end=2e15&step=1");
	CHECK_INT_EQ(http_status(r), 400);
	CHECK(strstr(http_body(r), "exceeded maximum resolution of 11,000 points") != NULL);
	free(r);
	r = http_get(f.port, "/api/v1/query?query=gpu_temp%20offset%2050000000y&time=10");
	CHECK_INT_EQ(http_status(r), 400);
	CHECK(strstr(http_body(r), "duration out of range") != NULL);
	free(r);
	r = http_get(f.port, "/api/v1/query?query=max_over_time(gpu_temp%5B50000000y%5D)&time=10");
	CHECK_INT_EQ(http_status(r), 400);
	free(r);
	r = http_get(f.port, "/api/v1/query?query=gpu_temp%20%40%201e300&time=10");
	CHECK_INT_EQ(http_status(r), 400);
	CHECK(strstr(http_body(r), "timestamp out of bounds for @ modifier") != NULL);
	free(r);

	/* Empty results through sorts and copies (UBSan once aborted on them). */
	expect(&f, "/api/v1/series?match[]=nothing_here", 200, "{\"status\":\"success\",\"data\":[]}");
	const char *empties[] = {"sort(nothing_here)", "sort_desc(gpu_temp%20%3E%201e9)", "sum(nothing_here)",
				 "topk(2,%20nothing_here)", "quantile(0.5,%20nothing_here)",
				 "count_values(%22v%22,%20nothing_here)", "rate(nothing_here%5B5m%5D)"};
	for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
		char path[200];
		snprintf(path, sizeof(path), "/api/v1/query?query=%s&time=10", empties[i]);
		expect(&f, path, 200,
		       "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}");
	}
	expect(&f, "/api/v1/query?query=vector(1)%2Bvector(2)&time=10", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
	       "\"value\":[10,\"3\"]}]}}");

	/* Still serving after all of it. */
	expect(&f, "/api/v1/query?query=1%2B1&time=10", 200,
	       "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[10,\"2\"]}}");
	teardown(&f);
}

/* Query memory: samples loaded plus a range answer's points count against
 * max_samples with Prometheus' message; a window function over many steps
 * needs memory for one window, not one per step. */
static void test_query_limits(void)
{
	struct fixture f;
	CHECK_INT_EQ(setup(&f), 0);
	const char *too_many = "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing "
			       "would load too many samples into memory in query execution\"}";
	f.api.opts.max_samples = 250; /* 303 samples are stored */
	expect(&f, "/api/v1/query?query=count_over_time(%7B__name__%3D~%22.%2B%22%7D%5B2000s%5D)&time=1000", 422,
	       too_many);
	/* 2 series x 101 steps = 202 answer points (plus 202 loaded): over. */
	expect(&f, "/api/v1/query_range?query=gpu_temp&start=0&end=1000&step=10", 422, too_many);
	/* 2 x 11 points, 22 + loaded, fits. */
	char *r = http_get(f.port, "/api/v1/query_range?query=gpu_temp&start=0&end=1000&step=100");
	CHECK_INT_EQ(http_status(r), 200);
	free(r);
	f.api.opts.max_samples = 0;
	/* 1,001 steps over a 1,000 s window of 101 samples, two series: a copy
	 * per step would need 1.6 MB; 512 KiB is plenty for one reused buffer. */
	f.api.arena_limit = 512 << 10;
	r = http_get(f.port, "/api/v1/query_range?query=quantile_over_time(0.5%2Cgpu_temp%5B1000s%5D)&start=0&end=1000"
			     "&step=1");
	CHECK_INT_EQ(http_status(r), 200);
	CHECK(strstr(http_body(r), "[1000,\"51\"]") != NULL);
	free(r);
	teardown(&f);
}

/* The matrix writer: series that share, skip and add time stamps (the
 * later series copy the first one's text where the stamps are equal). */
static void test_matrix_json(void)
{
	int64_t t0[] = {1000, 2000, 3000, 4500}, t1[] = {500, 2000, 3000, 4500, 5000}, t2[] = {-1500, 3000};
	double v0[] = {1, 2, 3, 4}, v1[] = {0.5, 2.25, 3, 1e21, -7}, v2[] = {9, 8};
	struct gw_lpair la = {"gpu", "0"}, lb = {"gpu", "1"}, lc = {"gpu", "2"};
	struct gw_series ss[3] = {{{&la, 1}, t0, v0, 4}, {{&lb, 1}, t1, v1, 5}, {{&lc, 1}, t2, v2, 2}};
	struct gw_matrix m = {ss, 3};
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	gw_api_json_matrix(&b, &m);
	CHECK_STR_EQ(b.data, "{\"resultType\":\"matrix\",\"result\":["
			     "{\"metric\":{\"gpu\":\"0\"},\"values\":[[1,\"1\"],[2,\"2\"],[3,\"3\"],[4.500,\"4\"]]},"
			     "{\"metric\":{\"gpu\":\"1\"},\"values\":[[0.500,\"0.5\"],[2,\"2.25\"],[3,\"3\"],"
			     "[4.500,\"1e+21\"],[5,\"-7\"]]},"
			     "{\"metric\":{\"gpu\":\"2\"},\"values\":[[-1.500,\"9\"],[3,\"8\"]]}]}");
	gw_buf_release(&b);
}

int main(void)
{
	RUN(test_query);
	RUN(test_query_range);
	RUN(test_errors);
	RUN(test_series_and_labels);
	RUN(test_time_parsing);
	RUN(test_hostile_requests);
	RUN(test_query_limits);
	RUN(test_matrix_json);
	return harness_done();
}
