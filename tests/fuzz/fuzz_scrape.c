/*
 * fuzz_scrape.c - a scraped body (ingest/scrape.h): whatever a target on
 * the network answers (untrusted bytes).
 *
 * Invariants: a body is taken whole or refused with a message and an empty
 * batch; every sample taken has __name__ first and ends with the target's
 * job and instance; no label of a sample is named job or instance but
 * those two.
 */
#include "fuzz.h"

#include "ingest/scrape.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 18)
		return 0;
	char *body = malloc(n + 1);
	fuzz_check(body != NULL);
	memcpy(body, d, n);
	struct gw_scrape_target t = {.job = "fuzz", .instance = "h:1"};
	struct gw_scrape_batch b;
	gw_scrape_batch_init(&b, 1000);
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_scrape_parse(&b, body, n, &t, &err) != 0) {
		fuzz_check(err.msg[0] && b.ns == 0);
	} else {
		for (size_t i = 0; i < b.ns; i++) {
			const struct gw_lpair *l = b.l + b.s[i].first;
			size_t k = b.s[i].n;
			fuzz_check(k >= 3 && strcmp(l[0].name, "__name__") == 0);
			fuzz_check(l[k - 2].value == t.job && l[k - 1].value == t.instance);
			for (size_t j = 0; j + 2 < k; j++)
				fuzz_check(strcmp(l[j].name, "job") != 0 &&
					   strcmp(l[j].name, "instance") != 0);
		}
	}
	gw_scrape_batch_release(&b);
	free(body);
	return 0;
}
