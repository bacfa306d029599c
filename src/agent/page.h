/*
 * page.h - the web page (web/, built in) as the agent and `gpuwatch serve`
 * serve it: the page itself with a banner of the server's choosing in
 * place of its <!--gw:banner--> mark, and its static files, gzip'd when
 * the browser takes gzip.
 * Threading: the handlers only read built-in data; safe on any HTTP thread.
 */
#ifndef GW_AGENT_PAGE_H
#define GW_AGENT_PAGE_H

#include "http/server.h"

/* The page with banner_html (trusted HTML; "" or NULL: none) where its mark is. */
void agent_page_root(struct gw_http_response *resp, const char *banner_html);

/* /static/NAME: the page's script, style and charting library; 404 for anything else. */
void agent_page_static(const struct gw_http_request *req, struct gw_http_response *resp);

#endif
