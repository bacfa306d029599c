/*
 * workq.h - a fixed set of threads running jobs from a bounded queue.
 *
 * The HTTP server runs its expensive routes (the query API) here, so a slow
 * query holds a workq thread, never a thread that answers /metrics, and at
 * most `threads` queries run at once (Prometheus' --query.max-concurrency).
 * A full queue refuses the job at once rather than letting callers pile up.
 *
 * Ownership: gw_workq_new() returns a queue the caller frees with
 * gw_workq_free(); a job's arg belongs to the job until its fn (or the drop
 * function given to gw_workq_free) has run.
 * Threading: gw_workq_push() and gw_workq_stats() from any thread; jobs run
 * on the queue's threads, `threads` at a time, oldest first.
 */
#ifndef GW_HTTP_WORKQ_H
#define GW_HTTP_WORKQ_H

#include <stddef.h>
#include <stdint.h>

/* waited_ms: how long the job sat in the queue before a thread took it. */
typedef void (*gw_workq_fn)(void *arg, int64_t waited_ms);

struct gw_workq;

struct gw_workq_stats {
	size_t queued;     /* waiting now */
	unsigned running;  /* running now */
	uint64_t rejected; /* pushes refused because the queue was full */
};

int gw_workq_new(struct gw_workq **out, unsigned threads, size_t queue_max);
/*
 * Stop taking jobs; jobs still queued go to drop(arg) on the calling
 * thread (never run), running jobs finish, then the threads are joined.
 */
void gw_workq_free(struct gw_workq *q, void (*drop)(void *arg));

/* 0, or GW_EOVERFLOW when queue_max jobs already wait (or the queue is stopping). */
int gw_workq_push(struct gw_workq *q, gw_workq_fn fn, void *arg);

void gw_workq_stats(struct gw_workq *q, struct gw_workq_stats *out);

#endif
