/*
 * fuzz_tmpl.c - alert templates: the parser and the executor.
 *
 * Invariants: any text either parses or is refused with a Go-style
 * "template: NAME:LINE: ..." message; a parsed template executes to an
 * output or a "template: NAME..." error, leaving nothing of a failed
 * execution behind; gw_tmpl_check agrees with gw_tmpl_expand_alert about
 * what parses, and a failed expansion reads "<error expanding template: ...>".
 */
#include "fuzz.h"

#include "core/buf.h"
#include "rules/tmpl.h"

static const struct gw_lpair labels[] = {
    {"__name__", "gpu_temp"}, {"gpu", "0"}, {"instance", "h1:9400"}, {"job", "dcgm"}};
static const struct gw_lpair q0[] = {{"__name__", "q"}, {"host", "b"}};
static const struct gw_lpair q1[] = {{"__name__", "q"}, {"host", "a"}};

static int query(void *ctx, const char *expr, struct gw_arena *arena, struct gw_vector *out,
		 struct gw_err *err)
{
	(void)ctx;
	if (expr[0] == 'x')
		return gw_err_set(err, GW_EPARSE, "1:1: parse error: unexpected x");
	out->s = gw_arena_alloc(arena, 2 * sizeof(*out->s));
	if (!out->s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	out->n = expr[0] == 'n' ? 0 : 2;
	out->s[0].labels = (struct gw_labels){q0, 2};
	out->s[0].v = 10;
	out->s[1].labels = (struct gw_labels){q1, 2};
	out->s[1].v = 0.0 / 0.0;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > 1 << 14)
		return 0;
	char *text = fuzz_cstr(d, n);
	struct gw_tmpl_data data = {
	    .labels = {labels, 4},
	    .value = 87.5,
	    .external_url = "http://prom:9090/p",
	    .query = query,
	};
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_tmpl *t = NULL;
	int rc = gw_tmpl_parse("f", text, &t, &err);
	if (rc != 0) {
		fuzz_check(t == NULL && (rc == GW_ENOMEM || strncmp(err.msg, "template: f:", 12) == 0));
	} else {
		struct gw_buf out;
		gw_buf_init(&out, 1 << 20);
		gw_buf_puts(&out, "x");
		gw_err_clear(&err);
		rc = gw_tmpl_exec(t, &data, &out, &err);
		if (rc != 0) {
			fuzz_check(strncmp(err.msg, "template: f", 11) == 0 || rc == GW_EOVERFLOW ||
				   rc == GW_ENOMEM);
			fuzz_check(out.len == 1);
		}
		gw_buf_release(&out);
		gw_tmpl_free(t);
	}

	gw_err_clear(&err);
	int check = gw_tmpl_check("F", text, &err);
	struct gw_buf out;
	gw_buf_init(&out, 1 << 20);
	rc = gw_tmpl_expand_alert("F", text, &data, &out, &err);
	if (check != 0)
		fuzz_check(rc != 0);
	if (rc != 0 && rc != GW_ENOMEM && rc != GW_EOVERFLOW)
		fuzz_check(out.data && strncmp(out.data, "<error expanding template: ", 27) == 0);
	gw_buf_release(&out);
	free(text);
	return 0;
}
