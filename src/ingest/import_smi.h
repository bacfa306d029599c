/*
 * import_smi.h - read the nvidia-smi CSV logs people already keep.
 *
 * Accepts any --query-gpu field list, with or without header and units, and
 * the periodic log shape of a `while true; do echo "======= $(date) ======="
 * ; nvidia-smi --query-gpu=... --format=csv; sleep N; done` loop: a block
 * header with `date` output (or an ISO time) sets the time of the rows under
 * it when they have no `timestamp` column. Headers may change mid-file (a
 * new field list); --query-compute-apps blocks are recognised and skipped.
 * Every value becomes the series /metrics would have exposed (native and
 * DCGM names, see export/series.h). A bad line is reported with its number
 * and skipped; the good ones are kept. Memory stays bounded whatever the
 * file size: lines are read one at a time (at most 64 KiB each), and the
 * sink gets a checkpoint after each to write out what it buffers.
 *
 * Times without a zone (nvidia-smi's timestamp field, `date` without one)
 * are local time, as nvidia-smi and date print them; set TZ to import logs
 * from another zone. Threading: none.
 */
#ifndef GW_INGEST_IMPORT_SMI_H
#define GW_INGEST_IMPORT_SMI_H

#include "export/series.h"

#include <stdio.h>

struct gw_import_opts {
	const char *fields;   /* field list of logs without a header ("index,name,..."), or NULL */
	const char *instance; /* "instance" label of every series, or NULL */
	const char *job;      /* "job" label, or NULL */
	gw_series_emit_fn emit;
	void *ctx;
	void (*on_bad_line)(void *ctx, size_t line, const char *why);
	void (*on_progress)(void *ctx, uint64_t bytes);
	/* Called after each line that emitted samples; non-zero stops the
	 * import and is returned, err filled by the callee. A sink that
	 * buffers (the store's heads) writes out here, between lines, so what
	 * it holds stays bounded however long the file. NULL: not called. */
	int (*checkpoint)(void *ctx, struct gw_err *err);
	/* dmon/pmon logs without a Date column (import_text.h): the time of
	 * the first sample (ms; its day, with -o T), and between samples (ms;
	 * 0: dmon's default 1 s). Unused by the other formats. */
	bool has_start;
	int64_t start_ms;
	int64_t interval_ms;
};

struct gw_import_stats {
	size_t lines, rows, samples, bad_lines, skipped_lines;
	uint64_t bytes;
};

int gw_import_smi(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err);

/* "Wed Dec  2 17:58:17 UTC 2026", "2026-12-02 17:58:17", RFC 3339, "2026/07/03 22:11:09.763". */
int gw_import_parse_date(const char *s, int64_t *ms);

#endif
