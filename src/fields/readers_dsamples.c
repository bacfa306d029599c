/*
 * readers_dsamples.c - the driver's samples between two ticks as fields:
 * the sampler drains them once per tick (collect/dsamples.c) and keeps the
 * window's statistics with the GPU, so reading one makes no NVML call.
 * Without a running sampler, on drivers without nvmlDeviceGetSamples, or
 * for kinds the GPU does not sample, they are not available.
 */
#include "nvml/dsamples.h"
#include "fields/fields_table.h"

#include <math.h>

/* arg0: enum gw_dsample_kind; arg1: enum gw_dsample_stat. The count is the
 * running total of driver samples read (a counter); the others describe the
 * newest window, in the kind's unit (percent, mW). */
void gw_rd_dsample(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	const struct gw_dsamples *d = c->gpu->dsamples;
	int k = f->arg[0];
	if (!d || k < 0 || k >= GW_DS__COUNT || !d->k[k].supported) {
		gw_value_na(v);
		return;
	}
	const struct gw_dsample_window *w = &d->k[k];
	if (f->arg[1] == GW_DS_COUNT) {
		gw_value_int(v, (int64_t)w->total);
		return;
	}
	if (!w->valid) {
		gw_value_na(v);
		return;
	}
	double x = f->arg[1] == GW_DS_MAX ? w->max : f->arg[1] == GW_DS_MIN ? w->min : w->mean;
	/* The mean of the driver's whole-unit samples to a tenth of the unit
	 * (0.1 mW, 0.1 %): finer digits say nothing about a window of integer
	 * samples, and they cost several bytes a sample in the history. */
	x = nearbyint(x * 10) / 10;
	v->state = GW_V_OK;
	v->kind = GW_VK_FLOAT;
	v->d = x;
	v->i = llround(x); /* what a formatter that prints integers shows */
}
