/*
 * tmpl_expand.c - expands alert templates read from stdin, for
 * tests/unit/tmpl_diff.py, which compares them with promtool's renderings.
 *
 * Input: records "TEMPLATE\x1fVALUE\x1e"; record i is alert "A<i>" on
 * m{case="<i>",gpu="0",instance="h1:9400",job="dcgm"}, `query` sees the
 * q series of tmpl_cases.py. Output: each expansion followed by \x1e, or
 * with "check" as argument, gw_tmpl_check's message ("OK" if it parses).
 */
#include "rules/tmpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gw_lpair q_pairs[3][3] = {
    {{"__name__", "q"}, {"gpu", "0"}, {"host", "b"}},
    {{"__name__", "q"}, {"gpu", "1"}, {"host", "a"}},
    {{"__name__", "q"}, {"gpu", "2"}, {"host", "c"}},
};

static int query(void *ctx, const char *expr, struct gw_arena *arena, struct gw_vector *out,
		 struct gw_err *err)
{
	static const size_t order[3] = {2, 0, 1};
	static const double v[3] = {10, 20, 5};
	(void)ctx;
	out->n = 0;
	out->s = gw_arena_alloc(arena, 3 * sizeof(*out->s));
	if (!out->s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (!strcmp(expr, "q")) {
		for (size_t i = 0; i < 3; i++) {
			out->s[i].labels = (struct gw_labels){q_pairs[order[i]], 3};
			out->s[i].v = v[order[i]];
		}
		out->n = 3;
	} else if (!strcmp(expr, "sum(q)")) {
		out->s[0].labels = (struct gw_labels){NULL, 0};
		out->s[0].v = 35;
		out->n = 1;
	} else if (strcmp(expr, "nope") != 0) {
		return gw_err_set(err, GW_EPARSE, "unknown query %s", expr);
	}
	return 0;
}

static char *read_all(size_t *n)
{
	size_t cap = 1 << 16;
	char *s = malloc(cap);
	*n = 0;
	for (size_t r; s && (r = fread(s + *n, 1, cap - *n - 1, stdin)) > 0;) {
		*n += r;
		if (cap - *n < 2) {
			char *t = realloc(s, cap * 2);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
			cap *= 2;
		}
	}
	if (s)
		s[*n] = 0;
	return s;
}

int main(int argc, char **argv)
{
	int check = argc > 1 && !strcmp(argv[1], "check");
	size_t n;
	char *in = read_all(&n);
	if (!in)
		return 1;
	char *p = in;
	for (int i = 0; *p; i++) {
		char *us = strchr(p, '\x1f'), *rs = us ? strchr(us + 1, '\x1e') : NULL;
		if (!rs)
			break;
		*us = *rs = 0;
		char no[16], alert[20];
		snprintf(no, sizeof(no), "%d", i);
		snprintf(alert, sizeof(alert), "A%d", i);
		struct gw_lpair lp[5] = {
		    {"__name__", "m"}, {"case", no}, {"gpu", "0"}, {"instance", "h1:9400"}, {"job", "dcgm"}};
		struct gw_tmpl_data d = {.labels = {lp, 5}, .value = strtod(us + 1, NULL), .query = query};
		struct gw_buf out;
		gw_buf_init(&out, 1 << 22);
		struct gw_err err = {0};
		if (!check)
			gw_tmpl_expand_alert(alert, p, &d, &out, &err);
		else
			gw_buf_puts(&out, gw_tmpl_check(alert, p, &err) == 0 ? "OK" : err.msg);
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		fputc('\x1e', stdout);
		gw_buf_release(&out);
		p = rs + 1;
	}
	free(in);
	return fflush(stdout) == 0 ? 0 : 1;
}
