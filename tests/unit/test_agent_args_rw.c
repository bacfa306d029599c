/* `gpuwatch agent`'s --remote-write.* options: each applies to the URL
 * before it; one before any URL, a bad URL, header or count is refused. */
#include "cmd/agent_args.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

static int parse(struct agent_args *o, char **argv, int argc)
{
	memset(o, 0, sizeof(*o));
	/* the refusals are said on stderr; keep the test's output quiet */
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	int rc = agent_parse_args(argc, argv, o);
	fclose(stderr);
	stderr = saved;
	return rc;
}

static void test_per_url(void)
{
	char *argv[] = {"agent",
			"--remote-write.url", "http://a/api/v1/write",
			"--remote-write.header", "X-Scope-OrgID: t1",
			"--remote-write.username=alice",
			"--remote-write.max-shards", "4",
			"--remote-write.retry-on-http-429",
			"--remote-write.url=https://b/push",
			"--remote-write.drop", "DCGM_FI_PROF_.*",
			"--remote-write.batch-send-deadline", "1s",
			"--remote-write.header", "A: 1",
			"--remote-write.header", "B: 2"};
	struct agent_args o;
	CHECK_INT_EQ(parse(&o, argv, (int)(sizeof(argv) / sizeof(argv[0]))), 0);
	CHECK_INT_EQ(o.ao.nremote_writes, 2);
	if (o.ao.nremote_writes == 2) {
		const struct gw_rw_opts *a = &o.ao.remote_writes[0], *b = &o.ao.remote_writes[1];
		CHECK_STR_EQ(a->url, "http://a/api/v1/write");
		CHECK_INT_EQ(a->nheaders, 1);
		CHECK_STR_EQ(a->headers[0], "X-Scope-OrgID: t1");
		CHECK_STR_EQ(a->username, "alice");
		CHECK_INT_EQ(a->max_shards, 4);
		CHECK(a->retry_on_429);
		CHECK(a->drop == NULL);
		CHECK_INT_EQ(a->batch_send_deadline_ms, 0); /* the default, filled in at start */
		CHECK_STR_EQ(b->url, "https://b/push");
		CHECK_STR_EQ(b->drop, "DCGM_FI_PROF_.*");
		CHECK_INT_EQ(b->batch_send_deadline_ms, 1000);
		CHECK_INT_EQ(b->nheaders, 2);
		CHECK(!b->retry_on_429);
		CHECK(b->username == NULL);
		CHECK_INT_EQ(b->max_shards, 0);
	}
	agent_args_release(&o);
}

static void test_refused(void)
{
	struct agent_args o;
	char *before[] = {"agent", "--remote-write.header", "A: b", "--remote-write.url", "http://a/w"};
	CHECK_INT_EQ(parse(&o, before, 5), 2);
	agent_args_release(&o);
	char *scheme[] = {"agent", "--remote-write.url", "a:9090/api/v1/write"};
	CHECK_INT_EQ(parse(&o, scheme, 3), 2);
	agent_args_release(&o);
	char *header[] = {"agent", "--remote-write.url", "http://a/w", "--remote-write.header", "no colon"};
	CHECK_INT_EQ(parse(&o, header, 5), 2);
	agent_args_release(&o);
	char *shards[] = {"agent", "--remote-write.url", "http://a/w", "--remote-write.max-shards", "0"};
	CHECK_INT_EQ(parse(&o, shards, 5), 2);
	agent_args_release(&o);
	char *dur[] = {"agent", "--remote-write.url", "http://a/w", "--remote-write.timeout", "soon"};
	CHECK_INT_EQ(parse(&o, dur, 5), 2);
	agent_args_release(&o);
	char *missing[] = {"agent", "--remote-write.url"};
	CHECK_INT_EQ(parse(&o, missing, 2), 2);
	agent_args_release(&o);
}

int main(void)
{
	RUN(test_per_url);
	RUN(test_refused);
	return harness_done();
}
