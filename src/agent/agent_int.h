/*
 * agent_int.h - what the agent's parts share (not a public header):
 * agent.c (wiring, /health, the landing page, the route table),
 * expose.c (the counters file and /metrics), alerting.c, forecast.c, anomaly.c,
 * push.c with train.c, health.c (the health watches), policy.c, scrape.c and
 * status.c.
 */
#ifndef GW_AGENT_AGENT_INT_H
#define GW_AGENT_AGENT_INT_H

#include "agent/agent.h"
#include "agent/history.h"
#include "analysis/anomaly_report.h"
#include "analysis/trainlive.h"
#include "analysis/trend.h"
#include "collect/cgroup.h"
#include "collect/hpcjob.h"
#include "collect/podres.h"
#include "export/counters.h"
#include "export/expo_cache.h"
#include "export/gpu_metrics.h"
#include "health/health.h"
#include "health/policy.h"
#include "health/reading.h"
#include "http/curl.h"
#include "http/server.h"
#include "ingest/push.h"
#include "rules/manager.h"
#include "rules/notify.h"
#include "rules/rulefile.h"

#include <pthread.h>

/* What the status endpoints say (status.c); text holds the flags' names and values. */
struct agent_status {
	struct gw_api_status api;
	char *flags[64]; /* name, value, ..., NULL */
	size_t nflags, used;
	char text[4096];
	char yaml[2048];
	char retention[64];
	char scrape_url[320];
	char address[300]; /* host:port the agent is scraped at: the target's __address__ */
};

/* The rules and where their alerts go (alerting.c); empty without history. */
struct agent_alerting {
	bool open;
	struct gw_ruleset pending; /* read at start, taken by the evaluator when serving starts */
	struct gw_rules *rules;    /* NULL: no history, or not yet serving */
	struct gw_notifier *notifier; /* NULL: no receiver */
	struct gw_arena arena;        /* external labels */
	struct gw_labels external;
	char external_url[512];
	pthread_mutex_t reload_mu; /* one reload at a time (SIGHUP, POST /-/reload) */
	uint64_t reloads;
	bool reload_ok;
	int64_t reload_ms;
};

/* The OOM forecast (forecast.c): each GPU's recent memory use and the time until it fills. */
struct agent_forecast_gpu {
	struct gw_trend_ring ring; /* seconds since the epoch, bytes used */
	double seconds; /* time to full; -1: not growing. Guarded by mu */
	bool stored;	/* the last step stored a value (so going absent stores a staleness marker) */
	uint64_t ref;	/* its store series; 0: not yet */
};

struct agent_forecast {
	bool running, stop;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int64_t window_ms, step_ms;
	long used_idx, free_idx; /* memory.used and memory.free in the field table */
	unsigned int ngpus;
	struct agent_forecast_gpu *g;
	double *scratch; /* the trend's, on the forecast thread */
};

/* A pushed group with a token counter, and the efficiency it gives (train.c). */
struct agent_train_job;
struct agent_train {
	struct agent_train_job **jobs;
	size_t n;
	long energy_idx;	   /* energy.total in the field table; -1: none */
	struct gw_train_gpu *gpus; /* the agent's, as trainlive.h reads them */
};

/* The live anomaly scores (anomaly.c): each GPU's metrics as a ring of grid means. */
struct agent_anom_series {
	double *t, *v;	/* a ring of cap points: seconds since the epoch, the metric's base unit */
	size_t head, n;
	double sum;	/* the grid point being averaged: its frames' sum and count */
	unsigned int cnt;
	double score;	/* held (see anomaly.c); -1: still training (absent). Guarded by mu */
	double peak_t;	/* when the held score was reached, s */
	uint64_t ref;	/* its store series; 0: not yet */
};

struct agent_anom {
	bool running, stop;
	pthread_t thread;
	pthread_mutex_t mu; /* guards stop, the scores and the counters */
	pthread_cond_t cv;
	struct gw_anom_params p;
	int64_t grid_ms;   /* a point: the mean of the frames in one grid slot */
	int64_t slot;      /* the slot being averaged (frame time / grid_ms) */
	uint64_t seq;      /* the last frame taken */
	size_t cap;        /* points a series keeps: memory_s of them */
	long field[GW_ANOM_NMETRICS]; /* the field table's index of each metric, -1: none */
	long mem_total, power_limit;  /* for the floors */
	unsigned int ngpus;
	struct agent_anom_series *s; /* [gpu * GW_ANOM_NMETRICS + metric] */
	double *t, *v;		     /* one series in time order, on the thread */
	uint64_t evals;		     /* evaluations (a point of every series each) */
	double cpu_s;		     /* the thread's CPU time in them */
};

/* Pushed groups (push.c, --web.enable-push). */
struct agent_push {
	bool open;
	pthread_mutex_t mu; /* guards everything below */
	struct gw_push_store *store;
	uint64_t pushes, refused, store_refused;
	struct agent_train train;
};

/* The health watches over the frames (health.c). */
struct agent_health {
	bool open, running, have;
	struct gw_health h;
	struct gw_health_map map;
	pthread_mutex_t mu;             /* guards h, rep, have, seq */
	struct gw_health_report *rep;   /* [gpu]: the latest verdicts */
	uint64_t seq;                   /* the frame they are of */
	uint64_t *refs;                 /* [gpu][system]: store refs, 0: not created yet */
	pthread_t thread;
	pthread_mutex_t stop_mu;
	pthread_cond_t wake;
	bool stop;
};

/* --policy: the policies and the worker that runs their actions (policy.c). */
#define AGENT_POLICY_QUEUE 256
struct agent_policy_job {
	struct gw_policy_fire fire;
	unsigned int gpu; /* position */
	int64_t t_ms;
};
struct agent_policy {
	bool open, running, stop, curl_ok;
	struct gw_policies set;
	struct gw_policy_state state; /* the health thread's */
	/* set_mu: held by the health thread's checks and by a reload's swap of set.
	 * A reload keeps the sets it replaced until close, since queued firings
	 * still point into them (a reload is an operator's act: few, small). */
	pthread_mutex_t set_mu;
	struct gw_policies *retired;
	size_t nretired;
	pthread_mutex_t mu;           /* guards the queue and stop */
	pthread_cond_t cv;
	struct agent_policy_job q[AGENT_POLICY_QUEUE];
	unsigned int head, n;
	uint64_t dropped;
	pthread_t thread;
	struct gw_curl curl; /* the worker's, loaded at its first webhook */
};

struct gw_agent {
	struct gw_agent_opts o;
	struct gw_nvml *nv;
	struct gw_gpu *gpus;
	unsigned int ngpus;
	struct gw_sampler *sampler;
	struct gw_hpcjob *hpc;
	struct gw_podres *podres; /* --kubernetes: the kubelet watcher; NULL: off */
	unsigned int interval_ms;
	/* the exposition (expose.c) */
	pthread_rwlock_t lock; /* guards counters and metrics against a reload */
	struct gw_counters *counters;
	struct gw_metrics metrics;
	struct gw_expo_cache expo; /* each frame's exposition, rendered once per format */
	struct gw_webcfg web;          /* empty: plain HTTP, no auth */
	struct gw_cgroup_src attr_src; /* where process attribution reads from */
	struct agent_history history;  /* db NULL without history */
	struct gw_http *_Atomic http;  /* for its gpuwatch_http_* / gpuwatch_query_* families; NULL before it starts */
	struct agent_alerting alerting;
	struct agent_forecast forecast;
	struct agent_anom anom;
	struct agent_push push;
	struct agent_health health;
	struct agent_policy policy;
	struct agent_rw *rw; /* the remote writers; NULL without --remote-write.url */
	struct agent_scrape *scrape; /* the --scrape targets; NULL without */
	struct gw_http_route routes[14 + GW_API_NROUTES]; /* every part's; the server borrows them */
	struct agent_status status;
};

/* expose.c */
int agent_expose_load(struct gw_agent *a, struct gw_err *err);
void agent_expose_release(struct gw_agent *a);
void agent_expose_check(struct gw_agent *a);
void agent_expose_want(struct gw_agent *a); /* the counters' on-demand rows, asked of the sampler */
void agent_expose_metrics(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp);

/* kubernetes.c */
int agent_kubernetes_open(struct gw_agent *a, struct gw_err *err);
void agent_kubernetes_close(struct gw_agent *a);
void agent_kubernetes_render(struct gw_agent *a, struct gw_expfmt *w);

/* alerting.c */
#define AGENT_ALERTING_NROUTES 3
extern const struct gw_http_route agent_alerting_routes[AGENT_ALERTING_NROUTES]; /* ctx: the agent */
int agent_alerting_open(struct gw_agent *a, struct gw_err *err);  /* read the rule files; after the history */
int agent_alerting_start(struct gw_agent *a, unsigned short port, struct gw_err *err); /* evaluate */
int agent_alerting_reload(struct gw_agent *a, struct gw_err *err);
void agent_alerting_close(struct gw_agent *a);
void agent_alerting_render(struct gw_agent *a, struct gw_expfmt *w);

/* forecast.c */
int agent_forecast_start(struct gw_agent *a, struct gw_err *err); /* after the sampler and the history */
void agent_forecast_stop(struct gw_agent *a);			  /* before the history closes */
void agent_forecast_render(struct gw_agent *a, struct gw_expfmt *w);

/* anomaly.c */
extern const struct gw_http_route agent_anom_route; /* GET /api/v1/anomalies (with history), ctx: the agent */
int agent_anom_start(struct gw_agent *a, struct gw_err *err); /* after the sampler and the history */
void agent_anom_stop(struct gw_agent *a);			/* before the history closes */
void agent_anom_render(struct gw_agent *a, struct gw_expfmt *w);

/* push.c */
extern const struct gw_http_route agent_push_route; /* ctx: the agent */
int agent_push_open(struct gw_agent *a, struct gw_err *err);
void agent_push_close(struct gw_agent *a);
void agent_push_render(struct gw_agent *a, struct gw_expfmt *w);

/* train.c: push.c's, under its mu */
int agent_train_open(struct gw_agent *a, struct gw_err *err);
void agent_train_close(struct gw_agent *a);
/* After push m to group k succeeded at now_ms: derive, store and log what the group's pushes give. */
void agent_train_push(struct gw_agent *a, enum gw_push_method m, const struct gw_push_key *k, int64_t now_ms);
void agent_train_render(struct gw_agent *a, struct gw_expfmt *w, int64_t now_ms);

/* scrape.c */
int agent_scrape_start(struct gw_agent *a, struct gw_err *err); /* after the history */
void agent_scrape_stop(struct agent_scrape *s);                /* before the history closes; NULL: no-op */
void agent_scrape_render(struct gw_agent *a, struct gw_expfmt *w);

/* health.c */
extern const struct gw_http_route agent_health_route; /* GET /api/v1/health */
int agent_health_start(struct gw_agent *a, struct gw_err *err); /* after the sampler and the history */
void agent_health_stop(struct gw_agent *a);
void agent_health_render(struct gw_agent *a, struct gw_expfmt *w);
int agent_health_dcgm(void *arg, unsigned int g, const char *watch, const char **code); /* gw_metrics.health */

/* policy.c */
int agent_policy_open(struct gw_agent *a, struct gw_err *err); /* read --policy; none: nothing */
int agent_policy_start(struct gw_agent *a, struct gw_err *err);
void agent_policy_check(struct gw_agent *a, unsigned int g, const struct gw_health_reading *r,
			const struct gw_health_report *rep); /* the health thread, after each evaluation */
void agent_policy_close(struct gw_agent *a); /* after agent_health_stop */
/* SIGHUP: read --policy again; a broken file keeps the policies in force (err says file:line). */
int agent_policy_reload(struct gw_agent *a, struct gw_err *err);

/* status.c */
void agent_status_init(struct gw_agent *a);
void agent_h_healthy(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp);
void agent_h_ready(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp);

#endif
