/*
 * agent.c - `gpuwatch agent`: sample every GPU on a schedule and serve a
 * dcgm-exporter compatible /metrics (plus gpuwatch's native metrics),
 * /health, the query API over the history and a landing page (the daemon
 * itself is src/agent/). This file parses the flags, sets up the process,
 * runs the agent and reports errors. Logs go to stderr as key=value lines.
 * SIGTERM/SIGINT stop it cleanly; SIGHUP reloads the counters, rule and policy files (not
 * the web config: TLS and users are read once, at start).
 */
#include "cmd/cmd.h"

#include "agent/agent.h"
#include "cmd/agent_args.h"

#include <pthread.h>
#include <signal.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* What the process needs before any thread starts: signals, limits, malloc. */
static void setup_process(void)
{
	/* Signals go to sigwait() in this thread only: block them before any thread starts. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* A file size limit fails the store's writes (EFBIG, as a full disk's
	 * ENOSPC): logged and retried, not a reason to die. */
	signal(SIGXFSZ, SIG_IGN);
	/* Each connection is a file: take the hard limit, as Go programs (Prometheus) do at start. */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
#ifdef __GLIBC__
	/* A few threads that each allocate a little: glibc's arena per thread
	 * held ~0.6 MB more at 100 ms with history, for no speed the agent needs. */
	mallopt(M_ARENA_MAX, 2);
	/*
	 * A range query's arena (blocks of up to 4 MiB) was mmap'ed and
	 * unmapped, or trimmed, every query, so each query page-faulted through
	 * its few MB again: two thirds of a day-long dashboard query's time
	 * (perf). Blocks that size now come from the heap, and up to 8 MiB of
	 * free heap stays for the next query (4 MiB was not enough for a day
	 * of 8 GPUs with unflushed heads).
	 */
	mallopt(M_MMAP_THRESHOLD, (4 << 20) + (64 << 10));
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
#endif
}

/* Until SIGINT or SIGTERM; SIGHUP reloads the counters, rule and policy files. */
static void wait_signals(struct gw_agent *a)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	for (;;) {
		int sig = 0;
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			struct gw_err err;
			gw_err_clear(&err);
			(void)gw_agent_reload(a, &err); /* it logs what it reloaded or kept */
			continue;
		}
		gw_cli_log("info", "msg=\"shutting down\" signal=%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
		return;
	}
}

int gw_cmd_agent(int argc, char **argv, const struct gw_cli *cli)
{
	struct agent_args o = {0};
	int rc = agent_parse_args(argc, argv, &o);
	if (rc) {
		agent_args_release(&o);
		return rc == 1 ? 0 : rc;
	}
	setup_process();
	/* A bad web config stops the agent before anything starts: serving
	 * without the TLS or auth the operator asked for would be worse. */
	struct gw_webcfg web = {0};
	struct gw_err err;
	gw_err_clear(&err);
	if (o.web_config && gw_webcfg_load(&web, o.web_config, &err) != 0) {
		gw_cli_log("error", "msg=\"bad web config\" file=%s err=\"%s\"", o.web_config, err.msg);
		agent_args_release(&o);
		return 1;
	}
	struct gw_nvml *nv = NULL;
	rc = gw_cli_open_nvml(cli, &nv);
	if (rc) {
		gw_webcfg_release(&web);
		agent_args_release(&o);
		return rc;
	}
	o.ao.log = gw_cli_log;

	struct gw_agent *a = NULL;
	if (gw_agent_new(&a, nv, &web, &o.ao, &err) != 0) {
		gw_cli_log("error", "msg=\"cannot start\" err=\"%s\"", err.msg);
		rc = 1;
	} else if (gw_agent_serve(a, &err) != 0) {
		gw_cli_log("error", "msg=\"cannot serve\" err=\"%s\"", err.msg);
		rc = 1;
	} else {
		wait_signals(a);
	}
	gw_agent_free(a);
	gw_nvml_close(nv);
	agent_args_release(&o);
	return rc;
}
