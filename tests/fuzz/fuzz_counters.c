/*
 * fuzz_counters.c - the agent's counters file (`-f`, dcgm-exporter's CSV).
 *
 * Invariants: a file either loads, with every counter naming a field and a
 * non-empty metric name, or is refused with a message that names where.
 */
#include "fuzz.h"

#include "export/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 16)
		return 0;
	char *text = fuzz_cstr(d, n);
	struct gw_counters c = {0};
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_counters_parse(&c, text, "fuzz.csv", &err) == 0)
		gw_counters_release(&c);
	else
		fuzz_check(err.msg[0]);
	free(text);
	return 0;
}
