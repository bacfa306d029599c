/*
 * eff_args.h - what `gpuwatch mfu` and `gpuwatch memplan` share: the model
 * shape flags (--preset, --params, --layers, ...), numbers with K/M/B/T
 * suffixes, and the GPU model, from --gpu or from the GPUs present (read
 * through the NVML binding, so --sim works).
 *
 * Errors are printed here on standard error as "gpuwatch CMD: ..." and
 * returned as exit code 2; the callers print everything else.
 */
#ifndef GW_CMD_EFF_ARGS_H
#define GW_CMD_EFF_ARGS_H

#include "analysis/efficiency.h"
#include "cmd/cmd.h"

struct eff_gpu {
	const struct gw_gpu_spec *spec;
	char name[96];	      /* NVML's name, or the table's */
	double memory_bytes;  /* NVML's memory.total of the first GPU, or the table's */
	unsigned int present; /* GPUs NVML lists; 0 with --gpu */
};

/*
 * If argv[*i] is a model shape flag, take it (and its value, advancing *i)
 * into m, and return 1; 0 when it is not one; -1 (after printing why) when
 * its value is bad. --preset fills every field; flags given after it
 * override one each.
 */
int eff_shape_flag(const char *cmd, int argc, char **argv, int *i, struct gw_model_shape *m,
		   const char **preset);

/* The value of flag argv[*i] (advancing *i), or NULL after printing that it needs one. */
const char *eff_value(const char *cmd, int argc, char **argv, int *i);

/* A positive number with an optional K, M, B/G or T suffix ("8B", "1.2e5"); -1 after printing why. */
int eff_number(const char *cmd, const char *flag, const char *s, double *out);
int eff_uint(const char *cmd, const char *flag, const char *s, unsigned int min, unsigned int max,
	     unsigned int *out);

/* Say which shape fields are missing; 0 when complete, else 2 (printed). */
int eff_shape_check(const char *cmd, const struct gw_model_shape *m);

/* --gpu KEY, else the first GPU NVML lists. Returns 0 or an exit code (printed). */
int eff_gpu_resolve(const char *cmd, const struct gw_cli *cli, const char *key, struct eff_gpu *out);

/*
 * Live throughput (eff_live.c): the one value of QUERY at an agent's (or a
 * Prometheus') query API at url, tokens a second. 0, or an exit code (printed).
 */
int eff_live_tokens(const char *cmd, const char *url, const char *query, double *tokens_per_s);

/* The shape's lines of --help. */
#define EFF_SHAPE_HELP                                                                                       \
	"Model shape (a preset, or each of them; flags after --preset override it):\n"                       \
	"  --preset NAME        llama3-8b, llama3-70b, llama3-405b, llama2-7b, gpt3-175b, palm-540b\n"       \
	"  --params N           parameters (8e9, 8B, 175B)\n"                                                \
	"  --layers L           transformer layers\n"                                                        \
	"  --hidden H           hidden size\n"                                                               \
	"  --heads A            attention heads\n"                                                           \
	"  --kv-heads K         key/value heads (grouped-query attention; default: --heads)\n"               \
	"  --head-dim Q         attention head dimension (default: hidden / heads)\n"                        \
	"  --seq T              sequence length in tokens\n"                                                 \
	"  --vocab V            vocabulary size (memplan: the output layer's activations)\n"

#endif
