/*
 * manager.h - rule evaluation as Prometheus 2.42's rule manager does it:
 * each group evaluated at its interval (rules in file order, each seeing
 * what the rules before it recorded), recording rules' results appended to
 * the store under the rule's name and labels, alerting rules' alerts kept
 * as pending -> firing -> inactive (resolved alerts kept 15 min, then
 * forgotten), the ALERTS and ALERTS_FOR_STATE series appended at every
 * evaluation (staleness markers when a series goes away), `for` state
 * restored from ALERTS_FOR_STATE after a restart (outage tolerance 1 h,
 * grace 10 m, as --rules.alert.for-outage-tolerance / for-grace-period),
 * `limit` enforced, and alerts handed to a notifier as Prometheus' rules
 * package sends them (firing ones every resend delay, 1 min, with endsAt =
 * now + 4 x max(resend delay, interval); resolved ones for 15 min).
 *
 * The same evaluator serves the agent (a thread runs the groups on their
 * schedule) and `gpuwatch rules test` (gw_rules_eval_all at chosen times,
 * no thread), so a unit test file checks exactly what the agent does.
 *
 * Ownership: _new takes the ruleset (released by _free or replaced by
 * _reload); the querier, appender and notifier are borrowed and must
 * outlive the manager. Threading: the evaluation thread alone evaluates;
 * _json_* , _render and _alerts may be called from any thread (they take
 * the manager's lock for a consistent copy); _reload from any one thread.
 */
#ifndef GW_RULES_MANAGER_H
#define GW_RULES_MANAGER_H

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "export/expfmt.h"
#include "model/labels.h"
#include "model/storage.h"
#include "promql/engine.h"
#include "rules/notify.h"
#include "rules/rulefile.h"

#include <stdbool.h>
#include <stdint.h>

/* Where recording rules' samples and ALERTS / ALERTS_FOR_STATE go. */
struct gw_rules_appender {
	void *ctx;
	/* labels include __name__, sorted by name; t in ms; v may be the staleness marker */
	int (*append)(void *ctx, const struct gw_labels *labels, int64_t t_ms, double v, struct gw_err *err);
	/* optional: called after each group's evaluation so appended samples become visible */
	void (*commit)(void *ctx);
};

struct gw_rules_opts {
	struct gw_querier querier;         /* the store rules read (thread-safe) */
	struct gw_rules_appender appender;
	struct gw_notifier *notifier;      /* NULL: alerts are kept and shown, not sent */
	struct gw_labels external;         /* external labels: added to sent alerts, $externalLabels */
	const char *external_url;          /* generatorURL's base, $externalURL ("http://host:9400") */
	int64_t eval_interval_ms;          /* groups without interval: default 15 s */
	int64_t outage_tolerance_ms;       /* default 1 h */
	int64_t for_grace_ms;              /* default 10 min */
	int64_t resend_delay_ms;           /* default 1 min */
	struct gw_pq_opts pq;              /* lookback, limits for rule queries */
	bool restore;                      /* restore `for` state from the store after the first evaluation
					      (the agent); false: alerts start fresh (`rules test`, as promtool) */
	void (*logf)(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

/* A time not set (Go's zero time.Time): 0 ms is a real time in `rules test`, which starts at the epoch. */
#define GW_RULES_NEVER INT64_MIN

enum gw_alert_state { GW_ALERT_INACTIVE, GW_ALERT_PENDING, GW_ALERT_FIRING };

/* One active (or recently resolved) alert, as /api/v1/alerts and `rules test` see it. */
struct gw_alert_view {
	const char *group, *file, *rule;
	struct gw_labels labels;      /* expanded, with alertname */
	struct gw_labels annotations; /* expanded */
	enum gw_alert_state state;
	int64_t active_ms;   /* activeAt */
	int64_t fired_ms;    /* GW_RULES_NEVER: not yet */
	int64_t resolved_ms; /* GW_RULES_NEVER: not resolved */
	double value;
};

struct gw_rules;

int gw_rules_new(struct gw_rules **out, const struct gw_rules_opts *o, struct gw_ruleset *set, struct gw_err *err);
void gw_rules_free(struct gw_rules *r);

/* The evaluation thread: each group at its interval, offset as Prometheus offsets them. */
int gw_rules_start(struct gw_rules *r, struct gw_err *err);

/*
 * Evaluate every group once at t (no thread; `rules test` and tests).
 * With opts.restore, each group's first evaluation is followed by the
 * restoration of its `for` state, as the agent's is.
 */
int gw_rules_eval_all(struct gw_rules *r, int64_t t_ms, struct gw_err *err);

/*
 * Replace the rules (SIGHUP, POST /-/reload). Alerts of a rule whose group
 * (file and name) and rule (name, labels, expression, as Prometheus keys
 * them) survive keep their state. set is taken on success and left to the
 * caller on failure.
 */
int gw_rules_reload(struct gw_rules *r, struct gw_ruleset *set, struct gw_err *err);

/* Every alert not inactive (resolved ones while kept too when with_resolved), copied into arena. */
int gw_rules_alerts(struct gw_rules *r, bool with_resolved, struct gw_arena *a, struct gw_alert_view **out,
		    size_t *n);

/*
 * /api/v1/rules' and /api/v1/alerts' "data" objects in Prometheus 2.42's
 * JSON shape. type: NULL, "alert" or "record" (the API's ?type=).
 */
int gw_rules_json_rules(struct gw_rules *r, const char *type, struct gw_buf *out);
int gw_rules_json_alerts(struct gw_rules *r, struct gw_buf *out);

/*
 * gpuwatch_rule_evaluations_total{rule_group}, _evaluation_failures_total,
 * _group_last_duration_seconds, _group_interval_seconds,
 * _group_last_evaluation_timestamp_seconds, _group_rules,
 * gpuwatch_rule_group_iterations_missed_total, gpuwatch_alerts{state}
 * (Prometheus' prometheus_rule_* families under our prefix).
 */
void gw_rules_render(void *r, struct gw_expfmt *w);

#endif
