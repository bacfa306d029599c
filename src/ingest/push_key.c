/*
 * push_key.c - Pushgateway grouping keys from request paths (push.h):
 * /metrics/job/NAME{/LABEL/VALUE}, values in RFC 4648 base64url after a
 * name ending "@base64" (a value with a slash, or "=" for empty).
 */
#include "ingest/push.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static bool label_name_ok(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	if (n >= 2 && s[0] == '_' && s[1] == '_')
		return false; /* reserved for Prometheus' own */
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* RFC 4648 section 5 (URL-safe) base64, padding optional; -1 when not base64. */
static int b64url_decode(const char *s, size_t n, char *out, size_t cap)
{
	size_t w = 0;
	unsigned int acc = 0, bits = 0;
	while (n && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int c = s[i], v = c >= 'A' && c <= 'Z'	 ? c - 'A'
				  : c >= 'a' && c <= 'z' ? c - 'a' + 26
				  : c >= '0' && c <= '9' ? c - '0' + 52
				  : c == '-' || c == '+' ? 62
				  : c == '_' || c == '/' ? 63
							 : -1;
		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (w + 1 >= cap)
				return -1;
			out[w++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[w] = '\0';
	return (int)w;
}

int gw_push_key_parse(const char *path, struct gw_push_key *k, struct gw_err *err)
{
	static const char prefix[] = "/metrics/";
	memset(k, 0, sizeof(*k));
	if (strncmp(path, prefix, sizeof(prefix) - 1) != 0)
		return gw_err_set(err, GW_EINVAL, "push paths are /metrics/job/NAME{/LABEL/VALUE}");
	const char *p = path + sizeof(prefix) - 1;
	size_t used = 0;
	while (*p) {
		const char *ne = strchr(p, '/');
		if (!ne)
			return gw_err_set(err, GW_EINVAL, "label %.64s has no value", p);
		const char *ve = strchr(ne + 1, '/');
		if (!ve)
			ve = ne + strlen(ne);
		size_t nl = (size_t)(ne - p), vl = (size_t)(ve - ne - 1);
		bool b64 = nl > 7 && memcmp(p + nl - 7, "@base64", 7) == 0;
		if (b64)
			nl -= 7;
		if (!label_name_ok(p, nl))
			return gw_err_set(err, GW_EINVAL, "bad label name %.*s in the grouping key",
					  (int)(nl > 64 ? 64 : nl), p);
		if (k->n == GW_PUSH_KEY_MAX || used + nl + vl + 2 > sizeof(k->buf))
			return gw_err_set(err, GW_EOVERFLOW, "grouping key too long");
		char *name = k->buf + used;
		memcpy(name, p, nl);
		name[nl] = '\0';
		used += nl + 1;
		char *val = k->buf + used;
		int dl;
		if (b64) {
			dl = b64url_decode(ne + 1, vl, val, sizeof(k->buf) - used);
			if (dl < 0 || memchr(val, '\0', (size_t)dl))
				return gw_err_set(err, GW_EINVAL, "label %s: value is not base64url", name);
		} else {
			memcpy(val, ne + 1, vl);
			val[vl] = '\0';
			dl = (int)vl;
		}
		used += (size_t)dl + 1;
		if (k->n == 0 && strcmp(name, "job") != 0)
			return gw_err_set(err, GW_EINVAL,
					  "the grouping key starts with job: /metrics/job/NAME");
		if (k->n == 0 && dl == 0)
			return gw_err_set(err, GW_EINVAL, "job name is empty");
		for (size_t i = 0; i < k->n; i++)
			if (strcmp(k->l[i].name, name) == 0)
				return gw_err_set(err, GW_EINVAL, "label %s twice in the grouping key", name);
		k->l[k->n++] = (struct gw_lpair){name, val};
		p = *ve ? ve + 1 : ve;
	}
	if (k->n == 0)
		return gw_err_set(err, GW_EINVAL, "push paths are /metrics/job/NAME{/LABEL/VALUE}");
	return 0;
}
