/*
 * run.c - the list of test results a diag run collects.
 */
#include "diag/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gw_diag_run_init(struct gw_diag_run *r)
{
	memset(r, 0, sizeof(*r));
}

void gw_diag_run_release(struct gw_diag_run *r)
{
	free(r->t);
	memset(r, 0, sizeof(*r));
}

int gw_diag_add(struct gw_diag_run *r, const char *category, const char *name, int gpu,
		enum gw_diag_result res, const char *measured, const char *threshold, const char *fmt, ...)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct gw_diag_test *t = realloc(r->t, cap * sizeof(*t));
		if (!t)
			return GW_ENOMEM;
		r->t = t;
		r->cap = cap;
	}
	struct gw_diag_test *t = &r->t[r->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->category, sizeof(t->category), "%s", category);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->gpu = gpu;
	t->result = res;
	snprintf(t->measured, sizeof(t->measured), "%s", measured ? measured : "");
	snprintf(t->threshold, sizeof(t->threshold), "%s", threshold ? threshold : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
	return 0;
}

enum gw_diag_result gw_diag_overall(const struct gw_diag_run *r)
{
	enum gw_diag_result worst = GW_DIAG_PASS;
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].result > worst && r->t[i].result != GW_DIAG_SKIP)
			worst = r->t[i].result;
	return worst;
}

const char *gw_diag_result_name(enum gw_diag_result res)
{
	switch (res) {
	case GW_DIAG_PASS:
		return "Pass";
	case GW_DIAG_WARN:
		return "Warn";
	case GW_DIAG_FAIL:
		return "Fail";
	case GW_DIAG_SKIP:
		return "Skip";
	}
	return "?";
}
