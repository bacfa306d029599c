/*
 * nvml_log.h - which NVML failures deserve a log line, so a failing call
 * is reported without flooding the log.
 *
 * Per NVML function: the first failure after a quiet spell is reported at
 * once (the check after the tick it happened in); further failures within
 * the interval (default one minute) are held back and reported as one
 * summary line with their count when it ends, and a function that keeps
 * failing therefore logs one line per interval. The counts come from the
 * sampler's tally (nvml/tally.h), so the log and the exported counters
 * never disagree; the caller decides how a line is printed.
 *
 * Ownership: caller-embedded, no allocation. Threading: one thread (the
 * tally's writer).
 */
#ifndef GW_COLLECT_NVML_LOG_H
#define GW_COLLECT_NVML_LOG_H

#include "nvml/tally.h"

#include <stdbool.h>
#include <stdint.h>

struct gw_nvml_log_line {
	const char *function; /* "nvmlDeviceGetPowerUsage" */
	uint64_t errors;      /* failures this line reports */
	uint64_t total;	      /* failures of the function since start */
	bool summary;	      /* the failures were held back for up to an interval */
	int64_t span_ms;      /* summary: time since the function's previous line */
	int gpu;	      /* GPU index of the latest failure; -1 when on no GPU */
	nvmlReturn_t ret;     /* the latest failure's code */
};

typedef void (*gw_nvml_log_fn)(void *arg, const struct gw_nvml_log_line *line);

struct gw_nvml_log {
	int64_t interval_ms;
	uint64_t seen_total;		    /* tally total at the last check */
	unsigned int held;		    /* functions with failures held back */
	int64_t last_ms[GW_NVML_FN__COUNT]; /* time of the function's last line; 0: none yet */
	uint64_t logged[GW_NVML_FN__COUNT]; /* its failures reported so far */
	bool pending[GW_NVML_FN__COUNT];    /* failures held back */
};

/* interval_ms 0: one minute. */
void gw_nvml_log_init(struct gw_nvml_log *l, int64_t interval_ms);

/* Compare the tally with what was reported; call fn for each line due at now_ms (ms, any clock). */
void gw_nvml_log_check(struct gw_nvml_log *l, const struct gw_nvml_tally *t, int64_t now_ms,
		       gw_nvml_log_fn fn, void *arg);

#endif
