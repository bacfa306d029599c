/*
 * unittest.h - promtool's rule unit tests (`promtool test rules`, 2.42):
 * files of input series in the PromQL test notation ("1+2x10", "_",
 * "stale"), alert_rule_test and promql_expr_test cases, evaluated by the
 * agent's own rule evaluator over an in-memory store, with promtool's
 * output: "Unit Testing:  FILE" and "  SUCCESS" on standard output, each
 * failure's text after "  FAILED:" on standard error.
 * Threading: none.
 */
#ifndef GW_RULES_UNITTEST_H
#define GW_RULES_UNITTEST_H

#include <stddef.h>
#include <stdio.h>

/* Run every file's tests; returns 0 when all pass, 1 when any fails (promtool's exit codes). */
int gw_rules_unittest(const char *const *files, size_t n, FILE *out, FILE *err);

#endif
