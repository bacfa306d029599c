/*
 * tables.c - the GPU models' peak tensor throughput and memory, and the
 * shapes of well-known models, each row with its source.
 */
#include "analysis/efficiency.h"

#include "core/err.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIB(x) ((uint64_t)(x) << 20)
#define T(x) ((x)*1e12)

/*
 * Dense tensor-core FLOP/s: NVIDIA's data sheets give the rates "with
 * sparsity" first; these are the dense halves. Order matters for matching
 * NVML names: "L40S" before "L40" before "L4", "A100" before "A10".
 * Memory is what NVML reports as memory.total on the board (the
 * simulator's captures) where we have one, else the nominal size.
 */
static const struct gw_gpu_spec gpus[] = {
    {"H200",
     "H200",
     "NVIDIA H200 SXM 141GB",
     MIB(143771),
     {T(989.4), T(989.4), T(1978.9), T(494.7)},
     "NVIDIA H200 Tensor Core GPU data sheet (2024): BF16/FP16 1,979, FP8 3,958, TF32 989 TFLOPS with "
     "sparsity; "
     "dense = half"},
    {"H100",
     "H100 80GB HBM3",
     "NVIDIA H100 SXM5 80GB",
     MIB(81559),
     {T(989.4), T(989.4), T(1978.9), T(494.7)},
     "NVIDIA H100 Tensor Core GPU data sheet (2023), SXM: BF16/FP16 1,979, FP8 3,958, TF32 989 TFLOPS with "
     "sparsity; dense = half (132 SMs x 1,830 MHz x 4,096 FLOP/clock = 989.4 TFLOPS)"},
    {"H100-PCIE",
     "H100 PCIe",
     "NVIDIA H100 PCIe 80GB",
     MIB(81559),
     {T(756.5), T(756.5), T(1513), T(378)},
     "NVIDIA H100 Tensor Core GPU data sheet (2023), PCIe: BF16/FP16 1,513, FP8 3,026, TF32 756 TFLOPS with "
     "sparsity; dense = half"},
    {"A100",
     "A100",
     "NVIDIA A100 SXM4/PCIe",
     MIB(81920),
     {T(312), T(312), 0, T(156)},
     "NVIDIA A100 Tensor Core GPU data sheet (2021): BF16/FP16 312, TF32 156 TFLOPS dense (624/312 with "
     "sparsity); "
     "no FP8"},
    {"A10",
     "A10",
     "NVIDIA A10",
     MIB(23028),
     {T(125), T(125), 0, T(62.5)},
     "NVIDIA A10 data sheet: BF16/FP16 125, TF32 62.5 TFLOPS dense (250/125 with sparsity)"},
    {"L40S",
     "L40S",
     "NVIDIA L40S",
     MIB(46068),
     {T(362.05), T(362.05), T(733), T(183)},
     "NVIDIA L40S data sheet (2023): BF16/FP16 362.05 | 733, FP8 733 | 1,466, TF32 183 | 366 TFLOPS "
     "(dense | sparse)"},
    {"L40",
     "L40",
     "NVIDIA L40",
     MIB(46068),
     {T(181.05), T(181.05), T(362), T(90.5)},
     "NVIDIA L40 data sheet (2022): BF16/FP16 181.05 | 362.1, FP8 362 | 724, TF32 90.5 | 181 TFLOPS "
     "(dense | sparse)"},
    {"L4",
     "L4",
     "NVIDIA L4",
     MIB(23034),
     {T(121), T(121), T(242.5), T(60)},
     "NVIDIA L4 data sheet (2023): BF16/FP16 242, FP8 485, TF32 120 TFLOPS with sparsity; dense = half"},
    {"RTX4090",
     "RTX 4090",
     "NVIDIA GeForce RTX 4090",
     MIB(24564),
     {T(165.2), T(165.2), T(330.3), T(82.6)},
     "NVIDIA Ada Lovelace architecture whitepaper v1.1, appendix A: FP16/BF16 with FP32 accumulate 165.2, "
     "FP8 "
     "330.3, TF32 82.6 TFLOPS dense (GeForce rates)"},
    {"RTX4080S",
     "RTX 4080 SUPER",
     "NVIDIA GeForce RTX 4080 SUPER",
     MIB(16376),
     {T(104.4), T(104.4), T(208.9), T(52.2)},
     "derived as the Ada whitepaper's RTX 4080 rates (97.5 TFLOPS FP16/BF16 with FP32 accumulate = 76 SMs x "
     "2,505 MHz x 512 FLOP/clock): 80 SMs x 2,550 MHz x 512; FP8 twice, TF32 half; NVIDIA's 836 AI TOPS "
     "(FP8, sparse, FP16 accumulate) agrees"},
    {"RTX2080S",
     "RTX 2080 SUPER",
     "NVIDIA GeForce RTX 2080 SUPER",
     MIB(8192),
     {0, T(44.6), 0, 0},
     "derived from the Turing whitepaper's rates (GeForce FP16 with FP32 accumulate: 512 FLOP/clock/SM): 48 "
     "SMs x "
     "1,815 MHz x 512 = 44.6 TFLOPS; Turing has no BF16, FP8 or TF32"},
    {"V100",
     "V100",
     "NVIDIA Tesla V100 SXM2",
     MIB(32768),
     {0, T(125), 0, 0},
     "NVIDIA Tesla V100 data sheet: 125 TFLOPS tensor (FP16); no BF16, FP8 or TF32"},
};

const struct gw_gpu_spec *gw_gpu_specs(size_t *n)
{
	*n = sizeof(gpus) / sizeof(gpus[0]);
	return gpus;
}

const struct gw_gpu_spec *gw_gpu_spec_find(const char *s)
{
	size_t n = sizeof(gpus) / sizeof(gpus[0]);
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(s, gpus[i].key) == 0)
			return &gpus[i];
	for (size_t i = 0; i < n; i++) {
		/* "L4" must not match "L40S": the match ends at a word's end */
		size_t ml = strlen(gpus[i].match);
		for (const char *at = strstr(s, gpus[i].match); at; at = strstr(at + 1, gpus[i].match))
			if (at[ml] == '\0' || at[ml] == ' ' || at[ml] == '-')
				return &gpus[i];
	}
	return NULL;
}

/* Shapes from the models' published configurations. */
static const struct gw_model_preset presets[] = {
    {"llama3-8b",
     {.params = 8.03e9,
      .layers = 32,
      .hidden = 4096,
      .heads = 32,
      .kv_heads = 8,
      .seq = 8192,
      .vocab = 128256},
     "Meta Llama 3 8B config.json; 8.03B parameters"},
    {"llama3-70b",
     {.params = 70.6e9,
      .layers = 80,
      .hidden = 8192,
      .heads = 64,
      .kv_heads = 8,
      .seq = 8192,
      .vocab = 128256},
     "Meta Llama 3 70B config.json; 70.6B parameters"},
    {"llama3-405b",
     {.params = 405.9e9,
      .layers = 126,
      .hidden = 16384,
      .heads = 128,
      .kv_heads = 8,
      .seq = 8192,
      .vocab = 128256},
     "Meta Llama 3.1 405B config.json; The Llama 3 Herd of Models (2024), table 3"},
    {"llama2-7b",
     {.params = 6.74e9,
      .layers = 32,
      .hidden = 4096,
      .heads = 32,
      .kv_heads = 32,
      .seq = 4096,
      .vocab = 32000},
     "Touvron et al. 2023, Llama 2, table 1; config.json"},
    {"gpt3-175b",
     {.params = 175e9,
      .layers = 96,
      .hidden = 12288,
      .heads = 96,
      .kv_heads = 96,
      .seq = 2048,
      .vocab = 51200},
     "Brown et al. 2020, table 2.1; Narayanan et al. 2021, table 1 (vocabulary 51,200)"},
    {"palm-540b",
     {.params = 540.35e9,
      .layers = 118,
      .hidden = 18432,
      .heads = 48,
      .kv_heads = 1,
      .seq = 2048,
      .vocab = 256000,
      .head_dim = 256},
     "Chowdhery et al. 2022 (PaLM), table 1 and appendix B: 48 heads of 256 (multi-query: one key/value "
     "head)"},
};

const struct gw_model_preset *gw_model_presets(size_t *n)
{
	*n = sizeof(presets) / sizeof(presets[0]);
	return presets;
}

const struct gw_model_preset *gw_model_preset_find(const char *key)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcasecmp(key, presets[i].key) == 0)
			return &presets[i];
	return NULL;
}

/* ---- enum names ------------------------------------------------------------------ */

static const char *const dtypes[] = {"bf16", "fp16", "fp8", "tf32"};
static const char *const recomputes[] = {"none", "selective", "full"};
static const char *const optimizers[] = {"adam", "adam8bit", "sgd"};

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	return -1;
}

int gw_dtype_parse(const char *s)
{
	return lookup(dtypes, GW_DT__COUNT, s);
}

const char *gw_dtype_name(enum gw_dtype d)
{
	return dtypes[d];
}

int gw_recompute_parse(const char *s)
{
	return lookup(recomputes, 3, s);
}

const char *gw_recompute_name(enum gw_recompute r)
{
	return recomputes[r];
}

int gw_optimizer_parse(const char *s)
{
	return lookup(optimizers, 3, s);
}

const char *gw_optimizer_name(enum gw_optimizer o)
{
	return optimizers[o];
}

int gw_count_parse(const char *s, double *out)
{
	static const struct {
		char c;
		double mul;
	} suffix[] = {{'K', 1e3}, {'M', 1e6}, {'B', 1e9}, {'G', 1e9}, {'T', 1e12}};
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end != s && *end) {
		for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++)
			if ((*end == suffix[k].c || *end == suffix[k].c + 32) && end[1] == '\0') {
				v *= suffix[k].mul;
				end++;
				break;
			}
	}
	if (end == s || *end || errno || !isfinite(v) || v <= 0)
		return GW_EINVAL;
	*out = v;
	return 0;
}
