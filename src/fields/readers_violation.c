/*
 * readers_violation.c - time a performance policy held the clocks down,
 * from nvmlDeviceGetViolationStatus (what DCGM reads for its
 * DCGM_FI_DEV_*_VIOLATION fields that have no clock-event field value).
 */
#include "fields/fields_table.h"
#include "nvml/tally.h"

#define CALL(c, fn, ...) GW_NVML_CALL((c)->tally, (c)->gpu, (c)->nv, fn, __VA_ARGS__)

/* arg0: nvmlPerfPolicyType_t. The value: ns of violation since the driver loaded. */
void gw_rd_violation(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlViolationTime_t t = {0, 0};
	nvmlReturn_t r = CALL(c, nvmlDeviceGetViolationStatus, c->gpu->dev, (nvmlPerfPolicyType_t)f->arg[0], &t);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, (int64_t)t.violationTime);
}
