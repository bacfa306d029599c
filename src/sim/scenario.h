/*
 * scenario.h - shared between the scenario parser and its key table.
 */
#ifndef GWSIM_SCENARIO_H
#define GWSIM_SCENARIO_H

#include "sim.h"

int gwsim_parse_bool(const char *v, unsigned int *out);
int gwsim_parse_num(const char *v, double *out);
/* 1: handled, 0: not a table key, -1: bad value (err says why). */
int gwsim_key_set(struct gwsim_gpu *g, const char *key, const char *v, char *err, size_t errlen);
const char *gwsim_key_name(size_t i);

#endif
