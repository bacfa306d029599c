/*
 * workers.h - the sampler's per-GPU read threads: each GPU is read on a
 * thread of its own, so an NVML call that hangs on one GPU holds up only
 * that GPU's values.
 *
 * Each tick the sampler calls gw_workers_run(): the idle workers are
 * handed a read of the tick (GPM and driver sample buffers, the fields
 * due, the process list on its cadence) one after another, each finished
 * read handing on to the next worker directly; a read that outlasts its
 * share of the time left goes on alongside the next ones. The call
 * returns when all are done or at the deadline. A worker done in time is fresh:
 * its private results (values, processes, lost) are the tick's. A worker
 * still reading is stalled: it is handed nothing new until its call
 * returns, its read counts once in timeouts, and it rejoins at the first
 * tick after. Workers read into their own buffers only, so a late one
 * never writes into a frame a reader holds.
 *
 * Each worker has its own NVML failure tally; gw_workers_merge() adds what
 * the idle workers counted into the sampler's (nvml/tally.h: one writer).
 *
 * Ownership: the sampler embeds struct gw_workers; gw_workers_init()
 * borrows the GPU array and the config for the pool's life and starts one
 * thread per GPU; gw_workers_release() stops and joins them (waiting for a
 * hung NVML call to return). Threading: gw_workers_run/merge and the
 * results of idle workers from one thread (the sampler's tick) only.
 */
#ifndef GW_COLLECT_WORKERS_H
#define GW_COLLECT_WORKERS_H

#include "collect/cgroup.h"
#include "collect/mig.h"
#include "collect/procs.h"
#include "fields/fields.h"
#include "nvml/tally.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What every worker reads with; borrowed. */
struct gw_workers_cfg {
	struct gw_nvml *nv;
	unsigned int gpu_count;		  /* GPUs the agent reads (the read context's gpu_count) */
	unsigned int slow_interval_ms;	  /* GW_FL_SLOW fields */
	unsigned int proc_interval_ms;	  /* process lists */
	const struct gw_cgroup_src *attr; /* attribute processes; NULL: do not */
	const _Atomic unsigned char *want; /* per field: a GW_FL_ON_DEMAND row is read while its byte is 1 */
};

/* A GW_FL_KIB_RATE row's counter at its last read. */
struct gw_kib_prev {
	int64_t kib, t_ms;
	bool have;
};

struct gw_worker {
	struct gw_gpu *gpu; /* borrowed; its fields are the worker's while it reads */
	struct gw_workers *pool;
	pthread_t thread;
	bool started;
	pthread_cond_t go; /* with pool->mu: a read was handed over, or stop */

	/* Guarded by pool->mu. */
	bool busy;		  /* reading (maybe stuck in NVML) */
	uint64_t round;		  /* the tick it was last handed */
	int64_t t_ms;		  /* that tick's time */
	double busy_since;	  /* monotonic s the read began */
	uint64_t read_errors_pub; /* read_errors as of its last finished read */
	bool fresh;		  /* gw_workers_run: finished this tick's read in time */
	uint64_t timeouts;	  /* reads that ran past their tick's deadline */
	double stalled_seconds;	  /* gw_workers_run: how long the stuck read has run; 0 when fresh */

	/* The worker's own while busy; the sampler's to read while idle. */
	struct gw_value *v;    /* one per field of the table, by table index: the last read */
	struct gw_procs procs; /* the last process list */
	struct gw_migs migs;   /* the last MIG devices (process cadence: their memory is their processes') */
	bool have;	       /* v holds a read (the first read reads every field) */
	uint64_t read_errors;  /* values that came back with an error state */
	struct gw_nvml_tally tally;
	struct gw_read_memo memo;
	bool *reading; /* per field: read this time (else kept from the last read) */
	struct gw_kib_prev *kib; /* per field: GW_FL_KIB_RATE rows' last counter, for DCGM's rate */
	int64_t last_slow_ms, last_proc_ms;
	unsigned long long proc_util_seen_us; /* newest per-process sample read */
};

struct gw_workers {
	struct gw_workers_cfg cfg;
	unsigned int n;
	struct gw_worker *w; /* [n], by position in the sampler's GPU array */
	size_t nfields;
	pthread_mutex_t mu;
	pthread_cond_t done;   /* CLOCK_MONOTONIC: this round's reads all finished */
	uint64_t round;	       /* ticks handed out */
	int64_t t_ms;	       /* this round's tick */
	double end;	       /* its deadline, monotonic s */
	unsigned int next;     /* the next worker to hand this round's read */
	struct gw_worker *cur; /* the read handed last, while it is within its share */
	double cur_end;	       /* the end of its share, monotonic s */
	unsigned int pending;  /* this round's reads not yet finished */
	bool stop;
};

int gw_workers_init(struct gw_workers *p, const struct gw_workers_cfg *cfg, struct gw_gpu *gpus,
		    unsigned int n);
void gw_workers_release(struct gw_workers *p);

/*
 * Hand the idle workers a read of tick t_ms and wait for them, at most
 * timeout_ms; then each worker's fresh, stalled_seconds and timeouts say
 * how it went. Returns how many are not fresh (stalled).
 */
unsigned int gw_workers_run(struct gw_workers *p, int64_t t_ms, unsigned int timeout_ms);

/* The idle workers' NVML failures into t, and their read errors summed (idle or not: as last finished). */
uint64_t gw_workers_merge(struct gw_workers *p, struct gw_nvml_tally *t);

#endif
