/*
 * report_find.c - the findings: the diagnosis flow of utilisation, memory,
 * PCIe, temperature and power, hardware, automated over a built report.
 * Each detector reads the GPUs' statistics, durations and grids and appends
 * findings with the GPUs, the time range, the numbers that triggered it
 * and what to do. Thresholds and why: docs/REPORT.md.
 */
#include "analysis/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0
/* Memory a GPU holds for someone: at least this much, and at least HELD_FRACTION of the total. */
#define HELD_BYTES (1.0 * GIB)
#define HELD_FRACTION 0.02
/* A condition counts once it lasted this long (and at least 3 grid points). */
#define MIN_RUN_S 600.0
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
/* memory_leak: growth over a segment without restarts */
#define LEAK_MIN_S 1200.0
#define LEAK_R2 0.8
#define LEAK_GROWTH 0.05
/* pcie_bound: share of the link's capacity, held for this long */
#define PCIE_SHARE 0.7
#define PCIE_MIN_S 60.0
/* throttling: seconds, and share of the covered time */
#define THROTTLE_MIN_S 60.0
#define THERMAL_SHARE 0.01
#define POWER_SHARE 0.05

#define THERMAL_BITS (0x8u | 0x20u | 0x40u)
#define POWER_BITS (0x4u | 0x80u)

struct gw_report_finding *gw_rpt_finding_add(struct gw_report *r, enum gw_report_kind k, size_t ngpus)
{
	if (r->nfind % 16 == 0) {
		struct gw_report_finding *f = gw_arena_alloc(&r->arena, (r->nfind + 16) * sizeof(*f));
		if (!f)
			return NULL;
		if (r->nfind)
			memcpy(f, r->find, r->nfind * sizeof(*f));
		r->find = f;
	}
	struct gw_report_finding *f = &r->find[r->nfind];
	memset(f, 0, sizeof(*f));
	f->gpus = gw_arena_alloc(&r->arena, (ngpus ? ngpus : 1) * sizeof(size_t));
	if (!f->gpus)
		return NULL;
	f->kind = k;
	r->nfind++;
	return f;
}

static struct gw_report_finding *one(struct gw_report *r, enum gw_report_kind k, size_t gi, int64_t from,
				     int64_t to)
{
	struct gw_report_finding *f = gw_rpt_finding_add(r, k, 1);
	if (f) {
		f->gpus[0] = gi;
		f->ngpus = 1;
		f->from = from;
		f->to = to;
	}
	return f;
}

static double covered(const struct gw_report *r, const struct gw_report_gpu *g)
{
	if (g->seconds > 0)
		return g->seconds;
	return r->last > r->first ? (double)(r->last - r->first) / 1000.0 : 1.0;
}

static int64_t at(const struct gw_report *r, size_t k)
{
	return r->from + (int64_t)k * r->step;
}

static double grid(const struct gw_report_gpu *g, int id, size_t k)
{
	return g->grid[id] ? g->grid[id][k] : NAN;
}

static bool held(const struct gw_report_gpu *g, size_t k)
{
	double m = grid(g, GW_RS_MEM, k);
	return m >= HELD_BYTES && (g->mem_total <= 0 || m >= HELD_FRACTION * g->mem_total);
}

/* Grid points where a condition held, counting only runs of at least min_s: first, last and time. */
struct runs {
	size_t first, last, points;
	bool any;
};

typedef bool (*cond_fn)(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg);

static struct runs runs_of(const struct gw_report *r, const struct gw_report_gpu *g, cond_fn c,
			   const void *arg, double min_s)
{
	struct runs out = {0};
	size_t minlen = (size_t)ceil(min_s * 1000.0 / (double)r->step);
	if (minlen < 1)
		minlen = 1;
	for (size_t k = 0; k < r->ngrid;) {
		if (!c(r, g, k, arg)) {
			k++;
			continue;
		}
		size_t e = k;
		while (e + 1 < r->ngrid && c(r, g, e + 1, arg))
			e++;
		if (e - k + 1 >= minlen) {
			if (!out.any)
				out.first = k;
			out.last = e;
			out.points += e - k + 1;
			out.any = true;
		}
		k = e + 1;
	}
	return out;
}

static double run_seconds(const struct gw_report *r, const struct runs *u)
{
	return (double)u->points * (double)r->step / 1000.0;
}

static bool idle_held(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return grid(g, GW_RS_UTIL, k) < GW_REPORT_IDLE_UTIL && held(g, k);
}

static bool busy_held(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return grid(g, GW_RS_UTIL, k) >= GW_REPORT_IDLE_UTIL && held(g, k);
}

static double mean_where(const struct gw_report *r, const struct gw_report_gpu *g, int id, cond_fn c)
{
	double acc = 0;
	size_t n = 0;
	for (size_t k = 0; k < r->ngrid; k++) {
		double v = grid(g, id, k);
		if (!isnan(v) && c(r, g, k, NULL)) {
			acc += v;
			n++;
		}
	}
	return n ? acc / (double)n : NAN;
}

static int find_idle_allocated(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	struct runs u = runs_of(r, g, idle_held, NULL, MIN_RUN_S);
	if (!u.any)
		return 0;
	struct gw_report_finding *f = one(r, GW_RK_IDLE_ALLOCATED, gi, at(r, u.first), at(r, u.last));
	if (!f)
		return GW_ENOMEM;
	char d[32];
	double s = run_seconds(r, &u), mem = mean_where(r, g, GW_RS_MEM, idle_held);
	double pw = mean_where(r, g, GW_RS_POWER, idle_held);
	gw_rpt_duration(s, d, sizeof(d));
	int n = snprintf(f->evidence, sizeof(f->evidence),
			 "%.1f GiB of memory held with utilisation under %.0f%% for %s (%.0f%% of the time)",
			 mem / GIB, GW_REPORT_IDLE_UTIL * 100, d, 100 * s / covered(r, g));
	if (!isnan(pw) && n > 0 && (size_t)n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n, ", drawing %.0f W meanwhile", pw);
	snprintf(
	    f->advice, sizeof(f->advice),
	    "A process holds this GPU without using it (a notebook kernel, a finished job that did not exit, "
	    "a "
	    "server without traffic). Find it with gpuwatch smi "
	    "--query-compute-apps=pid,process_name,used_memory "
	    "--format=csv and stop it, or share the GPU (MPS, MIG, time-slicing) so reserved is not idle.");
	return 0;
}

static double throttled_share(const struct gw_report *r, const struct gw_report_gpu *g)
{
	double s = 0;
	for (int k = 0; k < GW_RR_N; k++)
		if (gw_report_reason_info[k].bit & (THERMAL_BITS | POWER_BITS))
			s += g->throttle_s[k];
	return s / covered(r, g);
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

static bool dips_count(const struct gw_report *r, const struct gw_report_gpu *g)
{
	return g->ndips >= DIPS_MIN && g->dip_s >= DIP_SHARE * covered(r, g);
}

static int find_sync_stall(struct gw_report *r, bool *in_sync)
{
	for (size_t i = 0; i < r->ngpus; i++) {
		if (in_sync[i] || !dips_count(r, &r->gpu[i]))
			continue;
		/* the GPUs of this instance whose dips mostly coincide with another's */
		size_t n = 0, total = 0, synced_all = 0;
		int64_t from = 0, to = 0;
		double dip_s = 0;
		for (size_t j = i; j < r->ngpus; j++) {
			const struct gw_report_gpu *g = &r->gpu[j];
			if (strcmp(g->instance, r->gpu[i].instance) != 0 || !dips_count(r, g))
				continue;
			size_t synced;
			int64_t f, t;
			if (dip_sync(r, j, &synced, &f, &t) < SYNC_SHARE)
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
			for (size_t j = i; j < r->ngpus; j++)
				if (strcmp(r->gpu[j].instance, r->gpu[i].instance) == 0)
					in_sync[j] = false;
			continue;
		}
		struct gw_report_finding *f = gw_rpt_finding_add(r, GW_RK_SYNC_STALL, n);
		if (!f)
			return GW_ENOMEM;
		for (size_t j = i; j < r->ngpus; j++)
			if (in_sync[j] && strcmp(r->gpu[j].instance, r->gpu[i].instance) == 0)
				f->gpus[f->ngpus++] = j;
		f->from = from;
		f->to = to;
		char d[32];
		gw_rpt_duration(dip_s / (double)n, d, sizeof(d));
		snprintf(f->evidence, sizeof(f->evidence),
			 "%zu GPUs dipped under half their median utilisation together: %zu of their %zu "
			 "dips (%.0f%%) "
			 "coincide with another GPU's within %d s; %s of dips per GPU (%.1f%% of the time)",
			 n, synced_all, total, 100.0 * (double)synced_all / (double)total, DIP_TOL_MS / 1000,
			 d, 100 * dip_s / (double)n / covered(r, &r->gpu[i]));
		snprintf(f->advice, sizeof(f->advice),
			 "The GPUs wait at the same moments, so something they share stalls them: a "
			 "collective waiting "
			 "for the slowest rank, a checkpoint or evaluation, a shared data loader. Overlap "
			 "communication "
			 "with compute, write checkpoints asynchronously, check NCCL's transport "
			 "(NCCL_DEBUG=INFO) and "
			 "look for a straggler rank or node.");
	}
	return 0;
}

static bool is_held(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return held(g, k) && !isnan(grid(g, GW_RS_UTIL, k));
}

static int find_input_bound(struct gw_report *r, size_t gi, bool in_sync)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	/* low: the time memory was held, on average busy but not much (idle is idle_allocated's) */
	struct runs u = runs_of(r, g, is_held, NULL, 0);
	double util = mean_where(r, g, GW_RS_UTIL, is_held), held_s = run_seconds(r, &u);
	struct runs b = runs_of(r, g, busy_held, NULL, 0);
	if (u.any && held_s >= MIN_RUN_S && held_s >= 0.25 * covered(r, g) && util >= GW_REPORT_IDLE_UTIL &&
	    util < LOW_UTIL && throttled_share(r, g) < 0.5) {
		struct gw_report_finding *f = one(r, GW_RK_INPUT_BOUND, gi, at(r, b.first), at(r, b.last));
		if (!f)
			return GW_ENOMEM;
		char d[32];
		gw_rpt_duration(held_s, d, sizeof(d));
		snprintf(
		    f->evidence, sizeof(f->evidence),
		    "utilisation averaged %.0f%% (p95 %.0f%%) over %s while %.1f GiB of memory was held; SM "
		    "active %.0f%%",
		    util * 100, g->stat[GW_RS_UTIL].p95 * 100, d, mean_where(r, g, GW_RS_MEM, is_held) / GIB,
		    g->stat[GW_RS_SM].n ? g->stat[GW_RS_SM].mean * 100 : NAN);
	} else if (!in_sync && dips_count(r, g)) {
		struct gw_report_finding *f =
		    one(r, GW_RK_INPUT_BOUND, gi, g->dips[0].from, g->dips[g->ndips - 1].to);
		if (!f)
			return GW_ENOMEM;
		char d[32];
		gw_rpt_duration(g->dip_s, d, sizeof(d));
		snprintf(f->evidence, sizeof(f->evidence),
			 "utilisation fell under half its median (%.0f%%) %zu times, %s in all (%.1f%% of "
			 "the time), "
			 "while memory stayed held",
			 g->stat[GW_RS_UTIL].p50 * 100, g->ndips, d, 100 * g->dip_s / covered(r, g));
	} else {
		return 0;
	}
	snprintf(r->find[r->nfind - 1].advice, sizeof(r->find[0].advice),
		 "The GPU waits for its input. Feed it faster: more data-loader workers, pinned memory and "
		 "prefetching, data on fast local storage, preprocessing on the GPU or done offline, larger "
		 "batches "
		 "if memory allows; for inference, batch requests together.");
	return 0;
}

static int find_unstable(struct gw_report *r, size_t gi, bool dips_explained)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	const struct gw_report_stat *u = &g->stat[GW_RS_UTIL];
	/* dips of a busy GPU are sync_stall's or input_bound's; an idle GPU does not swing */
	if (dips_explained || !u->n || u->mean < GW_REPORT_IDLE_UTIL ||
	    g->stat[GW_RS_MEM].mean < HELD_BYTES || g->seconds < MIN_RUN_S)
		return 0;
	if (g->util_sd < SWING_CV * u->mean || u->p95 - g->util_p5 < SWING_RANGE)
		return 0;
	struct gw_report_finding *f = one(r, GW_RK_UNSTABLE_UTILIZATION, gi, r->first, r->last);
	if (!f)
		return GW_ENOMEM;
	snprintf(f->evidence, sizeof(f->evidence),
		 "utilisation swung between %.0f%% (p5) and %.0f%% (p95) from sample to sample: standard "
		 "deviation "
		 "%.0f points around a mean of %.0f%% (%.0f%% of it)",
		 g->util_p5 * 100, u->p95 * 100, g->util_sd * 100, u->mean * 100, 100 * g->util_sd / u->mean);
	snprintf(
	    f->advice, sizeof(f->advice),
	    "Work arrives unevenly: uneven batches (variable sequence lengths: bucket or pack them), a data "
	    "pipeline that keeps up only part of the time, or bursty requests (inference: dynamic batching, "
	    "more concurrent requests). A steadier feed raises the average.");
	return 0;
}

static int find_imbalance(struct gw_report *r)
{
	for (size_t i = 0; i < r->ngpus; i++) {
		if (i && strcmp(r->gpu[i].instance, r->gpu[i - 1].instance) == 0)
			continue; /* one pass per instance (GPUs are sorted by instance) */
		size_t end = i;
		while (end < r->ngpus && strcmp(r->gpu[end].instance, r->gpu[i].instance) == 0)
			end++;
		for (int what = 0; what < 2; what++) {
			int id = what ? GW_RS_MEM : GW_RS_UTIL;
			/* the leader: the highest mean among the GPUs that hold memory */
			size_t lead = end;
			double lm = -1;
			for (size_t j = i; j < end; j++) {
				const struct gw_report_gpu *g = &r->gpu[j];
				double m = what ? g->stat[id].mean / (g->mem_total > 0 ? g->mem_total : NAN)
						: g->stat[id].mean;
				if (g->stat[GW_RS_MEM].mean >= HELD_BYTES && m > lm) {
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
				if (j == lead || g->stat[GW_RS_MEM].mean < HELD_BYTES ||
				    !(lm - m >= IMBALANCE_GAP) ||
				    g->stat[GW_RS_UTIL].mean < GW_REPORT_IDLE_UTIL)
					continue;
				size_t both = 0, gap = 0;
				for (size_t k = 0; k < r->ngrid; k++) {
					double a = grid(L, id, k) / lscale, b = grid(g, id, k) / scale;
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
				 "to %.0f%%, "
				 "%.0f points or more below it for at least %.0f%% of the time",
				 L->index, lm * 100, what ? "of its memory used" : "utilisation", nf,
				 nf > 1 ? "s" : "", worst * 100, IMBALANCE_GAP * 50, IMBALANCE_PERSIST * 100);
			snprintf(
			    f->advice, sizeof(f->advice),
			    "Spread the work evenly: uneven data shards or sequence lengths, a pipeline "
			    "stage with "
			    "more layers, a model split that puts more on some ranks, or another process on "
			    "those "
			    "GPUs. In a synchronous job the busiest GPU sets the pace and the others wait.");
		}
	}
	return 0;
}

static bool near_full(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return g->mem_total > 0 && grid(g, GW_RS_MEM, k) >= GW_REPORT_NEAR_FULL * g->mem_total;
}

static int find_memory_pressure(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	double peak = g->stat[GW_RS_MEM].max;
	if (g->mem_total <= 0 || !(g->near_full_s >= 60 || peak >= 0.98 * g->mem_total))
		return 0;
	struct runs u = runs_of(r, g, near_full, NULL, 0);
	struct gw_report_finding *f = one(r, GW_RK_MEMORY_PRESSURE, gi, u.any ? at(r, u.first) : r->first,
					  u.any ? at(r, u.last) : r->last);
	if (!f)
		return GW_ENOMEM;
	char d[32];
	gw_rpt_duration(g->near_full_s, d, sizeof(d));
	snprintf(f->evidence, sizeof(f->evidence),
		 "memory at or above %.0f%% of %.1f GiB for %s; peak %.1f GiB (%.1f%%)",
		 GW_REPORT_NEAR_FULL * 100, g->mem_total / GIB, d, peak / GIB, 100 * peak / g->mem_total);
	snprintf(f->advice, sizeof(f->advice),
		 "One allocation more fails with out of memory. Hold less per GPU: smaller micro-batches "
		 "with gradient "
		 "accumulation, activation checkpointing, mixed precision, sharded optimizer states (ZeRO, "
		 "FSDP), a "
		 "smaller KV cache for inference; against fragmentation, PyTorch's expandable_segments "
		 "allocator.");
	return 0;
}

static int find_memory_leak(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	const double *m = g->grid[GW_RS_MEM];
	if (!m || g->mem_total <= 0)
		return 0;
	double drop = fmax(0.1 * g->mem_total, 5 * GIB), prev = NAN;
	size_t seg = 0, restarts = 0, best_from = 0, best_to = 0;
	struct gw_rpt_fit best = {0};
	double *x = gw_arena_alloc_uninit(&r->arena, r->ngrid * sizeof(double));
	if (!x)
		return GW_ENOMEM;
	for (size_t k = 0; k < r->ngrid; k++)
		x[k] = (double)k * (double)r->step / 3600000.0; /* hours */
	/* segments between restarts (a fall of a tenth of the memory); the latest one that grows steadily */
	for (size_t k = 0; k <= r->ngrid; k++) {
		bool cut = k == r->ngrid || (!isnan(m[k]) && !isnan(prev) && prev - m[k] >= drop);
		if (k < r->ngrid && !isnan(m[k]))
			prev = m[k];
		if (!cut)
			continue;
		if (k < r->ngrid)
			restarts++;
		struct gw_rpt_fit fit;
		double span_s = (double)(k - seg) * (double)r->step / 1000.0;
		if (span_s >= LEAK_MIN_S && gw_rpt_linfit(x + seg, m + seg, k - seg, &fit) && fit.n >= 10 &&
		    fit.b > 0 && fit.r2 >= LEAK_R2 &&
		    fit.b * span_s / 3600.0 >= fmax(LEAK_GROWTH * g->mem_total, 2 * GIB)) {
			best = fit;
			best_from = seg;
			best_to = k - 1;
		}
		seg = k;
	}
	if (!best.n)
		return 0;
	while (best_to > best_from && isnan(m[best_to]))
		best_to--;
	while (best_from < best_to && isnan(m[best_from]))
		best_from++;
	struct gw_report_finding *f = one(r, GW_RK_MEMORY_LEAK, gi, at(r, best_from), at(r, best_to));
	if (!f)
		return GW_ENOMEM;
	char d[32], full[32];
	gw_rpt_duration((double)(best_to - best_from) * (double)r->step / 1000.0, d, sizeof(d));
	double left_h = (g->mem_total - m[best_to]) / best.b;
	gw_rpt_duration(left_h * 3600, full, sizeof(full));
	int n = snprintf(
	    f->evidence, sizeof(f->evidence),
	    "memory grew steadily from %.1f to %.1f GiB in %s (%+.2f GiB/h, R2 %.2f); at this rate it is "
	    "full in about %s",
	    m[best_from] / GIB, m[best_to] / GIB, d, best.b / GIB, best.r2, full);
	if (restarts && n > 0 && (size_t)n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n,
			 "; it fell back %zu time%s in the range (restarts?)", restarts,
			 restarts > 1 ? "s" : "");
	snprintf(
	    f->advice, sizeof(f->advice),
	    "Something keeps memory it no longer needs: tensors kept across steps (a loss summed without "
	    ".item() or .detach(), lists of outputs), caches or queues that only grow. Compare "
	    "torch.cuda.memory_allocated() between steps to find it; until fixed, restart before it is "
	    "full.");
	return 0;
}

static bool pcie_high(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return fmax(grid(g, GW_RS_PCIE_RX, k), grid(g, GW_RS_PCIE_TX, k)) >= PCIE_SHARE * g->pcie_capacity;
}

static int find_pcie_bound(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	if (g->pcie_capacity <= 0)
		return 0;
	struct runs u = runs_of(r, g, pcie_high, NULL, 0);
	if (!u.any || run_seconds(r, &u) < PCIE_MIN_S)
		return 0;
	struct gw_report_finding *f = one(r, GW_RK_PCIE_BOUND, gi, at(r, u.first), at(r, u.last));
	if (!f)
		return GW_ENOMEM;
	char d[32];
	gw_rpt_duration(run_seconds(r, &u), d, sizeof(d));
	snprintf(f->evidence, sizeof(f->evidence),
		 "PCIe throughput at or above %.0f%% of the link's %.1f GB/s for %s; peak rx %.1f GB/s, tx "
		 "%.1f GB/s",
		 PCIE_SHARE * 100, g->pcie_capacity / 1e9, d, g->stat[GW_RS_PCIE_RX].max / 1e9,
		 g->stat[GW_RS_PCIE_TX].max / 1e9);
	snprintf(f->advice, sizeof(f->advice),
		 "Copies between host and GPU fill the link: keep data on the GPU between steps, use pinned "
		 "memory "
		 "and non-blocking copies overlapped with compute, preprocess on the GPU, avoid offloading "
		 "weights or "
		 "optimizer states to the CPU; check the link runs at its full generation and width.");
	return 0;
}

static bool bits_set(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	double v = g->grid_reasons ? g->grid_reasons[k] : NAN;
	return !isnan(v) && ((uint64_t)v & *(const unsigned *)arg);
}

/* A throttling finding's range: where the reason bits say so, else the samples' range. */
static void throttle_range(const struct gw_report *r, const struct gw_report_gpu *g, unsigned bits,
			   int64_t *from, int64_t *to)
{
	struct runs u = runs_of(r, g, bits_set, &bits, 0);
	*from = u.any ? at(r, u.first) : r->first;
	*to = u.any ? at(r, u.last) : r->last;
}

static double reason_sum(const struct gw_report_gpu *g, unsigned bits)
{
	double s = 0;
	for (int k = 0; k < GW_RR_N; k++)
		if (gw_report_reason_info[k].bit & bits)
			s += g->throttle_s[k];
	return s;
}

static int find_thermal(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	double s = reason_sum(g, THERMAL_BITS);
	if (s < THROTTLE_MIN_S || s < THERMAL_SHARE * covered(r, g))
		return 0;
	int64_t from, to;
	throttle_range(r, g, THERMAL_BITS, &from, &to);
	struct gw_report_finding *f = one(r, GW_RK_THERMAL_THROTTLING, gi, from, to);
	if (!f)
		return GW_ENOMEM;
	char d[32], sw[32], hw[32];
	gw_rpt_duration(s, d, sizeof(d));
	gw_rpt_duration(g->throttle_s[GW_RR_SW_THERMAL], sw, sizeof(sw));
	gw_rpt_duration(g->throttle_s[GW_RR_HW_THERMAL] + g->throttle_s[GW_RR_HW_SLOWDOWN], hw, sizeof(hw));
	snprintf(
	    f->evidence, sizeof(f->evidence),
	    "clocks held down for heat for %s (%.0f%% of the time: software thermal slowdown %s, hardware "
	    "slowdown %s); temperature p95 %.0f C, max %.0f C; SM clock mean %.0f MHz, max %.0f MHz",
	    d, 100 * s / covered(r, g), sw, hw, g->stat[GW_RS_TEMP].p95, g->stat[GW_RS_TEMP].max,
	    g->stat[GW_RS_SM_CLOCK].mean / 1e6, g->stat[GW_RS_SM_CLOCK].max / 1e6);
	snprintf(f->advice, sizeof(f->advice),
		 "The GPU is too hot to hold its clocks. Check the inlet air temperature and airflow "
		 "(blanking panels, "
		 "filters, failed fans), the room's cooling and the neighbouring boards; lowering the power "
		 "limit a "
		 "little (nvidia-smi -pl) often costs less speed than the slowdown does.");
	return 0;
}

static int find_power(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	double s = reason_sum(g, POWER_BITS);
	if (s < THROTTLE_MIN_S || s < POWER_SHARE * covered(r, g))
		return 0;
	int64_t from, to;
	throttle_range(r, g, POWER_BITS, &from, &to);
	struct gw_report_finding *f = one(r, GW_RK_POWER_CAPPED, gi, from, to);
	if (!f)
		return GW_ENOMEM;
	char d[32];
	gw_rpt_duration(s, d, sizeof(d));
	int n = snprintf(
	    f->evidence, sizeof(f->evidence),
	    "clocks held at the power limit for %s (%.0f%% of the time); power mean %.0f W, p95 %.0f W", d,
	    100 * s / covered(r, g), g->stat[GW_RS_POWER].mean, g->stat[GW_RS_POWER].p95);
	if (g->power_limit > 0 && n > 0 && (size_t)n < sizeof(f->evidence))
		n += snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n,
			      " against an enforced limit of %.0f W", g->power_limit);
	if (g->power_default > 0 && n > 0 && (size_t)n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n, " (default %.0f W)",
			 g->power_default);
	if (g->power_limit > 0 && g->power_default > 0 && g->power_limit < 0.95 * g->power_default)
		snprintf(f->advice, sizeof(f->advice),
			 "The enforced limit (%.0f W) is below the board's default (%.0f W): someone or a "
			 "node policy "
			 "lowered it. Raise it (nvidia-smi -pl %.0f) if the power budget allows.",
			 g->power_limit, g->power_default, g->power_default);
	else
		snprintf(f->advice, sizeof(f->advice),
			 "The GPU works at its power limit: expected for compute-bound work at full load. "
			 "More speed "
			 "needs more efficient kernels (mixed precision, fused operations) or a higher limit "
			 "where the "
			 "board and the power budget allow it.");
	return 0;
}

static int find_hardware(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	const struct gw_report_hw *h = &g->hw;
	if (!(h->xid > 0 || h->ecc_uncorrected > 0 || h->ecc_corrected > 0 || h->retired_pages > 0 ||
	      h->remapped_rows > 0 || h->pcie_replays > 0))
		return 0;
	struct gw_report_finding *f = one(r, GW_RK_HARDWARE, gi, h->first, h->last);
	if (!f)
		return GW_ENOMEM;
	size_t n = 0, cap = sizeof(f->evidence);
	char *e = f->evidence;
	if (h->xid > 0) {
		n += (size_t)snprintf(e + n, cap - n, "%.0f XID%s (", h->xid, h->xid == 1 ? "" : "s");
		for (size_t i = 0; i < h->nxid_codes && n < cap; i++)
			n += (size_t)snprintf(e + n, cap - n, "%s%d", i ? ", " : "", h->xid_codes[i]);
		if (n < cap)
			n += (size_t)snprintf(e + n, cap - n, ")");
	}
	const struct {
		double v;
		const char *what;
	} parts[] = {
	    {h->ecc_uncorrected, "uncorrected ECC errors"},
	    {h->ecc_corrected, "corrected ECC errors"},
	    {h->retired_pages, "pages retired"},
	    {h->remapped_rows, "rows remapped for uncorrectable errors"},
	    {h->pcie_replays, "PCIe replays"},
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && n < cap; i++)
		if (parts[i].v > 0)
			n += (size_t)snprintf(e + n, cap - n, "%s%.0f %s", n ? "; " : "", parts[i].v,
					      parts[i].what);
	if (h->ecc_uncorrected > 0 || h->remapped_rows > 0 || h->retired_pages > 0 || h->xid > 0)
		snprintf(f->advice, sizeof(f->advice),
			 "Drain the GPU's jobs and check it: uncorrectable memory errors and most XIDs (48, "
			 "63, 64, 74, "
			 "79, 92, 94, 95) need a GPU reset or reboot to remap or retire the memory, then a "
			 "diagnostic "
			 "(dcgmi diag -r 3); errors that come back mean a replacement. XIDs 13, 31 and 43 "
			 "are usually "
			 "the application's.");
	else if (h->pcie_replays > 0)
		snprintf(f->advice, sizeof(f->advice),
			 "The PCIe link retransmits: reseat the board or riser, check the slot and cables, "
			 "and watch "
			 "whether the replays keep growing.");
	else
		snprintf(
		    f->advice, sizeof(f->advice),
		    "Corrected ECC errors alone cost nothing yet; many of them, or growing fast, come before "
		    "uncorrectable ones: watch the rate and plan a check.");
	return 0;
}

/* Findings of one kind, range and evidence on several GPUs of an instance become one finding. */
static int merge_same(struct gw_report *r)
{
	size_t out = 0;
	for (size_t i = 0; i < r->nfind; i++) {
		const struct gw_report_finding *f = &r->find[i];
		size_t k = 0;
		for (; k < out; k++) {
			const struct gw_report_finding *g = &r->find[k];
			if (g->kind == f->kind && g->from == f->from && g->to == f->to &&
			    strcmp(g->evidence, f->evidence) == 0 &&
			    strcmp(r->gpu[g->gpus[0]].instance, r->gpu[f->gpus[0]].instance) == 0)
				break;
		}
		if (k == out) {
			r->find[out++] = *f;
			continue;
		}
		struct gw_report_finding *g = &r->find[k];
		size_t *gpus = gw_arena_alloc(&r->arena, (g->ngpus + f->ngpus) * sizeof(size_t));
		if (!gpus)
			return GW_ENOMEM;
		memcpy(gpus, g->gpus, g->ngpus * sizeof(size_t));
		memcpy(gpus + g->ngpus, f->gpus, f->ngpus * sizeof(size_t));
		g->gpus = gpus;
		g->ngpus += f->ngpus;
	}
	r->nfind = out;
	return 0;
}

int gw_rpt_find(struct gw_report *r)
{
	bool *in_sync = gw_arena_alloc(&r->arena, (r->ngpus ? r->ngpus : 1) * sizeof(bool));
	if (!in_sync)
		return GW_ENOMEM;
	int rc = 0;
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_idle_allocated(r, i);
	if (!rc)
		rc = find_sync_stall(r, in_sync);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_input_bound(r, i, in_sync[i]);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_unstable(r, i, in_sync[i] || dips_count(r, &r->gpu[i]));
	if (!rc)
		rc = find_imbalance(r);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_memory_pressure(r, i);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_memory_leak(r, i);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_pcie_bound(r, i);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_thermal(r, i);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_power(r, i);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = find_hardware(r, i);
	return rc ? rc : merge_same(r);
}
