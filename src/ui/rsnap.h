/*
 * rsnap.h - a snapshot of remote GPUs: what one refresh learnt from every
 * gpuwatch agent (--remote) or from one Prometheus server (--prometheus),
 * in the model's units, ready for gw_ui_model_update_remote().
 *
 * A snapshot lists every node the source knows of, in display order, each
 * with how its last request went: answered (err 0, fresh), failed (err and
 * why, e.g. "connection refused"), or still waiting (pending: nothing new,
 * keep what was shown). Only answered nodes have GPUs and processes in it.
 * The first snapshot may also carry history (a query_range over the chart
 * window) on one time grid shared by all GPUs.
 *
 * The builder turns Prometheus API answers (or an agent's /metrics read
 * into the same series) into a snapshot through one table of metric names
 * (the DCGM names dcgm-exporter and the agent share, plus gpuwatch's
 * process, lost-GPU and build series); the same table makes the query, so
 * a Prometheus server is asked for exactly what an agent exposes.
 *
 * Ownership: the builder owns the snapshot until gw_ui_rbuild_finish hands
 * it over; the receiver frees it with gw_ui_rsnap_free. Threading: a
 * snapshot belongs to one thread at a time (built by the remote worker,
 * read by the UI thread).
 */
#ifndef GW_UI_RSNAP_H
#define GW_UI_RSNAP_H

#include "ui/model.h"
#include "ui/promresp.h"

#define GW_UI_NODE_NAME_MAX 64

struct gw_ui_rnode {
	char name[GW_UI_NODE_NAME_MAX]; /* HOST:PORT, the Hostname label, or the instance label */
	char key[128];                   /* what series are grouped by (the instance label) */
	char host[GW_UI_NODE_NAME_MAX];  /* the Hostname label, where a series had one */
	bool pending;                    /* request still running: nothing new about this node */
	int err;                         /* 0: answered; else GW_E... */
	char why[160];                   /* for the screen, when err */
	bool simulated;                  /* gpuwatch_build_info says its GPUs are simulated */
	char note[160];                  /* what it answered but lacks ("no history ..."); "" */
};

/* Raw series kept for the history until the memory share can be computed. */
enum { GW_UI_RAW_USED, GW_UI_RAW_FREE, GW_UI_RAW_TOTAL, GW_UI_RAW__COUNT };

struct gw_ui_rgpu {
	unsigned int node;  /* index into the snapshot's nodes */
	unsigned int index; /* the gpu label */
	char uuid[80];
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	struct gw_value cur[GW_UC__COUNT];
	uint8_t prio[GW_UC__COUNT]; /* which metric filled a column (lower wins) */
	struct gw_value prof[GW_UP__COUNT];
	bool lost;
	unsigned int last_xid;
	float *hist[GW_UM__COUNT]; /* history, snap->hist_n values each (NAN: none); NULL without */
	float *raw[GW_UI_RAW__COUNT];
	bool free_valid;
	double free_bytes; /* DCGM_FI_DEV_FB_FREE, for a total where the exporter has none */
	struct gw_ui_health
	    health;   /* gpuwatch_health_status, then an agent's /api/v1/health; known: some came */
	double ttf_s; /* gpuwatch_memory_time_to_full_seconds; -1: absent */
};

/* An agent's /api/v1/health answer (`gpuwatch health --json`), read by gw_ui_health_parse. */
struct gw_ui_rhealth_gpu {
	unsigned int index;
	char uuid[80];
	struct gw_ui_health h;
};

struct gw_ui_rhealth {
	struct gw_ui_rhealth_gpu *gpus;
	unsigned int n;
};

/*
 * Read an /api/v1/health answer: {"overall", "gpus": [{"index", "uuid",
 * "status", "incidents": [{"system", "severity", "code", "message"}]}]},
 * held to promresp.h's size and depth caps and checked member by member.
 * Each system's verdict is the worst of its incidents'. Returns 0,
 * GW_EPARSE (with where), GW_ERANGE or GW_ENOMEM; release with
 * gw_ui_rhealth_release.
 */
int gw_ui_health_parse(struct gw_ui_rhealth *out, const char *body, size_t len, struct gw_err *err);
void gw_ui_rhealth_release(struct gw_ui_rhealth *h);

struct gw_ui_rsnap {
	int64_t t_ms; /* when the refresh started (this machine's clock) */
	struct gw_ui_rnode *nodes;
	unsigned int nnodes;
	struct gw_ui_rgpu *gpus;
	unsigned int ngpus;
	struct gw_ui_proc *procs;
	size_t nprocs;
	/* history grid: hist_n times from hist_t0, hist_step apart; 0: no history */
	int64_t hist_t0, hist_step;
	unsigned int hist_n;
};

void gw_ui_rsnap_free(struct gw_ui_rsnap *s);

struct gw_ui_rbuild {
	struct gw_ui_rsnap *s;
	unsigned int nodes_cap, gpus_cap;
	size_t procs_cap;
	unsigned int *proc_node; /* node of each process, until names are final */
	int err;                 /* first allocation failure */
};

/* The instant query (PromQL) every refresh sends, and the range query of the history. */
void gw_ui_rmap_query(char *buf, size_t n);
void gw_ui_rmap_hist_query(char *buf, size_t n);

/* Whether the table reads the metric name (what a /metrics text is filtered by). */
bool gw_ui_rmap_wanted(const char *name);

int gw_ui_rbuild_init(struct gw_ui_rbuild *b, int64_t t_ms);

/* Add a node; returns its index, or -1 (out of memory). key "" for a --remote agent. */
int gw_ui_rbuild_node(struct gw_ui_rbuild *b, const char *name, const char *key);

/*
 * Add an instant-query answer. node >= 0: every series belongs to that
 * node (an agent asked directly); node < 0: series are grouped into nodes
 * by their instance label (or Hostname), added as found.
 */
int gw_ui_rbuild_answer(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r, int node);

/* Verdicts of an agent's /api/v1/health into the node's GPUs (matched by UUID, else index). */
void gw_ui_rbuild_health(struct gw_ui_rbuild *b, const struct gw_ui_rhealth *h, int node);

/* Add a range answer on the grid t0 + k * step, k < n (set on the first call). */
int gw_ui_rbuild_history(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r, int node, int64_t t0,
			 int64_t step, unsigned int n);

/*
 * Complete the snapshot: memory totals from used + free where no total
 * came, history of the memory share, node names (the Hostname label where
 * it tells nodes apart) and, when sort_nodes, nodes in name order. Returns
 * the snapshot (the builder lets go of it) or NULL after a failure.
 */
struct gw_ui_rsnap *gw_ui_rbuild_finish(struct gw_ui_rbuild *b, bool sort_nodes);
void gw_ui_rbuild_release(struct gw_ui_rbuild *b);

#endif
