/*
 * kubernetes.c - the agent's Kubernetes part: with --kubernetes, the
 * kubelet pod-resources watcher (collect/podres.h) the sampler takes each
 * frame's pods from, its state changes logged once each, and its health
 * as gpuwatch_kubernetes_* families.
 */
#include "agent/agent_int.h"

#include "core/logq.h"

#include <stdio.h>

static void log_podres(void *arg, bool up, const char *sock, const struct gw_err *why, size_t npods,
		       size_t ndevs)
{
	const struct gw_agent *a = arg;
	char q[512], e[GW_ERR_MSG_MAX * 2];
	gw_logq(q, sizeof(q), sock);
	if (up) {
		a->o.log(
		    "info",
		    "msg=\"kubelet pod-resources answering; pod labels on\" socket=\"%s\" pods=%zu gpus=%zu",
		    q, npods, ndevs);
		return;
	}
	gw_logq(e, sizeof(e), why && why->msg[0] ? why->msg : "unknown");
	a->o.log(
	    "warn",
	    "msg=\"kubelet pod-resources unavailable; no pod labels until it answers, processes keep their "
	    "cgroup attribution\" socket=\"%s\" err=\"%s\"",
	    q, e);
}

int agent_kubernetes_open(struct gw_agent *a, struct gw_err *err)
{
	if (!a->o.kubernetes)
		return 0;
	struct gw_podres_opts po = {.socket = a->o.podres_socket,
				    .interval_ms = a->o.podres_interval_ms,
				    .log = log_podres,
				    .log_arg = a};
	int rc = gw_podres_new(&a->podres, &po, err);
	if (rc)
		return rc;
	a->o.so.podres = a->podres;
	return 0;
}

void agent_kubernetes_close(struct gw_agent *a)
{
	gw_podres_free(a->podres); /* after the sampler: it takes the watcher's snapshots */
	a->podres = NULL;
}

void agent_kubernetes_render(struct gw_agent *a, struct gw_expfmt *w)
{
	if (!a->podres)
		return;
	struct gw_podres_stats st;
	gw_podres_stats(a->podres, &st);
	static const struct {
		const char *name, *help;
		enum gw_metric_type type;
	} fams[] = {
	    {"gpuwatch_kubernetes_up", "1 when the kubelet's pod-resources List last answered.",
	     GW_METRIC_GAUGE},
	    {"gpuwatch_kubernetes_last_success_timestamp_seconds",
	     "When the kubelet's pod-resources List last answered (0: never).", GW_METRIC_GAUGE},
	    {"gpuwatch_kubernetes_lists_total", "Pod-resources List calls made to the kubelet.",
	     GW_METRIC_COUNTER},
	    {"gpuwatch_kubernetes_list_errors_total", "Pod-resources List calls that failed or timed out.",
	     GW_METRIC_COUNTER},
	    {"gpuwatch_kubernetes_pods", "Pods the kubelet listed in its last answer.", GW_METRIC_GAUGE},
	    {"gpuwatch_kubernetes_pod_gpus",
	     "NVIDIA devices (GPUs, MIG devices) the kubelet listed as given to pods.", GW_METRIC_GAUGE},
	};
	const double v[] = {st.up,
			    (double)st.last_success_ms / 1000.0,
			    (double)st.lists_total,
			    (double)st.errors_total,
			    (double)st.npods,
			    (double)st.ndevs};
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		gw_expfmt_family(w, fams[i].name, fams[i].help, fams[i].type);
		gw_expfmt_sample(w, NULL, 0, v[i]);
	}
}
