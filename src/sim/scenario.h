/*
 * scenario.h - shared between the scenario parser and its key table.
 */
#ifndef GWSIM_SCENARIO_H
#define GWSIM_SCENARIO_H

#include "sim.h"

int gwsim_parse_bool(const char *v, unsigned int *out);
/* A finite number (decimal, exponent or 0x hex); -1 for anything else. */
int gwsim_parse_num(const char *v, double *out);
/* A number lo..hi; else -1 and err names KEY, the value and the range. */
int gwsim_parse_range(const char *key, const char *v, double lo, double hi, double *out, char *err, size_t errlen);
/* An unsigned 64-bit integer (decimal or 0x hex, no sign); else -1 and err names KEY. */
int gwsim_parse_u64(const char *key, const char *v, unsigned long long *out, char *err, size_t errlen);
/* 1: handled, 0: not a table key, -1: bad value (err says why). */
int gwsim_key_set(struct gwsim_gpu *g, const char *key, const char *v, char *err, size_t errlen);
const char *gwsim_key_name(size_t i);

#endif
