/*
 * memplan.c - `gpuwatch memplan`: will a training or inference run fit in
 * each GPU's memory? Bytes per GPU by category (analysis/efficiency.h,
 * docs/EFFICIENCY.md), a verdict and the largest micro-batch that fits.
 */
#include "cmd/cmd.h"
#include "cmd/eff_args.h"

#include "api/json.h"
#include "core/buf.h"

#include <string.h>

#define CMD "memplan"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: gpuwatch memplan [options]\n\n"
	    "The memory a training (or, with --inference, serving) run needs on each GPU:\n"
	    "weights, gradients and optimizer state (ZeRO's accounting), activations\n"
	    "(Korthikanti et al. 2022), KV cache, CUDA context and fragmentation; whether it\n"
	    "fits, and the largest micro-batch that does. See docs/EFFICIENCY.md.\n\n" EFF_SHAPE_HELP
	    "\nRun:\n"
	    "  --micro-batch B      sequences per micro-batch on each GPU (default 1)\n"
	    "  --gpus N             all GPUs of the run (default: the GPUs present, or 1 with --gpu);\n"
	    "                       data parallel = N / (tp x pp)\n"
	    "  --tp N, --pp N       tensor and pipeline parallel sizes (default 1)\n"
	    "  --sequence-parallel  Megatron's sequence parallelism (needs --tp 2 or more)\n"
	    "  --zero 0..3          ZeRO stage over the data-parallel group (default 0)\n"
	    "  --dtype T            bf16 (default), fp16, fp8, tf32 (FP32 weights and activations)\n"
	    "  --optimizer O        adam (default: 16 bytes a parameter with BF16), adam8bit, sgd\n"
	    "  --recompute R        none (default), selective, full\n"
	    "  --flash-attention    the attention's s x s matrices are never stored\n"
	    "  --inference          weights and KV cache only, with\n"
	    "  --batch B            sequences served at once (default 1), and\n"
	    "  --context C          tokens each holds in the KV cache (default --seq)\n\n"
	    "Hardware and reserves:\n"
	    "  --gpu MODEL          H200, H100, A100, L40S, ... (default: the first GPU present;\n"
	    "                       works with --sim); its memory is NVML's memory.total\n"
	    "  --cuda-reserve-gib G CUDA context, cuBLAS and NCCL workspaces per GPU (default 1)\n"
	    "  --fragmentation F    allocator fragmentation, a fraction of what is allocated\n"
	    "                       (default 0.05)\n\n"
	    "Output:\n"
	    "  --format text|json   json: {\"model_states_bytes\", \"activations_bytes\", \"total_bytes\",\n"
	    "                       \"gpu_memory_bytes\", \"fits\", \"max_micro_batch\", ...}\n"
	    "  -h, --help           show this help\n\n"
	    "Exit status: 0 it fits, 1 it does not, 2 bad input.\n"
	    "Example: gpuwatch memplan --preset llama3-70b --gpu H100 --gpus 64 --tp 8 --zero 1 \\\n"
	    "           --sequence-parallel --recompute selective --flash-attention\n");
}

struct plan_args {
	struct gw_memplan_in in;
	const char *preset, *gpu;
	bool json, batch_given, micro_given;
};

static int enum_flag(const char *flag, const char *v, int (*parse)(const char *), const char *known, int *out)
{
	int d = parse(v);
	if (d < 0) {
		fprintf(stderr, "gpuwatch memplan: %s %s: unknown (%s)\n", flag, v, known);
		return -1;
	}
	*out = d;
	return 0;
}

/* A flag with a value; returns 0 or -1 (printed). */
static int value_flag(struct plan_args *a, const char *f, const char *v)
{
	struct gw_memplan_in *in = &a->in;
	double d;
	int e;
	if (!strcmp(f, "--micro-batch")) {
		a->micro_given = true;
		return eff_uint(CMD, f, v, 1, 1000000, &in->micro_batch);
	}
	if (!strcmp(f, "--batch")) {
		a->batch_given = true;
		return eff_uint(CMD, f, v, 1, 1000000, &in->micro_batch);
	}
	if (!strcmp(f, "--gpus"))
		return eff_uint(CMD, f, v, 1, 10000000, &in->gpus);
	if (!strcmp(f, "--tp"))
		return eff_uint(CMD, f, v, 1, 1024, &in->tp);
	if (!strcmp(f, "--pp"))
		return eff_uint(CMD, f, v, 1, 1024, &in->pp);
	if (!strcmp(f, "--zero"))
		return eff_uint(CMD, f, v, 0, 3, &in->zero);
	if (!strcmp(f, "--context"))
		return eff_uint(CMD, f, v, 1, 100000000, &in->context);
	if (!strcmp(f, "--gpu")) {
		a->gpu = v;
		return 0;
	}
	if (!strcmp(f, "--dtype")) {
		if (enum_flag(f, v, gw_dtype_parse, "bf16, fp16, fp8, tf32", &e))
			return -1;
		in->dtype = (enum gw_dtype)e;
		return 0;
	}
	if (!strcmp(f, "--optimizer")) {
		if (enum_flag(f, v, gw_optimizer_parse, "adam, adam8bit, sgd", &e))
			return -1;
		in->optimizer = (enum gw_optimizer)e;
		return 0;
	}
	if (!strcmp(f, "--recompute")) {
		if (enum_flag(f, v, gw_recompute_parse, "none, selective, full", &e))
			return -1;
		in->recompute = (enum gw_recompute)e;
		return 0;
	}
	if (!strcmp(f, "--cuda-reserve-gib")) {
		if (strcmp(v, "0") == 0) {
			in->context_bytes = 0;
			return 0;
		}
		if (eff_number(CMD, f, v, &d))
			return -1;
		in->context_bytes = d * 1073741824.0;
		return 0;
	}
	if (!strcmp(f, "--fragmentation")) {
		if (strcmp(v, "0") == 0) {
			in->frag_fraction = 0;
			return 0;
		}
		if (eff_number(CMD, f, v, &d) || d >= 1) {
			fprintf(stderr,
				"gpuwatch memplan: --fragmentation %s: a fraction from 0 to below 1\n", v);
			return -1;
		}
		in->frag_fraction = d;
		return 0;
	}
	if (!strcmp(f, "--format")) {
		a->json = !strcmp(v, "json");
		if (!a->json && strcmp(v, "text") != 0) {
			fprintf(stderr, "gpuwatch memplan: --format %s: unknown (text, json)\n", v);
			return -1;
		}
		return 0;
	}
	fprintf(stderr, "gpuwatch memplan: unknown option '%s'; see 'gpuwatch memplan --help'\n", f);
	return -1;
}

/* Returns 0, -1 after --help, or an exit code. */
static int parse(int argc, char **argv, struct plan_args *a)
{
	a->in.micro_batch = 1;
	a->in.context_bytes = 1073741824.0;
	a->in.frag_fraction = 0.05;
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *v;
		int r = eff_shape_flag(CMD, argc, argv, &i, &a->in.model, &a->preset);
		if (r < 0)
			return GW_EXIT_BADARG;
		if (r > 0)
			continue;
		if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
			usage(stdout);
			return -1;
		}
		if (!strcmp(f, "--sequence-parallel"))
			a->in.sequence_parallel = true;
		else if (!strcmp(f, "--flash-attention"))
			a->in.flash_attention = true;
		else if (!strcmp(f, "--inference"))
			a->in.inference = true;
		else if (f[0] != '-' || f[1] != '-') {
			fprintf(stderr,
				"gpuwatch memplan: unknown option '%s'; see 'gpuwatch memplan --help'\n", f);
			return GW_EXIT_BADARG;
		} else if (!(v = eff_value(CMD, argc, argv, &i)) || value_flag(a, f, v) != 0)
			return GW_EXIT_BADARG;
	}
	if (a->batch_given && !a->in.inference) {
		fprintf(stderr,
			"gpuwatch memplan: --batch is for --inference; training takes --micro-batch\n");
		return GW_EXIT_BADARG;
	}
	if (a->micro_given && a->in.inference) {
		fprintf(stderr, "gpuwatch memplan: --inference takes --batch, not --micro-batch\n");
		return GW_EXIT_BADARG;
	}
	return eff_shape_check(CMD, &a->in.model);
}

static void gib_row(const char *what, double bytes, const char *how)
{
	printf("  %-15s %9.2f GiB%s%s\n", what, bytes / 1073741824.0, *how ? "  " : "", how);
}

/* Korthikanti et al.'s per-layer formula this run uses (table 2). */
static const char *act_formula(const struct gw_memplan_in *in)
{
	bool no_attn = in->flash_attention || in->recompute == GW_RC_SELECTIVE;
	if (in->recompute == GW_RC_FULL)
		return in->sequence_parallel ? "L x 2sbh/t (full recompute)" : "L x 2sbh (full recompute)";
	if (in->sequence_parallel)
		return no_attn ? "L x sbh (34/t)" : "L x sbh (34/t + 5as/ht)";
	if ((in->tp ? in->tp : 1) > 1)
		return no_attn ? "L x sbh (10 + 24/t)" : "L x sbh (10 + 24/t + 5as/ht)";
	return no_attn ? "L x sbh 34" : "L x sbh (34 + 5as/h)";
}

static void print_text(const struct plan_args *a, const struct eff_gpu *g, const struct gw_memplan *r)
{
	const struct gw_memplan_in *in = &a->in;
	const struct gw_model_shape *m = &in->model;
	unsigned int tp = in->tp ? in->tp : 1, pp = in->pp ? in->pp : 1;
	printf("model        %s%sN = %.4g B parameters, L = %u, h = %u, a = %u, s = %u, V = %u\n",
	       a->preset ? a->preset : "", a->preset ? ": " : "", m->params / 1e9, m->layers, m->hidden,
	       m->heads, m->seq, m->vocab);
	printf("run          %s, %u GPU%s = data %u x tensor %u x pipeline %u",
	       in->inference ? "inference" : "training", in->gpus, in->gpus == 1 ? "" : "s", r->dp, tp, pp);
	if (!in->inference || in->zero)
		printf(", ZeRO %u", in->zero);
	printf("%s, %s", in->sequence_parallel ? ", sequence parallel" : "", gw_dtype_name(in->dtype));
	if (in->inference)
		printf(", batch %u, context %u\n", in->micro_batch, in->context ? in->context : m->seq);
	else
		printf(", %s, recompute %s%s, micro-batch %u\n", gw_optimizer_name(in->optimizer),
		       gw_recompute_name(in->recompute), in->flash_attention ? ", FlashAttention" : "",
		       in->micro_batch);
	printf("per GPU\n");
	gib_row("parameters", r->params_bytes,
		in->zero >= 3 ? "N / (tp pp dp) x bytes" : "N / (tp pp) x bytes");
	if (!in->inference) {
		gib_row("gradients", r->grads_bytes, in->zero >= 2 ? "split over dp (ZeRO 2)" : "");
		gib_row("optimizer", r->optimizer_bytes, in->zero >= 1 ? "split over dp (ZeRO 1)" : "");
		char how[96];
		bool logits = (in->pp ? in->pp : 1) == 1 && m->vocab;
		snprintf(how, sizeof(how), "%s%s", act_formula(in), logits ? " + output 4sb(h + V)/t" : "");
		gib_row("activations", r->activations_bytes, how);
	} else {
		gib_row("KV cache", r->kv_cache_bytes, "2 L b context kv_heads head_dim bytes");
	}
	gib_row("CUDA context", r->context_bytes, "--cuda-reserve-gib");
	gib_row("fragmentation", r->frag_bytes, "--fragmentation");
	gib_row("total", r->total_bytes, "");
	printf("GPU memory   %.2f GiB (%s)\n", r->gpu_memory_bytes / 1073741824.0, g->name);
	if (r->fits)
		printf("verdict      fits: %.0f %% of the GPU's memory\n",
		       100 * r->total_bytes / r->gpu_memory_bytes);
	else
		printf("verdict      does NOT fit: %.2f GiB over\n",
		       (r->total_bytes - r->gpu_memory_bytes) / 1073741824.0);
	printf("largest %s %u%s\n", in->inference ? "batch       " : "micro-batch ", r->max_micro_batch,
	       r->max_micro_batch ? "" : " (not even one: shard more, recompute, or a larger GPU)");
}

static void print_json(const struct plan_args *a, const struct eff_gpu *g, const struct gw_memplan *r)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	gw_buf_printf(
	    &b,
	    "{\"params_bytes\":%.0f,\"grads_bytes\":%.0f,\"optimizer_bytes\":%.0f,\"model_states_bytes\":%."
	    "0f,"
	    "\"activations_bytes\":%.0f,\"activations_per_layer_bytes\":%.0f,\"kv_cache_bytes\":%.0f,"
	    "\"cuda_context_bytes\":%.0f,\"fragmentation_bytes\":%.0f,\"total_bytes\":%.0f,"
	    "\"gpu_memory_bytes\":%.0f,\"fits\":%s,\"max_micro_batch\":%u,\"micro_batch\":%u,\"dp\":%u,"
	    "\"tp\":%u,\"pp\":%u,\"zero\":%u,\"gpus\":%u,\"inference\":%s,\"gpu\":",
	    r->params_bytes, r->grads_bytes, r->optimizer_bytes, r->model_states_bytes, r->activations_bytes,
	    r->activations_per_layer_bytes, r->kv_cache_bytes, r->context_bytes, r->frag_bytes,
	    r->total_bytes, r->gpu_memory_bytes, r->fits ? "true" : "false", r->max_micro_batch,
	    a->in.micro_batch, r->dp, a->in.tp ? a->in.tp : 1, a->in.pp ? a->in.pp : 1, a->in.zero,
	    a->in.gpus, a->in.inference ? "true" : "false");
	gw_json_str(&b, g->spec->key);
	gw_buf_puts(&b, ",\"gpu_name\":");
	gw_json_str(&b, g->name);
	gw_buf_printf(&b, ",\"dtype\":\"%s\",\"optimizer\":\"%s\",\"recompute\":\"%s\"}\n",
		      gw_dtype_name(a->in.dtype), gw_optimizer_name(a->in.optimizer),
		      gw_recompute_name(a->in.recompute));
	fwrite(b.data, 1, b.len, stdout);
	gw_buf_release(&b);
}

int gw_cmd_memplan(int argc, char **argv, const struct gw_cli *cli)
{
	struct plan_args a = {0};
	int rc = parse(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct eff_gpu g;
	if ((rc = eff_gpu_resolve(CMD, cli, a.gpu, &g)) != 0)
		return rc;
	if (!a.in.gpus)
		a.in.gpus = g.present ? g.present : 1;
	a.in.gpu_memory_bytes = g.memory_bytes;
	struct gw_memplan r;
	const char *why = NULL;
	if (gw_memplan_compute(&a.in, &r, &why) != 0) {
		fprintf(stderr, "gpuwatch memplan: %s\n", why ? why : "the input cannot describe a run");
		return GW_EXIT_BADARG;
	}
	if (a.json)
		print_json(&a, &g, &r);
	else
		print_text(&a, &g, &r);
	rc = gw_cli_finish_stdout();
	return rc ? rc : r.fits ? 0 : 1;
}
