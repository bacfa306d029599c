/*
 * eval_int.h - what the evaluator's files share (not a public header).
 */
#ifndef GW_PROMQL_EVAL_INT_H
#define GW_PROMQL_EVAL_INT_H

#include "promql/engine.h"
#include "promql/funcs.h"

struct pq_val {
	enum gw_pq_type type;
	double scalar;
	const char *str;
	struct gw_vector vec;
	struct gw_matrix mat;
};

struct sel_cache {
	const struct gw_pq_node *node; /* a VECTOR_SEL */
	struct gw_series_set set;
	int agg; /* enum gw_tier_agg when read from a tier, -1 raw */
	bool *stale; /* per series: holds a staleness marker (range windows must drop them) */
	long *cur;   /* per series, 2 each: the last answers of the two searches (-2: none) */
};

struct memo_ent;
struct ev_memo {
	struct memo_ent *slots;
	size_t cap, count;
};

struct ev {
	const struct gw_querier *q;
	struct gw_arena *a;
	struct gw_err *err;
	int rc; /* first error, sticky */
	int64_t lookback, substep;
	int64_t start, end; /* query bounds, for @ start() / end() */
	int64_t qstep;      /* a range query's step; 0: an instant query */
	struct ev_slide *slides; /* eval_range.c: max/min_over_time answered for every step at once */
	size_t nslides, capslides;
	struct ev_aggpos *aggpos; /* eval_agg.c: each aggregation's groups by input position, last step */
	size_t naggpos;
	struct sel_cache *cache;
	size_t ncache, capcache;
	size_t samples, max_samples; /* loaded, plus a range query's answer points so far */
	double *scratch;             /* quantile_over_time's copy of a window, reused at every step */
	size_t scratch_cap;
	int64_t deadline_ms; /* CLOCK_MONOTONIC ms, 0 = none */
	unsigned int steps;  /* evaluations since the last clock check */
	int64_t tier_res;    /* every evaluation time is a multiple of it; 0: no tier */
	int64_t tier_min_span;
	struct ev_memo memo; /* eval_memo.c */
	struct gw_strmap ids;  /* label set key -> id, for ev_label_id */
	struct ev_seen {
		uint64_t stamp;
		long val, val2;
	} * seen;              /* by label id: marks of the current ev_seen_begin() round */
	size_t seen_cap;
	uint64_t seen_stamp;
	struct gw_strmap sig_ids; /* matching signature -> id, for ev_memo_sig_id */
	struct ev_seen *sig_seen; /* by signature id, marks of the current ev_sig_round() */
	size_t sig_seen_cap;
	uint64_t sig_stamp;
};

/*
 * eval_memo.c: values derived from a label set, computed once per
 * evaluation. The same label set (same object) gives the same result
 * object, so what is derived from a result is remembered too.
 */
struct gw_labels ev_drop_name(struct ev *e, const struct gw_labels *l);
const char *ev_key_all(struct ev *e, const struct gw_labels *l, size_t *len);
/* make(e, n, l, r) once per (n, l, r); r NULL for one-argument derivations. */
struct gw_labels ev_memo_labels(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l,
				const struct gw_labels *r,
				struct gw_labels (*make)(struct ev *, const struct gw_pq_node *, const struct gw_labels *,
							 const struct gw_labels *));
/*
 * A small integer standing for the content of l: equal label sets get the
 * same id. -1: out of memory.
 */
long ev_label_id(struct ev *e, const struct gw_labels *l);
/*
 * Start a round of marks by label id: afterwards e->seen[id].stamp ==
 * e->seen_stamp means id was marked in this round (the ids must exist
 * before the call). 0 or GW_ENOMEM.
 */
int ev_seen_begin(struct ev *e);
/* 1 if no two of the n label sets are equal, 0 if two are, -1 (e->rc set) out of memory. */
int ev_labels_distinct(struct ev *e, const struct gw_labels *l, size_t n);
/* Room in e->seen for every id made so far (marks kept). 0 or GW_ENOMEM. */
int ev_seen_grow(struct ev *e);
/* An id for the key make(e, n, l, len) gives: equal keys, equal ids; -1: out of memory. */
long ev_memo_sig_id(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l,
		    const char *(*make)(struct ev *, const struct gw_pq_node *, const struct gw_labels *, size_t *));
/* A new round of marks by signature id, with room for every id so far. 0 or GW_ENOMEM. */
int ev_sig_round(struct ev *e);
/* make(e, n, l, len) once per (n, l). */
const char *ev_memo_key(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l, size_t *len,
			const char *(*make)(struct ev *, const struct gw_pq_node *, const struct gw_labels *, size_t *));

/* How the selector's series were read: enum gw_tier_agg, or -1 for raw samples. */
int ev_sel_agg(const struct ev *e, const struct gw_pq_node *vs);

int ev_fail(struct ev *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ev_eval(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out);

/* Reference time of a selector-like node evaluated at ts. */
int64_t ev_ref_time(const struct ev *e, enum gw_pq_at at, int64_t at_ms, int64_t ts, int64_t offset);

/* Add one element to a vector being built (capacity grows in the arena). */
struct vbuild {
	struct gw_vsample *s;
	size_t n, cap;
};
int vb_push(struct ev *e, struct vbuild *b, struct gw_labels l, int64_t t, double v);
struct gw_vector vb_done(struct vbuild *b);

/* Error out if two elements of v share a label set. */
int ev_check_unique(struct ev *e, const struct gw_vector *v);

int ev_call(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out);
int ev_aggregate(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out);
int ev_binary(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out);

/* eval_range.c: a max/min_over_time of a plain selector, evaluated at the
 * range query's own steps: answered in one pass a series (a sliding window)
 * on its first step. Called while preparing; 0 or the error. */
int ev_slide_mark(struct ev *e, const struct gw_pq_node *call);
/* A slide's answers for every step, series by series. */
struct ev_cells {
	const double *v;      /* [series * nsteps + step] */
	const uint8_t *has;   /* the step has an answer for the series */
	const struct gw_labels *labels; /* each series' result labels, all distinct */
	size_t nsteps;
};
/* The slide of call n, computed now if not yet; 1 if it has none (or its
 * labels can repeat: step by step), else 0 or the error. */
int ev_slide_cells(struct ev *e, const struct gw_pq_node *n, struct ev_cells *out);
/* The selector's prepared series set (eval.c). */
const struct sel_cache *ev_sel_cached(const struct ev *e, const struct gw_pq_node *vs);

/* eval_range.c: a call whose argument is a range vector; 1 = absent_over_time found nothing. */
int ev_call_range(struct ev *e, const struct gw_pq_node *n, int64_t ts, struct pq_val *out);
/* absent()'s result labels: the equality matchers of its selector. */
int ev_absent_labels(struct ev *e, const struct gw_pq_node *arg, int64_t ts, struct pq_val *out);
/* Functions that keep the metric name of their input. */
bool ev_keeps_name(enum gw_pq_func_id id);

/* quantile over values (sorted in place), Prometheus' interpolation. */
double pq_quantile(double q, double *v, size_t n);

#endif
