/*
 * record_baseline.c - `gpuwatch record --baseline OLD.json`: this run's mean
 * utilisation, energy and peak memory against an earlier run's summary.
 * Lower utilisation, or more energy or memory, than the baseline by more
 * than the tolerance is a regression. The summary is read with jansson,
 * which the terminal UI already links.
 */
#include "cmd/record_int.h"

#include "api/json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ME "gpuwatch record"

/* each metric's name in the summary, and whether a higher value is the regression */
static const struct {
	const char *name;
	bool higher_is_worse;
} metrics[RECORD_BASE_N] = {
    [RECORD_BASE_UTIL] = {"utilization_ratio_mean", false},
    [RECORD_BASE_ENERGY] = {"energy_joules", true},
    [RECORD_BASE_PEAK] = {"peak_memory_bytes", true},
};

static double number(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The mean over the summary's GPUs of stats.utilization_ratio.mean. */
static double util_mean(const json_t *gpus)
{
	double sum = 0;
	size_t n = 0, i;
	json_t *g;
	json_array_foreach(gpus, i, g)
	{
		double m = number(json_object_get(
		    json_object_get(json_object_get(g, "stats"), "utilization_ratio"), "mean"));
		if (isfinite(m)) {
			sum += m;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

int record_baseline_load(struct record_baseline *b, const char *path, double tolerance)
{
	memset(b, 0, sizeof(*b));
	b->path = path;
	b->tolerance = tolerance;
	json_error_t e;
	json_t *root = json_load_file(path, 0, &e);
	if (!root) {
		fprintf(stderr, ME ": --baseline %s: %s (line %d)\n", path, e.text, e.line);
		return GW_EXIT_BADARG;
	}
	const json_t *gpus = json_object_get(root, "gpus");
	if (!json_is_object(root) || !json_is_array(gpus)) {
		fprintf(stderr, ME ": --baseline %s: not a gpuwatch record summary (no \"gpus\" array)\n",
			path);
		json_decref(root);
		return GW_EXIT_BADARG;
	}
	b->old[RECORD_BASE_UTIL] = util_mean(gpus);
	b->old[RECORD_BASE_ENERGY] = number(json_object_get(root, "energy_joules"));
	b->old[RECORD_BASE_PEAK] = number(json_object_get(root, "peak_memory_bytes"));
	json_decref(root);
	return 0;
}

/* One metric's check; its expr names it, its msg says what happened. A
 * baseline of 0 makes any rise a regression (idle GPUs, then busy ones). */
static void check(struct record_baseline *b, int k)
{
	struct record_assert *c = &b->check[k];
	double old = b->old[k], now = b->now[k];
	c->expr = metrics[k].name;
	c->passed = true;
	if (!isfinite(old) || !isfinite(now)) {
		snprintf(c->msg, sizeof(c->msg), "not compared: %s",
			 !isfinite(now) ? "not known for this run" : "not in the baseline");
		return;
	}
	double change = old > 0 ? (now - old) / old : now > old ? INFINITY : 0;
	bool worse = metrics[k].higher_is_worse ? change > b->tolerance : -change > b->tolerance;
	snprintf(c->msg, sizeof(c->msg), "%s%.6g, baseline %.6g (%+.1f%%, tolerance %.1f%%)",
		 worse ? "regression: " : "", now, old, change * 100, b->tolerance * 100);
	if (worse) {
		c->passed = false;
		b->regressions++;
		fprintf(stderr, ME ": baseline %s: %s\n", c->expr, c->msg);
	}
}

void record_baseline_compare(struct record_baseline *b, const struct record_gpus *g)
{
	if (!b->path)
		return;
	record_gpus_totals(g, &b->now[RECORD_BASE_UTIL], &b->now[RECORD_BASE_ENERGY],
			   &b->now[RECORD_BASE_PEAK]);
	for (int k = 0; k < RECORD_BASE_N; k++)
		check(b, k);
}

static void num(struct gw_buf *out, double v)
{
	if (isfinite(v))
		gw_buf_printf(out, "%.17g", v);
	else
		gw_buf_puts(out, "null");
}

void record_baseline_json(const struct record_baseline *b, struct gw_buf *out)
{
	if (!b->path)
		return;
	gw_buf_puts(out, ",\"baseline\":{\"file\":");
	gw_json_str(out, b->path);
	gw_buf_printf(out, ",\"tolerance\":%.17g,\"regressions\":%zu,\"metrics\":[", b->tolerance,
		      b->regressions);
	for (int k = 0; k < RECORD_BASE_N; k++) {
		gw_buf_puts(out, k ? ",{\"metric\":" : "{\"metric\":");
		gw_json_str(out, metrics[k].name);
		gw_buf_puts(out, ",\"value\":");
		num(out, b->now[k]);
		gw_buf_puts(out, ",\"baseline\":");
		num(out, b->old[k]);
		gw_buf_printf(out, ",\"regression\":%s}", b->check[k].passed ? "false" : "true");
	}
	gw_buf_puts(out, "]}");
}
