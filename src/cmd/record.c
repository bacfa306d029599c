/*
 * record.c - `gpuwatch record -- CMD [ARGS...]`: runs CMD for a CI job,
 * forwards SIGINT and SIGTERM to it, exits with its exit code (127 when it
 * cannot be started, 128+N when signal N ended it, as a shell does) and
 * writes a JSON summary of the run: argv, exit status, duration, and the
 * GPUs sampled while CMD ran (record_gpu.c: per-GPU statistics, energy,
 * peak memory, the report over the run). --assert expressions are parsed
 * before CMD starts and evaluated over the recorded store when it exits;
 * --baseline compares the run's totals with an earlier summary
 * (record_baseline.c); --junit writes the command, the asserts and the
 * baseline's checks as JUnit test cases (record_junit.c).
 */
#include "cmd/record_int.h"

#include "api/json.h"
#include "api/prom_api.h"
#include "core/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ME "gpuwatch record"
#define EXIT_ASSERT 30	    /* an --assert failed (health uses 20 and 21) */
#define EXIT_BASELINE 31    /* worse than --baseline beyond --tolerance */
#define MIN_INTERVAL_MS 100 /* --interval's minimum */

/* The child to forward signals to; a signal handler can reach nothing else. */
static volatile sig_atomic_t forward_pid;

struct args {
	const char *out, *store, *junit, *baseline;
	unsigned int interval_ms;
	double tolerance; /* --tolerance: 0.1 for 10 % */
	struct record_assert *asserts; /* [nasserts], the roots owned */
	size_t nasserts;
	char **cmd;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuwatch record [options] -- CMD [ARGS...]\n"
		"       gpuwatch --sim SPEC record [options] -- CMD [ARGS...]\n\n"
		"Run CMD for a CI job, sample the GPUs while it runs and write a JSON summary:\n"
		"CMD's argv, exit status and duration, per-GPU statistics, energy, peak memory\n"
		"and the report over the run. SIGINT and SIGTERM are forwarded to CMD.\n"
		"See docs/RECORD.md.\n\n"
		"Options:\n"
		"  -o, --output FILE      write the summary to FILE (default metrics.json)\n"
		"  --interval D           sample every D (default 1s, at least 100ms)\n"
		"  --storage.path DIR     keep the samples in the store DIR (default: a temporary\n"
		"                         store under $TMPDIR, removed at the end)\n"
		"  --assert 'PROMQL'      at CMD's exit, evaluate PROMQL over the run (instant query\n"
		"                         at its end); an empty result fails; repeatable\n"
		"  --junit FILE           write the command and each assert as JUnit XML test cases\n"
		"  --baseline OLD.json    compare mean utilisation, energy and peak memory with an\n"
		"                         earlier run's summary; worse beyond the tolerance fails\n"
		"  --tolerance P          the baseline's tolerance, in percent (default 10%%)\n"
		"  -h, --help             show this help\n\n"
		"Exit status: CMD's own exit code; 128+N when signal N ended CMD; 127 CMD not\n"
		"found, 126 not executable; 30 an assert failed; 31 a regression against the\n"
		"baseline; 2 bad arguments (an assert that does not parse, an unreadable baseline:\n"
		"CMD is not run); 1 the summary or the JUnit file could not be written. CMD's own\n"
		"non-zero code wins, then 30, then 31.\n");
}

static void on_signal(int sig)
{
	pid_t pid = (pid_t)forward_pid;
	if (pid > 0)
		kill(pid, sig);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start CMD; the exec error travels back over a close-on-exec pipe. */
static pid_t spawn(char **cmd, int *exec_errno)
{
	int fds[2];
	*exec_errno = 0;
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		(void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
		execvp(cmd[0], cmd);
		int e = errno;
		(void)!write(fds[1], &e, sizeof(e));
		_exit(127);
	}
	close(fds[1]);
	if (pid > 0) {
		/* at once, not after exec: a signal while CMD starts up must reach it too */
		forward_pid = pid;
		int e = 0;
		ssize_t n;
		while ((n = read(fds[0], &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)sizeof(e))
			*exec_errno = e;
	}
	close(fds[0]);
	return pid;
}

static int write_file(const char *path, const struct gw_buf *b)
{
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(b->data ? b->data : "", 1, b->len, f) == b->len;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, ME ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static void json_asserts(struct gw_buf *b, const struct args *a)
{
	gw_buf_puts(b, ",\"asserts\":[");
	for (size_t i = 0; i < a->nasserts; i++) {
		gw_buf_puts(b, i ? ",{\"expr\":" : "{\"expr\":");
		gw_json_str(b, a->asserts[i].expr);
		gw_buf_printf(b, ",\"passed\":%s,\"message\":", a->asserts[i].passed ? "true" : "false");
		if (a->asserts[i].passed)
			gw_buf_puts(b, "null}");
		else {
			gw_json_str(b, a->asserts[i].msg);
			gw_buf_putc(b, '}');
		}
	}
	gw_buf_putc(b, ']');
}

static int write_summary(const struct args *a, const struct record_gpus *g, const struct record_baseline *base,
			 int status, int code, int64_t dur_ms)
{
	struct gw_buf b;
	gw_buf_init(&b, (size_t)1 << 30);
	gw_buf_puts(&b, "{\"argv\":[");
	for (size_t i = 0; a->cmd[i]; i++) {
		if (i)
			gw_buf_putc(&b, ',');
		gw_json_str(&b, a->cmd[i]);
	}
	gw_buf_printf(&b, "],\"exit_code\":%d,", code);
	if (status >= 0 && WIFSIGNALED(status))
		gw_buf_printf(&b, "\"signal\":%d,", WTERMSIG(status));
	else
		gw_buf_puts(&b, "\"signal\":null,");
	gw_buf_printf(&b, "\"duration_seconds\":%.3f", (double)dur_ms / 1000.0);
	record_gpus_json(g, &b);
	json_asserts(&b, a);
	record_baseline_json(base, &b);
	gw_buf_puts(&b, "}\n");
	int rc = write_file(a->out, &b);
	gw_buf_release(&b);
	return rc;
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static int parse_interval(const char *s, unsigned int *ms)
{
	int64_t v = 0;
	if (gw_api_parse_duration(s, &v) != 0 || v < MIN_INTERVAL_MS || v > 3600000) {
		fprintf(stderr, ME ": --interval %s: not a duration from 100ms to 1h (e.g. 1s, 250ms)\n", s);
		return GW_EXIT_BADARG;
	}
	*ms = (unsigned int)v;
	return 0;
}

/* --assert EXPR: parsed now, so that a mistake stops the job before CMD runs. */
static int add_assert(struct args *a, const char *expr)
{
	struct record_assert *as = &a->asserts[a->nasserts];
	memset(as, 0, sizeof(*as));
	as->expr = expr;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_promql_parse(expr, &as->root, &err) != 0) {
		fprintf(stderr, ME ": --assert '%s': %s\n", expr, err.msg);
		return GW_EXIT_BADARG;
	}
	a->nasserts++;
	return 0;
}

static int parse_tolerance(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 1000)) {
		fprintf(stderr, ME ": --tolerance %s: not a percentage (e.g. 10%% or 10)\n", s);
		return GW_EXIT_BADARG;
	}
	*out = v / 100.0;
	return 0;
}

static const char *const valued[] = {"-o",	 "--output",   "--interval", "--storage.path",
				     "--assert", "--junit",    "--baseline", "--tolerance"};

static bool takes_value(const char *s)
{
	for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
		if (strcmp(s, valued[i]) == 0)
			return true;
	return false;
}

static int set_option(struct args *a, const char *s, const char *v)
{
	if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0)
		a->out = v;
	else if (strcmp(s, "--storage.path") == 0)
		a->store = v;
	else if (strcmp(s, "--junit") == 0)
		a->junit = v;
	else if (strcmp(s, "--baseline") == 0)
		a->baseline = v;
	else if (strcmp(s, "--tolerance") == 0)
		return parse_tolerance(v, &a->tolerance);
	else if (strcmp(s, "--interval") == 0)
		return parse_interval(v, &a->interval_ms);
	else
		return add_assert(a, v);
	return 0;
}

/* 0: run a->cmd; -1: --help shown; else the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
	*a = (struct args){.out = "metrics.json", .interval_ms = 1000, .tolerance = 0.1};
	a->asserts = calloc((size_t)argc, sizeof(*a->asserts));
	if (!a->asserts) {
		fprintf(stderr, ME ": out of memory\n");
		return 1;
	}
	int i = 1, rc = 0;
	for (; i < argc && !rc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			usage(stdout);
			return -1;
		} else if (strcmp(s, "--") == 0) {
			a->cmd = i + 1 < argc ? argv + i + 1 : NULL;
			break;
		} else if (takes_value(s)) {
			if (i + 1 >= argc) {
				fprintf(stderr, ME ": %s needs a value\n", s);
				return GW_EXIT_BADARG;
			}
			rc = set_option(a, s, argv[++i]);
		} else {
			fprintf(stderr, ME ": unknown option %s (the command goes after --)\n", s);
			usage(stderr);
			return GW_EXIT_BADARG;
		}
	}
	if (!rc && !a->cmd) {
		fprintf(stderr, ME ": no command to run: gpuwatch record [options] -- CMD [ARGS...]\n");
		return GW_EXIT_BADARG;
	}
	return rc;
}

static void free_args(struct args *a)
{
	for (size_t i = 0; i < a->nasserts; i++)
		gw_promql_free(a->asserts[i].root);
	free(a->asserts);
}

/* Run CMD to its end, forwarding signals; *status as waitpid gives it (-1: lost), *exec_errno. */
static int run_cmd(char **cmd, int *status, int *exec_errno)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	struct sigaction old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	pid_t pid = spawn(cmd, exec_errno);
	if (pid < 0) {
		fprintf(stderr, ME ": cannot start %s: %s\n", cmd[0], strerror(errno));
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return 1;
	}
	*status = 0;
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			*status = -1;
			break;
		}
	}
	forward_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return 0;
}

static int finish(struct args *a, struct record_gpus *g, struct record_baseline *base, int status, int exec_errno,
		  int64_t dur)
{
	int code = status < 0 ? 1 : exit_code_of(status);
	if (exec_errno) {
		fprintf(stderr, ME ": %s: %s\n", a->cmd[0],
			exec_errno == ENOENT ? "command not found" : strerror(exec_errno));
		code = exec_errno == ENOENT ? 127 : 126;
	}
	record_gpus_report(g);
	int failed = 0;
	for (size_t i = 0; i < a->nasserts; i++) {
		record_assert_eval(g, &a->asserts[i]);
		if (!a->asserts[i].passed) {
			fprintf(stderr, ME ": assert failed: %s (%s)\n", a->asserts[i].expr, a->asserts[i].msg);
			failed++;
		}
	}
	record_baseline_compare(base, g);
	int werr = write_summary(a, g, base, status, code, dur);
	if (a->junit && record_junit_write(a->junit, a->cmd, code, (double)dur / 1000.0, a->asserts,
					    a->nasserts, base) != 0)
		werr = 1;
	if (code)
		return code;
	return failed ? EXIT_ASSERT : base->regressions ? EXIT_BASELINE : werr;
}

int gw_cmd_record(int argc, char **argv, const struct gw_cli *cli)
{
	struct args a;
	int rc = parse_args(argc, argv, &a);
	if (rc) {
		free_args(&a);
		return rc < 0 ? 0 : rc;
	}
	struct record_baseline base = {.path = NULL};
	if (a.baseline && (rc = record_baseline_load(&base, a.baseline, a.tolerance)) != 0) {
		free_args(&a);
		return rc;
	}
	struct record_gpus g;
	if ((rc = record_gpus_open(&g, cli, a.store, a.interval_ms)) != 0) {
		free_args(&a);
		return rc;
	}
	int64_t t0 = now_ms();
	int status = -1, exec_errno = 0;
	rc = run_cmd(a.cmd, &status, &exec_errno);
	int64_t dur = now_ms() - t0;
	record_gpus_stop(&g);
	if (!rc)
		rc = finish(&a, &g, &base, status, exec_errno, dur);
	record_gpus_close(&g);
	free_args(&a);
	return rc;
}
