/*
 * podres_watch.c - the pod-resources watcher: List every interval on a
 * thread of its own, the answer published as the current snapshot.
 */
#include "collect/podres.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gw_podres {
	struct gw_podres_opts o;
	char *sock;
	pthread_t thread;
	pthread_mutex_t mu; /* guards cur, st and stop */
	pthread_cond_t cond;
	bool stop;
	struct gw_pods *cur; /* NULL while List fails */
	struct gw_podres_stats st;
	bool reported, reported_up; /* the last state logged */
};

static int64_t wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void poll_once(struct gw_podres *w)
{
	struct gw_pods *p = NULL;
	struct gw_err err = {0};
	int rc = gw_pods_list(w->sock, (int)w->o.timeout_ms, &p, &err);
	pthread_mutex_lock(&w->mu);
	struct gw_pods *old = w->cur;
	w->cur = p;
	w->st.lists_total++;
	w->st.up = rc == 0;
	if (rc)
		w->st.errors_total++;
	else
		w->st.last_success_ms = wall_ms();
	w->st.npods = p ? p->npods : 0;
	w->st.ndevs = p ? p->n : 0;
	pthread_mutex_unlock(&w->mu);
	gw_pods_unref(old);
	/* once per change of state, so a dead kubelet is one line, not one a poll */
	if (w->o.log && (!w->reported || w->reported_up != (rc == 0)))
		w->o.log(w->o.log_arg, rc == 0, w->sock, rc ? &err : NULL, p ? p->npods : 0, p ? p->n : 0);
	w->reported = true;
	w->reported_up = rc == 0;
}

static void *run(void *arg)
{
	struct gw_podres *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		pthread_mutex_unlock(&w->mu);
		poll_once(w);
		pthread_mutex_lock(&w->mu);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += w->o.interval_ms / 1000;
		until.tv_nsec += (long)(w->o.interval_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		while (!w->stop && pthread_cond_timedwait(&w->cond, &w->mu, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int gw_podres_new(struct gw_podres **out, const struct gw_podres_opts *opts, struct gw_err *err)
{
	*out = NULL;
	struct gw_podres *w = calloc(1, sizeof(*w));
	if (!w)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	w->o = *opts;
	if (!w->o.interval_ms)
		w->o.interval_ms = 5000;
	if (!w->o.timeout_ms)
		w->o.timeout_ms = 5000;
	w->sock = strdup(opts->socket ? opts->socket : GW_PODRES_SOCKET);
	if (!w->sock) {
		free(w);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	int e = pthread_create(&w->thread, NULL, run, w);
	if (e) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->mu);
		free(w->sock);
		free(w);
		return gw_err_set(err, GW_EIO, "pod-resources thread: %s", strerror(e));
	}
	*out = w;
	return 0;
}

void gw_podres_free(struct gw_podres *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL); /* a List in flight ends within its timeout */
	gw_pods_unref(w->cur);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->mu);
	free(w->sock);
	free(w);
}

struct gw_pods *gw_podres_get(struct gw_podres *w)
{
	if (!w)
		return NULL;
	pthread_mutex_lock(&w->mu);
	struct gw_pods *p = w->cur;
	if (p)
		gw_pods_ref(p);
	pthread_mutex_unlock(&w->mu);
	return p;
}

void gw_podres_stats(struct gw_podres *w, struct gw_podres_stats *out)
{
	pthread_mutex_lock(&w->mu);
	*out = w->st;
	pthread_mutex_unlock(&w->mu);
}
