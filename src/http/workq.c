/* workq.c - bounded job queue and its threads (workq.h). */
#include "http/workq.h"

#include "core/err.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

struct job {
	gw_workq_fn fn;
	void *arg;
	int64_t t_ms; /* when it was queued, CLOCK_MONOTONIC */
};

struct gw_workq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *ring; /* queue_max slots, head .. head+len-1 (mod) */
	size_t cap, head, len;
	unsigned running;
	uint64_t rejected;
	bool stopping;
	pthread_t *threads;
	unsigned nthreads; /* started */
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *worker(void *arg)
{
	struct gw_workq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->len && !q->stopping)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->len)
			break;
		struct job j = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
		q->running++;
		pthread_mutex_unlock(&q->mu);
		j.fn(j.arg, mono_ms() - j.t_ms);
		pthread_mutex_lock(&q->mu);
		q->running--;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int gw_workq_new(struct gw_workq **out, unsigned threads, size_t queue_max)
{
	*out = NULL;
	if (!threads || !queue_max)
		return GW_EINVAL;
	struct gw_workq *q = calloc(1, sizeof(*q));
	if (!q)
		return GW_ENOMEM;
	q->cap = queue_max;
	q->ring = calloc(queue_max, sizeof(*q->ring));
	q->threads = calloc(threads, sizeof(*q->threads));
	if (!q->ring || !q->threads) {
		free(q->ring);
		free(q->threads);
		free(q);
		return GW_ENOMEM;
	}
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	for (; q->nthreads < threads; q->nthreads++) {
		if (pthread_create(&q->threads[q->nthreads], NULL, worker, q) != 0) {
			gw_workq_free(q, NULL);
			return GW_ENOMEM;
		}
	}
	*out = q;
	return 0;
}

void gw_workq_free(struct gw_workq *q, void (*drop)(void *arg))
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stopping = true;
	size_t n = q->len, head = q->head;
	q->len = 0; /* the threads see an empty queue and leave once their job is done */
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	for (size_t i = 0; i < n; i++)
		if (drop)
			drop(q->ring[(head + i) % q->cap].arg);
	for (unsigned i = 0; i < q->nthreads; i++)
		pthread_join(q->threads[i], NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q->threads);
	free(q->ring);
	free(q);
}

int gw_workq_push(struct gw_workq *q, gw_workq_fn fn, void *arg)
{
	pthread_mutex_lock(&q->mu);
	if (q->stopping || q->len == q->cap) {
		q->rejected += !q->stopping;
		pthread_mutex_unlock(&q->mu);
		return GW_EOVERFLOW;
	}
	q->ring[(q->head + q->len) % q->cap] = (struct job){fn, arg, mono_ms()};
	q->len++;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

void gw_workq_stats(struct gw_workq *q, struct gw_workq_stats *out)
{
	pthread_mutex_lock(&q->mu);
	out->queued = q->len;
	out->running = q->running;
	out->rejected = q->rejected;
	pthread_mutex_unlock(&q->mu);
}
