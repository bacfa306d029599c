/*
 * report.h - the health watches' verdicts as the one-shot command prints
 * them and as /api/v1/health answers:
 *
 *   {"overall":"fail","gpus":[{"index":0,"uuid":"GPU-...","status":"fail",
 *     "incidents":[{"system":"memory","severity":"fail","code":"DCGM_FR_...",
 *                   "message":"...; what to do","since":"2026-07-03T22:11:10Z"}]}]}
 *
 * and a plain-text table. Ownership: appends to the caller's buffer.
 * Threading: reentrant.
 */
#ifndef GW_HEALTH_REPORT_H
#define GW_HEALTH_REPORT_H

#include "core/buf.h"
#include "health/health.h"

struct gw_health_gpu_id {
	unsigned int index;
	const char *uuid;
};

void gw_health_json(struct gw_buf *b, const struct gw_health_gpu_id *ids, const struct gw_health_report *r,
		    unsigned int n);
void gw_health_text(struct gw_buf *b, const struct gw_health_gpu_id *ids, const struct gw_health_report *r,
		    unsigned int n);

/* RFC 3339 in UTC, milliseconds only when there are any: "2026-07-03T22:11:10.250Z". */
size_t gw_health_time(char *out, size_t n, int64_t ms);

#endif
