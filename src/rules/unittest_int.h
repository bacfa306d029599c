/*
 * unittest_int.h - a unit-test file as unittest_yaml.c decodes it and
 * unittest.c runs it (the fields of promtool's unitTestFile, testGroup,
 * alertTestCase and promqlTestCase), and the helpers its files share
 * (unittest_fmt.c, unittest_load.c). Ownership: struct gw_ut owns all of
 * it; gw_ut_release frees it.
 */
#ifndef GW_RULES_UNITTEST_INT_H
#define GW_RULES_UNITTEST_INT_H

#include "core/arena.h"
#include "core/buf.h"
#include "model/labels.h"
#include "rules/rulefile.h"
#include "rules/unittest.h"
#include "store/memstore.h"

#include <stdbool.h>
#include <stdint.h>

struct gw_rf;

struct gw_ut_series {
	char *series, *values;
};

struct gw_ut_exp_alert {
	struct gw_rule_kv *labels, *annotations;
	size_t nlabels, nannotations;
};

struct gw_ut_alert_test {
	int64_t eval_ms;
	char *alertname; /* NULL: missing */
	struct gw_ut_exp_alert *exp;
	size_t nexp;
};

struct gw_ut_sample {
	char *labels;
	double value;
};

struct gw_ut_expr_test {
	char *expr;
	int64_t eval_ms;
	struct gw_ut_sample *exp;
	size_t nexp;
};

struct gw_ut_group {
	int64_t interval_ms; /* 0: the file's evaluation interval */
	struct gw_ut_series *input;
	size_t ninput;
	struct gw_ut_alert_test *alerts;
	size_t nalerts;
	struct gw_ut_expr_test *exprs;
	size_t nexprs;
	struct gw_rule_kv *external;
	size_t nexternal;
	char *external_url;
	char *name;
};

struct gw_ut {
	char **rule_files;
	size_t nrule_files;
	int64_t eval_ms; /* 0: 1 m */
	char **order;    /* group_eval_order */
	size_t norder;
	struct gw_ut_group *tests;
	size_t ntests;
};

/* unittest_fmt.c: Go's formats as promtool prints failures. */
void gw_ut_model_duration(struct gw_buf *b, int64_t ms); /* "1h30m", "0s" */
void gw_ut_go_duration(struct gw_buf *b, int64_t ms);    /* "1m0s", "500ms" */
void gw_ut_go_quote(struct gw_buf *b, const char *s);    /* strconv.Quote */
void gw_ut_labels_string(struct gw_buf *b, const struct gw_labels *l); /* {a="b", c="d"} */
void gw_ut_float_E(struct gw_buf *b, double v);          /* FormatFloat(v, 'E', -1, 64) */

/* unittest_load.c: a series notation into sorted labels, as ParseMetric ("{}" is no labels). */
int gw_ut_parse_metric(const char *text, struct gw_arena *a, struct gw_labels *out, struct gw_err *err);
/* The group's input series at multiples of interval from 0, up to until (promtool's last evaluation). */
int gw_ut_load_series(struct gw_memstore *m, const struct gw_ut_group *g, int64_t interval, int64_t until,
		      struct gw_err *err);

/* Decode a unit-test file strictly (errors reported to c, without the path, as promtool prints them). */
int gw_ut_decode(struct gw_rf *c, struct gw_ut *ut, const char *text, size_t len);
void gw_ut_release(struct gw_ut *ut);

#endif
