/*
 * expo_cache.h - the rendered exposition, once per frame.
 *
 * An exposition is a pure function of (metrics config, frame, format), so
 * the agent renders each frame at most once per format and every scrape of
 * that frame shares the same bytes: a refcounted body the HTTP layer sends
 * without copying (gw_http_reply_shared). Concurrent scrapes of a new frame
 * wait for one render instead of each doing it.
 *
 * A scrape that accepts gzip (Prometheus asks on every scrape) gets the
 * same bytes compressed, also once per frame and shared: the exposition is
 * label sets repeated per sample, and deflate at its fastest level takes it
 * to about a fourteenth (175 KB to 12 KB for 8 H200s) in a fraction of a
 * millisecond.
 *
 * Threading: gw_expo_cache_get() and _clear() may be called from any
 * thread. The caller keeps the metrics config from changing during a get
 * (the agent holds its reload lock for reading) and clears the cache after
 * swapping in a new config (holding it for writing).
 */
#ifndef GW_EXPO_CACHE_H
#define GW_EXPO_CACHE_H

#include "collect/sampler.h"
#include "export/expfmt.h"
#include "export/gpu_metrics.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw_expo_body; /* refcounted rendered bytes */

struct gw_expo_cache {
	pthread_mutex_t mu;
	size_t limit; /* most bytes an exposition may take */
	struct {
		uint64_t seq; /* frame it was rendered from; 0: none */
		struct gw_expo_body *body;
	} ent[2][2]; /* by enum gw_expfmt_kind, then plain (0) or gzip (1) */
	uint64_t renders;     /* how many renders were done (for tests and /metrics) */
	uint64_t compressions; /* how many gzip bodies were made */
};

void gw_expo_cache_init(struct gw_expo_cache *c, size_t limit);
void gw_expo_cache_release(struct gw_expo_cache *c);
void gw_expo_cache_clear(struct gw_expo_cache *c);

/*
 * The exposition of frame f in `kind`, gzip-compressed when `gzip`:
 * rendered (and compressed) now unless this frame's is cached. On success
 * *data and *len point into a body the caller holds one reference to
 * (*ref) and drops with gw_expo_body_unref(*ref). Returns 0, or
 * GW_EOVERFLOW when it exceeds the limit, GW_ENOMEM.
 */
int gw_expo_cache_get(struct gw_expo_cache *c, const struct gw_metrics *m, const struct gw_frame *f,
		      enum gw_expfmt_kind kind, bool gzip, const char **data, size_t *len, void **ref);
void gw_expo_body_unref(void *ref);

#endif
