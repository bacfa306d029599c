/*
 * report_find_util.c - the findings about utilisation: idle but allocated,
 * input bound, unstable, stalls shared across GPUs, and imbalance between
 * GPUs of a node. Thresholds and why: docs/REPORT.md.
 */
#include "analysis/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* input_bound: busy but under this utilisation, on average, for at least a quarter of the time. */
#define LOW_UTIL 0.6
/* dips: at least this many, covering at least this share of the time */
#define DIPS_MIN 5
#define DIP_SHARE 0.02
/* sync_stall: the share of a GPU's dips that another GPU dips with, within DIP_TOL_MS */
#define SYNC_SHARE 0.6
#define DIP_TOL_MS 2000
/* unstable_utilization: spread of the raw samples, relative to their mean and p95 - p5 in points */
#define SWING_CV 0.5
#define SWING_RANGE 0.2
/* imbalance: gap of the means, and the share of the time the gap holds at half of it */
#define IMBALANCE_GAP 0.2
#define IMBALANCE_PERSIST 0.7

static bool idle_held(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return gw_rpt_grid(g, GW_RS_UTIL, k) < GW_REPORT_IDLE_UTIL && gw_rpt_held(g, k);
}

static bool busy_held(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return gw_rpt_grid(g, GW_RS_UTIL, k) >= GW_REPORT_IDLE_UTIL && gw_rpt_held(g, k);
}

int gw_rpt_find_idle_allocated(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	struct gw_rpt_runs u = gw_rpt_runs_of(r, g, idle_held, NULL, GW_RPT_MIN_RUN_S);
	if (!u.any)
		return 0;
	struct gw_report_finding *f =
	    gw_rpt_one(r, GW_RK_IDLE_ALLOCATED, gi, gw_rpt_at(r, u.first), gw_rpt_at(r, u.last));
	if (!f)
		return GW_ENOMEM;
	char d[32];
	double s = gw_rpt_run_seconds(r, &u), mem = gw_rpt_mean_where(r, g, GW_RS_MEM, idle_held);
	double pw = gw_rpt_mean_where(r, g, GW_RS_POWER, idle_held);
	gw_rpt_duration(s, d, sizeof(d));
	int n = snprintf(f->evidence, sizeof(f->evidence),
			 "%.1f GiB of memory held with utilisation under %.0f%% for %s (%.0f%% of the time)",
			 mem / GW_RPT_GIB, GW_REPORT_IDLE_UTIL * 100, d, 100 * s / gw_rpt_covered(r, g));
	if (!isnan(pw) && n > 0 && (size_t)n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n, ", drawing %.0f W meanwhile", pw);
	snprintf(f->advice, sizeof(f->advice),
		 "A process holds this GPU without using it (a notebook kernel, a finished job that did not "
		 "exit, a server without traffic). Find it with gpuwatch smi "
		 "--query-compute-apps=pid,process_name,used_memory --format=csv and stop it, or share the "
		 "GPU (MPS, MIG, time-slicing) so reserved is not idle.");
	return 0;
}

static double throttled_share(const struct gw_report *r, const struct gw_report_gpu *g)
{
	double s = 0;
	for (int k = 0; k < GW_RR_N; k++)
		if (gw_report_reason_info[k].bit & (GW_RPT_THERMAL_BITS | GW_RPT_POWER_BITS))
			s += g->throttle_s[k];
	return s / gw_rpt_covered(r, g);
}

/* The share of g's dips that a dip of another GPU of the same instance overlaps. */
static double dip_sync(const struct gw_report *r, size_t gi, size_t *synced, int64_t *from, int64_t *to)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	size_t hit = 0;
	*from = *to = 0;
	for (size_t d = 0; d < g->ndips; d++) {
		int64_t a = g->dips[d].from - DIP_TOL_MS, b = g->dips[d].to + DIP_TOL_MS;
		bool found = false;
		for (size_t j = 0; j < r->ngpus && !found; j++) {
			const struct gw_report_gpu *h = &r->gpu[j];
			if (j == gi || strcmp(h->instance, g->instance) != 0)
				continue;
			/* dips are in time order: binary search the first that ends at or after a */
			size_t lo = 0, hi = h->ndips;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (h->dips[mid].to < a)
					lo = mid + 1;
				else
					hi = mid;
			}
			found = lo < h->ndips && h->dips[lo].from <= b;
		}
		if (found) {
			if (!hit)
				*from = g->dips[d].from;
			*to = g->dips[d].to;
			hit++;
		}
	}
	*synced = hit;
	return g->ndips ? (double)hit / (double)g->ndips : 0;
}

bool gw_rpt_dips_count(const struct gw_report *r, const struct gw_report_gpu *g)
{
	return g->ndips >= DIPS_MIN && g->dip_s >= DIP_SHARE * gw_rpt_covered(r, g);
}

int gw_rpt_find_sync_stall(struct gw_report *r, bool *in_sync)
{
	for (size_t i = 0; i < r->ngpus; i++) {
		if (i && strcmp(r->gpu[i].instance, r->gpu[i - 1].instance) == 0)
			continue; /* one pass per instance (GPUs are sorted by instance) */
		size_t end = i;
		while (end < r->ngpus && strcmp(r->gpu[end].instance, r->gpu[i].instance) == 0)
			end++;
		/* the GPUs of this instance whose dips mostly coincide with another's */
		size_t n = 0, total = 0, synced_all = 0;
		int64_t from = 0, to = 0;
		double dip_s = 0;
		for (size_t j = i; j < end; j++) {
			const struct gw_report_gpu *g = &r->gpu[j];
			size_t synced;
			int64_t f, t;
			if (!gw_rpt_dips_count(r, g) || dip_sync(r, j, &synced, &f, &t) < SYNC_SHARE)
				continue;
			in_sync[j] = true;
			n++;
			total += g->ndips;
			synced_all += synced;
			dip_s += g->dip_s;
			from = !from || f < from ? f : from;
			to = t > to ? t : to;
		}
		if (n < 2) {
			for (size_t j = i; j < end; j++)
				in_sync[j] = false;
			continue;
		}
		struct gw_report_finding *f = gw_rpt_finding_add(r, GW_RK_SYNC_STALL, n);
		if (!f)
			return GW_ENOMEM;
		for (size_t j = i; j < end; j++)
			if (in_sync[j])
				f->gpus[f->ngpus++] = j;
		f->from = from;
		f->to = to;
		char d[32];
		gw_rpt_duration(dip_s / (double)n, d, sizeof(d));
		snprintf(f->evidence, sizeof(f->evidence),
			 "%zu GPUs dipped under half their median utilisation together: %zu of their %zu "
			 "dips (%.0f%%) coincide with another GPU's within %d s; %s of dips per GPU (%.1f%% "
			 "of the time)",
			 n, synced_all, total, 100.0 * (double)synced_all / (double)total, DIP_TOL_MS / 1000,
			 d, 100 * dip_s / (double)n / gw_rpt_covered(r, &r->gpu[i]));
		snprintf(f->advice, sizeof(f->advice),
			 "The GPUs wait at the same moments, so something they share stalls them: a "
			 "collective waiting for the slowest rank, a checkpoint or evaluation, a shared data "
			 "loader. Overlap communication with compute, write checkpoints asynchronously, "
			 "check NCCL's transport (NCCL_DEBUG=INFO) and look for a straggler rank or node.");
	}
	return 0;
}

static bool is_held(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return gw_rpt_held(g, k) && !isnan(gw_rpt_grid(g, GW_RS_UTIL, k));
}

int gw_rpt_find_input_bound(struct gw_report *r, size_t gi, bool in_sync)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	/* low: the time memory was held, on average busy but not much (idle is idle_allocated's) */
	struct gw_rpt_runs u = gw_rpt_runs_of(r, g, is_held, NULL, 0);
	double util = gw_rpt_mean_where(r, g, GW_RS_UTIL, is_held), held_s = gw_rpt_run_seconds(r, &u);
	struct gw_rpt_runs b = gw_rpt_runs_of(r, g, busy_held, NULL, 0);
	if (u.any && held_s >= GW_RPT_MIN_RUN_S && held_s >= 0.25 * gw_rpt_covered(r, g) &&
	    util >= GW_REPORT_IDLE_UTIL && util < LOW_UTIL && throttled_share(r, g) < 0.5) {
		struct gw_report_finding *f =
		    gw_rpt_one(r, GW_RK_INPUT_BOUND, gi, gw_rpt_at(r, b.first), gw_rpt_at(r, b.last));
		if (!f)
			return GW_ENOMEM;
		char d[32];
		gw_rpt_duration(held_s, d, sizeof(d));
		int n = snprintf(
		    f->evidence, sizeof(f->evidence),
		    "utilisation averaged %.0f%% (p95 %.0f%%) over %s while %.1f GiB of memory was held",
		    util * 100, g->stat[GW_RS_UTIL].p95 * 100, d,
		    gw_rpt_mean_where(r, g, GW_RS_MEM, is_held) / GW_RPT_GIB);
		if (g->stat[GW_RS_SM].n && n > 0 && (size_t)n < sizeof(f->evidence))
			snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n, "; SM active %.0f%%",
				 g->stat[GW_RS_SM].mean * 100);
	} else if (!in_sync && gw_rpt_dips_count(r, g)) {
		struct gw_report_finding *f =
		    gw_rpt_one(r, GW_RK_INPUT_BOUND, gi, g->dips[0].from, g->dips[g->ndips - 1].to);
		if (!f)
			return GW_ENOMEM;
		char d[32];
		gw_rpt_duration(g->dip_s, d, sizeof(d));
		snprintf(f->evidence, sizeof(f->evidence),
			 "utilisation fell under half its median (%.0f%%) %zu times, %s in all (%.1f%% of "
			 "the time), while memory stayed held",
			 g->stat[GW_RS_UTIL].p50 * 100, g->ndips, d, 100 * g->dip_s / gw_rpt_covered(r, g));
	} else {
		return 0;
	}
	snprintf(r->find[r->nfind - 1].advice, sizeof(r->find[0].advice),
		 "The GPU waits for its input. Feed it faster: more data-loader workers, pinned memory and "
		 "prefetching, data on fast local storage, preprocessing on the GPU or done offline, larger "
		 "batches if memory allows; for inference, batch requests together.");
	return 0;
}

int gw_rpt_find_unstable(struct gw_report *r, size_t gi, bool dips_explained)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	const struct gw_report_stat *u = &g->stat[GW_RS_UTIL];
	/* dips of a busy GPU are sync_stall's or input_bound's; an idle GPU does not swing */
	if (dips_explained || !u->n || u->mean < GW_REPORT_IDLE_UTIL ||
	    g->stat[GW_RS_MEM].mean < GW_RPT_HELD_BYTES || g->seconds < GW_RPT_MIN_RUN_S)
		return 0;
	if (g->util_sd < SWING_CV * u->mean || u->p95 - g->util_p5 < SWING_RANGE)
		return 0;
	struct gw_report_finding *f = gw_rpt_one(r, GW_RK_UNSTABLE_UTILIZATION, gi, r->first, r->last);
	if (!f)
		return GW_ENOMEM;
	snprintf(f->evidence, sizeof(f->evidence),
		 "utilisation swung between %.0f%% (p5) and %.0f%% (p95) from sample to sample: standard "
		 "deviation %.0f points around a mean of %.0f%% (%.0f%% of it)",
		 g->util_p5 * 100, u->p95 * 100, g->util_sd * 100, u->mean * 100, 100 * g->util_sd / u->mean);
	snprintf(f->advice, sizeof(f->advice),
		 "Work arrives unevenly: uneven batches (variable sequence lengths: bucket or pack them), a "
		 "data pipeline that keeps up only part of the time, or bursty requests (inference: dynamic "
		 "batching, more concurrent requests). A steadier feed raises the average.");
	return 0;
}

int gw_rpt_find_imbalance(struct gw_report *r)
{
	for (size_t i = 0; i < r->ngpus; i++) {
		if (i && strcmp(r->gpu[i].instance, r->gpu[i - 1].instance) == 0)
			continue; /* one pass per instance (GPUs are sorted by instance) */
		size_t end = i;
		while (end < r->ngpus && strcmp(r->gpu[end].instance, r->gpu[i].instance) == 0)
			end++;
		for (int what = 0; what < 2; what++) {
			int id = what ? GW_RS_MEM : GW_RS_UTIL;
			/* the leader: the highest mean among the GPUs that hold memory and work */
			size_t lead = end;
			double lm = -1;
			for (size_t j = i; j < end; j++) {
				const struct gw_report_gpu *g = &r->gpu[j];
				double m = what ? g->stat[id].mean / (g->mem_total > 0 ? g->mem_total : NAN)
						: g->stat[id].mean;
				if (g->stat[GW_RS_MEM].mean >= GW_RPT_HELD_BYTES &&
				    g->stat[GW_RS_UTIL].mean >= GW_REPORT_IDLE_UTIL && m > lm) {
					lm = m;
					lead = j;
				}
			}
			if (lead == end)
				continue;
			const struct gw_report_gpu *L = &r->gpu[lead];
			size_t flagged[64], nf = 0;
			double worst = lm;
			for (size_t j = i; j < end && nf < 64; j++) {
				const struct gw_report_gpu *g = &r->gpu[j];
				double scale = what ? g->mem_total : 1, lscale = what ? L->mem_total : 1;
				double m = g->stat[id].mean / scale;
				/* an idle GPU is not part of the work (idle_allocated says so when it holds
				 * memory) */
				if (j == lead || g->stat[GW_RS_MEM].mean < GW_RPT_HELD_BYTES ||
				    !(lm - m >= IMBALANCE_GAP) ||
				    g->stat[GW_RS_UTIL].mean < GW_REPORT_IDLE_UTIL)
					continue;
				size_t both = 0, gap = 0;
				for (size_t k = 0; k < r->ngrid; k++) {
					double a = gw_rpt_grid(L, id, k) / lscale,
					       b = gw_rpt_grid(g, id, k) / scale;
					if (isnan(a) || isnan(b))
						continue;
					both++;
					gap += a - b >= IMBALANCE_GAP / 2;
				}
				if (both && (double)gap >= IMBALANCE_PERSIST * (double)both) {
					flagged[nf++] = j;
					worst = m < worst ? m : worst;
				}
			}
			if (!nf)
				continue;
			struct gw_report_finding *f = gw_rpt_finding_add(r, GW_RK_IMBALANCE, nf + 1);
			if (!f)
				return GW_ENOMEM;
			f->gpus[f->ngpus++] = lead;
			for (size_t k = 0; k < nf; k++)
				f->gpus[f->ngpus++] = flagged[k];
			f->from = r->first;
			f->to = r->last;
			snprintf(f->evidence, sizeof(f->evidence),
				 "GPU %s averaged %.0f%% %s while %zu other GPU%s of the node averaged down "
				 "to %.0f%%, %.0f points or more below it for at least %.0f%% of the time",
				 L->index, lm * 100, what ? "of its memory used" : "utilisation", nf,
				 nf > 1 ? "s" : "", worst * 100, IMBALANCE_GAP * 50, IMBALANCE_PERSIST * 100);
			snprintf(f->advice, sizeof(f->advice),
				 "Spread the work evenly: uneven data shards or sequence lengths, a pipeline "
				 "stage with more layers, a model split that puts more on some ranks, or "
				 "another process on those GPUs. In a synchronous job the busiest GPU sets "
				 "the pace and the others wait.");
		}
	}
	return 0;
}
