/*
 * arena.h - a bump allocator for work whose results die together.
 *
 * A query evaluation allocates its intermediate vectors, label sets and
 * strings from one arena and frees them all at once. The arena has a byte
 * limit so one pathological query fails with GW_EOVERFLOW (reported as
 * "query too large") instead of exhausting the machine.
 * Ownership: caller-embedded; gw_arena_release frees everything (or gives
 * its blocks to the arena's pool).
 * Threading: an arena, none (one evaluation at a time); a pool is shared
 * by the arenas of concurrent queries and locks.
 */
#ifndef GW_CORE_ARENA_H
#define GW_CORE_ARENA_H

#include <pthread.h>
#include <stddef.h>

struct gw_arena_block;

/*
 * Blocks kept from one arena to the next (a server's queries): a query gets
 * memory already touched instead of fresh pages that fault on first write.
 * On this project's 2-CPU VMs the faults were three quarters of a day-long
 * rate() over 1 s data (1,442 a query; 24 ms, 6 ms with the pool). Holds at
 * most cap bytes; the rest is freed as before.
 */
struct gw_arena_pool {
	pthread_mutex_t mu;
	struct gw_arena_block *free;
	size_t bytes, cap;
};

void gw_arena_pool_init(struct gw_arena_pool *p, size_t cap);
void gw_arena_pool_release(struct gw_arena_pool *p); /* frees what it holds; no arena may use it after */

struct gw_arena {
	struct gw_arena_block *head;
	size_t used;  /* bytes handed out, over all blocks */
	size_t limit; /* most bytes it may hand out */
	int err;      /* GW_EOVERFLOW / GW_ENOMEM once an allocation failed */
	struct gw_arena_pool *pool; /* NULL: blocks come from and go back to malloc */
};

void gw_arena_init(struct gw_arena *a, size_t limit);
/* gw_arena_init, with blocks taken from pool and given back to it at release. */
void gw_arena_init_pool(struct gw_arena *a, size_t limit, struct gw_arena_pool *pool);
void gw_arena_release(struct gw_arena *a);

/* Zeroed, 16-byte aligned memory, or NULL (a->err says why). */
void *gw_arena_alloc(struct gw_arena *a, size_t n);
/* The same, not zeroed: for arrays the caller fills whole (a query's samples). */
void *gw_arena_alloc_uninit(struct gw_arena *a, size_t n);
char *gw_arena_strdup(struct gw_arena *a, const char *s);
char *gw_arena_strndup(struct gw_arena *a, const char *s, size_t n);

#endif
