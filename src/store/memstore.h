/*
 * memstore.h - series held in memory: labels plus sample arrays, queryable
 * through the PromQL engine's querier interface.
 *
 * It backs PromQL's conformance tests and small imports, and is the shape of
 * the persistent store's in-memory head. Appends must be in time order per
 * series (an older sample is refused with GW_EINVAL: out of order).
 * Ownership: the memstore owns its label strings and samples; select()
 * returns series borrowing them, valid until the next append or free.
 * Threading: none; callers serialise.
 */
#ifndef GW_STORE_MEMSTORE_H
#define GW_STORE_MEMSTORE_H

#include "model/storage.h"

struct gw_memstore;

struct gw_memstore *gw_memstore_new(void);
void gw_memstore_free(struct gw_memstore *m);
void gw_memstore_clear(struct gw_memstore *m);

/* Find or create the series with these labels (copied); returns its id or a negative GW_E* code. */
long gw_memstore_series(struct gw_memstore *m, const struct gw_lpair *labels, size_t n);
int gw_memstore_append(struct gw_memstore *m, long id, int64_t t, double v);

size_t gw_memstore_nseries(const struct gw_memstore *m);

/* The querier over this memstore. */
struct gw_querier gw_memstore_querier(struct gw_memstore *m);

#endif
