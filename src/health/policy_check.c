/*
 * policy_check.c - which policy conditions fire on a reading and its
 * health report, each at most once per interval for a GPU.
 */
#include "health/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gw_policy_state_init(struct gw_policy_state *s, unsigned int ngpus)
{
	s->gpu = calloc(ngpus ? ngpus : 1, sizeof(*s->gpu));
	s->ngpus = s->gpu ? ngpus : 0;
	return s->gpu ? 0 : GW_ENOMEM;
}

void gw_policy_state_release(struct gw_policy_state *s)
{
	free(s->gpu);
	s->gpu = NULL;
	s->ngpus = 0;
}

static bool has(const struct gw_health_reading *r, enum gw_health_value k)
{
	return r->valid & (1u << k);
}

static bool delta(const struct gw_health_report *rep, enum gw_health_value k, int64_t *d)
{
	if (!(rep->has_delta & (1u << k)))
		return false;
	*d = rep->delta[k];
	return true;
}

/* The count of an XID code at the last check. */
static uint64_t xid_before(const struct gw_policy_gpu *st, unsigned int code)
{
	for (unsigned int i = 0; i < st->nxid; i++)
		if (st->xid[i].code == code)
			return st->xid[i].count;
	return 0;
}

/* Whether condition c of policy p holds; its value in words. */
static bool holds(const struct gw_policy *p, enum gw_policy_cond c, const struct gw_policy_gpu *st,
		  const struct gw_health_reading *r, const struct gw_health_report *rep, char *val, size_t n)
{
	int64_t d = 0, sum = 0;
	bool any = false;
	switch (c) {
	case GW_PC_DBE:
		if (!has(r, GW_HV_DBE_VOL) || r->v[GW_HV_DBE_VOL] <= st->dbe)
			return false;
		snprintf(val, n, "%lld", (long long)r->v[GW_HV_DBE_VOL]);
		return true;
	case GW_PC_XID:
		for (unsigned int i = 0; i < r->nxid; i++)
			for (unsigned int k = 0; k < p->nxid; k++)
				if (r->xid[i].code == p->xid[k] &&
				    r->xid[i].count > xid_before(st, p->xid[k])) {
					snprintf(val, n, "%u", p->xid[k]);
					return true;
				}
		return false;
	case GW_PC_RETIRED_PAGES:
		sum = (has(r, GW_HV_RETIRED_SBE) ? r->v[GW_HV_RETIRED_SBE] : 0) +
		      (has(r, GW_HV_RETIRED_DBE) ? r->v[GW_HV_RETIRED_DBE] : 0);
		if (!(has(r, GW_HV_RETIRED_SBE) || has(r, GW_HV_RETIRED_DBE)) || sum < p->retired_pages)
			return false;
		snprintf(val, n, "%lld", (long long)sum);
		return true;
	case GW_PC_PCIE_REPLAYS:
		if (!delta(rep, GW_HV_PCIE_REPLAYS, &d) || d <= p->pcie_per_min)
			return false;
		snprintf(val, n, "%lld", (long long)d);
		return true;
	case GW_PC_THERMAL:
		if (!delta(rep, GW_HV_THERMAL_NS, &d) || d <= 0)
			return false;
		snprintf(val, n, "%.3f", (double)d / 1e9); /* seconds held down in the window */
		return true;
	case GW_PC_POWER:
		for (int k = GW_HV_POWER_NS; k <= GW_HV_BRAKE_NS; k++)
			if (delta(rep, (enum gw_health_value)k, &d))
				sum += d;
		if (sum <= 0)
			return false;
		snprintf(val, n, "%.3f", (double)sum / 1e9);
		return true;
	case GW_PC_NVLINK:
		for (int k = GW_HV_NVL_CRC_FLIT; k <= GW_HV_NVL_RECOVERY; k++)
			if (delta(rep, (enum gw_health_value)k, &d)) {
				sum += d;
				any = true;
			}
		if (!any || sum <= p->nvlink_over)
			return false;
		snprintf(val, n, "%lld", (long long)sum);
		return true;
	default: /* health */
		if (rep->status < p->health)
			return false;
		snprintf(val, n, "%s", gw_health_status_name((enum gw_health_status)rep->status));
		return true;
	}
}

void gw_policies_check(const struct gw_policies *p, struct gw_policy_state *s, unsigned int g,
		       const struct gw_health_reading *r, const struct gw_health_report *rep,
		       void (*fire)(void *arg, unsigned int g, const struct gw_policy_fire *f), void *arg)
{
	if (g >= s->ngpus)
		return;
	struct gw_policy_gpu *st = &s->gpu[g];
	for (size_t i = 0; i < p->n && i < GW_POLICIES_MAX; i++) {
		const struct gw_policy *q = &p->v[i];
		for (int c = 0; c < GW_PC__COUNT; c++) {
			struct gw_policy_fire f = {.policy = q, .cond = (enum gw_policy_cond)c};
			if (!(q->conds & (1u << c)) ||
			    !holds(q, f.cond, st, r, rep, f.value, sizeof(f.value)))
				continue;
			int64_t *last = &st->fired[i][c];
			if (*last && r->t_ms - *last < q->interval_ms)
				continue;
			*last = r->t_ms;
			fire(arg, g, &f);
		}
	}
	/* the counts events are told by, for the next check */
	if (has(r, GW_HV_DBE_VOL))
		st->dbe = r->v[GW_HV_DBE_VOL];
	st->nxid = r->nxid;
	for (unsigned int i = 0; i < r->nxid; i++) {
		st->xid[i].code = r->xid[i].code;
		st->xid[i].count = r->xid[i].count;
	}
	st->seen = true;
}
