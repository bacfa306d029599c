/*
 * fuzz_api_params.c - what the HTTP API parses from a request before any
 * query runs: the form body (and URL decoding), times (float seconds and
 * RFC 3339), durations, PromQL durations.
 *
 * Invariants: an accepted time or duration lies within the engine's bounds
 * (GW_PQ_MAX_TIME_MS, GW_PQ_MAX_DURATION_MS), so no sum the engine forms
 * from it can overflow; a parsed form yields at most max_args arguments,
 * each a NUL-terminated name and value.
 */
#include "fuzz.h"

#include "api/prom_api.h"
#include "http/server.h"
#include "promql/ast.h"
#include "promql/lex.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char *s = fuzz_cstr(d, n);
	int64_t ms;
	if (gw_api_parse_time(s, &ms) == 0)
		fuzz_check(ms >= -GW_PQ_MAX_TIME_MS - 1000 && ms <= GW_PQ_MAX_TIME_MS + 1000);
	if (gw_api_parse_duration(s, &ms) == 0)
		fuzz_check(ms >= -GW_PQ_MAX_DURATION_MS && ms <= GW_PQ_MAX_DURATION_MS);
	if (gw_promql_duration(s, n, &ms) == 0)
		fuzz_check(ms >= 0);

	struct gw_http_arg *args = NULL;
	size_t nargs = 0;
	if (gw_http_parse_form(s, n, &args, &nargs, 64) == 0) {
		fuzz_check(nargs <= 64);
		for (size_t i = 0; i < nargs; i++)
			fuzz_check(strlen(args[i].name) <= n && strlen(args[i].value) <= n);
	}
	for (size_t i = 0; i < nargs; i++) {
		free(args[i].name);
		free(args[i].value);
	}
	free(args);
	gw_http_urldecode(s);
	free(s);
	return 0;
}
