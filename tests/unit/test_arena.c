/* The arena: limits, zeroing, and the pool that keeps blocks between arenas. */
#include "core/arena.h"
#include "core/err.h"
#include "harness.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static void test_alloc_and_limit(void)
{
	struct gw_arena a;
	gw_arena_init(&a, 1 << 20);
	unsigned char *p = gw_arena_alloc(&a, 100);
	CHECK(p != NULL);
	size_t nonzero = 0;
	for (int i = 0; i < 100; i++)
		nonzero += p[i] != 0;
	CHECK_INT_EQ(nonzero, 0);
	CHECK_INT_EQ((uintptr_t)p % 16, 0);
	CHECK(gw_arena_alloc(&a, 2 << 20) == NULL); /* over the limit: refused, remembered */
	CHECK_INT_EQ(a.err, GW_EOVERFLOW);
	CHECK(gw_arena_alloc(&a, 8) == NULL);
	gw_arena_release(&a);
	CHECK(gw_arena_alloc(&a, 8) != NULL); /* release starts afresh */
	gw_arena_release(&a);
}

/*
 * A pooled arena's blocks come back to the pool at release and are handed
 * to the next arena (the same memory, no new pages); a zeroing allocation
 * from a reused block is zero again; the pool holds no more than its cap.
 */
static void test_pool_reuses_blocks(void)
{
	struct gw_arena_pool pool;
	gw_arena_pool_init(&pool, 8 << 20);
	struct gw_arena a;
	gw_arena_init_pool(&a, 64 << 20, &pool);
	unsigned char *big = gw_arena_alloc_uninit(&a, 3 << 20);
	CHECK(big != NULL);
	memset(big, 0xAB, 3 << 20);
	gw_arena_release(&a);
	CHECK(pool.bytes >= (size_t)3 << 20);
	CHECK(a.pool == &pool); /* still pooled after release */
	unsigned char *again = gw_arena_alloc_uninit(&a, 3 << 20);
	CHECK(again == big); /* the kept block, not a new one */
	CHECK_INT_EQ(pool.bytes, 0);
	gw_arena_release(&a);
	unsigned char *z = gw_arena_alloc(&a, 1 << 20);
	CHECK(z == big);
	size_t nonzero = 0;
	for (size_t i = 0; i < (1 << 20); i++)
		nonzero += z[i] != 0;
	CHECK_INT_EQ(nonzero, 0);
	gw_arena_release(&a);
	/* Past the cap, blocks are freed instead of kept. */
	for (int i = 0; i < 4; i++)
		CHECK(gw_arena_alloc_uninit(&a, 3 << 20) != NULL);
	gw_arena_release(&a);
	CHECK(pool.bytes <= pool.cap);
	CHECK(pool.bytes >= (size_t)6 << 20);
	gw_arena_pool_release(&pool);
}

struct worker {
	struct gw_arena_pool *pool;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	for (int round = 0; round < 200; round++) {
		struct gw_arena a;
		gw_arena_init_pool(&a, 16 << 20, w->pool);
		size_t n = (size_t)(round % 7 + 1) << 16;
		unsigned char *p = gw_arena_alloc(&a, n);
		if (!p) {
			w->bad++;
			continue;
		}
		for (size_t i = 0; i < n; i += 4096)
			w->bad += p[i] != 0; /* zeroed though the block is reused */
		memset(p, round, n);
		gw_arena_release(&a);
	}
	return NULL;
}

/* Queries run concurrently: the pool is shared under its lock. */
static void test_pool_threads(void)
{
	struct gw_arena_pool pool;
	gw_arena_pool_init(&pool, 4 << 20);
	pthread_t t[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){&pool, 0};
		CHECK_INT_EQ(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += w[i].bad;
	}
	CHECK_INT_EQ(bad, 0);
	CHECK(pool.bytes <= pool.cap);
	gw_arena_pool_release(&pool);
}

int main(void)
{
	RUN(test_alloc_and_limit);
	RUN(test_pool_reuses_blocks);
	RUN(test_pool_threads);
	return harness_done();
}
