#include "cmd/cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <string.h>

int gw_cli_open_nvml(const struct gw_cli *cli, struct gw_nvml **nv)
{
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.library = NULL, .sim = cli->sim};
	int rc = gw_nvml_open(nv, &opts, &err);
	if (rc == 0) {
		/*
		 * Standard output stays byte-compatible with nvidia-smi; the label
		 * that these GPUs are simulated goes to standard error.
		 */
		if (cli->sim)
			fprintf(stderr, "gpuwatch: SIMULATED GPUs (--sim %s), not real hardware\n", cli->sim);
		return 0;
	}
	if (cli->sim) {
		fprintf(stderr, "gpuwatch: %s\n", err.msg[0] ? err.msg : gw_strerror(rc));
		return rc == GW_EINVAL ? GW_EXIT_BADARG : GW_EXIT_OTHER;
	}
	switch (rc) {
	case GW_ENOLIB:
		printf("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. "
		       "Please make sure that the NVIDIA Display Driver is properly installed and present "
		       "in your system.\nPlease also try adding directory that contains libnvidia-ml.so to "
		       "your system PATH.\n");
		fprintf(stderr, "gpuwatch: %s\nhint: no NVIDIA driver here? try the simulated fleet: "
				"gpuwatch --sim 8xH200 %s\n",
			err.msg, cli->argv0 ? cli->argv0 : "smi");
		return GW_EXIT_NOLIB;
	case GW_ENODRIVER:
		printf("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
		       "Make sure that the latest NVIDIA driver is installed and running.\n\n");
		fprintf(stderr, "gpuwatch: %s\nhint: no NVIDIA driver here? try the simulated fleet: "
				"gpuwatch --sim 8xH200 %s\n",
			err.msg, cli->argv0 ? cli->argv0 : "smi");
		return GW_EXIT_NODRIVER;
	default:
		fprintf(stderr, "gpuwatch: %s\n", err.msg[0] ? err.msg : gw_strerror(rc));
		return GW_EXIT_OTHER;
	}
}

int gw_cli_finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "gpuwatch: write error on standard output: %s\n", strerror(errno));
		return GW_EXIT_OTHER;
	}
	return 0;
}

void gw_cli_log(const char *level, const char *fmt, ...)
{
	char ts[40];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "ts=%s.%03ldZ level=%s ", ts, now.tv_nsec / 1000000, level);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
