/*
 * agent.h - the daemon behind `gpuwatch agent`, as a set of parts with one
 * wiring file (agent.c):
 *
 *   sampler (collect/) --frames--> exposition  (expose.c: counters file,
 *                                               /metrics, one render a frame)
 *                              `-> history     (history.c: the store and
 *                                               Prometheus' query API)
 *
 * and the HTTP server, whose route table each part contributes to: the
 * exposition /metrics, the agent /health and its landing page, the history
 * the query API (on the server's bounded query pool); the rules and
 * their notifiers (alerting.c) and the remote writers (remote_write.c),
 * which read the history. Parts yet to come (health watches) hang off
 * the same frames and add their routes the same way.
 *
 * The caller (cmd/agent.c) parses flags, owns the process (signals, limits,
 * the exit code) and the NVML binding, and reports errors; the agent logs
 * what happens while it runs through opts.log.
 *
 * Ownership: gw_agent_new() borrows nv and opts' strings for the agent's
 * life and takes the web config (released by gw_agent_free()). Threading:
 * new, serve, reload and free from one thread; the parts run their own.
 */
#ifndef GW_AGENT_AGENT_H
#define GW_AGENT_AGENT_H

#include "agent/remote_write.h"
#include "collect/sampler.h"
#include "core/err.h"
#include "http/webcfg.h"
#include "ingest/scrape.h"
#include "nvml/binding.h"

#include <stdbool.h>
#include <stdint.h>

typedef void (*gw_agent_log_fn)(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct gw_agent_opts {
	const char *address;  /* host:port to listen on */
	const char *counters; /* counters file (-f), or NULL: the default set */
	const char *proc_root; /* --proc-root, or NULL: "/" */
	const char *hpc_dir;   /* --hpc-job-mapping-dir, or NULL */
	/* Kubernetes pod labels from the kubelet's pod-resources socket (collect/podres.h) */
	bool kubernetes;	       /* --kubernetes */
	const char *podres_socket;     /* NULL: GW_PODRES_SOCKET */
	unsigned int podres_interval_ms; /* between Lists; 0: 5000 */
	bool native;           /* the gpuwatch_* families beside DCGM's */
	struct gw_sampler_opts so; /* attr, nvml_log and hpcjob are filled by the agent */
	/* history: none with no_history */
	bool no_history;
	bool enable_import; /* --web.enable-import: POST /api/v1/import writes to the store */
	bool enable_push;   /* --web.enable-push: Pushgateway pushes on /metrics/job/... */
	const char *storage_path, *instance; /* instance NULL: the host name */
	int64_t retention_ms, flush_interval_ms; /* flush 0: by the sampling interval */
	uint64_t retention_bytes;
	/* the server */
	unsigned int max_conns, max_conns_per_ip; /* per-ip 0: no limit */
	int64_t read_header_timeout_ms;           /* 0: none */
	unsigned int query_concurrency;
	int64_t query_timeout_ms;
	unsigned int query_max_samples; /* 0: the engine's default (50 M) */
	/* alerting (alerting.c; needs the history): rules evaluated, alerts sent */
	const char *const *rule_files; /* --rules: paths or globs, read again on reload */
	size_t nrule_files;
	const char *const *alertmanagers; /* --alertmanager.url */
	size_t nalertmanagers;
	const char *const *webhooks; /* --alert.webhook */
	size_t nwebhooks;
	bool alert_log;                    /* --alert.log: every alert sent, in the log too */
	const char *const *external_labels; /* --external-label NAME=VALUE */
	size_t nexternal_labels;
	const char *external_url; /* --web.external-url; NULL: http://HOST:PORT */
	int64_t rule_interval_ms; /* --rules.evaluation-interval; 0: 15 s */
	int64_t outage_tolerance_ms, for_grace_ms, resend_delay_ms; /* 0: 1 h, 10 m, 1 m */
	int64_t forecast_window_ms; /* --memory.forecast-window: the OOM forecast's trend; 0: 10 min */
	int64_t anomaly_window_ms;  /* --anomaly.window: the live anomaly scores' baseline; 0: 1 h, -1: off */
	const char *policy_file; /* --policy: health policies (health/policy.h); NULL: none */
	/* remote_write (remote_write.c; needs the history): defaults filled in at start */
	struct gw_rw_opts *remote_writes; /* --remote-write.url and the options after each */
	size_t nremote_writes;
	/* --scrape: Prometheus endpoints beside the GPUs, stored in the history (scrape.c) */
	const struct gw_scrape_target *scrapes;
	size_t nscrapes;
	gw_agent_log_fn log;
};

struct gw_agent;

/* Load the counters, list the GPUs, start sampling and the history. */
int gw_agent_new(struct gw_agent **out, struct gw_nvml *nv, struct gw_webcfg *web, const struct gw_agent_opts *o,
		 struct gw_err *err);
/* Start serving on opts.address; logs where. */
int gw_agent_serve(struct gw_agent *a, struct gw_err *err);
/* Read the counters file again; the old set stays on error. */
int gw_agent_reload(struct gw_agent *a, struct gw_err *err);
/* Stop serving, flush the history, stop sampling; NULL is a no-op. */
void gw_agent_free(struct gw_agent *a);

#endif
