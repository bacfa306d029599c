/*
 * serve.c - `gpuwatch serve`: Prometheus' query API over a store, without
 * sampling any GPU (src/agent/serve.c), for imported nvidia-smi logs and
 * stores copied off a node. Flags as the agent's where they mean the same.
 */
#include "cmd/cmd.h"

#include "agent/serve.h"
#include "cmd/agent_args.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
	fputs("usage: gpuwatch serve --storage.path DIR [options]\n\n"
	      "Serve Prometheus' query API over a store without sampling any GPU: the\n"
	      "history of imported nvidia-smi logs (gpuwatch import), a store copied off a\n"
	      "node, or one `sim record` wrote. Grafana and promtool use it as they use a\n"
	      "Prometheus. Stop the agent that writes a store before serving it, or query\n"
	      "the agent itself.\n\n"
	      "Options:\n"
	      "      --storage.path DIR      the store (default data/); it must exist\n"
	      "  -a, --address ADDR          listen address (default :9401, beside an agent on :9400);\n"
	      "                              also --web.listen-address\n"
	      "      --web.config.file FILE  TLS and basic auth, Prometheus exporter-toolkit format\n"
	      "      --query.max-concurrency N   queries run at once (default 4); up to 16*N more wait\n"
	      "      --query.timeout D       longest a query may run, or wait to run (default 2m)\n"
	      "      --query.max-samples N   samples one query may hold (default 50000000)\n"
	      "      --web.max-connections N      open connections in all (default 1024)\n"
	      "      --web.max-connections-per-ip N   of them from one address (default 64; 0: no limit)\n"
	      "      --web.read-header-timeout D  time to send a request's headers (default 10s; 0: none)\n"
	      "  -h, --help                  show this help\n\n"
	      "Endpoints: /api/v1/{query,query_range,series,labels,label/NAME/values,metadata,\n"
	      "query_exemplars,targets,status/*}, /-/healthy, /-/ready, /health, and / (the web\n"
	      "page over the store: its views end at the newest sample).\n"
	      "Signals: SIGTERM/SIGINT stop.\n",
	      out);
}

static const char *const takes_value[] = {"--storage.path",
					  "-a",
					  "--address",
					  "--web.listen-address",
					  "--web.config.file",
					  "--web-config-file",
					  "--query.max-concurrency",
					  "--query.timeout",
					  "--query.max-samples",
					  "--web.max-connections",
					  "--web.max-connections-per-ip",
					  "--web.read-header-timeout"};

/* 0: parsed; 1: help shown; 2: bad option (reported). */
static int parse(int argc, char **argv, struct gw_serve_opts *o, const char **web_config)
{
	*o = (struct gw_serve_opts){.address = ":9401",
				    .storage_path = "data",
				    .max_conns = 1024,
				    .max_conns_per_ip = 64,
				    .read_header_timeout_ms = 10000,
				    .query_concurrency = 4,
				    .query_timeout_ms = 2 * 60 * 1000,
				    .query_max_samples = 50000000};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *val = NULL;
		char name[64];
		snprintf(name, sizeof(name), "%.*s",
			 (int)(eq && a[0] == '-' && a[1] == '-' ? eq - a : (long)strlen(a)), a);
		bool takes = false;
		for (size_t k = 0; k < sizeof(takes_value) / sizeof(takes_value[0]); k++)
			takes |= strcmp(name, takes_value[k]) == 0;
		if (takes) {
			if (eq && a[1] == '-')
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				fprintf(stderr, "gpuwatch serve: %s needs a value\n", name);
				return 2;
			}
		}
		if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
			usage(stdout);
			return 1;
		} else if (strcmp(name, "--storage.path") == 0) {
			o->storage_path = val;
		} else if (strcmp(name, "-a") == 0 || strcmp(name, "--address") == 0 ||
			   strcmp(name, "--web.listen-address") == 0) {
			o->address = val;
		} else if (strcmp(name, "--web.config.file") == 0 || strcmp(name, "--web-config-file") == 0) {
			*web_config = val;
		} else if (strcmp(name, "--query.max-concurrency") == 0) {
			if (agent_args_count("serve", name, val, 1, 1024, &o->query_concurrency))
				return 2;
		} else if (strcmp(name, "--query.timeout") == 0) {
			if (agent_args_timeout("serve", name, val, false, &o->query_timeout_ms))
				return 2;
		} else if (strcmp(name, "--query.max-samples") == 0) {
			if (agent_args_count("serve", name, val, 1, 2000000000, &o->query_max_samples))
				return 2;
		} else if (strcmp(name, "--web.max-connections") == 0) {
			if (agent_args_count("serve", name, val, 1, 1000000, &o->max_conns))
				return 2;
		} else if (strcmp(name, "--web.max-connections-per-ip") == 0) {
			if (agent_args_count("serve", name, val, 0, 1000000, &o->max_conns_per_ip))
				return 2;
		} else if (strcmp(name, "--web.read-header-timeout") == 0) {
			if (agent_args_timeout("serve", name, val, true, &o->read_header_timeout_ms))
				return 2;
		} else {
			fprintf(stderr, "gpuwatch serve: unknown option '%s'; see 'gpuwatch serve --help'\n", a);
			return 2;
		}
	}
	return 0;
}

int gw_cmd_serve(int argc, char **argv, const struct gw_cli *cli)
{
	(void)cli;
	struct gw_serve_opts o;
	const char *web_config = NULL;
	int rc = parse(argc, argv, &o, &web_config);
	if (rc)
		return rc == 1 ? 0 : rc;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* before any thread starts: sigwait() below takes them */
	o.log = gw_cli_log;
	struct gw_webcfg web = {0};
	struct gw_err err;
	gw_err_clear(&err);
	if (web_config && gw_webcfg_load(&web, web_config, &err) != 0) {
		gw_cli_log("error", "msg=\"bad web config\" file=%s err=\"%s\"", web_config, err.msg);
		return 1;
	}
	struct gw_serve *s = NULL;
	if (gw_serve_start(&s, &web, &o, &err) != 0) {
		gw_cli_log("error", "msg=\"cannot serve\" err=\"%s\"", err.msg);
		gw_serve_free(s);
		return 1;
	}
	int sig = 0;
	while (sigwait(&set, &sig) != 0)
		;
	gw_cli_log("info", "msg=\"shutting down\" signal=%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
	gw_serve_free(s);
	return 0;
}
