/*
 * history_procs.c - the process series /metrics shows, stored as well
 * (gw_metrics_each_proc): the past's processes for queries, and who used
 * the GPUs (user, pod, container, Slurm job) for the report. A series
 * whose process has gone gets a staleness marker in the next frame, as
 * Prometheus writes one when a target stops exposing a series, so a query
 * does not see a finished process for five more minutes.
 *
 * Threading: the sampling thread, from agent_history_feed.
 */
#include "agent/history.h"

#include "core/sort.h"
#include "export/gpu_metrics.h"
#include "model/labels.h"
#include "model/storage.h"

#include <stdlib.h>

#define PROC_LABELS_MAX 48

struct proc_store {
	struct agent_history *h;
	int64_t t;
	uint64_t *seen; /* the refs this frame stored */
	size_t n, cap;
};

static void store_one(void *arg, const char *family, const struct gw_label *l, size_t n, double v)
{
	struct proc_store *ps = arg;
	struct agent_history *h = ps->h;
	struct gw_lpair lp[PROC_LABELS_MAX];
	size_t k = 0;
	lp[k++] = (struct gw_lpair){GW_METRIC_NAME, family};
	for (size_t i = 0; i < n && k < PROC_LABELS_MAX - 2; i++)
		lp[k++] = (struct gw_lpair){l[i].name, l[i].value};
	lp[k++] = (struct gw_lpair){"instance", h->instance};
	lp[k++] = (struct gw_lpair){"job", h->job};
	uint64_t ref;
	if (gw_tsdb_series(h->db, lp, k, &ref) != 0 || gw_tsdb_append(h->db, ref, ps->t, v) != 0) {
		h->append_errors++;
		return;
	}
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 32;
		uint64_t *s = realloc(ps->seen, cap * sizeof(*s));
		if (!s)
			return; /* not remembered: no staleness marker when it goes */
		ps->seen = s;
		ps->cap = cap;
	}
	ps->seen[ps->n++] = ref;
}

static int cmp_ref(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void agent_history_procs(struct agent_history *h, const struct gw_frame *f)
{
	struct proc_store ps = {.h = h, .t = f->t_ms};
	gw_metrics_each_proc(f, store_one, &ps);
	gw_qsort(ps.seen, ps.n, sizeof(*ps.seen), cmp_ref);
	for (size_t i = 0; i < h->nproc_refs; i++)
		if (!ps.n || !bsearch(&h->proc_refs[i], ps.seen, ps.n, sizeof(*ps.seen), cmp_ref))
			gw_tsdb_append(h->db, h->proc_refs[i], f->t_ms, gw_stale_nan());
	free(h->proc_refs);
	h->proc_refs = ps.seen;
	h->nproc_refs = ps.n;
}
