/*
 * import_post.c - samples to a running agent's /api/v1/import (see
 * import_post.h).
 */
#include "cmd/import_post.h"

#include "core/buf.h"
#include "http/curl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A body: well under the agent's 1 MiB request limit, with room for one more line (labels up to 4 KiB). */
#define POST_BYTES ((size_t)512 << 10)
#define LINE_MAX_LABELS 4096

struct gw_import_post {
	struct gw_curl curl;
	char url[1024];
	struct gw_buf body;
	uint64_t stored, refused;
	struct gw_buf answer;
};

int gw_import_post_open(struct gw_import_post **out, const char *url, struct gw_err *err)
{
	*out = NULL;
	size_t len = strlen(url);
	while (len && url[len - 1] == '/')
		len--;
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return gw_err_set(err, GW_EINVAL, "--agent wants the agent's URL, http://HOST:PORT, not \"%s\"", url);
	struct gw_import_post *p = calloc(1, sizeof(*p));
	if (!p)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (snprintf(p->url, sizeof(p->url), "%.*s/api/v1/import", (int)len, url) >= (int)sizeof(p->url)) {
		free(p);
		return gw_err_set(err, GW_EINVAL, "--agent URL too long");
	}
	int rc = gw_curl_open(&p->curl, err);
	if (rc) {
		free(p);
		return rc;
	}
	gw_buf_init(&p->body, POST_BYTES + 2 * LINE_MAX_LABELS);
	gw_buf_init(&p->answer, 64 << 10);
	*out = p;
	return 0;
}

void gw_import_post_close(struct gw_import_post *p)
{
	if (!p)
		return;
	gw_buf_release(&p->body);
	gw_buf_release(&p->answer);
	free(p);
}

/* A label value as the exposition escapes it; 0 or the buffer's error. */
static int escaped(struct gw_buf *b, const char *s)
{
	int rc = 0;
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			rc |= gw_buf_putc(b, '\\');
		rc |= *s == '\n' ? gw_buf_puts(b, "\\n") : gw_buf_putc(b, *s);
	}
	return rc;
}

int gw_import_post_add(struct gw_import_post *p, const struct gw_lpair *l, size_t n, int64_t t_ms, double v)
{
	size_t len = 0;
	const char *name = "";
	for (size_t i = 0; i < n; i++) {
		len += strlen(l[i].name) + strlen(l[i].value) + 4;
		if (strcmp(l[i].name, "__name__") == 0)
			name = l[i].value;
	}
	if (len > LINE_MAX_LABELS)
		return GW_EOVERFLOW;
	struct gw_buf *b = &p->body;
	size_t at = b->len;
	int rc = gw_buf_puts(b, name);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(l[i].name, "__name__") == 0)
			continue;
		rc |= gw_buf_printf(b, "%s%s=\"", shown++ ? "," : "{", l[i].name);
		rc |= escaped(b, l[i].value);
		rc |= gw_buf_putc(b, '"');
	}
	if (shown)
		rc |= gw_buf_putc(b, '}');
	/* %.17g reads back as the same double; the exposition's words for the rest */
	if (isnan(v))
		rc |= gw_buf_puts(b, " NaN");
	else if (isinf(v))
		rc |= gw_buf_puts(b, v > 0 ? " +Inf" : " -Inf");
	else
		rc |= gw_buf_printf(b, " %.17g", v);
	rc |= gw_buf_printf(b, " %lld.%03lld\n", (long long)(t_ms / 1000), (long long)(t_ms % 1000));
	if (rc) {
		b->len = at; /* no half line */
		return GW_ENOMEM;
	}
	return 0;
}

static size_t on_answer(char *data, size_t size, size_t n, void *ctx)
{
	struct gw_import_post *p = ctx;
	gw_buf_append(&p->answer, data, size * n); /* capped: the rest of a long answer is not needed */
	return size * n;
}

/* The number after "key": in the agent's answer, or 0. */
static uint64_t answer_count(const char *a, const char *key)
{
	const char *k = a ? strstr(a, key) : NULL;
	return k ? strtoull(k + strlen(key), NULL, 10) : 0;
}

int gw_import_post_flush(struct gw_import_post *p, bool force, struct gw_err *err)
{
	if (!p->body.len || (!force && p->body.len < POST_BYTES))
		return 0;
	const struct gw_curl *c = &p->curl;
	CURL *h = c->curl_easy_init();
	if (!h)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct curl_slist *hdr = c->curl_slist_append(NULL, "Content-Type: text/plain; version=0.0.4");
	gw_buf_reset(&p->answer);
	c->curl_easy_setopt(h, CURLOPT_URL, p->url);
	c->curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	c->curl_easy_setopt(h, CURLOPT_POSTFIELDS, p->body.data);
	c->curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)p->body.len);
	c->curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_answer);
	c->curl_easy_setopt(h, CURLOPT_WRITEDATA, p);
	c->curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	c->curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
	CURLcode cc = c->curl_easy_perform(h);
	long status = 0;
	if (cc == CURLE_OK)
		c->curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	c->curl_easy_cleanup(h);
	c->curl_slist_free_all(hdr);
	gw_buf_putc(&p->answer, '\0');
	const char *ans = p->answer.data ? p->answer.data : "";
	if (cc != CURLE_OK)
		return gw_err_set(err, GW_EIO, "cannot reach the agent at %s: %s", p->url, c->curl_easy_strerror(cc));
	if (status == 404 || status == 405)
		return gw_err_set(err, GW_ENOTSUP,
				  "the agent at %s takes no imports (HTTP %ld): start it with --web.enable-import", p->url,
				  status);
	if (status == 401)
		return gw_err_set(err, GW_EPERM, "the agent at %s wants a user and password: http://USER:PASS@HOST:PORT",
				  p->url);
	if (status != 200)
		return gw_err_set(err, GW_EIO, "the agent at %s answered HTTP %ld: %.200s", p->url, status, ans);
	p->stored += answer_count(ans, "\"samples\":");
	p->refused += answer_count(ans, "\"refused\":");
	gw_buf_reset(&p->body);
	return 0;
}

void gw_import_post_counts(const struct gw_import_post *p, uint64_t *stored, uint64_t *refused)
{
	*stored = p->stored;
	*refused = p->refused;
}
