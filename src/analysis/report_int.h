/*
 * report_int.h - what the report's files share: the statistics over
 * sample arrays, the reading step and the detectors. Not for other modules;
 * the unit tests include it to check the pieces on synthetic series.
 */
#ifndef GW_ANALYSIS_REPORT_INT_H
#define GW_ANALYSIS_REPORT_INT_H

#include "analysis/report.h"

/*
 * Statistics of v[0..n) (NaN and staleness markers left out); scratch
 * holds n doubles and is overwritten (the finite values, in no order).
 */
void gw_rpt_stat(const double *v, size_t n, double *scratch, struct gw_report_stat *out);

/* Quantile q of s[0..n), interpolated as PromQL's quantile does; reorders s. */
double gw_rpt_quantile(double *s, size_t n, double q);

/*
 * Seconds each sample stands for: up to the next sample, at most gap_ms
 * (a longer gap is time without data); the last sample the median interval.
 */
void gw_rpt_weights(const int64_t *t, size_t n, int64_t gap_ms, double *w);

/*
 * How much a counter grew over the samples: every rise, and after a fall
 * (a reset) the value it restarted from. first/last: the times of the
 * first and last rise (0 when none); either may be NULL.
 */
double gw_rpt_increase(const int64_t *t, const double *v, size_t n, int64_t *first, int64_t *last);

/* Least squares y = a + b x over the finite points; false when fewer than 3 or x is constant. */
struct gw_rpt_fit {
	double a, b, r2;
	size_t n;
};
bool gw_rpt_linfit(const double *x, const double *y, size_t n, struct gw_rpt_fit *out);

/* "1h 05m", "42s": a duration for the evidence. */
void gw_rpt_duration(double seconds, char *out, size_t len);
/* "2026-07-03 10:00:00" UTC */
void gw_rpt_time(int64_t ms, char *out, size_t len);

/* The renderers of the formats gw_report_render() dispatches to. */
int gw_rpt_render_json(const struct gw_report *r, struct gw_buf *b);
int gw_rpt_render_html(const struct gw_report *r, struct gw_buf *b);

/* The report's GPU a series is of (its gpu and instance labels), -1: none. */
long gw_rpt_gpu_index(const struct gw_report *r, const struct gw_series *s);
/* Every series named name over the report's range. */
int gw_rpt_select_name(const struct gw_querier *q, const struct gw_report *r, const char *name,
		       struct gw_arena *a, struct gw_series_set *set, struct gw_err *err);

/* The jobs of the range (after the GPUs are read): appends to r->job. */
int gw_rpt_read_jobs(struct gw_report *r, const struct gw_querier *q, struct gw_err *err);

/* The scraped targets of the range (report_scrape.c): appends to r->scrape. */
int gw_rpt_read_scrapes(struct gw_report *r, const struct gw_querier *q, struct gw_err *err);

/* Bucket values of a series on r's grid into *grid (allocated when NULL): means, or the OR of bit masks. */
int gw_rpt_fill_grid(struct gw_report *r, const struct gw_series *s, double **grid, bool or_bits);

/* Who used the GPUs, from the process series (after the GPUs are read): fills r->owner. */
int gw_rpt_read_owners(struct gw_report *r, const struct gw_querier *q, struct gw_err *err);
void gw_rpt_owners_text(const struct gw_report *r, struct gw_buf *b, bool md);
void gw_rpt_owners_json(const struct gw_report *r, struct gw_buf *b);
void gw_rpt_owners_html(const struct gw_report *r, struct gw_buf *b);

/* The training jobs of the range (after the GPUs are read): fills r->train. */
int gw_rpt_read_train(struct gw_report *r, const struct gw_querier *q, struct gw_err *err);

/* The detectors, over a built report; each appends its findings. */
int gw_rpt_find(struct gw_report *r);
int gw_rpt_find_power_limit(struct gw_report *r);

/* The training section in each format (nothing when no job counted tokens). */
void gw_rpt_train_text(const struct gw_report *r, struct gw_buf *b, bool md);
void gw_rpt_train_json(const struct gw_report *r, struct gw_buf *b);
void gw_rpt_train_html(const struct gw_report *r, struct gw_buf *b);

/* What the detectors share (report_find.c, report_find_util.c); thresholds: docs/REPORT.md. */
#define GW_RPT_GIB 1073741824.0
/* Memory a GPU holds for someone: at least this much, and at least GW_RPT_HELD_FRACTION of the total. */
#define GW_RPT_HELD_BYTES (1.0 * GW_RPT_GIB)
#define GW_RPT_HELD_FRACTION 0.02
/* A condition counts once it lasted this long (and at least 3 grid points). */
#define GW_RPT_MIN_RUN_S 600.0
#define GW_RPT_THERMAL_BITS (0x8u | 0x20u | 0x40u)
#define GW_RPT_POWER_BITS (0x4u | 0x80u)

/* Grid points where a condition held, counting only runs of at least min_s: first, last and how many. */
struct gw_rpt_runs {
	size_t first, last, points;
	bool any;
};
typedef bool (*gw_rpt_cond_fn)(const struct gw_report *r, const struct gw_report_gpu *g, size_t k,
			       const void *arg);
struct gw_rpt_runs gw_rpt_runs_of(const struct gw_report *r, const struct gw_report_gpu *g, gw_rpt_cond_fn c,
				  const void *arg, double min_s);
double gw_rpt_run_seconds(const struct gw_report *r, const struct gw_rpt_runs *u);
/* The mean of a gauge's grid over the points where c holds; NaN when none. */
double gw_rpt_mean_where(const struct gw_report *r, const struct gw_report_gpu *g, int id, gw_rpt_cond_fn c);
/* A one-GPU finding appended to r; NULL when out of memory. */
struct gw_report_finding *gw_rpt_one(struct gw_report *r, enum gw_report_kind k, size_t gi, int64_t from,
				     int64_t to);
/* Seconds the GPU's samples cover (the range's when unknown). */
double gw_rpt_covered(const struct gw_report *r, const struct gw_report_gpu *g);
/* The time of grid point k, ms. */
int64_t gw_rpt_at(const struct gw_report *r, size_t k);
/* Grid point k of a gauge; NaN when none. */
double gw_rpt_grid(const struct gw_report_gpu *g, int id, size_t k);
/* Whether the GPU holds memory for someone at grid point k. */
bool gw_rpt_held(const struct gw_report_gpu *g, size_t k);

/* The utilisation detectors (report_find_util.c). */
int gw_rpt_find_idle_allocated(struct gw_report *r, size_t gi);
/* in_sync[i]: GPU i's dips are a sync_stall's. */
int gw_rpt_find_sync_stall(struct gw_report *r, bool *in_sync);
int gw_rpt_find_input_bound(struct gw_report *r, size_t gi, bool in_sync);
int gw_rpt_find_unstable(struct gw_report *r, size_t gi, bool dips_explained);
int gw_rpt_find_imbalance(struct gw_report *r);
/* Whether a GPU dipped often enough to count. */
bool gw_rpt_dips_count(const struct gw_report *r, const struct gw_report_gpu *g);

/* A finding appended to r (zeroed, gpus with room for ngpus); NULL when out of memory. */
struct gw_report_finding *gw_rpt_finding_add(struct gw_report *r, enum gw_report_kind k, size_t ngpus);

#endif
