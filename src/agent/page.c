/*
 * page.c - the built-in web page as the agent and serve send it (see page.h).
 */
#include "agent/page.h"

#include "web/assets.h"

#include <string.h>

/* Built-in files live as long as the program: nothing to release after sending one. */
static void keep(void *cls)
{
	(void)cls;
}

void agent_page_root(struct gw_http_response *resp, const char *banner_html)
{
	const struct gw_asset *page = gw_web_asset("/");
	static const char mark[] = "<!--gw:banner-->";
	const char *text = (const char *)page->data;
	const char *at = strstr(text, mark);
	resp->content_type = page->content_type;
	if (!at || !banner_html || !*banner_html) {
		gw_http_reply_shared(resp, text, page->len, keep, NULL);
		return;
	}
	gw_buf_append(&resp->body, text, (size_t)(at - text));
	gw_buf_puts(&resp->body, banner_html);
	gw_buf_puts(&resp->body, at + sizeof(mark) - 1);
}

void agent_page_static(const struct gw_http_request *req, struct gw_http_response *resp)
{
	const struct gw_asset *f = gw_web_asset(req->path);
	if (!f || !strcmp(req->path, "/")) {
		gw_http_reply_text(resp, 404, "404 page not found\n");
		return;
	}
	resp->content_type = f->content_type;
	gw_http_add_header(resp, "Cache-Control", "max-age=300");
	gw_http_add_header(resp, "Vary", "Accept-Encoding");
	if (f->gz && gw_http_accepts_coding(gw_http_header(req, "Accept-Encoding"), "gzip")) {
		gw_http_add_header(resp, "Content-Encoding", "gzip");
		gw_http_reply_shared(resp, (const char *)f->gz, f->gz_len, keep, NULL);
		return;
	}
	gw_http_reply_shared(resp, (const char *)f->data, f->len, keep, NULL);
}
