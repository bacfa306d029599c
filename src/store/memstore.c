#include "store/memstore.h"

#include <stdlib.h>
#include <string.h>

struct mseries {
	struct gw_lpair *labels; /* sorted, strings owned */
	size_t nlabels;
	int64_t *t;
	double *v;
	size_t n, cap;
};

struct gw_memstore {
	struct mseries *s;
	size_t n, cap;
};

struct gw_memstore *gw_memstore_new(void)
{
	return calloc(1, sizeof(struct gw_memstore));
}

void gw_memstore_clear(struct gw_memstore *m)
{
	for (size_t i = 0; i < m->n; i++) {
		for (size_t j = 0; j < m->s[i].nlabels; j++) {
			free((char *)m->s[i].labels[j].name);
			free((char *)m->s[i].labels[j].value);
		}
		free(m->s[i].labels);
		free(m->s[i].t);
		free(m->s[i].v);
	}
	free(m->s);
	m->s = NULL;
	m->n = m->cap = 0;
}

void gw_memstore_free(struct gw_memstore *m)
{
	if (!m)
		return;
	gw_memstore_clear(m);
	free(m);
}

size_t gw_memstore_nseries(const struct gw_memstore *m)
{
	return m->n;
}

static int pair_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gw_lpair *)a)->name, ((const struct gw_lpair *)b)->name);
}

long gw_memstore_series(struct gw_memstore *m, const struct gw_lpair *labels, size_t n)
{
	struct gw_lpair *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return GW_ENOMEM;
	memcpy(sorted, labels, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), pair_cmp);
	struct gw_labels want = {sorted, n};
	for (size_t i = 0; i < m->n; i++) {
		struct gw_labels have = {m->s[i].labels, m->s[i].nlabels};
		if (gw_labels_equal(&have, &want)) {
			free(sorted);
			return (long)i;
		}
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct mseries *s = realloc(m->s, cap * sizeof(*s));
		if (!s) {
			free(sorted);
			return GW_ENOMEM;
		}
		m->s = s;
		m->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		sorted[i].name = strdup(sorted[i].name);
		sorted[i].value = strdup(sorted[i].value);
	}
	struct mseries *s = &m->s[m->n];
	memset(s, 0, sizeof(*s));
	s->labels = sorted;
	s->nlabels = n;
	return (long)m->n++;
}

int gw_memstore_append(struct gw_memstore *m, long id, int64_t t, double v)
{
	if (id < 0 || (size_t)id >= m->n)
		return GW_EINVAL;
	struct mseries *s = &m->s[id];
	if (s->n && t <= s->t[s->n - 1])
		return GW_EINVAL; /* out of order or duplicate */
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		int64_t *nt = realloc(s->t, cap * sizeof(*nt));
		if (!nt)
			return GW_ENOMEM;
		s->t = nt;
		double *nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv)
			return GW_ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	return 0;
}

static size_t lower_bound(const int64_t *t, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int mem_select(void *ctx, const struct gw_matcher *mt, size_t nm, int64_t mint, int64_t maxt,
		      struct gw_arena *arena, struct gw_series_set *out, struct gw_err *err)
{
	struct gw_memstore *m = ctx;
	out->s = gw_arena_alloc(arena, (m->n ? m->n : 1) * sizeof(*out->s));
	out->n = 0;
	if (!out->s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++) {
		const struct mseries *s = &m->s[i];
		struct gw_labels l = {s->labels, s->nlabels};
		bool ok = true;
		for (size_t j = 0; j < nm && ok; j++)
			ok = gw_matcher_matches(&mt[j], gw_labels_get(&l, mt[j].name));
		if (!ok)
			continue;
		size_t a = lower_bound(s->t, s->n, mint), b = lower_bound(s->t, s->n, maxt + 1);
		struct gw_series *o = &out->s[out->n++];
		o->labels = l;
		o->t = s->t + a;
		o->v = s->v + a;
		o->n = b > a ? b - a : 0;
	}
	return 0;
}

struct gw_querier gw_memstore_querier(struct gw_memstore *m)
{
	struct gw_querier q = {m, mem_select, NULL, NULL, NULL};
	return q;
}
