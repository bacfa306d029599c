/*
 * promresp.h - an answer of Prometheus' HTTP API (/api/v1/query and
 * /api/v1/query_range) read into series: each series' labels and its
 * points (one for an instant vector, many for a range matrix).
 *
 * Everything the server sent is checked before use: the envelope
 * ("status", "data", "resultType", "result"), that labels are strings,
 * that each point is [seconds, "value"]. An answer with "status":"error"
 * is GW_EINVAL with the server's errorType and error in the message; an
 * answer that is not that shape, not JSON or cut short is GW_EPARSE with
 * where it went wrong. Nothing the server sends can crash the reader.
 *
 * Ownership: the caller embeds struct gw_ui_promresp, parse fills it and
 * release frees it; labels and points are borrowed from it.
 * Threading: reentrant; an answer belongs to one thread at a time.
 */
#ifndef GW_UI_PROMRESP_H
#define GW_UI_PROMRESP_H

#include "core/err.h"
#include "core/jsonread.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw_ui_point {
	int64_t t_ms;
	double v;
};

struct gw_ui_series {
	const struct gw_jval *labels; /* an object of string values */
	struct gw_ui_point *pts;      /* into the answer's point array */
	size_t npts;
};

struct gw_ui_promresp {
	struct gw_jdoc *doc;
	bool matrix; /* resultType "matrix" (query_range); else "vector" */
	struct gw_ui_series *series;
	size_t nseries;
	struct gw_ui_point *pts; /* every point of every series */
	size_t npts;
};

/* Read len bytes of an API answer. Returns 0, GW_EPARSE, GW_EINVAL, GW_ERANGE or GW_ENOMEM. */
int gw_ui_promresp_parse(struct gw_ui_promresp *r, const char *body, size_t len, struct gw_err *err);
void gw_ui_promresp_release(struct gw_ui_promresp *r);

/* Label name of series s, or NULL when it has none. */
const char *gw_ui_promresp_label(const struct gw_ui_promresp *r, const struct gw_ui_series *s, const char *name);

#endif
