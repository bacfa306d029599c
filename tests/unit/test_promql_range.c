/*
 * Range queries against instant queries: every step of a range query must
 * equal an instant query at that time. The range evaluator remembers what
 * it derives from label sets across steps (eval_memo.c); this catches a
 * remembered answer that belongs to another step, node or label set. Also
 * the duplicate-labelset error, which that bookkeeping now decides.
 */
#include "harness.h"
#include "promql/engine.h"
#include "store/memstore.h"

#include <math.h>

static const char *const GPUS[] = {"0", "1", "2", "3"};

/* 30 min of 15 s samples: util, fb used/free, an energy counter with a
 * reset, a series that goes stale halfway, and two names that differ only
 * by their name and never overlap in time. */
static void load(struct gw_memstore *ms)
{
	for (int g = 0; g < 4; g++) {
		struct gw_lpair u[3] = {{"__name__", "util"}, {"gpu", GPUS[g]}, {"host", g < 2 ? "a" : "b"}};
		struct gw_lpair fu[3] = {{"__name__", "fb_used"}, {"gpu", GPUS[g]}, {"host", g < 2 ? "a" : "b"}};
		struct gw_lpair ff[3] = {{"__name__", "fb_free"}, {"gpu", GPUS[g]}, {"host", g < 2 ? "a" : "b"}};
		struct gw_lpair en[3] = {{"__name__", "energy"}, {"gpu", GPUS[g]}, {"host", g < 2 ? "a" : "b"}};
		long iu = gw_memstore_series(ms, u, 3), ifu = gw_memstore_series(ms, fu, 3);
		long iff = gw_memstore_series(ms, ff, 3), ien = gw_memstore_series(ms, en, 3);
		double e = 0;
		for (int64_t t = 0; t <= 1800000; t += 15000) {
			int k = (int)(t / 15000);
			if (!(g == 3 && t > 900000))
				gw_memstore_append(ms, iu, t, (double)((k * 7 + g * 11) % 101));
			else if (t == 915000)
				gw_memstore_append(ms, iu, t, gw_stale_nan());
			gw_memstore_append(ms, ifu, t, 1000.0 * (g + 1) + k % 17);
			gw_memstore_append(ms, iff, t, 80000.0 - k % 23);
			e = k == 60 && g == 1 ? 5 : e + 300 + g + k % 5;
			gw_memstore_append(ms, ien, t, e);
		}
	}
	/* For the sliding max/min_over_time: NaN samples (one alone in its
	 * windows at times), plateaus of equal values, -0 and +0, a stale
	 * stretch and off-grid times. */
	for (int g = 0; g < 2; g++) {
		struct gw_lpair w[2] = {{"__name__", "wobble"}, {"gpu", GPUS[g]}};
		long iw = gw_memstore_series(ms, w, 2);
		for (int64_t t = 0; t <= 1800000; t += 15000 + (t / 15000 % 3) * 1000 * g) {
			int k = (int)(t / 15000);
			double v = k % 7 == 3 ? NAN : k % 11 < 4 ? 5 : (double)((k * 13 + g) % 9) - 4;
			if (k % 13 == 6)
				v = k % 2 ? -0.0 : 0.0;
			if (g == 1 && t > 600000 && t < 700000)
				v = gw_stale_nan();
			gw_memstore_append(ms, iw, t, v);
		}
	}
	/* Windows whose max (gpu 0) or min (gpu 1) is zero, -0 or +0 by which
	 * comes first: of equal values the earliest is the answer. */
	for (int g = 0; g < 2; g++) {
		struct gw_lpair z[2] = {{"__name__", "zeros"}, {"gpu", GPUS[g]}};
		long iz = gw_memstore_series(ms, z, 2);
		for (int64_t t = 0; t <= 1800000; t += 15000) {
			int k = (int)(t / 15000);
			gw_memstore_append(ms, iz, t, k % 3 == 2 ? (g ? 1 : -1) : (k * 7 % 5) < 2 ? -0.0 : 0.0);
		}
	}
	struct gw_lpair x[2] = {{"__name__", "old_name"}, {"gpu", "0"}};
	struct gw_lpair y[2] = {{"__name__", "new_name"}, {"gpu", "0"}};
	long ix = gw_memstore_series(ms, x, 2), iy = gw_memstore_series(ms, y, 2);
	for (int64_t t = 0; t <= 1800000; t += 15000)
		gw_memstore_append(ms, t < 600000 ? ix : iy, t, (double)(t / 15000));
}

static bool same_at(const struct gw_matrix *m, const struct gw_pq_result *r, int64_t t, char *why, size_t n)
{
	size_t found = 0;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->s[i].n; j++) {
			if (m->s[i].t[j] != t)
				continue;
			found++;
			double want = NAN;
			bool have = false;
			if (r->type == GW_PQ_T_SCALAR) {
				want = r->scalar;
				have = true;
			}
			for (size_t k = 0; !have && k < r->vector.n; k++)
				if (gw_labels_equal(&r->vector.s[k].labels, &m->s[i].labels)) {
					want = r->vector.s[k].v;
					have = true;
				}
			double got = m->s[i].v[j];
			if (!have || !(got == want || (isnan(got) && isnan(want)))) {
				snprintf(why, n, "series %zu at %lld: range %.17g, instant %s%.17g", i, (long long)t, got,
					 have ? "" : "(missing) ", want);
				return false;
			}
		}
	size_t want_n = r->type == GW_PQ_T_SCALAR ? 1 : r->vector.n;
	if (found != want_n) {
		snprintf(why, n, "at %lld: range has %zu elements, instant %zu", (long long)t, found, want_n);
		return false;
	}
	return true;
}

static void test_range_equals_instants(void)
{
	static const char *const queries[] = {
		"util",
		"-util",
		"abs(util - 50)",
		"max_over_time(util[2m])",
		"rate(energy[1m])",
		"sum(rate(energy[2m])) / 1000",
		"sum by (host) (util)",
		"avg without (gpu) (util)",
		"count by (host) (util > 40)",
		"topk(2, util)",
		"sum by (gpu) (fb_used) / sum by (gpu) (fb_used + fb_free)",
		"fb_used / on (gpu) group_left (host) fb_free",
		"util > bool 50",
		"util and on (gpu) (fb_used > 1002)",
		"util or fb_used",
		"count_values(\"v\", util)",
		"rate({__name__=~\"old_name|new_name\"}[30s])",
		"max_over_time(rate(energy[1m])[5m:30s])",
		"label_replace(util, \"dst\", \"$1\", \"gpu\", \"(.*)\")",
		"max_over_time(wobble[45s])",
		"min_over_time(wobble[2m])",
		"max_over_time(wobble[15s])",
		"min_over_time(util[5m] offset 1m)",
		"max by (host) (max_over_time(util[10m]))",
		"max_over_time(util[1m]) - min_over_time(util[1m])",
		"1 / max_over_time(wobble[1m])",
		"1 / max_over_time(zeros{gpu=\"0\"}[1m])",
		"1 / min_over_time(zeros{gpu=\"1\"}[2m])",
		/* one pass a series for the other range functions (no stale
		 * markers in energy, fb_used, fb_free; util has one: step by step) */
		"increase(energy[2m])",
		"delta(fb_used[1m] offset 30s)",
		"deriv(fb_used[3m])",
		"irate(energy[45s])",
		"idelta(energy[1m])",
		"resets(energy[10m])",
		"changes(fb_used[5m])",
		"avg_over_time(energy[90s])",
		"sum_over_time(fb_used[2m])",
		"count_over_time(fb_free[20s])",
		"stddev_over_time(fb_free[2m])",
		"stdvar_over_time(fb_used[4m])",
		"last_over_time(fb_used[1m])",
		"present_over_time(fb_free[10s])",
		"avg_over_time(util[1m])",
		"avg_over_time(wobble[1m])",
		"sum by (host) (rate(energy[1m] offset 2m))",
		/* a plain selector or one slide at the top: series written directly */
		"(util)",
		"fb_free offset 45s",
		"fb_free @ 900",
		"(rate(energy[1m]))",
		"wobble",
	};
	struct gw_memstore *ms = gw_memstore_new();
	load(ms);
	struct gw_querier q = gw_memstore_querier(ms);
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		struct gw_pq_node *root = NULL;
		struct gw_err err;
		gw_err_clear(&err);
		CHECK_INT_EQ(gw_promql_parse(queries[i], &root, &err), 0);
		struct gw_arena a;
		gw_arena_init(&a, 1 << 28);
		struct gw_matrix m;
		int rc = gw_promql_range(root, &q, 300000, 1800000, 45000, NULL, &a, &m, &err);
		if (rc) {
			fprintf(stderr, "  %s: %s\n", queries[i], err.msg);
			CHECK_INT_EQ(rc, 0);
		}
		bool ok = true;
		for (int64_t t = 300000; rc == 0 && ok && t <= 1800000; t += 45000) {
			struct gw_arena b;
			gw_arena_init(&b, 1 << 26);
			struct gw_pq_result r;
			CHECK_INT_EQ(gw_promql_instant(root, &q, t, NULL, &b, &r, &err), 0);
			char why[200];
			if (!same_at(&m, &r, t, why, sizeof(why))) {
				fprintf(stderr, "  %s: %s\n", queries[i], why);
				ok = false;
			}
			gw_arena_release(&b);
		}
		CHECK(ok);
		gw_arena_release(&a);
		gw_promql_free(root);
	}
	gw_memstore_free(ms);
}

/* Two series that differ only by name collide once the name is dropped:
 * an error at a step where both exist, none where only one does. */
static void test_duplicate_labelset(void)
{
	struct gw_memstore *ms = gw_memstore_new();
	struct gw_lpair a[2] = {{"__name__", "a"}, {"gpu", "0"}}, b[2] = {{"__name__", "b"}, {"gpu", "0"}};
	long ia = gw_memstore_series(ms, a, 2), ib = gw_memstore_series(ms, b, 2);
	for (int64_t t = 0; t <= 600000; t += 15000) {
		gw_memstore_append(ms, ia, t, 1);
		if (t >= 300000)
			gw_memstore_append(ms, ib, t, 2);
	}
	struct gw_querier q = gw_memstore_querier(ms);
	struct gw_pq_node *root = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_promql_parse("{__name__=~\"a|b\"} * 2", &root, &err), 0);
	struct gw_arena ar;
	gw_arena_init(&ar, 1 << 24);
	struct gw_matrix m;
	CHECK_INT_EQ(gw_promql_range(root, &q, 0, 240000, 60000, NULL, &ar, &m, &err), 0);
	CHECK_INT_EQ(m.n, 1);
	CHECK_INT_EQ(gw_promql_range(root, &q, 0, 600000, 60000, NULL, &ar, &m, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "same labelset") != NULL);
	gw_promql_free(root);
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_promql_parse("sum by (gpu) ({__name__=~\"a|b\"})", &root, &err), 0);
	struct gw_pq_result r;
	CHECK_INT_EQ(gw_promql_instant(root, &q, 600000, NULL, &ar, &r, &err), 0);
	CHECK_INT_EQ(r.vector.n, 1);
	CHECK_DBL_NEAR(r.vector.s[0].v, 3, 0);
	gw_promql_free(root);
	gw_arena_release(&ar);
	gw_memstore_free(ms);
}

int main(void)
{
	RUN(test_range_equals_instants);
	RUN(test_duplicate_labelset);
	return harness_done();
}
