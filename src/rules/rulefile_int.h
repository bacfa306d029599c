/*
 * rulefile_int.h - a rule file between its YAML and its checks: what
 * rulefile_yaml.c decodes (with every node's position, for messages) and
 * rulefile.c validates and moves into a gw_ruleset.
 * Ownership: gw_rf owns everything it points to; gw_rf_release frees it.
 */
#ifndef GW_RULES_RULEFILE_INT_H
#define GW_RULES_RULEFILE_INT_H

#include "rules/rulefile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw_rf_pos {
	int line, col; /* 1-based, as Prometheus prints them */
};

struct gw_rf_rule {
	char *record, *alert, *expr; /* NULL: the key is absent */
	struct gw_rf_pos record_pos, alert_pos, expr_pos, pos;
	bool has_for, has_keep;
	int64_t for_ms, keep_ms;
	struct gw_rule_kv *labels, *annotations;
	size_t nlabels, nannotations;
	struct gw_pq_node *ast;
};

struct gw_rf_group {
	char *name;
	struct gw_rf_pos pos;
	int64_t interval_ms;
	uint64_t limit;
	struct gw_rf_rule *rules;
	size_t nrules;
};

struct gw_rf {
	const char *path;
	gw_rules_errfn each;
	void *ctx;
	struct gw_err *err;
	size_t nerrs;
	struct gw_rf_group *groups;
	size_t ngroups;
};

/* A whole file (at most 64 MiB) into a heap string of *len bytes; errors name the path. */
int gw_rf_read(const char *path, char **out, size_t *len, struct gw_err *err);

/* Report one error of the file ("PATH: " is prefixed when path is not NULL). */
void gw_rf_report(struct gw_rf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Decode text into c->groups; YAML and type errors are reported (0 is returned unless out of memory). */
int gw_rf_decode(struct gw_rf *c, const char *text, size_t len);
void gw_rf_release(struct gw_rf *c);
void gw_rule_kvs_free(struct gw_rule_kv *kv, size_t n);

#endif
