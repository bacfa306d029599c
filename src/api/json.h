/*
 * json.h - the few JSON writing helpers the HTTP API needs, appending to a
 * capped gw_buf: escaped strings, Prometheus' sample values (quoted
 * strings, "NaN", "+Inf", shortest digits without exponent) and its
 * timestamps (seconds with a millisecond fraction, unquoted).
 * Threading: none; the buffer is the caller's.
 */
#ifndef GW_API_JSON_H
#define GW_API_JSON_H

#include "core/buf.h"
#include "model/labels.h"

#include <stdint.h>

void gw_json_str(struct gw_buf *b, const char *s);
void gw_json_value(struct gw_buf *b, double v);   /* "1.5", "NaN", "+Inf"; "1e+21" */
/* An instant query's scalar: never an exponent, as 2.42 writes it. */
void gw_json_scalar(struct gw_buf *b, double v);
void gw_json_time(struct gw_buf *b, int64_t ms);  /* 1435781451.781 */

/* The same into out, unterminated, returning the length written; out holds
 * at least GW_JSON_VALUE_MAX / GW_JSON_TIME_MAX bytes. For writers that
 * reserve a buffer's room once per item. */
#define GW_JSON_VALUE_MAX 400
#define GW_JSON_TIME_MAX 32
size_t gw_json_value_fmt(char *out, double v);
size_t gw_json_time_fmt(char *out, int64_t ms);
void gw_json_labels(struct gw_buf *b, const struct gw_labels *l);

#endif
