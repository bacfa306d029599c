/*
 * Prometheus' PromQL test files run through our parser, engine and
 * memstore: load blocks, eval/eval_ordered/eval_fail blocks, clear.
 * The files are Prometheus 2.42's own (../shared/promql-tests, read when
 * present) plus ours in tests/data/promql/. Prints passed/failed/skipped.
 */
#include "harness.h"
#include "promql/engine.h"
#include "promql/print.h"
#include "store/memstore.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>

struct counts {
	size_t passed, failed, skipped;
};

static bool verbose;

static int64_t parse_dur(const char *s)
{
	int64_t ms = 0;
	if (gw_promql_duration(s, strlen(s), &ms) != 0)
		return -1;
	return ms;
}

/* Split "metric{a="b", c="d"} rest" into labels; returns pointer past them. */
static const char *parse_series(const char *s, struct gw_lpair *lp, size_t *n, char *store, size_t storelen)
{
	*n = 0;
	size_t used = 0;
	while (isspace((unsigned char)*s))
		s++;
	const char *name = s;
	while (*s && *s != '{' && !isspace((unsigned char)*s))
		s++;
	if (s > name) {
		size_t len = (size_t)(s - name);
		memcpy(store + used, name, len);
		store[used + len] = '\0';
		lp[*n].name = "__name__";
		lp[*n].value = store + used;
		(*n)++;
		used += len + 1;
	}
	if (*s == '{') {
		s++;
		for (;;) {
			while (isspace((unsigned char)*s) || *s == ',')
				s++;
			if (*s == '}' || !*s)
				break;
			const char *k = s;
			while (*s && *s != '=')
				s++;
			size_t klen = (size_t)(s - k);
			while (klen && isspace((unsigned char)k[klen - 1]))
				klen--;
			s++; /* = */
			while (isspace((unsigned char)*s))
				s++;
			if (*s != '"')
				return NULL;
			s++;
			char *kv = store + used;
			memcpy(kv, k, klen);
			kv[klen] = '\0';
			used += klen + 1;
			char *vv = store + used;
			size_t vl = 0;
			while (*s && *s != '"') {
				if (*s == '\\' && s[1]) {
					s++;
					vv[vl++] = *s == 'n' ? '\n' : *s;
				} else {
					vv[vl++] = *s;
				}
				s++;
			}
			vv[vl] = '\0';
			used += vl + 1;
			if (*s == '"')
				s++;
			lp[*n].name = kv;
			lp[*n].value = vv;
			(*n)++;
			if (used + 256 > storelen)
				return NULL;
		}
		if (*s == '}')
			s++;
	}
	return s;
}

static double parse_num(const char *s, bool *ok)
{
	char *end;
	*ok = true;
	if (strncasecmp(s, "inf", 3) == 0 || strncasecmp(s, "+inf", 4) == 0)
		return INFINITY;
	if (strncasecmp(s, "-inf", 4) == 0)
		return -INFINITY;
	if (strncasecmp(s, "nan", 3) == 0)
		return NAN;
	double v = strtod(s, &end);
	*ok = end != s;
	return v;
}

/* "1+2x3 _ stale 5 4x2" into the memstore at step intervals. */
static int load_values(struct gw_memstore *m, long id, const char *s, int64_t step)
{
	int64_t i = 0;
	char tok[128];
	while (sscanf(s, "%127s", tok) == 1) {
		s = strstr(s, tok) + strlen(tok);
		if (strcmp(tok, "_") == 0) {
			i++;
			continue;
		}
		if (strncmp(tok, "_x", 2) == 0) {
			i += atoi(tok + 2);
			continue;
		}
		if (strcmp(tok, "stale") == 0) {
			gw_memstore_append(m, id, i * step, gw_stale_nan());
			i++;
			continue;
		}
		char *x = strchr(tok + 1, 'x');
		if (!x) {
			bool ok;
			double v = parse_num(tok, &ok);
			if (!ok)
				return -1;
			gw_memstore_append(m, id, i * step, v);
			i++;
			continue;
		}
		*x = '\0';
		int times = atoi(x + 1);
		/* "a+b", "a-b" or "a" (the sign after the first character) */
		char *op = NULL;
		for (char *p = tok + 1; *p; p++)
			if ((*p == '+' || *p == '-') && p[-1] != 'e' && p[-1] != 'E')
				op = p;
		double a, b = 0;
		bool ok = true, ok2 = true;
		if (op) {
			char sign = *op;
			*op = '\0';
			a = parse_num(tok, &ok);
			b = parse_num(op + 1, &ok2);
			if (sign == '-')
				b = -b;
		} else {
			a = parse_num(tok, &ok);
		}
		if (!ok || !ok2)
			return -1;
		for (int k = 0; k <= times; k++)
			gw_memstore_append(m, id, (i + k) * step, a + b * k);
		i += times + 1;
	}
	return 0;
}

static bool almost_equal(double a, double b)
{
	if (isnan(a) && isnan(b))
		return true;
	if (a == b)
		return true;
	double diff = fabs(a - b);
	if (a == 0 || b == 0 || diff < 2.2250738585072014e-308)
		return diff < 1e-6 * 2.2250738585072014e-308;
	return diff / (fabs(a) + fabs(b)) < 1e-6;
}

struct expect {
	struct gw_lpair lp[32];
	size_t n;
	double v;
	char store[4096];
};

static bool same_labels(const struct gw_labels *l, const struct expect *x)
{
	if (l->n != x->n)
		return false;
	for (size_t i = 0; i < x->n; i++) {
		const char *v = gw_labels_get(l, x->lp[i].name);
		if (!v || strcmp(v, x->lp[i].value) != 0)
			return false;
	}
	return true;
}

/* Compare a result with the expected lines; returns an error text or NULL. */
static const char *compare(const struct gw_pq_result *r, struct expect *x, size_t nx, bool ordered, bool scalar_exp,
			   char *why, size_t whylen)
{
	if (scalar_exp) {
		if (r->type != GW_PQ_T_SCALAR)
			return "expected a scalar";
		if (!almost_equal(r->scalar, x[0].v)) {
			snprintf(why, whylen, "scalar %.17g, expected %.17g", r->scalar, x[0].v);
			return why;
		}
		return NULL;
	}
	if (r->type == GW_PQ_T_SCALAR)
		return "got a scalar, expected a vector";
	size_t n = r->type == GW_PQ_T_MATRIX ? r->matrix.n : r->vector.n;
	if (n != nx) {
		snprintf(why, whylen, "%zu elements, expected %zu", n, nx);
		return why;
	}
	if (r->type == GW_PQ_T_MATRIX)
		return NULL; /* range vectors: count checked only */
	for (size_t i = 0; i < nx; i++) {
		size_t j = 0;
		if (ordered) {
			j = i;
			if (!same_labels(&r->vector.s[j].labels, &x[i]))
				return "wrong order or labels";
		} else {
			while (j < n && !same_labels(&r->vector.s[j].labels, &x[i]))
				j++;
			if (j == n) {
				snprintf(why, whylen, "no result with the labels of expected line %zu", i + 1);
				return why;
			}
		}
		if (!almost_equal(r->vector.s[j].v, x[i].v)) {
			snprintf(why, whylen, "value %.17g, expected %.17g (line %zu)", r->vector.s[j].v, x[i].v, i + 1);
			return why;
		}
	}
	return NULL;
}

static void run_eval(struct gw_memstore *m, const char *file, int lineno, const char *cmd, char **lines,
		     size_t nlines, struct counts *c)
{
	bool ordered = strncmp(cmd, "eval_ordered", 12) == 0, fail_exp = strncmp(cmd, "eval_fail", 9) == 0;
	const char *at = strstr(cmd, " at ");
	if (!at) {
		c->skipped++;
		return;
	}
	char tstr[64];
	sscanf(at + 4, "%63s", tstr);
	int64_t t = parse_dur(tstr);
	const char *q = strstr(at + 4, tstr) + strlen(tstr);
	while (*q == ' ')
		q++;
	struct expect *x = calloc(nlines ? nlines : 1, sizeof(*x));
	bool scalar_exp = false;
	size_t nx = 0;
	for (size_t i = 0; i < nlines; i++) {
		const char *s = lines[i];
		while (isspace((unsigned char)*s))
			s++;
		bool ok;
		parse_num(s, &ok);
		if (!strchr(s, '{') && ok) {
			x[nx].v = parse_num(s, &ok);
			scalar_exp = true;
			nx++;
			continue;
		}
		const char *rest = parse_series(s, x[nx].lp, &x[nx].n, x[nx].store, sizeof(x[nx].store));
		if (!rest) {
			c->skipped++;
			free(x);
			return;
		}
		while (isspace((unsigned char)*rest))
			rest++;
		x[nx].v = parse_num(rest, &ok);
		nx++;
	}
	struct gw_pq_node *root = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_arena a;
	gw_arena_init(&a, 1 << 28);
	struct gw_querier qr = gw_memstore_querier(m);
	struct gw_pq_result res;
	int rc = gw_promql_parse(q, &root, &err);
	if (rc == 0)
		rc = gw_promql_instant(root, &qr, t, NULL, &a, &res, &err);
	const char *problem = NULL;
	char why[256];
	if (fail_exp)
		problem = rc == 0 ? "expected an error, got a result" : NULL;
	else if (rc != 0)
		problem = err.msg;
	else
		problem = compare(&res, x, nx, ordered, scalar_exp, why, sizeof(why));
	if (problem) {
		c->failed++;
		fprintf(stderr, "FAIL %s:%d: %s: %s\n", file, lineno, q, problem);
		if (verbose && rc == 0 && res.type == GW_PQ_T_VECTOR) {
			for (size_t i = 0; i < res.vector.n; i++) {
				fprintf(stderr, "   got {");
				for (size_t k = 0; k < res.vector.s[i].labels.n; k++)
					fprintf(stderr, "%s=\"%s\",", res.vector.s[i].labels.p[k].name,
						res.vector.s[i].labels.p[k].value);
				fprintf(stderr, "} %.17g\n", res.vector.s[i].v);
			}
		}
	} else {
		c->passed++;
	}
	gw_promql_free(root);
	gw_arena_release(&a);
	free(x);
}

static void run_file(const char *path, struct counts *total)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return;
	struct counts c = {0};
	struct gw_memstore *m = gw_memstore_new();
	struct gw_arena scratch;
	gw_arena_init(&scratch, 1 << 26);
	char *lines[4096];
	size_t n = 0;
	char buf[8192];
	int lineno = 0;
	while (fgets(buf, sizeof(buf), fp) && n < 4096) {
		buf[strcspn(buf, "\n")] = '\0';
		lines[n++] = strdup(buf);
	}
	fclose(fp);
	for (size_t i = 0; i < n; i++) {
		lineno = (int)i + 1;
		const char *l = lines[i];
		if (!*l || l[0] == '#')
			continue;
		size_t j = i + 1;
		while (j < n && (lines[j][0] == ' ' || lines[j][0] == '\t'))
			j++;
		if (strncmp(l, "load ", 5) == 0) {
			int64_t step = parse_dur(l + 5);
			for (size_t k = i + 1; k < j; k++) {
				struct gw_lpair lp[32], lp2[32];
				size_t nl, nl2;
				char store[4096], store2[4096];
				const char *rest = parse_series(lines[k], lp, &nl, store, sizeof(store));
				/* A later line for the same series replaces this one, as in Prometheus. */
				bool replaced = false;
				for (size_t k2 = k + 1; k2 < j && rest && !replaced; k2++) {
					if (!parse_series(lines[k2], lp2, &nl2, store2, sizeof(store2)) || nl2 != nl)
						continue;
					struct gw_labels a = gw_labels_from(&scratch, lp, nl);
					struct gw_labels b = gw_labels_from(&scratch, lp2, nl2);
					replaced = gw_labels_equal(&a, &b);
				}
				if (replaced)
					continue;
				long id = rest ? gw_memstore_series(m, lp, nl) : -1;
				if (id < 0 || load_values(m, id, rest, step) != 0)
					fprintf(stderr, "%s:%zu: cannot load \"%s\"\n", path, k + 1, lines[k]);
			}
		} else if (strcmp(l, "clear") == 0) {
			gw_memstore_clear(m);
		} else if (strncmp(l, "eval", 4) == 0) {
			run_eval(m, path, lineno, l, &lines[i + 1], j - i - 1, &c);
		}
		i = j - 1;
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	gw_memstore_free(m);
	gw_arena_release(&scratch);
	printf("%s: %zu passed, %zu failed, %zu skipped\n", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
	       c.passed, c.failed, c.skipped);
	total->passed += c.passed;
	total->failed += c.failed;
	total->skipped += c.skipped;
}

static void run_dir(const char *dir, struct counts *c)
{
	DIR *d = opendir(dir);
	if (!d) {
		printf("skipped: %s not present\n", dir);
		return;
	}
	struct dirent *de;
	char *names[64];
	size_t n = 0;
	while ((de = readdir(d)) && n < 64)
		if (strstr(de->d_name, ".test"))
			names[n++] = strdup(de->d_name);
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		char path[2048];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		run_file(path, c);
		free(names[i]);
	}
}

static void test_conformance(void)
{
	verbose = getenv("GW_TEST_VERBOSE") != NULL;
	struct counts c = {0};
	const char *shared = getenv("GW_SHARED_DIR");
	const char *data = getenv("GW_TEST_DATA");
	char dir[2048];
	snprintf(dir, sizeof(dir), "%s/promql-tests", shared ? shared : "../shared");
	run_dir(dir, &c);
	snprintf(dir, sizeof(dir), "%s/data/promql", data ? data : "tests");
	run_dir(dir, &c);
	printf("PromQL conformance: %zu passed, %zu failed, %zu skipped\n", c.passed, c.failed, c.skipped);
	CHECK(c.passed > 0);
	CHECK_INT_EQ(c.failed, 0);
}

int main(void)
{
	RUN(test_conformance);
	return harness_done();
}
