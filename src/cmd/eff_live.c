/*
 * eff_live.c - `mfu --agent URL --throughput QUERY`: the run's tokens a
 * second read live from an agent's (or a Prometheus') query API, where a
 * training job pushes them (--web.enable-push, docs/EFFICIENCY.md).
 */
#include "cmd/eff_args.h"

#include "core/buf.h"
#include "http/curl.h"
#include "ui/promresp.h"

#include <stdio.h>
#include <string.h>

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	return gw_buf_append(ctx, data, size * n) == 0 ? size * n : 0;
}

int eff_live_tokens(const char *cmd, const char *url, const char *query, double *tokens_per_s)
{
	struct gw_err err;
	gw_err_clear(&err);
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		fprintf(stderr, "gpuwatch %s: --agent wants http://HOST:PORT, not \"%s\"\n", cmd, url);
		return GW_EXIT_BADARG;
	}
	struct gw_curl c;
	if (gw_curl_open(&c, &err) != 0) {
		fprintf(stderr, "gpuwatch %s: %s\n", cmd, err.msg);
		return GW_EXIT_OTHER;
	}
	CURL *h = c.curl_easy_init();
	char *q = h ? c.curl_easy_escape(h, query, 0) : NULL;
	struct gw_buf full, body;
	gw_buf_init(&full, 16384);
	gw_buf_init(&body, 8 << 20);
	size_t len = strlen(url);
	while (len && url[len - 1] == '/')
		len--;
	int rc = GW_EXIT_OTHER;
	if (!q || gw_buf_printf(&full, "%.*s/api/v1/query?query=%s", (int)len, url, q) != 0) {
		fprintf(stderr, "gpuwatch %s: out of memory\n", cmd);
		goto out;
	}
	c.curl_easy_setopt(h, CURLOPT_URL, full.data);
	c.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	c.curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	c.curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	c.curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	CURLcode cc = c.curl_easy_perform(h);
	long status = 0;
	if (cc == CURLE_OK)
		c.curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK || status != 200) {
		gw_buf_putc(&body, '\0');
		fprintf(stderr, "gpuwatch %s: cannot read the throughput from %.*s: %s%.200s\n", cmd,
			(int)len, url, cc != CURLE_OK ? c.curl_easy_strerror(cc) : "",
			cc != CURLE_OK ? "" : body.data);
		if (status == 400) /* the query itself is bad */
			rc = GW_EXIT_BADARG;
		goto out;
	}
	struct gw_ui_promresp r;
	if (gw_ui_promresp_parse(&r, body.data, body.len, &err) != 0) {
		fprintf(stderr, "gpuwatch %s: the answer of %.*s: %s\n", cmd, (int)len, url, err.msg);
		goto out;
	}
	if (r.matrix || r.nseries != 1 || r.series[0].npts != 1 || !(r.series[0].pts[0].v > 0)) {
		fprintf(stderr,
			"gpuwatch %s: --throughput %s: want one positive value (tokens/s over all --gpus), "
			"got %zu "
			"series%s; wrap it in sum(...)\n",
			cmd, query, r.nseries, r.nseries == 1 ? " that is not positive" : "");
		rc = GW_EXIT_BADARG;
	} else {
		*tokens_per_s = r.series[0].pts[0].v;
		rc = 0;
	}
	gw_ui_promresp_release(&r);
out:
	if (q)
		c.curl_free(q);
	if (h)
		c.curl_easy_cleanup(h);
	gw_buf_release(&full);
	gw_buf_release(&body);
	return rc;
}
