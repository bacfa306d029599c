/*
 * health.c - the watches' state: each GPU's kept counter snapshots (the
 * window rates are taken over), daily DBE retired-page counts, and the
 * previous evaluation's incidents (which keep their "since").
 */
#include "health/health_int.h"

#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sys_names[] = {
#define GW_HSYS_NAME(id, name, dcgm) name,
    GW_HEALTH_SYSTEMS(GW_HSYS_NAME)
#undef GW_HSYS_NAME
};
static const char *const sys_dcgm[] = {
#define GW_HSYS_DCGM(id, name, dcgm) dcgm,
    GW_HEALTH_SYSTEMS(GW_HSYS_DCGM)
#undef GW_HSYS_DCGM
};

const char *gw_health_system_name(enum gw_health_system s)
{
	return (unsigned int)s < GW_HSYS__COUNT ? sys_names[s] : "unknown";
}

const char *gw_health_system_dcgm(enum gw_health_system s)
{
	return (unsigned int)s < GW_HSYS__COUNT ? sys_dcgm[s] : "UNKNOWN";
}

const char *gw_health_status_name(enum gw_health_status s)
{
	return s == GW_HEALTH_FAIL ? "fail" : s == GW_HEALTH_WARN ? "warn" : "pass";
}

#define MINUTE_MS 60000
#define DAY_MS (24 * 3600 * (int64_t)1000)
#define WEEK_MS (7 * DAY_MS)

void gw_health_defaults(struct gw_health_opts *o)
{
	*o = (struct gw_health_opts){
	    .window_ms = MINUTE_MS,  /* DCGM's health checks look one minute back */
	    .sbe_per_window = 10,    /* DCGM_LIMIT_MAX_SBE_RATE */
	    .retired_pages_max = 63, /* DCGM_LIMIT_MAX_RETIRED_PAGES */
	    .retired_dbe_soft = 15,  /* DCGM_LIMIT_MAX_RETIRED_PAGES_SOFT_LIMIT */
	    .remap_unc_max = 512,    /* DCGM_LIMIT_MAX_ROW_REMAP_UNCORRECTABLE */
	    .nvlink_crc_per_s = 100, /* DCGM_LIMIT_MAX_NVLINK_CRC_ERROR */
	};
}

int gw_health_init(struct gw_health *h, unsigned int ngpus, const struct gw_health_opts *opts)
{
	memset(h, 0, sizeof(*h));
	if (opts)
		h->o = *opts;
	else
		gw_health_defaults(&h->o);
	if (h->o.window_ms <= 0)
		h->o.window_ms = MINUTE_MS;
	h->gpu = calloc(ngpus ? ngpus : 1, sizeof(*h->gpu));
	if (!h->gpu)
		return GW_ENOMEM;
	h->ngpus = ngpus;
	return 0;
}

void gw_health_release(struct gw_health *h)
{
	free(h->gpu);
	h->gpu = NULL;
	h->ngpus = 0;
}

void health_add(struct gw_health_report *out, enum gw_health_system sys, enum gw_health_status sev, bool all,
		const char *code, const char *key, const char *todo, const char *fmt, ...)
{
	if (out->ninc >= GW_HEALTH_INCIDENTS_MAX)
		return;
	struct gw_health_incident *in = &out->inc[out->ninc++];
	in->system = (uint8_t)sys;
	in->severity = (uint8_t)sev;
	in->all = all;
	in->code = code;
	snprintf(in->key, sizeof(in->key), "%s", key);
	in->since_ms = out->t_ms;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(in->message, sizeof(in->message), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(in->message) && todo)
		snprintf(in->message + n, sizeof(in->message) - (size_t)n, "; %s", todo);
}

/* Keep the reading's counters if the last kept snapshot is far enough back. */
static void keep(struct gw_health_gpu *g, const struct gw_health_opts *o, const struct gw_health_reading *r)
{
	const struct health_snap *last = g->n ? &g->ring[(g->head + HEALTH_RING - 1) % HEALTH_RING] : NULL;
	if (last && r->t_ms <= last->t_ms)
		return;
	int64_t gap = o->window_ms / (HEALTH_RING / 2);
	if (last && r->t_ms - last->t_ms < gap)
		return;
	struct health_snap *s = &g->ring[g->head];
	s->t_ms = r->t_ms;
	s->valid = r->valid;
	memcpy(s->v, r->v, sizeof(s->v));
	g->head = (g->head + 1) % HEALTH_RING;
	if (g->n < HEALTH_RING)
		g->n++;
	if (r->valid & (1u << GW_HV_RETIRED_DBE) &&
	    (!g->nday || r->t_ms - g->day[(g->nday - 1)].t_ms >= DAY_MS)) {
		if (g->nday == HEALTH_DAYS) {
			memmove(g->day, g->day + 1, (HEALTH_DAYS - 1) * sizeof(g->day[0]));
			g->nday--;
		}
		g->day[g->nday].t_ms = r->t_ms;
		g->day[g->nday].dbe = r->v[GW_HV_RETIRED_DBE];
		g->nday++;
	}
}

/* The oldest kept snapshot inside the window ending at t; NULL: none. */
static const struct health_snap *window_start(const struct gw_health_gpu *g, int64_t window_ms, int64_t t)
{
	for (unsigned int i = 0; i < g->n; i++) {
		const struct health_snap *s = &g->ring[(g->head + HEALTH_RING - g->n + i) % HEALTH_RING];
		if (s->t_ms >= t - window_ms && s->t_ms <= t)
			return s;
	}
	return NULL;
}

/* DBE retired pages at the latest daily snapshot a week or more before t; -1: none that old. */
static int64_t week_ago(const struct gw_health_gpu *g, int64_t t)
{
	int64_t v = -1;
	for (unsigned int i = 0; i < g->nday; i++)
		if (g->day[i].t_ms <= t - WEEK_MS)
			v = g->day[i].dbe;
	return v;
}

static int by_badness(const void *pa, const void *pb)
{
	const struct gw_health_incident *a = pa, *b = pb;
	if (a->severity != b->severity)
		return b->severity - a->severity;
	if (a->system != b->system)
		return a->system - b->system;
	return strcmp(a->key, b->key);
}

void gw_health_eval(struct gw_health *h, unsigned int gi, const struct gw_health_reading *r,
		    struct gw_health_report *out)
{
	memset(out, 0, sizeof(*out));
	out->t_ms = r->t_ms;
	if (gi >= h->ngpus)
		return;
	struct gw_health_gpu *g = &h->gpu[gi];
	keep(g, &h->o, r);
	if (r->valid & (1u << GW_HV_NVL_ACTIVE) && r->v[GW_HV_NVL_ACTIVE] > g->nvl_max)
		g->nvl_max = r->v[GW_HV_NVL_ACTIVE];
	struct health_view v = {.o = &h->o,
				.r = r,
				.base = window_start(g, h->o.window_ms, r->t_ms),
				.week_dbe = week_ago(g, r->t_ms),
				.nvl_max = g->nvl_max};
	health_watch_all(&v, out);
	for (int k = 0; k < GW_HV__COUNT; k++)
		if (health_delta(&v, (enum gw_health_value)k, &out->delta[k]))
			out->has_delta |= 1u << k;
	for (unsigned int i = 0; i < out->ninc; i++) {
		struct gw_health_incident *in = &out->inc[i];
		for (unsigned int k = 0; k < g->nseen; k++)
			if (strcmp(g->seen[k].key, in->key) == 0 && g->seen[k].since_ms <= in->since_ms)
				in->since_ms = g->seen[k].since_ms;
		if (in->severity > out->system[in->system])
			out->system[in->system] = in->severity;
		if (in->severity > out->status)
			out->status = in->severity;
	}
	qsort(out->inc, out->ninc, sizeof(out->inc[0]), by_badness);
	g->nseen = out->ninc;
	for (unsigned int i = 0; i < out->ninc; i++) {
		memcpy(g->seen[i].key, out->inc[i].key, sizeof(g->seen[i].key));
		g->seen[i].since_ms = out->inc[i].since_ms;
	}
}

enum gw_health_status gw_health_overall(const struct gw_health_report *r, unsigned int n)
{
	uint8_t s = GW_HEALTH_PASS;
	for (unsigned int i = 0; i < n; i++)
		if (r[i].status > s)
			s = r[i].status;
	return (enum gw_health_status)s;
}
