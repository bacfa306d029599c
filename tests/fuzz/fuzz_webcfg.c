/*
 * fuzz_webcfg.c - the agent's --web.config.file (exporter-toolkit YAML)
 * and the Authorization headers checked against it.
 *
 * Invariants: a file loads or is refused with a message; any header is
 * checked against what loaded without reading past it.
 *
 * A check pays one bcrypt at the hash's cost (2^cost rounds: 10 is ~60 ms),
 * which is libcrypt's work, not ours; headers are checked only against
 * files whose hashes all have the lowest cost (04), so the campaign spends
 * its time in our parsing (seeds: tests/fuzz/corpus/webcfg/, cost 04).
 */
#include "fuzz.h"

#include "http/webcfg.h"

#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 15)
		return 0;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/gw-fuzz-webcfg-%d.yml", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(d, 1, n, f);
	fclose(f);
	struct gw_webcfg cfg;
	memset(&cfg, 0, sizeof(cfg));
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_webcfg_load(&cfg, path, &err) == 0) {
		bool cheap = true;
		for (size_t i = 0; i < cfg.nusers; i++)
			cheap &= strncmp(cfg.users[i].hash + 4, "04$", 3) == 0;
		if (cheap) {
			char *hdr = fuzz_cstr(d, n < 200 ? n : 200);
			gw_webcfg_check_basic(&cfg, hdr);
			free(hdr);
		}
		gw_webcfg_release(&cfg);
	} else {
		fuzz_check(err.msg[0]);
	}
	unlink(path);
	return 0;
}
