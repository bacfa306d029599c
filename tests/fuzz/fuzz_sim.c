/*
 * fuzz_sim.c - the simulator's inputs: `--sim` specs and scenario files.
 * Built with the simulator's sources, as the library that --sim loads.
 *
 * Invariants: a spec or file is configured or refused with a message;
 * nothing it says can hang the simulator or overflow its numbers (each key
 * is range-checked).
 */
#include "fuzz.h"

#include <unistd.h>

int gwsim_configure(const char *spec, char *errbuf, unsigned int errlen);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1 || n > 1 << 15)
		return 0;
	char err[512] = "";
	if (d[0] & 1) {
		char *spec = fuzz_cstr(d + 1, n - 1);
		if (!strchr(spec, '/') && !strstr(spec, ".scn") && gwsim_configure(spec, err, sizeof(err)) != 0)
			fuzz_check(err[0]);
		free(spec);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/tmp/gw-fuzz-sim-%d.scn", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(d + 1, 1, n - 1, f);
	fclose(f);
	if (gwsim_configure(path, err, sizeof(err)) != 0)
		fuzz_check(err[0]);
	unlink(path);
	return 0;
}
