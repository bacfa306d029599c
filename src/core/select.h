/*
 * select.h - the k-th smallest of an array of doubles without sorting it:
 * what a median or a quantile needs, in linear time on average where a
 * sort is n log n.
 *
 * The order is Go's for float64s (and so Prometheus'): NaN before every
 * number, then -Inf .. +Inf. No state; thread-safe.
 */
#ifndef GW_CORE_SELECT_H
#define GW_CORE_SELECT_H

#include <stddef.h>

/*
 * Reorder v[0..n) so that v[k] holds what sorting would put there, nothing
 * before it ordered after it and nothing after it ordered before it
 * (k < n). Hoare's selection with median-of-three pivots; past a depth
 * budget the remainder is sorted, so adversarial input stays n log n.
 */
void gw_select_kth(double *v, size_t n, size_t k);

/*
 * PromQL's quantile q of v[0..n) (rank q (n - 1), linear between the two
 * neighbours, as Prometheus interpolates), by selection; reorders v.
 * NaN for n = 0 or q NaN, -Inf for q < 0, +Inf for q > 1.
 */
double gw_quantile_select(double q, double *v, size_t n);

#endif
