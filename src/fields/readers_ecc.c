/*
 * readers_ecc.c - readers for ECC error counters, retired pages and
 * remapped rows. One reader per NVML call shape; the row's arg[] picks the
 * error type, counter and memory location, so 36 ECC fields share one
 * reader.
 */
#include "fields/fields_table.h"
#include "nvml/tally.h"

#include <string.h>

/* One NVML call on the context's GPU, its failure counted in the context's tally. */
#define CALL(c, fn, ...) GW_NVML_CALL((c)->tally, (c)->gpu, (c)->nv, fn, __VA_ARGS__)

/* arg0: nvmlMemoryErrorType_t, arg1: nvmlEccCounterType_t, arg2: nvmlMemoryLocation_t. */
void gw_rd_ecc(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned long long n = 0;
	nvmlReturn_t r =
	    CALL(c, nvmlDeviceGetMemoryErrorCounter, c->gpu->dev, f->arg[0], f->arg[1], f->arg[2], &n);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, (int64_t)n);
}

/* arg0: nvmlMemoryErrorType_t, arg1: nvmlEccCounterType_t. */
void gw_rd_ecc_total(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned long long n = 0;
	nvmlReturn_t r = CALL(c, nvmlDeviceGetTotalEccErrors, c->gpu->dev, f->arg[0], f->arg[1], &n);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, (int64_t)n);
}

/* arg0: nvmlPageRetirementCause_t; the number of pages retired for it.
 * A NULL address array with count 0 asks only for the count. */
void gw_rd_retired(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int count = 0;
	nvmlReturn_t r = CALL(c, nvmlDeviceGetRetiredPages, c->gpu->dev, f->arg[0], &count, NULL);
	if (r == NVML_ERROR_INSUFFICIENT_SIZE)
		r = NVML_SUCCESS; /* count holds the number of pages */
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, count);
}

/* arg0: 0 correctable rows, 1 uncorrectable rows, 2 pending (0/1), 3 failure (0/1). */
void gw_rd_remapped(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int x[4] = {0, 0, 0, 0};
	nvmlReturn_t r = CALL(c, nvmlDeviceGetRemappedRows, c->gpu->dev, &x[0], &x[1], &x[2], &x[3]);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, x[f->arg[0] & 3]);
}

/* arg0: 0 max, 1 high, 2 partial, 3 low, 4 none; banks with that much spare. */
void gw_rd_remap_histogram(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlRowRemapperHistogramValues_t h;
	memset(&h, 0, sizeof(h));
	nvmlReturn_t r = CALL(c, nvmlDeviceGetRowRemapperHistogram, c->gpu->dev, &h);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	const unsigned int x[] = {h.max, h.high, h.partial, h.low, h.none};
	gw_value_int(v, x[f->arg[0] % 5]);
}

/*
 * NVLinks up: links are asked for in order until one is out of range
 * (INVALID_ARGUMENT, which is no failure here: NVML has no link count every
 * driver answers). No link at all: not supported.
 */
void gw_rd_nvlink_active(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	(void)f;
	unsigned int up = 0, id = 0;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	for (; c->nv->nvmlDeviceGetNvLinkState && id < NVML_NVLINK_MAX_LINKS; id++) {
		nvmlEnableState_t st = NVML_FEATURE_DISABLED;
		r = c->nv->nvmlDeviceGetNvLinkState(c->gpu->dev, id, &st);
		if (r != NVML_SUCCESS)
			break;
		up += st == NVML_FEATURE_ENABLED;
	}
	if (id > 0 && r == NVML_ERROR_INVALID_ARGUMENT)
		r = NVML_SUCCESS;
	gw_nvml_tally_note(c->tally, c->gpu, GW_NVML_FN_nvmlDeviceGetNvLinkState, r);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, up);
}
