/*
 * rulefile.h - Prometheus 2.42 rule files: groups of alerting and recording
 * rules read from YAML, checked as Prometheus checks them (rulefmt), with
 * every error placed at the file's line ("FILE:LINE: what is wrong").
 *
 * Ownership: gw_rules_load() fills a caller-embedded struct gw_ruleset whose
 * strings, parsed expressions and arrays it owns; gw_ruleset_release() frees
 * them. Nothing is shared between two sets, so a reload builds a new set and
 * swaps it in. Threading: a set is read-only once loaded and may be read
 * from any thread.
 */
#ifndef GW_RULES_RULEFILE_H
#define GW_RULES_RULEFILE_H

#include "core/err.h"
#include "promql/ast.h"

#include <stddef.h>
#include <stdint.h>

enum gw_rule_kind { GW_RULE_ALERT, GW_RULE_RECORD };

/* One entry of a rule's labels or annotations, in file order. */
struct gw_rule_kv {
	char *name;
	char *value; /* a template (text/template), expanded at evaluation */
	int line;
};

struct gw_rule {
	enum gw_rule_kind kind;
	char *name;              /* the alert's name or the recorded metric's */
	char *expr;              /* as the file gives it */
	struct gw_pq_node *ast;  /* parsed; owned */
	int64_t for_ms;          /* alerting: 0 fires at once */
	int64_t keep_firing_for_ms;
	struct gw_rule_kv *labels;
	size_t nlabels;
	struct gw_rule_kv *annotations; /* alerting only */
	size_t nannotations;
	int line; /* of the rule's first key */
};

struct gw_rule_group {
	char *name;
	char *file;          /* the path as given (a glob's match) */
	int64_t interval_ms; /* 0: the evaluation interval given to the evaluator */
	uint64_t limit;      /* 0: none; else more series than this fail the rule */
	struct gw_rule *rules;
	size_t nrules;
	int line;
};

struct gw_ruleset {
	struct gw_rule_group *groups; /* files in the order given, groups in file order */
	size_t ngroups;
	char **files; /* every file read, after glob expansion */
	size_t nfiles;
};

/*
 * Read one file into set (appending its groups). Errors are reported as
 * Prometheus reports them, with the line: "FILE:LINE:COL: yaml: ..." for
 * YAML, "FILE:LINE: group \"G\", rule N, \"NAME\": could not parse
 * expression: ..." for a rule. Every error of the file is collected into
 * err->msg (one per line, as many as fit); returns GW_EPARSE for a bad file,
 * GW_EIO / GW_ENOTFOUND when it cannot be read.
 */
int gw_rules_load_file(struct gw_ruleset *set, const char *path, struct gw_err *err);

/*
 * The same, handing every error of the file to each (the whole line,
 * "FILE: ..."), as `rules check` prints them, with no bound on their
 * number. each may be NULL.
 */
typedef void (*gw_rules_errfn)(void *ctx, const char *msg);
int gw_rules_load_file_each(struct gw_ruleset *set, const char *path, gw_rules_errfn each, void *ctx,
			    struct gw_err *err);

/* The same over text already read (path names it in messages and in the groups). */
int gw_rules_load_text(struct gw_ruleset *set, const char *path, const char *text, size_t len, gw_rules_errfn each,
		       void *ctx, struct gw_err *err);

/*
 * Recording rules of one set that record the same name with the same
 * labels (promtool's duplicate-rules lint): each pair is handed to each as
 * "Metric: NAME\nLabel(s):\n\tk: v..." text. Returns their number.
 */
size_t gw_ruleset_duplicates(const struct gw_ruleset *set, gw_rules_errfn each, void *ctx);

/*
 * Read every file the patterns name (glob(3); a pattern matching nothing is
 * not an error, as in Prometheus), rejecting a group name repeated within a
 * file. On error set is released and left empty.
 */
int gw_rules_load(struct gw_ruleset *set, const char *const *patterns, size_t n, struct gw_err *err);

/* Number of rules over all groups. */
size_t gw_ruleset_count(const struct gw_ruleset *set);

void gw_ruleset_release(struct gw_ruleset *set);

#endif
