#include "model/labels.h"

#include "core/sort.h"

#include <stdlib.h>
#include <string.h>

const char *gw_labels_get(const struct gw_labels *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->p[i].name, name) == 0)
			return l->p[i].value;
	return NULL;
}

int gw_labels_cmp(const struct gw_labels *a, const struct gw_labels *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = strcmp(a->p[i].name, b->p[i].name);
		if (c)
			return c;
		c = strcmp(a->p[i].value, b->p[i].value);
		if (c)
			return c;
	}
	return a->n < b->n ? -1 : a->n > b->n ? 1 : 0;
}

bool gw_labels_equal(const struct gw_labels *a, const struct gw_labels *b)
{
	return gw_labels_cmp(a, b) == 0;
}

static int pair_cmp(const void *x, const void *y)
{
	return strcmp(((const struct gw_lpair *)x)->name, ((const struct gw_lpair *)y)->name);
}

struct gw_labels gw_labels_from(struct gw_arena *a, const struct gw_lpair *p, size_t n)
{
	struct gw_labels l = {NULL, 0};
	struct gw_lpair *q = gw_arena_alloc(a, (n ? n : 1) * sizeof(*q));
	if (!q)
		return l;
	gw_memcpy(q, p, n * sizeof(*q));
	gw_qsort(q, n, sizeof(*q), pair_cmp);
	l.p = q;
	l.n = n;
	return l;
}

void gw_lb_init(struct gw_lbuilder *b, struct gw_arena *a, const struct gw_labels *base)
{
	b->a = a;
	b->n = base ? base->n : 0;
	b->cap = b->n + 4;
	b->p = gw_arena_alloc(a, b->cap * sizeof(*b->p));
	if (b->p && base)
		gw_memcpy(b->p, base->p, base->n * sizeof(*b->p));
	if (!b->p)
		b->n = b->cap = 0;
}

void gw_lb_del(struct gw_lbuilder *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++) {
		if (strcmp(b->p[i].name, name) == 0) {
			memmove(&b->p[i], &b->p[i + 1], (b->n - i - 1) * sizeof(*b->p));
			b->n--;
			return;
		}
	}
}

void gw_lb_set(struct gw_lbuilder *b, const char *name, const char *value)
{
	if (!value || !*value) {
		gw_lb_del(b, name);
		return;
	}
	for (size_t i = 0; i < b->n; i++) {
		if (strcmp(b->p[i].name, name) == 0) {
			b->p[i].value = value;
			return;
		}
	}
	if (b->n == b->cap) {
		size_t cap = b->cap * 2 + 4;
		struct gw_lpair *p = gw_arena_alloc(b->a, cap * sizeof(*p));
		if (!p)
			return;
		if (b->n)
			gw_memcpy(p, b->p, b->n * sizeof(*p));
		b->p = p;
		b->cap = cap;
	}
	b->p[b->n].name = name;
	b->p[b->n].value = value;
	b->n++;
}

void gw_lb_keep(struct gw_lbuilder *b, char *const *names, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < b->n; i++) {
		bool keep = false;
		for (size_t j = 0; j < n && !keep; j++)
			keep = strcmp(b->p[i].name, names[j]) == 0;
		if (keep)
			b->p[w++] = b->p[i];
	}
	b->n = w;
}

struct gw_labels gw_lb_done(struct gw_lbuilder *b)
{
	gw_qsort(b->p, b->n, sizeof(*b->p), pair_cmp);
	struct gw_labels l = {b->p, b->n};
	return l;
}

struct gw_labels gw_labels_drop_name(struct gw_arena *a, const struct gw_labels *l)
{
	if (!gw_labels_get(l, GW_METRIC_NAME))
		return *l;
	struct gw_lbuilder b;
	gw_lb_init(&b, a, l);
	gw_lb_del(&b, GW_METRIC_NAME);
	return gw_lb_done(&b);
}

static bool listed(const char *name, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

const char *gw_labels_key(struct gw_arena *a, const struct gw_labels *l, char *const *names, size_t n,
			  bool include, size_t *len)
{
	size_t total = 1;
	for (size_t i = 0; i < l->n; i++)
		total += strlen(l->p[i].name) + strlen(l->p[i].value) + 2;
	char *k = gw_arena_alloc(a, total), *w = k;
	if (!k) {
		*len = 0;
		return "";
	}
	for (size_t i = 0; i < l->n; i++) {
		const char *nm = l->p[i].name;
		bool in = listed(nm, names, n);
		if (include ? !in : (in || strcmp(nm, GW_METRIC_NAME) == 0))
			continue;
		size_t ln = strlen(nm), lv = strlen(l->p[i].value);
		memcpy(w, nm, ln);
		w += ln;
		*w++ = (char)0xff;
		memcpy(w, l->p[i].value, lv);
		w += lv;
		*w++ = (char)0xff;
	}
	*w = '\0';
	*len = (size_t)(w - k);
	return k;
}

const char *gw_labels_key_all(struct gw_arena *a, const struct gw_labels *l, size_t *len)
{
	size_t total = 1;
	for (size_t i = 0; i < l->n; i++)
		total += strlen(l->p[i].name) + strlen(l->p[i].value) + 2;
	char *k = gw_arena_alloc(a, total), *w = k;
	if (!k) {
		*len = 0;
		return "";
	}
	for (size_t i = 0; i < l->n; i++) {
		size_t ln = strlen(l->p[i].name), lv = strlen(l->p[i].value);
		memcpy(w, l->p[i].name, ln);
		w += ln;
		*w++ = (char)0xff;
		memcpy(w, l->p[i].value, lv);
		w += lv;
		*w++ = (char)0xff;
	}
	*w = '\0';
	*len = (size_t)(w - k);
	return k;
}

struct gw_strmap_slot {
	const char *key;
	size_t len;
	uint64_t hash;
	long value;
};

/* FNV-1a's step over 8 bytes at a time (a byte at a time was a third of an
 * import's time), mixed down; never 0, which marks an empty slot. */
uint64_t gw_hash_bytes(const void *p, size_t n)
{
	const char *s = p;
	uint64_t h = 1469598103934665603ULL ^ n, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 1099511628211ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return (h ^ (h >> 32)) | 1;
}

void gw_strmap_init(struct gw_strmap *m, struct gw_arena *a)
{
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
	m->a = a;
}

static struct gw_strmap_slot *find(const struct gw_strmap *m, const char *key, size_t len, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct gw_strmap_slot *s = &m->slots[i];
		if (!s->hash || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
			return s;
	}
}

static int grow(struct gw_strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	struct gw_strmap_slot *old = m->slots;
	size_t oldcap = m->cap;
	m->slots = gw_arena_alloc(m->a, cap * sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].hash)
			*find(m, old[i].key, old[i].len, old[i].hash) = old[i];
	return 0;
}

long gw_strmap_get_or_put(struct gw_strmap *m, const char *key, size_t len, long value)
{
	if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
		return -1;
	uint64_t h = gw_hash_bytes(key, len);
	struct gw_strmap_slot *s = find(m, key, len, h);
	if (s->hash)
		return s->value;
	s->hash = h;
	s->key = key;
	s->len = len;
	s->value = value;
	m->count++;
	return value;
}

long gw_strmap_get(const struct gw_strmap *m, const char *key, size_t len)
{
	if (!m->cap)
		return -1;
	struct gw_strmap_slot *s = find(m, key, len, gw_hash_bytes(key, len));
	return s->hash ? s->value : -1;
}
