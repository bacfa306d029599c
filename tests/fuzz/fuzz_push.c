/*
 * fuzz_push.c - the Pushgateway protocol (ingest/push.h): a request path
 * and body from a pushing job (untrusted bytes). The input's first line is
 * the path, the rest the body.
 *
 * Invariants: a push is applied or refused with a message; a refused push
 * changes no sample; PUT of the same body twice leaves the same samples;
 * DELETE leaves no group; the exposition renders without error.
 */
#include "fuzz.h"

#include "ingest/push.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 18)
		return 0;
	const char *nl = memchr(d, '\n', n);
	size_t plen = nl ? (size_t)(nl - (const char *)d) : n;
	char path[1024];
	if (plen >= sizeof(path) || memchr(d, '\0', plen))
		return 0;
	memcpy(path, d, plen);
	path[plen] = '\0';
	const char *body = nl ? nl + 1 : "";
	size_t blen = nl ? n - plen - 1 : 0;
	struct gw_push_key k;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_push_key_parse(path, &k, &err) != 0) {
		fuzz_check(err.msg[0]);
		return 0;
	}
	struct gw_push_store *s;
	fuzz_check(gw_push_store_new(&s) == 0);
	size_t g0, s0, g1, s1;
	int rc = gw_push_apply(s, GW_PUSH_PUT, &k, body, blen, 1000, &err);
	gw_push_count(s, &g0, &s0);
	if (rc) {
		fuzz_check(err.msg[0]);
		fuzz_check(g0 == 0 && s0 == 0);
	} else {
		fuzz_check(g0 == 1);
		fuzz_check(gw_push_apply(s, GW_PUSH_PUT, &k, body, blen, 2000, &err) == 0);
		gw_push_count(s, &g1, &s1);
		fuzz_check(g1 == 1 && s1 == s0);
		fuzz_check(gw_push_apply(s, GW_PUSH_POST, &k, body, blen, 3000, &err) == 0);
		struct gw_buf b;
		gw_buf_init(&b, 64 << 20);
		struct gw_expfmt w;
		gw_expfmt_init(&w, &b, GW_EXPFMT_TEXT);
		gw_push_render(s, &w);
		fuzz_check(w.err == 0);
		gw_buf_release(&b);
	}
	fuzz_check(gw_push_apply(s, GW_PUSH_DELETE, &k, NULL, 0, 4000, &err) == 0);
	gw_push_count(s, &g1, &s1);
	fuzz_check(g1 == 0);
	gw_push_store_free(s);
	return 0;
}
