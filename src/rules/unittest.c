/*
 * unittest.c - running promtool's rule unit-test files (2.42's
 * cmd/promtool/unittest.go) on gpuwatch's evaluator: input series loaded
 * at multiples of the test's interval into a memory store, every group
 * evaluated at each multiple of the file's evaluation interval up to the
 * latest eval_time (alerting rules restored from the start, so ALERTS is
 * written, as promtool marks them), firing alerts compared after the
 * evaluation at or just before each alert test's eval_time, expressions
 * queried at the end over the inputs and everything the rules wrote.
 * Failures read as promtool prints them.
 */
#include "rules/manager_int.h"
#include "rules/rulefile_int.h"
#include "rules/unittest_int.h"

#include "core/buf.h"
#include "promql/ast.h"
#include "store/memstore.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARENA_MAX (1u << 30)
#define LOOKBACK_MS (5 * 60 * 1000)

/* The failures of one file, in order. */
struct errs {
	char **s;
	size_t n, cap;
};

static void errs_add(struct errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void errs_add(struct errs *e, const char *fmt, ...)
{
	struct gw_buf b;
	gw_buf_init(&b, 64u << 20);
	va_list ap;
	va_start(ap, fmt);
	gw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 8;
		char **p = realloc(e->s, cap * sizeof(*p));
		if (!p) {
			gw_buf_release(&b);
			return;
		}
		e->s = p;
		e->cap = cap;
	}
	e->s[e->n++] = b.data ? b.data : strdup("");
}

static void errs_cb(void *ctx, const char *msg)
{
	errs_add(ctx, "%s", msg);
}

static void errs_free(struct errs *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->s[i]);
	free(e->s);
}

/* The rules' writes into the memory store; refused samples are dropped, as Prometheus' appender logs them. */
static int mem_append(void *ctx, const struct gw_labels *labels, int64_t t, double v, struct gw_err *err)
{
	(void)err;
	long id = gw_memstore_series(ctx, labels->p, labels->n);
	if (id >= 0)
		(void)gw_memstore_append(ctx, id, t, v);
	return 0;
}

/* An alert as the tests compare them: labels and annotations. */
struct la {
	struct gw_labels labels, annotations;
};

static int la_cmp(const void *x, const void *y)
{
	const struct la *a = x, *b = y;
	int c = gw_labels_cmp(&a->labels, &b->labels);
	return c ? c : gw_labels_cmp(&a->annotations, &b->annotations);
}

static bool la_equal(const struct la *a, size_t na, const struct la *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (la_cmp(&a[i], &b[i]) != 0)
			return false;
	return true;
}

/* labelsAndAnnotations.String() with each line after the first indented by 12 spaces. */
static void la_string(struct gw_buf *b, const struct la *v, size_t n)
{
	if (!n) {
		gw_buf_puts(b, "[]");
		return;
	}
	gw_buf_puts(b, "[\n");
	for (size_t i = 0; i < n; i++) {
		gw_buf_printf(b, "%s            %zu:\n              Labels:", i ? ",\n" : "", i);
		gw_ut_labels_string(b, &v[i].labels);
		gw_buf_puts(b, "\n              Annotations:");
		gw_ut_labels_string(b, &v[i].annotations);
	}
	gw_buf_puts(b, "\n            ]");
}

static struct gw_labels kv_labels(struct gw_arena *a, const struct gw_rule_kv *kv, size_t n, const char *alertname)
{
	struct gw_lpair *p = gw_arena_alloc(a, (n + 1) * sizeof(*p));
	size_t k = 0;
	for (size_t i = 0; p && i < n; i++) {
		/* a map: the last of a repeated key */
		size_t j = 0;
		while (j < k && strcmp(p[j].name, kv[i].name) != 0)
			j++;
		p[j] = (struct gw_lpair){kv[i].name, kv[i].value};
		if (j == k)
			k++;
	}
	if (p && alertname) {
		size_t j = 0;
		while (j < k && strcmp(p[j].name, "alertname") != 0)
			j++;
		p[j] = (struct gw_lpair){"alertname", alertname};
		if (j == k)
			k++;
	}
	return p ? gw_labels_from(a, p, k) : (struct gw_labels){0};
}

static void check_alerts(struct gw_rules *r, const struct gw_ut_group *g, const struct gw_ut_alert_test *t,
			 struct errs *e)
{
	struct gw_arena a;
	gw_arena_init(&a, ARENA_MAX);
	size_t ngot = 0, cap = 0;
	for (size_t i = 0; i < r->ngroups; i++)
		for (size_t k = 0; k < r->groups[i].g->nrules; k++)
			cap += r->groups[i].rules[k].nalerts;
	struct la *got = gw_arena_alloc(&a, (cap + 1) * sizeof(*got));
	struct la *exp = gw_arena_alloc(&a, (t->nexp + 1) * sizeof(*exp));
	for (size_t i = 0; got && i < r->ngroups; i++)
		for (size_t k = 0; k < r->groups[i].g->nrules; k++) {
			const struct gw_rule_state *rs = &r->groups[i].rules[k];
			if (rs->rule->kind != GW_RULE_ALERT || strcmp(rs->rule->name, t->alertname) != 0)
				continue;
			for (size_t j = 0; j < rs->nalerts; j++)
				if (rs->alerts[j].state == GW_ALERT_FIRING)
					got[ngot++] = (struct la){rs->alerts[j].labels.l, rs->alerts[j].annotations.l};
		}
	for (size_t i = 0; exp && i < t->nexp; i++)
		exp[i] = (struct la){kv_labels(&a, t->exp[i].labels, t->exp[i].nlabels, t->alertname),
				     kv_labels(&a, t->exp[i].annotations, t->exp[i].nannotations, NULL)};
	if (!got || !exp || a.err) {
		errs_add(e, "out of memory");
		gw_arena_release(&a);
		return;
	}
	qsort(got, ngot, sizeof(*got), la_cmp);
	qsort(exp, t->nexp, sizeof(*exp), la_cmp);
	if (!la_equal(exp, t->nexp, got, ngot)) {
		struct gw_buf b;
		gw_buf_init(&b, 64u << 20);
		if (g->name && *g->name)
			gw_buf_printf(&b, "    name: %s,\n", g->name);
		gw_buf_printf(&b, "    alertname: %s, time: ", t->alertname);
		gw_ut_model_duration(&b, t->eval_ms);
		gw_buf_puts(&b, ", \n        exp:");
		la_string(&b, exp, t->nexp);
		gw_buf_puts(&b, ", \n        got:");
		la_string(&b, got, ngot);
		errs_add(e, "%s", b.data ? b.data : "");
		gw_buf_release(&b);
	}
	gw_arena_release(&a);
}

struct psample {
	struct gw_labels l;
	double v;
};

static int ps_cmp(const void *x, const void *y)
{
	return gw_labels_cmp(&((const struct psample *)x)->l, &((const struct psample *)y)->l);
}

static void samples_string(struct gw_buf *b, const struct psample *s, size_t n)
{
	if (!n)
		gw_buf_puts(b, "nil");
	for (size_t i = 0; i < n; i++) {
		if (i)
			gw_buf_puts(b, ", ");
		gw_ut_labels_string(b, &s[i].l);
		gw_buf_putc(b, ' ');
		gw_ut_float_E(b, s[i].v);
	}
}

static void expr_head(struct gw_buf *b, const struct gw_ut_expr_test *t)
{
	gw_buf_puts(b, "    expr: ");
	gw_ut_go_quote(b, t->expr ? t->expr : "");
	gw_buf_puts(b, ", time: ");
	gw_ut_model_duration(b, t->eval_ms);
}

static void check_expr(const struct gw_querier *q, const struct gw_pq_opts *po, const struct gw_ut_expr_test *t,
		       struct errs *e)
{
	struct gw_arena a;
	gw_arena_init(&a, ARENA_MAX);
	struct gw_buf b;
	gw_buf_init(&b, 64u << 20);
	expr_head(&b, t);
	struct gw_err err = {0};
	struct gw_pq_node *ast = NULL;
	struct gw_pq_result res;
	struct psample *got = NULL, *exp = NULL;
	size_t ngot = 0;
	int rc = gw_promql_parse(t->expr ? t->expr : "", &ast, &err);
	if (rc == 0)
		rc = gw_promql_instant(ast, q, t->eval_ms, po, &a, &res, &err);
	if (rc == 0 && res.type != GW_PQ_T_VECTOR && res.type != GW_PQ_T_SCALAR)
		rc = gw_err_set(&err, GW_EINVAL, "rule result is not a vector or scalar");
	if (rc) {
		gw_buf_printf(&b, ", err: %s", err.msg);
		goto fail;
	}
	ngot = res.type == GW_PQ_T_SCALAR ? 1 : res.vector.n;
	got = gw_arena_alloc(&a, (ngot + 1) * sizeof(*got));
	exp = gw_arena_alloc(&a, (t->nexp + 1) * sizeof(*exp));
	if (!got || !exp) {
		gw_buf_puts(&b, ", err: out of memory");
		goto fail;
	}
	if (res.type == GW_PQ_T_SCALAR)
		got[0] = (struct psample){{0}, res.scalar};
	for (size_t i = 0; res.type == GW_PQ_T_VECTOR && i < ngot; i++)
		got[i] = (struct psample){res.vector.s[i].labels, res.vector.s[i].v};
	for (size_t i = 0; i < t->nexp; i++) {
		const char *text = t->exp[i].labels ? t->exp[i].labels : "";
		if (gw_ut_parse_metric(text, &a, &exp[i].l, &err)) {
			gw_buf_puts(&b, ", err: labels ");
			gw_ut_go_quote(&b, text);
			gw_buf_printf(&b, ": %s", err.msg);
			goto fail;
		}
		exp[i].v = t->exp[i].value;
	}
	qsort(got, ngot, sizeof(*got), ps_cmp);
	qsort(exp, t->nexp, sizeof(*exp), ps_cmp);
	bool same = ngot == t->nexp;
	/* float equality as Go's reflect.DeepEqual: NaN equals nothing */
	for (size_t i = 0; same && i < ngot; i++)
		same = gw_labels_equal(&got[i].l, &exp[i].l) && got[i].v == exp[i].v;
	if (same)
		goto done;
	gw_buf_puts(&b, ",\n        exp: ");
	samples_string(&b, exp, t->nexp);
	gw_buf_puts(&b, "\n        got: ");
	samples_string(&b, got, ngot);
fail:
	errs_add(e, "%s", b.data ? b.data : "");
done:
	gw_promql_free(ast);
	gw_buf_release(&b);
	gw_arena_release(&a);
}

static int64_t cmp64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int i64_cmp(const void *x, const void *y)
{
	return (int)cmp64(*(const int64_t *)x, *(const int64_t *)y);
}

/* group_eval_order: listed groups in that order, others first (index 0, as promtool's map lookup gives). */
static void order_groups(struct gw_ruleset *set, char **order, size_t norder)
{
	for (size_t i = 1; i < set->ngroups; i++) {
		struct gw_rule_group g = set->groups[i];
		size_t rank = 0;
		for (size_t k = 0; k < norder; k++)
			if (!strcmp(order[k], g.name))
				rank = k;
		size_t j = i;
		while (j > 0) {
			size_t prev = 0;
			for (size_t k = 0; k < norder; k++)
				if (!strcmp(order[k], set->groups[j - 1].name))
					prev = k;
			if (prev <= rank)
				break;
			set->groups[j] = set->groups[j - 1];
			j--;
		}
		set->groups[j] = g;
	}
}

static void logf_quiet(const char *level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

/* One test group: its own store, rules and evaluator (promtool's testGroup.test). */
static void run_group(const struct gw_ut *ut, const struct gw_ut_group *g, char **files, size_t nfiles,
		      struct errs *e)
{
	int64_t eval = ut->eval_ms > 0 ? ut->eval_ms : 60000;
	int64_t interval = g->interval_ms > 0 ? g->interval_ms : eval;
	struct gw_memstore *m = gw_memstore_new();
	struct gw_ruleset set = {0};
	struct gw_rules *r = NULL;
	struct gw_arena a;
	gw_arena_init(&a, ARENA_MAX);
	struct gw_err err = {0};
	size_t before = e->n;
	if (!m) {
		errs_add(e, "out of memory");
		goto out;
	}
	/* the evaluations run from 0 by the file's interval up to the latest eval_time */
	int64_t maxt = 0;
	for (size_t i = 0; i < g->nalerts; i++)
		maxt = g->alerts[i].eval_ms > maxt ? g->alerts[i].eval_ms : maxt;
	for (size_t i = 0; i < g->nexprs; i++)
		maxt = g->exprs[i].eval_ms > maxt ? g->exprs[i].eval_ms : maxt;
	if (gw_ut_load_series(m, g, interval, maxt - maxt % eval, &err)) {
		errs_add(e, "%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < nfiles; i++)
		gw_rules_load_file_each(&set, files[i], errs_cb, e, &err);
	if (e->n > before)
		goto out;
	order_groups(&set, ut->order, ut->norder);
	struct gw_querier q = gw_memstore_querier(m);
	struct gw_rules_opts o = {
		.querier = q,
		.appender = {m, mem_append, NULL},
		.external = kv_labels(&a, g->external, g->nexternal, NULL),
		.external_url = g->external_url ? g->external_url : "",
		.eval_interval_ms = interval,
		.pq = {.lookback_ms = LOOKBACK_MS, .subquery_step_ms = eval},
		.logf = logf_quiet,
	};
	if (gw_rules_new(&r, &o, &set, &err)) {
		errs_add(e, "%s", err.msg);
		goto out;
	}
	size_t nt = 0;
	int64_t *times = gw_arena_alloc(&a, (g->nalerts + 1) * sizeof(*times));
	for (size_t i = 0; times && i < g->nalerts; i++) {
		const struct gw_ut_alert_test *t = &g->alerts[i];
		if (!t->alertname || !*t->alertname) {
			struct gw_buf b;
			gw_buf_init(&b, 4096);
			gw_ut_model_duration(&b, t->eval_ms);
			errs_add(e, "an item under alert_rule_test misses required attribute alertname at eval_time %s%s%s%s",
				 b.data ? b.data : "", g->name && *g->name ? " (in TestGroup " : "",
				 g->name && *g->name ? g->name : "", g->name && *g->name ? ")" : "");
			gw_buf_release(&b);
			goto out;
		}
		times[nt++] = t->eval_ms;
	}
	if (!times) {
		errs_add(e, "out of memory");
		goto out;
	}
	qsort(times, nt, sizeof(*times), i64_cmp);
	size_t curr = 0;
	for (int64_t ts = 0; ts <= maxt; ts += eval) {
		gw_rules_eval_all(r, ts, &err);
		size_t failed = e->n;
		for (size_t i = 0; i < r->ngroups; i++)
			for (size_t k = 0; k < r->groups[i].g->nrules; k++) {
				const struct gw_rule_state *rs = &r->groups[i].rules[k];
				if (rs->health != GW_HEALTH_ERR)
					continue;
				struct gw_buf b;
				gw_buf_init(&b, 4096);
				gw_ut_go_duration(&b, ts);
				errs_add(e, "    rule: %s, time: %s, err: %s", rs->rule->name, b.data ? b.data : "",
					 rs->last_error);
				gw_buf_release(&b);
			}
		if (e->n > failed)
			goto out;
		while (curr < nt && ts <= times[curr] && times[curr] < ts + eval) {
			int64_t t = times[curr];
			for (size_t i = 0; i < g->nalerts; i++)
				if (g->alerts[i].eval_ms == t)
					check_alerts(r, g, &g->alerts[i], e);
			while (curr < nt && times[curr] == t)
				curr++;
		}
	}
	for (size_t i = 0; i < g->nexprs; i++)
		check_expr(&q, &o.pq, &g->exprs[i], e);
out:
	gw_rules_free(r);
	gw_ruleset_release(&set);
	gw_memstore_free(m);
	gw_arena_release(&a);
}

/* rule_files relative to the test file's folder, each a glob; a pattern matching nothing is a warning. */
static void resolve_files(const char *testfile, const struct gw_ut *ut, FILE *err, char ***out, size_t *nout)
{
	char *copy = strdup(testfile);
	const char *dir = copy ? dirname(copy) : ".";
	*out = NULL;
	*nout = 0;
	size_t cap = 0;
	for (size_t i = 0; i < ut->nrule_files; i++) {
		struct gw_buf pat;
		gw_buf_init(&pat, 1 << 20);
		if (ut->rule_files[i][0] != '/' && strcmp(dir, ".") != 0)
			gw_buf_printf(&pat, "%s/", dir);
		gw_buf_puts(&pat, ut->rule_files[i]);
		glob_t gl;
		if (pat.data && glob(pat.data, 0, NULL, &gl) == 0) {
			for (size_t k = 0; k < gl.gl_pathc; k++) {
				if (*nout == cap) {
					cap = cap ? 2 * cap : 8;
					char **p = realloc(*out, cap * sizeof(*p));
					if (!p)
						break;
					*out = p;
				}
				(*out)[(*nout)++] = strdup(gl.gl_pathv[k]);
			}
			globfree(&gl);
		} else {
			fprintf(err, "  WARNING: no file match pattern %s\n", ut->rule_files[i]);
		}
		gw_buf_release(&pat);
	}
	free(copy);
}

static void run_file(const char *path, FILE *err, struct errs *e)
{
	struct gw_err ge = {0};
	size_t len;
	char *text;
	if (gw_rf_read(path, &text, &len, &ge) != 0) {
		errs_add(e, "%s", ge.msg);
		return;
	}
	struct gw_ut ut = {0};
	struct gw_rf c = {.path = NULL, .each = errs_cb, .ctx = e};
	if (gw_ut_decode(&c, &ut, text, len) != 0)
		errs_add(e, "out of memory");
	free(text);
	if (e->n) {
		gw_ut_release(&ut);
		return;
	}
	char **files;
	size_t nfiles;
	resolve_files(path, &ut, err, &files, &nfiles);
	for (size_t i = 0; i < ut.norder; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(ut.order[i], ut.order[k]) && !e->n)
				errs_add(e, "group name repeated in evaluation order: %s", ut.order[i]);
	/* every test group runs, each adding its failures, as promtool's */
	for (size_t i = 0, bad_order = e->n; i < ut.ntests && !bad_order; i++)
		run_group(&ut, &ut.tests[i], files, nfiles, e);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	gw_ut_release(&ut);
}

int gw_rules_unittest(const char *const *files, size_t n, FILE *out, FILE *err)
{
	bool failed = false;
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "Unit Testing:  %s\n", files[i]);
		fflush(out);
		struct errs e = {0};
		run_file(files[i], err, &e);
		if (e.n) {
			fprintf(err, "  FAILED:\n");
			for (size_t k = 0; k < e.n; k++) {
				fprintf(err, "%s\n", e.s[k]);
				fflush(err);
				fprintf(out, "\n");
			}
			failed = true;
		} else {
			fprintf(out, "  SUCCESS\n");
		}
		fprintf(out, "\n");
		fflush(out);
		errs_free(&e);
	}
	return failed ? 1 : 0;
}
