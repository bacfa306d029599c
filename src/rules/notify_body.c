/*
 * notify_body.c - the notifier's alert copies and the bytes each sink is
 * sent: Alertmanager's v2 API array, its webhook message, and log lines.
 *
 * JSON is written in the order Go's encoders write it, so a body compares
 * byte for byte with what Prometheus 2.42 and Alertmanager 0.25 send:
 * Prometheus marshals models.PostableAlert, whose generated MarshalJSON
 * writes annotations (omitted when empty), endsAt, startsAt, then the
 * embedded Alert's generatorURL (omitted when empty) and labels; its times
 * are strfmt.DateTime, always with milliseconds. The webhook message is
 * notify/webhook.Message: template.Data's fields, then version, groupKey
 * and truncatedAlerts; its times are time.Time, RFC3339Nano. Go's maps
 * marshal sorted by key, as our label sets are.
 */
#include "rules/notify_int.h"

#include "api/json.h"
#include "core/sort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int pair_cmp(const void *x, const void *y)
{
	return strcmp(((const struct gw_lpair *)x)->name, ((const struct gw_lpair *)y)->name);
}

static bool has_value(const char *v)
{
	return v && *v;
}

/* Copy s to *at and advance it past the NUL. */
static const char *put_str(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = *at;
	memcpy(d, s, n);
	*at += n;
	return d;
}

/* Copy the pairs with a value into p, sorted by name; returns how many. */
static size_t copy_pairs(struct gw_lpair *p, char **at, const struct gw_labels *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (!has_value(l->p[i].value))
			continue; /* an empty value is no label, in Prometheus' model */
		p[n].name = put_str(at, l->p[i].name);
		p[n].value = put_str(at, l->p[i].value);
		n++;
	}
	return n;
}

static size_t pairs_bytes(const struct gw_labels *l)
{
	size_t b = 0;
	for (size_t i = 0; i < l->n; i++)
		b += strlen(l->p[i].name) + strlen(l->p[i].value ? l->p[i].value : "") + 2;
	return b;
}

struct notify_alert *notify_alert_copy(const struct gw_alert_msg *a, const struct gw_labels *external)
{
	const char *gen = a->generator_url ? a->generator_url : "";
	size_t np = a->labels.n + a->annotations.n,
	       bytes = pairs_bytes(&a->labels) + pairs_bytes(&a->annotations);
	bytes += strlen(gen) + 1;
	for (size_t i = 0; i < external->n; i++) {
		if (has_value(gw_labels_get(&a->labels, external->p[i].name)))
			continue;
		np++;
		bytes += strlen(external->p[i].name) + strlen(external->p[i].value) + 2;
	}
	struct notify_alert *q = malloc(sizeof(*q) + np * sizeof(struct gw_lpair) + bytes);
	if (!q)
		return NULL;
	struct gw_lpair *p = (struct gw_lpair *)(q + 1);
	char *at = (char *)(p + np);
	size_t nl = copy_pairs(p, &at, &a->labels);
	for (size_t i = 0; i < external->n; i++) {
		if (has_value(gw_labels_get(&a->labels, external->p[i].name)) ||
		    !has_value(external->p[i].value))
			continue;
		p[nl].name = put_str(&at, external->p[i].name);
		p[nl].value = put_str(&at, external->p[i].value);
		nl++;
	}
	gw_qsort(p, nl, sizeof(*p), pair_cmp);
	size_t na = copy_pairs(p + nl, &at, &a->annotations);
	gw_qsort(p + nl, na, sizeof(*p), pair_cmp);
	q->labels = (struct gw_labels){p, nl};
	q->annotations = (struct gw_labels){p + nl, na};
	q->starts_ms = a->starts_ms;
	q->ends_ms = a->ends_ms;
	q->generator_url = put_str(&at, gen);
	return q;
}

/* Broken-down UTC time of ms and its millisecond fraction; false for the unset time (0). */
static bool utc(int64_t ms, struct tm *tm, int *frac)
{
	if (ms == 0)
		return false;
	int64_t s = ms / 1000, f = ms % 1000;
	if (f < 0) {
		s--;
		f += 1000;
	}
	time_t t = (time_t)s;
	if (!gmtime_r(&t, tm))
		return false;
	*frac = (int)f;
	return true;
}

static size_t put_date(char *out, const struct tm *tm)
{
	return (size_t)snprintf(out, NOTIFY_TIME_MAX, "%04d-%02d-%02dT%02d:%02d:%02d", tm->tm_year + 1900,
				tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec);
}

size_t notify_time_rfc3339nano(char *out, int64_t ms)
{
	struct tm tm;
	int frac;
	if (!utc(ms, &tm, &frac))
		return (size_t)snprintf(out, NOTIFY_TIME_MAX, "0001-01-01T00:00:00Z");
	size_t n = put_date(out, &tm);
	if (frac) {
		int digits = 3;
		for (; frac % 10 == 0; frac /= 10)
			digits--;
		n += (size_t)snprintf(out + n, NOTIFY_TIME_MAX - n, ".%0*d", digits, frac);
	}
	n += (size_t)snprintf(out + n, NOTIFY_TIME_MAX - n, "Z");
	return n;
}

size_t notify_time_millis(char *out, int64_t ms)
{
	struct tm tm;
	int frac;
	if (!utc(ms, &tm, &frac))
		return (size_t)snprintf(out, NOTIFY_TIME_MAX, "0001-01-01T00:00:00.000Z");
	size_t n = put_date(out, &tm);
	n += (size_t)snprintf(out + n, NOTIFY_TIME_MAX - n, ".%03dZ", frac);
	return n;
}

/* FNV-1a, 64 bit, as prometheus/common/model's hashNew / hashAdd. */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL
#define SEPARATOR_BYTE 255

static uint64_t fnv_add(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= FNV_PRIME;
	}
	return h;
}

static uint64_t fnv_byte(uint64_t h, unsigned char c)
{
	h ^= c;
	return h * FNV_PRIME;
}

/* The labels are sorted by name, as labelSetToFingerprint sorts them first. */
uint64_t notify_fingerprint(const struct gw_labels *l)
{
	uint64_t h = FNV_OFFSET;
	for (size_t i = 0; i < l->n; i++) {
		h = fnv_byte(fnv_add(h, l->p[i].name), SEPARATOR_BYTE);
		h = fnv_byte(fnv_add(h, l->p[i].value), SEPARATOR_BYTE);
	}
	return h;
}

static void json_key(struct gw_buf *b, const char *key)
{
	gw_json_str(b, key);
	gw_buf_putc(b, ':');
}

static void json_time(struct gw_buf *b, int64_t ms, size_t (*fmt)(char *, int64_t))
{
	char t[NOTIFY_TIME_MAX];
	fmt(t, ms);
	gw_json_str(b, t);
}

/*
 * The most bytes n alerts can take in any body: every string escaped at
 * worst (JSON's \u00XX is 6 bytes a byte, doubled again by a log line's
 * quoting) plus room for keys, times and punctuation. A body reserves this
 * once, so none of the appends that follow can fail half-way.
 */
static size_t bound(struct notify_alert *const *a, size_t n)
{
	size_t b = 1024;
	for (size_t i = 0; i < n; i++) {
		b += 512 + 12 * strlen(a[i]->generator_url);
		const struct gw_labels *ls[2] = {&a[i]->labels, &a[i]->annotations};
		for (int k = 0; k < 2; k++)
			for (size_t j = 0; j < ls[k]->n; j++)
				b += 16 + 12 * (strlen(ls[k]->p[j].name) + strlen(ls[k]->p[j].value));
	}
	return b;
}

static int start(struct gw_buf *b, struct notify_alert *const *a, size_t n, size_t times)
{
	gw_buf_reset(b);
	return gw_buf_reserve(b, times * bound(a, n));
}

int notify_body_am(struct gw_buf *b, struct notify_alert *const *a, size_t n)
{
	int rc = start(b, a, n, 1);
	if (rc)
		return rc;
	gw_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		const struct notify_alert *x = a[i];
		gw_buf_puts(b, i ? ",{" : "{");
		if (x->annotations.n) {
			json_key(b, "annotations");
			gw_json_labels(b, &x->annotations);
			gw_buf_putc(b, ',');
		}
		json_key(b, "endsAt");
		json_time(b, x->ends_ms, notify_time_millis);
		gw_buf_putc(b, ',');
		json_key(b, "startsAt");
		json_time(b, x->starts_ms, notify_time_millis);
		gw_buf_putc(b, ',');
		if (*x->generator_url) {
			json_key(b, "generatorURL");
			gw_json_str(b, x->generator_url);
			gw_buf_putc(b, ',');
		}
		json_key(b, "labels");
		gw_json_labels(b, &x->labels);
		gw_buf_putc(b, '}');
	}
	gw_buf_putc(b, ']');
	return 0;
}

static bool resolved(const struct notify_alert *a, int64_t now_ms)
{
	return a->ends_ms != 0 && a->ends_ms <= now_ms;
}

/* The pairs of l every alert has with the same value (template.Data's commonLabels). */
static void json_common(struct gw_buf *b, struct notify_alert *const *a, size_t n, bool annotations)
{
	gw_buf_putc(b, '{');
	if (n) {
		const struct gw_labels *first = annotations ? &a[0]->annotations : &a[0]->labels;
		size_t shown = 0;
		for (size_t i = 0; i < first->n; i++) {
			bool common = true;
			for (size_t j = 1; j < n && common; j++) {
				const char *v = gw_labels_get(
				    annotations ? &a[j]->annotations : &a[j]->labels, first->p[i].name);
				common = v && strcmp(v, first->p[i].value) == 0;
			}
			if (!common)
				continue;
			if (shown++)
				gw_buf_putc(b, ',');
			json_key(b, first->p[i].name);
			gw_json_str(b, first->p[i].value);
		}
	}
	gw_buf_putc(b, '}');
}

int notify_body_webhook(struct gw_buf *b, struct notify_alert *const *a, size_t n, int64_t now_ms,
			const char *external_url)
{
	/* twice: the common labels and annotations repeat the first alert's */
	int rc = start(b, a, n, 2);
	if (rc)
		return rc;
	bool firing = false;
	for (size_t i = 0; i < n; i++)
		firing |= !resolved(a[i], now_ms);
	gw_buf_printf(b, "{\"receiver\":\"gpuwatch\",\"status\":\"%s\",\"alerts\":[",
		      firing ? "firing" : "resolved");
	for (size_t i = 0; i < n; i++) {
		const struct notify_alert *x = a[i];
		gw_buf_printf(b, "%s{\"status\":\"%s\",", i ? "," : "",
			      resolved(x, now_ms) ? "resolved" : "firing");
		json_key(b, "labels");
		gw_json_labels(b, &x->labels);
		gw_buf_putc(b, ',');
		json_key(b, "annotations");
		gw_json_labels(b, &x->annotations);
		gw_buf_putc(b, ',');
		json_key(b, "startsAt");
		json_time(b, x->starts_ms, notify_time_rfc3339nano);
		gw_buf_putc(b, ',');
		json_key(b, "endsAt");
		json_time(b, x->ends_ms, notify_time_rfc3339nano);
		gw_buf_putc(b, ',');
		json_key(b, "generatorURL");
		gw_json_str(b, x->generator_url);
		gw_buf_printf(b, ",\"fingerprint\":\"%016" PRIx64 "\"}", notify_fingerprint(&x->labels));
	}
	/* Alertmanager's root route with no group_by: no group labels, key "{}:{}" */
	gw_buf_puts(b, "],\"groupLabels\":{},\"commonLabels\":");
	json_common(b, a, n, false);
	gw_buf_puts(b, ",\"commonAnnotations\":");
	json_common(b, a, n, true);
	gw_buf_puts(b, ",\"externalURL\":");
	gw_json_str(b, external_url ? external_url : "");
	gw_buf_puts(b, ",\"version\":\"4\",\"groupKey\":\"{}:{}\",\"truncatedAlerts\":0}");
	return 0;
}

/* s quoted for a log value: quotes and backslashes escaped, other unprintable bytes as '?'. */
static void log_quoted(struct gw_buf *b, const char *s)
{
	gw_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			gw_buf_putc(b, '\\');
		gw_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	gw_buf_putc(b, '"');
}

/* A label set as Prometheus prints one, {a="1", b="2"}, quoted as one log value. */
static void log_labels(struct gw_buf *b, const struct gw_labels *l, struct gw_buf *t)
{
	gw_buf_reset(t);
	gw_buf_putc(t, '{');
	for (size_t i = 0; i < l->n; i++) {
		gw_buf_printf(t, "%s%s=", i ? ", " : "", l->p[i].name);
		gw_json_str(t, l->p[i].value);
	}
	gw_buf_putc(t, '}');
	log_quoted(b, t->data);
}

int notify_log_line(struct gw_buf *b, const struct notify_alert *a, int64_t now_ms)
{
	struct notify_alert *const one[1] = {(struct notify_alert *)a};
	struct gw_buf lb;
	gw_buf_init(&lb, b->limit);
	int rc = start(b, one, 1, 1);
	if (!rc)
		rc = start(&lb, one, 1, 1);
	if (rc) {
		gw_buf_release(&lb);
		return rc;
	}
	char t[NOTIFY_TIME_MAX];
	gw_buf_printf(b, "msg=\"alert\" status=%s", resolved(a, now_ms) ? "resolved" : "firing");
	const char *name = gw_labels_get(&a->labels, "alertname");
	if (name) {
		gw_buf_puts(b, " alertname=");
		log_quoted(b, name);
	}
	gw_buf_puts(b, " labels=");
	log_labels(b, &a->labels, &lb);
	gw_buf_puts(b, " annotations=");
	log_labels(b, &a->annotations, &lb);
	gw_buf_release(&lb);
	notify_time_rfc3339nano(t, a->starts_ms);
	gw_buf_printf(b, " starts_at=%s", t);
	notify_time_rfc3339nano(t, a->ends_ms);
	gw_buf_printf(b, " ends_at=%s", t);
	if (*a->generator_url) {
		gw_buf_puts(b, " generator_url=");
		log_quoted(b, a->generator_url);
	}
	return 0;
}
