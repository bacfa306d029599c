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
 * Ownership: gw_http_start() returns a server the caller stops with
 * gw_http_stop(); routes and ctx are borrowed for the server's life.
 * Threading: handlers run on libmicrohttpd's worker threads, several at
 * once; whatever ctx points at must be safe for that.
 */
#ifndef GW_HTTP_SERVER_H
#define GW_HTTP_SERVER_H

#include "core/buf.h"
#include "core/err.h"
#include "http/webcfg.h"

#include <stdbool.h>
#include <stddef.h>

#define GW_HTTP_GET 0x1u
#define GW_HTTP_POST 0x2u
#define GW_HTTP_HEAD 0x4u

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

struct gw_http_opts {
	const char *listen; /* "host:port", ":port" or "port"; port 0 picks one */
	const struct gw_http_route *routes;
	size_t nroutes;
	void *ctx;
	size_t max_body;          /* bytes of request body accepted (default 1 MiB) */
	size_t max_response;      /* bytes a response may grow to (default 64 MiB) */
	unsigned int timeout_s;   /* idle connection timeout (default 30) */
	unsigned int max_conns;   /* simultaneous connections (default 256) */
	unsigned int threads;     /* worker threads (default 2) */
	const struct gw_webcfg *web; /* TLS and basic auth (borrowed); NULL: plain HTTP, no auth */
};

struct gw_http;

int gw_http_start(struct gw_http **out, const struct gw_http_opts *opts, struct gw_err *err);
void gw_http_stop(struct gw_http *srv);
unsigned short gw_http_port(const struct gw_http *srv);

/* First value of an argument, or NULL. */
const char *gw_http_arg(const struct gw_http_request *req, const char *name);
/* A request header, or NULL. */
const char *gw_http_header(const struct gw_http_request *req, const char *name);

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
