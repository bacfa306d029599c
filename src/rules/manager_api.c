/*
 * manager_api.c - what the evaluator shows: /api/v1/rules and
 * /api/v1/alerts in Prometheus 2.42's JSON shape (as its web API writes
 * them: labels as objects, values in Go's 'e' format, times as RFC 3339
 * with nanoseconds trimmed, the zero time for "never"), copies of the
 * alerts for `rules test` and the dashboard, and the rule metrics.
 */
#include "rules/manager_int.h"
#include "rules/notify_int.h"

#include "api/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void gw_rules_time_json(struct gw_buf *b, int64_t ms)
{
	char t[NOTIFY_TIME_MAX];
	if (ms == GW_RULES_NEVER)
		snprintf(t, sizeof(t), "0001-01-01T00:00:00Z");
	else
		notify_time_rfc3339nano(t, ms);
	gw_json_str(b, t);
}

void gw_rules_format_e(char out[40], double v, bool upper)
{
	if (isnan(v)) {
		snprintf(out, 40, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, 40, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int p = 0; p < 17; p++) {
		snprintf(out, 40, upper ? "%.*E" : "%.*e", p, v);
		if (strtod(out, NULL) == v)
			break;
	}
}

static void value_e(struct gw_buf *b, double v)
{
	char out[40];
	gw_rules_format_e(out, v, false);
	gw_json_str(b, out);
}

static const char *state_name(enum gw_alert_state s)
{
	return s == GW_ALERT_FIRING ? "firing" : s == GW_ALERT_PENDING ? "pending" : "inactive";
}

static const char *health_name(enum gw_rule_health h)
{
	return h == GW_HEALTH_OK ? "ok" : h == GW_HEALTH_ERR ? "err" : "unknown";
}

/* A rule's labels or annotations as the API shows them: an object, sorted by name, the last of a repeated name. */
static void kv_json(struct gw_buf *b, const struct gw_rule_kv *kv, size_t n)
{
	const struct gw_rule_kv **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	gw_buf_putc(b, '{');
	if (!sorted) {
		gw_buf_putc(b, '}');
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = i;
		while (k > 0 && strcmp(sorted[k - 1]->name, kv[i].name) > 0) {
			sorted[k] = sorted[k - 1];
			k--;
		}
		sorted[k] = &kv[i];
	}
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && !strcmp(sorted[i]->name, sorted[i + 1]->name))
			continue;
		if (!first)
			gw_buf_putc(b, ',');
		first = false;
		gw_json_str(b, sorted[i]->name);
		gw_buf_putc(b, ':');
		gw_json_str(b, sorted[i]->value);
	}
	gw_buf_putc(b, '}');
	free(sorted);
}

static void alert_json(struct gw_buf *b, const struct gw_alert *al)
{
	gw_buf_puts(b, "{\"labels\":");
	gw_json_labels(b, &al->labels.l);
	gw_buf_puts(b, ",\"annotations\":");
	gw_json_labels(b, &al->annotations.l);
	gw_buf_printf(b, ",\"state\":\"%s\",\"activeAt\":", state_name(al->state));
	gw_rules_time_json(b, al->active_ms);
	gw_buf_puts(b, ",\"value\":");
	value_e(b, al->value);
	gw_buf_putc(b, '}');
}

static enum gw_alert_state rule_state(const struct gw_rule_state *rs)
{
	enum gw_alert_state s = GW_ALERT_INACTIVE;
	for (size_t i = 0; i < rs->nalerts; i++)
		if (rs->alerts[i].state > s)
			s = rs->alerts[i].state;
	return s;
}

static void seconds(struct gw_buf *b, double s)
{
	char out[GW_JSON_VALUE_MAX];
	size_t n = gw_json_value_fmt(out, s);
	/* a JSON number, not the API's quoted sample value */
	if (n >= 2 && out[0] == '"')
		gw_buf_append(b, out + 1, n - 2);
	else
		gw_buf_append(b, out, n);
}

static void rule_json(struct gw_buf *b, const struct gw_rule_state *rs)
{
	const struct gw_rule *rule = rs->rule;
	bool alerting = rule->kind == GW_RULE_ALERT;
	gw_buf_putc(b, '{');
	if (alerting)
		gw_buf_printf(b, "\"state\":\"%s\",", state_name(rule_state(rs)));
	gw_buf_puts(b, "\"name\":");
	gw_json_str(b, rule->name);
	gw_buf_puts(b, ",\"query\":");
	gw_json_str(b, rs->query);
	if (alerting) {
		gw_buf_puts(b, ",\"duration\":");
		seconds(b, (double)rule->for_ms / 1000);
		gw_buf_puts(b, ",\"keepFiringFor\":");
		seconds(b, (double)rule->keep_firing_for_ms / 1000);
	}
	if (alerting || rule->nlabels) {
		gw_buf_puts(b, ",\"labels\":");
		kv_json(b, rule->labels, rule->nlabels);
	}
	if (alerting) {
		gw_buf_puts(b, ",\"annotations\":");
		kv_json(b, rule->annotations, rule->nannotations);
		gw_buf_puts(b, ",\"alerts\":[");
		bool first = true;
		for (size_t i = 0; i < rs->nalerts; i++) {
			if (rs->alerts[i].state == GW_ALERT_INACTIVE)
				continue;
			if (!first)
				gw_buf_putc(b, ',');
			first = false;
			alert_json(b, &rs->alerts[i]);
		}
		gw_buf_putc(b, ']');
	}
	gw_buf_printf(b, ",\"health\":\"%s\"", health_name(rs->health));
	if (rs->health == GW_HEALTH_ERR && rs->last_error[0]) {
		gw_buf_puts(b, ",\"lastError\":");
		gw_json_str(b, rs->last_error);
	}
	gw_buf_puts(b, ",\"evaluationTime\":");
	seconds(b, rs->eval_seconds);
	gw_buf_puts(b, ",\"lastEvaluation\":");
	gw_rules_time_json(b, rs->last_eval_ms ? rs->last_eval_ms : GW_RULES_NEVER);
	gw_buf_printf(b, ",\"type\":\"%s\"}", alerting ? "alerting" : "recording");
}

int gw_rules_json_rules(struct gw_rules *r, const char *type, struct gw_buf *out)
{
	bool want_alert = !type || !strcmp(type, "alert"), want_record = !type || !strcmp(type, "record");
	pthread_mutex_lock(&r->mu);
	gw_buf_puts(out, "{\"groups\":[");
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct gw_group_state *gs = &r->groups[i];
		if (i)
			gw_buf_putc(out, ',');
		gw_buf_puts(out, "{\"name\":");
		gw_json_str(out, gs->g->name);
		gw_buf_puts(out, ",\"file\":");
		gw_json_str(out, gs->g->file);
		gw_buf_puts(out, ",\"rules\":[");
		bool first = true;
		for (size_t k = 0; k < gs->g->nrules; k++) {
			const struct gw_rule_state *rs = &gs->rules[k];
			if (rs->rule->kind == GW_RULE_ALERT ? !want_alert : !want_record)
				continue;
			if (!first)
				gw_buf_putc(out, ',');
			first = false;
			rule_json(out, rs);
		}
		gw_buf_puts(out, "],\"interval\":");
		seconds(out, (double)gs->interval_ms / 1000);
		gw_buf_printf(out, ",\"limit\":%llu,\"evaluationTime\":", (unsigned long long)gs->g->limit);
		seconds(out, gs->eval_seconds);
		gw_buf_puts(out, ",\"lastEvaluation\":");
		gw_rules_time_json(out, gs->last_eval_ms ? gs->last_eval_ms : GW_RULES_NEVER);
		gw_buf_putc(out, '}');
	}
	gw_buf_puts(out, "]}");
	pthread_mutex_unlock(&r->mu);
	return out->len && out->data ? 0 : GW_ENOMEM;
}

int gw_rules_json_alerts(struct gw_rules *r, struct gw_buf *out)
{
	pthread_mutex_lock(&r->mu);
	gw_buf_puts(out, "{\"alerts\":[");
	bool first = true;
	for (size_t i = 0; i < r->ngroups; i++)
		for (size_t k = 0; k < r->groups[i].g->nrules; k++) {
			const struct gw_rule_state *rs = &r->groups[i].rules[k];
			for (size_t j = 0; j < rs->nalerts; j++) {
				if (rs->alerts[j].state == GW_ALERT_INACTIVE)
					continue;
				if (!first)
					gw_buf_putc(out, ',');
				first = false;
				alert_json(out, &rs->alerts[j]);
			}
		}
	gw_buf_puts(out, "]}");
	pthread_mutex_unlock(&r->mu);
	return out->data ? 0 : GW_ENOMEM;
}

static struct gw_labels copy_labels(struct gw_arena *a, const struct gw_labels *l)
{
	return gw_labels_from(a, l->p, l->n);
}

int gw_rules_alerts(struct gw_rules *r, bool with_resolved, struct gw_arena *a, struct gw_alert_view **out, size_t *n)
{
	pthread_mutex_lock(&r->mu);
	size_t total = 0;
	for (size_t i = 0; i < r->ngroups; i++)
		for (size_t k = 0; k < r->groups[i].g->nrules; k++)
			total += r->groups[i].rules[k].nalerts;
	struct gw_alert_view *v = gw_arena_alloc(a, (total ? total : 1) * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; v && i < r->ngroups; i++) {
		const struct gw_group_state *gs = &r->groups[i];
		for (size_t k = 0; k < gs->g->nrules; k++) {
			const struct gw_rule_state *rs = &gs->rules[k];
			for (size_t j = 0; j < rs->nalerts; j++) {
				const struct gw_alert *al = &rs->alerts[j];
				if (al->state == GW_ALERT_INACTIVE && !with_resolved)
					continue;
				v[m++] = (struct gw_alert_view){
					.group = gw_arena_strdup(a, gs->g->name),
					.file = gw_arena_strdup(a, gs->g->file),
					.rule = gw_arena_strdup(a, rs->rule->name),
					.labels = copy_labels(a, &al->labels.l),
					.annotations = copy_labels(a, &al->annotations.l),
					.state = al->state,
					.active_ms = al->active_ms,
					.fired_ms = al->fired_ms,
					.resolved_ms = al->resolved_ms,
					.value = al->value,
				};
			}
		}
	}
	pthread_mutex_unlock(&r->mu);
	if (!v || a->err)
		return GW_ENOMEM;
	*out = v;
	*n = m;
	return 0;
}

void gw_rules_render(void *arg, struct gw_expfmt *w)
{
	struct gw_rules *r = arg;
	const enum gw_metric_type G = GW_METRIC_GAUGE, C = GW_METRIC_COUNTER;
	static const struct {
		const char *name, *help;
		enum gw_metric_type type;
	} fams[] = {
		{"gpuwatch_rule_evaluations_total", "Rule evaluations of the group.", C},
		{"gpuwatch_rule_evaluation_failures_total", "Rule evaluations of the group that failed.", C},
		{"gpuwatch_rule_group_iterations_missed_total",
		 "Evaluation slots of the group skipped because an evaluation ran late.", C},
		{"gpuwatch_rule_group_interval_seconds", "The group's evaluation interval.", G},
		{"gpuwatch_rule_group_last_duration_seconds", "How long the group's last evaluation took.", G},
		{"gpuwatch_rule_group_last_evaluation_timestamp_seconds", "When the group was last evaluated.", G},
		{"gpuwatch_rule_group_rules", "Rules in the group.", G},
	};
	pthread_mutex_lock(&r->mu);
	struct gw_buf key;
	gw_buf_init(&key, 1 << 20);
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		gw_expfmt_family(w, fams[f].name, fams[f].help, fams[f].type);
		for (size_t i = 0; i < r->ngroups; i++) {
			const struct gw_group_state *gs = &r->groups[i];
			/* Prometheus' group key: file;name */
			gw_buf_reset(&key);
			gw_buf_printf(&key, "%s;%s", gs->g->file, gs->g->name);
			struct gw_label l = {"rule_group", key.data ? key.data : ""};
			double v[] = {(double)gs->evals,
				      (double)gs->failures,
				      (double)gs->missed,
				      (double)gs->interval_ms / 1000,
				      gs->eval_seconds,
				      gs->last_eval_ms ? (double)gs->last_eval_ms / 1000 : 0,
				      (double)gs->g->nrules};
			gw_expfmt_sample(w, &l, 1, v[f]);
		}
	}
	gw_buf_release(&key);
	size_t counts[3] = {0};
	for (size_t i = 0; i < r->ngroups; i++)
		for (size_t k = 0; k < r->groups[i].g->nrules; k++) {
			const struct gw_rule_state *rs = &r->groups[i].rules[k];
			for (size_t j = 0; j < rs->nalerts; j++)
				counts[rs->alerts[j].state]++;
		}
	pthread_mutex_unlock(&r->mu);
	gw_expfmt_family(w, "gpuwatch_alerts", "Alerts by state (resolved ones kept for resending count as inactive).",
			 G);
	static const char *const names[] = {"inactive", "pending", "firing"};
	for (int s = 1; s < 3; s++) {
		struct gw_label l = {"state", names[s]};
		gw_expfmt_sample(w, &l, 1, (double)counts[s]);
	}
}
