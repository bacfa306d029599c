/*
 * test_analysis.c - the efficiency formulas (analysis/efficiency.h) and the
 * robust trend (analysis/trend.h) against hand-computed cases and the
 * papers' published numbers.
 */
#include "analysis/efficiency.h"
#include "analysis/trend.h"
#include "core/err.h"

#include "harness.h"

#include <stdlib.h>

/* PaLM appendix B: 540B at 238.3K tokens/s on 6144 TPU v4 chips (275 TFLOP/s) is 46.2 % MFU. */
static void test_palm_mfu(void)
{
	const struct gw_model_preset *p = gw_model_preset_find("palm-540b");
	CHECK(p != NULL);
	struct gw_mfu r;
	CHECK_INT_EQ(gw_mfu_compute(&p->shape, GW_RC_NONE, 238.3e3, 6144, 275e12, &r), 0);
	/* 6 N = 3.2421e12; 12 L H Q T = 12 x 118 x 48 x 256 x 2048 = 3.5635e10 */
	CHECK_DBL_NEAR(r.flops.model_per_token, 6 * 540.35e9 + 12.0 * 118 * 48 * 256 * 2048, 1);
	CHECK_DBL_NEAR(r.mfu, 0.462, 0.0005);
	CHECK_DBL_NEAR(r.hfu, r.mfu, 1e-12); /* nothing recomputed */
}

/* Hand-computed: 6N + 12 L h T, recomputation adding 2N + 4 L h T (full) or 4 L h T (selective). */
static void test_flops_per_token(void)
{
	struct gw_model_shape m = {.params = 1e9, .layers = 10, .hidden = 1000, .heads = 10, .seq = 100};
	struct gw_flops f;
	gw_flops_per_token(&m, GW_RC_NONE, &f);
	CHECK_DBL_NEAR(f.model_per_token, 6e9 + 12e6, 1e-3);
	CHECK_DBL_NEAR(f.hardware_per_token, 6e9 + 12e6, 1e-3);
	gw_flops_per_token(&m, GW_RC_SELECTIVE, &f);
	CHECK_DBL_NEAR(f.hardware_per_token, 6e9 + 16e6, 1e-3);
	gw_flops_per_token(&m, GW_RC_FULL, &f);
	CHECK_DBL_NEAR(f.model_per_token, 6e9 + 12e6, 1e-3);
	CHECK_DBL_NEAR(f.hardware_per_token, 8e9 + 16e6, 1e-3);
	/* 1000 tokens/s on 2 GPUs of 1e12: 1000 x 6.012e9 / 2 / 1e12 */
	struct gw_mfu r;
	CHECK_INT_EQ(gw_mfu_compute(&m, GW_RC_FULL, 1000, 2, 1e12, &r), 0);
	CHECK_DBL_NEAR(r.mfu, 3.006, 1e-9);
	CHECK_DBL_NEAR(r.hfu, 4.008, 1e-9);
	CHECK_INT_EQ(gw_mfu_compute(&m, GW_RC_NONE, 0, 2, 1e12, &r), GW_EINVAL);
	CHECK_INT_EQ(gw_mfu_compute(&m, GW_RC_NONE, 10, 0, 1e12, &r), GW_EINVAL);
	CHECK_INT_EQ(gw_mfu_compute(&m, GW_RC_NONE, 10, 1, 0, &r), GW_EINVAL);
	/* the article's (18 B S + 4) N */
	CHECK_DBL_NEAR(gw_flops_article_per_step(1e9, 2, 100), 3604e9, 1);
}

/*
 * Narayanan et al. 2021, table 1: GPT-3 175B on 1024 A100s, batch 1536,
 * 140 TFLOP/s per GPU (45 % of 312) by their count with full
 * recomputation, 96 B s l h^2 (1 + s / 6h + V / 16 l h) an iteration.
 * Our HFU with full recomputation counts the same work to 0.3 %.
 */
static void test_megatron_hfu(void)
{
	const struct gw_model_preset *p = gw_model_preset_find("gpt3-175b");
	CHECK(p != NULL);
	double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
	double per_iter = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	double iter_s = per_iter / (1024 * 140e12);
	struct gw_mfu r;
	CHECK_INT_EQ(gw_mfu_compute(&p->shape, GW_RC_FULL, B * s / iter_s, 1024, 312e12, &r), 0);
	CHECK_DBL_NEAR(r.hfu, 140.0 / 312, 0.002);
	CHECK(r.mfu < r.hfu * 0.76 && r.mfu > r.hfu * 0.74); /* 6 of every 8 N FLOPs are the model's */
}

static void test_peak_table(void)
{
	const struct gw_gpu_spec *g = gw_gpu_spec_find("NVIDIA H100 80GB HBM3");
	CHECK(g && strcmp(g->key, "H100") == 0);
	CHECK_DBL_NEAR(g ? g->peak[GW_DT_BF16] : 0, 989.4e12, 1e9);
	g = gw_gpu_spec_find("NVIDIA H200");
	CHECK_DBL_NEAR(g ? g->peak[GW_DT_BF16] : 0, 989.4e12, 1e9);
	g = gw_gpu_spec_find("NVIDIA A100-SXM4-80GB");
	CHECK_DBL_NEAR(g ? g->peak[GW_DT_BF16] : 0, 312e12, 1e9);
	CHECK_DBL_NEAR(g ? g->peak[GW_DT_FP8] : 1, 0, 0);
	g = gw_gpu_spec_find("NVIDIA L40S");
	CHECK(g && strcmp(g->key, "L40S") == 0);
	g = gw_gpu_spec_find("NVIDIA L4");
	CHECK(g && strcmp(g->key, "L4") == 0);
	g = gw_gpu_spec_find("NVIDIA A10");
	CHECK(g && strcmp(g->key, "A10") == 0);
	g = gw_gpu_spec_find("l40s"); /* --gpu keys ignore case */
	CHECK(g && strcmp(g->key, "L40S") == 0);
	CHECK(gw_gpu_spec_find("NVIDIA GeForce RTX 4080 SUPER") != NULL);
	CHECK(gw_gpu_spec_find("NVIDIA GeForce RTX 2080 SUPER") != NULL);
	CHECK(gw_gpu_spec_find("Voodoo 3") == NULL);
	size_t n;
	const struct gw_gpu_spec *all = gw_gpu_specs(&n);
	for (size_t i = 0; i < n; i++) {
		CHECK(all[i].source && strlen(all[i].source) > 20);
		CHECK(all[i].memory_bytes > 0);
		CHECK(all[i].peak[GW_DT_FP16] > 0);
	}
	CHECK_INT_EQ(gw_dtype_parse("BF16"), GW_DT_BF16);
	CHECK_INT_EQ(gw_dtype_parse("fp64"), -1);
	CHECK_INT_EQ(gw_recompute_parse("selective"), GW_RC_SELECTIVE);
	CHECK_INT_EQ(gw_optimizer_parse("adam8bit"), GW_OPT_ADAM8BIT);
}

/* ZeRO paper, figure 1: 7.5B parameters, 64-way data parallel, Adam (K = 12). */
static void test_zero_figure1(void)
{
	const double want[4] = {120e9, 31.4e9, 16.6e9, 1.9e9};
	for (unsigned int z = 0; z < 4; z++) {
		struct gw_memplan_in in = {
		    .model = {.params = 7.5e9, .layers = 32, .hidden = 4096, .heads = 32, .seq = 1024},
		    .micro_batch = 1,
		    .gpus = 64,
		    .zero = z};
		struct gw_memplan r;
		const char *why;
		CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
		CHECK_DBL_NEAR(r.model_states_bytes, want[z], 0.05e9);
		CHECK_INT_EQ(r.dp, 64);
	}
}

/*
 * Korthikanti et al. 2022, table 2, for GPT-3 175B (s 2048, h 12288, a 96)
 * at t = 8, b = 1: sbh = 25,165,824 and 5as/ht = 10.
 */
static void test_korthikanti_table2(void)
{
	struct gw_memplan_in in = {
	    .model = {.params = 175e9, .layers = 96, .hidden = 12288, .heads = 96, .seq = 2048},
	    .micro_batch = 1,
	    .gpus = 8,
	    .tp = 8};
	double sbh = 2048.0 * 12288;
	CHECK_DBL_NEAR(gw_activations_per_layer(&in), sbh * (10 + 24.0 / 8 + 10), 1);
	in.sequence_parallel = true;
	CHECK_DBL_NEAR(gw_activations_per_layer(&in), sbh * (34.0 / 8 + 10), 1);
	in.recompute = GW_RC_SELECTIVE;
	double sel_sp = gw_activations_per_layer(&in);
	CHECK_DBL_NEAR(sel_sp, sbh * 34.0 / 8, 1);
	in.recompute = GW_RC_FULL;
	CHECK_DBL_NEAR(gw_activations_per_layer(&in), 2 * sbh / 8, 1);
	in.sequence_parallel = false;
	CHECK_DBL_NEAR(gw_activations_per_layer(&in), 2 * sbh, 1);
	/* FlashAttention removes the same term selective recomputation does */
	in.recompute = GW_RC_NONE;
	in.flash_attention = true;
	CHECK_DBL_NEAR(gw_activations_per_layer(&in), sbh * (10 + 24.0 / 8), 1);
	/* no parallelism: sbh (34 + 5as/h) */
	in = (struct gw_memplan_in){.model = in.model, .micro_batch = 1, .gpus = 1};
	CHECK_DBL_NEAR(gw_activations_per_layer(&in), sbh * (34 + 80), 1);
	/* the abstract's "reduces activation memory by 5x" against tensor parallelism alone */
	in.tp = 8;
	in.gpus = 8;
	CHECK(gw_activations_per_layer(&in) / sel_sp > 5);
}

/* Hand-computed: N 1e9, L 2, h 1024, a 16, s 1024, b 1, one GPU, Adam, BF16. */
static void test_memplan_small(void)
{
	struct gw_memplan_in in = {
	    .model = {.params = 1e9, .layers = 2, .hidden = 1024, .heads = 16, .seq = 1024},
	    .micro_batch = 1,
	    .gpus = 1,
	    .gpu_memory_bytes = 16e9};
	struct gw_memplan r;
	const char *why;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.params_bytes, 2e9, 1);
	CHECK_DBL_NEAR(r.grads_bytes, 2e9, 1);
	CHECK_DBL_NEAR(r.optimizer_bytes, 12e9, 1);
	/* 1024 x 1024 x (34 + 5 x 16 x 1024 / 1024) = 119,537,664 a layer */
	CHECK_DBL_NEAR(r.activations_per_layer_bytes, 119537664, 1);
	CHECK_DBL_NEAR(r.activations_bytes, 2 * 119537664.0, 1);
	CHECK_DBL_NEAR(r.total_bytes, 16e9 + 2 * 119537664.0, 1);
	CHECK(!r.fits);
	CHECK_INT_EQ(r.max_micro_batch, 0);
	in.gpu_memory_bytes = 20e9;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK(r.fits);
	CHECK_INT_EQ(r.max_micro_batch, 16); /* 4e9 / 239,075,328 = 16.7 */
	/* reserves: 1 GB context, 10 % of what is allocated */
	in.context_bytes = 1e9;
	in.frag_fraction = 0.1;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.total_bytes, 1e9 + 1.1 * (16e9 + 2 * 119537664.0), 1);
	/* SGD and 8-bit Adam keep 4 + 4 and 4 + 2 bytes of optimizer state */
	in.optimizer = GW_OPT_SGD;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.optimizer_bytes, 8e9, 1);
	in.optimizer = GW_OPT_ADAM8BIT;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.optimizer_bytes, 6e9, 1);
	/* pipeline: the first stage holds pp micro-batches of L / pp layers; tp and pp split the weights */
	in = (struct gw_memplan_in){.model = in.model, .micro_batch = 1, .gpus = 4, .tp = 2, .pp = 2};
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.params_bytes, 2e9 / 4, 1);
	CHECK_DBL_NEAR(r.activations_bytes, 1024.0 * 1024 * (10 + 12 + 40) * 2, 1);
	CHECK_INT_EQ(r.dp, 1);
}

static void test_memplan_inference(void)
{
	/* Llama 3 8B: 32 layers x 8 KV heads x 128 dims x 2 (K, V) x 2 bytes = 128 KiB a token */
	struct gw_memplan_in in = {.model = gw_model_preset_find("llama3-8b")->shape,
				   .micro_batch = 4,
				   .gpus = 1,
				   .inference = true,
				   .context = 8192};
	struct gw_memplan r;
	const char *why;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.kv_cache_bytes, 4.0 * 8192 * 131072, 1);
	CHECK_DBL_NEAR(r.model_states_bytes, 2 * 8.03e9, 1);
	CHECK_DBL_NEAR(r.activations_bytes, 0, 0);
	in.dtype = GW_DT_FP8;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), 0);
	CHECK_DBL_NEAR(r.kv_cache_bytes, 2.0 * 8192 * 131072, 1);
}

static void test_memplan_bad(void)
{
	struct gw_memplan_in in = {
	    .model = {.params = 1e9, .layers = 2, .hidden = 1024, .heads = 16, .seq = 1024},
	    .micro_batch = 1,
	    .gpus = 3,
	    .tp = 2};
	struct gw_memplan r;
	const char *why = NULL;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), GW_EINVAL);
	CHECK(why && strstr(why, "multiple"));
	in.gpus = 2;
	in.zero = 4;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), GW_EINVAL);
	in.zero = 0;
	in.model.heads = 3;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), GW_EINVAL);
	in.model.heads = 16;
	in.tp = 1;
	in.sequence_parallel = true;
	CHECK_INT_EQ(gw_memplan_compute(&in, &r, &why), GW_EINVAL);
}

/* y = 3t + 7 with two wild outliers: Theil-Sen keeps the slope; least squares would not. */
static void test_theil_sen(void)
{
	double t[10], y[10];
	for (int i = 0; i < 10; i++) {
		t[i] = i;
		y[i] = 3.0 * i + 7;
	}
	y[4] = 1000;
	y[7] = -50;
	double *scratch = malloc(gw_trend_scratch(10) * sizeof(double));
	double slope = 0, level = 0;
	CHECK_INT_EQ(gw_trend_theil_sen(t, y, 10, scratch, &slope, &level), 0);
	CHECK_DBL_NEAR(slope, 3, 1e-12);
	CHECK_DBL_NEAR(level, 34, 1e-12);
	CHECK_DBL_NEAR(gw_trend_time_to(level, slope, 100), 22, 1e-12);
	CHECK_DBL_NEAR(gw_trend_time_to(level, 0, 100), -1, 0);
	CHECK_DBL_NEAR(gw_trend_time_to(level, -1, 100), -1, 0);
	CHECK_DBL_NEAR(gw_trend_time_to(120, 3, 100), 0, 0);
	/* flat with noise: slope 0 */
	double flat[6] = {5, 5, 5, 6, 5, 5};
	CHECK_INT_EQ(gw_trend_theil_sen(t, flat, 6, scratch, &slope, &level), 0);
	CHECK_DBL_NEAR(slope, 0, 0);
	CHECK_DBL_NEAR(level, 5, 0);
	/* one time only: no trend */
	double same[3] = {1, 1, 1};
	CHECK_INT_EQ(gw_trend_theil_sen(same, y, 3, scratch, &slope, &level), GW_EINVAL);
	CHECK_INT_EQ(gw_trend_scratch(1), 1);
	CHECK_INT_EQ(gw_trend_scratch(10), 45);
	free(scratch);
}

/*
 * The forecast's rule: a leak of 3 MiB/s seen for 60 s of a 120 s window,
 * one point every 5 s with a spike and a free among them, 30,000 MiB of
 * 80,000 in use at the end: full in 50,000 MiB / 3 MiB/s = 16,666.7 s.
 */
static void test_time_to_full(void)
{
	const double mib = 1048576.0;
	double t[13], y[13], flat[13];
	for (int i = 0; i < 13; i++) {
		t[i] = 5.0 * i - 60;
		y[i] = (30000 + 3 * t[i]) * mib;
		flat[i] = 30000 * mib + (i % 2) * 4096; /* allocator noise */
	}
	y[3] += 8000 * mib; /* an evaluation's batch */
	y[9] -= 2000 * mib; /* a cache freed */
	double *scratch = malloc(gw_trend_scratch(13) * sizeof(double));
	CHECK_DBL_NEAR(gw_trend_time_to_full(t, y, 13, 120, 80000 * mib, scratch), 50000.0 / 3, 1e-6);
	/* not growing, or too little to tell */
	CHECK_DBL_NEAR(gw_trend_time_to_full(t, flat, 13, 120, 80000 * mib, scratch), -1, 0);
	CHECK_DBL_NEAR(gw_trend_time_to_full(t, y, 5, 120, 80000 * mib, scratch), -1, 0); /* 5 points */
	CHECK_DBL_NEAR(gw_trend_time_to_full(t + 6, y + 6, 7, 120, 80000 * mib, scratch), -1,
		       0); /* 30 s of 120 */
	CHECK_DBL_NEAR(gw_trend_time_to_full(t + 6, y + 6, 7, 60, 80000 * mib, scratch), 50000.0 / 3, 1e-6);
	/* growing under 1 MiB a window: noise */
	for (int i = 0; i < 13; i++)
		flat[i] = 30000 * mib + t[i] * 8000; /* 8 KB/s over 120 s: 0.9 MiB */
	CHECK_DBL_NEAR(gw_trend_time_to_full(t, flat, 13, 120, 80000 * mib, scratch), -1, 0);
	/* full already */
	CHECK_DBL_NEAR(gw_trend_time_to_full(t, y, 13, 120, 20000 * mib, scratch), 0, 0);
	free(scratch);
}

/* The forecast's ring: points of the window only, the oldest dropped past GW_TREND_POINTS, a gap restarts it.
 */
static void test_trend_ring(void)
{
	const double mib = 1048576.0;
	double *scratch = malloc(gw_trend_scratch(GW_TREND_POINTS) * sizeof(double));
	struct gw_trend_ring *r = calloc(1, sizeof(*r));
	double got = 0;
	/* 100 s flat, then 3 MiB/s: a 60 s window sees only the growth */
	for (int i = 0; i <= 200; i++) {
		double t = 1000 + i, y = (30000 + (i > 100 ? 3.0 * (i - 100) : 0)) * mib;
		got = gw_trend_ring_add(r, t, y, 80000 * mib, 60, scratch);
		if (i == 100)
			CHECK_DBL_NEAR(got, -1, 0); /* flat so far */
	}
	CHECK_INT_EQ(r->n, GW_TREND_POINTS);
	CHECK_DBL_NEAR(got, (80000.0 - 30300) / 3, 1e-6);
	r->n = 0; /* a gap */
	CHECK_DBL_NEAR(gw_trend_ring_add(r, 2000, 30000 * mib, 80000 * mib, 60, scratch), -1, 0);
	CHECK_INT_EQ(gw_trend_step_ms(600000, 1000), 5000);
	CHECK_INT_EQ(gw_trend_step_ms(4000, 1000), 1000);
	CHECK_INT_EQ(gw_trend_step_ms(4000, 0), 100);
	free(r);
	free(scratch);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median by selection equals the sorted one: random data, many ties, sizes 2..60. */
static void test_theil_sen_median(void)
{
	unsigned int seed = 12345;
	double t[60], y[60], sorted[1770], *scratch = malloc(gw_trend_scratch(60) * sizeof(double));
	for (int round = 0; round < 400; round++) {
		size_t n = 2 + (size_t)round % 59;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			t[i] = (double)(seed >> 16 & 7); /* repeated times: pairs skipped */
			seed = seed * 1103515245u + 12345u;
			y[i] = (double)((seed >> 16) % (round % 3 ? 5 : 1000));
		}
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (t[j] != t[i])
					sorted[m++] = (y[j] - y[i]) / (t[j] - t[i]);
		double slope, level;
		int rc = gw_trend_theil_sen(t, y, n, scratch, &slope, &level);
		CHECK_INT_EQ(rc, m ? 0 : GW_EINVAL);
		if (!m)
			continue;
		qsort(sorted, m, sizeof(double), cmp_dbl);
		double want = m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
		CHECK_DBL_NEAR(slope, want, 0);
	}
	free(scratch);
}

int main(void)
{
	RUN(test_palm_mfu);
	RUN(test_flops_per_token);
	RUN(test_megatron_hfu);
	RUN(test_peak_table);
	RUN(test_zero_figure1);
	RUN(test_korthikanti_table2);
	RUN(test_memplan_small);
	RUN(test_memplan_inference);
	RUN(test_memplan_bad);
	RUN(test_theil_sen);
	RUN(test_time_to_full);
	RUN(test_trend_ring);
	RUN(test_theil_sen_median);
	return harness_done();
}
