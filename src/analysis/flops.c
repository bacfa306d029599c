/*
 * flops.c - FLOPs per token, MFU and HFU (PaLM's accounting), and the
 * reference article's count for comparison (docs/EFFICIENCY.md).
 */
#include "analysis/efficiency.h"

#include "core/err.h"

/* H Q: the attention's width, heads x head dimension. */
static double attn_width(const struct gw_model_shape *m)
{
	if (m->head_dim && m->heads)
		return (double)m->heads * m->head_dim;
	return m->hidden;
}

void gw_flops_per_token(const struct gw_model_shape *m, enum gw_recompute rc, struct gw_flops *out)
{
	/* 2 FLOPs (multiply, add) per weight per token forward, twice that backward */
	double dense = 6.0 * m->params;
	/* per layer and token: Q K^T and the weighted sum of V, 2 T H Q each forward */
	double attn_fwd = 4.0 * m->layers * attn_width(m) * m->seq;
	out->model_per_token = dense + 3.0 * attn_fwd;
	out->hardware_per_token = out->model_per_token;
	if (rc == GW_RC_FULL)
		out->hardware_per_token += 2.0 * m->params + attn_fwd;
	else if (rc == GW_RC_SELECTIVE)
		out->hardware_per_token += attn_fwd;
}

int gw_mfu_compute(const struct gw_model_shape *m, enum gw_recompute rc, double tokens_per_s,
		   unsigned int gpus, double peak_per_gpu, struct gw_mfu *out)
{
	if (!(tokens_per_s > 0) || gpus == 0 || !(peak_per_gpu > 0) || !(m->params > 0))
		return GW_EINVAL;
	gw_flops_per_token(m, rc, &out->flops);
	out->tokens_per_s = tokens_per_s;
	out->gpus = gpus;
	out->peak_per_gpu = peak_per_gpu;
	out->achieved_per_gpu = tokens_per_s * out->flops.model_per_token / gpus;
	out->mfu = out->achieved_per_gpu / peak_per_gpu;
	out->hfu = tokens_per_s * out->flops.hardware_per_token / gpus / peak_per_gpu;
	return 0;
}

double gw_flops_article_per_step(double params, double batch, double seq)
{
	return (18.0 * batch * seq + 4.0) * params;
}
