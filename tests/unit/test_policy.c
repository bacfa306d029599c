/*
 * test_policy.c - the policy file (what it takes, and errors that name
 * the line) and the checks: events fire once per new event, states while
 * they hold, each at most once per interval for a GPU.
 */
#include "harness.h"

#include "health/policy.h"

#define T0 1700000000000LL

static const char good[] = "policies:\n"
			   "  - name: memory\n"
			   "    conditions:\n"
			   "      dbe: true\n"
			   "      xid: [48, 79]\n"
			   "      retired_pages: 60\n"
			   "    actions:\n"
			   "      - log\n"
			   "      - exec: [/bin/sh, -c, 'echo $GPUWATCH_VALUE']\n"
			   "      - webhook: http://127.0.0.1:9/hook\n"
			   "    interval: 1m\n"
			   "  - conditions:\n"
			   "      pcie_replays_per_min: 100\n"
			   "      nvlink_errors: true\n"
			   "      health: fail\n"
			   "      thermal_violation: true\n"
			   "      power_violation: true\n"
			   "    actions: [log]\n";

static void test_parse(void)
{
	struct gw_policies p;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_policies_parse(&p, good, sizeof(good) - 1, "p.yml", &err), 0);
	CHECK_INT_EQ(p.n, 2);
	if (p.n == 2) {
		CHECK_STR_EQ(p.v[0].name, "memory");
		CHECK_STR_EQ(p.v[1].name, "policy-2");
		CHECK_INT_EQ(p.v[0].interval_ms, 60000);
		CHECK_INT_EQ(p.v[1].interval_ms, 300000);
		CHECK_INT_EQ(p.v[0].nxid, 2);
		CHECK_INT_EQ(p.v[0].xid[1], 79);
		CHECK_INT_EQ(p.v[0].retired_pages, 60);
		CHECK_INT_EQ(p.v[0].nactions, 3);
		CHECK_INT_EQ(p.v[0].actions[1].kind, GW_PA_EXEC);
		CHECK_STR_EQ(p.v[0].actions[1].argv[2], "echo $GPUWATCH_VALUE");
		CHECK(p.v[0].actions[1].argv[3] == NULL);
		CHECK_STR_EQ(p.v[0].actions[2].url, "http://127.0.0.1:9/hook");
		CHECK_INT_EQ(p.v[1].conds, (1u << GW_PC_PCIE_REPLAYS) | (1u << GW_PC_NVLINK) |
					       (1u << GW_PC_HEALTH) | (1u << GW_PC_THERMAL) |
					       (1u << GW_PC_POWER));
		CHECK_INT_EQ(p.v[1].health, GW_HEALTH_FAIL);
	}
	gw_policies_release(&p);
}

static void bad(const char *text, const char *want)
{
	struct gw_policies p;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_policies_parse(&p, text, strlen(text), "p.yml", &err), GW_EPARSE);
	if (!strstr(err.msg, want))
		fprintf(stderr, "  error \"%s\" lacks \"%s\"\n", err.msg, want);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(p.v == NULL);
}

static void test_errors(void)
{
	bad("policies:\n  - conditions:\n      dbee: true\n    actions: [log]\n",
	    "p.yml:3: unknown condition \"dbee\"");
	bad("policies:\n  - conditions: {dbe: true}\n", "policy policy-1 has no actions");
	bad("policies:\n  - actions: [log]\n", "has no conditions");
	bad("policies:\n  - conditions: {dbe: true}\n    actions:\n      - exec: [drain]\n",
	    "not an absolute path");
	bad("policies:\n  - conditions: {xid: [abc]}\n    actions: [log]\n", "is not an XID code");
	bad("policies:\n  - conditions: {dbe: true}\n    actions: [log]\n    interval: soon\n",
	    "p.yml:4: interval");
	bad("policies:\n  - conditions: {health: bad}\n    actions: [log]\n", "want fail or warn");
	bad("policies:\n  - conditions: {dbe: true}\n    actions: [{webhook: ftp://x}]\n", "not an http");
	bad("rules: []\n", "want one key, policies");
	bad("policies: [\n", "p.yml:2: yaml:");
	bad("policies:\n  - conditions: {dbe: true}\n    actions: [log]\n    colour: red\n",
	    "unknown or malformed key \"colour\"");
}

struct fired {
	int n;
	char last[64];
};

static void on_fire(void *arg, unsigned int g, const struct gw_policy_fire *f)
{
	struct fired *x = arg;
	x->n++;
	snprintf(x->last, sizeof(x->last), "%u %s %s %s", g, f->policy->name, gw_policy_cond_name(f->cond),
		 f->value);
}

static void test_check(void)
{
	struct gw_policies p;
	struct gw_err err;
	CHECK_INT_EQ(gw_policies_parse(&p, good, sizeof(good) - 1, "p.yml", &err), 0);
	struct gw_policy_state s;
	CHECK_INT_EQ(gw_policy_state_init(&s, 2), 0);
	struct gw_health_report rep = {0};
	struct gw_health_reading r = {.t_ms = T0};
	gw_health_set(&r, GW_HV_DBE_VOL, 0);
	struct fired f = {0};
	gw_policies_check(&p, &s, 1, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 0);
	/* a new DBE fires once; the same count again does not */
	r.t_ms += 1000;
	gw_health_set(&r, GW_HV_DBE_VOL, 2);
	gw_policies_check(&p, &s, 1, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 1);
	CHECK_STR_EQ(f.last, "1 memory dbe 2");
	r.t_ms += 1000;
	gw_policies_check(&p, &s, 1, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 1);
	/* another within the minute's interval is held back; after it, it fires */
	gw_health_set(&r, GW_HV_DBE_VOL, 3);
	gw_policies_check(&p, &s, 1, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 1);
	r.t_ms += 60000;
	gw_health_set(&r, GW_HV_DBE_VOL, 4);
	gw_policies_check(&p, &s, 1, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 2);
	/* a listed XID fires, another does not; GPU 0 is apart */
	r.valid &= ~(1u << GW_HV_DBE_VOL);
	r.xid[0].code = 13;
	r.xid[0].count = 1;
	r.nxid = 1;
	gw_policies_check(&p, &s, 0, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 2);
	r.xid[1].code = 79;
	r.xid[1].count = 1;
	r.nxid = 2;
	gw_policies_check(&p, &s, 0, &r, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 3);
	CHECK_STR_EQ(f.last, "0 memory xid 79");
	/* states: retired pages at the threshold, a failing verdict, a replay rate over the window */
	struct gw_health_reading q = {.t_ms = T0};
	gw_health_set(&q, GW_HV_RETIRED_SBE, 50);
	gw_health_set(&q, GW_HV_RETIRED_DBE, 9);
	gw_policies_check(&p, &s, 0, &q, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 3);
	gw_health_set(&q, GW_HV_RETIRED_DBE, 10);
	q.t_ms += 1000;
	gw_policies_check(&p, &s, 0, &q, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 4);
	CHECK_STR_EQ(f.last, "0 memory retired_pages 60");
	struct gw_health_reading z = {.t_ms = T0 + 5000};
	rep.status = GW_HEALTH_FAIL;
	rep.delta[GW_HV_PCIE_REPLAYS] = 101;
	rep.has_delta = 1u << GW_HV_PCIE_REPLAYS;
	gw_policies_check(&p, &s, 0, &z, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 6);
	rep.status = GW_HEALTH_WARN;
	rep.delta[GW_HV_NVL_REPLAY] = 1;
	rep.has_delta |= 1u << GW_HV_NVL_REPLAY;
	z.t_ms += 1000;
	gw_policies_check(&p, &s, 1, &z, &rep, on_fire, &f);
	CHECK_INT_EQ(f.n, 8); /* GPU 1: pcie and nvlink; warn is not fail */
	CHECK_STR_EQ(f.last, "1 policy-2 nvlink_errors 1");
	gw_policy_state_release(&s);
	gw_policies_release(&p);
}

int main(void)
{
	RUN(test_parse);
	RUN(test_errors);
	RUN(test_check);
	return harness_done();
}
