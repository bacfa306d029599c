/*
 * tally.h - NVML calls that failed, counted per function and per GPU.
 *
 * Code that wants its NVML failures counted passes a tally along with the
 * call (field readers find it in struct gw_read_ctx) and hands every return
 * code to gw_nvml_tally_note(), which counts it when gw_nvml_failed() says
 * the call failed ("not supported" and its kin are answers, not failures)
 * and remembers each function's latest failure for the log. A NULL tally
 * counts nothing, so smi and other one-shot readers pay one compare.
 *
 * Rows: one per GPU, by the GPU's NVML index, and a last row for calls made
 * on no GPU (system calls, the event set).
 *
 * Ownership: the caller embeds the struct; _init allocates the rows and
 * _release frees them. Threading: one writer; others read copies made by
 * the writer (the sampler copies the counts into its frames).
 */
#ifndef GW_NVML_TALLY_H
#define GW_NVML_TALLY_H

#include "nvml/binding.h"

#include <stdint.h>

struct gw_nvml_tally {
	unsigned int ngpus;
	uint64_t (*rows)[GW_NVML_FN__COUNT];	  /* [ngpus + 1]: failures per GPU, then on no GPU */
	uint64_t by_fn[GW_NVML_FN__COUNT];	  /* summed over the rows */
	nvmlReturn_t last_ret[GW_NVML_FN__COUNT]; /* the function's latest failure */
	int last_gpu[GW_NVML_FN__COUNT];	  /* its GPU index, -1 on no GPU */
	uint64_t total;				  /* every failure; only grows */
};

int gw_nvml_tally_init(struct gw_nvml_tally *t, unsigned int ngpus);
void gw_nvml_tally_release(struct gw_nvml_tally *t);

/* Count n failures of fn answered with ret on gpu (NULL: on no GPU). ret must be a failure. */
void gw_nvml_tally_add(struct gw_nvml_tally *t, const struct gw_gpu *gpu, enum gw_nvml_fn fn,
		       nvmlReturn_t ret, uint64_t n);

/* Count ret if it is a failure; returns ret, so a call can be wrapped in it. */
static inline nvmlReturn_t gw_nvml_tally_note(struct gw_nvml_tally *t, const struct gw_gpu *gpu,
					      enum gw_nvml_fn fn, nvmlReturn_t ret)
{
	if (t && ret != NVML_SUCCESS && gw_nvml_failed(ret))
		gw_nvml_tally_add(t, gpu, fn, ret, 1);
	return ret;
}

/*
 * Call nv->fn(args...) and count the result in tally against gpu; a
 * function the library lacks answers FUNCTION_NOT_FOUND (not a failure).
 */
#define GW_NVML_CALL(tally, gpu, nv, fn, ...)                                                                \
	gw_nvml_tally_note((tally), (gpu), GW_NVML_FN_##fn,                                                  \
			   (nv)->fn ? (nv)->fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

#endif
