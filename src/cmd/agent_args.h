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
	/* the repeatable options' values (argv's strings), owned: agent_args_release */
	const char **lists;
	struct gw_rw_opts *rws;		  /* --remote-write.url's, owned: agent_args_release */
	struct gw_scrape_target *scrapes; /* --scrape's, owned: agent_args_release */
};

void agent_args_release(struct agent_args *o);

/* The checks the agent's and serve's flags share; they report on stderr as
 * "gpuwatch CMD: OPT wants ..." and return -1 on a bad value. */
int agent_args_count(const char *cmd, const char *opt, const char *s, unsigned int lo, unsigned int hi,
		     unsigned int *out);
int agent_args_timeout(const char *cmd, const char *opt, const char *s, bool zero_ok, int64_t *ms);

/* 0: parsed; 1: --help was shown (exit 0); 2: a bad option, reported on stderr. */
int agent_parse_args(int argc, char **argv, struct agent_args *o);

#endif
