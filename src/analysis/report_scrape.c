/*
 * report_scrape.c - the inference servers beside the GPUs (the agent's
 * --scrape targets): each target that has scrape_duration_seconds in the
 * range, how much of the range it was up, and the mean rate of its
 * request and token counters over the time it was scraped (vLLM's
 * vllm:generation_tokens_total, vllm:request_success_total, Triton's
 * nv_inference_request_success, ...).
 */
#include "analysis/report_int.h"

#include "model/labels.h"
#include "model/match.h"

#include <math.h>
#include <string.h>

#define TARGETS_MAX 32
#define RATES_MAX 16

/* The counters a report gives rates of: a word in the name and its ending ("" : the whole name). */
static const struct {
	const char *word, *ending, *unit;
} counters[] = {
    {"token", "_total", "tokens/s"},
    {"request", "_total", "requests/s"},
    {"nv_inference_request_success", "", "requests/s"}, /* Triton's counters have no _total */
    {"nv_inference_count", "", "inferences/s"},
};

static const char *counter_unit(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		size_t e = strlen(counters[i].ending);
		bool match = e ? strstr(name, counters[i].word) && n > e &&
				     strcmp(name + n - e, counters[i].ending) == 0
			       : strcmp(name, counters[i].word) == 0;
		if (match)
			return counters[i].unit;
	}
	return NULL;
}

static int select_eq(const struct gw_querier *q, const struct gw_report *r, const char *const *kv, size_t n,
		     struct gw_arena *a, struct gw_series_set *set, struct gw_err *err)
{
	struct gw_matcher m[3];
	size_t nm = 0;
	int rc = 0;
	for (; nm < n && rc == 0; nm++)
		rc = gw_matcher_init(&m[nm], kv[2 * nm], kv[2 * nm + 1], GW_MATCH_EQ, err);
	if (rc == 0)
		rc = q->select(q->ctx, m, nm, r->from, r->to, a, set, err);
	while (nm)
		gw_matcher_release(&m[--nm]);
	return rc;
}

static double mean_of(const struct gw_series_set *set)
{
	double acc = 0, n = 0;
	for (size_t i = 0; i < set->n; i++)
		for (size_t k = 0; k < set->s[i].n; k++)
			if (!isnan(set->s[i].v[k])) {
				acc += set->s[i].v[k];
				n++;
			}
	return n ? acc / n : NAN;
}

/* The target's counters, summed by name, as rates over its scraped time. */
static int target_rates(struct gw_report *r, struct gw_report_scrape *sc, const struct gw_series_set *set)
{
	sc->rate = gw_arena_alloc(&r->arena, RATES_MAX * sizeof(*sc->rate));
	if (!sc->rate)
		return GW_ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		const struct gw_series *s = &set->s[i];
		const char *name = gw_labels_get(&s->labels, GW_METRIC_NAME);
		const char *unit = name ? counter_unit(name) : NULL;
		if (!unit || !s->n)
			continue;
		size_t k = 0;
		while (k < sc->nrate && strcmp(sc->rate[k].name, name) != 0)
			k++;
		if (k == RATES_MAX)
			continue;
		if (k == sc->nrate) {
			sc->rate[k] = (struct gw_report_rate){gw_arena_strdup(&r->arena, name), unit, 0, 0};
			if (!sc->rate[sc->nrate++].name)
				return GW_ENOMEM;
		}
		sc->rate[k].increase += gw_rpt_increase(s->t, s->v, s->n, NULL, NULL);
	}
	for (size_t k = 0; k < sc->nrate; k++)
		sc->rate[k].per_s = sc->seconds > 0 ? sc->rate[k].increase / sc->seconds : NAN;
	return 0;
}

static int read_target(struct gw_report *r, const struct gw_querier *q, const struct gw_series *d,
		       struct gw_arena *tmp, struct gw_err *err)
{
	const char *job = gw_labels_get(&d->labels, "job"), *inst = gw_labels_get(&d->labels, "instance");
	if (!job || !inst || !d->n || r->nscrapes == TARGETS_MAX)
		return 0;
	struct gw_report_scrape *sc = &r->scrape[r->nscrapes];
	*sc = (struct gw_report_scrape){.job = gw_arena_strdup(&r->arena, job),
					.instance = gw_arena_strdup(&r->arena, inst)};
	if (!sc->job || !sc->instance)
		return GW_ENOMEM;
	sc->seconds = (double)(d->t[d->n - 1] - d->t[0]) / 1000.0;
	const char *up[] = {GW_METRIC_NAME, "up", "job", job, "instance", inst};
	struct gw_series_set set = {0};
	int rc = select_eq(q, r, up, 3, tmp, &set, err);
	if (rc)
		return rc;
	sc->up_ratio = mean_of(&set);
	const char *all[] = {"job", job, "instance", inst};
	if ((rc = select_eq(q, r, all, 2, tmp, &set, err)) != 0 || (rc = target_rates(r, sc, &set)) != 0)
		return rc;
	r->nscrapes++;
	return 0;
}

int gw_rpt_read_scrapes(struct gw_report *r, const struct gw_querier *q, struct gw_err *err)
{
	struct gw_arena tmp;
	gw_arena_init(&tmp, (size_t)1 << 32);
	const char *dur[] = {GW_METRIC_NAME, "scrape_duration_seconds"};
	struct gw_series_set set = {0};
	int rc = select_eq(q, r, dur, 1, &tmp, &set, err);
	if (!rc && set.n && !(r->scrape = gw_arena_alloc(&r->arena, TARGETS_MAX * sizeof(*r->scrape))))
		rc = GW_ENOMEM;
	for (size_t i = 0; !rc && i < set.n; i++)
		rc = read_target(r, q, &set.s[i], &tmp, err);
	if (rc && !err->msg[0])
		gw_err_set(err, rc, "reading the scraped targets: %s", gw_strerror(rc));
	gw_arena_release(&tmp);
	return rc;
}
