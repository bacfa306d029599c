/*
 * record.c - `gpuwatch record -- CMD [ARGS...]`: runs CMD for a CI job,
 * forwards SIGINT and SIGTERM to it, exits with its exit code (127 when it
 * cannot be started, 128+N when signal N ended it, as a shell does) and
 * writes a JSON summary of the run (argv, exit status, duration).
 *
 * First step of issue #19: GPU sampling during the run, --assert, --junit
 * and --baseline are not implemented yet.
 */
#include "cmd/cmd.h"

#include "api/json.h"
#include "core/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child to forward signals to; a signal handler can reach nothing else. */
static volatile sig_atomic_t forward_pid;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuwatch record [-o FILE] -- CMD [ARGS...]\n\n"
		"Run CMD for a CI job and write a JSON summary of the run: CMD's argv, its exit\n"
		"status and the run's duration. SIGINT and SIGTERM are forwarded to CMD.\n"
		"See docs/RECORD.md.\n\n"
		"Options:\n"
		"  -o, --output FILE   write the summary to FILE (default metrics.json)\n"
		"  -h, --help          show this help\n\n"
		"Exit status: CMD's own exit code; 128+N when signal N ended CMD; 127 CMD not\n"
		"found, 126 not executable; 2 bad arguments; 1 the summary could not be written\n"
		"(CMD's own non-zero code wins).\n");
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

static int write_summary(const char *path, char **cmd, int status, int code, int64_t dur_ms)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	gw_buf_puts(&b, "{\"argv\":[");
	for (size_t i = 0; cmd[i]; i++) {
		if (i)
			gw_buf_putc(&b, ',');
		gw_json_str(&b, cmd[i]);
	}
	gw_buf_printf(&b, "],\"exit_code\":%d,", code);
	if (status >= 0 && WIFSIGNALED(status))
		gw_buf_printf(&b, "\"signal\":%d,", WTERMSIG(status));
	else
		gw_buf_puts(&b, "\"signal\":null,");
	gw_buf_printf(&b, "\"duration_seconds\":%.3f}\n", (double)dur_ms / 1000.0);
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(b.data, 1, b.len, f) == b.len;
	if (f && fclose(f) != 0)
		ok = 0;
	gw_buf_release(&b);
	if (!ok) {
		fprintf(stderr, "gpuwatch record: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int gw_cmd_record(int argc, char **argv, const struct gw_cli *cli)
{
	(void)cli;
	const char *out = "metrics.json";
	int i = 1;
	for (; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(s, "--") == 0) {
			i++;
			break;
		} else if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gpuwatch record: %s needs a FILE\n", s);
				return GW_EXIT_BADARG;
			}
			out = argv[++i];
		} else {
			fprintf(stderr, "gpuwatch record: unknown option %s (the command goes after --)\n", s);
			usage(stderr);
			return GW_EXIT_BADARG;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "gpuwatch record: no command to run: gpuwatch record [-o FILE] -- CMD [ARGS...]\n");
		return GW_EXIT_BADARG;
	}
	char **cmd = argv + i;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	struct sigaction old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int64_t t0 = now_ms();
	int exec_errno;
	pid_t pid = spawn(cmd, &exec_errno);
	if (pid < 0) {
		fprintf(stderr, "gpuwatch record: cannot start %s: %s\n", cmd[0], strerror(errno));
		return 1;
	}
	forward_pid = pid;
	int status = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	forward_pid = 0;
	int64_t dur = now_ms() - t0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	int code = status < 0 ? 1 : exit_code_of(status);
	if (exec_errno) {
		fprintf(stderr, "gpuwatch record: %s: %s\n", cmd[0],
			exec_errno == ENOENT ? "command not found" : strerror(exec_errno));
		code = exec_errno == ENOENT ? 127 : 126;
	}
	int werr = write_summary(out, cmd, status, code, dur);
	return code != 0 ? code : werr;
}
