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

/* Everything a reader may need besides the GPU itself. */
struct gw_read_ctx {
	struct gw_nvml *nv;
	struct gw_gpu *gpu;
	unsigned int gpu_count;
	struct timespec now;	     /* CLOCK_REALTIME of this query */
	struct gw_nvml_tally *tally; /* where failed NVML calls are counted (nvml/tally.h); NULL: nowhere */
};

struct gw_field; /* defined in fields_table.h */

/* Look a field up by its --query-gpu name or an alias; NULL if unknown. */
const struct gw_field *gw_field_find(const char *name);

/* Number of entries and the i-th entry, for loops over the table. */
size_t gw_fields_count(void);
const struct gw_field *gw_field_at(size_t i);

/* Read one field of one GPU. Returns 0 (the value's state says if it is valid). */
int gw_field_read(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *out);

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
