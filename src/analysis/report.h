/*
 * report.h - a time range of GPU history turned into a report: statistics
 * per GPU and for the node, time spent idle, throttled and near a full
 * memory, energy and its cost, and findings that automate the diagnosis
 * people otherwise do by hand (utilisation, then memory, then PCIe, then
 * temperature and power, then the bottleneck and what to do about it).
 *
 * gw_report_build() reads the series it needs through a gw_querier (the
 * store, a memstore of an imported log, or anything else that implements
 * it), one metric at a time: raw samples give the statistics and the
 * durations, and each GPU keeps a grid of bucket means (at most
 * GW_REPORT_GRID_MAX points over the range) that the detectors and the
 * charts read. The renderers write the report into a buffer; printing is
 * the caller's.
 *
 * Ownership: a report owns everything it points to; gw_report_free() frees
 * it (NULL is a no-op). The querier is borrowed during the build only.
 * Threading: none; one report, one thread.
 */
#ifndef GW_ANALYSIS_REPORT_H
#define GW_ANALYSIS_REPORT_H

#include "analysis/anomaly.h"
#include "chart/chart.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "model/storage.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Points of a GPU's grid over the range: enough for a chart's width. */
#define GW_REPORT_GRID_MAX 1440

/*
 * The gauges each GPU gets statistics of: id, the JSON key (base units),
 * the stored series, the words a reader sees, the display unit and the
 * factor from the stored unit to it.
 */
#define GW_REPORT_STATS(X)                                                                                   \
	X(UTIL, "utilization_ratio", "gpuwatch_utilization_gpu_ratio", "utilisation", "%", 100.0)            \
	X(SM, "sm_active_ratio", "gpuwatch_gpm_sm_active_ratio", "SM active", "%", 100.0)                    \
	X(TENSOR, "tensor_active_ratio", "gpuwatch_gpm_tensor_active_ratio", "tensor active", "%", 100.0)    \
	X(MEM_BUSY, "memory_busy_ratio", "gpuwatch_utilization_memory_ratio", "memory busy", "%", 100.0)     \
	X(MEM, "memory_used_bytes", "gpuwatch_memory_used_bytes", "memory used", "GiB", 1.0 / 1073741824.0)  \
	X(TEMP, "temperature_celsius", "gpuwatch_temperature_gpu_celsius", "temperature", "C", 1.0)          \
	X(POWER, "power_watts", "gpuwatch_power_draw_watts", "power", "W", 1.0)                              \
	X(SM_CLOCK, "sm_clock_hertz", "gpuwatch_clock_sm_hertz", "SM clock", "MHz", 1e-6)                    \
	X(MEM_CLOCK, "memory_clock_hertz", "gpuwatch_clock_memory_hertz", "memory clock", "MHz", 1e-6)       \
	X(PCIE_RX, "pcie_rx_bytes_per_second", "gpuwatch_pcie_rx_bytes_per_second", "PCIe rx", "MB/s", 1e-6) \
	X(PCIE_TX, "pcie_tx_bytes_per_second", "gpuwatch_pcie_tx_bytes_per_second", "PCIe tx", "MB/s", 1e-6)

enum gw_report_stat_id {
#define GW_RS_ENUM(id, key, series, words, unit, scale) GW_RS_##id,
	GW_REPORT_STATS(GW_RS_ENUM)
#undef GW_RS_ENUM
	GW_RS_N
};

struct gw_report_stat_info {
	const char *key, *series, *words, *unit;
	double scale;
};
extern const struct gw_report_stat_info gw_report_stat_info[GW_RS_N];

/* The clock event reasons a report counts time for (NVML's bits). */
#define GW_REPORT_REASONS(X)                                                                             \
	X(SW_POWER_CAP, "sw_power_cap", 0x4, "gpuwatch_clocks_event_sw_power_cap_seconds_total",                \
	  "DCGM_FI_DEV_POWER_VIOLATION")                                                                 \
	X(HW_SLOWDOWN, "hw_slowdown", 0x8, NULL, NULL)                                                   \
	X(SYNC_BOOST, "sync_boost", 0x10, "gpuwatch_clocks_event_sync_boost_seconds_total",                     \
	  "DCGM_FI_DEV_SYNC_BOOST_VIOLATION")                                                            \
	X(SW_THERMAL, "sw_thermal", 0x20, "gpuwatch_clocks_event_sw_thermal_seconds_total",                     \
	  "DCGM_FI_DEV_THERMAL_VIOLATION")                                                               \
	X(HW_THERMAL, "hw_thermal", 0x40, "gpuwatch_clocks_event_hw_thermal_seconds_total", NULL)        \
	X(HW_POWER_BRAKE, "hw_power_brake", 0x80, "gpuwatch_clocks_event_hw_power_brake_seconds_total", NULL)

enum gw_report_reason {
#define GW_RR_ENUM(id, key, bit, counter, dcgm) GW_RR_##id,
	GW_REPORT_REASONS(GW_RR_ENUM)
#undef GW_RR_ENUM
	GW_RR_N
};

struct gw_report_reason_info {
	const char *key;
	uint32_t bit;
	const char *counter; /* the violation counter (seconds), or NULL: only the bit mask tells */
	const char *dcgm;    /* DCGM's violation counter (ns), read when the store has no native one */
};
extern const struct gw_report_reason_info gw_report_reason_info[GW_RR_N];

/* The findings, in the order of the diagnosis flow. */
#define GW_REPORT_KINDS(X)                                                                                   \
	X(IDLE_ALLOCATED, "idle_allocated")                                                                  \
	X(INPUT_BOUND, "input_bound")                                                                        \
	X(UNSTABLE_UTILIZATION, "unstable_utilization")                                                      \
	X(SYNC_STALL, "sync_stall")                                                                          \
	X(IMBALANCE, "imbalance")                                                                            \
	X(MEMORY_PRESSURE, "memory_pressure")                                                                \
	X(MEMORY_LEAK, "memory_leak")                                                                        \
	X(PCIE_BOUND, "pcie_bound")                                                                          \
	X(THERMAL_THROTTLING, "thermal_throttling")                                                          \
	X(POWER_CAPPED, "power_capped")                                                                      \
	X(POWER_LIMIT, "power_limit")                                                                        \
	X(HARDWARE, "hardware")

enum gw_report_kind {
#define GW_RK_ENUM(id, name) GW_RK_##id,
	GW_REPORT_KINDS(GW_RK_ENUM)
#undef GW_RK_ENUM
	GW_RK_N
};

const char *gw_report_kind_name(enum gw_report_kind k);

/* Statistics of one gauge over the range; n = 0: no samples (the rest NaN). */
struct gw_report_stat {
	size_t n;
	double mean, p50, p95, min, max;
};

/* Changes of the hardware counters inside the range. */
struct gw_report_hw {
	double xid;	  /* XIDs delivered */
	int xid_codes[8]; /* the distinct codes seen, first 8 */
	size_t nxid_codes;
	double ecc_corrected, ecc_uncorrected; /* volatile totals' increase */
	double retired_pages;		       /* SBE + DBE retired pages added */
	double remapped_rows;		       /* uncorrectable remapped rows added */
	double pcie_replays;
	int64_t first, last; /* ms of the first and last change; 0: none */
};

/* A span a dip of utilisation lasted (ms, first and last low sample). */
struct gw_report_span {
	int64_t from, to;
};

struct gw_report_gpu {
	const char *instance, *index, *uuid, *name; /* "" when the series lack the label */
	struct gw_report_stat stat[GW_RS_N];
	double *grid[GW_RS_N]; /* bucket means over the report's grid, NaN where no sample */
	double *grid_reasons;  /* bucket OR of the clock event reasons, NaN where none */
	double *grid_limit;    /* bucket mean of the enforced power limit (W), NaN where none; NULL: never seen */
	double mem_total;      /* bytes (the largest seen); 0: unknown */
	double power_limit;    /* enforced, W (the smallest seen); 0: unknown */
	double power_default;  /* default limit, W; 0: unknown */
	double pcie_capacity;  /* bytes/s one direction at the widest, fastest link seen; 0: unknown */
	double seconds;	       /* time the samples cover */
	double idle_s;	       /* utilisation under GW_REPORT_IDLE_UTIL */
	double near_full_s;    /* memory at or over GW_REPORT_NEAR_FULL of the total */
	double throttle_s[GW_RR_N];
	bool throttle_counted[GW_RR_N]; /* from the violation counter (else from the reason bits, or none) */
	double energy_j;
	bool energy_from_counter;
	struct gw_report_hw hw;
	double util_p5, util_sd;     /* of the raw utilisation samples */
	struct gw_report_span *dips; /* utilisation dips, time order */
	size_t ndips;
	double dip_s;
};

struct gw_report_finding {
	enum gw_report_kind kind;
	size_t *gpus; /* indexes into gw_report.gpu */
	size_t ngpus;
	int64_t from, to; /* ms */
	char evidence[640];
	char advice[480];
};

/*
 * A job's part on one node (the instance label): a job that spans nodes, read
 * from a Prometheus scraping them all, gets one per node, with the same
 * totals as the job's over that node's GPUs.
 */
struct gw_report_job_node {
	const char *instance; /* "" when the series lack the label */
	size_t *gpus;	      /* indexes into gw_report.gpu */
	size_t ngpus;
	double gpu_seconds, energy_j, util_mean, mem_max;
	int64_t first, last; /* ms */
};

/* A job using GPUs in the range (gpuwatch_hpc_job_info: --hpc-job-mapping-dir). */
struct gw_report_job {
	const char *id;
	size_t *gpus; /* indexes into gw_report.gpu */
	size_t ngpus;
	double gpu_seconds;   /* summed over its GPUs */
	double energy_j;      /* its GPUs' energy, shared equally with the jobs on a GPU at the same time */
	double util_mean;     /* its GPUs' utilisation while it ran; NaN: unknown */
	double mem_max;       /* most memory one of its GPUs used while it ran, bytes; NaN: unknown */
	int64_t first, last;  /* ms */
	struct gw_report_job_node *node; /* its nodes, in the order of their first GPU */
	size_t nnodes;
};

/* Who used the GPUs (report_owners.c): one owner of one kind, from the stored process series. */
struct gw_report_owner {
	const char *kind; /* "user", "slurm_job", "pod", "container" */
	const char *name; /* a pod as "namespace/pod" where its names are known, else its uid */
	size_t *gpus;	  /* indexes into gw_report.gpu */
	size_t ngpus;
	double gpu_seconds; /* time its processes were on its GPUs, summed over them */
	double energy_j;    /* those GPUs' energy then, shared with the same kind's other owners there */
	double mem_max;	    /* the most memory one of its processes held, bytes; NaN: unknown */
	double sm_mean;	    /* its processes' mean SM use, 0..1; NaN: unknown */
};

/* A training job's work under one power limit (report_train.c). */
struct gw_report_plimit {
	double watts, seconds, tokens, energy_j;
};

/* A job that counted its tokens (gpuwatch_training_tokens_total). */
struct gw_report_train {
	const char *job;
	size_t *gpus; /* indexes into gw_report.gpu: its model_info's gpus, else its instances' */
	size_t ngpus;
	double tokens, seconds;	  /* counted, and the time they were counted over */
	double energy_j;	  /* its GPUs' energy over the same time where their power is known ... */
	double tokens_metered;	  /* ... and the tokens of that time (energy a token = energy_j / this) */
	bool energy_partial;	  /* some of the time had no power for one of its GPUs */
	double last_limit;	  /* W, the latest limit its GPUs agreed on; 0: none */
	struct gw_report_plimit *lim; /* by limit held at least GW_RPT_MIN_RUN_S, watts ascending once found */
	size_t nlim;
};

/* A counter of a scraped server, summed over its series: its mean rate over the time it was scraped. */
struct gw_report_rate {
	const char *name, *unit; /* "vllm:generation_tokens_total", "tokens/s" */
	double per_s, increase;
};

/* An inference server the agent scraped (--scrape): a target with scrape_duration_seconds in the range. */
struct gw_report_scrape {
	const char *job, *instance;
	double seconds;	 /* from its first scrape in the range to its last */
	double up_ratio; /* mean of up; NaN: unknown */
	struct gw_report_rate *rate;
	size_t nrate;
};

/* An anomaly of one GPU's grid (anomaly.h's tests; docs/ANOMALIES.md). */
struct gw_report_anomaly {
	size_t gpu;		       /* index into gw_report.gpu */
	enum gw_report_stat_id metric;
	enum gw_report_stat_id other; /* a mismatch: the metric it was judged against (f.other its value) */
	struct gw_anom_finding f;     /* times in seconds since the epoch, values in stored units */
};

struct gw_report {
	int64_t from, to;    /* the range asked for, ms */
	int64_t first, last; /* the samples found in it, ms */
	int64_t step;	     /* grid step, ms */
	size_t ngrid;	     /* grid points: from + k * step */
	struct gw_report_gpu *gpu;
	size_t ngpus;
	struct gw_report_stat node[GW_RS_N]; /* over the grid of the node: see docs/REPORT.md */
	double energy_j;
	double price_per_kwh; /* 0: no cost */
	const char *currency;
	const char *source; /* what was read, for the heading */
	const char *png_dir; /* report --png: the charts' files are there; NULL: none */
	struct gw_report_finding *find;
	size_t nfind;
	struct gw_report_job *job;
	size_t njobs;
	struct gw_report_train *train;
	size_t ntrain;
	struct gw_report_owner *owner; /* by kind (user, slurm_job, pod, container), then GPU time */
	size_t nowners;
	struct gw_report_scrape *scrape; /* scraped inference servers; none: nscrapes 0 */
	size_t nscrapes;
	struct gw_report_anomaly *anom; /* GPU order, then metric, then time */
	size_t nanom;
	struct gw_anom_params anom_params; /* the window and sensitivity they were found with */
	struct gw_arena arena; /* everything above */
};

/* Thresholds the detectors and durations use (docs/REPORT.md says why). */
#define GW_REPORT_IDLE_UTIL 0.05
#define GW_REPORT_NEAR_FULL 0.95

/* One GPU by its labels, for gw_report_opts.only. */
struct gw_report_gpu_ref {
	const char *instance, *index;
};

struct gw_report_opts {
	int64_t from, to;     /* ms, from < to */
	const struct gw_report_gpu_ref *only; /* these GPUs alone (report --job); NULL: all */
	size_t nonly;
	double price_per_kwh; /* 0: none */
	const char *currency; /* NULL: "" */
	const char *source;   /* NULL: "" */
	const char *png_dir;  /* the renderers list the charts' PNG files there; NULL: none */
};

/*
 * Read [from, to] through q and build the report. GW_ENOTFOUND (with a
 * message) when the range holds no GPU series.
 */
int gw_report_build(const struct gw_querier *q, const struct gw_report_opts *o, struct gw_report **out,
		    struct gw_err *err);
void gw_report_free(struct gw_report *r);

/*
 * The oldest and newest sample times (ms) of the GPUs' utilisation, power and
 * memory series: the default range. GW_ENOTFOUND when no GPU series exists.
 */
int gw_report_data_span(const struct gw_querier *q, int64_t *first_ms, int64_t *last_ms, struct gw_err *err);

/* Renderers: the whole report appended to b. */
enum gw_report_format { GW_REPORT_TEXT, GW_REPORT_MD, GW_REPORT_JSON, GW_REPORT_HTML };
int gw_report_format_parse(const char *s, enum gw_report_format *out);
int gw_report_render(const struct gw_report *r, enum gw_report_format f, struct gw_buf *b);

/*
 * The report's charts, in the HTML page's order: utilisation, memory used,
 * power, temperature, a line per GPU over the grid. Chart k into c (its
 * series point into r's grids; gw_chart_release frees c). GW_ENOMEM.
 */
#define GW_REPORT_NCHARTS 4
int gw_report_chart(const struct gw_report *r, size_t k, struct gw_chart *c);
/* Chart k's PNG file: "PNG_DIR/ID.png". GW_ERANGE when it does not fit in len. */
int gw_report_chart_file(const struct gw_report *r, size_t k, char *out, size_t len);

/* The JSON report's "gpus" array alone (per-GPU statistics), appended to b: for documents that embed it. */
void gw_report_render_gpus_json(const struct gw_report *r, struct gw_buf *b);

#endif
