/*
 * sampler.h - the one place the agent calls NVML: a thread that samples
 * every GPU on a schedule and publishes frames.
 *
 * A frame is one tick: every exported field of every GPU (with its state),
 * the processes on each GPU, XID counts per code, the HPC jobs using each
 * GPU (collect/hpcjob.h), and the sampler's own health. Fast fields are read every tick; fields flagged GW_FL_SLOW (ECC
 * counters, retired pages, PCIe throughput) and process lists on their own
 * slower cadence, their last values carried into the frames between. XID
 * and ECC events arrive on a second thread blocked in nvmlEventSetWait, so
 * none is missed between ticks. The driver's sample buffers (utilisation,
 * power) are drained every tick (collect/dsamples.h), so a spike between
 * two ticks shows in that tick's samples.* fields. Ticks are aligned to
 * multiples of the interval in wall-clock time; a frame's time is its
 * scheduled tick.
 *
 * Every NVML call the sampler makes has its failure counted per function
 * and GPU (nvml/tally.h; "not supported" is no failure); frames carry the
 * counts, and failures are reported through opts.nvml_log, rate limited
 * (collect/nvml_log.h). No failure stops the sampling.
 *
 * Each GPU is read on a thread of its own (collect/workers.h). A tick hands
 * every GPU its read and waits for them up to a deadline (opts
 * read_timeout_ms, by default 80 % of the interval), then publishes the
 * frame: a GPU whose read is still running (an NVML call hung in the
 * driver) is "stalled" in it: its values are not available (state NA; its
 * identity fields carry over, its processes are left out), its
 * read_timeouts counts the read once, and it is handed no new read until
 * the stuck call returns; then it rejoins at the next tick. So a slow GPU
 * costs its own values only, never the other GPUs' freshness.
 *
 * Readers (scrapes, the API, the UI) never call NVML: they take a reference
 * to the latest frame with gw_sampler_acquire() and drop it with
 * gw_sampler_release(); a slow or hung NVML call never delays a reader.
 *
 * Ownership: gw_sampler_new() borrows the gw_nvml and its GPU array for the
 * sampler's life; gw_sampler_free() stops the threads (waiting for a hung
 * NVML call to return: it runs on a thread that uses them). Frames are owned by
 * the sampler and valid while referenced. Threading: acquire/release from
 * any thread.
 */
#ifndef GW_COLLECT_SAMPLER_H
#define GW_COLLECT_SAMPLER_H

#include "collect/hpcjob.h"
#include "collect/mig.h"
#include "collect/nvml_log.h"
#include "collect/podres.h"
#include "collect/procs.h"
#include "collect/window.h"
#include "fields/fields.h"

#include <stdint.h>

#define GW_XID_TRACKED 32 /* distinct XID codes counted per GPU */

struct gw_xid_count {
	unsigned int code;
	uint64_t count;
};

struct gw_frame_gpu {
	struct gw_gpu *gpu;    /* identity (borrowed from the sampler's list) */
	bool lost;             /* fell off the bus */
	struct gw_value *v;    /* one per field of the table, by table index */
	struct gw_procs procs; /* last process list */
	struct gw_migs migs;   /* last MIG devices (none without MIG) */
	struct gw_xid_count xid[GW_XID_TRACKED];
	unsigned int nxid;
	unsigned int last_xid; /* 0: none seen */
	uint64_t sbe_events, dbe_events;
	uint64_t nvml_errors[GW_NVML_FN__COUNT]; /* failed NVML calls on this GPU, by function */
	struct gw_hpcjobs *jobs; /* HPC jobs on the GPU (opts.hpcjob); NULL: none. Read only */
	const struct gw_pods *pods; /* the frame's Kubernetes pods (its pods below), for lookups; NULL: none */
	bool stalled;		 /* its read ran past this tick's deadline: values not fresh (state NA) */
	double stalled_seconds;	 /* how long that read has been running; 0 when not stalled */
	uint64_t read_timeouts;	 /* reads of this GPU that ran past their tick's deadline */
	/* over the last opts.count_window_ms (collect/window.h): XIDs by xid[] index, samples with each clock event reason */
	uint64_t xid_window[GW_XID_TRACKED];
	uint64_t clock_window[GW_WINDOW_CLOCKS];
	bool clock_window_valid; /* the GPU reports clock event reasons */
};

#define GW_P2P_UNREAD 0xff

struct gw_frame {
	int64_t t_ms;  /* scheduled tick time, ms since the epoch */
	uint64_t seq;  /* 1, 2, ... */
	unsigned int ngpus;
	struct gw_frame_gpu *gpus;
	/* the sampler's health at this tick */
	double sample_seconds;       /* how long this tick's reads took */
	uint64_t ticks_total;        /* ticks done */
	uint64_t missed_ticks_total; /* ticks skipped because one ran late */
	uint64_t read_errors_total;  /* values that came back with an error state */
	unsigned int stalled_gpus;   /* GPUs stalled in this frame */
	uint64_t nvml_errors_total;  /* failed NVML calls, all functions and GPUs */
	uint64_t nvml_errors[GW_NVML_FN__COUNT]; /* failed NVML calls on no GPU (system, events), by function */
	/* [i * ngpus + j]: nvmlDeviceGetP2PStatus over NVLink from GPU i to GPU j (NVML_P2P_STATUS_*),
	 * read once at start (the topology holds while the driver is loaded); GW_P2P_UNREAD: no answer */
	const uint8_t *p2p_nvlink;
	struct gw_pods *pods;	     /* Kubernetes pod resources at this tick (opts.podres); NULL: none */
	int refs;                    /* private to the sampler */
};

struct gw_sampler_opts {
	unsigned int interval_ms;      /* fast fields; default 1000, minimum 10 */
	unsigned int read_timeout_ms;  /* a GPU whose read takes longer is stalled for the tick; default 80 % of interval_ms */
	unsigned int slow_interval_ms; /* GW_FL_SLOW fields; default 10000 */
	unsigned int proc_interval_ms; /* process lists; default 5000 */
	bool no_events;                /* do not start the XID/ECC event thread */
	unsigned int count_window_ms;  /* window of the frames' xid_window and clock_window; default 5 min */
	const struct gw_cgroup_src *attr; /* attribute processes (borrowed); NULL: do not */
	/* HPC job mapping (borrowed), polled every tick on the sampling thread,
	 * which alone uses it from gw_sampler_start() on; NULL: no jobs. */
	struct gw_hpcjob *hpcjob;
	/* Kubernetes pod resources (borrowed): each tick takes its current
	 * snapshot into the frame; NULL: none. */
	struct gw_podres *podres;
	/* NVML failures worth a log line, called on the sampling thread; NULL: none.
	 * At most one line per function per nvml_log_interval_ms (default 60000). */
	gw_nvml_log_fn nvml_log;
	void *nvml_log_arg;
	unsigned int nvml_log_interval_ms;
};

struct gw_sampler;

int gw_sampler_new(struct gw_sampler **out, struct gw_nvml *nv, struct gw_gpu *gpus, unsigned int ngpus,
		   const struct gw_sampler_opts *opts, struct gw_err *err);
/* Start the sampling (and event) threads; the first frame is taken before returning. */
int gw_sampler_start(struct gw_sampler *s, struct gw_err *err);
void gw_sampler_free(struct gw_sampler *s);
/* Stop the sampling and event threads and wait for them; gw_sampler_tick still works after it. */
void gw_sampler_stop(struct gw_sampler *s);

/* Take one tick now, on the caller's thread (tests, benchmarks, one-shot tools). */
int gw_sampler_tick(struct gw_sampler *s, int64_t t_ms);

/*
 * Which GW_FL_ON_DEMAND rows to read from the next tick on: want[i] for
 * table index i (NULL: none); other rows are always read. Any thread.
 */
void gw_sampler_want(struct gw_sampler *s, const bool *want);
const struct gw_frame *gw_sampler_acquire(struct gw_sampler *s);
void gw_sampler_release(struct gw_sampler *s, const struct gw_frame *f);

/*
 * A consumer that must see every frame (the history): fn is called at once
 * with the latest frame, if there is one, and then on the sampling thread
 * with each frame just after it is published, in order. It delays the next
 * tick by as long as it runs, so it must be quick and must not block on I/O
 * (the store's appends are; its flushes run on a thread of their own).
 * fn NULL removes the consumer; once that returns, fn is not running and
 * will not be called again. One consumer at a time.
 */
typedef void (*gw_frame_fn)(void *arg, const struct gw_frame *f);
void gw_sampler_set_consumer(struct gw_sampler *s, gw_frame_fn fn, void *arg);

/*
 * The stalled GPUs of a frame in words, for /health: "gpu 3 (read stuck
 * 2.1 s), gpu 5 (...)"; "" when none. Returns the length (truncated to n).
 */
size_t gw_sampler_stalled_text(const struct gw_frame *f, char *buf, size_t n);

/* Wall-clock ms now. */
int64_t gw_now_ms(void);

#endif
