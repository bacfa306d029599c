/*
 * report_read.c - reading a report's series through the querier: one
 * metric name at a time, each series attached to its GPU (instance and
 * index), its raw samples summarised (statistics, durations, counter
 * increases) and folded into the GPU's grid of bucket means.
 */
#include "analysis/report_int.h"

#include "analysis/anomaly_report.h"
#include "core/sort.h"
#include "model/labels.h"
#include "model/match.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct gw_report_stat_info gw_report_stat_info[GW_RS_N] = {
#define GW_RS_INFO(id, key, series, words, unit, scale) {key, series, words, unit, scale},
    GW_REPORT_STATS(GW_RS_INFO)
#undef GW_RS_INFO
};

const struct gw_report_reason_info gw_report_reason_info[GW_RR_N] = {
#define GW_RR_INFO(id, key, bit, counter, dcgm) {key, bit, counter, dcgm},
    GW_REPORT_REASONS(GW_RR_INFO)
#undef GW_RR_INFO
};

static const char *const kind_names[GW_RK_N] = {
#define GW_RK_NAME(id, name) name,
    GW_REPORT_KINDS(GW_RK_NAME)
#undef GW_RK_NAME
};

const char *gw_report_kind_name(enum gw_report_kind k)
{
	return (unsigned)k < GW_RK_N ? kind_names[k] : "?";
}

/* A sample stands for at most this long: Prometheus' lookback, past which a series counts as gone. */
#define GAP_MS 300000
/* Dips: samples under this fraction of the GPU's median utilisation, when the median is at least DIP_BUSY. */
#define DIP_FRACTION 0.5
#define DIP_BUSY 0.5
#define DIPS_MAX 100000

/* Per-GPU PCIe bandwidth of one lane, bytes/s one direction, by generation (after encoding). */
static const double lane_bytes[] = {0, 250e6, 500e6, 984.6e6, 1969e6, 3938e6, 7563e6, 15125e6};

/* What a GPU's reading keeps beside the report. */
struct aux {
	double pcie_gen, pcie_width; /* the largest seen */
	double mem_free;             /* mean free memory, bytes (DCGM_FI_DEV_FB_FREE); 0: unknown */
};

struct reader {
	struct gw_report *r;
	const struct gw_querier *q;
	const struct gw_report_opts *o; /* the options: .only restricts the GPUs */
	struct gw_err *err;
	size_t cap;		       /* gpu slots */
	struct aux *aux; /* per GPU, what only the reading needs */
};

static const char *label(const struct gw_series *s, const char *name)
{
	const char *v = gw_labels_get(&s->labels, name);
	return v ? v : "";
}

/* The GPU a series belongs to; create: add it when new. NULL: not a GPU series, or out of memory. */
static struct gw_report_gpu *gpu_of(struct reader *rd, const struct gw_series *s, bool create)
{
	struct gw_report *r = rd->r;
	const char *index = gw_labels_get(&s->labels, "gpu"), *inst = label(s, "instance");
	if (!index)
		return NULL;
	for (size_t i = 0; i < r->ngpus; i++)
		if (strcmp(r->gpu[i].index, index) == 0 && strcmp(r->gpu[i].instance, inst) == 0)
			return &r->gpu[i];
	if (!create)
		return NULL;
	if (r->ngpus == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 16;
		struct gw_report_gpu *g = gw_arena_alloc(&r->arena, cap * sizeof(*g));
		struct aux *aux = gw_arena_alloc(&r->arena, cap * sizeof(*aux));
		if (!g || !aux)
			return NULL;
		if (r->ngpus) {
			memcpy(g, r->gpu, r->ngpus * sizeof(*g));
			memcpy(aux, rd->aux, r->ngpus * sizeof(*aux));
		}
		r->gpu = g;
		rd->aux = aux;
		rd->cap = cap;
	}
	struct gw_report_gpu *g = &r->gpu[r->ngpus++];
	memset(g, 0, sizeof(*g));
	const char *uuid = gw_labels_get(&s->labels, "uuid"), *name = gw_labels_get(&s->labels, "model");
	g->instance = gw_arena_strdup(&r->arena, inst);
	g->index = gw_arena_strdup(&r->arena, index);
	g->uuid = gw_arena_strdup(&r->arena, uuid ? uuid : label(s, "UUID"));
	g->name = gw_arena_strdup(&r->arena, name ? name : label(s, "modelName"));
	for (int k = 0; k < GW_RS_N; k++)
		g->stat[k].mean = g->stat[k].p50 = g->stat[k].p95 = g->stat[k].min = g->stat[k].max = NAN;
	if (!g->instance || !g->index || !g->uuid || !g->name)
		return NULL;
	return g;
}

/* Bucket means of the series' samples on the report's grid, into grid (NaN where none). */
int gw_rpt_fill_grid(struct gw_report *r, const struct gw_series *s, double **grid, bool or_bits)
{
	if (!*grid) {
		*grid = gw_arena_alloc_uninit(&r->arena, r->ngrid * sizeof(double));
		if (!*grid)
			return GW_ENOMEM;
		for (size_t k = 0; k < r->ngrid; k++)
			(*grid)[k] = NAN;
	}
	double *g = *grid;
	size_t k = 0, cnt = 0;
	double acc = 0;
	uint64_t bits = 0;
	for (size_t i = 0; i <= s->n; i++) {
		size_t b = r->ngrid;
		if (i < s->n) {
			/* bucket b holds [from + b step - step/2, from + b step + step/2) */
			int64_t rel = s->t[i] - r->from + r->step / 2;
			b = rel < 0 ? 0 : (size_t)(rel / r->step);
			if (b >= r->ngrid)
				b = r->ngrid - 1;
		}
		if ((b != k || i == s->n) && cnt) {
			g[k] = or_bits ? (double)bits : acc / (double)cnt;
			acc = 0;
			cnt = 0;
			bits = 0;
		}
		if (i == s->n)
			break;
		k = b;
		if (isnan(s->v[i]))
			continue;
		acc += s->v[i];
		if (or_bits && s->v[i] >= 0 && s->v[i] < 18446744073709551616.0) /* a mask: in range for the cast */
			bits |= (uint64_t)s->v[i];
		cnt++;
	}
	/* a sample stands for the time up to the next one (at most GAP_MS): a log written every minute
	 * fills the buckets between its samples, as the durations count them */
	int64_t last = INT64_MIN;
	size_t j = 0;
	for (size_t b = 0; b < r->ngrid; b++) {
		int64_t tb = r->from + (int64_t)b * r->step;
		while (j < s->n && s->t[j] <= tb + r->step / 2) {
			if (!isnan(s->v[j]))
				last = s->t[j];
			j++;
		}
		if (isnan(g[b]) && b > 0 && !isnan(g[b - 1]) && last != INT64_MIN && tb - last < GAP_MS &&
		    j < s->n)
			g[b] = g[b - 1];
	}
	return 0;
}

/* Utilisation dips of a busy GPU: runs of samples under half its median. */
static int find_dips(struct gw_report *r, struct gw_report_gpu *g, const struct gw_series *s, const double *w)
{
	double p50 = g->stat[GW_RS_UTIL].p50;
	if (!(p50 >= DIP_BUSY))
		return 0;
	double low = p50 * DIP_FRACTION;
	size_t runs = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] < low && (i == 0 || !(s->v[i - 1] < low)))
			runs++;
	if (runs > DIPS_MAX)
		runs = DIPS_MAX;
	if (!runs)
		return 0;
	g->dips = gw_arena_alloc(&r->arena, runs * sizeof(*g->dips));
	if (!g->dips)
		return GW_ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		if (!(s->v[i] < low))
			continue;
		g->dip_s += w[i];
		if (i == 0 || !(s->v[i - 1] < low)) {
			if (g->ndips == runs)
				continue;
			g->dips[g->ndips++] = (struct gw_report_span){s->t[i], s->t[i]};
		} else if (g->ndips) {
			g->dips[g->ndips - 1].to = s->t[i];
		}
	}
	return 0;
}

/* One stat series of a GPU: statistics, grid, and what this gauge tells beyond them. */
static int read_stat(struct reader *rd, int id, const struct gw_series *s, struct gw_arena *tmp)
{
	struct gw_report *r = rd->r;
	struct gw_report_gpu *g = gpu_of(rd, s, true);
	if (!g)
		return GW_ENOMEM;
	if (g->stat[id].n ||
	    !s->n) /* a second series of the same GPU (another job's copy): the first counts */
		return 0;
	double *scratch = gw_arena_alloc_uninit(tmp, s->n * sizeof(double));
	double *w = gw_arena_alloc_uninit(tmp, s->n * sizeof(double));
	if (!scratch || !w)
		return GW_ENOMEM;
	gw_rpt_stat(s->v, s->n, scratch, &g->stat[id]);
	int rc = gw_rpt_fill_grid(r, s, &g->grid[id], false);
	if (rc)
		return rc;
	gw_rpt_weights(s->t, s->n, GAP_MS, w);
	/* covered: the utilisation's samples where there are some, else the longest of the others' */
	double covered = 0;
	for (size_t i = 0; i < s->n; i++)
		covered += isnan(s->v[i]) ? 0 : w[i];
	if (id == GW_RS_UTIL || (!g->stat[GW_RS_UTIL].n && covered > g->seconds))
		g->seconds = covered;
	if (r->first == 0 || s->t[0] < r->first)
		r->first = s->t[0];
	if (s->t[s->n - 1] > r->last)
		r->last = s->t[s->n - 1];
	switch (id) {
	case GW_RS_UTIL: {
		struct gw_report_stat *st = &g->stat[id];
		double var = 0;
		for (size_t i = 0; i < st->n; i++)
			var += (scratch[i] - st->mean) * (scratch[i] - st->mean);
		g->util_sd = st->n ? sqrt(var / (double)st->n) : NAN;
		g->util_p5 = gw_rpt_quantile(scratch, st->n, 0.05);
		for (size_t i = 0; i < s->n; i++) {
			if (s->v[i] < GW_REPORT_IDLE_UTIL) /* a staleness marker (NaN) is not idle */
				g->idle_s += w[i];
		}
		return find_dips(r, g, s, w);
	}
	case GW_RS_MEM: {
		/* without a total (dcgm-exporter's default counters), used + free is one */
		struct aux *x = &rd->aux[g - r->gpu];
		if (g->mem_total <= 0 && x->mem_free > 0)
			g->mem_total = g->stat[id].mean + x->mem_free;
		if (g->mem_total > 0)
			for (size_t i = 0; i < s->n; i++)
				if (s->v[i] >= GW_REPORT_NEAR_FULL * g->mem_total)
					g->near_full_s += w[i];
		return 0;
	}
	case GW_RS_POWER:
		if (!g->energy_from_counter)
			for (size_t i = 0; i < s->n; i++)
				if (!isnan(s->v[i]))
					g->energy_j += s->v[i] * w[i];
		return 0;
	default:
		return 0;
	}
}

/* The series a report reads besides the statistics, and what each gives. */
enum extra_kind {
	EX_MEM_TOTAL,
	EX_MEM_FREE,
	EX_LIMIT,
	EX_DEFAULT,
	EX_GEN,
	EX_WIDTH,
	EX_REASONS,
	EX_THROTTLE,
	EX_ENERGY,
	EX_HW
};
enum hw_kind { HW_XID, HW_XID_LAST, HW_ECC_CORR, HW_ECC_UNC, HW_RETIRED, HW_REMAPPED, HW_REPLAYS };

/*
 * Each series read beside the statistics, and its DCGM twin (in DCGM's unit,
 * times scale for ours) read only when a store or Prometheus has none of the
 * native one: dcgm-exporter's data.
 */
struct extra {
	const char *series;
	enum extra_kind kind;
	int arg;
	const char *dcgm;
	double scale;
};

/* Before the statistics: memory total (near-full time), energy counter (else power is integrated). */
static const struct extra extras_before[] = {
	{"gpuwatch_memory_total_bytes", EX_MEM_TOTAL, 0, "DCGM_FI_DEV_FB_TOTAL", 1048576},
	{"gpuwatch_memory_free_bytes", EX_MEM_FREE, 0, "DCGM_FI_DEV_FB_FREE", 1048576},
	{"gpuwatch_energy_consumed_joules_total", EX_ENERGY, 0, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 0.001},
};

static const struct extra extras_after[] = {
	{"gpuwatch_power_enforced_limit_watts", EX_LIMIT, 0, "DCGM_FI_DEV_POWER_MGMT_LIMIT", 1},
	{"gpuwatch_power_default_limit_watts", EX_DEFAULT, 0, NULL, 0},
	{"gpuwatch_pcie_link_gen", EX_GEN, 0, "DCGM_FI_DEV_PCIE_LINK_GEN", 1},
	{"gpuwatch_pcie_link_gen_max", EX_GEN, 0, NULL, 0},
	{"gpuwatch_pcie_link_width", EX_WIDTH, 0, "DCGM_FI_DEV_PCIE_LINK_WIDTH", 1},
	{"gpuwatch_clocks_event_reasons", EX_REASONS, 0, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 1},
#define GW_RR_EXTRA(id, key, bit, counter, dcgm) {counter, EX_THROTTLE, GW_RR_##id, dcgm, 1e-9},
	GW_REPORT_REASONS(GW_RR_EXTRA)
#undef GW_RR_EXTRA
	{"gpuwatch_xid_errors_total", EX_HW, HW_XID, NULL, 0},
	{"DCGM_FI_DEV_XID_ERRORS", EX_HW, HW_XID_LAST, NULL, 0},
	{"gpuwatch_ecc_corrected_volatile_total", EX_HW, HW_ECC_CORR, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 1},
	{"gpuwatch_ecc_uncorrected_volatile_total", EX_HW, HW_ECC_UNC, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1},
	{"gpuwatch_retired_pages_sbe", EX_HW, HW_RETIRED, "DCGM_FI_DEV_RETIRED_SBE", 1},
	{"gpuwatch_retired_pages_dbe", EX_HW, HW_RETIRED, "DCGM_FI_DEV_RETIRED_DBE", 1},
	{"gpuwatch_remapped_rows_uncorrectable", EX_HW, HW_REMAPPED, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 1},
	{"gpuwatch_pcie_replays_total", EX_HW, HW_REPLAYS, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 1},
};

/* The statistics' DCGM twins and the factor from DCGM's unit to ours. */
static const struct {
	const char *name;
	double scale;
} dcgm_stat[GW_RS_N] = {
	[GW_RS_UTIL] = {"DCGM_FI_DEV_GPU_UTIL", 0.01},
	[GW_RS_SM] = {"DCGM_FI_PROF_SM_ACTIVE", 1},
	[GW_RS_TENSOR] = {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1},
	[GW_RS_MEM_BUSY] = {"DCGM_FI_DEV_MEM_COPY_UTIL", 0.01},
	[GW_RS_MEM] = {"DCGM_FI_DEV_FB_USED", 1048576},
	[GW_RS_TEMP] = {"DCGM_FI_DEV_GPU_TEMP", 1},
	[GW_RS_POWER] = {"DCGM_FI_DEV_POWER_USAGE", 1},
	[GW_RS_SM_CLOCK] = {"DCGM_FI_DEV_SM_CLOCK", 1e6},
	[GW_RS_MEM_CLOCK] = {"DCGM_FI_DEV_MEM_CLOCK", 1e6},
	[GW_RS_PCIE_RX] = {"DCGM_FI_PROF_PCIE_RX_BYTES", 1},
	[GW_RS_PCIE_TX] = {"DCGM_FI_PROF_PCIE_TX_BYTES", 1},
};

static double series_max(const struct gw_series *s)
{
	double m = NAN;
	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->v[i]) && !(s->v[i] <= m))
			m = s->v[i];
	return m;
}

static double series_min(const struct gw_series *s)
{
	double m = NAN;
	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->v[i]) && !(s->v[i] >= m))
			m = s->v[i];
	return m;
}

static void hw_note(struct gw_report_hw *h, int64_t first, int64_t last)
{
	if (first && (!h->first || first < h->first))
		h->first = first;
	if (last > h->last)
		h->last = last;
}

static void xid_code(struct gw_report_hw *h, int code)
{
	for (size_t i = 0; i < h->nxid_codes; i++)
		if (h->xid_codes[i] == code)
			return;
	if (h->nxid_codes < sizeof(h->xid_codes) / sizeof(h->xid_codes[0]))
		h->xid_codes[h->nxid_codes++] = code;
}

static void read_hw(struct gw_report *r, struct gw_report_gpu *g, int arg, const struct gw_series *s)
{
	struct gw_report_hw *h = &g->hw;
	int64_t f = 0, l = 0;
	if (arg == HW_XID_LAST) {
		/* The last XID's series starts when one arrives: count it when it starts inside the range
		 * and the native counter (more exact) said nothing. */
		const char *code = label(s, "err_code");
		if (!s->n || !code[0] || strcmp(code, "0") == 0 || s->t[0] <= r->first + r->step)
			return;
		if (!h->xid) {
			h->xid = 1;
			xid_code(h, (int)strtol(code, NULL, 10));
			hw_note(h, s->t[0], s->t[0]);
		}
		return;
	}
	double inc = gw_rpt_increase(s->t, s->v, s->n, &f, &l);
	if (inc <= 0)
		return;
	hw_note(h, f, l);
	switch (arg) {
	case HW_XID:
		h->xid += inc;
		xid_code(h, (int)strtol(label(s, "xid"), NULL, 10));
		break;
	case HW_ECC_CORR:
		h->ecc_corrected += inc;
		break;
	case HW_ECC_UNC:
		h->ecc_uncorrected += inc;
		break;
	case HW_RETIRED:
		h->retired_pages += inc;
		break;
	case HW_REMAPPED:
		h->remapped_rows += inc;
		break;
	case HW_REPLAYS:
		h->pcie_replays += inc;
		break;
	}
}

static int read_extra(struct reader *rd, const struct extra *x, const struct gw_series *s,
		      struct gw_arena *tmp)
{
	struct gw_report *r = rd->r;
	struct gw_report_gpu *g = gpu_of(rd, s, x->kind == EX_MEM_TOTAL || x->kind == EX_MEM_FREE || x->kind == EX_ENERGY);
	if (!g || !s->n)
		return 0;
	size_t gi = (size_t)(g - r->gpu);
	double v;
	switch (x->kind) {
	case EX_MEM_TOTAL:
		v = series_max(s);
		if (v > g->mem_total)
			g->mem_total = v;
		return 0;
	case EX_MEM_FREE: {
		double acc = 0;
		size_t n = 0;
		for (size_t i = 0; i < s->n; i++)
			if (!isnan(s->v[i])) {
				acc += s->v[i];
				n++;
			}
		if (n)
			rd->aux[gi].mem_free = acc / (double)n;
		return 0;
	}
	case EX_LIMIT:
		if (gw_rpt_fill_grid(r, s, &g->grid_limit, false) != 0)
			return GW_ENOMEM;
		v = series_min(s);
		if (v > 0 && (g->power_limit == 0 || v < g->power_limit))
			g->power_limit = v;
		return 0;
	case EX_DEFAULT:
		v = series_max(s);
		if (v > 0)
			g->power_default = v;
		return 0;
	case EX_GEN:
		v = series_max(s);
		if (v > rd->aux[gi].pcie_gen)
			rd->aux[gi].pcie_gen = v;
		return 0;
	case EX_WIDTH:
		v = series_max(s);
		if (v > rd->aux[gi].pcie_width)
			rd->aux[gi].pcie_width = v;
		return 0;
	case EX_ENERGY:
		if (s->n >= 2) {
			g->energy_j = gw_rpt_increase(s->t, s->v, s->n, NULL, NULL);
			g->energy_from_counter = true;
		}
		return 0;
	case EX_THROTTLE:
		g->throttle_s[x->arg] = gw_rpt_increase(s->t, s->v, s->n, NULL, NULL);
		g->throttle_counted[x->arg] = true;
		return 0;
	case EX_HW:
		read_hw(r, g, x->arg, s);
		return 0;
	case EX_REASONS: {
		double *w = gw_arena_alloc_uninit(tmp, s->n * sizeof(double));
		if (!w)
			return GW_ENOMEM;
		gw_rpt_weights(s->t, s->n, GAP_MS, w);
		for (int k = 0; k < GW_RR_N; k++) {
			if (g->throttle_counted[k])
				continue;
			for (size_t i = 0; i < s->n; i++)
				if (s->v[i] >= 0 && s->v[i] < 4294967296.0 &&
				    ((uint32_t)s->v[i] & gw_report_reason_info[k].bit))
					g->throttle_s[k] += w[i];
		}
		return gw_rpt_fill_grid(r, s, &g->grid_reasons, true);
	}
	}
	return 0;
}

/*
 * Select every series of one metric name in the range and hand each to fn,
 * its values times scale (1: as stored); *found: how many there were.
 */
static int each_series(struct reader *rd, const char *name, double scale,
		       int (*fn)(struct reader *, const void *arg, const struct gw_series *, struct gw_arena *),
		       const void *arg, size_t *found)
{
	struct gw_matcher m;
	int rc = gw_matcher_init(&m, GW_METRIC_NAME, name, GW_MATCH_EQ, rd->err);
	if (rc)
		return rc;
	struct gw_arena tmp;
	gw_arena_init(&tmp, (size_t)4 << 30);
	struct gw_series_set set = {0};
	rc = rd->q->select(rd->q->ctx, &m, 1, rd->r->from, rd->r->to, &tmp, &set, rd->err);
	if (!rc && found)
		*found = set.n;
	for (size_t i = 0; !rc && i < set.n; i++) {
		struct gw_series sc = set.s[i];
		if (scale != 1 && sc.n) {
			double *v = gw_arena_alloc_uninit(&tmp, sc.n * sizeof(double));
			if (!v) {
				rc = GW_ENOMEM;
				break;
			}
			for (size_t k = 0; k < sc.n; k++)
				v[k] = sc.v[k] * scale; /* a staleness marker stays NaN */
			sc.v = v;
		}
		rc = fn(rd, arg, &sc, &tmp);
	}
	if (rc && !rd->err->msg[0])
		gw_err_set(rd->err, rc, "reading %s: %s", name, gw_strerror(rc));
	gw_arena_release(&tmp);
	gw_matcher_release(&m);
	return rc;
}

/* An extra's native series, else its DCGM twin. */
static int read_extras(struct reader *rd, const struct extra *x, size_t n,
		       int (*fn)(struct reader *, const void *arg, const struct gw_series *, struct gw_arena *))
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		size_t found = 0;
		if (x[i].series)
			rc = each_series(rd, x[i].series, 1, fn, &x[i], &found);
		if (!rc && !found && x[i].dcgm)
			rc = each_series(rd, x[i].dcgm, x[i].scale, fn, &x[i], NULL);
	}
	return rc;
}

static int stat_fn(struct reader *rd, const void *arg, const struct gw_series *s, struct gw_arena *tmp)
{
	return read_stat(rd, *(const int *)arg, s, tmp);
}

static int extra_fn(struct reader *rd, const void *arg, const struct gw_series *s, struct gw_arena *tmp)
{
	return read_extra(rd, arg, s, tmp);
}

static int cmp_gpu(const void *a, const void *b)
{
	const struct gw_report_gpu *x = a, *y = b;
	int c = strcmp(x->instance, y->instance);
	if (c)
		return c;
	long i = strtol(x->index, NULL, 10), j = strtol(y->index, NULL, 10);
	return (i > j) - (i < j);
}

/* The node's statistics: over each grid point's mean (ratios, clocks), sum (memory, power, PCIe) or max
 * (temperature). */
static int node_stats(struct gw_report *r)
{
	double *agg = gw_arena_alloc_uninit(&r->arena, r->ngrid * sizeof(double) * 2);
	if (!agg)
		return GW_ENOMEM;
	double *scratch = agg + r->ngrid;
	for (int id = 0; id < GW_RS_N; id++) {
		bool sum = id == GW_RS_MEM || id == GW_RS_POWER || id == GW_RS_PCIE_RX || id == GW_RS_PCIE_TX;
		for (size_t k = 0; k < r->ngrid; k++) {
			double acc = 0, mx = NAN;
			size_t n = 0;
			for (size_t i = 0; i < r->ngpus; i++) {
				double *g = r->gpu[i].grid[id];
				if (!g || isnan(g[k]))
					continue;
				acc += g[k];
				mx = n == 0 || g[k] > mx ? g[k] : mx;
				n++;
			}
			agg[k] = !n ? NAN : id == GW_RS_TEMP ? mx : sum ? acc : acc / (double)n;
		}
		gw_rpt_stat(agg, r->ngrid, scratch, &r->node[id]);
	}
	return 0;
}

/* Whether g is one of the GPUs the report is restricted to (all when none are named). */
static bool wanted(const struct reader *rd, const struct gw_report_gpu *g)
{
	if (!rd->o || !rd->o->only)
		return true;
	for (size_t i = 0; i < rd->o->nonly; i++)
		if (strcmp(rd->o->only[i].index, g->index) == 0 && strcmp(rd->o->only[i].instance, g->instance) == 0)
			return true;
	return false;
}

static int read_all(struct reader *rd)
{
	struct gw_report *r = rd->r;
	/* the memory total (for near-full time) and the energy counter (else power is integrated) come
	 * first; GPUs come into being from them or from their stat series */
	int rc = read_extras(rd, extras_before, sizeof(extras_before) / sizeof(extras_before[0]), extra_fn);
	for (int id = 0; !rc && id < GW_RS_N; id++) {
		size_t found = 0;
		rc = each_series(rd, gw_report_stat_info[id].series, 1, stat_fn, &id, &found);
		if (!rc && !found)
			rc = each_series(rd, dcgm_stat[id].name, dcgm_stat[id].scale, stat_fn, &id, NULL);
	}
	if (!rc)
		rc = read_extras(rd, extras_after, sizeof(extras_after) / sizeof(extras_after[0]), extra_fn);
	if (rc)
		return rc;
	/* a GPU known only from its totals has nothing to report; one not asked for is left out */
	size_t kept = 0;
	for (size_t i = 0; i < r->ngpus; i++) {
		bool any = false;
		if (!wanted(rd, &r->gpu[i]))
			continue;
		for (int id = 0; id < GW_RS_N; id++)
			any |= r->gpu[i].stat[id].n > 0;
		if (any) {
			rd->aux[kept] = rd->aux[i];
			r->gpu[kept++] = r->gpu[i];
		}
	}
	r->ngpus = kept;
	for (size_t i = 0; i < r->ngpus; i++) {
		double gen = rd->aux[i].pcie_gen;
		if (gen >= 1 && gen < (double)(sizeof(lane_bytes) / sizeof(lane_bytes[0])) && rd->aux[i].pcie_width > 0)
			r->gpu[i].pcie_capacity = lane_bytes[(size_t)gen] * rd->aux[i].pcie_width;
		r->energy_j += r->gpu[i].energy_j;
	}
	gw_qsort(r->gpu, r->ngpus, sizeof(*r->gpu), cmp_gpu);
	return node_stats(r);
}

int gw_report_build(const struct gw_querier *q, const struct gw_report_opts *o, struct gw_report **out,
		    struct gw_err *err)
{
	*out = NULL;
	if (o->to <= o->from)
		return gw_err_set(err, GW_EINVAL, "the range is empty: --from must be before --to");
	struct gw_report *r = calloc(1, sizeof(*r));
	if (!r)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	gw_arena_init(&r->arena, (size_t)1 << 32);
	r->from = o->from;
	r->to = o->to;
	int64_t span = o->to - o->from;
	r->step = (span + GW_REPORT_GRID_MAX - 2) / (GW_REPORT_GRID_MAX - 1);
	r->step = r->step < 1000 ? 1000 : (r->step + 999) / 1000 * 1000;
	r->ngrid = (size_t)(span / r->step) + 1;
	r->price_per_kwh = o->price_per_kwh;
	r->currency = gw_arena_strdup(&r->arena, o->currency ? o->currency : "");
	r->source = gw_arena_strdup(&r->arena, o->source ? o->source : "");
	r->png_dir = o->png_dir ? gw_arena_strdup(&r->arena, o->png_dir) : NULL;
	struct gw_err local;
	gw_err_clear(&local);
	struct reader rd = {.r = r, .q = q, .o = o, .err = err ? err : &local};
	int rc = read_all(&rd);
	if (!rc && r->ngpus == 0)
		rc = gw_err_set(err, GW_ENOTFOUND, "no GPU samples in the range");
	if (!rc)
		rc = gw_rpt_read_jobs(r, q, err ? err : &local);
	if (!rc)
		rc = gw_rpt_read_train(r, q, err ? err : &local);
	if (!rc)
		rc = gw_rpt_read_owners(r, q, err ? err : &local);
	if (!rc)
		rc = gw_rpt_read_scrapes(r, q, err ? err : &local);
	if (!rc)
		rc = gw_rpt_find(r);
	if (!rc)
		rc = gw_anom_find(r, 0);
	if (rc) {
		if (err && !err->msg[0])
			gw_err_set(err, rc, "%s", gw_strerror(rc));
		gw_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void gw_report_free(struct gw_report *r)
{
	if (!r)
		return;
	gw_arena_release(&r->arena);
	free(r);
}

int gw_report_data_span(const struct gw_querier *q, int64_t *first_ms, int64_t *last_ms, struct gw_err *err)
{
	static const char *const names[] = {"gpuwatch_utilization_gpu_ratio", "gpuwatch_power_draw_watts",
					    "gpuwatch_memory_used_bytes"};
	int64_t end = INT64_MIN, start = INT64_MAX;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct gw_matcher m;
		int rc = gw_matcher_init(&m, GW_METRIC_NAME, names[k], GW_MATCH_EQ, err);
		if (rc)
			return rc;
		struct gw_arena a;
		gw_arena_init(&a, (size_t)4 << 30);
		struct gw_series_set set = {0};
		/* the hour tier when the store has one: a 15-day store is not decoded for its last time stamp
		 */
		int64_t maxt = INT64_MAX / 4;
		rc = q->select_tier
			 ? q->select_tier(q->ctx, &m, 1, 0, maxt, 3600000, GW_TIER_LAST, &a, &set, err)
			 : q->select(q->ctx, &m, 1, 0, maxt, &a, &set, err);
		for (size_t i = 0; !rc && i < set.n; i++) {
			if (!set.s[i].n)
				continue;
			if (set.s[i].t[set.s[i].n - 1] > end)
				end = set.s[i].t[set.s[i].n - 1];
			if (set.s[i].t[0] < start)
				start = set.s[i].t[0];
		}
		gw_arena_release(&a);
		gw_matcher_release(&m);
		if (rc)
			return rc;
	}
	if (end == INT64_MIN)
		return gw_err_set(err, GW_ENOTFOUND,
				  "no GPU samples (no gpuwatch_utilization_gpu_ratio, "
				  "gpuwatch_power_draw_watts or gpuwatch_memory_used_bytes series)");
	*first_ms = start;
	*last_ms = end;
	return 0;
}
