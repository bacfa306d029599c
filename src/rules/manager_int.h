/*
 * manager_int.h - the rule evaluator's state, shared by its files:
 * manager.c (groups, schedule, recording rules, reload), manager_alert.c
 * (alert state, restore, sending) and manager_api.c (JSON, metrics).
 *
 * Every label set kept across evaluations is an owned block (struct
 * gw_olabels: one malloc holding pairs and strings). r->mu guards every
 * field the API reads; r->eval_mu is held by whoever evaluates or swaps
 * the rules, so an evaluation and a reload never interleave.
 */
#ifndef GW_RULES_MANAGER_INT_H
#define GW_RULES_MANAGER_INT_H

#include "rules/manager.h"

#include <pthread.h>

/* A label set owned by one malloc'd block; its key identifies it. */
struct gw_olabels {
	struct gw_labels l;
	char *key; /* inside the block */
	size_t keylen;
	uint64_t hash;
};

int gw_olabels_make(struct gw_olabels *o, const struct gw_labels *l);
void gw_olabels_free(struct gw_olabels *o);

struct gw_alert {
	struct gw_olabels labels, annotations;
	enum gw_alert_state state;
	double value;
	int64_t active_ms, fired_ms, resolved_ms, last_sent_ms, valid_until_ms, keep_since_ms; /* or GW_RULES_NEVER */
	bool seen; /* in the current evaluation's result */
};

/* The series a rule wrote at its last evaluation, to mark stale when they go. */
struct gw_written {
	struct gw_olabels *s;
	size_t n, cap;
};

enum gw_rule_health { GW_HEALTH_UNKNOWN, GW_HEALTH_OK, GW_HEALTH_ERR };

struct gw_rule_state {
	const struct gw_rule *rule;
	struct gw_alert *alerts;
	size_t nalerts, cap;
	struct gw_written written;
	enum gw_rule_health health;
	char last_error[512];
	double eval_seconds;
	int64_t last_eval_ms; /* 0: never */
	bool restored;
	bool taken; /* its state moved to a rule of a reloaded set */
	char *query; /* the expression as Prometheus prints it */
};

struct gw_group_state {
	const struct gw_rule_group *g;
	struct gw_rule_state *rules;
	int64_t interval_ms;
	int64_t next_ms; /* next evaluation slot */
	int64_t last_eval_ms;
	double eval_seconds;
	uint64_t evals, failures, missed;
	int restore_in; /* restore `for` state after this many more evaluations (0: none pending) */
};

struct gw_rules {
	struct gw_rules_opts o;
	struct gw_ruleset set;
	struct gw_group_state *groups;
	size_t ngroups;
	pthread_mutex_t mu, eval_mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool running, stop;
	bool restored_once; /* groups built after the first set (reloads) start restored, as Prometheus' */
	uint64_t evals_total, failures_total; /* over groups replaced by reloads too */
};

/* Evaluate one alerting rule at t: update its alerts, write ALERTS and ALERTS_FOR_STATE, send. */
int gw_rules_eval_alert(struct gw_rules *r, struct gw_group_state *gs, struct gw_rule_state *rs, int64_t t,
			struct gw_err *err);

/* Restore `for` state of a group's alerting rules from ALERTS_FOR_STATE (after its first evaluation). */
void gw_rules_restore(struct gw_rules *r, struct gw_group_state *gs, int64_t t);

/*
 * Append the evaluation's series (labels must hold __name__), then mark
 * the ones written last time and not now with the staleness marker.
 */
int gw_rules_write(struct gw_rules *r, struct gw_rule_state *rs, const struct gw_labels *series, const double *v,
		   size_t n, int64_t t, struct gw_err *err);

void gw_rule_state_release(struct gw_rule_state *rs);

/* Go's strconv.FormatFloat(v, 'e' or 'E', -1, 64): the shortest digits that read back as v. */
void gw_rules_format_e(char out[40], double v, bool upper);

/* RFC 3339 with nanoseconds trimmed, as Go marshals a time.Time ("2026-12-04T11:00:00.123Z"). */
void gw_rules_time_json(struct gw_buf *b, int64_t ms);

#endif
