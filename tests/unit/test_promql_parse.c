/* The PromQL parser: structure (through the canonical printer) and errors. */
#include "harness.h"
#include "promql/ast.h"
#include "promql/funcs.h"
#include "promql/print.h"

#include <stdlib.h>

static void ok(const char *q, const char *want, enum gw_pq_type type)
{
	struct gw_pq_node *n = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_promql_parse(q, &n, &err);
	if (rc != 0) {
		fprintf(stderr, "parse(%s) failed: %s\n", q, err.msg);
		CHECK_INT_EQ(rc, 0);
		return;
	}
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	gw_promql_print(&b, n);
	CHECK_STR_EQ(b.data, want);
	if (n->type != type)
		fprintf(stderr, "type of %s: %s\n", q, gw_pq_type_name(n->type));
	CHECK_INT_EQ(n->type, type);
	/* Printing is a fixed point: the printed text parses to the same text. */
	struct gw_pq_node *n2 = NULL;
	CHECK_INT_EQ(gw_promql_parse(b.data, &n2, &err), 0);
	if (n2) {
		struct gw_buf b2;
		gw_buf_init(&b2, 1 << 16);
		gw_promql_print(&b2, n2);
		CHECK_STR_EQ(b2.data, b.data);
		gw_buf_release(&b2);
	}
	gw_promql_free(n2);
	gw_buf_release(&b);
	gw_promql_free(n);
}

static void bad(const char *q, const char *msg_part)
{
	struct gw_pq_node *n = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_promql_parse(q, &n, &err);
	CHECK_INT_EQ(rc, GW_EPARSE);
	CHECK(n == NULL);
	if (!strstr(err.msg, msg_part))
		fprintf(stderr, "parse(%s): error \"%s\" lacks \"%s\"\n", q, err.msg, msg_part);
	CHECK(strstr(err.msg, msg_part) != NULL);
	gw_promql_free(n);
}

#define S GW_PQ_T_SCALAR
#define V GW_PQ_T_VECTOR
#define M GW_PQ_T_MATRIX

static void test_literals(void)
{
	ok("1", "1", S);
	ok("-1.5e3", "-1500", S);
	ok("0x1F", "31", S);
	ok("Inf", "+Inf", S);
	ok("-inf", "-Inf", S);
	ok("NaN", "NaN", S);
	ok("\"a\\nb\"", "\"a\\nb\"", GW_PQ_T_STRING);
	ok("'single'", "\"single\"", GW_PQ_T_STRING);
	ok("`raw\\n`", "\"raw\\\\n\"", GW_PQ_T_STRING);
	ok("\"\\u00e9\"", "\"\xc3\xa9\"", GW_PQ_T_STRING);
}

static void test_selectors(void)
{
	ok("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_TEMP", V);
	ok("foo{a=\"b\", c!=\"d\", e=~\"f.*\", g!~\"h\"}", "foo{a=\"b\", c!=\"d\", e=~\"f.*\", g!~\"h\"}", V);
	ok("{__name__=\"foo\"}", "{__name__=\"foo\"}", V);
	ok("foo{gpu=~\"(0|1)\",}", "foo{gpu=~\"(0|1)\"}", V);
	ok("job:rate5m:sum", "job:rate5m:sum", V);
	ok("foo offset 5m", "foo offset 5m", V);
	ok("foo offset -1h30m", "foo offset -1h30m", V);
	ok("foo @ 1609746000", "foo @ 1609746000.000", V);
	ok("foo @ start()", "foo @ start()", V);
	ok("foo[5m]", "foo[5m]", M);
	ok("foo[1h5m] offset 1d", "foo[1h5m] offset 1d", M);
	ok("foo[90s]", "foo[1m30s]", M);
	ok("rate(foo[5m])[30m:1m]", "rate(foo[5m])[30m:1m]", M);
	ok("foo[10m:]", "foo[10m:]", M);
	ok("{by=\"x\"}", "{by=\"x\"}", V);
}

static void test_operators(void)
{
	ok("1 + 2 * 3", "1 + 2 * 3", S);
	ok("(1 + 2) * 3", "(1 + 2) * 3", S);
	ok("2 ^ 3 ^ 2", "2 ^ 3 ^ 2", S);
	ok("-2 ^ 2", "-2 ^ 2", S);
	ok("a - b - c", "a - b - c", V);
	ok("a / on(gpu) group_left(modelName) b", "a / on(gpu) group_left(modelName) b", V);
	ok("a + ignoring(job) b", "a + ignoring(job) b", V);
	ok("a > bool 5", "a > bool 5", V);
	ok("1 == bool 1", "1 == bool 1", S);
	ok("a and b or c unless d", "a and b or c unless d", V);
	ok("DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_TOTAL * 100 > 90",
	   "DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_TOTAL * 100 > 90", V);
	ok("DCGM_FI_DEV_POWER_USAGE > DCGM_FI_DEV_POWER_LIMIT * 0.95",
	   "DCGM_FI_DEV_POWER_USAGE > DCGM_FI_DEV_POWER_LIMIT * 0.95", V);
	ok("-foo", "-foo", V);
	ok("a atan2 b", "a atan2 b", V);
	ok("a + on() group_right b", "a + on() group_right() b", V);
	ok("a > on() group_left 1", "a > 1", V); /* beside a scalar, 2.42 drops bare matching */
}

static void test_aggregations_and_calls(void)
{
	ok("sum(foo)", "sum(foo)", V);
	ok("sum by (gpu, instance) (foo)", "sum by (gpu, instance) (foo)", V);
	ok("sum(foo) by (gpu)", "sum by (gpu) (foo)", V);
	ok("avg without (job) (foo)", "avg without (job) (foo)", V);
	ok("topk(5, foo)", "topk(5, foo)", V);
	ok("quantile(0.9, rate(foo[5m]))", "quantile(0.9, rate(foo[5m]))", V);
	ok("count_values(\"v\", foo)", "count_values(\"v\", foo)", V);
	ok("sum by () (foo)", "sum by () (foo)", V);
	ok("time()", "time()", S);
	ok("round(foo, 5)", "round(foo, 5)", V);
	ok("round(foo)", "round(foo)", V);
	ok("year()", "year()", V);
	ok("label_join(foo, \"a\", \",\", \"b\", \"c\", \"d\")", "label_join(foo, \"a\", \",\", \"b\", \"c\", \"d\")",
	   V);
	ok("histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))",
	   "histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))", V);
	ok("predict_linear(DCGM_FI_DEV_FB_USED[1h], 4 * 3600)", "predict_linear(DCGM_FI_DEV_FB_USED[1h], 4 * 3600)",
	   V);
	ok("max_over_time(rate(foo[1m])[10m:])", "max_over_time(rate(foo[1m])[10m:])", V);
	ok("rate", "rate", V); /* a metric that shares a function's name */
}

static void test_errors(void)
{
	bad("", "no expression found");
	bad("foo{", "unexpected end of input");
	bad("foo{a=b}", "expected string");
	bad("{}", "at least one non-empty matcher");
	bad("{a=\"\"}", "at least one non-empty matcher");
	bad("foo{__name__=\"bar\"}", "metric name must not be set twice");
	bad("rate(foo)", "expected type range vector in call to function \"rate\", got instant vector");
	bad("sum(foo[5m])", "expected type instant vector in aggregation expression, got range vector");
	bad("nosuchfn(foo)", "unknown function with name \"nosuchfn\"");
	bad("time(1)", "expected 0 argument(s)");
	bad("round(a, 1, 2)", "at most 2 argument(s)");
	bad("1 > 2", "1:3: parse error: comparisons between scalars must use BOOL modifier");
	/* 2.42's positions: an operand's type error at the binary expression's
	 * left operand, the operator's own errors at the operator */
	bad("rate(g + 1)", "1:6: parse error: expected type range vector");
	bad("1 - 2 + on(a) g", "1:1: parse error: vector matching only allowed");
	bad("a + bool b", "1:3: parse error: bool modifier");
	bad("g + on(i) group_left(i) g", "1:3: parse error: label \"i\" must not occur");
	bad("1 and 2", "set operator \"and\" not allowed in binary scalar expression");
	bad("a + bool b", "bool modifier can only be used on comparison operators");
	bad("1 + on(a) 2", "vector matching only allowed between instant vectors");
	bad("a and on(x) group_left b", "no grouping allowed for \"and\" operation");
	bad("a / on(x) group_left(x) b", "must not occur in ON and GROUP clause at once");
	bad("(foo)[5m]", "ranges only allowed for vector selectors");
	bad("foo[5m][5m]", "ranges only allowed for vector selectors");
	bad("foo[5m:1m][1m:]", "subquery is only allowed on instant vector");
	bad("foo offset 5m offset 1m", "offset may not be set multiple times");
	bad("foo @ 1 @ 2", "may not be set multiple times");
	bad("foo[5x]", "bad number or duration syntax");
	bad("foo[1m5h]", "bad number or duration syntax");
	bad("foo + ", "unexpected end of input");
	bad("sum(a, b)", "wrong number of arguments for aggregate expression");
	bad("topk(a)", "wrong number of arguments for aggregate expression");
	bad("\"unterminated", "unterminated quoted string");
	bad("foo bar", "unexpected identifier \"bar\"");
	bad("a - \"s\"", "binary expression must contain only scalar and instant vector types");
	bad("-\"s\"", "unary expression only allowed");
	bad("foo[5m] + 1", "binary expression must contain only scalar and instant vector types");
	bad("sum by (a) by (b) (x)", "unexpected <by> in aggregation");
	bad("sum by (a) (x) by (b)", "only contain one grouping clause");
	bad("5m", "unexpected duration");
	bad("1 +\nfoo{", "2:5: parse error");
}

static void test_func_table_sorted(void)
{
	/* Binary search needs the table sorted: every name finds itself. */
	const char *names[] = {"abs",   "day_of_month", "days_in_month", "label_join", "label_replace",
			       "sort",  "sort_desc",    "time",          "timestamp",  "vector",
			       "year",  "clamp",        "clamp_max",     "clamp_min",  "log10",
			       "log2",  "ln",           "sgn",           "sin",        "sinh"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct gw_pq_func *f = gw_pq_func_find(names[i], strlen(names[i]));
		CHECK(f != NULL);
		if (f)
			CHECK_STR_EQ(f->name, names[i]);
	}
	CHECK(gw_pq_func_find("rat", 3) == NULL);
	CHECK(gw_pq_func_find("rates", 5) == NULL);
}

/* Every expression in Prometheus' own test files parses or fails as they expect. */
static void test_shared_promql_files(void)
{
	const char *dir = getenv("GW_SHARED_DIR");
	const char *files[] = {"aggregators.test", "literals.test", "operators.test", "selectors.test",
			       "staleness.test"};
	size_t parsed = 0, failed = 0;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/promql-tests/%s", dir ? dir : "../shared", files[f]);
		FILE *fp = fopen(path, "r");
		if (!fp) {
			printf("skipped: %s not present\n", path);
			return;
		}
		char line[4096];
		while (fgets(line, sizeof(line), fp)) {
			bool fail_expected = strncmp(line, "eval_fail ", 10) == 0;
			if (strncmp(line, "eval ", 5) != 0 && strncmp(line, "eval_ordered ", 13) != 0 && !fail_expected)
				continue;
			/* "eval instant at 50m <expr>" */
			char *at = strstr(line, " at ");
			if (!at)
				continue;
			char *q = at + 4;
			while (*q && *q != ' ')
				q++;
			while (*q == ' ')
				q++;
			q[strcspn(q, "\n")] = '\0';
			struct gw_pq_node *n = NULL;
			struct gw_err err;
			gw_err_clear(&err);
			int rc = gw_promql_parse(q, &n, &err);
			gw_promql_free(n);
			if (rc == 0) {
				parsed++;
			} else if (!fail_expected) {
				failed++;
				fprintf(stderr, "%s: %s: %s\n", files[f], q, err.msg);
			}
		}
		fclose(fp);
	}
	printf("shared PromQL test expressions: %zu parsed, %zu failed to parse\n", parsed, failed);
	CHECK(parsed > 100);
	CHECK_INT_EQ(failed, 0);
}

int main(void)
{
	RUN(test_literals);
	RUN(test_selectors);
	RUN(test_operators);
	RUN(test_aggregations_and_calls);
	RUN(test_errors);
	RUN(test_func_table_sorted);
	RUN(test_shared_promql_files);
	return harness_done();
}
