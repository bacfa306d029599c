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
	/* availability: what one client, or slow queries, can take from the rest */
	unsigned int max_conns;        /* --web.max-connections */
	unsigned int max_conns_per_ip; /* --web.max-connections-per-ip; 0: no limit */
	int64_t read_header_timeout_ms; /* --web.read-header-timeout; 0: none */
	unsigned int query_concurrency; /* --query.max-concurrency */
	int64_t query_timeout_ms;       /* --query.timeout */
	unsigned int query_max_samples; /* --query.max-samples */
};

/* 0: parsed; 1: --help was shown (exit 0); 2: a bad option, reported on stderr. */
int agent_parse_args(int argc, char **argv, struct agent_args *o);

#endif
