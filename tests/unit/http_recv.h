/*
 * http_recv.h - a loopback HTTP receiver for tests of HTTP clients: one
 * thread, plain sockets, one connection at a time (kept alive across
 * requests), each request's path, headers and body (by Content-Length)
 * recorded, and each answered as told: 200, 500, 400, or never (a stall:
 * the request is read and left unanswered until the client gives up).
 *
 * A script of answers is used first, one per request, then the default.
 * Ownership: the test embeds struct recv; recv_start / recv_stop.
 * Threading: the recorded requests and the answers are under recv.mu.
 */
#ifndef GW_TEST_HTTP_RECV_H
#define GW_TEST_HTTP_RECV_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RECV_MAX 64
#define RECV_STALL 0 /* an answer: none */

struct recv_req {
	char path[256];
	char content_type[128];
	char user_agent[128];
	char authorization[256];
	char *body; /* NUL-terminated */
	size_t len;
};

struct recv {
	int fd;
	int port;
	pthread_t thread;
	pthread_mutex_t mu;
	_Atomic bool stop;
	int script[16];
	size_t nscript, used;
	int answer; /* after the script: 200, 400, 500 or RECV_STALL */
	struct recv_req req[RECV_MAX];
	size_t nreq;
};

static int recv_answer(struct recv *r)
{
	pthread_mutex_lock(&r->mu);
	int a = r->used < r->nscript ? r->script[r->used++] : r->answer;
	pthread_mutex_unlock(&r->mu);
	return a;
}

/* Read into buf until want bytes or the end of the headers; false when the peer left or we stop. */
static bool recv_fill(struct recv *r, int c, char *buf, size_t cap, size_t *len, size_t want, bool headers)
{
	while (!r->stop) {
		if (headers ? (*len >= 4 && memmem(buf, *len, "\r\n\r\n", 4)) : *len >= want)
			return true;
		if (*len >= cap)
			return false;
		struct pollfd p = {c, POLLIN, 0};
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t n = read(c, buf + *len, cap - *len);
		if (n <= 0)
			return false;
		*len += (size_t)n;
	}
	return false;
}

static void recv_header(const char *head, const char *name, char *out, size_t cap)
{
	out[0] = '\0';
	size_t nl = strlen(name);
	for (const char *l = strstr(head, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
		if (strncasecmp(l + 2, name, nl) == 0 && l[2 + nl] == ':') {
			const char *v = l + 3 + nl;
			while (*v == ' ')
				v++;
			size_t k = strcspn(v, "\r");
			snprintf(out, cap, "%.*s", (int)k, v);
			return;
		}
	}
}

/* Serve one connection's requests until it closes. */
static void recv_conn(struct recv *r, int c)
{
	size_t cap = 8 << 20, len = 0;
	char *buf = malloc(cap + 1);
	while (buf && recv_fill(r, c, buf, cap, &len, 0, true)) {
		char *end = memmem(buf, len, "\r\n\r\n", 4);
		size_t hlen = (size_t)(end - buf) + 4;
		buf[len] = '\0';
		char head[4096];
		snprintf(head, sizeof(head), "%.*s", (int)hlen, buf);
		char cl[32];
		recv_header(head, "Content-Length", cl, sizeof(cl));
		size_t blen = (size_t)strtoul(cl, NULL, 10);
		if (!recv_fill(r, c, buf, cap, &len, hlen + blen, false))
			break;
		struct recv_req q = {0};
		sscanf(head, "%*s %255s", q.path);
		recv_header(head, "Content-Type", q.content_type, sizeof(q.content_type));
		recv_header(head, "User-Agent", q.user_agent, sizeof(q.user_agent));
		recv_header(head, "Authorization", q.authorization, sizeof(q.authorization));
		q.body = malloc(blen + 1);
		memcpy(q.body, buf + hlen, blen);
		q.body[blen] = '\0';
		q.len = blen;
		memmove(buf, buf + hlen + blen, len - hlen - blen);
		len -= hlen + blen;
		pthread_mutex_lock(&r->mu);
		if (r->nreq < RECV_MAX)
			r->req[r->nreq++] = q;
		else
			free(q.body);
		pthread_mutex_unlock(&r->mu);
		int a = recv_answer(r);
		if (a == RECV_STALL) {
			char sink[4096];
			while (!r->stop) { /* until the client gives up */
				struct pollfd p = {c, POLLIN, 0};
				if (poll(&p, 1, 50) > 0 && read(c, sink, sizeof(sink)) <= 0)
					break;
			}
			break;
		}
		const char *text = a == 200 ? "" : a == 400 ? "bad alert" : "try later";
		char resp[256];
		int n = snprintf(resp, sizeof(resp),
				 "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nContent-Type: text/plain\r\n\r\n%s",
				 a, strlen(text), text);
		if (write(c, resp, (size_t)n) != n)
			break;
	}
	free(buf);
	close(c);
}

static void *recv_run(void *arg)
{
	struct recv *r = arg;
	while (!r->stop) {
		struct pollfd p = {r->fd, POLLIN, 0};
		if (poll(&p, 1, 50) <= 0)
			continue;
		int c = accept(r->fd, NULL, NULL);
		if (c >= 0)
			recv_conn(r, c);
	}
	return NULL;
}

/* A socket bound to a free loopback port (listening when listen_too); its port in *port. */
static int recv_bind(int *port, bool listen_too)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (listen_too && listen(fd, 16) != 0) || getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int recv_start(struct recv *r, int answer)
{
	memset(r, 0, sizeof(*r));
	r->answer = answer;
	pthread_mutex_init(&r->mu, NULL);
	r->fd = recv_bind(&r->port, true);
	if (r->fd < 0)
		return -1;
	return pthread_create(&r->thread, NULL, recv_run, r) == 0 ? 0 : -1;
}

static void recv_stop(struct recv *r)
{
	r->stop = true;
	pthread_join(r->thread, NULL);
	close(r->fd);
	for (size_t i = 0; i < r->nreq; i++)
		free(r->req[i].body);
	pthread_mutex_destroy(&r->mu);
}

static size_t recv_count(struct recv *r)
{
	pthread_mutex_lock(&r->mu);
	size_t n = r->nreq;
	pthread_mutex_unlock(&r->mu);
	return n;
}

/* Wait up to ms for at least n requests; returns how many there are. */
static size_t recv_wait(struct recv *r, size_t n, int ms)
{
	for (int waited = 0; recv_count(r) < n && waited < ms; waited += 10)
		usleep(10000);
	return recv_count(r);
}

#endif
