/*
 * record_int.h - the parts of `gpuwatch record` (cmd/record.c) that watch
 * the GPUs while CMD runs: a store fed by the sampler as the agent feeds
 * its history (agent/history.h), the report over the recorded window
 * (analysis/report.h), the --assert expressions evaluated over it, the
 * --baseline comparison and the JUnit file.
 *
 * Ownership: struct record_gpus is embedded in the caller; record_gpus_open
 * and record_gpus_close pair, close removing a temporary store. Threading:
 * the sampler and the store's flusher run on threads of their own between
 * open and record_gpus_stop; everything else runs on the caller's thread.
 */
#ifndef GW_CMD_RECORD_INT_H
#define GW_CMD_RECORD_INT_H

#include "agent/history.h"
#include "analysis/report.h"
#include "cmd/cmd.h"
#include "collect/sampler.h"
#include "core/buf.h"
#include "promql/engine.h"

#include <stdbool.h>
#include <stdint.h>

struct record_gpus {
	struct gw_nvml *nv; /* NULL: no NVML and no --sim, nothing sampled */
	struct gw_gpu *gpus;
	unsigned int ngpus;
	struct gw_sampler *sampler;
	struct agent_history h;
	bool open;	/* h holds an open store */
	bool temporary; /* the store is ours (mkdtemp): removed at close */
	char path[512];
	unsigned int interval_ms;
	int64_t from_ms, to_ms;	  /* the recorded window, wall clock */
	struct gw_report *report; /* over the window (record_gpus_report); NULL: none */
};

/*
 * Open NVML (or --sim), start sampling every interval_ms into the store at
 * path (NULL: a temporary directory under $TMPDIR). Without NVML and
 * without --sim a warning goes to stderr and the store stays empty.
 * 0, or the exit code with the message printed.
 */
int record_gpus_open(struct record_gpus *g, const struct gw_cli *cli, const char *path,
		     unsigned int interval_ms);

/* CMD has exited: stop sampling; the store stays open for the report and the asserts. */
void record_gpus_stop(struct record_gpus *g);

/* Close the store (removing a temporary one) and NVML. */
void record_gpus_close(struct record_gpus *g);

/*
 * Build g->report over the recorded window; a report that cannot be built
 * leaves it NULL, with the reason on stderr when GPUs were sampled.
 */
void record_gpus_report(struct record_gpus *g);

/* The run's totals from g->report (NaN where unknown): mean utilisation over the GPUs (0..1), J, bytes. */
void record_gpus_totals(const struct record_gpus *g, double *util, double *energy, double *peak_mem);

/*
 * Append the JSON members of the GPUs' part of the summary to b (each
 * preceded by a comma): "gpus", "energy_joules", "peak_memory_bytes",
 * "interval_seconds", "report", from g->report; without one "gpus": []
 * and "report": null.
 */
void record_gpus_json(const struct record_gpus *g, struct gw_buf *b);

/* One --assert: parsed before CMD runs, evaluated when it has exited. */
struct record_assert {
	const char *expr;
	struct gw_pq_node *root;
	bool passed;
	char msg[600]; /* why it failed; "" when it passed */
};

/* Evaluate a at the window's end over the recorded store. */
void record_assert_eval(struct record_gpus *g, struct record_assert *a);

/* --baseline OLD.json: what an earlier run's summary said, and how this run compares. */
enum { RECORD_BASE_UTIL, RECORD_BASE_ENERGY, RECORD_BASE_PEAK, RECORD_BASE_N };
struct record_baseline {
	const char *path;			       /* NULL: no --baseline */
	double tolerance;			       /* 0.1: 10 % */
	double old[RECORD_BASE_N], now[RECORD_BASE_N]; /* NaN: not known */
	/* one check per metric, shaped as an assert for the summary and JUnit:
	 * expr names it, passed false on a regression beyond the tolerance */
	struct record_assert check[RECORD_BASE_N];
	size_t regressions;
};

/* Read OLD.json (an earlier record summary); 0, or 2 with the error printed. */
int record_baseline_load(struct record_baseline *b, const char *path, double tolerance);

/* Compare this run's totals with the baseline's; regressions printed on stderr. */
void record_baseline_compare(struct record_baseline *b, const struct record_gpus *g);

/* ,"baseline":{...} (nothing without --baseline). */
void record_baseline_json(const struct record_baseline *b, struct gw_buf *out);

/*
 * JUnit XML at path: one testsuite "gpuwatch record" with a testcase for
 * CMD (a failure when code is not 0), one per assert and one per baseline
 * check (a failure with its message). 0, or 1 with the error printed.
 */
int record_junit_write(const char *path, char *const *cmd, int code, double seconds,
		       const struct record_assert *as, size_t n, const struct record_baseline *base);

#endif
