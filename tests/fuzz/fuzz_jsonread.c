/*
 * fuzz_jsonread.c - reading Prometheus API answers, as `top --remote` and
 * `--prometheus` do (answers from other hosts: untrusted bytes): jansson
 * behind our size and depth caps, then the answer's shape.
 *
 * Invariants: an answer is read or refused with a message; every series
 * read has its points; a sample value the reader accepts is exactly what
 * strtod makes of the same text where strtod takes it whole.
 */
#include "fuzz.h"

#include "ui/promresp.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 18)
		return 0;
	struct gw_ui_promresp r;
	memset(&r, 0, sizeof(r));
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_ui_promresp_parse(&r, (const char *)d, n, &err) == 0)
		gw_ui_promresp_release(&r);
	else
		fuzz_check(err.msg[0]);
	double x;
	size_t k = n < 64 ? n : 64;
	char *s = fuzz_cstr(d, k);
	if (gw_ui_promresp_value(s, k, &x) == 0 && strlen(s) == k && isfinite(x)) {
		char *end;
		double y = strtod(s, &end);
		if (*end == '\0' && isfinite(y))
			fuzz_check(x == y);
	}
	free(s);
	return 0;
}
