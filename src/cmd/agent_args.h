/*
 * agent_args.h - `gpuwatch agent`'s command line: dcgm-exporter's flags
 * (-a, -c, -f), Prometheus' (--web.*, --storage.*), and gpuwatch's own.
 */
#ifndef GW_CMD_AGENT_ARGS_H
#define GW_CMD_AGENT_ARGS_H

#include "collect/sampler.h"

#include <stdbool.h>
#include <stdint.h>

struct agent_args {
	const char *address, *counters, *web_config, *proc_root, *hpc_dir;
	struct gw_sampler_opts so;
	bool no_native;
	/* history */
	const char *storage_path, *instance;
	int64_t retention_ms;
	int64_t flush_interval_ms;
	uint64_t retention_bytes;
	bool no_history;
};

/* 0: parsed; 1: --help was shown (exit 0); 2: a bad option, reported on stderr. */
int agent_parse_args(int argc, char **argv, struct agent_args *o);

#endif
