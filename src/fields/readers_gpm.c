/*
 * readers_gpm.c - GPM metrics as fields: the sampler computes them once per
 * tick (collect/gpm.c) and keeps them with the GPU, so reading one makes no
 * NVML call. Without a running sampler, or on GPUs without GPM, they are
 * not available.
 */
#include "nvml/gpm.h"
#include "fields/fields_table.h"

void gw_rd_gpm(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	const struct gw_gpm *g = c->gpu->gpm;
	int i = f->arg[0];
	if (!g || i < 0 || i >= GW_GPM__COUNT || !g->valid[i]) {
		v->state = GW_V_NA;
		return;
	}
	v->state = GW_V_OK;
	v->kind = GW_VK_FLOAT;
	v->d = g->v[i];
}
