/*
 * number.h - doubles as text, the two ways the Prometheus ecosystem writes
 * them, from one shortest-digits engine:
 *
 *   'f'  Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest decimal
 *        that reads back as v, never an exponent. The query API's sample
 *        values and count_values' label values.
 *   'e'  Go's strconv.FormatFloat(v, 'e', -1, 64): the same shortest digits
 *        as d.ddde±XX; the query API writes values below 1e-6 or from
 *        1e21 up so, as Prometheus' JSON writer does.
 *   'g'  the exposition format's numbers: integers digit by digit, the
 *        shortest "%.Ng" (N >= 6) that reads back as v otherwise; NaN,
 *        +Inf, -Inf.
 *
 * "Shortest" means the fewest significant digits N whose correctly rounded
 * N-digit decimal reads back as v, as printf trials find it; fast exact
 * paths answer the values monitoring produces (few decimals, rates,
 * ratios) without printf and fall back to the trials where they cannot
 * decide. No state; thread-safe.
 */
#ifndef GW_MODEL_NUMBER_H
#define GW_MODEL_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* v (finite) in 'f' form into out (cap >= 400 holds any double), NUL not
 * written; returns the length. */
size_t gw_num_format_f(char *out, size_t cap, double v);

/* v (finite, nonzero) in 'e' form into out (GW_NUM_E_MAX bytes), NUL not
 * written; returns the length. */
#define GW_NUM_E_MAX 40
size_t gw_num_format_e(char *out, double v);

/* Any v in 'g' form into out (GW_NUM_G_MAX bytes), NUL not written;
 * returns the length. */
#define GW_NUM_G_MAX 64
size_t gw_num_format_g(char *out, double v);

/* m * 10^-d in fixed point ("-12.345", "0.0012", "42") into out; returns
 * the length. */
size_t gw_num_decimal(char *out, bool neg, uint64_t m, int d);

#endif
