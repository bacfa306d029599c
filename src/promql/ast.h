/*
 * ast.h - the PromQL syntax tree, as Prometheus 2.42 defines the language.
 *
 * gw_promql_parse() turns a query string into a tree of struct gw_pq_node,
 * type-checked the way Prometheus checks it (a range function needs a range
 * vector, aggregations take instant vectors, set operators take vectors on
 * both sides, ...), so a bad query is refused with Prometheus' kind of
 * message and position before any evaluation starts.
 *
 * Ownership: the whole tree is owned by its root; gw_promql_free() frees it.
 * Strings in the tree are owned by their nodes. Threading: none needed;
 * trees are immutable after parsing and may be shared read-only.
 */
#ifndef GW_PROMQL_AST_H
#define GW_PROMQL_AST_H

#include "core/err.h"
#include "model/match.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How deep a query may nest (parentheses, operators, calls, subqueries),
 * counted as levels of its tree. Evaluating, printing and freeing a tree
 * recurse once per level, so without a bound one request of nested
 * parentheses would overflow a server thread's stack. 256 levels is far past
 * any query a person or Grafana writes (a 200-term "a or b or ..." chain
 * still fits) and costs well under a megabyte of stack in every walk. */
#define GW_PQ_MAX_DEPTH 256

/* Bounds on times and durations, in ms, so that every sum the engine forms
 * (a time less an offset, a range and a step) stays inside int64_t: 2^61 ms
 * is 73 million years either side of 1970, 2^60 ms half that as a span.
 * Times and durations past them are refused where they are parsed. */
#define GW_PQ_MAX_TIME_MS (INT64_MAX / 4)
#define GW_PQ_MAX_DURATION_MS (INT64_MAX / 8)

enum gw_pq_type { GW_PQ_T_NONE, GW_PQ_T_SCALAR, GW_PQ_T_VECTOR, GW_PQ_T_MATRIX, GW_PQ_T_STRING };

enum gw_pq_kind {
	GW_PQ_NUMBER,
	GW_PQ_STRING,
	GW_PQ_VECTOR_SEL,
	GW_PQ_MATRIX_SEL,
	GW_PQ_SUBQUERY,
	GW_PQ_CALL,
	GW_PQ_AGGREGATE,
	GW_PQ_BINARY,
	GW_PQ_UNARY,
	GW_PQ_PAREN,
};


struct gw_pq_matcher {
	char *name;
	char *value;
	enum gw_match_op op;
};

/* Binary operators, in the order of the token table. */
enum gw_pq_binop {
	GW_PQ_ADD,
	GW_PQ_SUB,
	GW_PQ_MUL,
	GW_PQ_DIV,
	GW_PQ_MOD,
	GW_PQ_POW,
	GW_PQ_ATAN2,
	GW_PQ_CMP_EQ,
	GW_PQ_CMP_NE,
	GW_PQ_CMP_GT,
	GW_PQ_CMP_LT,
	GW_PQ_CMP_GE,
	GW_PQ_CMP_LE,
	GW_PQ_AND,
	GW_PQ_OR,
	GW_PQ_UNLESS,
};

enum gw_pq_aggop {
	GW_PQ_AGG_SUM,
	GW_PQ_AGG_AVG,
	GW_PQ_AGG_MIN,
	GW_PQ_AGG_MAX,
	GW_PQ_AGG_COUNT,
	GW_PQ_AGG_STDDEV,
	GW_PQ_AGG_STDVAR,
	GW_PQ_AGG_TOPK,
	GW_PQ_AGG_BOTTOMK,
	GW_PQ_AGG_QUANTILE,
	GW_PQ_AGG_COUNT_VALUES,
	GW_PQ_AGG_GROUP,
};

enum gw_pq_card { GW_PQ_CARD_ONE_TO_ONE, GW_PQ_CARD_MANY_TO_ONE, GW_PQ_CARD_ONE_TO_MANY, GW_PQ_CARD_MANY_TO_MANY };

/* "@ 123", "@ start()", "@ end()". */
enum gw_pq_at { GW_PQ_AT_NONE, GW_PQ_AT_TIME, GW_PQ_AT_START, GW_PQ_AT_END };

struct gw_pq_func; /* funcs.h */

struct gw_pq_node {
	enum gw_pq_kind kind;
	enum gw_pq_type type; /* result type */
	size_t pos;           /* byte offset in the query, for messages */
	unsigned height;      /* levels in this subtree, at most GW_PQ_MAX_DEPTH (0 = a leaf) */
	union {
		double number;
		char *string;
		struct {
			char *name; /* metric name or NULL */
			struct gw_pq_matcher *matchers;
			size_t nmatchers;
			int64_t offset_ms;
			enum gw_pq_at at;
			int64_t at_ms;
		} sel; /* VECTOR_SEL */
		struct {
			struct gw_pq_node *vs; /* VECTOR_SEL, or any expr for SUBQUERY */
			int64_t range_ms;
			int64_t step_ms; /* SUBQUERY: 0 = default evaluation interval */
			int64_t offset_ms;
			enum gw_pq_at at;
			int64_t at_ms;
		} range; /* MATRIX_SEL, SUBQUERY */
		struct {
			const struct gw_pq_func *func;
			struct gw_pq_node **args;
			size_t nargs;
		} call;
		struct {
			enum gw_pq_aggop op;
			struct gw_pq_node *expr;
			struct gw_pq_node *param; /* topk k, quantile q, count_values label */
			char **grouping;
			size_t ngrouping;
			bool without;
		} agg;
		struct {
			enum gw_pq_binop op;
			struct gw_pq_node *lhs, *rhs;
			bool return_bool;
			enum gw_pq_card card;
			bool on; /* on(...) given; else ignoring(...) or nothing */
			char **labels;
			size_t nlabels;
			char **include; /* group_left/right(...) labels */
			size_t ninclude;
			size_t op_pos; /* the operator's offset: some errors point there */
		} bin;
		struct {
			char op; /* '-' or '+' */
			struct gw_pq_node *expr;
		} unary;
		struct gw_pq_node *paren;
	} u;
};

/*
 * Parse and type-check a query. Returns 0 with *root set, or GW_EPARSE with
 * err->msg in Prometheus' style ("1:5: parse error: unexpected ...").
 */
int gw_promql_parse(const char *query, struct gw_pq_node **root, struct gw_err *err);
/*
 * Parse a series selector alone (match[] of /api/v1/series, labels and
 * label values), as Prometheus' ParseMetricSelector does: anything past
 * the selector is "unexpected". *root is a GW_PQ_VECTOR_SEL. A selector
 * whose every matcher matches the empty string: GW_EINVAL with the API's
 * message ("match[] must contain at least one non-empty matcher").
 */
int gw_promql_parse_selector(const char *query, struct gw_pq_node **root, struct gw_err *err);
void gw_promql_free(struct gw_pq_node *n);

const char *gw_pq_type_name(enum gw_pq_type t);
const char *gw_pq_binop_name(enum gw_pq_binop op);
const char *gw_pq_aggop_name(enum gw_pq_aggop op);

/* Parse a Prometheus duration ("1h30m", "5m", "100ms"); GW_EPARSE if bad. */
int gw_promql_duration(const char *s, size_t len, int64_t *ms);

#endif
