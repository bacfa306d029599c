/*
 * arena.h - a bump allocator for work whose results die together.
 *
 * A query evaluation allocates its intermediate vectors, label sets and
 * strings from one arena and frees them all at once. The arena has a byte
 * limit so one pathological query fails with GW_EOVERFLOW (reported as
 * "query too large") instead of exhausting the machine.
 * Ownership: caller-embedded; gw_arena_release frees everything.
 * Threading: none; one evaluation at a time.
 */
#ifndef GW_CORE_ARENA_H
#define GW_CORE_ARENA_H

#include <stddef.h>

struct gw_arena_block;

struct gw_arena {
	struct gw_arena_block *head;
	size_t used;  /* bytes handed out, over all blocks */
	size_t limit; /* most bytes it may hand out */
	int err;      /* GW_EOVERFLOW / GW_ENOMEM once an allocation failed */
};

void gw_arena_init(struct gw_arena *a, size_t limit);
void gw_arena_release(struct gw_arena *a);

/* Zeroed, 16-byte aligned memory, or NULL (a->err says why). */
void *gw_arena_alloc(struct gw_arena *a, size_t n);
/* The same, not zeroed: for arrays the caller fills whole (a query's samples). */
void *gw_arena_alloc_uninit(struct gw_arena *a, size_t n);
char *gw_arena_strdup(struct gw_arena *a, const char *s);
char *gw_arena_strndup(struct gw_arena *a, const char *s, size_t n);

#endif
