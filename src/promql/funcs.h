/*
 * funcs.h - the table of PromQL functions: names, argument and result types.
 *
 * The parser type-checks calls against it; the evaluator dispatches on id.
 * Variadic follows Prometheus: 0 = exactly nargs arguments; n > 0 = the last
 * n may be omitted; -1 = the last may repeat any number of times (or be
 * omitted).
 */
#ifndef GW_PROMQL_FUNCS_H
#define GW_PROMQL_FUNCS_H

#include "promql/ast.h"

#define S GW_PQ_T_SCALAR
#define V GW_PQ_T_VECTOR
#define M GW_PQ_T_MATRIX
#define Z GW_PQ_T_STRING
#define N GW_PQ_T_NONE
/* X(id, name, result, variadic, nargs, five arg types (N: none)) */
#define GW_PQ_FUNCS(X)                                                                                 \
	X(ABS, "abs", V, 0, 1, V, N, N, N, N)                                                             \
	X(ABSENT, "absent", V, 0, 1, V, N, N, N, N)                                                       \
	X(ABSENT_OVER_TIME, "absent_over_time", V, 0, 1, M, N, N, N, N)                                   \
	X(ACOS, "acos", V, 0, 1, V, N, N, N, N)                                                           \
	X(ACOSH, "acosh", V, 0, 1, V, N, N, N, N)                                                         \
	X(ASIN, "asin", V, 0, 1, V, N, N, N, N)                                                           \
	X(ASINH, "asinh", V, 0, 1, V, N, N, N, N)                                                         \
	X(ATAN, "atan", V, 0, 1, V, N, N, N, N)                                                           \
	X(ATANH, "atanh", V, 0, 1, V, N, N, N, N)                                                         \
	X(AVG_OVER_TIME, "avg_over_time", V, 0, 1, M, N, N, N, N)                                         \
	X(CEIL, "ceil", V, 0, 1, V, N, N, N, N)                                                           \
	X(CHANGES, "changes", V, 0, 1, M, N, N, N, N)                                                     \
	X(CLAMP, "clamp", V, 0, 3, V, S, S, N, N)                                                         \
	X(CLAMP_MAX, "clamp_max", V, 0, 2, V, S, N, N, N)                                                 \
	X(CLAMP_MIN, "clamp_min", V, 0, 2, V, S, N, N, N)                                                 \
	X(COS, "cos", V, 0, 1, V, N, N, N, N)                                                             \
	X(COSH, "cosh", V, 0, 1, V, N, N, N, N)                                                           \
	X(COUNT_OVER_TIME, "count_over_time", V, 0, 1, M, N, N, N, N)                                     \
	X(DAY_OF_MONTH, "day_of_month", V, 1, 1, V, N, N, N, N)                                           \
	X(DAY_OF_WEEK, "day_of_week", V, 1, 1, V, N, N, N, N)                                             \
	X(DAY_OF_YEAR, "day_of_year", V, 1, 1, V, N, N, N, N)                                             \
	X(DAYS_IN_MONTH, "days_in_month", V, 1, 1, V, N, N, N, N)                                         \
	X(DEG, "deg", V, 0, 1, V, N, N, N, N)                                                             \
	X(DELTA, "delta", V, 0, 1, M, N, N, N, N)                                                         \
	X(DERIV, "deriv", V, 0, 1, M, N, N, N, N)                                                         \
	X(EXP, "exp", V, 0, 1, V, N, N, N, N)                                                             \
	X(FLOOR, "floor", V, 0, 1, V, N, N, N, N)                                                         \
	X(HISTOGRAM_QUANTILE, "histogram_quantile", V, 0, 2, S, V, N, N, N)                               \
	X(HOLT_WINTERS, "holt_winters", V, 0, 3, M, S, S, N, N)                                           \
	X(HOUR, "hour", V, 1, 1, V, N, N, N, N)                                                           \
	X(IDELTA, "idelta", V, 0, 1, M, N, N, N, N)                                                       \
	X(INCREASE, "increase", V, 0, 1, M, N, N, N, N)                                                   \
	X(IRATE, "irate", V, 0, 1, M, N, N, N, N)                                                         \
	X(LABEL_JOIN, "label_join", V, -1, 4, V, Z, Z, Z, N)                                              \
	X(LABEL_REPLACE, "label_replace", V, 0, 5, V, Z, Z, Z, Z)                                         \
	X(LAST_OVER_TIME, "last_over_time", V, 0, 1, M, N, N, N, N)                                       \
	X(LN, "ln", V, 0, 1, V, N, N, N, N)                                                               \
	X(LOG10, "log10", V, 0, 1, V, N, N, N, N)                                                         \
	X(LOG2, "log2", V, 0, 1, V, N, N, N, N)                                                           \
	X(MAX_OVER_TIME, "max_over_time", V, 0, 1, M, N, N, N, N)                                         \
	X(MIN_OVER_TIME, "min_over_time", V, 0, 1, M, N, N, N, N)                                         \
	X(MINUTE, "minute", V, 1, 1, V, N, N, N, N)                                                       \
	X(MONTH, "month", V, 1, 1, V, N, N, N, N)                                                         \
	X(PI, "pi", S, 0, 0, N, N, N, N, N)                                                               \
	X(PREDICT_LINEAR, "predict_linear", V, 0, 2, M, S, N, N, N)                                       \
	X(PRESENT_OVER_TIME, "present_over_time", V, 0, 1, M, N, N, N, N)                                 \
	X(QUANTILE_OVER_TIME, "quantile_over_time", V, 0, 2, S, M, N, N, N)                               \
	X(RAD, "rad", V, 0, 1, V, N, N, N, N)                                                             \
	X(RATE, "rate", V, 0, 1, M, N, N, N, N)                                                           \
	X(RESETS, "resets", V, 0, 1, M, N, N, N, N)                                                       \
	X(ROUND, "round", V, 1, 2, V, S, N, N, N)                                                         \
	X(SCALAR, "scalar", S, 0, 1, V, N, N, N, N)                                                       \
	X(SGN, "sgn", V, 0, 1, V, N, N, N, N)                                                             \
	X(SIN, "sin", V, 0, 1, V, N, N, N, N)                                                             \
	X(SINH, "sinh", V, 0, 1, V, N, N, N, N)                                                           \
	X(SORT, "sort", V, 0, 1, V, N, N, N, N)                                                           \
	X(SORT_DESC, "sort_desc", V, 0, 1, V, N, N, N, N)                                                 \
	X(SQRT, "sqrt", V, 0, 1, V, N, N, N, N)                                                           \
	X(STDDEV_OVER_TIME, "stddev_over_time", V, 0, 1, M, N, N, N, N)                                   \
	X(STDVAR_OVER_TIME, "stdvar_over_time", V, 0, 1, M, N, N, N, N)                                   \
	X(SUM_OVER_TIME, "sum_over_time", V, 0, 1, M, N, N, N, N)                                         \
	X(TAN, "tan", V, 0, 1, V, N, N, N, N)                                                             \
	X(TANH, "tanh", V, 0, 1, V, N, N, N, N)                                                           \
	X(TIME, "time", S, 0, 0, N, N, N, N, N)                                                           \
	X(TIMESTAMP, "timestamp", V, 0, 1, V, N, N, N, N)                                                 \
	X(VECTOR, "vector", V, 0, 1, S, N, N, N, N)                                                       \
	X(YEAR, "year", V, 1, 1, V, N, N, N, N)

enum gw_pq_func_id {
#define GW_PQ_FUNC_ENUM(id, name, ret, var, n, a0, a1, a2, a3, a4) GW_PQ_F_##id,
	GW_PQ_FUNCS(GW_PQ_FUNC_ENUM)
#undef GW_PQ_FUNC_ENUM
	GW_PQ_F__COUNT
};

struct gw_pq_func {
	enum gw_pq_func_id id;
	const char *name;
	enum gw_pq_type ret;
	int variadic;
	int nargs;
	enum gw_pq_type args[5];
};

/* Look a function up by name; NULL if PromQL has no such function. */
const struct gw_pq_func *gw_pq_func_find(const char *name, size_t len);

#endif
