/* agent_args.c - `gpuwatch agent --help` and its options (agent_args.h). */
#include "cmd/agent_args.h"

#include "promql/ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuwatch [--sim SPEC] agent [options]\n\n"
		"Sample every GPU on a schedule and serve Prometheus metrics: dcgm-exporter's\n"
		"DCGM_FI_* families (same names, labels and units) and gpuwatch's native\n"
		"gpuwatch_* families, fresh to one sample interval.\n\n"
		"Options:\n"
		"  -a, --address ADDR          listen address (default :9400); also --web.listen-address\n"
		"  -c, --collect-interval MS   sample interval in ms (default 1000, minimum 10)\n"
		"      --slow-interval MS      ECC, retired pages, PCIe throughput (default 10000)\n"
		"      --process-interval MS   process lists (default 5000)\n"
		"  -f, --collectors FILE       dcgm-exporter counters CSV choosing the DCGM families\n"
		"      --no-native             leave out the gpuwatch_* families\n"
		"      --web.config.file FILE  TLS and basic auth, Prometheus exporter-toolkit format\n"
		"                              (also --web-config-file)\n"
		"      --proc-root DIR         read DIR/proc/PID/{cgroup,status} for process attribution\n"
		"                              (default /; with --sim the simulator's cgroups are used\n"
		"                              unless DIR is given)\n"
		"      --hpc-job-mapping-dir DIR   HPC job ids per GPU, one file per GPU named by its\n"
		"                              index (DIR/0, DIR/1, ...), one id per line, as Slurm\n"
		"                              prolog/epilog scripts write them for dcgm-exporter: each\n"
		"                              DCGM_FI_* series of a GPU once per job with hpc_job=\"ID\",\n"
		"                              and gpuwatch_hpc_job_info; re-read every sample (env\n"
		"                              DCGM_HPC_JOB_MAPPING_DIR; the option wins)\n"
		"  -k, --kubernetes            pod, namespace and container labels from the kubelet's\n"
		"                              pod-resources API on the GPUs (and processes) each pod\n"
		"                              container was given, as dcgm-exporter's -k (env\n"
		"                              DCGM_EXPORTER_KUBERNETES=true); while the socket does not\n"
		"                              answer, processes keep their cgroup attribution only\n"
		"      --kubernetes.pod-resources-socket PATH   the kubelet's socket (default\n"
		"                              /var/lib/kubelet/pod-resources/kubelet.sock; also\n"
		"                              --pod-resources-kubelet-socket)\n"
		"      --kubernetes.poll-interval D   ask the kubelet this often (default 5s)\n"
		"History (an embedded store answering Prometheus' query API):\n"
		"      --storage.path DIR      data directory (default data/)\n"
		"      --storage.retention.time D   keep this long (default 15d)\n"
		"      --storage.retention.size N   keep at most this much (e.g. 10GB; default no limit)\n"
		"      --storage.flush-interval D   write to disk this often (default: 25 sample\n"
		"                              intervals, within 1s..5s; a crash loses at most this\n"
		"                              much history)\n"
		"      --instance NAME         instance label of stored series (default: the host name)\n"
		"      --no-history            live metrics only: no store, no query API\n"
		"      --web.enable-import     accept `gpuwatch import --agent URL` (POST /api/v1/import):\n"
		"                              logs imported into the store the agent holds\n"
		"      --query.max-concurrency N   queries run at once (default 4); up to 16*N more\n"
		"                              wait, beyond that a query is answered 503\n"
		"      --query.timeout D       longest a query may run, or wait to run (default 2m)\n"
		"      --query.max-samples N   samples one query may hold in memory: loaded, plus a\n"
		"                              range query's answer (default 50000000, as Prometheus)\n"
		"Availability (what one client can take from the others):\n"
		"      --web.max-connections N      open connections in all (default 1024; lowered to\n"
		"                              fit the open-file limit)\n"
		"      --web.max-connections-per-ip N   of them from one address (default 64; 0: no\n"
		"                              limit, for clients behind one proxy)\n"
		"      --web.read-header-timeout D  time to send a request's headers, and again its\n"
		"                              body, however slowly they trickle (default 10s; 0: none)\n"
		"Alerting (Prometheus 2.42 rule files, evaluated against the history):\n"
		"      --rules PATH            a rule file or glob (repeatable); reloaded on SIGHUP and\n"
		"                              POST /-/reload; a file with an error is refused and the\n"
		"                              rules already running keep running\n"
		"      --rules.evaluation-interval D   groups without an interval (default 15s)\n"
		"      --rules.alert.for-outage-tolerance D   restore `for` state after a restart\n"
		"                              of at most this long (default 1h)\n"
		"      --rules.alert.for-grace-period D   least wait before an alert restored as\n"
		"                              pending fires (default 10m)\n"
		"      --rules.alert.resend-delay D   resend firing alerts this often (default 1m)\n"
		"      --alertmanager.url URL  send alerts to this Alertmanager's v2 API (repeatable)\n"
		"      --alert.webhook URL     POST alerts as Alertmanager's webhook JSON (repeatable)\n"
		"      --alert.log             log every alert sent\n"
		"      --external-label NAME=VALUE  added to alerts sent (repeatable), $externalLabels\n"
		"      --web.external-url URL  the agent as users reach it: alerts' generatorURL\n"
		"                              (default http://HOST:PORT)\n"
		"  -h, --help                  show this help\n\n"
		"Endpoints: /metrics (text 0.0.4, or OpenMetrics when asked), /health, /,\n"
		"/api/v1/{query,query_range,series,labels,label/NAME/values,metadata,status/buildinfo},\n"
		"/api/v1/{rules,alerts}, POST /-/reload\n"
		"Signals: SIGTERM/SIGINT stop; SIGHUP reloads the counters and rule files.\n");
}

static int parse_ms(const char *opt, const char *s, unsigned int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	/* 10 ms is the sampler's floor (collect/sampler.h): below it a tick
	 * cannot read 8 GPUs' fields before the next is due. */
	if (!*s || *end || v < 10 || v > 86400000) {
		fprintf(stderr, "gpuwatch agent: %s wants milliseconds (10..86400000), got \"%s\"\n", opt, s);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}



int agent_args_count(const char *cmd, const char *opt, const char *s, unsigned int lo, unsigned int hi,
		     unsigned int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < (long)lo || v > (long)hi) {
		fprintf(stderr, "gpuwatch %s: %s wants a number from %u to %u, got \"%s\"\n", cmd, opt, lo, hi, s);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

int agent_args_timeout(const char *cmd, const char *opt, const char *s, bool zero_ok, int64_t *ms)
{
	if (zero_ok && strcmp(s, "0") == 0) {
		*ms = 0;
		return 0;
	}
	if (gw_promql_duration(s, strlen(s), ms) != 0 || *ms < 0 || (*ms == 0 && !zero_ok) ||
	    *ms > 24LL * 3600 * 1000) {
		fprintf(stderr, "gpuwatch %s: %s wants a duration like 10s (at most 1d%s), got \"%s\"\n", cmd, opt,
			zero_ok ? "; 0 for none" : "", s);
		return -1;
	}
	return 0;
}

/* A count within lo..hi. */
static int parse_count(const char *opt, const char *s, unsigned int lo, unsigned int hi, unsigned int *out)
{
	return agent_args_count("agent", opt, s, lo, hi, out);
}

static int parse_timeout(const char *opt, const char *s, bool zero_ok, int64_t *ms)
{
	return agent_args_timeout("agent", opt, s, zero_ok, ms);
}

/* "15d", "12h" -> ms; "10GB", "512MiB", "1048576" -> bytes. */
static int parse_retention_time(const char *s, int64_t *ms)
{
	return gw_promql_duration(s, strlen(s), ms) == 0 && *ms > 0 ? 0 : -1;
}

static int parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	double v = strtod(s, &end);
	static const struct {
		const char *u;
		double m;
	} units[] = {{"", 1},   {"B", 1},         {"KB", 1e3},      {"MB", 1e6},      {"GB", 1e9},
		     {"TB", 1e12}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
	if (end == s || !(v > 0))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].u) == 0) {
			*bytes = (uint64_t)(v * units[i].m);
			return 0;
		}
	}
	return -1;
}

/* One value of a repeatable option; the lists share one array of argc slots (each value is one argument). */
static void list_add(struct agent_args *o, const char *const **list, size_t *n, const char *val, int argc)
{
	if (!o->lists && !(o->lists = calloc((size_t)(argc + 1) * 4, sizeof(*o->lists)))) {
		fprintf(stderr, "gpuwatch agent: out of memory\n");
		exit(1);
	}
	/* four lists, each with its own argc + 1 slots */
	size_t which = list == &o->ao.rule_files ? 0
		     : list == &o->ao.alertmanagers ? 1
		     : list == &o->ao.webhooks ? 2
						 : 3;
	const char **base = o->lists + which * (size_t)(argc + 1);
	base[*n] = val;
	*list = base;
	(*n)++;
}

void agent_args_release(struct agent_args *o)
{
	free(o->lists);
	o->lists = NULL;
}

int agent_parse_args(int argc, char **argv, struct agent_args *o)
{
	o->ao.address = ":9400";
	o->ao.native = true;
	o->ao.storage_path = "data";
	o->ao.retention_ms = 15LL * 24 * 3600 * 1000; /* Prometheus' default */
	/*
	 * 0: chosen in start_history() from the sample interval. Every flush
	 * writes a row per series to SQLite: at 8 GPUs (~1,300 series) a 1 s
	 * flush costs about 0.9 % of a core more than 5 s; but until a flush the
	 * samples wait raw (16 B each), so fast sampling flushes more often. A
	 * crash loses at most one interval of history; the live metrics nothing.
	 */
	o->ao.flush_interval_ms = 0;
	o->ao.max_conns = 1024;
	o->ao.max_conns_per_ip = 64;
	o->ao.read_header_timeout_ms = 10000;
	/*
	 * Prometheus runs 20 at once, on a server that does nothing else. The
	 * agent shares a GPU host with the job it watches; a query keeps one
	 * core busy and may hold up to 512 MiB of arena (gw_api.arena_limit),
	 * so 4 at once bound it to 4 cores and 2 GiB, and still let a Grafana
	 * dashboard's panels run a few at a time, the rest queued.
	 */
	o->ao.query_concurrency = 4;
	o->ao.query_timeout_ms = 2 * 60 * 1000; /* Prometheus' default */
	o->ao.query_max_samples = 50000000;     /* Prometheus' default */
	o->ao.hpc_dir = getenv("DCGM_HPC_JOB_MAPPING_DIR"); /* dcgm-exporter's variable; the option overrides it */
	const char *k8s = getenv("DCGM_EXPORTER_KUBERNETES"); /* dcgm-exporter's variable for -k */
	o->ao.kubernetes = k8s && (strcmp(k8s, "true") == 0 || strcmp(k8s, "1") == 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		const char *eq = strchr(a, '=');
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(eq && a[0] == '-' && a[1] == '-' ? eq - a : (long)strlen(a)),
			 a);
		bool takes = strcmp(name, "-a") == 0 || strcmp(name, "--address") == 0 ||
			     strcmp(name, "--web.listen-address") == 0 || strcmp(name, "-c") == 0 ||
			     strcmp(name, "--collect-interval") == 0 || strcmp(name, "--slow-interval") == 0 ||
			     strcmp(name, "--process-interval") == 0 || strcmp(name, "-f") == 0 ||
			     strcmp(name, "--collectors") == 0 || strcmp(name, "--web.config.file") == 0 ||
			     strcmp(name, "--web-config-file") == 0 || strcmp(name, "--proc-root") == 0 ||
			     strcmp(name, "--storage.path") == 0 || strcmp(name, "--storage.retention.time") == 0 ||
			     strcmp(name, "--storage.retention.size") == 0 || strcmp(name, "--instance") == 0 ||
			     strcmp(name, "--storage.flush-interval") == 0 || strcmp(name, "--hpc-job-mapping-dir") == 0 ||
			     strcmp(name, "--web.max-connections") == 0 || strcmp(name, "--web.max-connections-per-ip") == 0 ||
			     strcmp(name, "--web.read-header-timeout") == 0 || strcmp(name, "--query.max-concurrency") == 0 ||
			     strcmp(name, "--query.timeout") == 0 || strcmp(name, "--query.max-samples") == 0 ||
			     strcmp(name, "--rules") == 0 || strcmp(name, "--rules.evaluation-interval") == 0 ||
			     strcmp(name, "--rules.alert.for-outage-tolerance") == 0 ||
			     strcmp(name, "--rules.alert.for-grace-period") == 0 ||
			     strcmp(name, "--rules.alert.resend-delay") == 0 || strcmp(name, "--alertmanager.url") == 0 ||
			     strcmp(name, "--alert.webhook") == 0 || strcmp(name, "--external-label") == 0 ||
			     strcmp(name, "--web.external-url") == 0 ||
			     strcmp(name, "--kubernetes.pod-resources-socket") == 0 ||
			     strcmp(name, "--pod-resources-kubelet-socket") == 0 ||
			     strcmp(name, "--kubernetes.poll-interval") == 0;
		if (takes) {
			if (eq && a[1] == '-')
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				fprintf(stderr, "gpuwatch agent: %s needs a value\n", name);
				return 2;
			}
		}
		if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
			usage(stdout);
			return 1;
		} else if (strcmp(name, "-a") == 0 || strcmp(name, "--address") == 0 ||
			   strcmp(name, "--web.listen-address") == 0) {
			o->ao.address = val;
		} else if (strcmp(name, "-c") == 0 || strcmp(name, "--collect-interval") == 0) {
			if (parse_ms(name, val, &o->ao.so.interval_ms))
				return 2;
		} else if (strcmp(name, "--slow-interval") == 0) {
			if (parse_ms(name, val, &o->ao.so.slow_interval_ms))
				return 2;
		} else if (strcmp(name, "--process-interval") == 0) {
			if (parse_ms(name, val, &o->ao.so.proc_interval_ms))
				return 2;
		} else if (strcmp(name, "-f") == 0 || strcmp(name, "--collectors") == 0) {
			o->ao.counters = val;
		} else if (strcmp(name, "--web.config.file") == 0 || strcmp(name, "--web-config-file") == 0) {
			o->web_config = val;
		} else if (strcmp(name, "--proc-root") == 0) {
			o->ao.proc_root = val;
		} else if (strcmp(name, "--hpc-job-mapping-dir") == 0) {
			o->ao.hpc_dir = val;
		} else if (strcmp(name, "-k") == 0 || strcmp(name, "--kubernetes") == 0) {
			o->ao.kubernetes = true;
		} else if (strcmp(name, "--kubernetes.pod-resources-socket") == 0 ||
			   strcmp(name, "--pod-resources-kubelet-socket") == 0) {
			o->ao.podres_socket = val;
		} else if (strcmp(name, "--kubernetes.poll-interval") == 0) {
			int64_t ms;
			if (parse_timeout(name, val, false, &ms))
				return 2;
			o->ao.podres_interval_ms = ms < 100 ? 100 : (unsigned int)ms;
		} else if (strcmp(name, "--no-native") == 0) {
			o->ao.native = false;
		} else if (strcmp(name, "--storage.path") == 0) {
			o->ao.storage_path = val;
		} else if (strcmp(name, "--storage.retention.time") == 0) {
			if (parse_retention_time(val, &o->ao.retention_ms)) {
				fprintf(stderr, "gpuwatch agent: --storage.retention.time wants a duration like 15d, got \"%s\"\n",
					val);
				return 2;
			}
		} else if (strcmp(name, "--storage.retention.size") == 0) {
			if (parse_size(val, &o->ao.retention_bytes)) {
				fprintf(stderr, "gpuwatch agent: --storage.retention.size wants a size like 10GB, got \"%s\"\n",
					val);
				return 2;
			}
		} else if (strcmp(name, "--storage.flush-interval") == 0) {
			if (gw_promql_duration(val, strlen(val), &o->ao.flush_interval_ms) != 0 || o->ao.flush_interval_ms < 100) {
				fprintf(stderr, "gpuwatch agent: --storage.flush-interval wants a duration of 100ms or more, "
						"got \"%s\"\n",
					val);
				return 2;
			}
		} else if (strcmp(name, "--instance") == 0) {
			o->ao.instance = val;
		} else if (strcmp(name, "--no-history") == 0) {
			o->ao.no_history = true;
		} else if (strcmp(name, "--web.enable-import") == 0) {
			o->ao.enable_import = true;
		} else if (strcmp(name, "--web.max-connections") == 0) {
			if (parse_count(name, val, 1, 1000000, &o->ao.max_conns))
				return 2;
		} else if (strcmp(name, "--web.max-connections-per-ip") == 0) {
			if (parse_count(name, val, 0, 1000000, &o->ao.max_conns_per_ip))
				return 2;
		} else if (strcmp(name, "--web.read-header-timeout") == 0) {
			if (parse_timeout(name, val, true, &o->ao.read_header_timeout_ms))
				return 2;
		} else if (strcmp(name, "--query.max-concurrency") == 0) {
			if (parse_count(name, val, 1, 1024, &o->ao.query_concurrency))
				return 2;
		} else if (strcmp(name, "--query.timeout") == 0) {
			if (parse_timeout(name, val, false, &o->ao.query_timeout_ms))
				return 2;
		} else if (strcmp(name, "--query.max-samples") == 0) {
			if (parse_count(name, val, 1, 2000000000, &o->ao.query_max_samples))
				return 2;
		} else if (strcmp(name, "--rules") == 0) {
			list_add(o, &o->ao.rule_files, &o->ao.nrule_files, val, argc);
		} else if (strcmp(name, "--alertmanager.url") == 0) {
			if (strncmp(val, "http://", 7) != 0 && strncmp(val, "https://", 8) != 0) {
				fprintf(stderr, "gpuwatch agent: --alertmanager.url wants http://HOST:PORT, got \"%s\"\n", val);
				return 2;
			}
			list_add(o, &o->ao.alertmanagers, &o->ao.nalertmanagers, val, argc);
		} else if (strcmp(name, "--alert.webhook") == 0) {
			if (strncmp(val, "http://", 7) != 0 && strncmp(val, "https://", 8) != 0) {
				fprintf(stderr, "gpuwatch agent: --alert.webhook wants an http:// or https:// URL, got \"%s\"\n",
					val);
				return 2;
			}
			list_add(o, &o->ao.webhooks, &o->ao.nwebhooks, val, argc);
		} else if (strcmp(name, "--alert.log") == 0) {
			o->ao.alert_log = true;
		} else if (strcmp(name, "--external-label") == 0) {
			const char *e = strchr(val, '=');
			if (!e || e == val) {
				fprintf(stderr, "gpuwatch agent: --external-label wants NAME=VALUE, got \"%s\"\n", val);
				return 2;
			}
			list_add(o, &o->ao.external_labels, &o->ao.nexternal_labels, val, argc);
		} else if (strcmp(name, "--web.external-url") == 0) {
			o->ao.external_url = val;
		} else if (strcmp(name, "--rules.evaluation-interval") == 0) {
			if (parse_timeout(name, val, false, &o->ao.rule_interval_ms))
				return 2;
		} else if (strcmp(name, "--rules.alert.for-outage-tolerance") == 0) {
			if (parse_timeout(name, val, false, &o->ao.outage_tolerance_ms))
				return 2;
		} else if (strcmp(name, "--rules.alert.for-grace-period") == 0) {
			if (parse_timeout(name, val, false, &o->ao.for_grace_ms))
				return 2;
		} else if (strcmp(name, "--rules.alert.resend-delay") == 0) {
			if (parse_timeout(name, val, false, &o->ao.resend_delay_ms))
				return 2;
		} else {
			fprintf(stderr, "gpuwatch agent: unknown option '%s'; see 'gpuwatch agent --help'\n", a);
			return 2;
		}
	}
	return 0;
}
