/*
 * agent_history.h - the agent's history: every frame's values stored in the
 * embedded store (the same series /metrics exposes, plus instance and job
 * labels), and Prometheus' query API over it, mounted on the agent's server.
 * A GPU with HPC jobs (--hpc-job-mapping-dir) is stored as /metrics shows
 * it: its DCGM series once per job with hpc_job, its native series once,
 * and gpuwatch_hpc_job_info per job.
 *
 * Ownership: embedded in the agent; open/close pair. Threading: feed() runs
 * on the storing thread (the store's single appender); the API handlers on
 * HTTP threads.
 */
#ifndef GW_CMD_AGENT_HISTORY_H
#define GW_CMD_AGENT_HISTORY_H

#include "api/prom_api.h"
#include "collect/sampler.h"
#include "store/tsdb.h"

#include <pthread.h>

/* The store refs of the series a GPU's HPC jobs add; remade when its jobs change. */
struct agent_history_jobs {
	uint64_t gen;   /* the job list (gw_hpcjobs.gen) these refs are for; 0: none */
	uint64_t *refs; /* [job][nfields + 1]: each field's DCGM series (jobs after the first), then the info series */
};

struct agent_history {
	struct gw_tsdb *db;
	struct gw_api api;
	struct gw_http_route routes[GW_API_NROUTES];
	uint64_t *refs; /* [gpu][field][2]: store refs, 0 = not created yet */
	struct agent_history_jobs *jobs; /* [gpu] */
	unsigned int ngpus;
	size_t nfields;
	char instance[300];
	char job[64];
	char hostname[256];
	char driver[96];
	uint64_t append_errors;
	uint64_t frames_stored, frames_missed;
	/* the storing thread */
	struct gw_sampler *sampler;
	unsigned int interval_ms;
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

struct agent_history_opts {
	const char *path;     /* --storage.path */
	int64_t retention_ms; /* --storage.retention.time */
	int64_t flush_interval_ms; /* --storage.flush-interval: a kill -9 loses at most this much */
	uint64_t retention_bytes;
	const char *instance; /* the instance label (default hostname:port) */
	const char *job;      /* the job label (default "gpuwatch") */
};

int agent_history_open(struct agent_history *h, const struct agent_history_opts *o, struct gw_nvml *nv,
		       unsigned int ngpus, struct gw_err *err);
void agent_history_close(struct agent_history *h);

/* Store one frame (the storing thread; tests may call it directly). */
void agent_history_feed(struct agent_history *h, const struct gw_frame *f);

/*
 * Start the storing thread: it takes each new frame the sampler publishes
 * (polling at half the sample interval) and stores it; the store's single
 * appender is this thread. agent_history_close() stops it.
 */
int agent_history_start(struct agent_history *h, struct gw_sampler *s, unsigned int interval_ms);

#endif
