/*
 * fuzz_promql.c - PromQL: the parser, the printer and the engine.
 *
 * Invariants: whatever parses prints to a query that parses again and
 * prints the same (the printer is what `gpuwatch query` and the API show
 * back); evaluation of any parsed query over a small store ends, within
 * its memory and time limits, with an answer or an error.
 */
#include "fuzz.h"

#include "core/buf.h"
#include "promql/ast.h"
#include "promql/engine.h"
#include "promql/print.h"
#include "store/memstore.h"

static struct gw_memstore *store(void)
{
	static struct gw_memstore *m; /* built once for the whole run */
	if (m)
		return m;
	m = gw_memstore_new();
	struct gw_lpair a[] = {{"__name__", "gpu_temp"}, {"gpu", "0"}, {"job", "gw"}};
	struct gw_lpair b[] = {{"__name__", "gpu_temp"}, {"gpu", "1"}, {"job", "gw"}};
	struct gw_lpair c[] = {{"__name__", "xid_total"}, {"gpu", "0"}, {"job", "gw"}};
	struct gw_lpair h[] = {{"__name__", "lat_bucket"}, {"le", "0.5"}, {"job", "gw"}};
	struct gw_lpair h2[] = {{"__name__", "lat_bucket"}, {"le", "+Inf"}, {"job", "gw"}};
	long ia = gw_memstore_series(m, a, 3), ib = gw_memstore_series(m, b, 3), ic = gw_memstore_series(m, c, 3),
	     ih = gw_memstore_series(m, h, 3), ih2 = gw_memstore_series(m, h2, 3);
	for (int i = 0; i <= 60; i++) {
		gw_memstore_append(m, ia, i * 15000, 40 + i % 7);
		gw_memstore_append(m, ib, i * 15000, i == 30 ? 0.0 / 0.0 : 70.25);
		gw_memstore_append(m, ic, i * 15000, i / 10);
		gw_memstore_append(m, ih, i * 15000, i);
		gw_memstore_append(m, ih2, i * 15000, 2 * i);
	}
	return m;
}

static void print_of(const struct gw_pq_node *n, struct gw_buf *b)
{
	gw_buf_init(b, 1 << 22);
	gw_promql_print(b, n);
	gw_buf_putc(b, '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 16)
		return 0;
	char *q = fuzz_cstr(d, n);
	struct gw_pq_node *root = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_promql_parse(q, &root, &err) != 0) {
		fuzz_check(root == NULL && err.msg[0]);
		free(q);
		return 0;
	}
	struct gw_buf p1, p2;
	print_of(root, &p1);
	struct gw_pq_node *again = NULL;
	int rc = gw_promql_parse(p1.data, &again, &err);
	if (rc != 0)
		fprintf(stderr, "printed query does not parse: %s\n  printed: %s\n  error: %s\n", q, p1.data, err.msg);
	fuzz_check(rc == 0);
	print_of(again, &p2);
	if (strcmp(p1.data, p2.data) != 0)
		fprintf(stderr, "print is not stable:\n  %s\n  %s\n", p1.data, p2.data);
	fuzz_check(strcmp(p1.data, p2.data) == 0);
	gw_promql_free(again);
	gw_buf_release(&p1);
	gw_buf_release(&p2);

	struct gw_querier sq = gw_memstore_querier(store());
	struct gw_pq_opts o = {.max_samples = 200000, .timeout_ms = 250};
	struct gw_arena a;
	gw_arena_init(&a, (size_t)32 << 20);
	struct gw_pq_result res;
	gw_promql_instant(root, &sq, 600000, &o, &a, &res, &err);
	gw_arena_release(&a);
	if (root->type == GW_PQ_T_SCALAR || root->type == GW_PQ_T_VECTOR) {
		struct gw_matrix m;
		gw_arena_init(&a, (size_t)32 << 20);
		gw_promql_range(root, &sq, 0, 900000, 30000, &o, &a, &m, &err);
		gw_arena_release(&a);
	}
	gw_promql_free(root);
	free(q);
	return 0;
}
