/*
 * conns.h - the HTTP server's open connections: a per-client (source
 * address) connection limit, and a deadline for receiving each request.
 *
 * libmicrohttpd's own connection timeout is an idle timeout: a client that
 * sends one header line every few seconds (slowloris) never goes idle and
 * holds its connection for ever. Here every connection carries a deadline
 * by which the request it is receiving must be complete: its head within
 * head_timeout_ms of the connection opening (or of its request line, on a
 * kept-alive connection), its body within as long again. A reaper thread
 * shuts down the socket of a connection past its deadline; libmicrohttpd
 * then sees the connection end and closes it on its own thread.
 *
 * Ownership: gw_conns_new() / gw_conns_free(); a gw_conn from
 * gw_conns_add() is valid until gw_conns_remove(), which must come before
 * its socket is closed (libmicrohttpd's "closed" notification does), so the
 * reaper never touches a socket number that was reused.
 * Threading: every function may be called from any thread.
 */
#ifndef GW_HTTP_CONNS_H
#define GW_HTTP_CONNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct gw_conns;
struct gw_conn;

struct gw_conns_opts {
	unsigned per_ip;          /* connections one source address may hold; 0: no limit */
	unsigned head_timeout_ms; /* to receive a request's head (and again its body); 0: no deadline */
	unsigned idle_timeout_ms; /* how long a kept-alive connection may wait for its next request */
};

/* Where a connection is in its request; each moves its deadline. */
enum gw_conn_phase {
	GW_CONN_REQUEST_LINE, /* request line received: head due within head_timeout of now, at the latest */
	GW_CONN_BODY,         /* head received: body due within head_timeout */
	GW_CONN_HANDLING,     /* request received: no deadline while it is answered */
	GW_CONN_IDLE,         /* answered: the next request due within idle + head timeouts */
};

struct gw_conns_stats {
	unsigned open;       /* connections tracked now */
	uint64_t rejected;   /* refused at accept: the address already held per_ip */
	uint64_t timed_out;  /* closed because a request was not received by its deadline */
};

int gw_conns_new(struct gw_conns **out, const struct gw_conns_opts *o);
void gw_conns_free(struct gw_conns *c);

/* A new connection from addr: false (and counted) if its address is at the per-IP limit. */
bool gw_conns_admit(struct gw_conns *c, const struct sockaddr *addr);
/* Track an accepted connection; its head is due within head_timeout. NULL when out of memory. */
struct gw_conn *gw_conns_add(struct gw_conns *c, int fd, const struct sockaddr *addr);
void gw_conns_remove(struct gw_conns *c, struct gw_conn *k);
void gw_conns_mark(struct gw_conns *c, struct gw_conn *k, enum gw_conn_phase phase);

void gw_conns_stats(struct gw_conns *c, struct gw_conns_stats *out);

#endif
