/* The HTTP server layer: routing, arguments, limits — over real sockets. */
#include "harness.h"
#include "http/server.h"
#include "http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static void echo_args(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	resp->content_type = "text/plain";
	gw_buf_printf(&resp->body, "%s %s", req->method, req->path);
	for (size_t i = 0; i < req->nargs; i++)
		gw_buf_printf(&resp->body, " %s=%s", req->args[i].name, req->args[i].value);
	(*(int *)ctx)++;
}

static void hello(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	gw_http_reply_text(resp, 200, "OK");
	gw_http_add_header(resp, "X-Test", "yes");
}

static const struct gw_http_route routes[] = {
	{"/health", GW_HTTP_GET, false, hello, NULL},
	{"/api/v1/query", GW_HTTP_GET | GW_HTTP_POST, false, echo_args, NULL},
	{"/api/v1/label/", GW_HTTP_GET, true, echo_args, NULL},
};

static char *roundtrip(unsigned short port, const char *raw, size_t len)
{
	return http_roundtrip(port, raw, len);
}

static char *request(unsigned short port, const char *req)
{
	return roundtrip(port, req, strlen(req));
}

static const char *body_of(const char *resp)
{
	const char *p = strstr(resp, "\r\n\r\n");
	return p ? p + 4 : "";
}

static void test_routes_and_args(void)
{
	int calls = 0;
	struct gw_http *srv = NULL;
	struct gw_err err;
	struct gw_http_opts o = {.listen = "127.0.0.1:0", .routes = routes, .nroutes = 3, .ctx = &calls,
				 .max_body = 256};
	CHECK_INT_EQ(gw_http_start(&srv, &o, &err), 0);
	if (!srv)
		return;
	unsigned short port = gw_http_port(srv);
	CHECK(port != 0);

	char *r = request(port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(strncmp(r, "HTTP/1.1 200", 12) == 0);
	CHECK(strstr(r, "X-Test: yes") != NULL);
	CHECK_STR_EQ(body_of(r), "OK");
	free(r);

	r = request(port, "GET /api/v1/query?query=up%7Bjob%3D%22a%22%7D&match[]=a&match[]=b+c HTTP/1.1\r\n"
			  "Host: x\r\nConnection: close\r\n\r\n");
	CHECK_STR_EQ(body_of(r), "GET /api/v1/query query=up{job=\"a\"} match[]=a match[]=b c");
	free(r);

	const char *post = "POST /api/v1/query HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			   "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 21\r\n\r\n"
			   "query=1%2B1&time=12.5";
	r = request(port, post);
	CHECK_STR_EQ(body_of(r), "POST /api/v1/query query=1+1 time=12.5");
	free(r);

	r = request(port, "GET /api/v1/label/gpu/values HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK_STR_EQ(body_of(r), "GET /api/v1/label/gpu/values");
	free(r);
	CHECK_INT_EQ(calls, 3);
	gw_http_stop(srv);
}

static void test_errors(void)
{
	int calls = 0;
	struct gw_http *srv = NULL;
	struct gw_err err;
	struct gw_http_opts o = {.listen = "127.0.0.1:0", .routes = routes, .nroutes = 3, .ctx = &calls,
				 .max_body = 64};
	CHECK_INT_EQ(gw_http_start(&srv, &o, &err), 0);
	if (!srv)
		return;
	unsigned short port = gw_http_port(srv);
	char *r = request(port, "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(strncmp(r, "HTTP/1.1 404", 12) == 0);
	free(r);
	r = request(port, "POST /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
	CHECK(strncmp(r, "HTTP/1.1 405", 12) == 0);
	free(r);
	char big[512];
	int n = snprintf(big, sizeof(big),
			 "POST /api/v1/query HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			 "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n");
	memset(big + n, 'a', 200);
	r = roundtrip(port, big, (size_t)n + 200);
	CHECK(strncmp(r, "HTTP/1.1 413", 12) == 0);
	free(r);
	r = request(port, "GET /api/v1/query?bad=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(strncmp(r, "HTTP/1.1 ", 9) == 0); /* answered, not hung; MHD decodes GET args itself */
	free(r);
	/* A request line that is not HTTP: answered with an error or dropped, never a crash. */
	r = request(port, "garbage\r\n\r\n");
	CHECK(strncmp(r, "HTTP/1.1 2", 10) != 0);
	free(r);
	/* Still serving after all that. */
	r = request(port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(strncmp(r, "HTTP/1.1 200", 12) == 0);
	free(r);
	gw_http_stop(srv);
}

/* A shared body: sent without a copy, released exactly once per response. */
static const char shared_text[] = "shared bytes, not copied\n";
static int shared_releases;

static void release_shared(void *cls)
{
	__atomic_add_fetch((int *)cls, 1, __ATOMIC_SEQ_CST);
}

static void shared(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	resp->content_type = "text/plain";
	gw_buf_puts(&resp->body, "ignored"); /* the shared bytes win */
	gw_http_reply_shared(resp, shared_text, sizeof(shared_text) - 1, release_shared, &shared_releases);
}

static void test_shared_body(void)
{
	static const struct gw_http_route r[] = {{"/s", GW_HTTP_GET, false, shared, NULL}};
	struct gw_http *srv = NULL;
	struct gw_err err;
	struct gw_http_opts o = {.listen = "127.0.0.1:0", .routes = r, .nroutes = 1};
	CHECK_INT_EQ(gw_http_start(&srv, &o, &err), 0);
	if (!srv)
		return;
	unsigned short port = gw_http_port(srv);
	for (int i = 0; i < 3; i++) {
		char *resp = request(port, "GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
		CHECK(strncmp(resp, "HTTP/1.1 200", 12) == 0);
		CHECK(strstr(resp, "Content-Length: 25\r\n") != NULL);
		CHECK_STR_EQ(body_of(resp), shared_text);
		free(resp);
	}
	/* HEAD: headers only, and the body still released. */
	char *resp = request(port, "HEAD /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(strncmp(resp, "HTTP/1.1 200", 12) == 0);
	CHECK_STR_EQ(body_of(resp), "");
	free(resp);
	gw_http_stop(srv);
	CHECK_INT_EQ(__atomic_load_n(&shared_releases, __ATOMIC_SEQ_CST), 4);
}

static void test_bad_listen(void)
{
	struct gw_http *srv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_http_opts o = {.listen = "127.0.0.1:99999", .routes = routes, .nroutes = 1};
	CHECK_INT_EQ(gw_http_start(&srv, &o, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "99999") != NULL);
	o.listen = "nohost:80";
	CHECK_INT_EQ(gw_http_start(&srv, &o, &err), GW_EINVAL);
}

static void test_form_parser(void)
{
	struct gw_http_arg *args = NULL;
	size_t n = 0;
	const char *s = "a=1&&b=%41+c&empty=&flag";
	CHECK_INT_EQ(gw_http_parse_form(s, strlen(s), &args, &n, 16), 0);
	CHECK_INT_EQ(n, 4);
	if (n == 4) {
		CHECK_STR_EQ(args[1].value, "A c");
		CHECK_STR_EQ(args[2].value, "");
		CHECK_STR_EQ(args[3].name, "flag");
	}
	for (size_t i = 0; i < n; i++) {
		free(args[i].name);
		free(args[i].value);
	}
	free(args);
	args = NULL;
	n = 0;
	CHECK_INT_EQ(gw_http_parse_form("x=%4", 4, &args, &n, 16), GW_EINVAL);
	for (size_t i = 0; i < n; i++) {
		free(args[i].name);
		free(args[i].value);
	}
	free(args);
}

/* Accept-Encoding as RFC 9110 reads it: names in any case, q-values, "*", and q=0 refusing. */
static void test_accepts_coding(void)
{
	CHECK(gw_http_accepts_coding("gzip", "gzip"));
	CHECK(gw_http_accepts_coding("gzip, deflate, br", "gzip")); /* curl --compressed, browsers */
	CHECK(gw_http_accepts_coding("deflate, GZip;q=0.5", "gzip"));
	CHECK(gw_http_accepts_coding("x-gzip", "gzip"));
	CHECK(gw_http_accepts_coding("*", "gzip"));
	CHECK(gw_http_accepts_coding("identity;q=1, *;q=0.1", "gzip"));
	CHECK(gw_http_accepts_coding(" gzip ; q=1.0 ", "gzip"));
	CHECK(!gw_http_accepts_coding(NULL, "gzip"));
	CHECK(!gw_http_accepts_coding("", "gzip"));
	CHECK(!gw_http_accepts_coding("identity", "gzip"));
	CHECK(!gw_http_accepts_coding("gzip;q=0", "gzip"));
	CHECK(!gw_http_accepts_coding("gzip;q=0.000, *", "gzip")); /* refused by name though * takes anything */
	CHECK(!gw_http_accepts_coding("*;q=0", "gzip"));
	CHECK(!gw_http_accepts_coding("gzipx, xgzip", "gzip"));
	CHECK(!gw_http_accepts_coding("gzip;q=2", "gzip")); /* a malformed q-value takes nothing */
	CHECK(!gw_http_accepts_coding("gzip;q=abc", "gzip"));
	CHECK(gw_http_accepts_coding("br, zstd", "zstd"));
	CHECK(!gw_http_accepts_coding("gzip", "zstd"));
}

int main(void)
{
	RUN(test_routes_and_args);
	RUN(test_errors);
	RUN(test_shared_body);
	RUN(test_bad_listen);
	RUN(test_form_parser);
	RUN(test_accepts_coding);
	return harness_done();
}
