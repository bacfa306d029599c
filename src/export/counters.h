/*
 * counters.h - which DCGM fields the exporter publishes, in dcgm-exporter's
 * counters CSV format:
 *
 *   # comment
 *   DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
 *   DCGM_FI_DRIVER_VERSION, label, Driver Version
 *
 * Fields are trimmed; types are gauge, counter, histogram, summary or label
 * (a label row adds that label to every series instead of a series of its
 * own). Without a file the built-in default set is used: dcgm-exporter's
 * defaults plus what the common alert rules read (FB_TOTAL, power limits).
 *
 * Every name must be one dcgm-exporter knows: a DCGM field (DCGM_FI_...,
 * export/dcgm_names.h), one of its own families (DCGM_EXP_...), or a
 * lower-case dcgm-exporter 1.x name (dcgm_gpu_temp), exported under the
 * file's name with the DCGM field it maps to. Anything else (a typo) is an
 * error naming the file, line and name, as is an unknown type or a file
 * without rows. A real field gpuwatch does not read is left out with a
 * note naming the line; a field's second row, which would give /metrics a
 * family twice, is skipped with a warning. A file that is not text is
 * refused, and file content quoted in messages has its non-printable bytes,
 * quotes and backslashes escaped (\xNN, \", \\), so messages stay one safe
 * line of logfmt.
 *
 * Ownership: caller-embedded; gw_counters_release frees. Threading: none.
 */
#ifndef GW_EXPORT_COUNTERS_H
#define GW_EXPORT_COUNTERS_H

#include "core/err.h"
#include "export/expfmt.h"

#include <stdbool.h>
#include <stddef.h>

struct gw_counter {
	char *name;  /* the family (or label) name, as the file gives it */
	char *field; /* the DCGM field it reads: name, or a 1.x name's field */
	enum gw_metric_type type;
	bool label; /* a "label" row */
	char *help;
};

#define GW_COUNTERS_WARNINGS_MAX 32

struct gw_counters {
	struct gw_counter *v;
	size_t n;
	/* "counters.csv:7: ..." for each row skipped, the first 32; nwarnings counts them all */
	char *warnings[GW_COUNTERS_WARNINGS_MAX];
	size_t nwarnings;
	/* "counters.csv:9: DCGM_FI_DEV_BRAND left out: ..." for each real field gpuwatch does not read */
	char *notes[GW_COUNTERS_WARNINGS_MAX];
	size_t nnotes;
};

/* Parse CSV text; errors name the line: "counters.csv:7: unknown type \"gauge2\"". */
int gw_counters_parse(struct gw_counters *c, const char *text, const char *origin, struct gw_err *err);
int gw_counters_load(struct gw_counters *c, const char *path, struct gw_err *err);
int gw_counters_default(struct gw_counters *c);
/* Whether a `label` row reads this field (DCGM_FI_DRIVER_VERSION by default). */
bool gw_counters_has_label(const struct gw_counters *c, const char *name);
/* Whether a metric row (not a `label` row) names this family (the file's name). */
bool gw_counters_has_family(const struct gw_counters *c, const char *name);
void gw_counters_release(struct gw_counters *c);

/* The built-in default set as CSV text. */
extern const char gw_counters_default_csv[];

#endif
