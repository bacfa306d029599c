/*
 * memplan.c - the memory a run needs on each GPU: model states as the
 * ZeRO paper counts them (Rajbhandari et al. 2020, section 3.1 and
 * figure 1), activations per Korthikanti et al. 2022 (table 2 and
 * section 4.3), the KV cache for inference, and a reserve for the CUDA
 * context and the allocator's fragmentation (docs/EFFICIENCY.md).
 */
#include "analysis/efficiency.h"

#include "core/err.h"

#include <math.h>

/* Bytes each parameter holds: weight, gradient, optimizer state. */
struct per_param {
	double weight, grad, optim;
};

static struct per_param bytes_per_param(const struct gw_memplan_in *in)
{
	/* TF32 trains FP32 weights (4 + 4 bytes); 16-bit and FP8 training keep
	 * 16-bit weights and gradients with FP32 master weights in the
	 * optimizer (Transformer Engine keeps FP8 copies only transiently). */
	bool fp32 = in->dtype == GW_DT_TF32;
	struct per_param p = {fp32 ? 4 : 2, fp32 ? 4 : 2, 0};
	double master = fp32 ? 0 : 4;
	switch (in->optimizer) {
	case GW_OPT_ADAM: /* momentum and variance in FP32: K = 12 with the master copy */
		p.optim = master + 8;
		break;
	case GW_OPT_ADAM8BIT: /* both states in 8 bits (Dettmers et al. 2022) */
		p.optim = master + 2;
		break;
	case GW_OPT_SGD: /* with momentum in FP32 */
		p.optim = master + 4;
		break;
	}
	if (in->inference)
		p = (struct per_param){in->dtype == GW_DT_FP8 ? 1 : fp32 ? 4 : 2, 0, 0};
	return p;
}

static double act_scale(enum gw_dtype d)
{
	/* Korthikanti's byte counts are for 16-bit activations; FP32 doubles them */
	return d == GW_DT_TF32 ? 2.0 : 1.0;
}

double gw_activations_per_layer(const struct gw_memplan_in *in)
{
	const struct gw_model_shape *m = &in->model;
	double s = m->seq, b = in->micro_batch, h = m->hidden, a = m->heads;
	double t = in->tp ? in->tp : 1;
	double sbh = s * b * h * act_scale(in->dtype);
	if (in->recompute == GW_RC_FULL) /* only each layer's input is kept */
		return 2.0 * sbh / (in->sequence_parallel ? t : 1.0);
	/* the s x s score, softmax and dropout mask: 5 a s^2 b bytes, gone when
	 * recomputed (selective) or never stored (FlashAttention) */
	double attn = in->recompute == GW_RC_SELECTIVE || in->flash_attention ? 0.0 : 5.0 * a * s / (h * t);
	if (in->sequence_parallel)
		return sbh * (34.0 / t + attn);
	/* without sequence parallelism the layer norms' and dropouts' 10 s b h are replicated */
	return sbh * (10.0 + 24.0 / t + attn);
}

static void kv_cache(const struct gw_memplan_in *in, unsigned int layers_here, struct gw_memplan *out)
{
	const struct gw_model_shape *m = &in->model;
	double kv = m->kv_heads ? m->kv_heads : m->heads;
	double hd = m->head_dim ? m->head_dim : (double)m->hidden / m->heads;
	double t = in->tp ? in->tp : 1;
	/* tensor parallelism splits the heads; a rank holds at least one */
	double kv_here = kv / t < 1 ? 1 : kv / t;
	double bytes = in->dtype == GW_DT_FP8 ? 1 : in->dtype == GW_DT_TF32 ? 4 : 2;
	double ctx = in->context ? in->context : m->seq;
	out->kv_cache_bytes = 2.0 * layers_here * in->micro_batch * ctx * kv_here * hd * bytes;
}

/* Everything that depends on the micro-batch, for in's micro_batch. */
static void per_batch(const struct gw_memplan_in *in, struct gw_memplan *out)
{
	const struct gw_model_shape *m = &in->model;
	unsigned int pp = in->pp ? in->pp : 1;
	double t = in->tp ? in->tp : 1;
	unsigned int layers_here = (m->layers + pp - 1) / pp;
	out->activations_per_layer_bytes = 0;
	out->activations_bytes = 0;
	out->kv_cache_bytes = 0;
	if (in->inference) {
		kv_cache(in, layers_here, out);
	} else {
		out->activations_per_layer_bytes = gw_activations_per_layer(in);
		/* 1F1B: the first stage holds pp micro-batches of its L/pp layers */
		out->activations_bytes = out->activations_per_layer_bytes * layers_here * pp;
		/* one stage alone also holds the final layer norm, the logits and the
		 * cross entropy's FP32 copy: 4 s b h / t (1 + V / h) (section 4.3) */
		if (pp == 1 && m->vocab)
			out->activations_bytes += 4.0 * m->seq * in->micro_batch *
						  ((double)m->hidden + m->vocab) / t * act_scale(in->dtype);
	}
	double allocated = out->model_states_bytes + out->activations_bytes + out->kv_cache_bytes;
	out->frag_bytes = allocated * in->frag_fraction;
	out->total_bytes = allocated + out->frag_bytes + out->context_bytes;
}

static const char *check(const struct gw_memplan_in *in)
{
	const struct gw_model_shape *m = &in->model;
	unsigned int tp = in->tp ? in->tp : 1, pp = in->pp ? in->pp : 1;
	if (!(m->params > 0))
		return "the parameter count must be positive";
	if (!m->layers || !m->hidden || !m->heads || !m->seq)
		return "layers, hidden size, heads and sequence length must be positive";
	if (m->hidden % m->heads && !m->head_dim)
		return "the hidden size must be a multiple of the heads";
	if (!in->micro_batch)
		return "the micro-batch must be at least 1";
	if (!in->gpus || in->gpus % (tp * pp))
		return "the GPUs must be a multiple of tensor x pipeline parallel sizes";
	if (pp > m->layers)
		return "more pipeline stages than layers";
	if (in->zero > 3)
		return "ZeRO stages are 0 to 3";
	if (in->sequence_parallel && tp == 1)
		return "sequence parallelism needs tensor parallelism (--tp 2 or more)";
	if (in->frag_fraction < 0 || in->frag_fraction >= 1 || in->context_bytes < 0)
		return "the reserves must be a fraction in [0, 1) and bytes >= 0";
	return NULL;
}

int gw_memplan_compute(const struct gw_memplan_in *in, struct gw_memplan *out, const char **why)
{
	*out = (struct gw_memplan){0};
	if ((*why = check(in)) != NULL)
		return GW_EINVAL;
	unsigned int tp = in->tp ? in->tp : 1, pp = in->pp ? in->pp : 1;
	out->dp = in->gpus / (tp * pp);
	/* Psi: the parameters one model-parallel rank holds */
	double psi = in->model.params / (tp * pp);
	struct per_param p = bytes_per_param(in);
	double dp = out->dp;
	out->params_bytes = p.weight * psi / (in->zero >= 3 ? dp : 1);
	out->grads_bytes = p.grad * psi / (in->zero >= 2 ? dp : 1);
	out->optimizer_bytes = p.optim * psi / (in->zero >= 1 ? dp : 1);
	out->model_states_bytes = out->params_bytes + out->grads_bytes + out->optimizer_bytes;
	out->context_bytes = in->context_bytes;
	out->gpu_memory_bytes = in->gpu_memory_bytes;
	/* every term is linear in the micro-batch: two evaluations give the largest that fits */
	struct gw_memplan_in one = *in;
	one.micro_batch = 1;
	per_batch(&one, out);
	double at1 = out->total_bytes;
	one.micro_batch = 2;
	per_batch(&one, out);
	double slope = out->total_bytes - at1, fixed = at1 - slope;
	per_batch(in, out);
	out->fits = in->gpu_memory_bytes > 0 && out->total_bytes <= in->gpu_memory_bytes;
	if (in->gpu_memory_bytes > 0 && slope > 0 && in->gpu_memory_bytes >= fixed + slope) {
		double b = floor((in->gpu_memory_bytes - fixed) / slope);
		out->max_micro_batch = b > 1e6 ? 1000000u : (unsigned int)b;
	}
	return 0;
}
