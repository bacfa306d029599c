/*
 * test_trainlive.c - live training efficiency from pushes
 * (analysis/trainlive.h): model_info read against a node's GPUs, with
 * each problem named; the window's rate over resets, gaps and its
 * cap; tokens a joule from energy counters; MFU as `mfu` computes it.
 */
#include "analysis/trainlive.h"

#include "harness.h"

#include <math.h>
#include <string.h>

static const struct gw_train_gpu node[] = {
    {0, "GPU-aaaa0000", "NVIDIA H100 80GB HBM3"},
    {1, "GPU-aaaa0001", "NVIDIA H100 80GB HBM3"},
    {2, "GPU-aaaa0002", "NVIDIA H100 80GB HBM3"},
    {3, "GPU-aaaa0003", "NVIDIA H100 80GB HBM3"},
};
#define NODE 4

static const struct gw_lpair llama8b[] = {
    {"params", "8.03e9"}, {"layers", "32"}, {"hidden", "4096"}, {"seq", "8192"}, {"job", "llama"},
};

static double h100_bf16(void)
{
	return gw_gpu_spec_find("H100")->peak[GW_DT_BF16];
}

/* A complete model_info: every GPU, PaLM's FLOPs a token, the peaks summed. */
static void test_info_complete(void)
{
	struct gw_train_info in;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_train_info_read(llama8b, 5, node, NODE, &in, &err), 0);
	CHECK(in.mfu_ok);
	CHECK_INT_EQ(in.ngpu, NODE);
	CHECK_INT_EQ(in.gpu[3], 3);
	CHECK_DBL_NEAR(in.peak, 4 * h100_bf16(), 1);
	CHECK_DBL_NEAR(in.flops.model_per_token, 6 * 8.03e9 + 12.0 * 32 * 4096 * 8192, 1);
	CHECK_DBL_NEAR(in.flops.hardware_per_token, in.flops.model_per_token, 1e-3);
	CHECK_INT_EQ(in.dtype, GW_DT_BF16);
	/* selective recomputation, fp8, two GPUs by index and UUID (one named twice), params with a suffix */
	const struct gw_lpair l[] = {
	    {"params", "8B"},		{"layers", "32"}, {"hidden", "4096"},		{"seq", "8192"},
	    {"recompute", "selective"}, {"dtype", "fp8"}, {"gpus", "1, gpu-AAAA0003,1"}};
	CHECK_INT_EQ(gw_train_info_read(l, 7, node, NODE, &in, &err), 0);
	CHECK_INT_EQ(in.ngpu, 2);
	CHECK_INT_EQ(in.gpu[0], 1);
	CHECK_INT_EQ(in.gpu[1], 3);
	CHECK_DBL_NEAR(in.shape.params, 8e9, 1);
	CHECK_DBL_NEAR(in.peak, 2 * gw_gpu_spec_find("H100")->peak[GW_DT_FP8], 1);
	CHECK_DBL_NEAR(in.flops.hardware_per_token - in.flops.model_per_token, 4.0 * 32 * 4096 * 8192, 1);
}

/* Each malformed model_info says why, and keeps the GPUs when it can (tokens a joule needs them). */
static void test_info_problems(void)
{
	static const struct {
		const char *name, *value; /* replaces or adds this label */
		const char *why;	  /* in the message */
		unsigned int ngpu;
	} cases[] = {
	    {"params", "", "params is missing", NODE},
	    {"params", "lots", "params \"lots\" is not a positive number", NODE},
	    {"layers", "0", "layers \"0\" is not a whole number", NODE},
	    {"seq", "8k", "seq \"8k\" is not a whole number", NODE},
	    {"gpus", "4", "gpus: \"4\" is no GPU here", 0},
	    {"gpus", "GPU-ffff", "gpus: \"GPU-ffff\" is no GPU here", 0},
	    {"gpus", " , ", "names no GPU", 0},
	    {"dtype", "int4", "dtype \"int4\" is unknown", NODE},
	    {"recompute", "some", "recompute \"some\" is unknown", NODE},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct gw_lpair l[6];
		size_t n = 0;
		for (size_t i = 0; i < 5; i++)
			if (strcmp(llama8b[i].name, cases[c].name) != 0)
				l[n++] = llama8b[i];
		l[n++] = (struct gw_lpair){cases[c].name, cases[c].value};
		struct gw_train_info in;
		struct gw_err err;
		gw_err_clear(&err);
		CHECK_INT_EQ(gw_train_info_read(l, n, node, NODE, &in, &err), GW_EINVAL);
		CHECK(!in.mfu_ok);
		CHECK_INT_EQ(in.ngpu, cases[c].ngpu);
		if (!strstr(err.msg, cases[c].why))
			CHECK_STR_EQ(err.msg, cases[c].why);
	}
	/* no model_info at all: every GPU, no shape */
	struct gw_train_info in;
	struct gw_err err;
	CHECK_INT_EQ(gw_train_info_read(NULL, 0, node, NODE, &in, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "no gpuwatch_training_model_info pushed") != NULL);
	CHECK_INT_EQ(in.ngpu, NODE);
	/* a GPU the peak table does not know, and one without the dtype's tensor path */
	const struct gw_train_gpu odd[] = {{0, "GPU-b0", "NVIDIA Quadro Foo"},
					   {1, "GPU-b1", "NVIDIA A100-SXM4-80GB"}};
	CHECK_INT_EQ(gw_train_info_read(llama8b, 5, odd, 2, &in, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "GPU 0 (NVIDIA Quadro Foo) is not in the peak table") != NULL);
	CHECK_INT_EQ(in.ngpu, 2);
	const struct gw_lpair fp8[] = {{"params", "8e9"}, {"layers", "32"}, {"hidden", "4096"},
				       {"seq", "8192"},	  {"dtype", "fp8"}, {"gpus", "1"}};
	CHECK_INT_EQ(gw_train_info_read(fp8, 6, odd, 2, &in, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "GPU 1 (A100) has no fp8 tensor peak") != NULL);
}

/* The rate over the window's pushes, a reset read as a restart from 0, MFU as gw_mfu_compute's. */
static void test_window_rate(void)
{
	struct gw_train_window w = {0};
	struct gw_train_values v;
	gw_train_window_add(&w, 1000, 100, false, 0, 0);
	gw_train_derive(&w, NULL, &v);
	CHECK(!v.has_rate); /* one push is no rate */
	gw_train_window_add(&w, 2000, 1100, false, 0, 0);
	gw_train_window_add(&w, 3000, 3100, false, 0, 0);
	gw_train_derive(&w, NULL, &v);
	CHECK(v.has_rate);
	CHECK_DBL_NEAR(v.tokens_per_s, 1500, 1e-9);
	CHECK(!v.has_mfu && !v.has_tpj);
	/* the job restarts: 3100 then 600 reads as 3100 + 600 */
	gw_train_window_add(&w, 4000, 600, false, 0, 0);
	gw_train_derive(&w, NULL, &v);
	CHECK_DBL_NEAR(v.tokens_per_s, (3700.0 - 100) / 3, 1e-9);
	/* a push in the same millisecond replaces the newest; junk is ignored */
	gw_train_window_add(&w, 4000, 900, false, 0, 0);
	gw_train_window_add(&w, 4500, NAN, false, 0, 0);
	gw_train_window_add(&w, 4500, -5, false, 0, 0);
	gw_train_derive(&w, NULL, &v);
	CHECK_DBL_NEAR(v.tokens_per_s, (4000.0 - 100) / 3, 1e-9);
	CHECK_INT_EQ(gw_train_window_last(&w), 4000);
	/* shown until five minutes without a push */
	CHECK(gw_train_window_fresh(&w, 4000 + GW_TRAIN_STALE_MS));
	CHECK(!gw_train_window_fresh(&w, 4001 + GW_TRAIN_STALE_MS));
	struct gw_train_window none = {0};
	CHECK(!gw_train_window_fresh(&none, 0));
	/* MFU: tokens/s x FLOPs a token over the peaks, as `mfu` computes it */
	struct gw_train_info in;
	struct gw_err err;
	CHECK_INT_EQ(gw_train_info_read(llama8b, 5, node, NODE, &in, &err), 0);
	gw_train_derive(&w, &in, &v);
	struct gw_mfu m;
	CHECK_INT_EQ(gw_mfu_compute(&in.shape, GW_RC_NONE, v.tokens_per_s, NODE, h100_bf16(), &m), 0);
	CHECK(v.has_mfu);
	CHECK_DBL_NEAR(v.mfu, m.mfu, 1e-12);
	CHECK_DBL_NEAR(v.hfu, m.hfu, 1e-12);
}

/* Pushes older than the window leave it, but the one before the newest always stays. */
static void test_window_span(void)
{
	struct gw_train_window w = {0};
	struct gw_train_values v;
	gw_train_window_add(&w, 0, 0, false, 0, 0);
	gw_train_window_add(&w, 600000, 60000, false, 0, 0); /* ten minutes later */
	gw_train_derive(&w, NULL, &v);
	CHECK_DBL_NEAR(v.tokens_per_s, 100, 1e-9);
	gw_train_window_add(&w, 630000, 63000, false, 0, 0);
	gw_train_window_add(&w, 690000, 75000, false, 0, 0); /* 600000 is now 90 s old, 630000 60 s */
	gw_train_derive(&w, NULL, &v);
	CHECK_DBL_NEAR(v.tokens_per_s, 200, 1e-9);
	/* more pushes than the ring holds: the oldest go, the rate stays */
	struct gw_train_window r = {0};
	for (int i = 0; i < 3 * GW_TRAIN_POINTS; i++)
		gw_train_window_add(&r, 100 * (int64_t)i, 50.0 * i, false, 0, 0);
	CHECK_INT_EQ(r.n, GW_TRAIN_POINTS);
	gw_train_derive(&r, NULL, &v);
	CHECK_DBL_NEAR(v.tokens_per_s, 500, 1e-9);
}

/* Tokens a joule: the rate over the mean power between the frames of the window's pushes. */
static void test_window_energy(void)
{
	struct gw_train_window w = {0};
	struct gw_train_values v;
	gw_train_window_add(&w, 1000, 0, true, 900, 1e6);
	gw_train_window_add(&w, 2000, 1000, true, 900, 1e6); /* the same frame: no power yet */
	gw_train_derive(&w, NULL, &v);
	CHECK(v.has_rate && !v.has_tpj);
	gw_train_window_add(&w, 3000, 3000, true, 2900, 1e6 + 2 * 400000); /* 400 W for 2 s */
	gw_train_derive(&w, NULL, &v);
	CHECK_DBL_NEAR(v.watts, 400, 1e-9);
	CHECK_DBL_NEAR(v.tokens_per_j, 1500.0 / 400, 1e-12);
	/* an unread energy on the newest push: no tokens a joule */
	gw_train_window_add(&w, 4000, 4500, false, 3900, 0);
	gw_train_derive(&w, NULL, &v);
	CHECK(v.has_rate && !v.has_tpj);
	/* a counter that went down (a GPU's restarted): only pushes after it count */
	gw_train_window_add(&w, 5000, 6000, true, 4900, 5000);
	gw_train_derive(&w, NULL, &v);
	CHECK(!v.has_tpj);
	gw_train_window_add(&w, 6000, 7500, true, 5900, 5000 + 250000);
	gw_train_derive(&w, NULL, &v);
	CHECK_DBL_NEAR(v.watts, 250, 1e-9);
	/* the GPUs changed: earlier sums are not comparable */
	gw_train_window_energy_reset(&w);
	gw_train_window_add(&w, 7000, 9000, true, 6900, 1e9);
	gw_train_derive(&w, NULL, &v);
	CHECK(!v.has_tpj);
}

static void test_count_parse(void)
{
	double v = 0;
	CHECK_INT_EQ(gw_count_parse("8B", &v), 0);
	CHECK_DBL_NEAR(v, 8e9, 0);
	CHECK_INT_EQ(gw_count_parse("1.5k", &v), 0);
	CHECK_DBL_NEAR(v, 1500, 0);
	CHECK_INT_EQ(gw_count_parse("7.03e10", &v), 0);
	CHECK_DBL_NEAR(v, 7.03e10, 0);
	CHECK_INT_EQ(gw_count_parse("0", &v), GW_EINVAL);
	CHECK_INT_EQ(gw_count_parse("-1", &v), GW_EINVAL);
	CHECK_INT_EQ(gw_count_parse("8BB", &v), GW_EINVAL);
	CHECK_INT_EQ(gw_count_parse("inf", &v), GW_EINVAL);
	CHECK_INT_EQ(gw_count_parse("", &v), GW_EINVAL);
}

int main(void)
{
	RUN(test_info_complete);
	RUN(test_info_problems);
	RUN(test_window_rate);
	RUN(test_window_span);
	RUN(test_window_energy);
	RUN(test_count_parse);
	return harness_done();
}
