/*
 * agent_args.h - `gpuwatch agent`'s command line: dcgm-exporter's flags
 * (-a, -c, -f), Prometheus' (--web.*, --storage.*), and gpuwatch's own.
 */
#ifndef GW_CMD_AGENT_ARGS_H
#define GW_CMD_AGENT_ARGS_H

#include "agent/agent.h"

#include <stdbool.h>
#include <stdint.h>

/* The agent's options as parsed; the web config is loaded by the command. */
struct agent_args {
	const char *web_config;
	struct gw_agent_opts ao; /* log is the command's to set */
};

/* 0: parsed; 1: --help was shown (exit 0); 2: a bad option, reported on stderr. */
int agent_parse_args(int argc, char **argv, struct agent_args *o);

#endif
