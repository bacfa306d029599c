/*
 * test_ui_remote.c - what top does with Prometheus API answers: the
 * answer reader (vector, matrix, server errors, malformed and truncated
 * answers refused with a message, never a crash), the snapshot builder
 * (units, nodes by instance or Hostname, processes, history grid), and the
 * model fed from snapshots (GPUs kept across refreshes, stale and
 * placeholder rows, node events, history).
 */
#include "harness.h"

#include "ui/promresp.h"
#include "ui/rsnap.h"

#include <stdlib.h>

#define LBL(name, gpu, inst, host) \
	"{\"__name__\":\"" name "\",\"gpu\":\"" gpu "\",\"UUID\":\"GPU-" inst "-" gpu "\",\"modelName\":\"NVIDIA H200\"," \
	"\"pci_bus_id\":\"00000000:83:00.0\",\"Hostname\":\"" host "\",\"instance\":\"" inst "\",\"job\":\"gpu\"}"
#define SAMPLE(name, gpu, inst, host, v) "{\"metric\":" LBL(name, gpu, inst, host) ",\"value\":[1796251142.025,\"" v "\"]}"
#define VECTOR(...) "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" __VA_ARGS__ "]}}"

static const char answer[] = VECTOR(
	SAMPLE("DCGM_FI_DEV_GPU_UTIL", "0", "a:9400", "node-a", "100") ","
	SAMPLE("DCGM_FI_DEV_FB_USED", "0", "a:9400", "node-a", "32362") ","
	SAMPLE("DCGM_FI_DEV_FB_FREE", "0", "a:9400", "node-a", "110796") ","
	SAMPLE("DCGM_FI_DEV_POWER_USAGE", "0", "a:9400", "node-a", "627.4") ","
	SAMPLE("DCGM_FI_DEV_POWER_MGMT_LIMIT", "0", "a:9400", "node-a", "650") ","
	SAMPLE("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "0", "a:9400", "node-a", "700") ","
	SAMPLE("DCGM_FI_DEV_GPU_TEMP", "0", "a:9400", "node-a", "52") ","
	SAMPLE("DCGM_FI_DEV_PSTATE", "0", "a:9400", "node-a", "0") ","
	SAMPLE("DCGM_FI_DEV_GPU_UTIL", "1", "a:9400", "node-a", "7") ","
	SAMPLE("DCGM_FI_DEV_GPU_UTIL", "0", "b:9400", "node-b", "55") ","
	SAMPLE("DCGM_FI_DEV_XID_ERRORS", "0", "b:9400", "node-b", "79") ","
	SAMPLE("DCGM_FI_DEV_GPU_UTIL", "NaN", "b:9400", "node-b", "1") ","
	"{\"metric\":{\"__name__\":\"gpuwatch_process_memory_used_bytes\",\"gpu\":\"0\",\"pid\":\"10309\","
	"\"process\":\"gpu_burn\",\"type\":\"C\",\"slurm_job\":\"4242\",\"user\":\"alice\",\"instance\":\"b:9400\"},"
	"\"value\":[1796251142.025,\"29605494784\"]},"
	"{\"metric\":{\"__name__\":\"gpuwatch_process_sm_utilization_ratio\",\"gpu\":\"0\",\"pid\":\"10309\","
	"\"instance\":\"b:9400\"},\"value\":[1796251142.025,\"0.99\"]},"
	"{\"metric\":{\"__name__\":\"up\",\"instance\":\"c:9400\"},\"value\":[1796251142.025,\"1\"]}");

static int parse(struct gw_ui_promresp *r, const char *s, struct gw_err *err)
{
	gw_err_clear(err);
	return gw_ui_promresp_parse(r, s, strlen(s), err);
}

static void test_answer(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	CHECK_INT_EQ(parse(&r, answer, &err), 0);
	CHECK_INT_EQ(r.nseries, 15);
	CHECK(!r.matrix);
	CHECK_STR_EQ(gw_ui_promresp_label(&r, &r.series[3], "__name__"), "DCGM_FI_DEV_POWER_USAGE");
	CHECK(r.series[3].npts == 1 && r.series[3].pts[0].v == 627.4);
	CHECK_INT_EQ(r.series[3].pts[0].t_ms, 1796251142025LL);
	CHECK(gw_ui_promresp_label(&r, &r.series[0], "nope") == NULL);
	gw_ui_promresp_release(&r);

	const char *matrix = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":"
			     "{\"a\":\"b\"},\"values\":[[10,\"1\"],[11,\"NaN\"],[12.5,\"+Inf\"]]}]}}";
	CHECK_INT_EQ(parse(&r, matrix, &err), 0);
	CHECK(r.matrix && r.nseries == 1 && r.series[0].npts == 3);
	CHECK_INT_EQ(r.series[0].pts[2].t_ms, 12500);
	CHECK(isnan(r.series[0].pts[1].v) && isinf(r.series[0].pts[2].v));
	gw_ui_promresp_release(&r);
}

static void test_answer_errors(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	CHECK_INT_EQ(parse(&r, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error at char 3\"}", &err),
		     GW_EINVAL);
	CHECK(strstr(err.msg, "bad_data") && strstr(err.msg, "parse error at char 3"));
	static const struct {
		const char *body, *msg;
	} bad[] = {
		{"<html>502 Bad Gateway</html>", "bad JSON at byte 0"},
		{"{}", "no \"status\""},
		{"{\"status\":\"success\"}", "data.result"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"2\"]}}", "scalar"},
		{VECTOR("{\"metric\":{},\"value\":[1,2]}"), "result[0].value"},
		{VECTOR("{\"metric\":{},\"value\":[1,\"x\"]}"), "not a number"},
		{VECTOR("{\"metric\":{},\"value\":[1]}"), "result[0].value"},
		{VECTOR("{\"metric\":{\"gpu\":0},\"value\":[1,\"1\"]}"), "metric.gpu: not a string"},
		{VECTOR("{\"value\":[1,\"1\"]}"), "no \"metric\""},
		{VECTOR("1"), "not an object"},
		{VECTOR("{\"metric\":{},\"value\":[1e300,\"1\"]}"), "time out of range"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},\"values\":3}]}}",
		 "no \"values\""},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(&r, bad[i].body, &err);
		if (rc != GW_EPARSE || !strstr(err.msg, bad[i].msg))
			fprintf(stderr, "bad[%zu]: rc %d, \"%s\"\n", i, rc, err.msg);
		CHECK(rc == GW_EPARSE && strstr(err.msg, bad[i].msg));
		CHECK(r.doc == NULL && r.series == NULL);
	}
	/* every cut of a real answer: refused, with a message, and nothing leaks (ASan) */
	size_t len = strlen(answer);
	for (size_t n = 0; n < len; n++) {
		gw_err_clear(&err);
		int rc = gw_ui_promresp_parse(&r, answer, n, &err);
		CHECK(rc == GW_EPARSE && err.msg[0]);
	}
}

static int node_named(const struct gw_ui_rsnap *s, const char *name)
{
	for (unsigned int i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void test_build_grouped(void)
{
	struct gw_ui_promresp r;
	struct gw_err err;
	if (parse(&r, answer, &err) != 0) {
		CHECK(0);
		return;
	}
	struct gw_ui_rbuild b;
	CHECK_INT_EQ(gw_ui_rbuild_init(&b, 5000), 0);
	CHECK_INT_EQ(gw_ui_rbuild_answer(&b, &r, -1), 0);
	struct gw_ui_rsnap *s = gw_ui_rbuild_finish(&b, true);
	gw_ui_rbuild_release(&b);
	gw_ui_promresp_release(&r);
	if (!s) {
		CHECK(0);
		return;
	}
	/* series top does not read (up) make no node; a gpu label that is no number makes no GPU */
	CHECK_INT_EQ(s->nnodes, 2);
	CHECK_INT_EQ(s->ngpus, 3);
	int a = node_named(s, "node-a"), bn = node_named(s, "node-b");
	CHECK(a == 0 && bn == 1); /* sorted by name */
	const struct gw_ui_rgpu *g = &s->gpus[0];
	CHECK(g->node == (unsigned int)a && g->index == 0);
	CHECK_STR_EQ(g->name, "NVIDIA H200");
	CHECK_STR_EQ(g->uuid, "GPU-a:9400-0");
	double v;
	CHECK(gw_ui_num(&g->cur[GW_UC_UTIL], &v) && v == 100);
	CHECK(gw_ui_num(&g->cur[GW_UC_MEMUSED], &v) && v == 32362.0 * 1048576);
	CHECK(gw_ui_num(&g->cur[GW_UC_MEMTOTAL], &v) && v == (32362.0 + 110796.0) * 1048576);
	CHECK(gw_ui_num(&g->cur[GW_UC_POWER], &v) && fabs(v - 627400) < 1e-6);
	CHECK(gw_ui_num(&g->cur[GW_UC_PLIMIT], &v) && v == 700000); /* the enforced limit wins */
	CHECK(g->cur[GW_UC_PSTATE].state == GW_V_OK && g->cur[GW_UC_PSTATE].i == 0);
	CHECK(g->cur[GW_UC_SMCLK].state != GW_V_OK);
	CHECK(s->gpus[1].node == (unsigned int)a && s->gpus[1].index == 1);
	CHECK(s->gpus[2].node == (unsigned int)bn && s->gpus[2].last_xid == 79);
	CHECK_INT_EQ(s->nprocs, 1);
	const struct gw_ui_proc *p = &s->procs[0];
	CHECK(p->pid == 10309 && p->gpu == 0 && p->mem_valid && p->mem_bytes == 29605494784ULL && p->sm_pct == 99);
	CHECK_STR_EQ(p->node, "node-b");
	CHECK_STR_EQ(p->owner, "job:4242");
	CHECK_STR_EQ(p->user, "alice");
	CHECK_STR_EQ(p->cmd, "gpu_burn");
	gw_ui_rsnap_free(s);
}

/* Two instances with the same Hostname are told apart by instance; a given node takes every series. */
static void test_build_names(void)
{
	const char *dup = VECTOR(SAMPLE("DCGM_FI_DEV_GPU_UTIL", "0", "h:1", "same", "1") ","
				 SAMPLE("DCGM_FI_DEV_GPU_UTIL", "0", "h:2", "same", "2"));
	struct gw_ui_promresp r;
	struct gw_err err;
	if (parse(&r, dup, &err) != 0) {
		CHECK(0);
		return;
	}
	struct gw_ui_rbuild b;
	gw_ui_rbuild_init(&b, 0);
	gw_ui_rbuild_answer(&b, &r, -1);
	struct gw_ui_rsnap *s = gw_ui_rbuild_finish(&b, true);
	gw_ui_rbuild_release(&b);
	CHECK(s && s->nnodes == 2 && node_named(s, "h:1") == 0 && node_named(s, "h:2") == 1);
	gw_ui_rsnap_free(s);
	gw_ui_rbuild_init(&b, 0);
	int n = gw_ui_rbuild_node(&b, "127.0.0.1:9400", "");
	gw_ui_rbuild_answer(&b, &r, n);
	s = gw_ui_rbuild_finish(&b, false);
	gw_ui_rbuild_release(&b);
	gw_ui_promresp_release(&r);
	/* asked directly: one node, one GPU 0 (the second series is the same gpu label) */
	CHECK(s && s->nnodes == 1 && s->ngpus == 1);
	if (s)
		CHECK_STR_EQ(s->nodes[0].name, "127.0.0.1:9400");
	gw_ui_rsnap_free(s);
}

/* An agent's /metrics (--remote): GPUs, processes and the build series, for the node it was asked as. */
static void test_build_text(void)
{
	static const char text[] =
	    "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
	    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",modelName=\"NVIDIA H200\",Hostname=\"vm\"} 42\n"
	    "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",modelName=\"NVIDIA H200\",Hostname=\"vm\"} 100000\n"
	    "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-a\",modelName=\"NVIDIA H200\",Hostname=\"vm\"} 43771\n"
	    "gpuwatch_pcie_rx_bytes_per_second{gpu=\"0\",uuid=\"GPU-a\",model=\"NVIDIA H200\"} 25122816\n"
	    "gpuwatch_process_memory_used_bytes{gpu=\"0\",uuid=\"GPU-a\",pid=\"4242\",process=\"trainer\",type=\"C\","
	    "slurm_job=\"77\"} 94371840000\n"
	    "gpuwatch_build_info{version=\"0.1.0\",simulated=\"true\",driver_version=\"590.48.01\"} 1\n";
	struct gw_ui_promresp r;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, text, strlen(text), 5000, NULL, &err), 0);
	struct gw_ui_rbuild b;
	gw_ui_rbuild_init(&b, 5000);
	int real = gw_ui_rbuild_node(&b, "a:9400", "");
	CHECK_INT_EQ(gw_ui_rbuild_answer(&b, &r, real), 0);
	gw_ui_promresp_release(&r);
	/* a node whose build series says it is real hardware, and one without any */
	static const char hw[] = "gpuwatch_build_info{simulated=\"false\"} 1\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n"
				 /* a dcgm-exporter's default set: PCIe only as profiling rates, bytes/s */
				 "DCGM_FI_PROF_PCIE_TX_BYTES{gpu=\"0\"} 4318208\n"
				 "DCGM_FI_PROF_PCIE_RX_BYTES{gpu=\"0\"} 8899584\n";
	CHECK_INT_EQ(gw_ui_promresp_parse_text(&r, hw, strlen(hw), 5000, NULL, &err), 0);
	CHECK_INT_EQ(gw_ui_rbuild_answer(&b, &r, gw_ui_rbuild_node(&b, "b:9400", "")), 0);
	gw_ui_promresp_release(&r);
	struct gw_ui_rsnap *s = gw_ui_rbuild_finish(&b, false);
	gw_ui_rbuild_release(&b);
	if (!s || s->nnodes != 2 || s->ngpus != 2 || s->nprocs != 1) {
		CHECK(0);
		gw_ui_rsnap_free(s);
		return;
	}
	double v;
	CHECK(s->nodes[0].simulated && !s->nodes[1].simulated);
	CHECK(gw_ui_num(&s->gpus[1].cur[GW_UC_PCIETX], &v) && v == 4217); /* KB/s */
	CHECK(gw_ui_num(&s->gpus[1].cur[GW_UC_PCIERX], &v) && v == 8691);
	CHECK_STR_EQ(s->nodes[0].name, "a:9400");
	const struct gw_ui_rgpu *g = &s->gpus[0];
	CHECK(gw_ui_num(&g->cur[GW_UC_UTIL], &v) && v == 42);
	CHECK(gw_ui_num(&g->cur[GW_UC_MEMTOTAL], &v) && v == 143771.0 * 1024 * 1024);
	CHECK(gw_ui_num(&g->cur[GW_UC_PCIERX], &v) && v == 24534); /* KB/s, as the local view's */
	CHECK(!gw_ui_num(&g->cur[GW_UC_PCIETX], &v)); /* none of its names in the text */
	CHECK_STR_EQ(g->uuid, "GPU-a");
	CHECK(s->procs[0].pid == 4242 && s->procs[0].gpu == 0 && s->procs[0].mem_bytes == 94371840000ULL);
	CHECK_STR_EQ(s->procs[0].cmd, "trainer");
	CHECK_STR_EQ(s->procs[0].owner, "job:77");
	CHECK_STR_EQ(s->procs[0].node, "a:9400");
	/* into the model: the node marked simulated; a note becomes one event, then stays with the node */
	snprintf(s->nodes[0].note, sizeof(s->nodes[0].note), "no history (agent run with --no-history?): charts start now");
	struct gw_ui_model m;
	CHECK_INT_EQ(gw_ui_model_init(&m, 16), 0);
	CHECK_INT_EQ(gw_ui_model_update_remote(&m, s), 0);
	gw_ui_rsnap_free(s);
	CHECK(m.nnodes == 2 && m.nodes[0].simulated && !m.nodes[1].simulated);
	CHECK_INT_EQ(m.nprocs, 1);
	const struct gw_ui_event *e = gw_ui_model_event(&m, 0);
	CHECK(e && strcmp(e->where, "a:9400") == 0 && strstr(e->text, "no history"));
	CHECK_INT_EQ(m.nevents, 1);
	/* the next refresh has no note (the history is asked once) and a's answer failed: both kept */
	gw_ui_rbuild_init(&b, 6000);
	int na = gw_ui_rbuild_node(&b, "a:9400", "");
	b.s->nodes[na].err = GW_EIO;
	snprintf(b.s->nodes[na].why, sizeof(b.s->nodes[na].why), "unreachable: connection refused");
	s = gw_ui_rbuild_finish(&b, false);
	gw_ui_rbuild_release(&b);
	CHECK(s != NULL);
	if (s)
		CHECK_INT_EQ(gw_ui_model_update_remote(&m, s), 0);
	gw_ui_rsnap_free(s);
	CHECK(m.nodes[0].simulated);
	CHECK(strstr(m.nodes[0].note, "no history") != NULL);
	CHECK_INT_EQ(m.nevents, 2); /* the failure, not the note again */
	gw_ui_model_release(&m);
}

static void test_build_history(void)
{
	const char *m = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
			"{\"metric\":" LBL("DCGM_FI_DEV_GPU_UTIL", "0", "a", "a") ",\"values\":[[10,\"10\"],[12,\"30\"],[99,\"1\"]]},"
			"{\"metric\":" LBL("DCGM_FI_DEV_FB_USED", "0", "a", "a") ",\"values\":[[10,\"25\"]]},"
			"{\"metric\":" LBL("DCGM_FI_DEV_FB_FREE", "0", "a", "a") ",\"values\":[[10,\"75\"]]}]}}";
	struct gw_ui_promresp r;
	struct gw_err err;
	if (parse(&r, m, &err) != 0) {
		CHECK(0);
		return;
	}
	struct gw_ui_rbuild b;
	gw_ui_rbuild_init(&b, 20000);
	CHECK_INT_EQ(gw_ui_rbuild_history(&b, &r, -1, 10000, 1000, 5), 0);
	struct gw_ui_rsnap *s = gw_ui_rbuild_finish(&b, true);
	gw_ui_rbuild_release(&b);
	gw_ui_promresp_release(&r);
	if (!s || s->ngpus != 1 || !s->gpus[0].hist[0]) {
		gw_ui_rsnap_free(s);
		CHECK(0);
		return;
	}
	const struct gw_ui_rgpu *g = &s->gpus[0];
	CHECK(s->hist_n == 5 && s->hist_t0 == 10000 && s->hist_step == 1000);
	CHECK(g->hist[GW_UM_UTIL][0] == 10 && isnan(g->hist[GW_UM_UTIL][1]) && g->hist[GW_UM_UTIL][2] == 30);
	CHECK(isnan(g->hist[GW_UM_UTIL][4])); /* t=99 s is off the grid */
	CHECK_DBL_NEAR(g->hist[GW_UM_MEM][0], 25.0, 1e-4);
	CHECK(isnan(g->hist[GW_UM_MEM][1]) && isnan(g->hist[GW_UM_POWER][0]));
	gw_ui_rsnap_free(s);
}

/* A snapshot as the worker makes it for --remote: nodes a and b, b answering or not. */
static struct gw_ui_rsnap *snap(int64_t t, bool b_up, int b_util, bool c_listed)
{
	struct gw_ui_rbuild b;
	gw_ui_rbuild_init(&b, t);
	char body[2048];
	snprintf(body, sizeof(body),
		 VECTOR(SAMPLE("DCGM_FI_DEV_GPU_UTIL", "0", "x", "x", "%d") "," SAMPLE("DCGM_FI_DEV_GPU_UTIL", "1", "x", "x", "%d")),
		 b_util, b_util);
	struct gw_ui_promresp r;
	struct gw_err err;
	parse(&r, VECTOR(SAMPLE("DCGM_FI_DEV_GPU_UTIL", "0", "x", "x", "11")), &err);
	gw_ui_rbuild_answer(&b, &r, gw_ui_rbuild_node(&b, "a:1", ""));
	gw_ui_promresp_release(&r);
	int nb = gw_ui_rbuild_node(&b, "b:2", "");
	if (b_up) {
		parse(&r, body, &err);
		gw_ui_rbuild_answer(&b, &r, nb);
		gw_ui_promresp_release(&r);
	} else {
		b.s->nodes[nb].err = GW_EIO;
		snprintf(b.s->nodes[nb].why, sizeof(b.s->nodes[nb].why), "unreachable: connection refused");
	}
	if (c_listed) {
		int nc = gw_ui_rbuild_node(&b, "c:3", "");
		b.s->nodes[nc].err = GW_ETIMEOUT;
		snprintf(b.s->nodes[nc].why, sizeof(b.s->nodes[nc].why), "no answer within 1000 ms");
	}
	struct gw_ui_rsnap *s = gw_ui_rbuild_finish(&b, false);
	gw_ui_rbuild_release(&b);
	return s;
}

static void feed(struct gw_ui_model *m, struct gw_ui_rsnap *s)
{
	CHECK(s != NULL);
	if (s)
		CHECK_INT_EQ(gw_ui_model_update_remote(m, s), 0);
	gw_ui_rsnap_free(s);
}

static void test_model(void)
{
	struct gw_ui_model m;
	CHECK_INT_EQ(gw_ui_model_init(&m, 16), 0);
	feed(&m, snap(1000, false, 0, true)); /* b down from the start, c listed and down */
	CHECK(m.remote && m.nnodes == 3 && m.ngpus == 3);
	CHECK(!m.gpus[0].stale && m.gpus[0].node == 0);
	CHECK(m.gpus[1].placeholder && m.gpus[1].stale && m.gpus[1].node == 1);
	CHECK(m.gpus[2].placeholder && m.gpus[2].node == 2);
	CHECK_STR_EQ(m.nodes[1].why, "unreachable: connection refused");
	CHECK_INT_EQ(m.nodes[1].seen_ms, 0);
	feed(&m, snap(2000, true, 50, true)); /* b answers: its GPUs replace the placeholder, in order */
	CHECK_INT_EQ(m.ngpus, 4);
	CHECK(m.gpus[1].node == 1 && m.gpus[1].index == 0 && !m.gpus[1].stale && !m.gpus[1].placeholder);
	CHECK(m.gpus[2].node == 1 && m.gpus[2].index == 1);
	CHECK(m.gpus[3].placeholder && m.gpus[3].node == 2);
	CHECK_INT_EQ(m.nodes[1].seen_ms, 2000);
	float *ring = m.gpus[1].hist[GW_UM_UTIL];
	feed(&m, snap(3000, false, 0, true)); /* b down again: its rows stay, stale, with their history */
	CHECK_INT_EQ(m.ngpus, 4);
	CHECK(m.gpus[1].stale && m.gpus[2].stale && !m.gpus[1].placeholder);
	CHECK(m.gpus[1].hist[GW_UM_UTIL] == ring);
	CHECK_INT_EQ(m.gpus[1].seen_ms, 2000);
	double v;
	CHECK(gw_ui_num(&m.gpus[1].cur[GW_UC_UTIL], &v) && v == 50); /* the last value is kept */
	const struct gw_ui_event *e = gw_ui_model_event(&m, 0);
	CHECK(e && strcmp(e->where, "b:2") == 0 && strstr(e->text, "connection refused"));
	float s[3];
	gw_ui_hist_series(&m, 1, GW_UM_UTIL, 3000, 2999, s, 3);
	CHECK(isnan(s[0]) && s[1] == 50 && isnan(s[2])); /* before it was known, then 50, then a gap */
	feed(&m, snap(4000, true, 70, false)); /* back, and c no longer listed: its row goes */
	CHECK_INT_EQ(m.ngpus, 3);
	CHECK(!m.gpus[1].stale && gw_ui_num(&m.gpus[1].cur[GW_UC_UTIL], &v) && v == 70);
	CHECK(m.gpus[1].hist[GW_UM_UTIL] == ring);
	e = gw_ui_model_event(&m, 0);
	CHECK(e && strcmp(e->where, "b:2") == 0 && strcmp(e->text, "answers again") == 0);
	gw_ui_model_release(&m);
}

static void test_model_history(void)
{
	struct gw_ui_rsnap *s = snap(10000, true, 40, false);
	if (!s) {
		CHECK(0);
		return;
	}
	/* a grid of 4 points before the snapshot, for GPU 0 of node a only */
	s->hist_t0 = 6000;
	s->hist_step = 1000;
	s->hist_n = 5; /* the last point (10000) is the snapshot's own time: not copied */
	float *blk = malloc(sizeof(float) * 5 * (GW_UM__COUNT + GW_UI_RAW__COUNT));
	for (int i = 0; i < 5 * (GW_UM__COUNT + GW_UI_RAW__COUNT); i++)
		blk[i] = NAN;
	for (int k = 0; k < GW_UM__COUNT; k++)
		s->gpus[0].hist[k] = blk + k * 5;
	for (int i = 0; i < 5; i++)
		s->gpus[0].hist[GW_UM_UTIL][i] = (float)(i + 1);
	struct gw_ui_model m;
	gw_ui_model_init(&m, 16);
	feed(&m, s);
	CHECK_INT_EQ(m.hist_n, 5);
	float out[5];
	gw_ui_hist_series(&m, 0, GW_UM_UTIL, 10000, 4999, out, 5);
	CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4 && out[4] == 11);
	gw_ui_hist_series(&m, 1, GW_UM_UTIL, 10000, 4999, out, 5);
	CHECK(isnan(out[0]) && isnan(out[3]) && out[4] == 40);
	gw_ui_model_release(&m);
}

int main(void)
{
	RUN(test_answer);
	RUN(test_answer_errors);
	RUN(test_build_grouped);
	RUN(test_build_names);
	RUN(test_build_text);
	RUN(test_build_history);
	RUN(test_model);
	RUN(test_model_history);
	return harness_done();
}
