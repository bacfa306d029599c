/*
 * cuda_ptx.c - the kernels of the CUDA tests as PTX text, JIT-compiled by
 * the driver (cuModuleLoadData) for whatever GPU it runs on (sm_70 and
 * newer). Every kernel walks its array with a grid-stride loop.
 *
 *   gw_fill(dst, n, seed)        dst[i] = i ^ seed            (u64 words)
 *   gw_check(dst, n, seed, errs) *errs += dst[i] != (i ^ seed)
 *   gw_copy(src, dst, n)         dst[i] = src[i]
 *   gw_fma(out, iters)           out[t] = two chains of 2 x iters FMAs on t (f32, compute bound)
 */
#include "diag/cuda_api.h"

/* i (%rd4) and stride (%rd6) of the grid-stride loop, in every kernel below. */
#define GRID_STRIDE                                                                                          \
	"	mov.u32 %r1, %ctaid.x;\n"                                                                          \
	"	mov.u32 %r2, %ntid.x;\n"                                                                           \
	"	mov.u32 %r3, %tid.x;\n"                                                                            \
	"	mov.u32 %r4, %nctaid.x;\n"                                                                         \
	"	mul.wide.u32 %rd4, %r1, %r2;\n"                                                                    \
	"	cvt.u64.u32 %rd5, %r3;\n"                                                                          \
	"	add.u64 %rd4, %rd4, %rd5;\n"                                                                       \
	"	mul.wide.u32 %rd6, %r4, %r2;\n"

const char gw_diag_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry gw_fill(.param .u64 p_dst, .param .u64 p_n, .param .u64 p_seed)\n"
    "{\n"
    "	.reg .pred %p<2>;\n"
    "	.reg .b32 %r<5>;\n"
    "	.reg .b64 %rd<12>;\n"
    "	ld.param.u64 %rd1, [p_dst];\n"
    "	ld.param.u64 %rd2, [p_n];\n"
    "	ld.param.u64 %rd3, [p_seed];\n"
    "	cvta.to.global.u64 %rd1, %rd1;\n" GRID_STRIDE "FILL_LOOP:\n"
    "	setp.ge.u64 %p1, %rd4, %rd2;\n"
    "	@%p1 bra FILL_DONE;\n"
    "	xor.b64 %rd7, %rd4, %rd3;\n"
    "	shl.b64 %rd8, %rd4, 3;\n"
    "	add.u64 %rd9, %rd1, %rd8;\n"
    "	st.global.u64 [%rd9], %rd7;\n"
    "	add.u64 %rd4, %rd4, %rd6;\n"
    "	bra FILL_LOOP;\n"
    "FILL_DONE:\n"
    "	ret;\n"
    "}\n"
    "\n"
    ".visible .entry gw_check(.param .u64 p_dst, .param .u64 p_n, .param .u64 p_seed, .param .u64 p_errs)\n"
    "{\n"
    "	.reg .pred %p<3>;\n"
    "	.reg .b32 %r<5>;\n"
    "	.reg .b64 %rd<12>;\n"
    "	ld.param.u64 %rd1, [p_dst];\n"
    "	ld.param.u64 %rd2, [p_n];\n"
    "	ld.param.u64 %rd3, [p_seed];\n"
    "	ld.param.u64 %rd10, [p_errs];\n"
    "	cvta.to.global.u64 %rd1, %rd1;\n"
    "	cvta.to.global.u64 %rd10, %rd10;\n" GRID_STRIDE "CHECK_LOOP:\n"
    "	setp.ge.u64 %p1, %rd4, %rd2;\n"
    "	@%p1 bra CHECK_DONE;\n"
    "	xor.b64 %rd7, %rd4, %rd3;\n"
    "	shl.b64 %rd8, %rd4, 3;\n"
    "	add.u64 %rd9, %rd1, %rd8;\n"
    "	ld.global.u64 %rd11, [%rd9];\n"
    "	setp.ne.u64 %p2, %rd11, %rd7;\n"
    "	@%p2 red.global.add.u32 [%rd10], 1;\n"
    "	add.u64 %rd4, %rd4, %rd6;\n"
    "	bra CHECK_LOOP;\n"
    "CHECK_DONE:\n"
    "	ret;\n"
    "}\n"
    "\n"
    ".visible .entry gw_copy(.param .u64 p_src, .param .u64 p_dst, .param .u64 p_n)\n"
    "{\n"
    "	.reg .pred %p<2>;\n"
    "	.reg .b32 %r<5>;\n"
    "	.reg .b64 %rd<12>;\n"
    "	ld.param.u64 %rd1, [p_src];\n"
    "	ld.param.u64 %rd10, [p_dst];\n"
    "	ld.param.u64 %rd2, [p_n];\n"
    "	cvta.to.global.u64 %rd1, %rd1;\n"
    "	cvta.to.global.u64 %rd10, %rd10;\n" GRID_STRIDE "COPY_LOOP:\n"
    "	setp.ge.u64 %p1, %rd4, %rd2;\n"
    "	@%p1 bra COPY_DONE;\n"
    "	shl.b64 %rd8, %rd4, 3;\n"
    "	add.u64 %rd9, %rd1, %rd8;\n"
    "	ld.global.u64 %rd7, [%rd9];\n"
    "	add.u64 %rd9, %rd10, %rd8;\n"
    "	st.global.u64 [%rd9], %rd7;\n"
    "	add.u64 %rd4, %rd4, %rd6;\n"
    "	bra COPY_LOOP;\n"
    "COPY_DONE:\n"
    "	ret;\n"
    "}\n"
    "\n"
    ".visible .entry gw_fma(.param .u64 p_out, .param .u32 p_iters)\n"
    "{\n"
    "	.reg .pred %p<2>;\n"
    "	.reg .b32 %r<8>;\n"
    "	.reg .f32 %f<6>;\n"
    "	.reg .b64 %rd<8>;\n"
    "	ld.param.u64 %rd1, [p_out];\n"
    "	ld.param.u32 %r5, [p_iters];\n"
    "	cvta.to.global.u64 %rd1, %rd1;\n"
    "	mov.u32 %r1, %ctaid.x;\n"
    "	mov.u32 %r2, %ntid.x;\n"
    "	mov.u32 %r3, %tid.x;\n"
    "	mad.lo.u32 %r6, %r1, %r2, %r3;\n"
    "	cvt.rn.f32.u32 %f1, %r6;\n"
    "	mul.f32 %f1, %f1, 0f33800000;\n" /* t * 2^-24: a value in [0, 1) */
    "	mov.f32 %f2, 0f3F800000;\n"	 /* two chains, 1.0 and 2.0, so each SM has independent FMAs */
    "	mov.f32 %f4, 0f40000000;\n"
    "	mov.f32 %f3, 0f3F7FFFEF;\n" /* 0.999999: x = x c + t converges, never Inf */
    "	mov.u32 %r7, 0;\n"
    "FMA_LOOP:\n"
    "	setp.ge.u32 %p1, %r7, %r5;\n"
    "	@%p1 bra FMA_DONE;\n"
    "	fma.rn.f32 %f2, %f2, %f3, %f1;\n"
    "	fma.rn.f32 %f4, %f4, %f3, %f1;\n"
    "	fma.rn.f32 %f2, %f2, %f3, %f1;\n"
    "	fma.rn.f32 %f4, %f4, %f3, %f1;\n"
    "	add.u32 %r7, %r7, 1;\n"
    "	bra FMA_LOOP;\n"
    "FMA_DONE:\n"
    "	add.f32 %f5, %f2, %f4;\n"
    "	mul.wide.u32 %rd2, %r6, 4;\n"
    "	add.u64 %rd3, %rd1, %rd2;\n"
    "	st.global.f32 [%rd3], %f5;\n"
    "	ret;\n"
    "}\n";
