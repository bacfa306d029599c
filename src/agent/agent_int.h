/*
 * agent_int.h - what the agent's parts share (not a public header):
 * agent.c (wiring, /health, the landing page, the route table) and
 * expose.c (the counters file and /metrics).
 */
#ifndef GW_AGENT_AGENT_INT_H
#define GW_AGENT_AGENT_INT_H

#include "agent/agent.h"
#include "agent/history.h"
#include "collect/cgroup.h"
#include "collect/hpcjob.h"
#include "collect/podres.h"
#include "export/counters.h"
#include "export/expo_cache.h"
#include "export/gpu_metrics.h"
#include "http/server.h"
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
	struct gw_http_route routes[12 + GW_API_NROUTES]; /* every part's; the server borrows them */
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

/* status.c */
void agent_status_init(struct gw_agent *a);
void agent_h_healthy(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp);
void agent_h_ready(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp);

#endif
