/*
 * test_rules_manager.c - the rule evaluator against Prometheus 2.42's
 * semantics: alert states over `for` and keep_firing_for, ALERTS and
 * ALERTS_FOR_STATE with staleness markers, recording rules, limits and
 * duplicate label sets, `for` state restored after a restart (the three
 * cases of RestoreForState), reloads that keep surviving rules' alerts,
 * and the API's JSON shape.
 */
#include "harness.h"

#include "rules/manager.h"
#include "rules/rulefile.h"
#include "store/memstore.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static int mem_append(void *ctx, const struct gw_labels *labels, int64_t t, double v, struct gw_err *err)
{
	(void)err;
	long id = gw_memstore_series(ctx, labels->p, labels->n);
	if (id >= 0)
		(void)gw_memstore_append(ctx, id, t, v);
	return 0;
}

static void put(struct gw_memstore *m, const char *gpu, int64_t t, double v)
{
	struct gw_lpair l[] = {{"__name__", "temp"}, {"gpu", gpu}};
	long id = gw_memstore_series(m, l, 2);
	CHECK(id >= 0);
	CHECK_INT_EQ(gw_memstore_append(m, id, t, v), 0);
}

/* A rule file from text, loaded as the agent loads one. */
static int load(const char *text, struct gw_ruleset *set, struct gw_err *err)
{
	/* one path for the whole run: a reload reads "the same file" again */
	char path[64];
	snprintf(path, sizeof(path), "/tmp/gw-rules-test-%ld.yml", (long)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_INT_EQ((long)write(fd, text, strlen(text)), (long)strlen(text));
	close(fd);
	memset(set, 0, sizeof(*set));
	const char *pat[] = {path};
	int rc = gw_rules_load(set, pat, 1, err);
	unlink(path);
	return rc;
}

static struct gw_rules *make(struct gw_memstore *m, const char *text, bool restore)
{
	struct gw_ruleset set;
	struct gw_err err = {0};
	int rc = load(text, &set, &err);
	if (rc)
		fprintf(stderr, "load: %s\n", err.msg);
	CHECK_INT_EQ(rc, 0);
	struct gw_rules_opts o = {.querier = gw_memstore_querier(m),
				  .appender = {m, mem_append, NULL},
				  .external_url = "http://node:9400",
				  .eval_interval_ms = 60000,
				  .pq = {.lookback_ms = 300000},
				  .restore = restore};
	struct gw_rules *r = NULL;
	CHECK_INT_EQ(gw_rules_new(&r, &o, &set, &err), 0);
	return r;
}

/* The newest sample of a series named name with label gpu, and its time; false if none. */
static bool last(struct gw_memstore *m, const char *name, const char *state, const char *gpu, int64_t *t, double *v)
{
	struct gw_querier q = gw_memstore_querier(m);
	struct gw_matcher mt[3];
	struct gw_err err = {0};
	size_t n = 0;
	gw_matcher_init(&mt[n++], "__name__", name, GW_MATCH_EQ, &err);
	gw_matcher_init(&mt[n++], "gpu", gpu, GW_MATCH_EQ, &err);
	if (state)
		gw_matcher_init(&mt[n++], "alertstate", state, GW_MATCH_EQ, &err);
	struct gw_arena a;
	gw_arena_init(&a, 1 << 24);
	struct gw_series_set set = {0};
	bool found = false;
	if (q.select(q.ctx, mt, n, INT64_MIN / 4, INT64_MAX / 4, &a, &set, &err) == 0 && set.n == 1 && set.s[0].n) {
		*t = set.s[0].t[set.s[0].n - 1];
		*v = set.s[0].v[set.s[0].n - 1];
		found = true;
	}
	for (size_t i = 0; i < n; i++)
		gw_matcher_release(&mt[i]);
	gw_arena_release(&a);
	return found;
}

static enum gw_alert_state state_of(struct gw_rules *r, const char *gpu, int64_t *active)
{
	struct gw_arena a;
	gw_arena_init(&a, 1 << 20);
	struct gw_alert_view *v;
	size_t n;
	enum gw_alert_state s = GW_ALERT_INACTIVE;
	CHECK_INT_EQ(gw_rules_alerts(r, true, &a, &v, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(gw_labels_get(&v[i].labels, "gpu"), gpu)) {
			s = v[i].state;
			if (active)
				*active = v[i].active_ms;
		}
	gw_arena_release(&a);
	return s;
}

static const char *HOT = "groups:\n"
			 "- name: g\n"
			 "  rules:\n"
			 "  - alert: Hot\n"
			 "    expr: temp > 80\n"
			 "    for: 2m\n"
			 "    labels: {severity: warning}\n"
			 "    annotations: {summary: GPU is hot}\n";

static void test_pending_firing_resolved(void)
{
	struct gw_memstore *m = gw_memstore_new();
	for (int i = 0; i <= 10; i++)
		put(m, "0", i * 60000LL, i < 6 ? 90 : 50);
	struct gw_rules *r = make(m, HOT, false);
	struct gw_err err = {0};
	int64_t t;
	double v;
	CHECK_INT_EQ(gw_rules_eval_all(r, 0, &err), 0);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_PENDING);
	CHECK(last(m, "ALERTS", "pending", "0", &t, &v) && t == 0 && v == 1);
	CHECK(last(m, "ALERTS_FOR_STATE", NULL, "0", &t, &v) && v == 0);
	gw_rules_eval_all(r, 60000, &err);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_PENDING);
	gw_rules_eval_all(r, 120000, &err); /* for: 2m has passed since activeAt 0 */
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_FIRING);
	CHECK(last(m, "ALERTS", "firing", "0", &t, &v) && t == 120000 && v == 1);
	/* the pending series ends with a staleness marker when the alert fires */
	CHECK(last(m, "ALERTS", "pending", "0", &t, &v) && t == 120000 && gw_is_stale_nan(v));
	for (int64_t s = 180000; s <= 360000; s += 60000)
		gw_rules_eval_all(r, s, &err);
	/* 6m: temp is 50, the alert resolves and its series go stale */
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_INACTIVE);
	CHECK(last(m, "ALERTS", "firing", "0", &t, &v) && t == 360000 && gw_is_stale_nan(v));
	CHECK(last(m, "ALERTS_FOR_STATE", NULL, "0", &t, &v) && gw_is_stale_nan(v));
	/* kept 15 minutes as resolved, then forgotten */
	gw_rules_eval_all(r, 360000 + 15 * 60000, &err);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_INACTIVE);
	struct gw_arena a;
	gw_arena_init(&a, 1 << 20);
	struct gw_alert_view *vw;
	size_t n;
	gw_rules_alerts(r, true, &a, &vw, &n);
	CHECK_INT_EQ(n, 1);
	gw_rules_eval_all(r, 360000 + 15 * 60000 + 1, &err);
	gw_rules_alerts(r, true, &a, &vw, &n);
	CHECK_INT_EQ(n, 0);
	gw_arena_release(&a);
	gw_rules_free(r);
	gw_memstore_free(m);
}

static void test_keep_firing_for(void)
{
	struct gw_memstore *m = gw_memstore_new();
	put(m, "0", 0, 90);
	put(m, "0", 60000, 50);
	struct gw_rules *r = make(m,
				  "groups:\n- name: g\n  rules:\n  - alert: Hot\n    expr: temp > 80\n"
				  "    keep_firing_for: 3m\n",
				  false);
	struct gw_err err = {0};
	gw_rules_eval_all(r, 0, &err);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_FIRING); /* no for: fires at once */
	gw_rules_eval_all(r, 60000, &err);
	gw_rules_eval_all(r, 180000, &err);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_FIRING); /* 2m since it stopped matching */
	gw_rules_eval_all(r, 240000, &err);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_INACTIVE); /* 3m: keep_firing_for is over */
	gw_rules_free(r);
	gw_memstore_free(m);
}

static void test_recording_and_errors(void)
{
	struct gw_memstore *m = gw_memstore_new();
	put(m, "0", 0, 90);
	put(m, "1", 0, 70);
	put(m, "1", 60000, 75);
	struct gw_rules *r = make(m,
				  "groups:\n- name: rec\n  limit: 1\n  rules:\n"
				  "  - record: gpu:temp:x2\n    expr: temp * 2\n    labels: {src: rule}\n"
				  "  - record: dup\n    expr: temp\n    labels: {gpu: same}\n",
				  false);
	struct gw_err err = {0};
	int64_t t;
	double v;
	gw_rules_eval_all(r, 0, &err);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	gw_rules_json_rules(r, NULL, &b);
	/* two series against a limit of 1; then the duplicate label set */
	CHECK(strstr(b.data, "\"lastError\":\"exceeded limit of 1 with 2 series\""));
	CHECK(strstr(b.data, "\"health\":\"err\""));
	gw_buf_release(&b);
	gw_rules_free(r);

	r = make(m,
		 "groups:\n- name: rec\n  rules:\n"
		 "  - record: gpu:temp:x2\n    expr: temp * 2\n    labels: {src: rule}\n"
		 "  - record: dup\n    expr: temp\n    labels: {gpu: same}\n",
		 false);
	gw_rules_eval_all(r, 0, &err);
	CHECK(last(m, "gpu:temp:x2", NULL, "1", &t, &v) && t == 0 && v == 140);
	gw_buf_init(&b, 1 << 20);
	gw_rules_json_rules(r, "record", &b);
	CHECK(strstr(b.data, "vector contains metrics with the same labelset after applying rule labels"));
	gw_buf_release(&b);
	/* 10m: GPU 0's sample is out of the lookback; its recorded series goes stale */
	gw_rules_eval_all(r, 360000, &err);
	CHECK(last(m, "gpu:temp:x2", NULL, "0", &t, &v) && t == 360000 && gw_is_stale_nan(v));
	CHECK(last(m, "gpu:temp:x2", NULL, "1", &t, &v) && t == 360000 && v == 150);
	gw_rules_free(r);
	gw_memstore_free(m);
}

/* ALERTS_FOR_STATE as a previous run left it: activeAt (s) last written at down (ms). */
static void for_state(struct gw_memstore *m, const char *gpu, int64_t down_ms, double active_s)
{
	struct gw_lpair l[] = {{"__name__", "ALERTS_FOR_STATE"}, {"alertname", "Hot"}, {"gpu", gpu},
			       {"severity", "warning"}};
	long id = gw_memstore_series(m, l, 4);
	CHECK(id >= 0);
	CHECK_INT_EQ(gw_memstore_append(m, id, down_ms, active_s), 0);
}

static void test_restore(void)
{
	const char *rules = "groups:\n- name: g\n  rules:\n  - alert: Hot\n    expr: temp > 80\n    for: 30m\n"
			    "    labels: {severity: warning}\n";
	struct gw_memstore *m = gw_memstore_new();
	int64_t T = 10 * 3600 * 1000LL; /* the restart */
	for (int64_t t = T - 3600000; t <= T + 120000; t += 60000) {
		put(m, "0", t, 90);
		put(m, "1", t, 90);
		put(m, "2", t, 90);
	}
	/* gpu 0: pending 40m when the agent stopped 5m ago: it fired (remaining <= 0) */
	for_state(m, "0", T - 300000, (double)(T - 300000 - 40 * 60000) / 1000);
	/* gpu 1: pending 25m, 5m left, below the 10m grace: fires 10m after the restore */
	for_state(m, "1", T - 300000, (double)(T - 300000 - 25 * 60000) / 1000);
	/* gpu 2: pending 5m, 25m left: activeAt moves on by the downtime (5m) */
	for_state(m, "2", T - 300000, (double)(T - 300000 - 5 * 60000) / 1000);
	struct gw_rules *r = make(m, rules, true);
	struct gw_err err = {0};
	int64_t active, t;
	double v;
	gw_rules_eval_all(r, T, &err);
	/* not restored yet: nothing written */
	CHECK(last(m, "ALERTS", "pending", "0", &t, &v) == false);
	gw_rules_eval_all(r, T + 60000, &err); /* the second evaluation: restore follows it */
	CHECK_INT_EQ(state_of(r, "0", &active), GW_ALERT_PENDING);
	CHECK_INT_EQ(active, T - 300000 - 40 * 60000);
	CHECK_INT_EQ(state_of(r, "1", &active), GW_ALERT_PENDING);
	CHECK_INT_EQ(active, T + 60000 + 600000 - 1800000);
	CHECK_INT_EQ(state_of(r, "2", &active), GW_ALERT_PENDING);
	CHECK_INT_EQ(active, T - 300000 - 5 * 60000 + (T + 60000 - (T - 300000)));
	gw_rules_eval_all(r, T + 120000, &err);
	CHECK_INT_EQ(state_of(r, "0", NULL), GW_ALERT_FIRING);
	CHECK_INT_EQ(state_of(r, "1", NULL), GW_ALERT_PENDING);
	CHECK(last(m, "ALERTS_FOR_STATE", NULL, "0", &t, &v) && t == T + 120000 &&
	      v == (double)(T - 300000 - 40 * 60000) / 1000);
	gw_rules_free(r);
	gw_memstore_free(m);
}

static void test_reload_keeps_alerts(void)
{
	struct gw_memstore *m = gw_memstore_new();
	for (int i = 0; i <= 5; i++)
		put(m, "0", i * 60000LL, 90);
	struct gw_rules *r = make(m, HOT, false);
	struct gw_err err = {0};
	int64_t active;
	gw_rules_eval_all(r, 0, &err);
	gw_rules_eval_all(r, 60000, &err);
	struct gw_ruleset set;
	/* same name and labels, another expression and annotation: the alert survives */
	CHECK_INT_EQ(load("groups:\n- name: g\n  rules:\n  - alert: Hot\n    expr: temp > 85\n    for: 2m\n"
			  "    labels: {severity: warning}\n",
			  &set, &err),
		     0);
	struct gw_err e2 = {0};
	CHECK_INT_EQ(gw_rules_reload(r, &set, &e2), 0);
	gw_rules_eval_all(r, 120000, &err);
	CHECK_INT_EQ(state_of(r, "0", &active), GW_ALERT_FIRING);
	CHECK_INT_EQ(active, 0);
	/* other labels: another rule to Prometheus, whose alerts start afresh */
	CHECK_INT_EQ(load("groups:\n- name: g\n  rules:\n  - alert: Hot\n    expr: temp > 85\n    for: 2m\n"
			  "    labels: {severity: critical}\n",
			  &set, &err),
		     0);
	CHECK_INT_EQ(gw_rules_reload(r, &set, &e2), 0);
	gw_rules_eval_all(r, 180000, &err);
	CHECK_INT_EQ(state_of(r, "0", &active), GW_ALERT_PENDING);
	CHECK_INT_EQ(active, 180000);
	gw_rules_free(r);
	gw_memstore_free(m);
}

static void test_json(void)
{
	struct gw_memstore *m = gw_memstore_new();
	put(m, "0", 1435781450781, 87.5);
	struct gw_rules *r = make(m, HOT, false);
	struct gw_err err = {0};
	gw_rules_eval_all(r, 1435781451781, &err);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	CHECK_INT_EQ(gw_rules_json_alerts(r, &b), 0);
	CHECK_STR_EQ(b.data, "{\"alerts\":[{\"labels\":{\"alertname\":\"Hot\",\"gpu\":\"0\",\"severity\":\"warning\"},"
			     "\"annotations\":{\"summary\":\"GPU is hot\"},\"state\":\"pending\","
			     "\"activeAt\":\"2015-07-01T20:10:51.781Z\",\"value\":\"8.75e+01\"}]}");
	gw_buf_reset(&b);
	gw_rules_json_rules(r, "alert", &b);
	CHECK(strstr(b.data, "\"state\":\"pending\",\"name\":\"Hot\",\"query\":\"temp \\u003e 80\",\"duration\":120,"
			     "\"keepFiringFor\":0,\"labels\":{\"severity\":\"warning\"},"));
	CHECK(strstr(b.data, "\"interval\":60,\"limit\":0,"));
	gw_buf_reset(&b);
	gw_rules_json_rules(r, "record", &b);
	CHECK(strstr(b.data, "\"rules\":[]"));
	gw_buf_release(&b);
	gw_rules_free(r);
	gw_memstore_free(m);
}

int main(void)
{
	RUN(test_pending_firing_resolved);
	RUN(test_keep_firing_for);
	RUN(test_recording_and_errors);
	RUN(test_restore);
	RUN(test_reload_keeps_alerts);
	RUN(test_json);
	return harness_done();
}
