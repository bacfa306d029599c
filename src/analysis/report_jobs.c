/*
 * report_jobs.c - who used the GPUs: the HPC jobs of the range, from
 * gpuwatch_hpc_job_info (one series per job and GPU while the job runs,
 * --hpc-job-mapping-dir). Each job gets its GPUs, GPU time, the mean
 * utilisation and peak memory of its GPUs while it ran, and their energy,
 * shared equally among the jobs on a GPU at the same moment; the same
 * again per node (instance) for a job that spans nodes.
 */
#include "analysis/report_int.h"

#include "model/labels.h"
#include "model/match.h"

#include <math.h>
#include <string.h>

#define JOBS_MAX 4096

/* One job on one GPU: where on the grid it was there. */
struct presence {
	size_t job, gpu;
	double *grid; /* non-NaN where present */
};

long gw_rpt_gpu_index(const struct gw_report *r, const struct gw_series *s)
{
	const char *idx = gw_labels_get(&s->labels, "gpu"), *inst = gw_labels_get(&s->labels, "instance");
	for (size_t i = 0; idx && i < r->ngpus; i++)
		if (strcmp(r->gpu[i].index, idx) == 0 && strcmp(r->gpu[i].instance, inst ? inst : "") == 0)
			return (long)i;
	return -1;
}

static long job_index(struct gw_report *r, const char *id, size_t *cap)
{
	for (size_t i = 0; i < r->njobs; i++)
		if (strcmp(r->job[i].id, id) == 0)
			return (long)i;
	if (r->njobs == JOBS_MAX)
		return GW_ERANGE; /* the rest are left out (-1 would read as GW_ENOMEM) */
	if (r->njobs == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		struct gw_report_job *j = gw_arena_alloc(&r->arena, *cap * sizeof(*j));
		if (!j)
			return GW_ENOMEM;
		if (r->njobs)
			memcpy(j, r->job, r->njobs * sizeof(*j));
		r->job = j;
	}
	struct gw_report_job *j = &r->job[r->njobs];
	memset(j, 0, sizeof(*j));
	j->id = gw_arena_strdup(&r->arena, id);
	j->gpus = gw_arena_alloc(&r->arena, (r->ngpus ? r->ngpus : 1) * sizeof(size_t));
	if (!j->id || !j->gpus)
		return GW_ENOMEM;
	return (long)r->njobs++;
}

/* What a job's GPUs add up to, on the report's grid. */
struct totals {
	double gpu_s, energy_j, uacc, un, mem;
	int64_t first, last;
};

/* Adds one presence; counts[g][k]: jobs on GPU g at point k. */
static void totals_add(struct totals *t, const struct gw_report *r, const struct presence *p,
		       unsigned short *const *counts)
{
	const struct gw_report_gpu *g = &r->gpu[p->gpu];
	double step_s = (double)r->step / 1000.0;
	for (size_t k = 0; k < r->ngrid; k++) {
		if (isnan(p->grid[k]))
			continue;
		int64_t at = r->from + (int64_t)k * r->step;
		t->first = !t->first || at < t->first ? at : t->first;
		t->last = at > t->last ? at : t->last;
		t->gpu_s += step_s;
		double pw = g->grid[GW_RS_POWER] ? g->grid[GW_RS_POWER][k] : NAN;
		if (!isnan(pw) && counts[p->gpu][k])
			t->energy_j += pw * step_s / counts[p->gpu][k];
		double u = g->grid[GW_RS_UTIL] ? g->grid[GW_RS_UTIL][k] : NAN,
		       m = g->grid[GW_RS_MEM] ? g->grid[GW_RS_MEM][k] : NAN;
		if (!isnan(u)) {
			t->uacc += u;
			t->un++;
		}
		if (!isnan(m) && !(m <= t->mem))
			t->mem = m;
	}
}

static void totals_put(const struct totals *t, struct gw_report_job_node *n)
{
	n->gpu_seconds = t->gpu_s;
	n->energy_j = t->energy_j;
	n->util_mean = t->un ? t->uacc / t->un : NAN;
	n->mem_max = t->mem;
	n->first = t->first;
	n->last = t->last;
}

/* The job's part on the node of instance: its GPUs there and their totals. */
static int job_node(struct gw_report *r, struct gw_report_job *j, size_t ji, const char *instance,
		    const struct presence *p, size_t np, unsigned short *const *counts)
{
	struct gw_report_job_node *n = &j->node[j->nnodes++];
	*n = (struct gw_report_job_node){.instance = instance};
	n->gpus = gw_arena_alloc(&r->arena, j->ngpus * sizeof(size_t));
	if (!n->gpus)
		return GW_ENOMEM;
	struct totals t = {.mem = NAN};
	for (size_t i = 0; i < np; i++)
		if (p[i].job == ji && strcmp(r->gpu[p[i].gpu].instance, instance) == 0) {
			n->gpus[n->ngpus++] = p[i].gpu;
			totals_add(&t, r, &p[i], counts);
		}
	totals_put(&t, n);
	return 0;
}

/* Totals of one job from its presences, over all its GPUs and per node. */
static int job_totals(struct gw_report *r, struct gw_report_job *j, size_t ji, const struct presence *p,
		      size_t np, unsigned short *const *counts)
{
	struct totals t = {.mem = NAN};
	for (size_t i = 0; i < np; i++)
		if (p[i].job == ji) {
			j->gpus[j->ngpus++] = p[i].gpu;
			totals_add(&t, r, &p[i], counts);
		}
	struct gw_report_job_node all;
	totals_put(&t, &all);
	j->gpu_seconds = all.gpu_seconds;
	j->energy_j = all.energy_j;
	j->util_mean = all.util_mean;
	j->mem_max = all.mem_max;
	j->first = all.first;
	j->last = all.last;
	j->node = gw_arena_alloc(&r->arena, (j->ngpus ? j->ngpus : 1) * sizeof(*j->node));
	if (!j->node)
		return GW_ENOMEM;
	for (size_t k = 0; k < j->ngpus; k++) {
		const char *instance = r->gpu[j->gpus[k]].instance;
		size_t n = 0;
		while (n < j->nnodes && strcmp(j->node[n].instance, instance) != 0)
			n++;
		int rc = n < j->nnodes ? 0 : job_node(r, j, ji, instance, p, np, counts);
		if (rc)
			return rc;
	}
	return 0;
}

int gw_rpt_select_name(const struct gw_querier *q, const struct gw_report *r, const char *name,
		       struct gw_arena *a, struct gw_series_set *set, struct gw_err *err)
{
	struct gw_matcher m;
	int rc = gw_matcher_init(&m, GW_METRIC_NAME, name, GW_MATCH_EQ, err);
	if (rc)
		return rc;
	rc = q->select(q->ctx, &m, 1, r->from, r->to, a, set, err);
	gw_matcher_release(&m);
	return rc;
}

int gw_rpt_read_jobs(struct gw_report *r, const struct gw_querier *q, struct gw_err *err)
{
	struct gw_matcher m;
	int rc = gw_matcher_init(&m, GW_METRIC_NAME, "gpuwatch_hpc_job_info", GW_MATCH_EQ, err);
	if (rc)
		return rc;
	struct gw_arena tmp;
	gw_arena_init(&tmp, (size_t)1 << 32);
	struct gw_series_set set = {0};
	rc = q->select(q->ctx, &m, 1, r->from, r->to, &tmp, &set, err);
	struct presence *p = rc ? NULL : gw_arena_alloc(&tmp, (set.n ? set.n : 1) * sizeof(*p));
	size_t np = 0, cap = 0;
	if (!rc && !p)
		rc = GW_ENOMEM;
	for (size_t i = 0; !rc && i < set.n; i++) {
		const char *id = gw_labels_get(&set.s[i].labels, "hpc_job");
		long g = gw_rpt_gpu_index(r, &set.s[i]);
		if (!id || g < 0 || !set.s[i].n)
			continue;
		long ji = job_index(r, id, &cap);
		if (ji == GW_ENOMEM) {
			rc = GW_ENOMEM;
			break;
		}
		if (ji < 0)
			continue;
		p[np] = (struct presence){(size_t)ji, (size_t)g, NULL};
		/* on r's grid, present where the series has samples (the report's arena holds it) */
		rc = gw_rpt_fill_grid(r, &set.s[i], &p[np].grid, false);
		np++;
	}
	unsigned short **counts =
	    rc ? NULL : gw_arena_alloc(&tmp, (r->ngpus ? r->ngpus : 1) * sizeof(*counts));
	if (!rc && !counts)
		rc = GW_ENOMEM;
	for (size_t g = 0; !rc && g < r->ngpus; g++)
		if (!(counts[g] = gw_arena_alloc(&tmp, r->ngrid * sizeof(unsigned short))))
			rc = GW_ENOMEM;
	for (size_t i = 0; !rc && i < np; i++)
		for (size_t k = 0; k < r->ngrid; k++)
			counts[p[i].gpu][k] += !isnan(p[i].grid[k]);
	for (size_t ji = 0; !rc && ji < r->njobs; ji++)
		rc = job_totals(r, &r->job[ji], ji, p, np, counts);
	if (rc && !err->msg[0])
		gw_err_set(err, rc, "reading gpuwatch_hpc_job_info: %s", gw_strerror(rc));
	gw_arena_release(&tmp);
	gw_matcher_release(&m);
	return rc;
}
