/*
 * mfu.c - `gpuwatch mfu`: model and hardware FLOPs utilisation of a
 * training run from its shape and throughput, with the formulas shown
 * (analysis/efficiency.h, docs/EFFICIENCY.md).
 */
#include "cmd/cmd.h"
#include "cmd/eff_args.h"

#include "api/json.h"
#include "core/buf.h"

#include <string.h>

#define CMD "mfu"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuwatch mfu [options]\n\n"
		"Model FLOPs utilisation (MFU) and hardware FLOPs utilisation (HFU) of a training\n"
		"run: achieved FLOP/s per GPU against the GPU's peak dense tensor FLOP/s.\n"
		"FLOPs per token are PaLM's (appendix B): 6N + 12 L H Q T; HFU adds what is\n"
		"recomputed. See docs/EFFICIENCY.md.\n\n" EFF_SHAPE_HELP "\nThroughput (one of):\n"
		"  --tokens-per-s X     tokens per second over all --gpus\n"
		"  --step-time S        seconds per optimizer step, with\n"
		"  --global-batch B     sequences per step (tokens = B x --seq)\n"
		"  --agent URL --throughput QUERY\n"
		"                       live: the one value of a PromQL QUERY at an agent the job\n"
		"                       pushes to (--web.enable-push) or a Prometheus, e.g.\n"
		"                       'sum(train_tokens_per_second{job=\"llama3-8b\"})'\n\n"
		"Hardware:\n"
		"  --gpus N             GPUs the throughput is over (default: the GPUs present,\n"
		"                       or 1 with --gpu)\n"
		"  --gpu MODEL          H200, H100, H100-PCIE, A100, A10, L40S, L40, L4, RTX4090,\n"
		"                       RTX4080S, RTX2080S, V100 (default: read from the GPUs present;\n"
		"                       works with --sim)\n"
		"  --dtype T            bf16 (default), fp16, fp8, tf32: the peak it is measured against\n"
		"  --recompute R        none (default), selective, full\n\n"
		"Output:\n"
		"  --format text|json   json: {\"mfu\", \"hfu\", \"flops_per_token\", "
		"\"peak_flops_per_gpu\", ...}\n"
		"  -h, --help           show this help\n\n"
		"Example: gpuwatch mfu --preset llama3-70b --gpu H100 --gpus 64 --tokens-per-s 52000\n");
}

struct mfu_args {
	struct gw_model_shape m;
	const char *preset, *gpu, *agent, *query;
	double tokens_per_s, step_time, global_batch;
	unsigned int gpus;
	enum gw_dtype dtype;
	enum gw_recompute rc;
	bool json;
};

/* Returns 0, -1 after --help, or an exit code. */
static int parse(int argc, char **argv, struct mfu_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *v;
		int r = eff_shape_flag(CMD, argc, argv, &i, &a->m, &a->preset);
		if (r < 0)
			return GW_EXIT_BADARG;
		if (r > 0)
			continue;
		if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
			usage(stdout);
			return -1;
		}
		bool known = !strcmp(f, "--tokens-per-s") || !strcmp(f, "--step-time") ||
			     !strcmp(f, "--global-batch") || !strcmp(f, "--gpus") || !strcmp(f, "--gpu") ||
			     !strcmp(f, "--dtype") || !strcmp(f, "--recompute") || !strcmp(f, "--format") ||
			     !strcmp(f, "--agent") || !strcmp(f, "--throughput");
		if (!known) {
			fprintf(stderr, "gpuwatch mfu: unknown option '%s'; see 'gpuwatch mfu --help'\n", f);
			return GW_EXIT_BADARG;
		}
		if (!(v = eff_value(CMD, argc, argv, &i)))
			return GW_EXIT_BADARG;
		int bad = 0;
		if (!strcmp(f, "--tokens-per-s"))
			bad = eff_number(CMD, f, v, &a->tokens_per_s);
		else if (!strcmp(f, "--step-time"))
			bad = eff_number(CMD, f, v, &a->step_time);
		else if (!strcmp(f, "--global-batch"))
			bad = eff_number(CMD, f, v, &a->global_batch);
		else if (!strcmp(f, "--gpus"))
			bad = eff_uint(CMD, f, v, 1, 10000000, &a->gpus);
		else if (!strcmp(f, "--gpu"))
			a->gpu = v;
		else if (!strcmp(f, "--agent"))
			a->agent = v;
		else if (!strcmp(f, "--throughput"))
			a->query = v;
		else if (!strcmp(f, "--dtype")) {
			int d = gw_dtype_parse(v);
			if (d < 0)
				fprintf(stderr, "gpuwatch mfu: --dtype %s: unknown (bf16, fp16, fp8, tf32)\n",
					v);
			bad = d < 0 ? -1 : 0;
			a->dtype = d < 0 ? GW_DT_BF16 : (enum gw_dtype)d;
		} else if (!strcmp(f, "--recompute")) {
			int d = gw_recompute_parse(v);
			if (d < 0)
				fprintf(stderr,
					"gpuwatch mfu: --recompute %s: unknown (none, selective, full)\n", v);
			bad = d < 0 ? -1 : 0;
			a->rc = d < 0 ? GW_RC_NONE : (enum gw_recompute)d;
		} else {
			a->json = !strcmp(v, "json");
			if (!a->json && strcmp(v, "text") != 0) {
				fprintf(stderr, "gpuwatch mfu: --format %s: unknown (text, json)\n", v);
				bad = -1;
			}
		}
		if (bad)
			return GW_EXIT_BADARG;
	}
	int rc = eff_shape_check(CMD, &a->m);
	if (rc)
		return rc;
	if (!a->agent != !a->query) {
		fprintf(stderr, "gpuwatch mfu: --agent and --throughput go together\n");
		return GW_EXIT_BADARG;
	}
	if (a->query && (a->tokens_per_s > 0 || a->step_time > 0)) {
		fprintf(stderr,
			"gpuwatch mfu: give one throughput: --throughput, --tokens-per-s or --step-time\n");
		return GW_EXIT_BADARG;
	}
	if (a->query)
		return 0; /* read after the GPU is known, so bad flags fail before any request */
	if (a->tokens_per_s > 0 && a->step_time > 0) {
		fprintf(stderr,
			"gpuwatch mfu: give --tokens-per-s or --step-time with --global-batch, not both\n");
		return GW_EXIT_BADARG;
	}
	if (a->step_time > 0 || a->global_batch > 0) {
		if (!(a->step_time > 0 && a->global_batch > 0)) {
			fprintf(stderr, "gpuwatch mfu: --step-time and --global-batch go together\n");
			return GW_EXIT_BADARG;
		}
		a->tokens_per_s = a->global_batch * a->m.seq / a->step_time;
	}
	if (!(a->tokens_per_s > 0)) {
		fprintf(stderr,
			"gpuwatch mfu: the throughput is missing: --tokens-per-s X, or --step-time S with "
			"--global-batch B\n");
		return GW_EXIT_BADARG;
	}
	return 0;
}

static void print_json(const struct mfu_args *a, const struct eff_gpu *g, const struct gw_mfu *r)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	gw_buf_printf(
	    &b,
	    "{\"mfu\":%.6g,\"hfu\":%.6g,\"flops_per_token\":%.10g,\"hardware_flops_per_token\":%.10g,"
	    "\"peak_flops_per_gpu\":%.10g,\"achieved_flops_per_gpu\":%.10g,\"tokens_per_s\":%.10g,"
	    "\"gpus\":%u,\"gpu\":",
	    r->mfu, r->hfu, r->flops.model_per_token, r->flops.hardware_per_token, r->peak_per_gpu,
	    r->achieved_per_gpu, r->tokens_per_s, r->gpus);
	gw_json_str(&b, g->spec->key);
	gw_buf_puts(&b, ",\"gpu_name\":");
	gw_json_str(&b, g->name);
	gw_buf_printf(&b, ",\"dtype\":\"%s\",\"recompute\":\"%s\",\"model\":{\"preset\":",
		      gw_dtype_name(a->dtype), gw_recompute_name(a->rc));
	if (a->preset)
		gw_json_str(&b, a->preset);
	else
		gw_buf_puts(&b, "null");
	gw_buf_printf(&b, ",\"params\":%.10g,\"layers\":%u,\"hidden\":%u,\"heads\":%u,\"seq\":%u}}\n",
		      a->m.params, a->m.layers, a->m.hidden, a->m.heads, a->m.seq);
	fwrite(b.data, 1, b.len, stdout);
	gw_buf_release(&b);
}

static void print_text(const struct mfu_args *a, const struct eff_gpu *g, const struct gw_mfu *r)
{
	const struct gw_model_shape *m = &a->m;
	double hq = m->head_dim ? (double)m->heads * m->head_dim : m->hidden;
	double attn = 12.0 * m->layers * hq * m->seq;
	printf("model        %s%sN = %.4g B parameters, L = %u layers, H x Q = %.0f, T = %u tokens\n",
	       a->preset ? a->preset : "", a->preset ? ": " : "", m->params / 1e9, m->layers, hq, m->seq);
	printf("GPUs         %u x %s: peak %.1f TFLOP/s dense %s each\n", r->gpus, g->name,
	       r->peak_per_gpu / 1e12, gw_dtype_name(a->dtype));
	printf("             (%s)\n", g->spec->source);
	printf("throughput   %.6g tokens/s (%.6g per GPU)\n", r->tokens_per_s, r->tokens_per_s / r->gpus);
	if (a->query)
		printf("             live: %s at %s\n", a->query, a->agent);
	printf("FLOPs/token  6N + 12 L H Q T = %.4e + %.4e = %.4e  (PaLM, appendix B)\n", 6 * m->params, attn,
	       r->flops.model_per_token);
	if (a->rc != GW_RC_NONE)
		printf("             recompute %s: + %s = %.4e hardware FLOPs/token\n",
		       gw_recompute_name(a->rc), a->rc == GW_RC_FULL ? "2N + 4 L H Q T" : "4 L H Q T",
		       r->flops.hardware_per_token);
	printf("achieved     %.1f TFLOP/s per GPU (model FLOPs)\n", r->achieved_per_gpu / 1e12);
	printf("MFU          %.1f %%  = tokens/s x FLOPs/token / (GPUs x peak)\n", 100 * r->mfu);
	printf("HFU          %.1f %%%s\n", 100 * r->hfu,
	       a->rc == GW_RC_NONE ? "  (nothing recomputed: = MFU)" : "");
	printf("reference    large A100 clusters reach 50-60 %% MFU; H100 runs typically stay under 50 %%\n");
	if (r->mfu > 1)
		printf("note         over 100 %%: the throughput, GPU count or model size is wrong\n");
}

int gw_cmd_mfu(int argc, char **argv, const struct gw_cli *cli)
{
	struct mfu_args a = {0};
	int rc = parse(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct eff_gpu g;
	if ((rc = eff_gpu_resolve(CMD, cli, a.gpu, &g)) != 0)
		return rc;
	if (a.query && (rc = eff_live_tokens(CMD, a.agent, a.query, &a.tokens_per_s)) != 0)
		return rc;
	if (!a.gpus)
		a.gpus = g.present ? g.present : 1;
	double peak = g.spec->peak[a.dtype];
	if (!(peak > 0)) {
		fprintf(stderr, "gpuwatch mfu: %s has no %s tensor path; choose another --dtype\n",
			g.spec->key, gw_dtype_name(a.dtype));
		return GW_EXIT_BADARG;
	}
	struct gw_mfu r;
	if (gw_mfu_compute(&a.m, a.rc, a.tokens_per_s, a.gpus, peak, &r) != 0) {
		fprintf(stderr, "gpuwatch mfu: cannot compute: check the inputs\n");
		return GW_EXIT_BADARG;
	}
	if (a.json)
		print_json(&a, &g, &r);
	else
		print_text(&a, &g, &r);
	return gw_cli_finish_stdout();
}
