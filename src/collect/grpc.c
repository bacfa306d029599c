#include "collect/grpc.h"

#include "core/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

void gw_grpc_frame_header(uint8_t hdr[GW_GRPC_FRAME_HDR], size_t len)
{
	hdr[0] = 0; /* not compressed */
	hdr[1] = (uint8_t)(len >> 24);
	hdr[2] = (uint8_t)(len >> 16);
	hdr[3] = (uint8_t)(len >> 8);
	hdr[4] = (uint8_t)len;
}

int gw_grpc_unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *msg_len)
{
	if (len < GW_GRPC_FRAME_HDR)
		return GW_EPARSE;
	if (body[0] & 1)
		return GW_ENOTSUP;
	if (body[0] != 0)
		return GW_EPARSE;
	size_t n = (size_t)body[1] << 24 | (size_t)body[2] << 16 | (size_t)body[3] << 8 | body[4];
	if (n != len - GW_GRPC_FRAME_HDR)
		return GW_EPARSE; /* cut short, or a second message a unary call never has */
	*msg = body + GW_GRPC_FRAME_HDR;
	*msg_len = n;
	return 0;
}

/* One call's state, shared with nghttp2's callbacks. */
struct call {
	int fd;
	int32_t stream;
	const uint8_t *out; /* the framed request still to send */
	size_t out_len, out_off;
	struct gw_buf body; /* DATA of our stream, capped */
	bool overflow;
	int http_status; /* :status; 0 until seen */
	int grpc_status; /* -1 until seen */
	char grpc_message[160];
	bool closed;	   /* our stream ended */
	uint32_t rst_code; /* its RST_STREAM code, 0 for a clean end */
	bool eof;	   /* the server closed the connection */
	int io_errno;
};

static ssize_t on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *ud)
{
	struct call *c = ud;
	ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return NGHTTP2_ERR_WOULDBLOCK;
	c->io_errno = errno;
	return NGHTTP2_ERR_CALLBACK_FAILURE;
}

static ssize_t read_request(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len, uint32_t *flags,
			    nghttp2_data_source *src, void *ud)
{
	struct call *c = ud;
	size_t n = c->out_len - c->out_off;
	if (n > len)
		n = len;
	memcpy(buf, c->out + c->out_off, n);
	c->out_off += n;
	if (c->out_off == c->out_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static bool is(const uint8_t *a, size_t n, const char *b)
{
	return n == strlen(b) && memcmp(a, b, n) == 0;
}

/* Headers and trailers alike: the status line, grpc-status and grpc-message. */
static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
		     const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	struct call *c = ud;
	if (f->hd.type != NGHTTP2_HEADERS || f->hd.stream_id != c->stream)
		return 0;
	char v[160];
	snprintf(v, sizeof(v), "%.*s", (int)(vlen < sizeof(v) ? vlen : sizeof(v) - 1), (const char *)value);
	if (is(name, nlen, ":status"))
		c->http_status = atoi(v);
	else if (is(name, nlen, "grpc-status"))
		c->grpc_status = atoi(v);
	else if (is(name, nlen, "grpc-message"))
		snprintf(c->grpc_message, sizeof(c->grpc_message), "%s", v);
	return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data, size_t len,
		   void *ud)
{
	struct call *c = ud;
	if (stream != c->stream || c->overflow)
		return 0;
	if (gw_buf_append(&c->body, data, len) != 0)
		c->overflow = true;
	return 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t code, void *ud)
{
	struct call *c = ud;
	if (stream == c->stream) {
		c->closed = true;
		c->rst_code = code;
	}
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int dial(const char *sock, int *fd_out, struct gw_err *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(sock) >= sizeof(a.sun_path))
		return gw_err_set(err, GW_EINVAL, "socket path too long: %s", sock);
	memcpy(a.sun_path, sock, strlen(sock) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return gw_err_set(err, GW_EIO, "socket: %s", strerror(errno));
	/* A unix socket connects at once or fails; EAGAIN means a full backlog. */
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		int e = errno;
		close(fd);
		int code = e == ENOENT ? GW_ENOTFOUND : e == EACCES || e == EPERM ? GW_EPERM : GW_EIO;
		return gw_err_set(err, code, "connect %s: %s", sock, strerror(e));
	}
	*fd_out = fd;
	return 0;
}

/* Run the session until our stream closes, the deadline passes or the connection fails. */
static int pump(nghttp2_session *s, struct call *c, int64_t deadline, struct gw_err *err)
{
	uint8_t buf[16384];
	while (!c->closed) {
		int rv = nghttp2_session_send(s);
		if (rv != 0)
			return gw_err_set(err, GW_EIO, "send: %s",
					  c->io_errno ? strerror(c->io_errno) : nghttp2_strerror(rv));
		if (c->eof)
			return gw_err_set(err, GW_EIO, "the server closed the connection before answering");
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return gw_err_set(err, GW_ETIMEOUT, "no answer within the timeout");
		struct pollfd p = {.fd = c->fd,
				   .events = POLLIN | (nghttp2_session_want_write(s) ? POLLOUT : 0)};
		int n = poll(&p, 1, (int)left);
		if (n < 0 && errno != EINTR)
			return gw_err_set(err, GW_EIO, "poll: %s", strerror(errno));
		if (n <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t r = recv(c->fd, buf, sizeof(buf), 0);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r < 0)
			return gw_err_set(err, GW_EIO, "recv: %s", strerror(errno));
		if (r == 0) {
			c->eof = true;
			continue;
		}
		ssize_t used = nghttp2_session_mem_recv(s, buf, (size_t)r);
		if (used < 0)
			return gw_err_set(err, GW_EIO, "HTTP/2: %s", nghttp2_strerror((int)used));
	}
	return 0;
}

/* What the stream's end says: 0 when HTTP and gRPC both said OK. */
static int outcome(const struct call *c, const char *path, struct gw_err *err)
{
	if (c->overflow)
		return gw_err_set(err, GW_EOVERFLOW, "%s: reply over the size cap", path);
	if (c->rst_code)
		return gw_err_set(err, GW_EIO, "%s: stream reset (%s)", path,
				  nghttp2_http2_strerror(c->rst_code));
	if (c->http_status != 200)
		return gw_err_set(err, GW_EIO, "%s: HTTP status %d", path, c->http_status);
	if (c->grpc_status < 0)
		return gw_err_set(err, GW_EIO, "%s: no grpc-status in the reply", path);
	if (c->grpc_status != 0)
		return gw_err_set(err, GW_EIO, "%s: grpc-status %d%s%s", path, c->grpc_status,
				  c->grpc_message[0] ? ": " : "", c->grpc_message);
	return 0;
}

static int start(nghttp2_session **s, struct call *c, const char *path, struct gw_err *err)
{
	nghttp2_session_callbacks *cb;
	if (nghttp2_session_callbacks_new(&cb) != 0)
		return gw_err_set(err, GW_ENOMEM, "nghttp2 callbacks");
	nghttp2_session_callbacks_set_send_callback(cb, on_send);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
	int rv = nghttp2_session_client_new(s, cb, c);
	nghttp2_session_callbacks_del(cb);
	if (rv != 0)
		return gw_err_set(err, GW_ENOMEM, "nghttp2 session");
#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}
	nghttp2_nv hdrs[] = {
	    NV(":method", "POST"),
	    NV(":scheme", "http"),
	    NV(":path", path),
	    NV(":authority", "localhost"),
	    NV("content-type", "application/grpc"),
	    NV("te", "trailers"),
	    NV("user-agent", "gpuwatch"),
	};
#undef NV
	nghttp2_data_provider prd = {.read_callback = read_request};
	nghttp2_submit_settings(*s, NGHTTP2_FLAG_NONE, NULL, 0);
	c->stream = nghttp2_submit_request(*s, NULL, hdrs, sizeof(hdrs) / sizeof(hdrs[0]), &prd, c);
	if (c->stream < 0)
		return gw_err_set(err, GW_EIO, "submit %s: %s", path, nghttp2_strerror(c->stream));
	return 0;
}

int gw_grpc_call_unix(const char *sock, const char *path, const uint8_t *req, size_t req_len, int timeout_ms,
		      size_t max_reply, uint8_t **reply, size_t *reply_len, struct gw_err *err)
{
	*reply = NULL;
	*reply_len = 0;
	int64_t deadline = mono_ms() + timeout_ms;
	uint8_t *framed = malloc(req_len + GW_GRPC_FRAME_HDR);
	if (!framed)
		return gw_err_set(err, GW_ENOMEM, "request");
	gw_grpc_frame_header(framed, req_len);
	if (req_len)
		memcpy(framed + GW_GRPC_FRAME_HDR, req, req_len);
	struct call c = {.fd = -1, .out = framed, .out_len = req_len + GW_GRPC_FRAME_HDR, .grpc_status = -1};
	gw_buf_init(&c.body, max_reply + GW_GRPC_FRAME_HDR);
	nghttp2_session *s = NULL;
	int rc = dial(sock, &c.fd, err);
	if (!rc)
		rc = start(&s, &c, path, err);
	if (!rc)
		rc = pump(s, &c, deadline, err);
	if (!rc)
		rc = outcome(&c, path, err);
	const uint8_t *msg = NULL;
	size_t n = 0;
	if (!rc && c.body.len == 0) {
		rc = gw_err_set(err, GW_EPARSE, "%s: grpc-status 0 without a message", path);
	} else if (!rc && (rc = gw_grpc_unframe((const uint8_t *)c.body.data, c.body.len, &msg, &n)) != 0) {
		gw_err_set(err, rc, "%s: %s", path,
			   rc == GW_ENOTSUP ? "compressed reply (none was asked for)"
					    : "reply not one gRPC message");
	}
	if (!rc) {
		*reply = malloc(n ? n : 1);
		if (!*reply)
			rc = gw_err_set(err, GW_ENOMEM, "reply");
		else {
			memcpy(*reply, msg, n);
			*reply_len = n;
		}
	}
	if (s)
		nghttp2_session_del(s);
	if (c.fd >= 0)
		close(c.fd);
	gw_buf_release(&c.body);
	free(framed);
	return rc;
}
