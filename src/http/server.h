/*
 * server.h - the HTTP server every gpuwatch endpoint runs on.
 *
 * A thin layer over libmicrohttpd: a table of routes (path, methods,
 * handler), request limits (body size, connection count, idle timeout), and
 * request arguments merged from the query string and a form-encoded POST
 * body, repeated names kept (`match[]=a&match[]=b`). Handlers fill a
 * response whose body is a capped gw_buf; they must not block on NVML or
 * anything slow — they read the latest frame or the store.
 *
 * With a web config (webcfg.h) the server speaks HTTPS through
 * libmicrohttpd's GnuTLS support, and answers every route with 401 and
 * `WWW-Authenticate: Basic realm="gpuwatch"` until the request carries a
 * configured user's password.
 *
 * Availability: a slow or idle client must not keep /metrics from its
 * scraper. Connections are polled (epoll), so a client trickling bytes costs
 * a socket, not a thread; each source address may hold max_conns_per_ip of
 * them; a request's head must arrive within head_timeout_ms of the
 * connection (or its request line), however steadily it trickles
 * (http/conns.h). Routes marked GW_HTTP_POOLED (the query API) do not run on the
 * connection threads: the connection is suspended, the handler runs on a
 * pool of pool_threads threads (http/workq.h) and the connection resumes
 * with its answer, so at most pool_threads of them run at once, and a full
 * queue is answered 503 at once.
 *
 * Ownership: gw_http_start() returns a server the caller stops with
 * gw_http_stop(); routes and ctx are borrowed for the server's life.
 * Threading: handlers run on libmicrohttpd's worker threads, or for pooled
 * routes on the pool's, several at once; whatever ctx points at must be
 * safe for that.
 */
#ifndef GW_HTTP_SERVER_H
#define GW_HTTP_SERVER_H

#include "core/buf.h"
#include "core/err.h"
#include "http/webcfg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_HTTP_GET 0x1u
#define GW_HTTP_POST 0x2u
#define GW_HTTP_HEAD 0x4u
/* In a route's methods: slow (a query), run on the server's pool, not a connection thread. */
#define GW_HTTP_POOLED 0x100u

struct gw_http_arg {
	char *name;
	char *value;
};

struct gw_http_request {
	const char *method;
	const char *path;
	const struct gw_http_arg *args; /* query string, then form body */
	size_t nargs;
	void *conn; /* the MHD connection, for header lookups */
	/* the body as sent, whatever its type (max_body bytes at most); NULL with 0: none */
	const char *body;
	size_t body_len;
};

#define GW_HTTP_HEADERS_MAX 4

struct gw_http_response {
	int status;
	const char *content_type; /* static string */
	struct gw_buf body;
	const char *headers[GW_HTTP_HEADERS_MAX][2]; /* extra (name, value), static strings */
	size_t nheaders;
	/* Set by gw_http_reply_shared(): bytes sent in place of body, without a copy. */
	const char *shared;
	size_t shared_len;
	void (*shared_release)(void *cls);
	void *shared_cls;
};

typedef void (*gw_http_handler_fn)(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp);

struct gw_http_route {
	const char *path;
	unsigned int methods; /* GW_HTTP_GET | ... */
	bool prefix;          /* path is a prefix ("/api/v1/label/") */
	gw_http_handler_fn fn;
	void *ctx;            /* handler's context; NULL: the server's ctx */
};

/* Why a pooled request is answered without running its handler. */
enum gw_http_refusal {
	GW_HTTP_POOL_FULL,     /* pool_queue requests already wait */
	GW_HTTP_POOL_TIMEOUT,  /* it waited longer than pool_wait_ms */
	GW_HTTP_POOL_STOPPING, /* the server is stopping */
};

#define GW_HTTP_UNLIMITED 0xffffffffu /* max_conns_per_ip, head_timeout_ms: no limit */

struct gw_http_opts {
	const char *listen; /* "host:port", ":port" or "port"; port 0 picks one */
	const struct gw_http_route *routes;
	size_t nroutes;
	void *ctx;
	size_t max_body;          /* bytes of request body accepted (default 1 MiB) */
	size_t max_response;      /* bytes a response may grow to (default 64 MiB) */
	unsigned int timeout_s;   /* idle connection timeout (default 30) */
	unsigned int max_conns;   /* simultaneous connections (default 1024) */
	unsigned int max_conns_per_ip; /* of them from one address (default 64) */
	unsigned int head_timeout_ms;  /* to receive a request's head, and again its body (default 10 s) */
	unsigned int threads;     /* connection threads (default 4) */
	unsigned int pool_threads;     /* pooled routes running at once (default 4) */
	unsigned int pool_queue;       /* pooled requests waiting, beyond that 503 (default 16 * pool_threads) */
	unsigned int pool_wait_ms;     /* longest wait in the queue before a 503 (0: no limit) */
	/* The answer to a pooled request that does not run; NULL: 503, plain text. */
	void (*pool_refuse)(void *ctx, enum gw_http_refusal why, struct gw_http_response *resp);
	const struct gw_webcfg *web; /* TLS and basic auth (borrowed); NULL: plain HTTP, no auth */
};

struct gw_http;

int gw_http_start(struct gw_http **out, const struct gw_http_opts *opts, struct gw_err *err);
void gw_http_stop(struct gw_http *srv);
unsigned short gw_http_port(const struct gw_http *srv);

struct gw_http_stats {
	unsigned conns;            /* open connections */
	uint64_t conns_rejected;   /* refused at accept: the address was at max_conns_per_ip */
	uint64_t head_timeouts;    /* closed: a request not received within head_timeout_ms */
	size_t pool_queued;        /* pooled requests waiting */
	unsigned pool_running;     /* pooled requests running */
	uint64_t pool_refused;     /* pooled requests answered 503: queue full or waited too long */
};

void gw_http_stats(struct gw_http *srv, struct gw_http_stats *out);

/* First value of an argument, or NULL. */
const char *gw_http_arg(const struct gw_http_request *req, const char *name);
/* A request header, or NULL. */
const char *gw_http_header(const struct gw_http_request *req, const char *name);
/*
 * Whether an Accept-Encoding value takes `coding` (RFC 9110 12.5.3): the
 * coding named (any case; "x-gzip" for "gzip") or "*", with a q-value
 * above 0; a q=0 on the coding itself refuses it. NULL or empty: no.
 */
bool gw_http_accepts_coding(const char *accept_encoding, const char *coding);

/* Helpers for handlers. */
void gw_http_reply_text(struct gw_http_response *resp, int status, const char *text);
/*
 * Answer with bytes the handler does not copy: `data` (len bytes) must stay
 * valid and unchanged until the server calls release(cls), once, after the
 * response is sent or dropped. For a body many requests share (a cached
 * exposition); body is ignored when set.
 */
void gw_http_reply_shared(struct gw_http_response *resp, const char *data, size_t len, void (*release)(void *cls),
			  void *cls);
int gw_http_add_header(struct gw_http_response *resp, const char *name, const char *value);

/* Decode %XX and '+' in place; returns GW_EINVAL on a bad escape. */
int gw_http_urldecode(char *s);

/* Parse "a=1&b=2" into args (appended); returns 0 or GW_EINVAL / GW_ENOMEM. */
int gw_http_parse_form(const char *s, size_t len, struct gw_http_arg **args, size_t *nargs, size_t max_args);

#endif
