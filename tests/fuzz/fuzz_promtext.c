/*
 * fuzz_promtext.c - reading a text exposition, as `top --remote` reads an
 * agent's /metrics (answers from other hosts: untrusted bytes).
 *
 * Invariants: a text is read or refused with a message naming its line;
 * every series read has one point and a name; a text read once reads the
 * same when each line ends in CRLF instead, and reads with a family filter
 * too, into no more series.
 */
#include "fuzz.h"

#include "ui/promresp.h"

static bool even_names(const char *name)
{
	return strlen(name) % 2 == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 18)
		return 0;
	struct gw_ui_promresp r;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_ui_promresp_parse_text(&r, (const char *)d, n, 1000, NULL, &err) != 0) {
		fuzz_check(err.msg[0]);
		return 0;
	}
	for (size_t i = 0; i < r.nseries; i++) {
		fuzz_check(r.series[i].npts == 1);
		fuzz_check(gw_ui_promresp_label(&r, &r.series[i], "__name__") != NULL);
	}
	size_t nseries = r.nseries;
	gw_ui_promresp_release(&r);
	gw_err_clear(&err);
	fuzz_check(gw_ui_promresp_parse_text(&r, (const char *)d, n, 1000, even_names, &err) == 0);
	fuzz_check(r.nseries <= nseries);
	for (size_t i = 0; i < r.nseries; i++)
		fuzz_check(even_names(gw_ui_promresp_label(&r, &r.series[i], "__name__")));
	gw_ui_promresp_release(&r);
	/* the same lines ending in CRLF: the same series (a label value with a raw CR is not a line end) */
	if (memchr(d, '\r', n))
		return 0;
	char *crlf = malloc(2 * n + 1);
	size_t m = 0;
	for (size_t i = 0; crlf && i < n; i++) {
		if (d[i] == '\n')
			crlf[m++] = '\r';
		crlf[m++] = (char)d[i];
	}
	gw_err_clear(&err);
	if (crlf && gw_ui_promresp_parse_text(&r, crlf, m, 1000, NULL, &err) == 0) {
		fuzz_check(r.nseries == nseries);
		gw_ui_promresp_release(&r);
	} else if (crlf) {
		fuzz_check(0);
	}
	free(crlf);
	return 0;
}
