/*
 * anomaly.h - explainable anomaly detection over one metric's series of
 * (t, value) points: each point is judged against a trailing baseline (the
 * last window_s of the same series) with robust statistics only, so that
 * every finding can say when, which metric, what value against what
 * baseline, and by how many robust deviations.
 *
 * Three tests, each a score in robust deviations (scale = 1.4826 MAD of
 * the baseline's bucket medians, at least the metric's floor):
 *   spike  a point far from every value the series took in the last
 *          memory_s: the distance to its third nearest there. A training
 *          rhythm (steps, eval pauses, checkpoints) repeats its values, so
 *          it does not score, however rare the pause.
 *   shift  the median of the last short_s outside the range of that same
 *          rolling median over the baseline: a level that held for
 *          minutes (a stall, a new plateau); pauses shorter than
 *          short_s / 2 (eval pauses) never move it.
 *   drift  the Theil-Sen slope of the baseline's bucket medians, times
 *          window_s, in robust deviations of the points around that
 *          line: a slow, steady rise the range follows but the slope
 *          does not.
 * A bucket (step_s of points) alarms when a score reaches sensitivity;
 * consecutive alarmed buckets make one finding.
 *
 * Pure functions; the caller owns every array. Reentrant.
 */
#ifndef GW_ANALYSIS_ANOMALY_H
#define GW_ANALYSIS_ANOMALY_H

#include <stddef.h>

enum gw_anom_kind { GW_ANOM_SPIKE, GW_ANOM_SHIFT, GW_ANOM_DRIFT, GW_ANOM_MISMATCH };

/* "spike", "shift", "drift" or "mismatch". */
const char *gw_anom_kind_name(enum gw_anom_kind k);

struct gw_anom_params {
	double sensitivity; /* alarm threshold in robust deviations (default 6) */
	double window_s;    /* trailing baseline (default 3600) */
	double short_s;	    /* level window for shifts (default 300) */
	double step_s;	    /* bucket width (default 60) */
	double floor;	    /* the smallest deviation that matters, in metric units (default 0) */
	double memory_s;    /* how far back a value counts as seen before (default 6 h, >= window_s) */
};

void gw_anom_params_default(struct gw_anom_params *p);

struct gw_anom_finding {
	double t_start, t_end;	/* first and last alarmed point */
	double t_peak;		/* the point with the highest score */
	enum gw_anom_kind kind; /* the test that scored highest */
	double value;		/* the value (spike), short median (shift) or rise over window_s (drift) */
	double baseline;	/* the baseline's median */
	double scale;		/* one robust deviation */
	double score;		/* highest score, in robust deviations */
	double other;		/* mismatch: the other metric's value at the peak (x) */
};

/*
 * Finds anomalies in (t[i], v[i]), t ascending. Writes at most cap
 * findings to out and the number found (which may exceed cap) to *found.
 * The first window_s of the series only trains the baseline. Returns
 * 0, GW_EINVAL for bad parameters or unsorted times, GW_ENOMEM.
 */
int gw_anom_detect(const double *t, const double *v, size_t n, const struct gw_anom_params *p,
		   struct gw_anom_finding *out, size_t cap, size_t *found);

/*
 * The largest score of any test at the last point of (t, v): the live
 * anomaly score (0 when nothing is unusual or the history is too short).
 * A shift scores while it is news: once the rolling median has held the
 * new level for a bucket, that level is in the baseline's range.
 */
double gw_anom_score_now(const double *t, const double *v, size_t n, const struct gw_anom_params *p);

/*
 * The joint test, "mismatch": y (power) against x (utilisation) at the
 * same times. Each bucket's baseline (the last window_s of pairs) gives a
 * robust line y = a + b x: b the median of the slopes between pairs whose
 * x differ by x_tol or more (at least 10 such pairs, else no judgement),
 * a the median of y - b x, the scale 1.4826 MAD of the residuals (at
 * least p->floor). A point scores its residual in robust deviations when
 * its y lies inside the baseline's own range (0.5 % to 99.5 %): a value
 * that is normal for the metric alone but not for the other's value (a
 * GPU drawing full power at 0 % utilisation, or half power at full
 * utilisation) and the points around it score for step_s at least (a
 * grid mean that mixes a stall with work, or a short phase of the
 * workload, lands off the line for a moment); values outside the range
 * are the one-metric tests' to report.
 * Findings as gw_anom_detect's: value is y at the peak, baseline the
 * line's y there, other x there.
 */
int gw_anom_detect_joint(const double *t, const double *x, const double *y, size_t n, double x_tol,
			 const struct gw_anom_params *p, struct gw_anom_finding *out, size_t cap,
			 size_t *found);

#endif
