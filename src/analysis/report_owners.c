/*
 * report_owners.c - who used the GPUs, from the process series the agent
 * stores as /metrics shows them (gpuwatch_process_memory_used_bytes and
 * _sm_utilization_ratio, with user, slurm_job, pod or pod_uid, container):
 * each owner of each kind gets its GPUs, the GPU time its processes were
 * there, their largest memory and mean SM use, and the energy of those
 * GPUs shared equally among the owners of that kind present at the same
 * moment. A process with several owner labels counts for each kind.
 */
#include "analysis/report_int.h"

#include "core/sort.h"
#include "model/labels.h"
#include "model/match.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define OWNERS_MAX 1024

/* The owner kinds, in the order the report lists them, and the label each is read from. */
static const struct {
	const char *kind, *label, *alt; /* alt: read when label is absent */
} kinds[] = {
	{"user", "user", NULL},
	{"slurm_job", "slurm_job", NULL},
	{"pod", "pod", "pod_uid"},
	{"container", "container", "container_id"},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* One owner on one GPU: where on the grid its processes were. */
struct presence {
	size_t owner, gpu;
	double *grid;
};

/* The owner's name from a series: "namespace/pod" where the pod's names are known. */
static const char *owner_name(const struct gw_series *s, size_t k, char *buf, size_t len)
{
	const char *v = gw_labels_get(&s->labels, kinds[k].label);
	if (k == 2 && v) {
		const char *ns = gw_labels_get(&s->labels, "namespace");
		if (ns && *ns) {
			snprintf(buf, len, "%s/%s", ns, v);
			return buf;
		}
	}
	if ((!v || !*v) && kinds[k].alt)
		v = gw_labels_get(&s->labels, kinds[k].alt);
	return v && *v ? v : NULL;
}

static long owner_index(struct gw_report *r, size_t kind, const char *name, size_t *cap)
{
	for (size_t i = 0; i < r->nowners; i++)
		if (r->owner[i].kind == kinds[kind].kind && strcmp(r->owner[i].name, name) == 0)
			return (long)i;
	if (r->nowners == OWNERS_MAX)
		return GW_ERANGE; /* the rest are left out */
	if (r->nowners == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		struct gw_report_owner *o = gw_arena_alloc(&r->arena, *cap * sizeof(*o));
		if (!o)
			return GW_ENOMEM;
		if (r->nowners)
			memcpy(o, r->owner, r->nowners * sizeof(*o));
		r->owner = o;
	}
	struct gw_report_owner *o = &r->owner[r->nowners];
	memset(o, 0, sizeof(*o));
	o->kind = kinds[kind].kind;
	o->name = gw_arena_strdup(&r->arena, name);
	o->gpus = gw_arena_alloc(&r->arena, (r->ngpus ? r->ngpus : 1) * sizeof(size_t));
	o->mem_max = NAN;
	o->sm_mean = NAN;
	if (!o->name || !o->gpus)
		return GW_ENOMEM;
	return (long)r->nowners++;
}

/* Presences from the memory series (a process holding memory is there), and the owners' largest memory. */
static int presences(struct gw_report *r, const struct gw_series_set *set, struct presence **out, size_t *np,
		     struct gw_arena *tmp)
{
	size_t cap = 0, pcap = set->n * NKINDS + 1;
	struct presence *p = gw_arena_alloc(tmp, pcap * sizeof(*p));
	if (!p)
		return GW_ENOMEM;
	*np = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct gw_series *s = &set->s[i];
		long g = gw_rpt_gpu_index(r, s);
		if (g < 0 || !s->n)
			continue;
		double peak = NAN;
		for (size_t j = 0; j < s->n; j++)
			if (!isnan(s->v[j]) && !(s->v[j] <= peak))
				peak = s->v[j];
		for (size_t k = 0; k < NKINDS; k++) {
			char buf[512];
			const char *name = owner_name(s, k, buf, sizeof(buf));
			if (!name)
				continue;
			long oi = owner_index(r, k, name, &cap);
			if (oi == GW_ENOMEM)
				return GW_ENOMEM;
			if (oi < 0)
				continue;
			struct gw_report_owner *o = &r->owner[oi];
			if (!isnan(peak) && !(peak <= o->mem_max))
				o->mem_max = peak;
			/* one presence per owner and GPU: a second process of it there adds to the same grid */
			size_t k2 = 0;
			while (k2 < *np && !(p[k2].owner == (size_t)oi && p[k2].gpu == (size_t)g))
				k2++;
			if (k2 == *np)
				p[(*np)++] = (struct presence){(size_t)oi, (size_t)g, NULL};
			int rc = gw_rpt_fill_grid(r, s, &p[k2].grid, false);
			if (rc)
				return rc;
		}
	}
	*out = p;
	return 0;
}

/* Mean SM use of each owner's processes, from the SM series (a sample per process and moment). */
static void sm_means(struct gw_report *r, const struct gw_series_set *set)
{
	for (size_t oi = 0; oi < r->nowners; oi++) {
		struct gw_report_owner *o = &r->owner[oi];
		double acc = 0, n = 0;
		for (size_t i = 0; i < set->n; i++) {
			char buf[512];
			const char *name = NULL;
			for (size_t k = 0; k < NKINDS && !name; k++)
				if (kinds[k].kind == o->kind)
					name = owner_name(&set->s[i], k, buf, sizeof(buf));
			if (!name || strcmp(name, o->name) != 0 || gw_rpt_gpu_index(r, &set->s[i]) < 0)
				continue;
			for (size_t j = 0; j < set->s[i].n; j++)
				if (!isnan(set->s[i].v[j])) {
					acc += set->s[i].v[j];
					n++;
				}
		}
		o->sm_mean = n ? acc / n : NAN;
	}
}

/* GPU time and energy of each owner: its presences, the energy shared with its kind's others there. */
static int totals(struct gw_report *r, const struct presence *p, size_t np, struct gw_arena *tmp)
{
	double step_s = (double)r->step / 1000.0;
	unsigned short *count = gw_arena_alloc(tmp, (r->ngpus ? r->ngpus : 1) * r->ngrid * sizeof(*count));
	if (!count)
		return GW_ENOMEM;
	for (size_t k = 0; k < NKINDS; k++) {
		memset(count, 0, (r->ngpus ? r->ngpus : 1) * r->ngrid * sizeof(*count));
		for (size_t i = 0; i < np; i++)
			if (r->owner[p[i].owner].kind == kinds[k].kind)
				for (size_t x = 0; x < r->ngrid; x++)
					count[p[i].gpu * r->ngrid + x] += !isnan(p[i].grid[x]);
		for (size_t i = 0; i < np; i++) {
			struct gw_report_owner *o = &r->owner[p[i].owner];
			if (o->kind != kinds[k].kind)
				continue;
			o->gpus[o->ngpus++] = p[i].gpu;
			const double *pw = r->gpu[p[i].gpu].grid[GW_RS_POWER];
			for (size_t x = 0; x < r->ngrid; x++) {
				if (isnan(p[i].grid[x]))
					continue;
				o->gpu_seconds += step_s;
				unsigned short c = count[p[i].gpu * r->ngrid + x];
				if (pw && !isnan(pw[x]) && c)
					o->energy_j += pw[x] * step_s / c;
			}
		}
	}
	return 0;
}

static size_t kind_order(const char *kind)
{
	size_t k = 0;
	while (k < NKINDS && kinds[k].kind != kind)
		k++;
	return k;
}

static int cmp_owner(const void *a, const void *b)
{
	const struct gw_report_owner *x = a, *y = b;
	size_t kx = kind_order(x->kind), ky = kind_order(y->kind);
	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->gpu_seconds != y->gpu_seconds)
		return x->gpu_seconds > y->gpu_seconds ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gw_rpt_read_owners(struct gw_report *r, const struct gw_querier *q, struct gw_err *err)
{
	struct gw_arena tmp;
	gw_arena_init(&tmp, (size_t)1 << 32);
	struct gw_series_set mem = {0}, sm = {0};
	struct presence *p = NULL;
	size_t np = 0;
	int rc = gw_rpt_select_name(q, r, "gpuwatch_process_memory_used_bytes", &tmp, &mem, err);
	if (!rc)
		rc = gw_rpt_select_name(q, r, "gpuwatch_process_sm_utilization_ratio", &tmp, &sm, err);
	if (!rc)
		rc = presences(r, &mem, &p, &np, &tmp);
	if (!rc)
		rc = totals(r, p, np, &tmp);
	if (!rc)
		sm_means(r, &sm);
	if (!rc)
		gw_qsort(r->owner, r->nowners, sizeof(*r->owner), cmp_owner);
	if (rc && !err->msg[0])
		gw_err_set(err, rc, "reading the process series: %s", gw_strerror(rc));
	gw_arena_release(&tmp);
	return rc;
}
