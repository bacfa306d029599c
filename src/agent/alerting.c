/*
 * alerting.c - the agent's rules: the rule files of --rules read at start
 * (a bad one stops the start, as Prometheus), evaluated against the
 * history by the rules module's evaluator, their samples appended to the
 * store between frames, alerts handed to the notifier (Alertmanager,
 * webhooks, the log); /api/v1/rules, /api/v1/alerts and POST /-/reload.
 * A reload that finds an error keeps the rules already running.
 */
#include "agent/agent_int.h"

#include "api/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Rule samples into the store, one appender at a time with the frames and imports. */
static int store_append(void *ctx, const struct gw_labels *labels, int64_t t, double v, struct gw_err *err)
{
	struct gw_agent *a = ctx;
	struct agent_history *h = &a->history;
	uint64_t ref;
	pthread_mutex_lock(&h->append_mu);
	int rc = gw_tsdb_series(h->db, labels->p, labels->n, &ref);
	if (rc == 0)
		rc = gw_tsdb_append(h->db, ref, t, v);
	pthread_mutex_unlock(&h->append_mu);
	if (rc == 0)
		agent_rw_note_append(a, t); /* a slow evaluation's results may come after remote write read past them */
	if (rc == GW_ENOMEM)
		return gw_err_set(err, rc, "out of memory appending rule results");
	/* an out-of-order sample is dropped, as Prometheus' appender drops it */
	return 0;
}

static int load_rules(const struct gw_agent *a, struct gw_ruleset *set, struct gw_err *err)
{
	return gw_rules_load(set, a->o.rule_files, a->o.nrule_files, err);
}

/* --external-label NAME=VALUE, sorted, in the alerting arena. */
static int external_labels(struct agent_alerting *al, const struct gw_agent_opts *o, struct gw_err *err)
{
	struct gw_lpair *p = gw_arena_alloc(&al->arena, (o->nexternal_labels + 1) * sizeof(*p));
	if (!p)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < o->nexternal_labels; i++) {
		const char *e = strchr(o->external_labels[i], '=');
		p[i].name = gw_arena_strndup(&al->arena, o->external_labels[i], (size_t)(e - o->external_labels[i]));
		p[i].value = e + 1;
	}
	al->external = gw_labels_from(&al->arena, p, o->nexternal_labels);
	return al->arena.err ? gw_err_set(err, GW_ENOMEM, "out of memory") : 0;
}

int agent_alerting_open(struct gw_agent *a, struct gw_err *err)
{
	struct agent_alerting *al = &a->alerting;
	gw_arena_init(&al->arena, 1 << 20);
	pthread_mutex_init(&al->reload_mu, NULL);
	al->open = true;
	if (!a->history.db) {
		if (a->o.nrule_files)
			return gw_err_set(err, GW_EINVAL, "--rules needs the history store: drop --no-history");
		return 0;
	}
	int rc = external_labels(al, &a->o, err);
	if (rc == 0)
		rc = load_rules(a, &al->pending, err);
	if (rc || !a->o.nrule_files)
		return rc;
	a->o.log("info", "msg=\"rules loaded\" files=%zu groups=%zu rules=%zu alertmanagers=%zu webhooks=%zu",
		 al->pending.nfiles, al->pending.ngroups, gw_ruleset_count(&al->pending), a->o.nalertmanagers,
		 a->o.nwebhooks);
	return 0;
}

int agent_alerting_start(struct gw_agent *a, unsigned short port, struct gw_err *err)
{
	struct agent_alerting *al = &a->alerting;
	if (!a->history.db)
		return 0;
	if (a->o.external_url) {
		snprintf(al->external_url, sizeof(al->external_url), "%s", a->o.external_url);
	} else {
		char host[256];
		agent_history_host(host, sizeof(host));
		snprintf(al->external_url, sizeof(al->external_url), "http://%s:%u", host, port);
	}
	/* Prometheus' external URL has no trailing slash: generatorURL appends "/graph?..." */
	size_t n = strlen(al->external_url);
	while (n > 0 && al->external_url[n - 1] == '/')
		al->external_url[--n] = '\0';
	struct gw_notifier_opts no = {.alertmanagers = a->o.alertmanagers,
				      .nalertmanagers = a->o.nalertmanagers,
				      .webhooks = a->o.webhooks,
				      .nwebhooks = a->o.nwebhooks,
				      .log = a->o.alert_log,
				      .external = al->external,
				      .external_url = al->external_url,
				      .logf = a->o.log};
	int rc = 0;
	if (a->o.nalertmanagers || a->o.nwebhooks || a->o.alert_log)
		if ((rc = gw_notifier_new(&al->notifier, &no, err)) != 0)
			return rc;
	struct gw_rules_opts ro = {
		.querier = gw_tsdb_querier(a->history.db),
		.appender = {a, store_append, NULL},
		.notifier = al->notifier,
		.external = al->external,
		.external_url = al->external_url,
		.eval_interval_ms = a->o.rule_interval_ms,
		.outage_tolerance_ms = a->o.outage_tolerance_ms,
		.for_grace_ms = a->o.for_grace_ms,
		.resend_delay_ms = a->o.resend_delay_ms,
		.pq = a->history.api.opts,
		.restore = true,
		.logf = a->o.log,
	};
	rc = gw_rules_new(&al->rules, &ro, &al->pending, err);
	if (rc == 0)
		rc = gw_rules_start(al->rules, err);
	return rc;
}

int agent_alerting_reload(struct gw_agent *a, struct gw_err *err)
{
	struct agent_alerting *al = &a->alerting;
	if (!al->rules)
		return 0;
	pthread_mutex_lock(&al->reload_mu);
	struct gw_ruleset set = {0};
	int rc = load_rules(a, &set, err);
	size_t nfiles = set.nfiles, ngroups = set.ngroups, nrules = gw_ruleset_count(&set);
	if (rc == 0)
		rc = gw_rules_reload(al->rules, &set, err);
	if (rc == 0)
		a->o.log("info", "msg=\"reloaded rules\" files=%zu groups=%zu rules=%zu", nfiles, ngroups, nrules);
	gw_ruleset_release(&set);
	al->reloads++;
	al->reload_ok = rc == 0;
	al->reload_ms = (int64_t)time(NULL) * 1000;
	pthread_mutex_unlock(&al->reload_mu);
	return rc;
}

void agent_alerting_close(struct gw_agent *a)
{
	struct agent_alerting *al = &a->alerting;
	if (!al->open)
		return;
	gw_rules_free(al->rules); /* stops evaluating before the notifier goes */
	gw_notifier_free(al->notifier);
	gw_ruleset_release(&al->pending);
	gw_arena_release(&al->arena);
	pthread_mutex_destroy(&al->reload_mu);
	al->open = false;
}

void agent_alerting_render(struct gw_agent *a, struct gw_expfmt *w)
{
	struct agent_alerting *al = &a->alerting;
	if (al->rules)
		gw_rules_render(al->rules, w);
	if (al->notifier)
		gw_notifier_render(al->notifier, w);
	if (!al->rules)
		return;
	pthread_mutex_lock(&al->reload_mu);
	bool ok = al->reloads == 0 || al->reload_ok;
	int64_t when = al->reload_ms;
	pthread_mutex_unlock(&al->reload_mu);
	gw_expfmt_family(w, "gpuwatch_rules_last_reload_successful", "Whether the last reload of the rule files worked.",
			 GW_METRIC_GAUGE);
	gw_expfmt_sample(w, NULL, 0, ok ? 1 : 0);
	gw_expfmt_family(w, "gpuwatch_rules_last_reload_timestamp_seconds", "When the rule files were last reloaded.",
			 GW_METRIC_GAUGE);
	gw_expfmt_sample(w, NULL, 0, (double)when / 1000);
}

/* ---- the API -------------------------------------------------------------------- */

static void api_error(struct gw_http_response *resp, int status, const char *type, const char *msg)
{
	resp->status = status;
	resp->content_type = "application/json";
	gw_buf_reset(&resp->body);
	gw_buf_printf(&resp->body, "{\"status\":\"error\",\"errorType\":\"%s\",\"error\":", type);
	gw_json_str(&resp->body, msg);
	gw_buf_puts(&resp->body, "}");
}

static void h_rules(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	const char *type = gw_http_arg(req, "type");
	if (type && *type && strcmp(type, "alert") != 0 && strcmp(type, "record") != 0) {
		char msg[300];
		snprintf(msg, sizeof(msg), "not supported value \"%.200s\"", type);
		api_error(resp, 400, "bad_data", msg);
		return;
	}
	resp->content_type = "application/json";
	gw_buf_puts(&resp->body, "{\"status\":\"success\",\"data\":");
	if (a->alerting.rules)
		gw_rules_json_rules(a->alerting.rules, type && *type ? type : NULL, &resp->body);
	else
		gw_buf_puts(&resp->body, "{\"groups\":[]}");
	gw_buf_puts(&resp->body, "}");
}

static void h_alerts(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)req;
	struct gw_agent *a = ctx;
	resp->content_type = "application/json";
	gw_buf_puts(&resp->body, "{\"status\":\"success\",\"data\":");
	if (a->alerting.rules)
		gw_rules_json_alerts(a->alerting.rules, &resp->body);
	else
		gw_buf_puts(&resp->body, "{\"alerts\":[]}");
	gw_buf_puts(&resp->body, "}");
}

/* POST /-/reload: the counters file and the rule files, as SIGHUP; 500 with the reason when one is refused. */
static void h_reload(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	(void)req;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_agent_reload(ctx, &err) != 0) {
		char msg[GW_ERR_MSG_MAX + 64];
		snprintf(msg, sizeof(msg), "failed to reload config: %s\n", err.msg);
		gw_http_reply_text(resp, 500, msg);
		return;
	}
	gw_http_reply_text(resp, 200, "");
}

const struct gw_http_route agent_alerting_routes[AGENT_ALERTING_NROUTES] = {
	{"/api/v1/rules", GW_HTTP_GET | GW_HTTP_POST, false, h_rules, NULL},
	{"/api/v1/alerts", GW_HTTP_GET | GW_HTTP_POST, false, h_alerts, NULL},
	{"/-/reload", GW_HTTP_POST, false, h_reload, NULL},
};
