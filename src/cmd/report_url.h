/*
 * report_url.h - a gw_querier over a running agent's (or a Prometheus')
 * query API, for `gpuwatch report --url`: a selection is the range
 * selector `{matchers}[RANGE]` evaluated at the window's end through
 * /api/v1/query, whose matrix holds the raw samples, as the store would
 * return them.
 *
 * Ownership: gw_report_url_open allocates the context; close frees it.
 * The querier's series live in the caller's arena. Threading: one thread.
 */
#ifndef GW_CMD_REPORT_URL_H
#define GW_CMD_REPORT_URL_H

#include "model/storage.h"

struct gw_report_url;

int gw_report_url_open(struct gw_report_url **out, const char *url, struct gw_err *err);
void gw_report_url_close(struct gw_report_url *u);
struct gw_querier gw_report_url_querier(struct gw_report_url *u);

/* The newest utilisation sample the API has now (ms); GW_ENOTFOUND when it has none. */
int gw_report_url_last(struct gw_report_url *u, int64_t *t_ms, struct gw_err *err);

#endif
