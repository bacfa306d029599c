/* conns.c - per-client connection limits and request deadlines (conns.h). */
#include "http/conns.h"

#include "core/err.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* How often the reaper looks at least: a deadline is enforced this late at most. */
#define REAP_PERIOD_MS 500

struct gw_conn {
	struct gw_conn *prev, *next;
	int fd;
	int family;             /* AF_INET, AF_INET6, or 0: not comparable */
	unsigned char addr[16]; /* the source address, without the port */
	int64_t deadline_ms;    /* CLOCK_MONOTONIC; 0: none */
};

struct gw_conns {
	struct gw_conns_opts o;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* wakes the reaper to stop */
	struct gw_conn *head;
	unsigned open;
	uint64_t rejected, timed_out;
	bool stopping;
	bool reaping; /* the reaper thread runs */
	pthread_t reaper;
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void addr_key(const struct sockaddr *sa, int *family, unsigned char key[16])
{
	memset(key, 0, 16);
	*family = 0;
	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		*family = AF_INET;
		memcpy(key, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		*family = AF_INET6;
		memcpy(key, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
	}
}

static void *reap(void *arg)
{
	struct gw_conns *c = arg;
	pthread_mutex_lock(&c->mu);
	while (!c->stopping) {
		int64_t now = mono_ms(), next = now + REAP_PERIOD_MS;
		for (struct gw_conn *k = c->head; k; k = k->next) {
			if (!k->deadline_ms)
				continue;
			if (k->deadline_ms <= now) {
				/* the fd is still open: its "closed" notification, which
				 * removes it under this lock, comes before close() */
				shutdown(k->fd, SHUT_RDWR);
				k->deadline_ms = 0;
				c->timed_out++;
			} else if (k->deadline_ms < next) {
				next = k->deadline_ms;
			}
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		int64_t wait = next - now;
		ts.tv_sec += wait / 1000;
		ts.tv_nsec += (long)(wait % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&c->cv, &c->mu, &ts);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

int gw_conns_new(struct gw_conns **out, const struct gw_conns_opts *o)
{
	*out = NULL;
	struct gw_conns *c = calloc(1, sizeof(*c));
	if (!c)
		return GW_ENOMEM;
	c->o = *o;
	pthread_mutex_init(&c->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (o->head_timeout_ms) {
		if (pthread_create(&c->reaper, NULL, reap, c) != 0) {
			gw_conns_free(c);
			return GW_ENOMEM;
		}
		c->reaping = true;
	}
	*out = c;
	return 0;
}

void gw_conns_free(struct gw_conns *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stopping = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	if (c->reaping)
		pthread_join(c->reaper, NULL);
	while (c->head) {
		struct gw_conn *k = c->head;
		c->head = k->next;
		free(k);
	}
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

bool gw_conns_admit(struct gw_conns *c, const struct sockaddr *addr)
{
	if (!c->o.per_ip)
		return true;
	int family;
	unsigned char key[16];
	addr_key(addr, &family, key);
	if (!family)
		return true;
	/* A scan, not a table: at most --web.max-connections entries, a few µs. */
	unsigned n = 0;
	pthread_mutex_lock(&c->mu);
	for (struct gw_conn *k = c->head; k && n < c->o.per_ip; k = k->next)
		n += k->family == family && memcmp(k->addr, key, 16) == 0;
	bool ok = n < c->o.per_ip;
	c->rejected += !ok;
	pthread_mutex_unlock(&c->mu);
	return ok;
}

struct gw_conn *gw_conns_add(struct gw_conns *c, int fd, const struct sockaddr *addr)
{
	struct gw_conn *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->fd = fd;
	addr_key(addr, &k->family, k->addr);
	pthread_mutex_lock(&c->mu);
	k->deadline_ms = c->o.head_timeout_ms ? mono_ms() + c->o.head_timeout_ms : 0;
	k->next = c->head;
	if (c->head)
		c->head->prev = k;
	c->head = k;
	c->open++;
	pthread_mutex_unlock(&c->mu);
	return k;
}

void gw_conns_remove(struct gw_conns *c, struct gw_conn *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&c->mu);
	if (k->prev)
		k->prev->next = k->next;
	else
		c->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	c->open--;
	pthread_mutex_unlock(&c->mu);
	free(k);
}

void gw_conns_mark(struct gw_conns *c, struct gw_conn *k, enum gw_conn_phase phase)
{
	if (!k || !c->o.head_timeout_ms)
		return;
	int64_t head = c->o.head_timeout_ms;
	pthread_mutex_lock(&c->mu);
	int64_t now = mono_ms();
	switch (phase) {
	case GW_CONN_REQUEST_LINE:
		/* never later than the deadline the connection already has */
		if (!k->deadline_ms || now + head < k->deadline_ms)
			k->deadline_ms = now + head;
		break;
	case GW_CONN_BODY:
		k->deadline_ms = now + head;
		break;
	case GW_CONN_HANDLING:
		k->deadline_ms = 0;
		break;
	case GW_CONN_IDLE:
		/* libmicrohttpd closes it after the idle timeout; this bounds a
		 * next request trickled in a byte per idle period */
		k->deadline_ms = now + (int64_t)c->o.idle_timeout_ms + head;
		break;
	}
	pthread_mutex_unlock(&c->mu);
}

void gw_conns_stats(struct gw_conns *c, struct gw_conns_stats *out)
{
	pthread_mutex_lock(&c->mu);
	out->open = c->open;
	out->rejected = c->rejected;
	out->timed_out = c->timed_out;
	pthread_mutex_unlock(&c->mu);
}
