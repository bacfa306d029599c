/*
 * fields.h - the one table of every metric gpuwatch knows.
 *
 * Each entry describes a metric once: its nvidia-smi --query-gpu name and
 * aliases, the unit and number format nvidia-smi prints, how it is read
 * through the NVML binding, its DCGM field name and id (where DCGM has one),
 * and a native Prometheus name, type and help text. smi, dmon, the exporter,
 * the store and the UIs all loop over this table; none hard-codes a metric.
 *
 * Values are read into a struct gw_value in one canonical unit per field
 * (bytes, mW, mJ, MHz, degrees C, percent, ns, ...) with a state that says
 * whether the value is valid or why not; formatting converts only when
 * printing. "Not supported" is a state, never an error return.
 *
 * Ownership: the table is static and read-only; values are caller-owned
 * plain structs. Threading: everything here is reentrant.
 */
#ifndef GW_FIELDS_H
#define GW_FIELDS_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Why a value is or is not there; printed the way nvidia-smi prints it. */
#define GW_VSTATE_MAP(X)                                                               \
	X(OK, "")                                                                      \
	X(NA, "[N/A]")                                                                 \
	X(NOT_SUPPORTED, "[Not Supported]")                                            \
	X(DEPRECATED, "[Requested functionality has been deprecated]")                 \
	X(UNKNOWN_ERROR, "[Unknown Error]")                                            \
	X(RESET_REQUIRED, "[GPU requires reset]")                                      \
	X(GPU_LOST, "[GPU is lost]")                                                   \
	X(NO_PERMISSION, "[Insufficient Permissions]")

enum gw_vstate {
#define GW_VSTATE_ENUM(name, text) GW_V_##name,
	GW_VSTATE_MAP(GW_VSTATE_ENUM)
#undef GW_VSTATE_ENUM
};

enum gw_vkind {
	GW_VK_INT,   /* i */
	GW_VK_FLOAT, /* d */
	GW_VK_STR,   /* s */
};

#define GW_VALUE_STR_MAX 96

struct gw_value {
	uint8_t state; /* enum gw_vstate */
	uint8_t kind;  /* enum gw_vkind */
	int64_t i;
	double d;
	char s[GW_VALUE_STR_MAX];
};

struct gw_nvml_tally;

/*
 * One GPU's NVML answers that several fields share, kept for one round of
 * reads (the sampler's tick). One nvmlDeviceGetMemoryInfo_v2 answer holds
 * four fields, BAR1 three, utilisation rates and encoder statistics two or
 * three, the ECC mode two; and every field read through
 * nvmlDeviceGetFieldValues can be asked for in one call
 * (gw_read_prefetch). Driver calls serialise and cost microseconds to
 * milliseconds each, so a round with a memo makes each call once; a failure
 * is then counted once too, as one call failed. Clear it
 * (gw_read_memo_clear) before each GPU's round.
 */
#define GW_READ_FV_MAX 64

enum gw_read_memo_call {
	GW_MEMO_MEMORY,
	GW_MEMO_BAR1,
	GW_MEMO_UTILIZATION,
	GW_MEMO_ENCODER_STATS,
	GW_MEMO_ECC_MODE,
	GW_MEMO__COUNT
};

struct gw_read_memo {
	unsigned int have; /* bit (1 << enum gw_read_memo_call): that call's answer is below */
	nvmlReturn_t ret[GW_MEMO__COUNT];
	nvmlMemory_v2_t memory;
	nvmlBAR1Memory_t bar1;
	nvmlUtilization_t utilization;
	unsigned int encoder_stats[3];
	int ecc_mode[2];
	/* gw_read_prefetch: the field values asked for in one call, and its answer */
	unsigned int nfv;
	unsigned int fv_id[GW_READ_FV_MAX], fv_scope[GW_READ_FV_MAX]; /* as asked: the answers are found by these */
	nvmlFieldValue_t fv[GW_READ_FV_MAX];
	nvmlReturn_t fv_ret;
};

static inline void gw_read_memo_clear(struct gw_read_memo *m)
{
	if (m) {
		m->have = 0;
		m->nfv = 0;
	}
}

/* Everything a reader may need besides the GPU itself. */
struct gw_read_ctx {
	struct gw_nvml *nv;
	struct gw_gpu *gpu;
	unsigned int gpu_count;
	struct timespec now;	     /* CLOCK_REALTIME of this query */
	struct gw_nvml_tally *tally; /* where failed NVML calls are counted (nvml/tally.h); NULL: nowhere */
	struct gw_read_memo *memo;   /* shared answers of this round; NULL: each field makes its own calls */
};

struct gw_field; /* defined in fields_table.h */

/* Look a field up by its --query-gpu name or an alias; NULL if unknown. */
const struct gw_field *gw_field_find(const char *name);

/* Number of entries and the i-th entry, for loops over the table. */
size_t gw_fields_count(void);
const struct gw_field *gw_field_at(size_t i);
/* The position of row f in the table (a frame's values are by it); -1: f is NULL or no row. */
long gw_field_index(const struct gw_field *f);

/* Read one field of one GPU. Returns 0 (the value's state says if it is valid). */
int gw_field_read(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *out);

/*
 * Ask for the field values of the fields about to be read (reading[i] for
 * table index i) in one nvmlDeviceGetFieldValues call, kept in c->memo for
 * their readers. No-op without a memo or without such fields.
 */
void gw_read_prefetch(const struct gw_read_ctx *c, const bool *reading);

/* Formatting flags for gw_field_format(). */
#define GW_FMT_NOUNITS 0x1

/* Print a value as nvidia-smi's --query-gpu CSV would; returns the length. */
size_t gw_field_format(const struct gw_field *f, const struct gw_value *v, unsigned int flags, char *buf,
		       size_t n);

/*
 * Read a value printed as nvidia-smi prints it (unit optional) back into the
 * canonical unit. "[N/A]" and other bracketed texts give state NA. Returns 0
 * or GW_EPARSE when the text is not a value of this field.
 */
int gw_field_parse(const struct gw_field *f, const char *text, size_t len, struct gw_value *v);

/* The CSV header cell: canonical name plus " [unit]" unless GW_FMT_NOUNITS. */
size_t gw_field_header(const struct gw_field *f, unsigned int flags, char *buf, size_t n);

#endif
