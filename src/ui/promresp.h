/*
 * promresp.h - an answer of Prometheus' HTTP API (/api/v1/query and
 * /api/v1/query_range) read into series: each series' labels and its
 * points (one for an instant vector, many for a range matrix).
 *
 * The JSON is read by jansson (strict RFC 8259: UTF-8 checked, lone
 * surrogates, trailing commas and bytes after the value refused; a
 * duplicated member name is refused too). Before jansson sees a byte, the
 * answer is held to the limits below: over the size cap or nested deeper
 * than the depth cap is GW_ERANGE. Everything the server sent is then
 * checked before use: the envelope ("status", "data", "resultType",
 * "result"), that labels are strings, that each point is [seconds,
 * "value"]. An answer with "status":"error" is GW_EINVAL with the server's
 * errorType and error in the message; an answer that is not that shape,
 * not JSON or cut short ("JSON ends early at byte N (truncated?)") is
 * GW_EPARSE with where it went wrong. Nothing the server sends can crash
 * the reader.
 *
 * The same series come from a text exposition (gw_ui_promresp_parse_text,
 * promtext.c), checked as strictly: what --remote reads from an agent's
 * /metrics.
 *
 * Ownership: the caller embeds struct gw_ui_promresp, parse fills it and
 * release frees it; labels and points are borrowed from it.
 * Threading: reentrant; an answer belongs to one thread at a time.
 */
#ifndef GW_UI_PROMRESP_H
#define GW_UI_PROMRESP_H

#include "core/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An answer is a few hundred KB; 6 levels deep (root, data, result, entry, values, point). */
#define GW_UI_PROMRESP_SIZE_MAX (64u << 20)
#define GW_UI_PROMRESP_DEPTH_MAX 64

struct json_t; /* jansson's value; only promresp.c includes jansson.h */

struct gw_ui_point {
	int64_t t_ms;
	double v;
};

struct gw_ui_series {
	const struct json_t *labels; /* an object of string values */
	struct gw_ui_point *pts;     /* into the answer's point array */
	size_t npts;
};

struct gw_ui_promresp {
	struct json_t *doc; /* the whole answer, one reference */
	bool matrix;	    /* resultType "matrix" (query_range); else "vector" */
	struct gw_ui_series *series;
	size_t nseries;
	struct gw_ui_point *pts; /* every point of every series */
	size_t npts;
};

/* Read len bytes of an API answer. Returns 0, GW_EPARSE, GW_EINVAL, GW_ERANGE or GW_ENOMEM. */
int gw_ui_promresp_parse(struct gw_ui_promresp *r, const char *body, size_t len, struct gw_err *err);
void gw_ui_promresp_release(struct gw_ui_promresp *r);

/*
 * Read a Prometheus text exposition (an agent's or dcgm-exporter's
 * /metrics) into r as an instant vector: one series per sample line, its
 * name as the "__name__" label, each point at t_ms unless the line has its
 * own time stamp (ms). Comment and blank lines are skipped, and so are
 * the lines of a metric keep() refuses (NULL: keep all), read no further
 * than their name: an agent's /metrics is ~1,200 lines for 8 GPUs, top
 * reads ~20 of its families. A line read that is not a sample is
 * GW_EPARSE, "line N: why" (a last line without its newline, always read,
 * says the text was cut short); over the size cap GW_ERANGE.
 */
int gw_ui_promresp_parse_text(struct gw_ui_promresp *r, const char *body, size_t len, int64_t t_ms,
			      bool (*keep)(const char *name), struct gw_err *err);

/* Label name of series s, or NULL when it has none. */
const char *gw_ui_promresp_label(const struct gw_ui_promresp *r, const struct gw_ui_series *s,
				 const char *name);

/*
 * A sample value as Prometheus writes it: a decimal number as JSON writes
 * it, or one of the words "NaN", "+Inf", "-Inf", "Inf"; the whole of
 * s[0..len) must be the value. Read without the C locale's help, so a
 * decimal comma locale changes nothing. Returns 0 or GW_EPARSE.
 */
int gw_ui_promresp_value(const char *s, size_t len, double *out);

#endif
