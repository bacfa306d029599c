#include "http/server.h"

#include "http/conns.h"
#include "http/workq.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ARGS 256

/*
 * libmicrohttpd is loaded when the first server starts, not linked: it
 * brings GnuTLS and a dozen libraries whose loading would cost every
 * short-lived command (smi, dmon) several milliseconds of start-up.
 */
#define MHD_SONAME "libmicrohttpd.so.12"
#define MHD_FUNCS(X)                                                                              \
	X(MHD_start_daemon)                                                                       \
	X(MHD_stop_daemon)                                                                        \
	X(MHD_get_daemon_info)                                                                    \
	X(MHD_suspend_connection)                                                                 \
	X(MHD_resume_connection)                                                                  \
	X(MHD_lookup_connection_value)                                                            \
	X(MHD_get_connection_values)                                                              \
	X(MHD_create_response_from_buffer)                                                        \
	X(MHD_create_response_from_buffer_with_free_callback_cls)                                 \
	X(MHD_add_response_header)                                                                \
	X(MHD_queue_response)                                                                     \
	X(MHD_destroy_response)                                                                    \
	X(MHD_is_feature_supported)                                                               \
	X(MHD_get_connection_info)

static struct {
#define MHD_MEMBER(name) __typeof__(&name) name;
	MHD_FUNCS(MHD_MEMBER)
#undef MHD_MEMBER
} mhd;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static char mhd_error[256];

static void mhd_load(void)
{
	void *h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(mhd_error, sizeof(mhd_error), "cannot load %s (install libmicrohttpd12): %s", MHD_SONAME,
			 dlerror());
		return;
	}
#define MHD_RESOLVE(name)                                                                         \
	*(void **)&mhd.name = dlsym(h, #name);                                                    \
	if (!mhd.name) {                                                                          \
		snprintf(mhd_error, sizeof(mhd_error), "%s lacks %s", MHD_SONAME, #name);         \
		return;                                                                           \
	}
	MHD_FUNCS(MHD_RESOLVE)
#undef MHD_RESOLVE
}

struct gw_http {
	struct MHD_Daemon *daemon;
	struct gw_http_opts opts;
	unsigned short port;
	struct gw_conns *conns; /* per-IP limit, request deadlines */
	struct gw_workq *pool;  /* pooled routes; NULL: none configured */
	_Atomic uint64_t refused; /* pooled requests answered without running */
};

/* Per-request state, from the first callback to the completion callback. */
struct conn_state {
	struct gw_buf body;
	bool too_large;
	/* a pooled request, from its hand-over to the pool until its answer is sent */
	struct gw_http *srv;
	struct MHD_Connection *conn;
	const struct gw_http_route *route;
	const char *method, *url; /* libmicrohttpd's, valid while the request lives */
	struct gw_http_arg *args;
	size_t nargs;
	struct gw_http_response resp;
	bool answered; /* resp is filled and waits to be sent (written by the pool before the resume) */
};

const char *gw_http_arg(const struct gw_http_request *req, const char *name)
{
	for (size_t i = 0; i < req->nargs; i++)
		if (strcmp(req->args[i].name, name) == 0)
			return req->args[i].value;
	return NULL;
}

const char *gw_http_header(const struct gw_http_request *req, const char *name)
{
	return mhd.MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

/* q-value of one Accept-Encoding element's parameters ("; q=0.5"): 1 when absent, 0 when malformed. */
static double coding_q(const char *p, const char *end)
{
	while (p < end) {
		while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
			p++;
		if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			char num[16];
			size_t n = (size_t)(end - (p + 2));
			if (n == 0 || n >= sizeof(num))
				return 0;
			memcpy(num, p + 2, n);
			num[n] = '\0';
			while (n && (num[n - 1] == ' ' || num[n - 1] == '\t'))
				num[--n] = '\0';
			char *e;
			double q = strtod(num, &e);
			return *e || !(q >= 0 && q <= 1) ? 0 : q;
		}
		while (p < end && *p != ';')
			p++;
	}
	return 1;
}

bool gw_http_accepts_coding(const char *ae, const char *coding)
{
	double named = -1, star = -1;
	size_t cl = strlen(coding);
	for (const char *p = ae; p && *p;) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		const char *t = p;
		while (p < end && *p != ';' && *p != ' ' && *p != '\t')
			p++;
		size_t tl = (size_t)(p - t);
		double q = coding_q(p, end);
		if ((tl == cl && strncasecmp(t, coding, cl) == 0) ||
		    (strcmp(coding, "gzip") == 0 && tl == 6 && strncasecmp(t, "x-gzip", 6) == 0))
			named = q > named ? q : named;
		else if (tl == 1 && *t == '*')
			star = q;
		p = *end ? end + 1 : end;
	}
	return named >= 0 ? named > 0 : star > 0;
}

void gw_http_reply_text(struct gw_http_response *resp, int status, const char *text)
{
	resp->status = status;
	resp->content_type = "text/plain; charset=utf-8";
	gw_buf_reset(&resp->body);
	gw_buf_puts(&resp->body, text);
}

void gw_http_reply_shared(struct gw_http_response *resp, const char *data, size_t len, void (*release)(void *cls),
			  void *cls)
{
	resp->shared = data;
	resp->shared_len = len;
	resp->shared_release = release;
	resp->shared_cls = cls;
}

int gw_http_add_header(struct gw_http_response *resp, const char *name, const char *value)
{
	if (resp->nheaders >= GW_HTTP_HEADERS_MAX)
		return GW_EOVERFLOW;
	resp->headers[resp->nheaders][0] = name;
	resp->headers[resp->nheaders][1] = value;
	resp->nheaders++;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int gw_http_urldecode(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (*r == '+') {
			*w++ = ' ';
		} else if (*r == '%') {
			int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
			if (hi < 0 || lo < 0)
				return GW_EINVAL;
			*w++ = (char)(hi * 16 + lo);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return 0;
}

static int args_push(struct gw_http_arg **args, size_t *nargs, size_t max_args, const char *name, size_t nlen,
		     const char *value, size_t vlen)
{
	if (*nargs >= max_args)
		return GW_EOVERFLOW;
	struct gw_http_arg *a = realloc(*args, (*nargs + 1) * sizeof(**args));
	if (!a)
		return GW_ENOMEM;
	*args = a;
	char *n = strndup(name, nlen), *v = strndup(value, vlen);
	if (!n || !v) {
		free(n);
		free(v);
		return GW_ENOMEM;
	}
	a[*nargs].name = n;
	a[*nargs].value = v;
	(*nargs)++;
	return 0;
}

int gw_http_parse_form(const char *s, size_t len, struct gw_http_arg **args, size_t *nargs, size_t max_args)
{
	const char *end = s + len;
	while (s < end) {
		const char *amp = memchr(s, '&', (size_t)(end - s));
		const char *stop = amp ? amp : end;
		if (stop > s) {
			const char *eq = memchr(s, '=', (size_t)(stop - s));
			const char *nend = eq ? eq : stop;
			const char *v = eq ? eq + 1 : stop;
			size_t before = *nargs;
			int rc = args_push(args, nargs, max_args, s, (size_t)(nend - s), v, (size_t)(stop - v));
			if (rc)
				return rc;
			if (gw_http_urldecode((*args)[before].name) || gw_http_urldecode((*args)[before].value))
				return GW_EINVAL;
		}
		s = stop + 1;
	}
	return 0;
}

struct collect {
	struct gw_http_arg **args;
	size_t *nargs;
	int rc;
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct collect *c = cls;
	if (c->rc == 0)
		c->rc = args_push(c->args, c->nargs, MAX_ARGS, key, strlen(key), value ? value : "",
				  value ? strlen(value) : 0);
	return c->rc == 0 ? MHD_YES : MHD_NO;
}

static void free_args(struct gw_http_arg *args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(args[i].name);
		free(args[i].value);
	}
	free(args);
}

static enum MHD_Result send_resp(struct MHD_Connection *conn, struct gw_http_response *r)
{
	struct MHD_Response *mr;
	if (r->shared) {
		mr = mhd.MHD_create_response_from_buffer_with_free_callback_cls(
			r->shared_len, (void *)(uintptr_t)r->shared, r->shared_release, r->shared_cls);
		if (!mr) {
			r->shared_release(r->shared_cls);
			return MHD_NO;
		}
	} else {
		size_t len = r->body.len;
		char *data = r->body.data;
		r->body.data = NULL; /* ownership moves to libmicrohttpd */
		mr = mhd.MHD_create_response_from_buffer(len, data ? data : (char *)"",
							 data ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
		if (!mr) {
			free(data);
			return MHD_NO;
		}
	}
	if (r->content_type)
		mhd.MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
	for (size_t i = 0; i < r->nheaders; i++)
		mhd.MHD_add_response_header(mr, r->headers[i][0], r->headers[i][1]);
	enum MHD_Result ret = mhd.MHD_queue_response(conn, (unsigned int)r->status, mr);
	mhd.MHD_destroy_response(mr);
	return ret;
}

static enum MHD_Result simple(struct MHD_Connection *conn, int status, const char *text, size_t limit)
{
	struct gw_http_response r = {0};
	gw_buf_init(&r.body, limit);
	gw_http_reply_text(&r, status, text);
	return send_resp(conn, &r);
}

static unsigned int method_bit(const char *m)
{
	if (strcmp(m, "GET") == 0)
		return GW_HTTP_GET;
	if (strcmp(m, "POST") == 0)
		return GW_HTTP_POST;
	if (strcmp(m, "HEAD") == 0)
		return GW_HTTP_HEAD;
	return 0;
}

static const struct gw_http_route *find_route(const struct gw_http *srv, const char *path)
{
	for (size_t i = 0; i < srv->opts.nroutes; i++) {
		const struct gw_http_route *r = &srv->opts.routes[i];
		if (r->prefix ? strncmp(path, r->path, strlen(r->path)) == 0 : strcmp(path, r->path) == 0)
			return r;
	}
	return NULL;
}

static bool is_form(struct MHD_Connection *conn)
{
	const char *ct = mhd.MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	return ct && strncasecmp(ct, "application/x-www-form-urlencoded", 33) == 0;
}

static void refuse(struct gw_http *srv, struct conn_state *st, enum gw_http_refusal why)
{
	st->resp.status = 503;
	if (srv->opts.pool_refuse)
		srv->opts.pool_refuse(srv->opts.ctx, why, &st->resp);
	else
		gw_http_reply_text(&st->resp, 503,
				   why == GW_HTTP_POOL_STOPPING ? "server stopping\n" : "too many requests in flight\n");
	if (why != GW_HTTP_POOL_STOPPING)
		atomic_fetch_add(&srv->refused, 1);
}

/* On a pool thread: answer the request, then let its connection go on. */
static void run_pooled(void *arg, int64_t waited_ms)
{
	struct conn_state *st = arg;
	struct gw_http *srv = st->srv;
	if (srv->opts.pool_wait_ms && waited_ms > (int64_t)srv->opts.pool_wait_ms) {
		refuse(srv, st, GW_HTTP_POOL_TIMEOUT);
	} else {
		struct gw_http_request req = {st->method, st->url, st->args, st->nargs, st->conn, st->body.data,
					      st->body.len};
		st->route->fn(st->route->ctx ? st->route->ctx : srv->opts.ctx, &req, &st->resp);
	}
	st->answered = true;
	/* libmicrohttpd's resume takes a lock its worker takes too: what was written above is seen there */
	mhd.MHD_resume_connection(st->conn);
}

static void drop_pooled(void *arg)
{
	struct conn_state *st = arg;
	refuse(st->srv, st, GW_HTTP_POOL_STOPPING);
	st->answered = true;
	mhd.MHD_resume_connection(st->conn);
}

/*
 * Suspend the connection and queue the request; the connection thread goes
 * back to other connections (a scrape) at once. Suspending before queueing
 * means the pool's resume always finds the connection suspended.
 */
static enum MHD_Result hand_to_pool(struct gw_http *srv, struct MHD_Connection *conn,
				    const struct gw_http_route *route, const char *url, const char *method,
				    struct conn_state *st, struct gw_http_arg *args, size_t nargs)
{
	st->srv = srv;
	st->conn = conn;
	st->route = route;
	st->url = url;
	st->method = method;
	st->args = args;
	st->nargs = nargs;
	st->resp = (struct gw_http_response){.status = 200};
	gw_buf_init(&st->resp.body, srv->opts.max_response);
	mhd.MHD_suspend_connection(conn);
	if (gw_workq_push(srv->pool, run_pooled, st) != 0) {
		refuse(srv, st, GW_HTTP_POOL_FULL);
		st->answered = true;
		mhd.MHD_resume_connection(conn);
	}
	return MHD_YES;
}

/* The pooled request's answer, on its connection's thread after the resume. */
static enum MHD_Result send_answer(struct MHD_Connection *conn, struct conn_state *st)
{
	st->answered = false;
	enum MHD_Result ret = send_resp(conn, &st->resp);
	gw_buf_release(&st->resp.body);
	free_args(st->args, st->nargs);
	st->args = NULL;
	st->nargs = 0;
	return ret;
}

static struct gw_conn *tracked(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = mhd.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

static enum MHD_Result dispatch(struct gw_http *srv, struct MHD_Connection *conn, const char *url,
				const char *method, struct conn_state *st)
{
	if (st->too_large)
		return simple(conn, 413, "request body too large\n", 4096);
	const union MHD_ConnectionInfo *ti = srv->opts.web && srv->opts.web->client_auth
		? mhd.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION) : NULL;
	if (srv->opts.web && gw_webcfg_check_client(srv->opts.web, ti ? ti->tls_session : NULL, NULL) != 0)
		return simple(conn, 403, "a trusted client certificate is required\n", 4096);
	if (srv->opts.web && srv->opts.web->nusers &&
	    !gw_webcfg_check_basic(srv->opts.web, mhd.MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
										   MHD_HTTP_HEADER_AUTHORIZATION))) {
		struct gw_http_response r = {0};
		gw_buf_init(&r.body, 4096);
		gw_http_reply_text(&r, 401, "Unauthorized\n");
		gw_http_add_header(&r, "WWW-Authenticate", "Basic realm=\"gpuwatch\"");
		return send_resp(conn, &r);
	}
	const struct gw_http_route *route = find_route(srv, url);
	if (!route)
		return simple(conn, 404, "404 page not found\n", 4096);
	unsigned int bit = method_bit(method);
	if (bit == GW_HTTP_HEAD && (route->methods & GW_HTTP_GET))
		bit = GW_HTTP_GET;
	if (!(route->methods & bit))
		return simple(conn, 405, "method not allowed\n", 4096);

	struct gw_http_arg *args = NULL;
	size_t nargs = 0;
	struct collect c = {&args, &nargs, 0};
	mhd.MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &c);
	if (c.rc == 0 && st->body.len && is_form(conn))
		c.rc = gw_http_parse_form(st->body.data, st->body.len, &args, &nargs, MAX_ARGS);
	if (c.rc == 0 && (route->methods & GW_HTTP_POOLED) && srv->pool)
		return hand_to_pool(srv, conn, route, url, method, st, args, nargs);
	enum MHD_Result ret;
	if (c.rc != 0) {
		ret = simple(conn, 400, c.rc == GW_EOVERFLOW ? "too many arguments\n" : "malformed arguments\n",
			     4096);
	} else {
		struct gw_http_request req = {method, url, args, nargs, conn, st->body.data, st->body.len};
		struct gw_http_response resp = {.status = 200};
		gw_buf_init(&resp.body, srv->opts.max_response);
		route->fn(route->ctx ? route->ctx : srv->opts.ctx, &req, &resp);
		ret = send_resp(conn, &resp);
		gw_buf_release(&resp.body);
	}
	free_args(args, nargs);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct gw_http *srv = cls;
	struct conn_state *st = *con_cls;
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		gw_buf_init(&st->body, srv->opts.max_body);
		*con_cls = st;
		gw_conns_mark(srv->conns, tracked(conn), GW_CONN_BODY);
		return MHD_YES;
	}
	if (st->answered)
		return send_answer(conn, st);
	if (*upload_data_size) {
		if (!st->too_large && gw_buf_append(&st->body, upload_data, *upload_data_size) != 0)
			st->too_large = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	gw_conns_mark(srv->conns, tracked(conn), GW_CONN_HANDLING);
	return dispatch(srv, conn, url, method, st);
}

static void on_complete(void *cls, struct MHD_Connection *conn, void **con_cls,
			enum MHD_RequestTerminationCode toe)
{
	struct gw_http *srv = cls;
	struct conn_state *st = *con_cls;
	if (st) {
		/* an answer never sent: the connection closed (or the server stopped) first */
		if (st->answered && st->resp.shared)
			st->resp.shared_release(st->resp.shared_cls);
		gw_buf_release(&st->resp.body);
		free_args(st->args, st->nargs);
		gw_buf_release(&st->body);
		free(st);
		*con_cls = NULL;
	}
	gw_conns_mark(srv->conns, tracked(conn), GW_CONN_IDLE);
}

/* Before a connection is set up: refuse a source address at its limit. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct gw_http *srv = cls;
	(void)addrlen;
	return gw_conns_admit(srv->conns, addr) ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct gw_http *srv = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd = mhd.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *addr =
			mhd.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		/* untracked when out of memory: no per-IP count, no deadline; the idle timeout still holds */
		if (fd)
			*socket_context = gw_conns_add(srv->conns, fd->connect_fd, addr ? addr->client_addr : NULL);
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		/* called before libmicrohttpd closes the socket (conns.h) */
		gw_conns_remove(srv->conns, *socket_context);
		*socket_context = NULL;
	}
}

/* The request line is in: its head is due within head_timeout_ms from now, at the latest. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct gw_http *srv = cls;
	(void)uri;
	gw_conns_mark(srv->conns, tracked(conn), GW_CONN_REQUEST_LINE);
	return NULL;
}

/* "host:port", ":port", "port", "[v6]:port" -> sockaddr. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6, struct gw_err *err)
{
	char host[128] = "";
	const char *port;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof(host))
			return gw_err_set(err, GW_EINVAL, "bad listen address \"%s\"", s);
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		port = close + 2;
	} else {
		const char *colon = strrchr(s, ':');
		if (colon) {
			if ((size_t)(colon - s) >= sizeof(host))
				return gw_err_set(err, GW_EINVAL, "bad listen address \"%s\"", s);
			memcpy(host, s, (size_t)(colon - s));
			host[colon - s] = '\0';
			port = colon + 1;
		} else {
			port = s;
		}
	}
	char *end;
	long p = strtol(port, &end, 10);
	if (!*port || *end || p < 0 || p > 65535)
		return gw_err_set(err, GW_EINVAL, "bad port in listen address \"%s\"", s);
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	if (strchr(host, ':')) {
		*v6 = true;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((unsigned short)p);
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return gw_err_set(err, GW_EINVAL, "bad IPv6 address \"%s\"", host);
		return 0;
	}
	*v6 = false;
	a4->sin_family = AF_INET;
	a4->sin_port = htons((unsigned short)p);
	if (!host[0] || strcmp(host, "0.0.0.0") == 0)
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (strcmp(host, "localhost") == 0)
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
		return gw_err_set(err, GW_EINVAL, "bad address \"%s\" (use an IP address)", host);
	return 0;
}

int gw_http_start(struct gw_http **out, const struct gw_http_opts *opts, struct gw_err *err)
{
	*out = NULL;
	pthread_once(&mhd_once, mhd_load);
	if (mhd_error[0])
		return gw_err_set(err, GW_ENOLIB, "%s", mhd_error);
	struct sockaddr_storage ss;
	bool v6 = false;
	int rc = parse_listen(opts->listen ? opts->listen : ":9400", &ss, &v6, err);
	if (rc)
		return rc;
	struct gw_http *srv = calloc(1, sizeof(*srv));
	if (!srv)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	srv->opts = *opts;
	if (!srv->opts.max_body)
		srv->opts.max_body = 1u << 20;
	if (!srv->opts.max_response)
		srv->opts.max_response = 64u << 20;
	if (!srv->opts.timeout_s)
		srv->opts.timeout_s = 30;
	if (!srv->opts.max_conns)
		srv->opts.max_conns = 1024;
	if (!srv->opts.max_conns_per_ip)
		srv->opts.max_conns_per_ip = 64;
	if (!srv->opts.head_timeout_ms)
		srv->opts.head_timeout_ms = 10000;
	/*
	 * Connections are polled, so a thread is never held by a slow client;
	 * what holds one is work: a TLS handshake, a bcrypt check, a big
	 * exposition being rendered. Four keep a scrape from queueing behind
	 * a few of those, and the query API has its own threads (pool).
	 */
	if (!srv->opts.threads)
		srv->opts.threads = 4;
	if (!srv->opts.pool_threads)
		srv->opts.pool_threads = 4;
	if (!srv->opts.pool_queue)
		srv->opts.pool_queue = 16 * srv->opts.pool_threads;
	struct gw_conns_opts co = {
		.per_ip = srv->opts.max_conns_per_ip == GW_HTTP_UNLIMITED ? 0 : srv->opts.max_conns_per_ip,
		.head_timeout_ms = srv->opts.head_timeout_ms == GW_HTTP_UNLIMITED ? 0 : srv->opts.head_timeout_ms,
		.idle_timeout_ms = srv->opts.timeout_s * 1000};
	bool pooled = false;
	for (size_t i = 0; i < opts->nroutes; i++)
		pooled |= (opts->routes[i].methods & GW_HTTP_POOLED) != 0;
	if (gw_conns_new(&srv->conns, &co) != 0 ||
	    (pooled && gw_workq_new(&srv->pool, srv->opts.pool_threads, srv->opts.pool_queue) != 0)) {
		gw_conns_free(srv->conns);
		free(srv);
		return gw_err_set(err, GW_ENOMEM, "cannot start the server's threads");
	}
	/*
	 * Each connection's pool holds its request line and headers. 32 KiB is
	 * four times nginx's default limit for them; from 64 KiB up
	 * libmicrohttpd mmaps the pool, and the munmap after every short-lived
	 * connection (a curl scrape) cost the agent about a tenth of its CPU.
	 */
	enum { GW_HTTP_CONN_MEMORY = 32 * 1024 };
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	if (v6)
		flags |= MHD_USE_IPv6;
	/* TLS options go in an array so the plain-HTTP call stays the same. */
	struct MHD_OptionItem tls[5] = {{MHD_OPTION_END, 0, NULL}};
	bool use_tls = opts->web && opts->web->cert_pem;
	if (use_tls) {
		if (mhd.MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			gw_workq_free(srv->pool, NULL);
			gw_conns_free(srv->conns);
			free(srv);
			return gw_err_set(err, GW_ENOTSUP, "%s was built without TLS support", MHD_SONAME);
		}
		flags |= MHD_USE_TLS;
		tls[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, opts->web->cert_pem};
		tls[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, opts->web->key_pem};
		tls[2] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, opts->web->priorities};
		tls[3] = (struct MHD_OptionItem){opts->web->trust_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0,
						 (void *)opts->web->trust_pem};
	}
	srv->daemon = mhd.MHD_start_daemon(
		flags, 0, on_accept, srv, on_request, srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_NOTIFY_COMPLETED, on_complete, srv, MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)srv->opts.timeout_s, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)srv->opts.max_conns,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)srv->opts.threads, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)GW_HTTP_CONN_MEMORY, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	if (!srv->daemon) {
		gw_workq_free(srv->pool, NULL);
		gw_conns_free(srv->conns);
		free(srv);
		return gw_err_set(err, GW_EIO,
				  use_tls ? "cannot listen on %s (address in use or not permitted, or the TLS "
					    "certificate and key do not load or do not match)"
					  : "cannot listen on %s (address in use or not permitted)",
				  opts->listen ? opts->listen : ":9400");
	}
	const union MHD_DaemonInfo *info = mhd.MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	*out = srv;
	return 0;
}

void gw_http_stop(struct gw_http *srv)
{
	if (!srv)
		return;
	/* every suspended connection resumed first: libmicrohttpd cannot stop with one */
	gw_workq_free(srv->pool, drop_pooled);
	mhd.MHD_stop_daemon(srv->daemon);
	gw_conns_free(srv->conns); /* after the daemon: its "closed" notifications use it */
	free(srv);
}

void gw_http_stats(struct gw_http *srv, struct gw_http_stats *out)
{
	memset(out, 0, sizeof(*out));
	struct gw_conns_stats cs;
	gw_conns_stats(srv->conns, &cs);
	out->conns = cs.open;
	out->conns_rejected = cs.rejected;
	out->head_timeouts = cs.timed_out;
	if (srv->pool) {
		struct gw_workq_stats ws;
		gw_workq_stats(srv->pool, &ws);
		out->pool_queued = ws.queued;
		out->pool_running = ws.running;
	}
	out->pool_refused = atomic_load(&srv->refused);
}

unsigned short gw_http_port(const struct gw_http *srv)
{
	return srv->port;
}
