#include "core/arena.h"

#include "core/err.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_MIN (64 * 1024)
#define BLOCK_MAX (4 * 1024 * 1024)

struct gw_arena_block {
	struct gw_arena_block *next;
	size_t size, off;
	_Alignas(16) unsigned char data[];
};

void gw_arena_pool_init(struct gw_arena_pool *p, size_t cap)
{
	pthread_mutex_init(&p->mu, NULL);
	p->free = NULL;
	p->bytes = 0;
	p->cap = cap;
}

void gw_arena_pool_release(struct gw_arena_pool *p)
{
	struct gw_arena_block *b = p->free;
	while (b) {
		struct gw_arena_block *next = b->next;
		free(b);
		b = next;
	}
	p->free = NULL;
	p->bytes = 0;
	pthread_mutex_destroy(&p->mu);
}

/* A kept block of at least n bytes (the first that fits), or NULL. */
static struct gw_arena_block *pool_take(struct gw_arena_pool *p, size_t n)
{
	struct gw_arena_block *b = NULL;
	pthread_mutex_lock(&p->mu);
	for (struct gw_arena_block **pp = &p->free; *pp; pp = &(*pp)->next) {
		if ((*pp)->size >= n) {
			b = *pp;
			*pp = b->next;
			p->bytes -= b->size;
			break;
		}
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

void gw_arena_init_pool(struct gw_arena *a, size_t limit, struct gw_arena_pool *pool)
{
	a->head = NULL;
	a->used = 0;
	a->limit = limit;
	a->err = 0;
	a->pool = pool;
}

void gw_arena_init(struct gw_arena *a, size_t limit)
{
	gw_arena_init_pool(a, limit, NULL);
}

void gw_arena_release(struct gw_arena *a)
{
	struct gw_arena_pool *p = a->pool;
	struct gw_arena_block *b = a->head;
	if (p)
		pthread_mutex_lock(&p->mu);
	while (b) {
		struct gw_arena_block *next = b->next;
		if (p && p->bytes + b->size <= p->cap) {
			b->next = p->free;
			p->free = b;
			p->bytes += b->size;
		} else {
			free(b);
		}
		b = next;
	}
	if (p)
		pthread_mutex_unlock(&p->mu);
	gw_arena_init_pool(a, a->limit, p);
}

void *gw_arena_alloc_uninit(struct gw_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (a->err)
		return NULL;
	if (n > a->limit || a->used > a->limit - n) {
		a->err = GW_EOVERFLOW;
		return NULL;
	}
	struct gw_arena_block *b = a->head;
	if (!b || b->size - b->off < n) {
		/* Blocks grow with the arena (up to 4 MiB): fewer mallocs for big queries. */
		size_t size = a->used < BLOCK_MIN ? BLOCK_MIN : a->used > BLOCK_MAX ? BLOCK_MAX : a->used;
		if (size < n)
			size = n;
		b = a->pool ? pool_take(a->pool, n) : NULL;
		if (b) {
			size = b->size;
		} else if ((b = malloc(sizeof(*b) + size)) == NULL) {
			a->err = GW_ENOMEM;
			return NULL;
		}
		b->size = size;
		b->off = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->off;
	b->off += n;
	a->used += n;
	return p;
}

void *gw_arena_alloc(struct gw_arena *a, size_t n)
{
	void *p = gw_arena_alloc_uninit(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

char *gw_arena_strndup(struct gw_arena *a, const char *s, size_t n)
{
	char *p = gw_arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *gw_arena_strdup(struct gw_arena *a, const char *s)
{
	return gw_arena_strndup(a, s, strlen(s));
}
