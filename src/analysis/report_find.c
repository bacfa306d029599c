/*
 * report_find.c - the findings: the diagnosis flow of utilisation, memory,
 * PCIe, temperature and power, hardware, automated over a built report.
 * Each detector reads the GPUs' statistics, durations and grids and appends
 * findings with the GPUs, the time range, the numbers that triggered it
 * and what to do. Here: the helpers they share, the memory, PCIe,
 * throttling and hardware detectors, and the order they run in; the
 * utilisation ones are in report_find_util.c. Thresholds and why:
 * docs/REPORT.md.
 */
#include "analysis/report_int.h"

#include "core/sort.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

struct gw_report_finding *gw_rpt_one(struct gw_report *r, enum gw_report_kind k, size_t gi, int64_t from,
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

double gw_rpt_covered(const struct gw_report *r, const struct gw_report_gpu *g)
{
	if (g->seconds > 0)
		return g->seconds;
	return r->last > r->first ? (double)(r->last - r->first) / 1000.0 : 1.0;
}

int64_t gw_rpt_at(const struct gw_report *r, size_t k)
{
	return r->from + (int64_t)k * r->step;
}

double gw_rpt_grid(const struct gw_report_gpu *g, int id, size_t k)
{
	return g->grid[id] ? g->grid[id][k] : NAN;
}

bool gw_rpt_held(const struct gw_report_gpu *g, size_t k)
{
	double m = gw_rpt_grid(g, GW_RS_MEM, k);
	return m >= GW_RPT_HELD_BYTES && (g->mem_total <= 0 || m >= GW_RPT_HELD_FRACTION * g->mem_total);
}

struct gw_rpt_runs gw_rpt_runs_of(const struct gw_report *r, const struct gw_report_gpu *g, gw_rpt_cond_fn c,
				  const void *arg, double min_s)
{
	struct gw_rpt_runs out = {0};
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

double gw_rpt_run_seconds(const struct gw_report *r, const struct gw_rpt_runs *u)
{
	return (double)u->points * (double)r->step / 1000.0;
}

double gw_rpt_mean_where(const struct gw_report *r, const struct gw_report_gpu *g, int id, gw_rpt_cond_fn c)
{
	double acc = 0;
	size_t n = 0;
	for (size_t k = 0; k < r->ngrid; k++) {
		double v = gw_rpt_grid(g, id, k);
		if (!isnan(v) && c(r, g, k, NULL)) {
			acc += v;
			n++;
		}
	}
	return n ? acc / (double)n : NAN;
}

static bool near_full(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return g->mem_total > 0 && gw_rpt_grid(g, GW_RS_MEM, k) >= GW_REPORT_NEAR_FULL * g->mem_total;
}

static int find_memory_pressure(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	double peak = g->stat[GW_RS_MEM].max;
	if (g->mem_total <= 0 || !(g->near_full_s >= 60 || peak >= 0.98 * g->mem_total))
		return 0;
	struct gw_rpt_runs u = gw_rpt_runs_of(r, g, near_full, NULL, 0);
	struct gw_report_finding *f =
	    gw_rpt_one(r, GW_RK_MEMORY_PRESSURE, gi, u.any ? gw_rpt_at(r, u.first) : r->first,
		       u.any ? gw_rpt_at(r, u.last) : r->last);
	if (!f)
		return GW_ENOMEM;
	char d[32];
	gw_rpt_duration(g->near_full_s, d, sizeof(d));
	snprintf(f->evidence, sizeof(f->evidence),
		 "memory at or above %.0f%% of %.1f GiB for %s; peak %.1f GiB (%.1f%%)",
		 GW_REPORT_NEAR_FULL * 100, g->mem_total / GW_RPT_GIB, d, peak / GW_RPT_GIB,
		 100 * peak / g->mem_total);
	snprintf(f->advice, sizeof(f->advice),
		 "One allocation more fails with out of memory. Hold less per GPU: smaller micro-batches "
		 "with gradient accumulation, activation checkpointing, mixed precision, sharded optimizer "
		 "states (ZeRO, FSDP), a smaller KV cache for inference; against fragmentation, PyTorch's "
		 "expandable_segments allocator.");
	return 0;
}

static int find_memory_leak(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	const double *m = g->grid[GW_RS_MEM];
	if (!m || g->mem_total <= 0)
		return 0;
	double drop = fmax(0.1 * g->mem_total, 5 * GW_RPT_GIB), prev = NAN;
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
		    fit.b * span_s / 3600.0 >= fmax(LEAK_GROWTH * g->mem_total, 2 * GW_RPT_GIB)) {
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
	struct gw_report_finding *f =
	    gw_rpt_one(r, GW_RK_MEMORY_LEAK, gi, gw_rpt_at(r, best_from), gw_rpt_at(r, best_to));
	if (!f)
		return GW_ENOMEM;
	char d[32], full[32];
	gw_rpt_duration((double)(best_to - best_from) * (double)r->step / 1000.0, d, sizeof(d));
	double left_h = fmax(0, (g->mem_total - m[best_to]) / best.b); /* 0: full already */
	gw_rpt_duration(left_h * 3600, full, sizeof(full));
	int n = snprintf(f->evidence, sizeof(f->evidence),
			 "memory grew steadily from %.1f to %.1f GiB in %s (%+.2f GiB/h, R2 %.2f); at this "
			 "rate it is full in about %s",
			 m[best_from] / GW_RPT_GIB, m[best_to] / GW_RPT_GIB, d, best.b / GW_RPT_GIB, best.r2,
			 full);
	if (restarts && n > 0 && (size_t)n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n,
			 "; it fell back %zu time%s in the range (restarts?)", restarts,
			 restarts > 1 ? "s" : "");
	snprintf(f->advice, sizeof(f->advice),
		 "Something keeps memory it no longer needs: tensors kept across steps (a loss summed "
		 "without .item() or .detach(), lists of outputs), caches or queues that only grow. Compare "
		 "torch.cuda.memory_allocated() between steps to find it; until fixed, restart before it is "
		 "full.");
	return 0;
}

static bool pcie_high(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	(void)arg;
	return fmax(gw_rpt_grid(g, GW_RS_PCIE_RX, k), gw_rpt_grid(g, GW_RS_PCIE_TX, k)) >=
	       PCIE_SHARE * g->pcie_capacity;
}

static int find_pcie_bound(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	if (g->pcie_capacity <= 0)
		return 0;
	struct gw_rpt_runs u = gw_rpt_runs_of(r, g, pcie_high, NULL, 0);
	if (!u.any || gw_rpt_run_seconds(r, &u) < PCIE_MIN_S)
		return 0;
	struct gw_report_finding *f =
	    gw_rpt_one(r, GW_RK_PCIE_BOUND, gi, gw_rpt_at(r, u.first), gw_rpt_at(r, u.last));
	if (!f)
		return GW_ENOMEM;
	char d[32];
	gw_rpt_duration(gw_rpt_run_seconds(r, &u), d, sizeof(d));
	snprintf(f->evidence, sizeof(f->evidence),
		 "PCIe throughput at or above %.0f%% of the link's %.1f GB/s for %s; peak rx %.1f GB/s, tx "
		 "%.1f GB/s",
		 PCIE_SHARE * 100, g->pcie_capacity / 1e9, d, g->stat[GW_RS_PCIE_RX].max / 1e9,
		 g->stat[GW_RS_PCIE_TX].max / 1e9);
	snprintf(
	    f->advice, sizeof(f->advice),
	    "Copies between host and GPU fill the link: keep data on the GPU between steps, use pinned "
	    "memory and non-blocking copies overlapped with compute, preprocess on the GPU, avoid offloading "
	    "weights or optimizer states to the CPU; check the link runs at its full generation and width.");
	return 0;
}

static bool bits_set(const struct gw_report *r, const struct gw_report_gpu *g, size_t k, const void *arg)
{
	(void)r;
	double v = g->grid_reasons ? g->grid_reasons[k] : NAN;
	return v >= 0 && v < 18446744073709551616.0 && ((uint64_t)v & *(const unsigned *)arg);
}

/* A throttling finding's range: where the reason bits say so, else the samples' range. */
static void throttle_range(const struct gw_report *r, const struct gw_report_gpu *g, unsigned bits,
			   int64_t *from, int64_t *to)
{
	struct gw_rpt_runs u = gw_rpt_runs_of(r, g, bits_set, &bits, 0);
	*from = u.any ? gw_rpt_at(r, u.first) : r->first;
	*to = u.any ? gw_rpt_at(r, u.last) : r->last;
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
	double s = reason_sum(g, GW_RPT_THERMAL_BITS);
	if (s < THROTTLE_MIN_S || s < THERMAL_SHARE * gw_rpt_covered(r, g))
		return 0;
	int64_t from, to;
	throttle_range(r, g, GW_RPT_THERMAL_BITS, &from, &to);
	struct gw_report_finding *f = gw_rpt_one(r, GW_RK_THERMAL_THROTTLING, gi, from, to);
	if (!f)
		return GW_ENOMEM;
	char d[32], sw[32], hw[32];
	gw_rpt_duration(s, d, sizeof(d));
	gw_rpt_duration(g->throttle_s[GW_RR_SW_THERMAL], sw, sizeof(sw));
	gw_rpt_duration(g->throttle_s[GW_RR_HW_THERMAL] + g->throttle_s[GW_RR_HW_SLOWDOWN], hw, sizeof(hw));
	size_t n = (size_t)snprintf(f->evidence, sizeof(f->evidence),
				    "clocks held down for heat for %s (%.0f%% of the time: software thermal "
				    "slowdown %s, hardware slowdown %s)",
				    d, 100 * s / gw_rpt_covered(r, g), sw, hw);
	if (g->stat[GW_RS_TEMP].n && n < sizeof(f->evidence))
		n += (size_t)snprintf(f->evidence + n, sizeof(f->evidence) - n,
				      "; temperature p95 %.0f C, max %.0f C", g->stat[GW_RS_TEMP].p95,
				      g->stat[GW_RS_TEMP].max);
	if (g->stat[GW_RS_SM_CLOCK].n && n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - n, "; SM clock mean %.0f MHz, max %.0f MHz",
			 g->stat[GW_RS_SM_CLOCK].mean / 1e6, g->stat[GW_RS_SM_CLOCK].max / 1e6);
	snprintf(
	    f->advice, sizeof(f->advice),
	    "The GPU is too hot to hold its clocks. Check the inlet air temperature and airflow (blanking "
	    "panels, filters, failed fans), the room's cooling and the neighbouring boards; lowering the "
	    "power limit a little (nvidia-smi -pl) often costs less speed than the slowdown does.");
	return 0;
}

static int find_power(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	double s = reason_sum(g, GW_RPT_POWER_BITS);
	if (s < THROTTLE_MIN_S || s < POWER_SHARE * gw_rpt_covered(r, g))
		return 0;
	int64_t from, to;
	throttle_range(r, g, GW_RPT_POWER_BITS, &from, &to);
	struct gw_report_finding *f = gw_rpt_one(r, GW_RK_POWER_CAPPED, gi, from, to);
	if (!f)
		return GW_ENOMEM;
	char d[32];
	gw_rpt_duration(s, d, sizeof(d));
	int n = snprintf(f->evidence, sizeof(f->evidence),
			 "clocks held at the power limit for %s (%.0f%% of the time)", d,
			 100 * s / gw_rpt_covered(r, g));
	if (g->stat[GW_RS_POWER].n && n > 0 && (size_t)n < sizeof(f->evidence))
		n += snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n,
			      "; power mean %.0f W, p95 %.0f W", g->stat[GW_RS_POWER].mean,
			      g->stat[GW_RS_POWER].p95);
	if (g->power_limit > 0 && n > 0 && (size_t)n < sizeof(f->evidence))
		n += snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n,
			      " against an enforced limit of %.0f W", g->power_limit);
	if (g->power_default > 0 && n > 0 && (size_t)n < sizeof(f->evidence))
		snprintf(f->evidence + n, sizeof(f->evidence) - (size_t)n, " (default %.0f W)",
			 g->power_default);
	if (g->power_limit > 0 && g->power_default > 0 && g->power_limit < 0.95 * g->power_default)
		snprintf(f->advice, sizeof(f->advice),
			 "The enforced limit (%.0f W) is below the board's default (%.0f W): someone or a "
			 "node policy lowered it. Raise it (nvidia-smi -pl %.0f) if the power budget allows.",
			 g->power_limit, g->power_default, g->power_default);
	else
		snprintf(f->advice, sizeof(f->advice),
			 "The GPU works at its power limit: expected for compute-bound work at full load. "
			 "More speed needs more efficient kernels (mixed precision, fused operations) or a "
			 "higher limit where the board and the power budget allow it.");
	return 0;
}

static int find_hardware(struct gw_report *r, size_t gi)
{
	const struct gw_report_gpu *g = &r->gpu[gi];
	const struct gw_report_hw *h = &g->hw;
	if (!(h->xid > 0 || h->ecc_uncorrected > 0 || h->ecc_corrected > 0 || h->retired_pages > 0 ||
	      h->remapped_rows > 0 || h->pcie_replays > 0))
		return 0;
	struct gw_report_finding *f = gw_rpt_one(r, GW_RK_HARDWARE, gi, h->first, h->last);
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
			 "63, 64, 74, 79, 92, 94, 95) need a GPU reset or reboot to remap or retire the "
			 "memory, then a diagnostic (dcgmi diag -r 3); errors that come back mean a "
			 "replacement. XIDs 13, 31 and 43 are usually the application's.");
	else if (h->pcie_replays > 0)
		snprintf(f->advice, sizeof(f->advice),
			 "The PCIe link retransmits: reseat the board or riser, check the slot and cables, "
			 "and watch whether the replays keep growing.");
	else
		snprintf(f->advice, sizeof(f->advice),
			 "Corrected ECC errors alone cost nothing yet; many of them, or growing fast, come "
			 "before uncorrectable ones: watch the rate and plan a check.");
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
		gw_memcpy(gpus, g->gpus, g->ngpus * sizeof(size_t));
		gw_memcpy(gpus + g->ngpus, f->gpus, f->ngpus * sizeof(size_t));
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
		rc = gw_rpt_find_idle_allocated(r, i);
	if (!rc)
		rc = gw_rpt_find_sync_stall(r, in_sync);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = gw_rpt_find_input_bound(r, i, in_sync[i]);
	for (size_t i = 0; !rc && i < r->ngpus; i++)
		rc = gw_rpt_find_unstable(r, i, in_sync[i] || gw_rpt_dips_count(r, &r->gpu[i]));
	if (!rc)
		rc = gw_rpt_find_imbalance(r);
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
	if (!rc)
		rc = gw_rpt_find_power_limit(r);
	return rc ? rc : merge_same(r);
}
