/*
 * fuzz_unittest.c - promtool's rule unit-test files (`rules test`), as
 * decoded before they run.
 *
 * Invariants: a file either decodes or is refused with at least one
 * message; either way everything it allocated is freed (LeakSanitizer).
 */
#include "fuzz.h"

#include "rules/rulefile_int.h"
#include "rules/unittest_int.h"

static void each(void *ctx, const char *msg)
{
	size_t *n = ctx;
	fuzz_check(msg[0] != '\0');
	(*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 16)
		return 0;
	char *text = fuzz_cstr(d, n);
	size_t msgs = 0;
	struct gw_rf c = {.path = NULL, .each = each, .ctx = &msgs};
	struct gw_ut ut = {0};
	if (gw_ut_decode(&c, &ut, text, n) == 0 && msgs == 0)
		for (size_t i = 0; i < ut.ntests; i++)
			fuzz_check(ut.tests[i].ninput == 0 || ut.tests[i].input != NULL);
	gw_ut_release(&ut);
	free(text);
	return 0;
}
