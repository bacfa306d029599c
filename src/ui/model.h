/*
 * model.h - what `gpuwatch top` shows, kept apart from how it is drawn.
 *
 * The model copies what the UI needs out of each sampler frame: the current
 * value of every column per GPU, a history ring per GPU per charted metric,
 * the XID/ECC events seen since start, and one flat process table over all
 * GPUs. Frames are borrowed only for the duration of gw_ui_model_update(),
 * so the sampler can recycle them while the UI draws from the copy.
 *
 * History: one time ring shared by all GPUs (every frame has every GPU) and
 * a float ring per GPU per metric, NAN where a value was missing; charts ask
 * for a window and a number of columns and get one value per column
 * (gw_ui_hist_series), so the window can change without resampling.
 *
 * Health and the OOM forecast: each GPU carries a health verdict (the
 * health watches' PASS / WARN / FAIL per system, with incidents where the
 * source gives them) and its memory's time to full. Locally the model runs
 * the health module's watches and the forecast's trend (analysis/trend.h)
 * on the frames it is given (model_health.c); remote sources hand both in
 * with their snapshots. A GPU whose source has no verdict shows none.
 *
 * Ownership: the caller owns the struct gw_ui_model (init/release).
 * Threading: single-threaded (the UI thread); no NVML calls anywhere here.
 */
#ifndef GW_UI_MODEL_H
#define GW_UI_MODEL_H

#include "analysis/trend.h"
#include "collect/sampler.h"
#include "health/health.h"
#include "health/reading.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The current values the UI shows, each one field of the field table. */
#define GW_UI_COLS(X)                                                          \
	X(UTIL, "utilization.gpu")                                             \
	X(MEMUTIL, "utilization.memory")                                       \
	X(MEMUSED, "memory.used")                                              \
	X(MEMTOTAL, "memory.total")                                            \
	X(TEMP, "temperature.gpu")                                             \
	X(POWER, "power.draw")                                                 \
	X(PLIMIT, "enforced.power.limit")                                      \
	X(SMCLK, "clocks.current.sm")                                          \
	X(MEMCLK, "clocks.current.memory")                                     \
	X(PCIERX, "pcie.rx_throughput")                                        \
	X(PCIETX, "pcie.tx_throughput")                                        \
	X(FAN, "fan.speed")                                                    \
	X(REASONS, "clocks_event_reasons.active")                              \
	X(PSTATE, "pstate")

enum gw_ui_col {
#define GW_UI_COL_ENUM(id, name) GW_UC_##id,
	GW_UI_COLS(GW_UI_COL_ENUM)
#undef GW_UI_COL_ENUM
	GW_UC__COUNT
};

/* Fields found by their DCGM name, shown only where the table has them. */
enum gw_ui_prof { GW_UP_SMACT, GW_UP_TENSOR, GW_UP__COUNT };

/* The charted metrics. */
enum gw_ui_metric { GW_UM_UTIL, GW_UM_MEM, GW_UM_POWER, GW_UM_TEMP, GW_UM__COUNT };

#define GW_UI_EVENTS_MAX 64 /* events kept for the event line and detail view */
#define GW_UI_NODE_NAME_MAX 64
#define GW_UI_NO_NODE UINT32_MAX /* a GPU of this machine */

struct gw_ui_event {
	int64_t t_ms;
	unsigned int gpu; /* index in the model when it happened; UINT32_MAX: a node's event */
	char where[80];   /* "GPU 1", "node-a GPU 1", "node-a" */
	char text[80];    /* "XID 79", "ECC DBE +1", "GPU lost", "unreachable: connection refused" */
};

/* A machine whose GPUs come from a remote source (--remote, --prometheus). */
struct gw_ui_node {
	char name[GW_UI_NODE_NAME_MAX];
	int err;         /* 0: its last answer came; else GW_E... and why */
	char why[160];   /* "unreachable: connection refused", "no samples in Prometheus' answer" */
	int64_t seen_ms; /* time of its last answer; 0: never answered */
	bool simulated;  /* its GPUs are simulated (as last answered) */
	char note[160];  /* what it lacks though it answers ("no history ..."); "" */
};

#define GW_UI_INCIDENTS_MAX 6 /* incidents kept per GPU, worst first */

struct gw_ui_incident {
	uint8_t severity; /* enum gw_health_status: WARN or FAIL */
	uint8_t system;	  /* enum gw_health_system */
	char tag[24];	  /* a word or two: "DBE", "XID 79", "remap pending" */
	char message[GW_HEALTH_MSG_MAX];
};

/* A GPU's health verdict as `gpuwatch health` gives it. */
struct gw_ui_health {
	bool known;			/* false: the source gave none (show nothing, not PASS) */
	uint8_t status;			/* enum gw_health_status, the worst of system[] */
	uint8_t system[GW_HSYS__COUNT]; /* enum gw_health_status per watch */
	unsigned int ninc;		/* 0 where the source gives verdicts only (Prometheus) */
	struct gw_ui_incident inc[GW_UI_INCIDENTS_MAX];
};

struct gw_ui_gpu {
	unsigned int index; /* NVML index */
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	bool lost;
	struct gw_value cur[GW_UC__COUNT];
	struct gw_value prof[GW_UP__COUNT];
	uint64_t xid_total, sbe, dbe;
	unsigned int last_xid; /* 0: none */
	float *hist[GW_UM__COUNT]; /* rings, model->hist_cap each */
	struct gw_ui_health health;
	double ttf_s; /* seconds until memory is full at its trend; < 0: not growing or not known */
	/* remote GPUs only */
	unsigned int node;  /* index into the model's nodes; GW_UI_NO_NODE for a local GPU */
	bool stale;         /* values are the last known, not fresh (node down, GPU not in the answer) */
	bool placeholder;   /* no GPU: the row stands for a node whose GPUs are not known yet */
	char uuid[80];
	int64_t seen_ms;    /* when its values were last fresh */
};

/* One process row (a process on two GPUs is two rows). */
struct gw_ui_proc {
	unsigned int pid;
	unsigned int gpu; /* NVML index */
	bool mem_valid;
	uint64_t mem_bytes;
	int sm_pct; /* -1: not known (no recent sample from the driver) */
	char type[4]; /* "C", "G", "C+G" */
	char user[40];
	char owner[96]; /* "pod:<uid>", "job:<id>", "ctr:<12 hex>" or "" */
	char cmd[GW_PROC_NAME_MAX];
	char node[GW_UI_NODE_NAME_MAX]; /* remote processes: their node; "" here */
};

/* The local watches: the health module's and the OOM forecast's, over the frames (model_health.c). */
struct gw_ui_watch {
	bool open;
	struct gw_health h;
	struct gw_health_map map;
	struct gw_trend_ring *ring; /* one a GPU */
	double *scratch;
	int64_t window_ms, step_ms, last_ms;
	long used_idx, free_idx; /* field table indexes; -1: absent */
};

struct gw_ui_model {
	unsigned int ngpus;
	struct gw_ui_gpu *gpus;
	size_t fidx[GW_UC__COUNT];  /* field table index; SIZE_MAX: absent */
	size_t pidx[GW_UP__COUNT];  /* idem, for the profiling fields */
	/* history */
	unsigned int hist_cap, hist_head, hist_n; /* head: next slot */
	int64_t *hist_t;                          /* frame times, ms */
	uint64_t last_seq;
	int64_t last_t_ms;
	/* processes */
	struct gw_ui_proc *procs;
	size_t nprocs, procs_cap;
	/* events, a ring */
	struct gw_ui_event events[GW_UI_EVENTS_MAX];
	unsigned int nevents, events_head;
	uint64_t events_total;
	/* remote sources: the nodes, in display order (their GPUs follow the same order) */
	bool remote;
	struct gw_ui_node *nodes;
	unsigned int nnodes, nodes_cap;
	/* local: the health watches and the forecast */
	struct gw_ui_watch watch;
	int64_t forecast_window_ms; /* the forecast's trend window; set before the first update (0: 10 min) */
};

/* hist_cap: samples kept per metric (e.g. 3600: an hour at 1 s). */
int gw_ui_model_init(struct gw_ui_model *m, unsigned int hist_cap);
void gw_ui_model_release(struct gw_ui_model *m);

/*
 * Copy frame f into the model. A frame already seen (same seq) changes
 * nothing and returns 0 with *changed false. The first frame sizes the GPU
 * list; later frames must have the same GPUs. Returns 0, GW_ENOMEM, GW_EINVAL.
 */
int gw_ui_model_update(struct gw_ui_model *m, const struct gw_frame *f, bool *changed);

/*
 * Copy a remote snapshot into the model (rsnap.h). GPUs are matched by node
 * and UUID (or index) across snapshots; new ones are added in node order
 * with an empty history; GPUs of a node that did not answer keep their
 * last values and become stale; a node with no GPU known gets one
 * placeholder row. A snapshot with history fills the rings first when
 * they are still empty. Returns 0 or GW_ENOMEM.
 */
struct gw_ui_rsnap;
int gw_ui_model_update_remote(struct gw_ui_model *m, const struct gw_ui_rsnap *s);

/*
 * The tag of an incident: "XID 79" for an XID (its message begins so),
 * else a word or two for its DCGM code ("DBE" for a volatile double-bit
 * error), else the code less its DCGM_FR_ prefix.
 */
void gw_ui_health_tag(const char *code, const char *message, char *buf, size_t n);

/* Set h's verdict (status and incidents) from a health report. */
void gw_ui_health_from_report(struct gw_ui_health *h, const struct gw_health_report *r);

/* Forget the history (after the sampling interval changed, say). */
void gw_ui_model_clear_history(struct gw_ui_model *m);

/*
 * One value per column for the window [now_ms - window_ms, now_ms], each
 * column an equal span of time: the maximum of the samples falling into
 * it (so a short spike stays visible). A column between two samples,
 * when columns are narrower than the sampling interval, holds the older
 * sample's value, so a chart has no holes a sample apart; a column stays
 * NAN before the first sample, after a sample without a value (a lost GPU,
 * a stale node) and in a silence over 15 s (ticks missed).
 */
void gw_ui_hist_series(const struct gw_ui_model *m, unsigned int gpu, enum gw_ui_metric metric, int64_t now_ms,
		       int64_t window_ms, float *out, unsigned int ncols);

/* The i-th newest event (0: newest); NULL past the end. */
const struct gw_ui_event *gw_ui_model_event(const struct gw_ui_model *m, unsigned int i);

/* A value as a number (percent, MiB, W, C, MHz, KB/s); false when not valid. */
bool gw_ui_num(const struct gw_value *v, double *out);

#endif
