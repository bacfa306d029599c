/*
 * HPC job labels through the agent: the sampler puts each GPU's jobs in its
 * frames, /metrics repeats every DCGM series once per job with hpc_job last
 * (dcgm-exporter's label order) and adds gpuwatch_hpc_job_info, and the
 * history stores what /metrics shows, every frame of it, however briefly
 * a job lasts. The mapping module itself: test_hpcjob.c.
 */
#include "agent/history.h"
#include "collect/sampler.h"
#include "export/gpu_metrics.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static void put(const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/jobs/%s", dir, name);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

struct fleet {
	struct gw_nvml *nv;
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_hpcjob *hpc;
	struct gw_sampler *s;
	struct gw_counters c;
	struct gw_metrics m;
};

static bool fleet_open(struct fleet *fl)
{
	memset(fl, 0, sizeof(*fl));
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts o = {.sim = "2xH200:training"};
	if (gw_nvml_open(&fl->nv, &o, &err) != 0 || gw_nvml_gpus_list(fl->nv, &fl->gpus, &fl->n, &err) != 0) {
		fprintf(stderr, "open sim: %s\n", err.msg);
		return false;
	}
	char jobs[300];
	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	unsigned int idx[2] = {fl->gpus[0].index, fl->gpus[1].index};
	CHECK_INT_EQ(gw_hpcjob_new(&fl->hpc, jobs, idx, 2, NULL, &err), 0);
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true, .hpcjob = fl->hpc};
	CHECK_INT_EQ(gw_sampler_new(&fl->s, fl->nv, fl->gpus, fl->n, &so, &err), 0);
	gw_counters_default(&fl->c);
	CHECK_INT_EQ(gw_metrics_prepare(&fl->m, &fl->c, fl->nv), 0);
	snprintf(fl->m.hostname, sizeof(fl->m.hostname), "node1");
	return fl->s != NULL;
}

static void fleet_close(struct fleet *fl)
{
	gw_metrics_release(&fl->m);
	gw_counters_release(&fl->c);
	gw_sampler_free(fl->s);
	gw_hpcjob_free(fl->hpc);
	free(fl->gpus);
	gw_nvml_close(fl->nv);
}

/* Lines of text starting with prefix and holding part and part2 (NULL: any). */
static int count_lines2(const char *text, const char *prefix, const char *part, const char *part2)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[2048];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (strncmp(line, prefix, pl) == 0 && (!part || strstr(line, part)) &&
		    (!part2 || strstr(line, part2)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static int count_lines(const char *text, const char *prefix, const char *part)
{
	return count_lines2(text, prefix, part, NULL);
}

static void render(struct fleet *fl, const struct gw_frame *f, struct gw_buf *b)
{
	gw_buf_reset(b);
	CHECK_INT_EQ(gw_metrics_render(&fl->m, f, GW_EXPFMT_TEXT, b), 0);
}

static void test_exposition(void)
{
	struct fleet fl;
	if (!fleet_open(&fl))
		return;
	put("0", "4242\n  4243\t\n");
	int64_t t = 1700000000000;
	CHECK_INT_EQ(gw_sampler_tick(fl.s, t), 0);
	const struct gw_frame *f = gw_sampler_acquire(fl.s);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 22);
	render(&fl, f, &b);
	/* GPU 0: each DCGM series once per job, hpc_job after dcgm-exporter's labels */
	char want[512];
	snprintf(want, sizeof(want),
		 "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"%s\",pci_bus_id=\"%s\",device=\"nvidia0\","
		 "modelName=\"NVIDIA "
		 "H200\",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"590.48.01\",hpc_job=\"4242\"} ",
		 fl.gpus[0].uuid, fl.gpus[0].bus_id);
	CHECK(strstr(b.data, want) != NULL);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"", NULL), 2);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"", "hpc_job=\"4243\"} "), 1);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"", "hpc_job="), 2);
	/* GPU 1 has no file: no label, one series */
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"", NULL), 1);
	CHECK_INT_EQ(count_lines2(b.data, "DCGM_FI_", "gpu=\"1\"", "hpc_job"), 0);
	CHECK(count_lines2(b.data, "DCGM_FI_", "gpu=\"0\"", "hpc_job=\"4243\"") > 15);
	/* every DCGM series of GPU 0 has a job: twice GPU 1's count */
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_", "gpu=\"0\""),
		     2 * count_lines(b.data, "DCGM_FI_", "gpu=\"1\""));
	/* native families stay one series per GPU; the info family names the jobs */
	CHECK_INT_EQ(count_lines(b.data, "gpuwatch_temperature_gpu_celsius{", NULL), 2);
	CHECK_INT_EQ(count_lines(b.data, "gpuwatch_", "hpc_job="), 2);
	snprintf(want, sizeof(want),
		 "\ngpuwatch_hpc_job_info{gpu=\"0\",uuid=\"%s\",pci_bus_id=\"%s\",model=\"NVIDIA H200\","
		 "hpc_job=\"4243\"} 1\n",
		 fl.gpus[0].uuid, fl.gpus[0].bus_id);
	CHECK(strstr(b.data, want) != NULL);
	CHECK(strstr(b.data, "# TYPE gpuwatch_hpc_job_info gauge\n") != NULL);

	/* the next frame follows the files; a frame already held keeps what it showed */
	put("0", "");
	put("1", "77\n");
	CHECK_INT_EQ(gw_sampler_tick(fl.s, t + 1000), 0);
	const struct gw_frame *f2 = gw_sampler_acquire(fl.s);
	render(&fl, f2, &b);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"", NULL), 1);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_", "hpc_job=\"424"), 0);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"", "hpc_job=\"77\"} "), 1);
	CHECK_INT_EQ(count_lines(b.data, "gpuwatch_hpc_job_info{gpu=\"1\"", "hpc_job=\"77\""), 1);
	/* ticks that reuse frames drop the lists they held, without touching held ones */
	for (int i = 2; i < 8; i++)
		CHECK_INT_EQ(gw_sampler_tick(fl.s, t + 1000 * i), 0);
	render(&fl, f, &b);
	CHECK_INT_EQ(count_lines(b.data, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"", "hpc_job=\"4242\""), 1);
	gw_sampler_release(fl.s, f);
	gw_sampler_release(fl.s, f2);

	/* no jobs anywhere: no info family at all */
	put("1", "");
	CHECK_INT_EQ(gw_sampler_tick(fl.s, t + 9000), 0);
	f = gw_sampler_acquire(fl.s);
	render(&fl, f, &b);
	CHECK(strstr(b.data, "hpc_job") == NULL);
	gw_sampler_release(fl.s, f);
	gw_buf_release(&b);
	fleet_close(&fl);
}

/* Series of the store matching name=value pairs (NULL-terminated). */
static size_t stored(struct agent_history *h, const char *const *kv)
{
	struct gw_matcher m[8];
	size_t nm = 0;
	for (; kv[2 * nm]; nm++)
		gw_matcher_init(&m[nm], kv[2 * nm], kv[2 * nm + 1], GW_MATCH_EQ, NULL);
	struct gw_querier q = gw_tsdb_querier(h->db);
	struct gw_arena a;
	gw_arena_init(&a, 1 << 26);
	struct gw_series_set set = {0};
	CHECK_INT_EQ(q.select(q.ctx, m, nm, 0, INT64_MAX, &a, &set, NULL), 0);
	size_t n = set.n;
	gw_arena_release(&a);
	for (size_t i = 0; i < nm; i++)
		gw_matcher_release(&m[i]);
	return n;
}

/* A history in dir/name for the fleet (o: the test's options; path,
 * flush and instance are set here); false (fleet closed) if it fails. */
static bool history_open(struct fleet *fl, struct agent_history *h, struct agent_history_opts *o, const char *name)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	o->path = path;
	o->flush_interval_ms = 60000;
	o->instance = "node1:9400";
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(agent_history_open(h, o, fl->nv, fl->n, &err), 0);
	if (!h->db)
		fleet_close(fl);
	return h->db != NULL;
}

static void test_history(void)
{
	struct fleet fl;
	if (!fleet_open(&fl))
		return;
	struct agent_history h;
	struct agent_history_opts ho = {.retention_ms = 86400000};
	if (!history_open(&fl, &h, &ho, "data"))
		return;
	int64_t t = 1700000000000;
	put("0", "");
	put("1", "");
	for (int i = 0; i < 2; i++) { /* before the jobs */
		gw_sampler_tick(fl.s, t + 1000 * i);
		const struct gw_frame *f = gw_sampler_acquire(fl.s);
		agent_history_feed(&h, f);
		gw_sampler_release(fl.s, f);
	}
	put("0", "11\n12\n");
	for (int i = 2; i < 5; i++) {
		gw_sampler_tick(fl.s, t + 1000 * i);
		const struct gw_frame *f = gw_sampler_acquire(fl.s);
		agent_history_feed(&h, f);
		gw_sampler_release(fl.s, f);
	}
	put("0", "13\n");
	gw_sampler_tick(fl.s, t + 5000);
	const struct gw_frame *f = gw_sampler_acquire(fl.s);
	agent_history_feed(&h, f);
	gw_sampler_release(fl.s, f);
	CHECK_INT_EQ(h.append_errors, 0);

	/* DCGM series: one per job, as /metrics had them, and the one from before the jobs */
	const char *temp0[] = {"__name__", "DCGM_FI_DEV_GPU_TEMP", "gpu", "0", NULL};
	CHECK_INT_EQ(stored(&h, temp0), 4);
	const char *temp0_11[] = {"__name__", "DCGM_FI_DEV_GPU_TEMP", "gpu", "0", "hpc_job", "11", NULL};
	CHECK_INT_EQ(stored(&h, temp0_11), 1);
	const char *temp0_13[] = {"__name__", "DCGM_FI_DEV_GPU_TEMP", "gpu", "0", "hpc_job", "13", NULL};
	CHECK_INT_EQ(stored(&h, temp0_13), 1);
	const char *temp1[] = {"__name__", "DCGM_FI_DEV_GPU_TEMP", "gpu", "1", NULL};
	CHECK_INT_EQ(stored(&h, temp1), 1);
	/* the label set /metrics gives it: device too; the driver only with counters that list it as a label */
	const char *temp1_dev[] = {"__name__", "DCGM_FI_DEV_GPU_TEMP", "device", "nvidia1", "DCGM_FI_DRIVER_VERSION", "",
				   NULL};
	CHECK_INT_EQ(stored(&h, temp1_dev), 1);
	/* native: one series per GPU throughout */
	const char *native0[] = {"__name__", "gpuwatch_temperature_gpu_celsius", "gpu", "0", NULL};
	CHECK_INT_EQ(stored(&h, native0), 1);
	const char *info[] = {"__name__", "gpuwatch_hpc_job_info", "instance", "node1:9400", NULL};
	CHECK_INT_EQ(stored(&h, info), 3);
	const char *info12[] = {"__name__", "gpuwatch_hpc_job_info", "hpc_job", "12",
				"model",    "NVIDIA H200",	     NULL};
	CHECK_INT_EQ(stored(&h, info12), 1);

	agent_history_close(&h);
	fleet_close(&fl);
}

/* Fed by the sampler: every frame is stored as it is published, so a job
 * that lasts one frame is in the history too; and none after close. */
static void test_history_every_frame(void)
{
	struct fleet fl;
	if (!fleet_open(&fl))
		return;
	struct agent_history h;
	struct agent_history_opts ho = {.counters = &fl.c};
	if (!history_open(&fl, &h, &ho, "data-every"))
		return;
	int64_t t = 1700000000000;
	put("0", "100\n");
	put("1", "");
	gw_sampler_tick(fl.s, t);
	agent_history_start(&h, fl.s); /* the frame already published is stored at once */
	CHECK_INT_EQ(h.frames_stored, 1);
	char id[16];
	for (int i = 1; i < 6; i++) {
		snprintf(id, sizeof(id), "%d\n", 100 + i); /* a new job every frame */
		put("0", id);
		gw_sampler_tick(fl.s, t + 1000 * i);
	}
	CHECK_INT_EQ(h.frames_stored, 6);
	const char *drv[] = {"__name__", "DCGM_FI_DEV_GPU_TEMP", "gpu", "1", "DCGM_FI_DRIVER_VERSION", "590.48.01", NULL};
	CHECK_INT_EQ(stored(&h, drv), 1);
	/* the DCGM families the counters list, as /metrics; every native one */
	const char *gr[] = {"__name__", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu", "1", NULL};
	CHECK_INT_EQ(stored(&h, gr), 1);
	const char *sm[] = {"__name__", "DCGM_FI_PROF_SM_ACTIVE", NULL};
	CHECK_INT_EQ(stored(&h, sm), 0);
	const char *sm_native[] = {"__name__", "gpuwatch_gpm_sm_active_ratio", "gpu", "1", NULL};
	CHECK_INT_EQ(stored(&h, sm_native), 1);
	for (int i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "%d", 100 + i);
		const char *info[] = {"__name__", "gpuwatch_hpc_job_info", "hpc_job", id, NULL};
		CHECK_INT_EQ(stored(&h, info), 1);
	}
	agent_history_close(&h); /* the sampler stops feeding it */
	gw_sampler_tick(fl.s, t + 6000);
	CHECK_INT_EQ(h.frames_stored, 6);
	fleet_close(&fl);
}

struct seen {
	uint64_t n, first, last;
	bool in_order;
};

static void count_frame(void *arg, const struct gw_frame *f)
{
	struct seen *s = arg;
	if (!s->n++)
		s->first = f->seq;
	else if (f->seq != s->last + 1)
		s->in_order = false;
	s->last = f->seq;
}

/* The sampling thread hands the consumer each frame once, in order, at 10 ms. */
static void test_consumer_sees_every_frame(void)
{
	struct gw_nvml *nv = NULL;
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts o = {.sim = "2xH200:training"};
	CHECK_INT_EQ(gw_nvml_open(&nv, &o, &err), 0);
	CHECK_INT_EQ(gw_nvml_gpus_list(nv, &gpus, &n, &err), 0);
	struct gw_sampler *s = NULL;
	struct gw_sampler_opts so = {.interval_ms = 10, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK_INT_EQ(gw_sampler_start(s, &err), 0);
	struct seen seen = {.in_order = true};
	gw_sampler_set_consumer(s, count_frame, &seen);
	struct timespec pause = {0, 300 * 1000000L};
	nanosleep(&pause, NULL);
	gw_sampler_set_consumer(s, NULL, NULL);
	uint64_t got = seen.n;
	const struct gw_frame *f = gw_sampler_acquire(s);
	uint64_t latest = f->seq;
	gw_sampler_release(s, f);
	CHECK(got >= 5); /* ~30 ticks; fewer only on a starved machine */
	CHECK(seen.in_order);
	CHECK_INT_EQ(seen.last - seen.first + 1, got);
	CHECK(seen.last <= latest);
	nanosleep(&pause, NULL);
	CHECK_INT_EQ(seen.n, got); /* removed: not called again */
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/gw-agent-hpcjob-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "mkdir '%s/jobs'", dir);
	if (system(cmd) != 0)
		return 1;
	RUN(test_exposition);
	RUN(test_history);
	RUN(test_history_every_frame);
	RUN(test_consumer_sees_every_frame);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return harness_done();
}
