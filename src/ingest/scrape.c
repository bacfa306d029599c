/*
 * scrape.c - scrape targets from --scrape and scraped bodies as batches
 * of labelled samples (scrape.h). The sample lines are import_om.c's.
 */
#include "ingest/scrape.h"

#include "ingest/import_om.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_MAX_MS 10000 /* Prometheus' default scrape_timeout */
#define INTERVAL_MIN_MS 100

/* "JOB=" before the URL: a name with no ':' or '/' (so a URL's query string is not one). */
static const char *job_prefix(const char *spec, struct gw_scrape_target *t, struct gw_err *err)
{
	const char *eq = strchr(spec, '=');
	size_t n = eq ? (size_t)(eq - spec) : 0;
	if (!eq || strcspn(spec, ":/") < n) {
		snprintf(t->job, sizeof(t->job), "scrape");
		return spec;
	}
	if (n == 0 || n >= sizeof(t->job)) {
		gw_err_set(err, GW_EINVAL, "the job name before '=' wants 1 to %zu characters",
			   sizeof(t->job) - 1);
		return NULL;
	}
	snprintf(t->job, sizeof(t->job), "%.*s", (int)n, spec);
	return eq + 1;
}

int gw_scrape_target_parse(const char *spec, int64_t default_ms, gw_scrape_dur_fn dur,
			   struct gw_scrape_target *t, struct gw_err *err)
{
	memset(t, 0, sizeof(*t));
	const char *url = job_prefix(spec, t, err);
	if (!url)
		return GW_EINVAL;
	size_t n = strlen(url);
	t->interval_ms = default_ms;
	const char *at = strrchr(url, '@');
	int64_t ms;
	/* an '@' followed by a duration; otherwise it is the URL's user@host */
	if (at && at[1] && dur(at + 1, strlen(at + 1), &ms) == 0) {
		if (ms < INTERVAL_MIN_MS)
			return gw_err_set(err, GW_EINVAL, "the interval after '@' wants %dms or more",
					  INTERVAL_MIN_MS);
		t->interval_ms = ms;
		n = (size_t)(at - url);
	}
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return gw_err_set(err, GW_EINVAL, "wants [JOB=]http://HOST:PORT/PATH[@INTERVAL]");
	if (n >= sizeof(t->url))
		return gw_err_set(err, GW_EINVAL, "URL longer than %zu bytes", sizeof(t->url) - 1);
	snprintf(t->url, sizeof(t->url), "%.*s", (int)n, url);
	if (gw_scrape_instance(t->url, t->instance, sizeof(t->instance)) != 0)
		return gw_err_set(err, GW_EINVAL, "no host in the URL");
	t->timeout_ms = t->interval_ms < TIMEOUT_MAX_MS ? t->interval_ms : TIMEOUT_MAX_MS;
	return 0;
}

int gw_scrape_instance(const char *url, char *buf, size_t len)
{
	const char *p = strstr(url, "://");
	if (!p)
		return GW_EINVAL;
	bool tls = p - url == 5 && strncmp(url, "https", 5) == 0;
	p += 3;
	size_t n = strcspn(p, "/?#");
	const char *user = memchr(p, '@', n);
	while (user) { /* the last '@' of the authority ends the user info */
		n -= (size_t)(user + 1 - p);
		p = user + 1;
		user = memchr(p, '@', n);
	}
	if (n == 0)
		return GW_EINVAL;
	const char *bracket = memchr(p, ']', n); /* [::1]:8002 */
	const char *after = bracket ? bracket + 1 : p;
	bool has_port = memchr(after, ':', n - (size_t)(after - p)) != NULL;
	int w = snprintf(buf, len, "%.*s%s", (int)n, p, has_port ? "" : tls ? ":443" : ":80");
	return w > 0 && (size_t)w < len ? 0 : GW_EINVAL;
}

void gw_scrape_batch_init(struct gw_scrape_batch *b, size_t limit)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
}

void gw_scrape_batch_release(struct gw_scrape_batch *b)
{
	free(b->l);
	free(b->s);
	gw_scrape_batch_init(b, b->limit);
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	if (want <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < want)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return GW_ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* The body's job and instance kept beside the target's, as Prometheus keeps them. */
static const char *rename_label(const char *name)
{
	if (strcmp(name, "job") == 0)
		return "exported_job";
	if (strcmp(name, "instance") == 0)
		return "exported_instance";
	return name;
}

static int add_sample(struct gw_scrape_batch *b, const struct gw_lpair *l, size_t n, double v,
		      const struct gw_scrape_target *t)
{
	if (b->ns == b->limit)
		return GW_EOVERFLOW;
	if (grow((void **)&b->l, &b->capl, b->nl + n + 2, sizeof(*b->l)) ||
	    grow((void **)&b->s, &b->caps, b->ns + 1, sizeof(*b->s)))
		return GW_ENOMEM;
	struct gw_scrape_sample *s = &b->s[b->ns++];
	*s = (struct gw_scrape_sample){.first = b->nl, .v = v};
	for (size_t i = 0; i < n; i++)
		if (i == 0 || l[i].value[0]) /* an empty value is no label, as in Prometheus */
			b->l[b->nl++] =
			    (struct gw_lpair){i ? rename_label(l[i].name) : l[i].name, l[i].value};
	b->l[b->nl++] = (struct gw_lpair){"job", t->job};
	b->l[b->nl++] = (struct gw_lpair){"instance", t->instance};
	s->n = b->nl - s->first;
	return 0;
}

/*
 * Cut the line after its value: a time stamp (ms in the text format, s in
 * OpenMetrics) or an exemplar ("# {trace_id=...} 1") is not stored.
 */
static void cut_after_value(char *line)
{
	char *p = line;
	while (*p && *p != '{' && *p != ' ')
		p++;
	if (*p == '{') {
		bool quoted = false;
		for (p++; *p && (quoted || *p != '}'); p++) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = !quoted;
		}
		if (*p)
			p++;
	}
	while (*p == ' ')
		p++;
	while (*p && *p != ' ')
		p++;
	*p = '\0';
}

static int parse_line(struct gw_scrape_batch *b, char *line, size_t lineno, const struct gw_scrape_target *t,
		      struct gw_err *err)
{
	struct gw_lpair l[GW_SCRAPE_LABELS_MAX + 2];
	size_t n;
	double v;
	bool has_t;
	int64_t ts;
	const char *why = "bad line";
	cut_after_value(line);
	if (gw_import_om_sample(line, l, GW_SCRAPE_LABELS_MAX, &n, &v, &has_t, &ts, &why) != 0)
		return gw_err_set(err, GW_EPARSE, "line %zu: %s", lineno, why);
	int rc = add_sample(b, l, n, v, t);
	if (rc == GW_EOVERFLOW)
		return gw_err_set(err, rc, "more than %zu samples", b->limit);
	return rc ? gw_err_set(err, rc, "out of memory") : 0;
}

int gw_scrape_parse(struct gw_scrape_batch *b, char *body, size_t len, const struct gw_scrape_target *t,
		    struct gw_err *err)
{
	b->nl = b->ns = b->lines = 0;
	body[len] = '\0';
	int rc = 0;
	for (char *line = body, *end = body + len; line < end && rc == 0;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *next = nl ? nl + 1 : end;
		size_t n = (size_t)((nl ? nl : end) - line);
		line[n] = '\0';
		b->lines++;
		if (strlen(line) != n) {
			rc = gw_err_set(err, GW_EPARSE, "line %zu: a NUL byte (not the text format)",
					b->lines);
			break;
		}
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (n && line[0] != '#')
			rc = parse_line(b, line, b->lines, t, err);
		line = next;
	}
	if (rc)
		b->nl = b->ns = 0;
	return rc;
}
