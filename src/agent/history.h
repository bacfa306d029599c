/*
 * history.h - the agent's history: every frame's values stored in the
 * embedded store (the same series /metrics exposes, plus instance and job
 * labels), and Prometheus' query API over it, mounted on the agent's server.
 * A GPU with HPC jobs (--hpc-job-mapping-dir) is stored as /metrics shows
 * it: its DCGM series once per job with hpc_job, its native series once,
 * and gpuwatch_hpc_job_info per job.
 *
 * Ownership: embedded in the agent; open/close pair. Threading: feed() runs
 * on the sampling thread, right after each frame is published, so every
 * frame /metrics can show is stored (it only appends to the store's heads;
 * the store flushes on its own thread); the API handlers run on HTTP threads.
 */
#ifndef GW_AGENT_HISTORY_H
#define GW_AGENT_HISTORY_H

#include "api/prom_api.h"
#include "collect/sampler.h"
#include "export/counters.h"
#include "export/expfmt.h"
#include "ingest/import_om.h"
#include "store/tsdb.h"

#include <pthread.h>

/* The store refs of the series a GPU's HPC jobs add; remade when its jobs change. */
struct agent_history_jobs {
	uint64_t gen;   /* the job list (gw_hpcjobs.gen) these refs are for; 0: none */
	uint64_t *refs; /* [job][nfields + 1]: each field's DCGM series (jobs after the first), then the info series */
	uint64_t pod;	/* which pod container the GPU's DCGM series name (pod_key()); 0: none */
};

struct agent_history_family {
	char *name; /* NULL: not kept */
	char *help;
	enum gw_metric_type type;
};

struct agent_history_label {
	char *name; /* as the file names it */
	int src;    /* gw_series_label_source() */
};

struct agent_history {
	struct gw_tsdb *db;
	struct gw_api api;
	struct gw_arena_pool pool; /* the queries' memory, kept between them (api.pool) */
	struct gw_http_route routes[GW_API_NROUTES];
	uint64_t *refs; /* [gpu][field][2]: store refs, 0 = not created yet */
	struct gw_field *fields; /* the table as stored: dcgm is the counters file's name, NULL where it leaves the family out */
	/*
	 * Each DCGM family as the counters file gives it, by field, then
	 * DCGM_FI_DEV_XID_ERRORS and DCGM_FI_DEV_POWER_LIMIT (nfields + 2):
	 * name (NULL: not kept), type and help. Owned; meta_lock guards them
	 * against the metadata handler while a reload replaces them.
	 */
	struct agent_history_family *fam;
	pthread_mutex_t meta_lock;
	/* label rows: what each DCGM series carries after dcgm-exporter's standard labels */
	struct agent_history_label *lab;
	size_t nlab;
	/* the two DCGM families /metrics has beside the field table's, and up */
	uint64_t *xrefs; /* [gpu][2]: DCGM_FI_DEV_XID_ERRORS, DCGM_FI_DEV_POWER_LIMIT */
	unsigned int *xid_code; /* [gpu]: the XID its xrefs series is labelled with (err_code) */
	uint64_t up_ref;
	long enforced; /* field index of enforced.power.limit, -1: none */
	struct gw_nvml *nv;
	struct agent_history_jobs *jobs; /* [gpu] */
	unsigned int ngpus;
	size_t nfields;
	char instance[300];
	char job[64];
	char hostname[256];
	char host_label[256]; /* the Hostname label, as /metrics writes it (gw_metrics_hostname) */
	char driver[96]; /* the system's driver and NVML versions, for label rows */
	char nvml[96];
	/* samples the store refused (head full, out of memory); counted on the
	 * sampling thread, read by /metrics renders */
	_Atomic uint64_t append_errors;
	uint64_t frames_stored;
	/* the process series the last frame stored (history_procs.c), sorted: a
	 * process gone by the next frame gets a staleness marker */
	uint64_t *proc_refs;
	size_t nproc_refs;
	struct gw_sampler *sampler; /* feeding us; NULL: fed by hand (sim record, tests) */
	/* the store's flushes, seen from its flushing thread (which alone writes these) */
	void (*log)(const char *level, const char *fmt, ...);
	char path[512];         /* for the log lines */
	/* one appender at a time: the sampling thread's frames, and imports
	 * posted to /api/v1/import (agent_history_import) between them */
	pthread_mutex_t append_mu;
	uint64_t failing;	 /* failed flushes in a row */
	int fail_kind;          /* GW_E* of the last failure logged */
	int64_t fail_logged_ms; /* when the last failure was logged */
};

struct agent_history_opts {
	const char *path;     /* --storage.path */
	int64_t retention_ms; /* --storage.retention.time */
	int64_t flush_interval_ms; /* --storage.flush-interval: a kill -9 loses at most this much */
	uint64_t retention_bytes;
	/* the instance label; NULL: the host name, and series stored under the
	 * old default "HOST:PORT" are renamed to it at open */
	const char *instance;
	const char *job;      /* the job label (default "gpuwatch") */
	/* key=value log lines: failed flushes (at once, then once a minute while
	 * they go on) and the recovery; NULL: none */
	void (*log)(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	bool stagger; /* gw_tsdb_opts.stagger: the live agent, not sim record */
	/* `gpuwatch serve`: an existing store, only read (no flushes, no
	 * retention, no recovery: a damaged one is reported by its queries) */
	bool readonly;
	/* the DCGM families /metrics shows (non-label rows), under the file's
	 * names, types and help, with the labels its label rows add, read at
	 * open (and by agent_history_reconfigure): the history keeps those;
	 * NULL: every field's DCGM family under its DCGM name, no label rows */
	const struct gw_counters *counters;
	/* who holds the store's lock, as a second writer is told ("agent", "sim record") */
	const char *holder;
};

/* The machine's name (gethostname, "localhost" without one): the default instance label. */
void agent_history_host(char *buf, size_t len);

int agent_history_open(struct agent_history *h, const struct agent_history_opts *o, struct gw_nvml *nv,
		       unsigned int ngpus, struct gw_err *err);
void agent_history_close(struct agent_history *h);

/*
 * New counters (SIGHUP): keep the DCGM families and labels they give
 * /metrics from the next frame on. Pauses the feed while it changes them.
 */
void agent_history_reconfigure(struct agent_history *h, const struct gw_counters *c);

/* The store's health as gpuwatch_store_* families (gw_metrics.extra). */
void agent_history_render(void *h, struct gw_expfmt *w);

/*
 * Append OpenMetrics text with time stamps (what `gpuwatch import --agent`
 * posts: ingest/import_om.h) to the store, between two frames, so it is
 * queryable at once. st: what was read; *refused: samples the store
 * refused (not newer than their series' last). 0, or the parse error with
 * err saying why (what came before it is kept).
 */
int agent_history_import(struct agent_history *h, const char *text, size_t len, struct gw_import_stats *st,
			 uint64_t *refused, struct gw_err *err);

/* Store one frame (one thread at a time: the store's single appender). */
void agent_history_feed(struct agent_history *h, const struct gw_frame *f);
/* The frame's process series, as /metrics shows them (called by feed; history_procs.c). */
void agent_history_procs(struct agent_history *h, const struct gw_frame *f);

/*
 * Store the sampler's latest frame and every frame it publishes from now
 * on, on its sampling thread (gw_sampler_set_consumer);
 * agent_history_close() stops that before it closes the store.
 */
void agent_history_start(struct agent_history *h, struct gw_sampler *s);

#endif
