/*
 * record_gpu.c - the GPUs' side of `gpuwatch record` (see record_int.h):
 * the sampler feeding a store exactly as the agent's history is fed, the
 * report over the recorded window and the --assert evaluations.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "cmd/record_int.h"

#include "export/counters.h"
#include "store/tsdb.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ME "gpuwatch record"

/* nftw's visit of the temporary store: files, then their directories (FTW_DEPTH). */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *at)
{
	(void)st;
	(void)flag;
	(void)at;
	return remove(path) != 0 ? -1 : 0;
}

/* NVML or the simulator: 0 opened; -1 none here (warned once, CMD runs unsampled); else the exit code. */
static int open_nvml(struct record_gpus *g, const struct gw_cli *cli)
{
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts o = {.library = NULL, .sim = cli->sim};
	int rc = gw_nvml_open(&g->nv, &o, &err);
	if (rc == 0) {
		if (cli->sim)
			fprintf(stderr, "gpuwatch: SIMULATED GPUs (--sim %s), not real hardware\n", cli->sim);
		return 0;
	}
	g->nv = NULL;
	if (cli->sim) {
		/* the simulator's message names the SPEC */
		fprintf(stderr, ME ": %s\n", err.msg[0] ? err.msg : gw_strerror(rc));
		return rc == GW_EINVAL ? GW_EXIT_BADARG : 1;
	}
	fprintf(stderr, ME ": warning: no GPU is sampled (%s); running the command anyway\n",
		err.msg[0] ? err.msg : gw_strerror(rc));
	return -1;
}

static int open_store(struct record_gpus *g, const char *path)
{
	if (path) {
		snprintf(g->path, sizeof(g->path), "%s", path);
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(g->path, sizeof(g->path), "%s/gpuwatch-record-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(g->path)) {
			fprintf(stderr, ME ": cannot make a temporary store %s: %s\n", g->path,
				strerror(errno));
			return 1;
		}
		g->temporary = true;
	}
	struct gw_counters dc;
	if (gw_counters_default(&dc) != 0) {
		fprintf(stderr, ME ": out of memory\n");
		return 1;
	}
	/* the agent's flush cadence: about 25 samples a series, within 1..5 s */
	int64_t flush_ms = 25 * (int64_t)g->interval_ms;
	flush_ms = flush_ms < 1000 ? 1000 : flush_ms > 5000 ? 5000 : flush_ms;
	struct agent_history_opts ho = {
	    .path = g->path, .flush_interval_ms = flush_ms, .counters = &dc, .holder = "record"};
	struct gw_err err;
	gw_err_clear(&err);
	int rc = agent_history_open(&g->h, &ho, g->nv, g->ngpus, &err);
	gw_counters_release(&dc);
	if (rc) {
		fprintf(stderr, ME ": cannot open the store in %s: %s\n", g->path, err.msg);
		return 1;
	}
	g->open = true;
	return 0;
}

static int start_sampling(struct record_gpus *g)
{
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_sampler_opts so = {.interval_ms = g->interval_ms, .no_events = true};
	if (gw_nvml_gpus_list(g->nv, &g->gpus, &g->ngpus, &err) != 0 ||
	    gw_sampler_new(&g->sampler, g->nv, g->gpus, g->ngpus, &so, &err) != 0 ||
	    gw_sampler_start(g->sampler, &err) != 0) {
		fprintf(stderr, ME ": cannot sample the GPUs: %s\n", err.msg);
		return 1;
	}
	return 0;
}

int record_gpus_open(struct record_gpus *g, const struct gw_cli *cli, const char *path,
		     unsigned int interval_ms)
{
	memset(g, 0, sizeof(*g));
	g->interval_ms = interval_ms;
	g->from_ms = gw_now_ms() - interval_ms; /* the first tick is aligned down to the interval */
	int rc = open_nvml(g, cli);
	if (rc > 0)
		return rc;
	if (g->nv && (rc = start_sampling(g)) != 0) {
		record_gpus_close(g);
		return rc;
	}
	if ((rc = open_store(g, path)) != 0) {
		record_gpus_close(g);
		return rc;
	}
	if (g->sampler)
		agent_history_start(&g->h, g->sampler); /* stores the frame taken at start, then every one */
	return 0;
}

/*
 * One last frame, taken now on this thread once the sampling thread has
 * stopped: the window ends with a sample whatever the thread managed (a
 * loaded machine can starve it for longer than a short CMD runs), so the
 * energy and statistics cover all of CMD.
 */
static void last_frame(struct record_gpus *g)
{
	const struct gw_frame *f = gw_sampler_acquire(g->sampler);
	int64_t t = g->to_ms, prev = f ? f->t_ms : 0;
	gw_sampler_release(g->sampler, f);
	if (t <= prev)
		return; /* the thread's last tick already stands at the end */
	if (gw_sampler_tick(g->sampler, t) != 0)
		return;
	f = gw_sampler_acquire(g->sampler);
	agent_history_feed(&g->h, f);
	gw_sampler_release(g->sampler, f);
}

void record_gpus_stop(struct record_gpus *g)
{
	if (!g->to_ms) /* the first call: CMD has just exited */
		g->to_ms = gw_now_ms();
	if (g->open && g->h.sampler) {
		gw_sampler_set_consumer(g->h.sampler, NULL, NULL); /* no feed runs after this */
		gw_sampler_stop(g->sampler);
		last_frame(g);
	}
	g->h.sampler = NULL;
	gw_sampler_free(g->sampler);
	g->sampler = NULL;
}

void record_gpus_close(struct record_gpus *g)
{
	record_gpus_stop(g);
	if (g->open)
		agent_history_close(&g->h);
	g->open = false;
	if (g->temporary && nftw(g->path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, ME ": cannot remove the temporary store %s: %s\n", g->path, strerror(errno));
	g->temporary = false;
	gw_report_free(g->report);
	g->report = NULL;
	free(g->gpus);
	g->gpus = NULL;
	gw_nvml_close(g->nv);
	g->nv = NULL;
}

void record_gpus_report(struct record_gpus *g)
{
	struct gw_err err;
	gw_err_clear(&err);
	if (!g->open || g->report)
		return;
	struct gw_querier q = gw_tsdb_querier(g->h.db);
	struct gw_report_opts o = {.from = g->from_ms, .to = g->to_ms, .source = "gpuwatch record"};
	if (gw_report_build(&q, &o, &g->report, &err) != 0) {
		g->report = NULL;
		if (g->ngpus)
			fprintf(stderr, ME ": no report of the GPUs: %s\n", err.msg);
	}
}

void record_gpus_totals(const struct record_gpus *g, double *util, double *energy, double *peak_mem)
{
	const struct gw_report *r = g->report;
	*util = *energy = *peak_mem = NAN;
	if (!r)
		return;
	double sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < r->ngpus; i++) {
		const struct gw_report_stat *u = &r->gpu[i].stat[GW_RS_UTIL], *m = &r->gpu[i].stat[GW_RS_MEM];
		if (u->n) {
			sum += u->mean;
			n++;
		}
		if (m->n && (isnan(*peak_mem) || m->max > *peak_mem))
			*peak_mem = m->max;
	}
	*util = n ? sum / (double)n : NAN;
	*energy = r->energy_j;
}

static void json_num(struct gw_buf *b, const char *key, double v)
{
	if (isfinite(v))
		gw_buf_printf(b, ",\"%s\":%.17g", key, v);
	else
		gw_buf_printf(b, ",\"%s\":null", key);
}

void record_gpus_json(const struct record_gpus *g, struct gw_buf *b)
{
	gw_buf_printf(b, ",\"interval_seconds\":%.3f", (double)g->interval_ms / 1000.0);
	if (!g->report) {
		gw_buf_puts(b,
			    ",\"gpus\":[],\"energy_joules\":null,\"peak_memory_bytes\":null,\"report\":null");
		return;
	}
	gw_buf_puts(b, ",\"gpus\":");
	gw_report_render_gpus_json(g->report, b);
	double util, energy, peak;
	record_gpus_totals(g, &util, &energy, &peak);
	json_num(b, "energy_joules", energy);
	json_num(b, "peak_memory_bytes", peak);
	gw_buf_puts(b, ",\"report\":");
	size_t at = b->len;
	gw_report_render(g->report, GW_REPORT_JSON, b);
	while (b->len > at && b->data[b->len - 1] == '\n') /* the renderer ends a document with one */
		b->data[--b->len] = 0;
}

void record_assert_eval(struct record_gpus *g, struct record_assert *a)
{
	a->passed = false;
	a->msg[0] = 0;
	if (!g->open) {
		snprintf(a->msg, sizeof(a->msg), "no store to evaluate it over");
		return;
	}
	struct gw_querier q = gw_tsdb_querier(g->h.db);
	struct gw_arena ar;
	gw_arena_init(&ar, (size_t)1 << 30);
	struct gw_pq_opts po = {0};
	struct gw_pq_result res;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_promql_instant(a->root, &q, g->to_ms, &po, &ar, &res, &err);
	if (rc)
		snprintf(a->msg, sizeof(a->msg), "%s", err.msg[0] ? err.msg : gw_strerror(rc));
	else if (res.type == GW_PQ_T_VECTOR && res.vector.n == 0)
		snprintf(a->msg, sizeof(a->msg), "empty result");
	else if (res.type == GW_PQ_T_SCALAR && res.scalar == 0)
		snprintf(a->msg, sizeof(a->msg), "scalar 0");
	else if (res.type != GW_PQ_T_VECTOR && res.type != GW_PQ_T_SCALAR)
		snprintf(a->msg, sizeof(a->msg), "not an instant vector");
	else
		a->passed = true;
	gw_arena_release(&ar);
}
