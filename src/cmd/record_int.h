/*
 * record_int.h - the parts of `gpuwatch record` (cmd/record.c) that watch
 * the GPUs while CMD runs: a store fed by the sampler as the agent feeds
 * its history (agent/history.h), the report over the recorded window
 * (analysis/report.h) and the --assert expressions evaluated over it.
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
	int64_t from_ms, to_ms; /* the recorded window, wall clock */
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
 * Append the JSON members of the GPUs' part of the summary to b (each
 * preceded by a comma): "gpus", "energy_joules", "peak_memory_bytes",
 * "interval_seconds", "report". A report that cannot be built leaves
 * "gpus": [] and "report": null, with the reason on stderr when GPUs were
 * sampled.
 */
void record_gpus_json(struct record_gpus *g, struct gw_buf *b);

/* One --assert: parsed before CMD runs, evaluated when it has exited. */
struct record_assert {
	const char *expr;
	struct gw_pq_node *root;
	bool passed;
	char msg[600]; /* why it failed; "" when it passed */
};

/* Evaluate a at the window's end over the recorded store. */
void record_assert_eval(struct record_gpus *g, struct record_assert *a);

/*
 * JUnit XML at path: one testsuite "gpuwatch record" with a testcase for
 * CMD (a failure when code is not 0) and one per assert (a failure with its
 * message). 0, or 1 with the error printed.
 */
int record_junit_write(const char *path, char *const *cmd, int code, double seconds,
		       const struct record_assert *as, size_t n);

#endif
