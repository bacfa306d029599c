/*
 * fuzz_podres.c - a kubelet's pod-resources reply: gRPC's message framing,
 * then the ListPodResourcesResponse decoded and looked up.
 *
 * Invariants: a body unframes or is refused; a message decodes into
 * devices whose strings are all set, or is refused; lookups read only
 * what was decoded.
 */
#include "fuzz.h"

#include "collect/grpc.h"
#include "collect/podres.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 16)
		return 0;
	const uint8_t *msg;
	size_t len;
	if (gw_grpc_unframe(d, n, &msg, &len) != 0) {
		msg = d; /* the bare message too */
		len = n;
	}
	struct gw_pods *p;
	if (gw_pods_decode(msg, len, &p) != 0)
		return 0;
	for (size_t i = 0; i < p->n; i++)
		if (!p->v[i].id || !p->v[i].pod || !p->v[i].ns || !p->v[i].container || !p->v[i].resource)
			__builtin_trap();
	struct gw_gpu g = {.index = 2, .uuid = "GPU-aaaa"};
	struct gw_mig m = {.gi = 5, .uuid = "MIG-cccc"};
	struct gw_migs migs = {&m, 1};
	(void)gw_pods_gpu(p, &g);
	(void)gw_pods_mig(p, &g, &m);
	(void)gw_pods_proc(p, &g, &migs, 5);
	gw_pods_unref(p);
	return 0;
}
