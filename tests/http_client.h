/*
 * http_client.h - a minimal blocking HTTP/1.1 client for tests on loopback:
 * send a raw request, read the whole response (Connection: close).
 */
#ifndef GW_TEST_HTTP_CLIENT_H
#define GW_TEST_HTTP_CLIENT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static inline char *http_roundtrip(unsigned short port, const char *raw, size_t len)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return strdup("");
	}
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, raw + off, len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(fd, SHUT_WR);
	size_t cap = 1 << 20, got = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;
	while (got < cap && (n = read(fd, buf + got, cap - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
	return buf;
}

/* GET path; returns the whole response. */
static inline char *http_get(unsigned short port, const char *path)
{
	char req[8192];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", path);
	return http_roundtrip(port, req, (size_t)n);
}

/* POST a form body (of any size) to path. */
static inline char *http_post_form(unsigned short port, const char *path, const char *body)
{
	size_t blen = strlen(body), cap = strlen(path) + blen + 256;
	char *req = malloc(cap);
	if (!req)
		return NULL;
	int n = snprintf(req, cap,
			 "POST %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
			 "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %zu\r\n\r\n%s",
			 path, blen, body);
	char *r = http_roundtrip(port, req, (size_t)n);
	free(req);
	return r;
}

static inline int http_status(const char *resp)
{
	return strncmp(resp, "HTTP/1.1 ", 9) == 0 ? atoi(resp + 9) : -1;
}

static inline const char *http_body(const char *resp)
{
	const char *p = strstr(resp, "\r\n\r\n");
	return p ? p + 4 : "";
}

#endif
