/* agent_args.c - `gpuwatch agent --help` and its options (agent_args.h). */
#include "cmd/agent_args.h"

#include "promql/ast.h"

#include <stddef.h>
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
		"      --memory.forecast-window D   the OOM forecast's trend window (default 10m):\n"
		"                              gpuwatch_memory_time_to_full_seconds while memory grows\n"
		"      --anomaly.window D      the live anomaly scores' baseline (default 1h; 0: off):\n"
		"                              gpuwatch_anomaly_score by GPU and metric, docs/ANOMALIES.md\n"
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
		"      --web.enable-push       act as a Prometheus Pushgateway: PUT/POST/DELETE on\n"
		"                              /metrics/job/NAME{/LABEL/VALUE}; pushed groups on /metrics\n"
		"                              and each push in the history; a pushed\n"
		"                              gpuwatch_training_tokens_total gives gpuwatch_training_*\n"
		"                              (MFU, tokens/s, tokens/J: docs/EFFICIENCY.md)\n"
		"      --query.max-concurrency N   queries run at once (default 4); up to 16*N more\n"
		"                              wait, beyond that a query is answered 503\n"
		"      --query.timeout D       longest a query may run, or wait to run (default 2m)\n"
		"      --query.max-samples N   samples one query may hold in memory: loaded, plus a\n"
		"                              range query's answer (default 50000000, as Prometheus)\n"
		"      --scrape [JOB=]URL[@INTERVAL]   pull a Prometheus endpoint beside the GPUs (an\n"
		"                              inference server's /metrics: Triton :8002, vLLM) into the\n"
		"                              history with job=JOB (default \"scrape\") and\n"
		"                              instance=HOST:PORT, plus up and scrape_duration_seconds;\n"
		"                              every INTERVAL (default 15s; timeout the interval, at most\n"
		"                              10s); repeatable; see docs/SCRAPE.md\n"
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
		"      --policy FILE           health policies: conditions (dbe, xid, retired_pages, ...)\n"
		"                              and actions (log, exec, webhook), reloaded on SIGHUP;\n"
		"                              see docs/HEALTH.md\n"
		"      --external-label NAME=VALUE  added to alerts and remote-written samples\n"
		"                              (repeatable), $externalLabels in templates\n"
		"      --web.external-url URL  the agent as users reach it: alerts' generatorURL\n"
		"                              (default http://HOST:PORT)\n"
		"Remote write (Prometheus' remote-write 1.0, from the history store; docs/REMOTE_WRITE.md):\n"
		"      --remote-write.url URL  send every stored sample there (repeatable); a receiver\n"
		"                              that was down gets all it missed, in order; the options\n"
		"                              below apply to the URL before them\n"
		"      --remote-write.username USER, --remote-write.password PASS | --remote-write.password-file FILE\n"
		"                              basic auth\n"
		"      --remote-write.bearer-token TOKEN | --remote-write.bearer-token-file FILE\n"
		"      --remote-write.header 'NAME: VALUE'   extra header (repeatable), e.g. X-Scope-OrgID\n"
		"      --remote-write.tls-ca-file FILE, --remote-write.tls-cert-file FILE,\n"
		"      --remote-write.tls-key-file FILE, --remote-write.tls-insecure-skip-verify\n"
		"      --remote-write.keep REGEX   send only metrics whose name matches (anchored)\n"
		"      --remote-write.drop REGEX   do not send metrics whose name matches\n"
		"      --remote-write.timeout D     a request's limit (default 30s)\n"
		"      --remote-write.max-shards N  requests in flight at once (default 200)\n"
		"      --remote-write.max-samples-per-send N   (default 500)\n"
		"      --remote-write.batch-send-deadline D    longest a sample waits (default 5s)\n"
		"      --remote-write.min-backoff D, --remote-write.max-backoff D   retry waits (30ms, 5s)\n"
		"      --remote-write.retry-on-http-429   retry 429 answers too (default: dropped, as\n"
		"                              Prometheus 2.42); 5xx and lost connections are retried\n"
		"      (--external-label NAME=VALUE is added to the samples sent, too)\n"
		"  -h, --help                  show this help\n\n"
		"Endpoints: /metrics (text 0.0.4, or OpenMetrics when asked), /health, /,\n"
		"/api/v1/{query,query_range,series,labels,label/NAME/values,metadata,status/buildinfo},\n"
		"/api/v1/{rules,alerts,health}, POST /-/reload\n"
		"Signals: SIGTERM/SIGINT stop; SIGHUP reloads the counters, rule and policy files.\n");
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
	free(o->rws);
	o->rws = NULL;
	free(o->scrapes);
	o->scrapes = NULL;
}

/* --scrape [JOB=]URL[@INTERVAL] (ingest/scrape.h), every 15 s unless it says. */
static int scrape_add(struct agent_args *o, const char *val, int argc)
{
	if (!o->scrapes && !(o->scrapes = calloc((size_t)argc, sizeof(*o->scrapes)))) {
		fprintf(stderr, "gpuwatch agent: out of memory\n");
		return 2;
	}
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_scrape_target *t = &o->scrapes[o->ao.nscrapes];
	if (gw_scrape_target_parse(val, 15000, gw_promql_duration, t, &err) != 0) {
		fprintf(stderr, "gpuwatch agent: --scrape %s: %s\n", val, err.msg);
		return 2;
	}
	for (size_t i = 0; i < o->ao.nscrapes; i++)
		if (strcmp(o->scrapes[i].job, t->job) == 0 && strcmp(o->scrapes[i].instance, t->instance) == 0) {
			fprintf(stderr,
				"gpuwatch agent: --scrape %s: job %s already scrapes %s (give each target its own "
				"JOB=)\n",
				val, t->job, t->instance);
			return 2;
		}
	o->ao.scrapes = o->scrapes;
	o->ao.nscrapes++;
	return 0;
}

/*
 * --remote-write.*: each option but the URL applies to the URL before it,
 * as a remote_write entry of Prometheus' configuration holds its own.
 */
enum rw_kind { RW_STR, RW_FLAG, RW_HEADER, RW_DUR, RW_COUNT };
static const struct rw_flag {
	const char *name;
	enum rw_kind kind;
	size_t off; /* in struct gw_rw_opts */
	unsigned int lo, hi; /* RW_COUNT */
} rw_flags[] = {
	{"--remote-write.username", RW_STR, offsetof(struct gw_rw_opts, username), 0, 0},
	{"--remote-write.password", RW_STR, offsetof(struct gw_rw_opts, password), 0, 0},
	{"--remote-write.password-file", RW_STR, offsetof(struct gw_rw_opts, password_file), 0, 0},
	{"--remote-write.bearer-token", RW_STR, offsetof(struct gw_rw_opts, bearer_token), 0, 0},
	{"--remote-write.bearer-token-file", RW_STR, offsetof(struct gw_rw_opts, bearer_token_file), 0, 0},
	{"--remote-write.tls-ca-file", RW_STR, offsetof(struct gw_rw_opts, ca_file), 0, 0},
	{"--remote-write.tls-cert-file", RW_STR, offsetof(struct gw_rw_opts, cert_file), 0, 0},
	{"--remote-write.tls-key-file", RW_STR, offsetof(struct gw_rw_opts, key_file), 0, 0},
	{"--remote-write.tls-insecure-skip-verify", RW_FLAG, offsetof(struct gw_rw_opts, insecure_skip_verify), 0, 0},
	{"--remote-write.header", RW_HEADER, 0, 0, 0},
	{"--remote-write.keep", RW_STR, offsetof(struct gw_rw_opts, keep), 0, 0},
	{"--remote-write.drop", RW_STR, offsetof(struct gw_rw_opts, drop), 0, 0},
	{"--remote-write.timeout", RW_DUR, offsetof(struct gw_rw_opts, timeout_ms), 0, 0},
	{"--remote-write.max-shards", RW_COUNT, offsetof(struct gw_rw_opts, max_shards), 1, 1000},
	{"--remote-write.max-samples-per-send", RW_COUNT, offsetof(struct gw_rw_opts, max_samples_per_send), 1, 100000},
	{"--remote-write.batch-send-deadline", RW_DUR, offsetof(struct gw_rw_opts, batch_send_deadline_ms), 0, 0},
	{"--remote-write.min-backoff", RW_DUR, offsetof(struct gw_rw_opts, min_backoff_ms), 0, 0},
	{"--remote-write.max-backoff", RW_DUR, offsetof(struct gw_rw_opts, max_backoff_ms), 0, 0},
	{"--remote-write.retry-on-http-429", RW_FLAG, offsetof(struct gw_rw_opts, retry_on_429), 0, 0},
};
#define NRW_FLAGS (sizeof(rw_flags) / sizeof(rw_flags[0]))

static const struct rw_flag *rw_flag(const char *name)
{
	for (size_t i = 0; i < NRW_FLAGS; i++)
		if (strcmp(rw_flags[i].name, name) == 0)
			return &rw_flags[i];
	return NULL;
}

/* An option that takes a value: the URL, and the per-URL ones but the switches. */
static bool rw_takes(const char *name)
{
	const struct rw_flag *f = rw_flag(name);
	return strcmp(name, "--remote-write.url") == 0 || (f && f->kind != RW_FLAG);
}

/* 0: parsed; 2: a bad value, reported. */
static int rw_parse(struct agent_args *o, const struct rw_flag *f, const char *val, int argc)
{
	if (!f) { /* --remote-write.url */
		if (strncmp(val, "http://", 7) != 0 && strncmp(val, "https://", 8) != 0) {
			fprintf(stderr, "gpuwatch agent: --remote-write.url wants an http:// or https:// URL, got \"%s\"\n",
				val);
			return 2;
		}
		if (!o->rws && !(o->rws = calloc((size_t)argc, sizeof(*o->rws)))) {
			fprintf(stderr, "gpuwatch agent: out of memory\n");
			return 2;
		}
		o->rws[o->ao.nremote_writes].url = val;
		o->ao.remote_writes = o->rws;
		o->ao.nremote_writes++;
		return 0;
	}
	if (!o->ao.nremote_writes) {
		fprintf(stderr, "gpuwatch agent: %s applies to the --remote-write.url before it, and none was given\n",
			f->name);
		return 2;
	}
	struct gw_rw_opts *rw = &o->rws[o->ao.nremote_writes - 1];
	char *at = (char *)rw + f->off;
	switch (f->kind) {
	case RW_STR:
		*(const char **)at = val;
		return 0;
	case RW_FLAG:
		*(bool *)at = true;
		return 0;
	case RW_HEADER:
		if (!strchr(val, ':') || val[0] == ':' || rw->nheaders == GW_RW_MAX_HEADERS) {
			fprintf(stderr, "gpuwatch agent: --remote-write.header wants \"Name: value\" (at most %d a URL), got "
					"\"%s\"\n",
				GW_RW_MAX_HEADERS, val);
			return 2;
		}
		rw->headers[rw->nheaders++] = val;
		return 0;
	case RW_DUR:
		return parse_timeout(f->name, val, false, (int64_t *)at) ? 2 : 0;
	case RW_COUNT:
		return parse_count(f->name, val, f->lo, f->hi, (unsigned int *)at) ? 2 : 0;
	}
	return 2;
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
			     strcmp(name, "--web.external-url") == 0 || strcmp(name, "--memory.forecast-window") == 0 ||
			     strcmp(name, "--anomaly.window") == 0 ||
			     strcmp(name, "--policy") == 0 || rw_takes(name) || strcmp(name, "--scrape") == 0 ||
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
		} else if (strcmp(name, "--memory.forecast-window") == 0) {
			int64_t ms;
			if (gw_promql_duration(val, strlen(val), &ms) != 0 || ms < 1000 || ms > 7 * 86400000LL) {
				fprintf(stderr, "gpuwatch agent: --memory.forecast-window wants a duration from 1s to 7d, "
						"got \"%s\"\n",
					val);
				return 2;
			}
			o->ao.forecast_window_ms = ms;
		} else if (strcmp(name, "--anomaly.window") == 0) {
			int64_t ms = 0;
			if (strcmp(val, "0") != 0 &&
			    (gw_promql_duration(val, strlen(val), &ms) != 0 || ms < 2000 || ms > 7 * 86400000LL)) {
				fprintf(stderr, "gpuwatch agent: --anomaly.window wants 0 (off) or a duration from 2s to 7d, "
						"got \"%s\"\n",
					val);
				return 2;
			}
			o->ao.anomaly_window_ms = ms ? ms : -1;
		} else if (strcmp(name, "--instance") == 0) {
			o->ao.instance = val;
		} else if (strcmp(name, "--no-history") == 0) {
			o->ao.no_history = true;
		} else if (strcmp(name, "--web.enable-import") == 0) {
			o->ao.enable_import = true;
		} else if (strcmp(name, "--web.enable-push") == 0) {
			o->ao.enable_push = true;
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
		} else if (strcmp(name, "--remote-write.url") == 0 || rw_flag(name)) {
			if (rw_parse(o, rw_flag(name), val, argc))
				return 2;
		} else if (strcmp(name, "--scrape") == 0) {
			if (scrape_add(o, val, argc))
				return 2;
		} else if (strcmp(name, "--web.external-url") == 0) {
			o->ao.external_url = val;
		} else if (strcmp(name, "--policy") == 0) {
			o->ao.policy_file = val;
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
