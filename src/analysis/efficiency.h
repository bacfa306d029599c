/*
 * efficiency.h - training efficiency and memory arithmetic: the peak
 * tensor throughput and memory of GPU models, the shapes of well-known
 * models, FLOPs per token with MFU and HFU (PaLM's accounting), and the
 * memory a training or inference run needs per GPU (ZeRO's model states,
 * Korthikanti et al.'s activations, the KV cache). docs/EFFICIENCY.md
 * gives every formula with its source and worked examples.
 *
 * Pure functions over caller-owned plain structs; the tables are static
 * and read-only. Threading: everything here is reentrant.
 */
#ifndef GW_ANALYSIS_EFFICIENCY_H
#define GW_ANALYSIS_EFFICIENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The number format of a run's matrix multiplies. */
enum gw_dtype { GW_DT_BF16, GW_DT_FP16, GW_DT_FP8, GW_DT_TF32, GW_DT__COUNT };

/* What the backward pass recomputes (Korthikanti et al. 2022). */
enum gw_recompute { GW_RC_NONE, GW_RC_SELECTIVE, GW_RC_FULL };

enum gw_optimizer { GW_OPT_ADAM, GW_OPT_ADAM8BIT, GW_OPT_SGD };

/* Name <-> value of the enums above ("bf16", "selective", "adam8bit"); -1: unknown. */
int gw_dtype_parse(const char *s);
const char *gw_dtype_name(enum gw_dtype d);
int gw_recompute_parse(const char *s);
const char *gw_recompute_name(enum gw_recompute r);
int gw_optimizer_parse(const char *s);
const char *gw_optimizer_name(enum gw_optimizer o);

/* A positive count with an optional K, M, B/G or T suffix ("8B", "1.2e5", "7.5k"): 0, or GW_EINVAL. */
int gw_count_parse(const char *s, double *out);

/* ---- GPU models ---------------------------------------------------------------- */

struct gw_gpu_spec {
	const char *key;   /* what --gpu takes: "H100", "A100", ... */
	const char *match; /* a substring of NVML's name for it ("H100 80GB HBM3"); NULL: --gpu only */
	const char *name;  /* the board, in words */
	uint64_t memory_bytes;
	/* Peak dense (no sparsity) tensor-core FLOP/s by enum gw_dtype; 0: the
	 * GPU has no tensor path for that type. 16-bit rates accumulate in FP32. */
	double peak[GW_DT__COUNT];
	const char *source; /* where the numbers come from */
};

/* The table, in order; n set to its length. */
const struct gw_gpu_spec *gw_gpu_specs(size_t *n);

/* By --gpu key (case-insensitive), else by NVML name; NULL: not in the table. */
const struct gw_gpu_spec *gw_gpu_spec_find(const char *key_or_name);

/* ---- model shapes ---------------------------------------------------------------- */

struct gw_model_shape {
	double params;	       /* N */
	unsigned int layers;   /* L */
	unsigned int hidden;   /* h = heads x head dimension */
	unsigned int heads;    /* a */
	unsigned int kv_heads; /* key/value heads (grouped-query attention); 0: heads */
	unsigned int seq;      /* s (T): tokens per sequence */
	unsigned int vocab;    /* V; 0: unknown (the output layer's activations are left out) */
	unsigned int head_dim; /* Q; 0: hidden / heads (PaLM's heads x Q is not its hidden size) */
};

struct gw_model_preset {
	const char *key; /* "llama3-8b" */
	struct gw_model_shape shape;
	const char *source;
};

const struct gw_model_preset *gw_model_presets(size_t *n);
const struct gw_model_preset *gw_model_preset_find(const char *key);

/* ---- FLOPs, MFU and HFU ---------------------------------------------------------- */

/*
 * Training FLOPs per token, PaLM (Chowdhery et al. 2022, appendix B):
 * model = 6N + 12 L H Q T (forward 2N, backward 4N, and the attention's
 * score and value products, 4 L H Q T forward, twice that backward; H Q
 * is heads x head dimension, T the sequence length).
 * hardware = model plus what is recomputed: full recomputation runs the
 * forward again (2N + 4 L H Q T), selective recomputation only the
 * attention's products (4 L H Q T).
 */
struct gw_flops {
	double model_per_token;
	double hardware_per_token;
};
void gw_flops_per_token(const struct gw_model_shape *m, enum gw_recompute rc, struct gw_flops *out);

struct gw_mfu {
	struct gw_flops flops;
	double tokens_per_s; /* all GPUs together */
	double peak_per_gpu; /* FLOP/s */
	unsigned int gpus;
	double achieved_per_gpu; /* model FLOP/s per GPU */
	double mfu, hfu;	 /* fractions of the peak */
};
/* Returns 0, or GW_EINVAL when gpus, tokens_per_s or the peak is not positive. */
int gw_mfu_compute(const struct gw_model_shape *m, enum gw_recompute rc, double tokens_per_s,
		   unsigned int gpus, double peak_per_gpu, struct gw_mfu *out);

/* The reference article's count of FLOPs per step, (18 B S + 4) N, for comparison only. */
double gw_flops_article_per_step(double params, double batch, double seq);

/* ---- memory -------------------------------------------------------------------- */

struct gw_memplan_in {
	struct gw_model_shape model;
	unsigned int micro_batch; /* b: sequences per micro-batch (training) or batch (inference) */
	unsigned int gpus;	  /* all of them; data parallel = gpus / (tp pp) */
	unsigned int tp, pp;	  /* tensor and pipeline parallel sizes (0 reads as 1) */
	bool sequence_parallel;	  /* Megatron's sequence parallelism (with tp) */
	unsigned int zero;	  /* ZeRO stage 0..3 over the data-parallel group */
	enum gw_dtype dtype;
	enum gw_optimizer optimizer;
	enum gw_recompute recompute;
	bool flash_attention;	 /* the s x s attention matrices are never stored */
	bool inference;		 /* weights and KV cache only */
	unsigned int context;	 /* inference: tokens held in the KV cache per sequence (0: seq) */
	double context_bytes;	 /* per GPU: CUDA context, cuBLAS/NCCL workspaces */
	double frag_fraction;	 /* allocator fragmentation, a fraction of what is allocated */
	double gpu_memory_bytes; /* what one GPU has; 0: unknown (fits is then false) */
};

struct gw_memplan {
	unsigned int dp; /* data-parallel size */
	double params_bytes, grads_bytes, optimizer_bytes;
	double model_states_bytes; /* the three above */
	double activations_bytes;  /* training: every micro-batch in flight on the busiest stage */
	double activations_per_layer_bytes;
	double kv_cache_bytes; /* inference */
	double context_bytes, frag_bytes;
	double total_bytes;
	double gpu_memory_bytes;
	bool fits;
	unsigned int max_micro_batch; /* the largest b that fits; 0: none */
};

/* Returns 0, or GW_EINVAL with why (a static string) when the input cannot describe a run. */
int gw_memplan_compute(const struct gw_memplan_in *in, struct gw_memplan *out, const char **why);

/* Korthikanti et al.'s activation bytes of one layer for one micro-batch (16-bit activations). */
double gw_activations_per_layer(const struct gw_memplan_in *in);

#endif
