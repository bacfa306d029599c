/*
 * trainlive.h - live training efficiency from what a job pushes: its
 * token counter (gpuwatch_training_tokens_total) and its model's shape
 * (gpuwatch_training_model_info{params,layers,hidden,seq,...} 1) give
 * tokens a second, MFU and HFU against the peak of the GPUs it names,
 * and tokens a joule from those GPUs' energy counters.
 *
 * The rate is the counter's increase over the pushes of the last
 * GW_TRAIN_WINDOW_MS, or between the last two pushes when they are
 * further apart; a counter that goes down restarted from 0, as
 * Prometheus' rate() reads one. Tokens a joule is that rate divided by
 * the GPUs' mean power over the same pushes (their energy counters'
 * increase between the frames current at the first and the last push,
 * over those frames' times). docs/EFFICIENCY.md says it for users.
 *
 * Pure functions over caller-owned plain structs (the caller supplies
 * times, counter values and the GPUs); no I/O, no clock. Threading:
 * reentrant; one job's state is the caller's to serialise.
 */
#ifndef GW_ANALYSIS_TRAINLIVE_H
#define GW_ANALYSIS_TRAINLIVE_H

#include "analysis/efficiency.h"
#include "core/err.h"
#include "model/labels.h"

#include <stdbool.h>
#include <stdint.h>

#define GW_TRAIN_TOKENS "gpuwatch_training_tokens_total"
#define GW_TRAIN_INFO "gpuwatch_training_model_info"
#define GW_TRAIN_POINTS 64	 /* pushes a job's window keeps */
#define GW_TRAIN_WINDOW_MS 60000 /* the rate's window */
#define GW_TRAIN_STALE_MS 300000 /* no push for this long: the job's families go (PromQL's lookback) */
#define GW_TRAIN_GPUS_MAX 256	 /* GPUs one job names */

/* One GPU of the node, as the caller lists them. */
struct gw_train_gpu {
	unsigned int index; /* NVML's */
	const char *uuid;   /* "GPU-..." */
	const char *name;   /* NVML's model name, for the peak table */
};

/* What a job's model_info says, read against the node's GPUs. */
struct gw_train_info {
	struct gw_model_shape shape;
	enum gw_recompute recompute;
	enum gw_dtype dtype;
	unsigned int gpu[GW_TRAIN_GPUS_MAX]; /* the job's GPUs: positions in the caller's list */
	unsigned int ngpu;		     /* 0: the gpus label could not be read */
	bool mfu_ok;	       /* shape and every GPU's peak known: MFU and HFU can be derived */
	struct gw_flops flops; /* with mfu_ok */
	double peak;	       /* with mfu_ok: the job's GPUs' peak FLOP/s together */
};

/*
 * Read model_info's labels (params, layers, hidden, seq; heads, head_dim,
 * recompute, dtype and gpus optional; others, such as the grouping
 * labels, ignored) against the node's gpus. n 0 reads as a job with no
 * model_info: all GPUs, no shape. Returns 0 with mfu_ok set, or
 * GW_EINVAL with the first problem in err; out then still holds what
 * could be read (its GPUs, ngpu 0 when the gpus label is bad), so tokens
 * a second and a joule are derived without MFU.
 */
int gw_train_info_read(const struct gw_lpair *l, size_t n, const struct gw_train_gpu *gpus,
		       unsigned int ngpus, struct gw_train_info *out, struct gw_err *err);

/* One push as the window keeps it. */
struct gw_train_point {
	int64_t t_ms;  /* the push's time */
	double tokens; /* the counter, resets undone */
	int64_t e_ms;  /* the frame's time its energy is of */
	double e_mj;   /* the job's GPUs' energy counters summed, as read */
	bool e_ok;     /* every GPU's energy was read */
};

/* A job's recent pushes: a ring, oldest first from head. Zeroed is empty. */
struct gw_train_window {
	struct gw_train_point p[GW_TRAIN_POINTS];
	size_t head, n;
	double raw, offset; /* the counter as last pushed; what its resets took off */
};

/*
 * Add a push: tokens as pushed at t_ms, and the job's GPUs' energy (mJ)
 * summed in the frame of e_ms (e_ok false: some GPU's was not read). A
 * push at or before the newest point's time replaces it; a negative or
 * non-finite counter is ignored. An energy sum that went down (a GPU's
 * counter restarted) leaves the older points without energy.
 */
void gw_train_window_add(struct gw_train_window *w, int64_t t_ms, double tokens, bool e_ok, int64_t e_ms,
			 double e_mj);

/* The job's GPUs changed: the energy sums before now are not comparable. */
void gw_train_window_energy_reset(struct gw_train_window *w);

/* The time of the newest push; 0: none. */
int64_t gw_train_window_last(const struct gw_train_window *w);

/* Whether the job pushed within GW_TRAIN_STALE_MS of now_ms (its families are shown). */
bool gw_train_window_fresh(const struct gw_train_window *w, int64_t now_ms);

/* What a job's families say now; each has_ false leaves its family out. */
struct gw_train_values {
	bool has_rate, has_mfu, has_tpj;
	double tokens_per_s;
	double mfu, hfu; /* fractions of the peak */
	double watts;	 /* the GPUs' mean power over the rate's pushes */
	double tokens_per_j;
};

/* From the window and the job's info (NULL: none); a window of fewer than two pushes has no rate. */
void gw_train_derive(const struct gw_train_window *w, const struct gw_train_info *info,
		     struct gw_train_values *out);

#endif
