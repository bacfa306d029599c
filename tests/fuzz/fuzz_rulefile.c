/*
 * fuzz_rulefile.c - Prometheus rule files (`--rules`, `rules check`).
 *
 * Invariants: a file either loads, every group named and every rule with a
 * name and a parsed expression, or is refused with at least one message
 * that starts with the file's name.
 */
#include "fuzz.h"

#include "rules/rulefile.h"

#include <string.h>

static void each(void *ctx, const char *msg)
{
	size_t *n = ctx;
	fuzz_check(strncmp(msg, "fuzz.yml: ", 10) == 0);
	(*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 16)
		return 0;
	char *text = fuzz_cstr(d, n);
	struct gw_ruleset set = {0};
	struct gw_err err;
	gw_err_clear(&err);
	size_t msgs = 0;
	if (gw_rules_load_text(&set, "fuzz.yml", text, n, each, &msgs, &err) == 0) {
		fuzz_check(msgs == 0);
		for (size_t g = 0; g < set.ngroups; g++) {
			fuzz_check(set.groups[g].name && *set.groups[g].name);
			for (size_t r = 0; r < set.groups[g].nrules; r++)
				fuzz_check(set.groups[g].rules[r].name && set.groups[g].rules[r].ast);
		}
	} else {
		fuzz_check(msgs > 0 || err.code == GW_ENOMEM);
	}
	gw_ruleset_release(&set);
	free(text);
	return 0;
}
