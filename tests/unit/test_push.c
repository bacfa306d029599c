/*
 * test_push.c - the Pushgateway protocol (ingest/push.h): grouping keys
 * from paths, PUT / POST / DELETE on groups, what is refused, and the
 * exposition the Pushgateway would serve.
 */
#include "ingest/push.h"

#include "harness.h"

#include <stdlib.h>

static void test_key(void)
{
	struct gw_push_key k;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_push_key_parse("/metrics/job/train", &k, &err), 0);
	CHECK_INT_EQ(k.n, 1);
	CHECK_STR_EQ(k.l[0].name, "job");
	CHECK_STR_EQ(k.l[0].value, "train");
	CHECK_INT_EQ(gw_push_key_parse("/metrics/job/train/rank/0/node/gpu-01", &k, &err), 0);
	CHECK_INT_EQ(k.n, 3);
	CHECK_STR_EQ(k.l[2].name, "node");
	CHECK_STR_EQ(k.l[2].value, "gpu-01");
	/* base64url: "train/a" holds a slash; "=" is the empty value */
	CHECK_INT_EQ(gw_push_key_parse("/metrics/job@base64/dHJhaW4vYQ/path@base64/=", &k, &err), 0);
	CHECK_STR_EQ(k.l[0].value, "train/a");
	CHECK_STR_EQ(k.l[1].name, "path");
	CHECK_STR_EQ(k.l[1].value, "");
	static const char *const bad[][2] = {
	    {"/metrics/job", "has no value"},		{"/metrics/job/", "job name is empty"},
	    {"/metrics/instance/x", "starts with job"}, {"/metrics/job/a/__x/1", "bad label name"},
	    {"/metrics/job/a/rank/1/rank/2", "twice"},	{"/metrics/job@base64/!!", "not base64url"},
	    {"/api/v1/query", "push paths are"},	{"/metrics/job/a/rank", "has no value"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gw_err_clear(&err);
		CHECK(gw_push_key_parse(bad[i][0], &k, &err) != 0);
		if (!strstr(err.msg, bad[i][1]))
			fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", bad[i][0], err.msg, bad[i][1]);
		CHECK(strstr(err.msg, bad[i][1]) != NULL);
	}
}

static void render(const struct gw_push_store *s, struct gw_buf *b)
{
	struct gw_expfmt w;
	gw_buf_reset(b);
	gw_expfmt_init(&w, b, GW_EXPFMT_TEXT);
	gw_push_render(s, &w);
	gw_buf_putc(b, '\0');
}

static int push(struct gw_push_store *s, enum gw_push_method m, const char *path, const char *body, int64_t t,
		struct gw_err *err)
{
	struct gw_push_key k;
	gw_err_clear(err);
	int rc = gw_push_key_parse(path, &k, err);
	return rc ? rc : gw_push_apply(s, m, &k, body, body ? strlen(body) : 0, t, err);
}

static void test_put_post_delete(void)
{
	struct gw_push_store *s;
	struct gw_err err;
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	CHECK_INT_EQ(gw_push_store_new(&s), 0);
	CHECK_INT_EQ(push(s, GW_PUSH_PUT, "/metrics/job/train/rank/0",
			  "# HELP train_tokens_per_second Tokens a second, this rank.\n"
			  "# TYPE train_tokens_per_second gauge\n"
			  "train_tokens_per_second 812.5\n"
			  "# TYPE train_steps_total counter\n"
			  "train_steps_total{phase=\"fwd\"} 42\n"
			  "# TYPE step_seconds summary\n"
			  "step_seconds{quantile=\"0.5\"} 4.1\n"
			  "step_seconds_sum 172.2\n"
			  "step_seconds_count 42\n",
			  1700000000000, &err),
		     0);
	CHECK_INT_EQ(push(s, GW_PUSH_PUT, "/metrics/job/train/rank/1", "train_tokens_per_second 800\n",
			  1700000001000, &err),
		     0);
	render(s, &b);
	CHECK_STR_EQ(
	    b.data,
	    "# HELP step_seconds \n"
	    "# TYPE step_seconds summary\n"
	    "step_seconds{quantile=\"0.5\",job=\"train\",rank=\"0\"} 4.1\n"
	    "step_seconds_sum{job=\"train\",rank=\"0\"} 172.2\n"
	    "step_seconds_count{job=\"train\",rank=\"0\"} 42\n"
	    "# HELP train_steps_total \n"
	    "# TYPE train_steps_total counter\n"
	    "train_steps_total{phase=\"fwd\",job=\"train\",rank=\"0\"} 42\n"
	    "# HELP train_tokens_per_second Tokens a second, this rank.\n"
	    "# TYPE train_tokens_per_second gauge\n"
	    "train_tokens_per_second{job=\"train\",rank=\"0\"} 812.5\n"
	    "train_tokens_per_second{job=\"train\",rank=\"1\"} 800\n"
	    "# HELP push_time_seconds Last Unix time when changing this group in the Pushgateway succeeded.\n"
	    "# TYPE push_time_seconds gauge\n"
	    "push_time_seconds{job=\"train\",rank=\"0\"} 1700000000\n"
	    "push_time_seconds{job=\"train\",rank=\"1\"} 1700000001\n"
	    "# HELP push_failure_time_seconds Last Unix time when changing this group in the Pushgateway "
	    "failed.\n"
	    "# TYPE push_failure_time_seconds gauge\n"
	    "push_failure_time_seconds{job=\"train\",rank=\"0\"} 0\n"
	    "push_failure_time_seconds{job=\"train\",rank=\"1\"} 0\n");
	size_t groups, samples;
	gw_push_count(s, &groups, &samples);
	CHECK_INT_EQ(groups, 2);
	CHECK_INT_EQ(samples, 6);
	/* POST replaces the families it names and keeps the others */
	CHECK_INT_EQ(push(s, GW_PUSH_POST, "/metrics/job/train/rank/0", "train_tokens_per_second 900\n",
			  1700000002000, &err),
		     0);
	render(s, &b);
	CHECK(strstr(b.data, "train_tokens_per_second{job=\"train\",rank=\"0\"} 900\n") != NULL);
	CHECK(strstr(b.data, "train_steps_total{phase=\"fwd\",job=\"train\",rank=\"0\"} 42\n") != NULL);
	CHECK(strstr(b.data, "step_seconds_sum{job=\"train\",rank=\"0\"} 172.2\n") != NULL);
	/* which families came with that push (a counter kept by it is no new sample of it) */
	struct gw_push_key k0;
	CHECK_INT_EQ(gw_push_key_parse("/metrics/job/train/rank/0", &k0, &err), 0);
	CHECK(gw_push_family_pushed(s, &k0, "train_tokens_per_second"));
	CHECK(!gw_push_family_pushed(s, &k0, "train_steps_total"));
	CHECK(!gw_push_family_pushed(s, &k0, "no_such_family"));
	/* PUT replaces the whole group; the key's label order does not matter */
	CHECK_INT_EQ(push(s, GW_PUSH_PUT, "/metrics/job/train/rank/0", "train_tokens_per_second 950\n",
			  1700000003000, &err),
		     0);
	render(s, &b);
	CHECK(strstr(b.data, "train_steps_total") == NULL);
	CHECK(gw_push_family_pushed(s, &k0, "train_tokens_per_second"));
	CHECK(!gw_push_family_pushed(s, &k0, "train_steps_total"));
	CHECK(strstr(b.data, "train_tokens_per_second{job=\"train\",rank=\"0\"} 950\n") != NULL);
	/* DELETE removes a group; deleting one that is not there is no error */
	CHECK_INT_EQ(push(s, GW_PUSH_DELETE, "/metrics/job/train/rank/1", NULL, 0, &err), 0);
	CHECK_INT_EQ(push(s, GW_PUSH_DELETE, "/metrics/job/none", NULL, 0, &err), 0);
	gw_push_count(s, &groups, &samples);
	CHECK_INT_EQ(groups, 1);
	CHECK_INT_EQ(samples, 1);
	gw_push_store_free(s);
	gw_buf_release(&b);
}

static void test_refused(void)
{
	struct gw_push_store *s;
	struct gw_err err;
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	CHECK_INT_EQ(gw_push_store_new(&s), 0);
	CHECK_INT_EQ(push(s, GW_PUSH_PUT, "/metrics/job/train/rank/0", "# TYPE x gauge\nx 1\n", 1000, &err),
		     0);
	static const char *const bad[][3] = {
	    {"/metrics/job/train/rank/0", "x 1 1700000000000\n", "no time stamp"},
	    {"/metrics/job/train/rank/0", "x{rank=\"1\"} 1\n", "differs from the grouping key"},
	    {"/metrics/job/train/rank/1", "# TYPE x counter\nx 1\n", "typed differently"},
	    {"/metrics/job/train/rank/0", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\n", "not taken yet"},
	    {"/metrics/job/train/rank/0", "x{ 1\n", "line 1:"},
	    {"/metrics/job/train/rank/0", "ok 1\n# TYPE y gauge\ny one\n", "line 3: bad sample value"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(push(s, GW_PUSH_PUT, bad[i][0], bad[i][1], 2000 + (int64_t)i, &err) != 0);
		if (!strstr(err.msg, bad[i][2]))
			fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", bad[i][1], err.msg, bad[i][2]);
		CHECK(strstr(err.msg, bad[i][2]) != NULL);
	}
	/* nothing changed, and the group says when a push to it last failed */
	render(s, &b);
	CHECK(strstr(b.data, "x{job=\"train\",rank=\"0\"} 1\n") != NULL);
	CHECK(strstr(b.data, "push_time_seconds{job=\"train\",rank=\"0\"} 1\n") != NULL);
	CHECK(strstr(b.data, "push_failure_time_seconds{job=\"train\",rank=\"0\"} 2.005\n") != NULL);
	size_t groups, samples;
	gw_push_count(s, &groups, &samples);
	CHECK_INT_EQ(groups, 1);
	CHECK_INT_EQ(samples, 1);
	/* the grouping key's own value in the body is taken (and written once) */
	CHECK_INT_EQ(push(s, GW_PUSH_PUT, "/metrics/job/train/rank/0", "x{rank=\"0\"} 2\n", 3000, &err), 0);
	render(s, &b);
	CHECK(strstr(b.data, "x{job=\"train\",rank=\"0\"} 2\n") != NULL);
	gw_push_store_free(s);
	gw_buf_release(&b);
}

int main(void)
{
	RUN(test_key);
	RUN(test_put_post_delete);
	RUN(test_refused);
	return harness_done();
}
