/*
 * fuzz_jsonread.c - reading Prometheus API answers, as `top --remote` and
 * `--prometheus` do (answers from other hosts: untrusted bytes): jansson
 * behind our size and depth caps, then the answer's shape; and an agent's
 * /api/v1/health answer, read by the same reader into verdicts.
 *
 * Invariants: an answer is read or refused with a message; every series
 * read has its points; a sample value the reader accepts is exactly what
 * strtod makes of the same text where strtod takes it whole; a health
 * answer read has verdicts and incident counts in range.
 */
#include "fuzz.h"

#include "ui/promresp.h"
#include "ui/rsnap.h"

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
	struct gw_ui_rhealth h;
	gw_err_clear(&err);
	if (gw_ui_health_parse(&h, (const char *)d, n, &err) == 0) {
		for (unsigned int g = 0; g < h.n; g++)
			fuzz_check(h.gpus[g].h.status <= 2 && h.gpus[g].h.ninc <= GW_UI_INCIDENTS_MAX);
		gw_ui_rhealth_release(&h);
	} else {
		fuzz_check(err.msg[0]);
	}
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
