#include "cmd/smi_args.h"
#include "cmd/cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char gw_smi_invalid_args[] =
    "Invalid combination of input arguments. Please run 'gpuwatch smi -h' for help.\n";

int gw_smi_badarg(const char *fmt, ...)
{
	fputs(gw_smi_invalid_args, stdout);
	fflush(stdout); /* ours follows it on a terminal */
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GW_EXIT_BADARG;
}

int gw_smi_not_implemented(const char *arg, const char *cmd, const char *why)
{
	fprintf(stderr, "%s: not implemented by gpuwatch %s (%s)\n", arg, cmd, why);
	return GW_EXIT_NOTAVAIL;
}

/* nvidia-smi's options and commands (its -h) that gpuwatch smi lacks. */
static const char ONLY_READS[] = "it only reads";
static const char NOT_YET[] = "not yet";

static const struct {
	const char *shrt; /* NULL: long form only */
	const char *lng;  /* a command when it has no dashes */
	const char *why;
} theirs[] = {
    {"-B", "--list-excluded-gpus", NOT_YET},
    {"-col", "--columns", NOT_YET},
    {"-u", "--unit", NOT_YET},
    {NULL, "--dtd", NOT_YET},
    {NULL, "--debug", "NVIDIA's encrypted debug log"},
    {NULL, "--query-supported-clocks", NOT_YET},
    {NULL, "--help-query-supported-clocks", NOT_YET},
    {NULL, "--get-hostname", NOT_YET},
    {"-pm", "--persistence-mode", ONLY_READS},
    {"-e", "--ecc-config", ONLY_READS},
    {"-p", "--reset-ecc-errors", ONLY_READS},
    {"-c", "--compute-mode", ONLY_READS},
    {NULL, "--gom", ONLY_READS},
    {"-r", "--gpu-reset", ONLY_READS},
    {"-vm", "--virt-mode", ONLY_READS},
    {"-lgc", "--lock-gpu-clocks", ONLY_READS},
    {"-m", "--mode", ONLY_READS},
    {"-rgc", "--reset-gpu-clocks", ONLY_READS},
    {"-lmc", "--lock-memory-clocks", ONLY_READS},
    {"-rmc", "--reset-memory-clocks", ONLY_READS},
    {"-lmcd", "--lock-memory-clocks-deferred", ONLY_READS},
    {"-rmcd", "--reset-memory-clocks-deferred", ONLY_READS},
    {"-ac", "--applications-clocks", ONLY_READS},
    {"-rac", "--reset-applications-clocks", ONLY_READS},
    {"-pl", "--power-limit", ONLY_READS},
    {"-sc", "--scope", ONLY_READS},
    {"-cc", "--cuda-clocks", ONLY_READS},
    {"-am", "--accounting-mode", ONLY_READS},
    {"-caa", "--clear-accounted-apps", ONLY_READS},
    {NULL, "--auto-boost-default", ONLY_READS},
    {NULL, "--auto-boost-permission", ONLY_READS},
    {"-mig", "--multi-instance-gpu", ONLY_READS},
    {"-gtt", "--gpu-target-temp", ONLY_READS},
    {"-den", "--dram-encryption", ONLY_READS},
    {NULL, "--set-hostname", ONLY_READS},
    {"-eow", "--error-on-warning", ONLY_READS},
    {"-t", "--toggle-led", ONLY_READS},
    {NULL, "dmon", "use gpuwatch dmon"},
    {NULL, "pmon", "use gpuwatch pmon"},
    {NULL, "daemon", "use gpuwatch agent"},
    {NULL, "replay", "use gpuwatch query"},
    {NULL, "drain", NOT_YET},
    {NULL, "c2c", NOT_YET},
    {NULL, "clocks", NOT_YET},
    {NULL, "encodersessions", NOT_YET},
    {NULL, "fbcsessions", NOT_YET},
    {NULL, "vgpu", NOT_YET},
    {NULL, "mig", NOT_YET},
    {NULL, "compute-policy", NOT_YET},
    {NULL, "boost-slider", NOT_YET},
    {NULL, "power-hint", NOT_YET},
    {NULL, "base-clocks", NOT_YET},
    {NULL, "conf-compute", NOT_YET},
    {NULL, "gpm", NOT_YET},
    {NULL, "pci", NOT_YET},
    {NULL, "power-smoothing", NOT_YET},
    {NULL, "power-profiles", NOT_YET},
    {NULL, "rusd", NOT_YET},
    {NULL, "prm", NOT_YET},
    {NULL, "soc", NOT_YET},
};

/* "--name", "--name=value" */
static bool long_is(const char *a, const char *lng)
{
	size_t n = strlen(lng);
	return strncmp(a, lng, n) == 0 && (a[n] == '\0' || (a[n] == '=' && lng[0] == '-'));
}

int gw_smi_theirs(const char *arg)
{
	for (size_t i = 0; i < sizeof(theirs) / sizeof(theirs[0]); i++) {
		if (!long_is(arg, theirs[i].lng) && !(theirs[i].shrt && strcmp(arg, theirs[i].shrt) == 0))
			continue;
		char name[96];
		if (theirs[i].shrt)
			snprintf(name, sizeof(name), "%s/%s", theirs[i].shrt, theirs[i].lng);
		else
			snprintf(name, sizeof(name), "%s", theirs[i].lng);
		return gw_smi_not_implemented(name, "smi", theirs[i].why);
	}
	return -1;
}
