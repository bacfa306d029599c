/*
 * labels.h - label sets, label-set keys, and a string-keyed hash map, all
 * allocated from a query's arena.
 *
 * A label set is a sorted array of (name, value) pairs; the metric name is
 * the pair named "__name__". Strings are borrowed from the store or owned by
 * the arena; nothing here frees. A key is a byte string that equals for
 * equal label sets (names and values separated by 0xff bytes), used to
 * match series across binary operators and to group for aggregation.
 * Threading: none.
 */
#ifndef GW_MODEL_LABELS_H
#define GW_MODEL_LABELS_H

#include "core/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_METRIC_NAME "__name__"

struct gw_lpair {
	const char *name;
	const char *value;
};

struct gw_labels {
	const struct gw_lpair *p;
	size_t n;
};

const char *gw_labels_get(const struct gw_labels *l, const char *name);
int gw_labels_cmp(const struct gw_labels *a, const struct gw_labels *b);
bool gw_labels_equal(const struct gw_labels *a, const struct gw_labels *b);

/* Copy pairs into the arena, sorting them by name. */
struct gw_labels gw_labels_from(struct gw_arena *a, const struct gw_lpair *p, size_t n);

/* A mutable copy for building result labels. */
struct gw_lbuilder {
	struct gw_lpair *p;
	size_t n, cap;
	struct gw_arena *a;
};

void gw_lb_init(struct gw_lbuilder *b, struct gw_arena *a, const struct gw_labels *base);
void gw_lb_set(struct gw_lbuilder *b, const char *name, const char *value); /* "" deletes */
void gw_lb_del(struct gw_lbuilder *b, const char *name);
void gw_lb_keep(struct gw_lbuilder *b, char *const *names, size_t n);
struct gw_labels gw_lb_done(struct gw_lbuilder *b);

/* The labels without the metric name. */
struct gw_labels gw_labels_drop_name(struct gw_arena *a, const struct gw_labels *l);

/*
 * Key of a label set restricted to names (include) or excluding names and
 * the metric name (include == false). len gets the key's length.
 */
const char *gw_labels_key(struct gw_arena *a, const struct gw_labels *l, char *const *names, size_t n,
			  bool include, size_t *len);
/* Key of the whole label set. */
const char *gw_labels_key_all(struct gw_arena *a, const struct gw_labels *l, size_t *len);

/* A fast hash of n bytes for in-memory tables (never 0). It reads words in
 * the machine's byte order: never store it. */
uint64_t gw_hash_bytes(const void *p, size_t n);

/* String-keyed map from keys to indices. */
struct gw_strmap {
	struct gw_strmap_slot *slots;
	size_t cap, count;
	struct gw_arena *a;
};

void gw_strmap_init(struct gw_strmap *m, struct gw_arena *a);
/* Returns the stored index, or inserts `value` and returns it; -1 if out of memory. */
long gw_strmap_get_or_put(struct gw_strmap *m, const char *key, size_t len, long value);
/* The stored index or -1. */
long gw_strmap_get(const struct gw_strmap *m, const char *key, size_t len);

#endif
