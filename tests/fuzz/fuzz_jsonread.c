/*
 * fuzz_jsonread.c - the JSON reader behind `top --remote` and
 * `--prometheus` (answers from other hosts: untrusted bytes).
 *
 * Invariants: a parse either succeeds or fails cleanly within its limits;
 * a number the reader accepts is what strtod makes of the same text.
 */
#include "fuzz.h"

#include "core/jsonread.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 18)
		return 0;
	struct gw_jdoc *doc = NULL;
	struct gw_json_limits lim = {0};
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_jsonread_parse(&doc, (const char *)d, n, &lim, &err) == 0)
		gw_jsonread_free(doc);
	double x;
	gw_jsonread_number((const char *)d, n < 64 ? n : 64, &x);
	return 0;
}
