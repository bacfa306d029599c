/*
 * fuzz_codec.c - the store's chunk decoders, fed bytes from a damaged disk.
 *
 * Invariants: a decode never writes past cap or reports more samples than
 * cap; a chunk that decodes re-encodes to one that decodes to the same
 * samples, bit for bit (NaN payloads included).
 */
#include "fuzz.h"

#include "core/buf.h"
#include "store/codec.h"

#define CAP 4096

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int64_t t[CAP], t2[CAP];
	static double v[CAP], v2[CAP], c0[CAP], c1[CAP], c2[CAP];
	size_t got = 0;
	int64_t t0;
	gw_chunk_first(d, n, &t0);
	if (gw_chunk_decode(d, n, t, v, CAP, &got) == 0) {
		fuzz_check(got <= CAP);
		struct gw_buf b;
		gw_buf_init(&b, 1 << 24);
		if (got && gw_chunk_encode(t, v, got, &b) == 0) {
			size_t got2 = 0;
			fuzz_check(gw_chunk_decode((const uint8_t *)b.data, b.len, t2, v2, CAP, &got2) == 0);
			fuzz_check(got2 == got);
			fuzz_check(memcmp(t, t2, got * sizeof(*t)) == 0 && memcmp(v, v2, got * sizeof(*v)) == 0);
		}
		gw_buf_release(&b);
	}
	double *const cols[] = {c0, c1, c2};
	for (size_t nc = 1; nc <= 3; nc++)
		if (gw_chunk_decode_cols(d, n, t, cols, nc, CAP, &got) == 0)
			fuzz_check(got <= CAP);
	return 0;
}
