/*
 * eval_memo.c - what the evaluator derives from a label set, remembered
 * for the whole evaluation.
 *
 * A range query evaluates every step from scratch, but the label sets it
 * sees are mostly the same objects step after step: a selector's series
 * keep their labels, and everything derived from them here is handed out
 * as the same object again. So the labels without the name, the key of a
 * set, a grouping's labels, a binary operator's matching signature and
 * result labels are computed once per (node, label set) instead of once
 * per step. Label sets live in the evaluation's arena and are never
 * changed, so their address stands for their content.
 */
#include "promql/eval_int.h"
#include "core/sort.h"

#include <string.h>

enum { MEMO_DROP = 1, MEMO_KEY, MEMO_GROUP, MEMO_SIG, MEMO_RESULT, MEMO_ID, MEMO_SIG_ID };

/* Beyond this many entries (label sets made anew every step), stop remembering. */
#define MEMO_MAX 1000000

struct memo_ent {
	const void *node;
	const struct gw_lpair *a, *b;
	size_t an, bn;
	int kind; /* 0 in an empty slot */
	struct gw_labels labels;
	const char *key;
	size_t klen;
};

static size_t memo_hash(int kind, const void *node, const void *ap, size_t an, const void *bp, size_t bn)
{
	uint64_t h = (uint64_t)(uintptr_t)ap * 0x9e3779b97f4a7c15ULL;
	h ^= (uint64_t)an + ((uint64_t)kind << 40);
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ULL;
	h ^= (uint64_t)(uintptr_t)node * 0x94d049bb133111ebULL;
	h ^= (uint64_t)(uintptr_t)bp * 0xff51afd7ed558ccdULL + bn;
	return (size_t)(h ^ (h >> 31));
}

/* The slot for this key: found (kind set) or where it would go (kind 0); NULL if full. */
static struct memo_ent *memo_slot(struct ev *e, int kind, const void *node, const struct gw_labels *a,
				  const struct gw_labels *b)
{
	struct ev_memo *m = &e->memo;
	if (m->count * 2 >= m->cap) {
		if (m->count >= MEMO_MAX)
			return NULL;
		size_t cap = m->cap ? m->cap * 2 : 64; /* grows with use: most queries remember a few sets */
		struct memo_ent *s = gw_arena_alloc(e->a, cap * sizeof(*s));
		if (!s)
			return NULL;
		memset(s, 0, cap * sizeof(*s));
		for (size_t i = 0; i < m->cap; i++) {
			struct memo_ent *o = &m->slots[i];
			if (!o->kind)
				continue;
			size_t j = memo_hash(o->kind, o->node, o->a, o->an, o->b, o->bn) & (cap - 1);
			while (s[j].kind)
				j = (j + 1) & (cap - 1);
			s[j] = *o;
		}
		m->slots = s;
		m->cap = cap;
	}
	size_t j = memo_hash(kind, node, a->p, a->n, b ? b->p : NULL, b ? b->n : 0) & (m->cap - 1);
	for (;; j = (j + 1) & (m->cap - 1)) {
		struct memo_ent *s = &m->slots[j];
		if (!s->kind)
			return s;
		if (s->kind == kind && s->node == node && s->a == a->p && s->an == a->n &&
		    s->b == (b ? b->p : NULL) && s->bn == (b ? b->n : 0))
			return s;
	}
}

static void memo_fill(struct ev *e, struct memo_ent *s, int kind, const void *node, const struct gw_labels *a,
		      const struct gw_labels *b)
{
	s->kind = kind;
	s->node = node;
	s->a = a->p;
	s->an = a->n;
	s->b = b ? b->p : NULL;
	s->bn = b ? b->n : 0;
	e->memo.count++;
}

struct gw_labels ev_drop_name(struct ev *e, const struct gw_labels *l)
{
	/* Nothing to drop (an aggregation's or operator's result, made anew
	 * each step): the set itself, without filling the memo with it. */
	if (!gw_labels_get(l, GW_METRIC_NAME))
		return *l;
	struct memo_ent *s = memo_slot(e, MEMO_DROP, NULL, l, NULL);
	if (s && s->kind)
		return s->labels;
	struct gw_labels out = gw_labels_drop_name(e->a, l);
	if (s) {
		memo_fill(e, s, MEMO_DROP, NULL, l, NULL);
		s->labels = out;
	}
	return out;
}

const char *ev_key_all(struct ev *e, const struct gw_labels *l, size_t *len)
{
	struct memo_ent *s = memo_slot(e, MEMO_KEY, NULL, l, NULL);
	if (s && s->kind) {
		*len = s->klen;
		return s->key;
	}
	const char *k = gw_labels_key_all(e->a, l, len);
	if (s && k) {
		memo_fill(e, s, MEMO_KEY, NULL, l, NULL);
		s->key = k;
		s->klen = *len;
	}
	return k;
}

struct gw_labels ev_memo_labels(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l,
				const struct gw_labels *r,
				struct gw_labels (*make)(struct ev *, const struct gw_pq_node *, const struct gw_labels *,
							 const struct gw_labels *))
{
	int kind = r ? MEMO_RESULT : MEMO_GROUP;
	struct memo_ent *s = memo_slot(e, kind, n, l, r);
	if (s && s->kind)
		return s->labels;
	struct gw_labels out = make(e, n, l, r);
	if (s) {
		memo_fill(e, s, kind, n, l, r);
		s->labels = out;
	}
	return out;
}

const char *ev_memo_key(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l, size_t *len,
			const char *(*make)(struct ev *, const struct gw_pq_node *, const struct gw_labels *, size_t *))
{
	struct memo_ent *s = memo_slot(e, MEMO_SIG, n, l, NULL);
	if (s && s->kind) {
		*len = s->klen;
		return s->key;
	}
	const char *k = make(e, n, l, len);
	if (s && k) {
		memo_fill(e, s, MEMO_SIG, n, l, NULL);
		s->key = k;
		s->klen = *len;
	}
	return k;
}

/* The id of key k in map (interned on first sight), remembered under (kind, n, l). */
static long intern(struct ev *e, int kind, const struct gw_pq_node *n, const struct gw_labels *l,
		   struct gw_strmap *map, const char *k, size_t len)
{
	if (!k)
		return -1;
	if (!map->a)
		gw_strmap_init(map, e->a);
	long id = gw_strmap_get_or_put(map, k, len, (long)map->count);
	struct memo_ent *s = id >= 0 ? memo_slot(e, kind, n, l, NULL) : NULL;
	if (s && !s->kind) {
		memo_fill(e, s, kind, n, l, NULL);
		s->klen = (size_t)id;
	}
	return id;
}

/* Room for need marks in *arr (capacity *cap), marks kept. */
static int marks_grow(struct ev *e, struct ev_seen **arr, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	struct ev_seen *s = gw_arena_alloc(e->a, c * sizeof(*s));
	if (!s)
		return GW_ENOMEM;
	memset(s, 0, c * sizeof(*s));
	if (*cap)
		gw_memcpy(s, *arr, *cap * sizeof(*s));
	*arr = s;
	*cap = c;
	return 0;
}

long ev_label_id(struct ev *e, const struct gw_labels *l)
{
	struct memo_ent *s = memo_slot(e, MEMO_ID, NULL, l, NULL);
	if (s && s->kind)
		return (long)s->klen;
	size_t len;
	const char *k = ev_key_all(e, l, &len);
	return intern(e, MEMO_ID, NULL, l, &e->ids, k, len);
}

int ev_seen_grow(struct ev *e)
{
	return marks_grow(e, &e->seen, &e->seen_cap, e->ids.count + 1);
}

int ev_seen_begin(struct ev *e)
{
	if (ev_seen_grow(e))
		return GW_ENOMEM;
	e->seen_stamp++;
	return 0;
}

long ev_memo_sig_id(struct ev *e, const struct gw_pq_node *n, const struct gw_labels *l,
		    const char *(*make)(struct ev *, const struct gw_pq_node *, const struct gw_labels *, size_t *))
{
	struct memo_ent *s = memo_slot(e, MEMO_SIG_ID, n, l, NULL);
	if (s && s->kind)
		return (long)s->klen;
	size_t len;
	const char *k = ev_memo_key(e, n, l, &len, make);
	return intern(e, MEMO_SIG_ID, n, l, &e->sig_ids, k, len);
}

int ev_sig_round(struct ev *e)
{
	if (marks_grow(e, &e->sig_seen, &e->sig_seen_cap, e->sig_ids.count + 1))
		return GW_ENOMEM;
	e->sig_stamp++;
	return 0;
}
