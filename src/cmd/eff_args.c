/*
 * eff_args.c - the flags `mfu` and `memplan` share (eff_args.h).
 */
#include "cmd/eff_args.h"

#include "fields/fields.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *eff_value(const char *cmd, int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "gpuwatch %s: %s needs a value; see 'gpuwatch %s --help'\n", cmd, argv[*i],
			cmd);
		return NULL;
	}
	return argv[++*i];
}

int eff_number(const char *cmd, const char *flag, const char *s, double *out)
{
	if (gw_count_parse(s, out) != 0) {
		fprintf(stderr, "gpuwatch %s: %s %s: not a positive number (e.g. 8e9, 8B, 1.5K)\n", cmd, flag,
			s);
		return -1;
	}
	return 0;
}

int eff_uint(const char *cmd, const char *flag, const char *s, unsigned int min, unsigned int max,
	     unsigned int *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end || errno || s[0] == '-' || v < min || v > max) {
		fprintf(stderr, "gpuwatch %s: %s %s: not a whole number from %u to %u\n", cmd, flag, s, min,
			max);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

int eff_shape_flag(const char *cmd, int argc, char **argv, int *i, struct gw_model_shape *m,
		   const char **preset)
{
	static const struct {
		const char *flag;
		size_t off; /* of an unsigned int in the shape; params is the double */
	} uints[] = {
	    {"--layers", offsetof(struct gw_model_shape, layers)},
	    {"--hidden", offsetof(struct gw_model_shape, hidden)},
	    {"--heads", offsetof(struct gw_model_shape, heads)},
	    {"--kv-heads", offsetof(struct gw_model_shape, kv_heads)},
	    {"--head-dim", offsetof(struct gw_model_shape, head_dim)},
	    {"--seq", offsetof(struct gw_model_shape, seq)},
	    {"--vocab", offsetof(struct gw_model_shape, vocab)},
	};
	const char *a = argv[*i], *v;
	if (strcmp(a, "--preset") == 0) {
		if (!(v = eff_value(cmd, argc, argv, i)))
			return -1;
		const struct gw_model_preset *p = gw_model_preset_find(v);
		if (!p) {
			size_t n;
			const struct gw_model_preset *all = gw_model_presets(&n);
			fprintf(stderr, "gpuwatch %s: --preset %s: unknown model (known:", cmd, v);
			for (size_t k = 0; k < n; k++)
				fprintf(stderr, "%s %s", k ? "," : "", all[k].key);
			fprintf(stderr, ")\n");
			return -1;
		}
		*m = p->shape;
		*preset = p->key;
		return 1;
	}
	if (strcmp(a, "--params") == 0) {
		if (!(v = eff_value(cmd, argc, argv, i)) || eff_number(cmd, a, v, &m->params) != 0)
			return -1;
		return 1;
	}
	for (size_t k = 0; k < sizeof(uints) / sizeof(uints[0]); k++) {
		if (strcmp(a, uints[k].flag) != 0)
			continue;
		if (!(v = eff_value(cmd, argc, argv, i)) ||
		    eff_uint(cmd, a, v, 1, 100000000, (unsigned int *)((char *)m + uints[k].off)) != 0)
			return -1;
		return 1;
	}
	return 0;
}

int eff_shape_check(const char *cmd, const struct gw_model_shape *m)
{
	const char *missing = !(m->params > 0) ? "--params"
			      : !m->layers     ? "--layers"
			      : !m->hidden     ? "--hidden"
			      : !m->heads      ? "--heads"
			      : !m->seq	       ? "--seq"
					       : NULL;
	if (missing) {
		fprintf(
		    stderr,
		    "gpuwatch %s: the model's shape needs %s (or --preset NAME); see 'gpuwatch %s --help'\n",
		    cmd, missing, cmd);
		return GW_EXIT_BADARG;
	}
	if (m->hidden % m->heads && !m->head_dim) {
		fprintf(stderr, "gpuwatch %s: --hidden %u is not a multiple of --heads %u: give --head-dim\n",
			cmd, m->hidden, m->heads);
		return GW_EXIT_BADARG;
	}
	return 0;
}

static void known_gpus(void)
{
	size_t n;
	const struct gw_gpu_spec *all = gw_gpu_specs(&n);
	fprintf(stderr, "known:");
	for (size_t k = 0; k < n; k++)
		fprintf(stderr, "%s %s", k ? "," : "", all[k].key);
	fprintf(stderr, "\n");
}

/* memory.total of the first GPU, through the field table as smi reads it; 0 when unknown. */
static double memory_total(struct gw_nvml *nv, struct gw_gpu *gpu, unsigned int count)
{
	const struct gw_field *f = gw_field_find("memory.total");
	struct gw_read_ctx c = {.nv = nv, .gpu = gpu, .gpu_count = count};
	struct gw_value v = {0};
	clock_gettime(CLOCK_REALTIME, &c.now);
	if (!f || gw_field_read(f, &c, &v) != 0 || v.state != GW_V_OK)
		return 0;
	return v.kind == GW_VK_INT ? (double)v.i : v.d;
}

int eff_gpu_resolve(const char *cmd, const struct gw_cli *cli, const char *key, struct eff_gpu *out)
{
	memset(out, 0, sizeof(*out));
	if (key) {
		out->spec = gw_gpu_spec_find(key);
		if (!out->spec) {
			fprintf(stderr, "gpuwatch %s: --gpu %s: not in the peak table; ", cmd, key);
			known_gpus();
			return GW_EXIT_BADARG;
		}
		snprintf(out->name, sizeof(out->name), "%s", out->spec->name);
		out->memory_bytes = (double)out->spec->memory_bytes;
		return 0;
	}
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts o = {.sim = cli->sim};
	int rc = gw_nvml_open(&nv, &o, &err);
	if (rc) {
		fprintf(stderr,
			"gpuwatch %s: cannot read the GPU model: %s; give --gpu MODEL (or --sim SPEC)\n", cmd,
			err.msg[0] ? err.msg : gw_strerror(rc));
		return GW_EXIT_BADARG;
	}
	if (cli->sim)
		fprintf(stderr, "gpuwatch: SIMULATED GPUs (--sim %s), not real hardware\n", cli->sim);
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	rc = gw_nvml_gpus_list(nv, &gpus, &n, &err);
	if (rc || n == 0) {
		fprintf(stderr, "gpuwatch %s: %s; give --gpu MODEL\n", cmd,
			rc ? (err.msg[0] ? err.msg : gw_strerror(rc)) : "no GPU found");
		free(gpus);
		gw_nvml_close(nv);
		return GW_EXIT_BADARG;
	}
	snprintf(out->name, sizeof(out->name), "%s", gpus[0].name);
	out->present = n;
	out->spec = gw_gpu_spec_find(gpus[0].name);
	out->memory_bytes = memory_total(nv, &gpus[0], n);
	free(gpus);
	gw_nvml_close(nv);
	if (!out->spec) {
		fprintf(stderr, "gpuwatch %s: %s is not in the peak table; give --gpu MODEL; ", cmd,
			out->name);
		known_gpus();
		return GW_EXIT_BADARG;
	}
	if (!(out->memory_bytes > 0))
		out->memory_bytes = (double)out->spec->memory_bytes;
	return 0;
}
