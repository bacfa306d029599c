/*
 * prom_api_int.h - what prom_api.c's handlers share with the status
 * handlers in prom_status.c. Not for use outside src/api/.
 */
#ifndef GW_API_PROM_API_INT_H
#define GW_API_PROM_API_INT_H

#include "api/prom_api.h"

/* {"status":"error","errorType":TYPE,"error":MSG} with an HTTP status. */
void api_error(struct gw_http_response *r, int status, const char *type, const char *msg);
/* 400 bad_data: invalid parameter "PARAM": WHY. */
void api_bad_param(struct gw_http_response *r, const char *param, const char *why);
/* {"status":"success","data": ... then the closing brace. */
void api_success_begin(struct gw_http_response *r);
void api_success_end(struct gw_http_response *r);
/* An optional time parameter, def when absent; worded as Prometheus' parseTimeParam. */
bool api_time_param(const struct gw_http_request *req, struct gw_http_response *r, const char *name, int64_t def,
		    int64_t *out);

/* prom_status.c's handlers; ctx is the struct gw_api. */
void api_h_buildinfo(void *ctx, const struct gw_http_request *req, struct gw_http_response *r);
void api_h_exemplars(void *ctx, const struct gw_http_request *req, struct gw_http_response *r);
void api_h_config(void *ctx, const struct gw_http_request *req, struct gw_http_response *r);
void api_h_flags(void *ctx, const struct gw_http_request *req, struct gw_http_response *r);
void api_h_runtimeinfo(void *ctx, const struct gw_http_request *req, struct gw_http_response *r);
void api_h_targets(void *ctx, const struct gw_http_request *req, struct gw_http_response *r);

#endif
