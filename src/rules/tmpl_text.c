/*
 * tmpl_text.c - the string functions of Prometheus' templates: match and
 * reReplaceAll over PCRE2 (Go's regexp syntax is, for what templates use,
 * a subset of PCRE's; the replacement expands $1, ${1}, $name, ${name}
 * and $$ as Go's Regexp.Expand does), and strings.Title, ToUpper and
 * ToLower with Unicode's simple case mappings for the common scripts.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "rules/tmpl_int.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>

int gw_tmpl__fn_match(struct tcall *c);
int gw_tmpl__fn_re_replace_all(struct tcall *c);
int gw_tmpl__fn_title(struct tcall *c);
int gw_tmpl__fn_to_upper(struct tcall *c);
int gw_tmpl__fn_to_lower(struct tcall *c);

static int ret_buf(struct tcall *c, struct gw_buf *b)
{
	char *s = gw_arena_strndup(c->arena, b->data ? b->data : "", b->len);
	size_t n = b->len;
	gw_buf_release(b);
	if (!s) {
		snprintf(c->msg, sizeof(c->msg), "out of memory");
		return -1;
	}
	c->ret = tv_str(s, n);
	return 0;
}

static pcre2_code *compile(struct tcall *c, const struct tv *re)
{
	return gw_tmpl__regex_compile(re->s.p, re->s.n, c->msg, sizeof(c->msg));
}

/*
 * RE2 matches in linear time; PCRE2 backtracks, exponentially on patterns
 * like (a+)+$. A bound on its work keeps an expansion in milliseconds; past
 * it the pattern reads as not matching.
 */
static pcre2_match_context *bounded(void)
{
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	if (mc)
		pcre2_set_match_limit(mc, 1000000);
	return mc;
}

int gw_tmpl__fn_match(struct tcall *c)
{
	pcre2_code *re = compile(c, &c->args[0]);
	if (!re)
		return -1;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	pcre2_match_context *mc = bounded();
	int rc = md ? pcre2_match(re, (PCRE2_SPTR)c->args[1].s.p, c->args[1].s.n, 0, 0, md, mc) : -1;
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	c->ret = (struct tv){.k = TV_BOOL, .b = rc >= 0};
	return 0;
}

static bool name_char(unsigned char ch)
{
	return ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= 'A' && ch <= 'Z') || ch >= 0x80;
}

/* Append the replacement for one match, expanding $ references. */
static void expand(struct gw_buf *b, pcre2_code *re, const char *tmpl, size_t tn, const char *src,
		   const PCRE2_SIZE *ov, uint32_t novec)
{
	size_t i = 0;
	while (i < tn) {
		const char *dollar = memchr(tmpl + i, '$', tn - i);
		if (!dollar) {
			gw_buf_append(b, tmpl + i, tn - i);
			return;
		}
		size_t d = (size_t)(dollar - tmpl);
		gw_buf_append(b, tmpl + i, d - i);
		i = d + 1;
		if (i < tn && tmpl[i] == '$') {
			gw_buf_putc(b, '$');
			i++;
			continue;
		}
		bool brace = i < tn && tmpl[i] == '{';
		size_t ns = i + brace, ne = ns;
		while (ne < tn && name_char((unsigned char)tmpl[ne]))
			ne++;
		if (ne == ns || (brace && (ne >= tn || tmpl[ne] != '}'))) {
			gw_buf_putc(b, '$'); /* malformed: the $ is text */
			continue;
		}
		i = ne + brace;
		long num = 0;
		for (size_t k = ns; k < ne; k++) {
			if (tmpl[k] < '0' || tmpl[k] > '9' || num >= 100000000) {
				num = -1;
				break;
			}
			num = num * 10 + (tmpl[k] - '0');
		}
		if (tmpl[ns] == '0' && ne - ns > 1)
			num = -1;
		if (num < 0) {
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)(ne - ns), tmpl + ns);
			int g = pcre2_substring_number_from_name(re, (PCRE2_SPTR)name);
			num = g < 0 ? -1 : g;
		}
		if (num >= 0 && (uint32_t)num < novec && ov[2 * num] != PCRE2_UNSET)
			gw_buf_append(b, src + ov[2 * num], ov[2 * num + 1] - ov[2 * num]);
	}
}

static size_t rune_width(const char *s, size_t n, size_t i)
{
	if (i >= n)
		return 0;
	unsigned char ch = (unsigned char)s[i];
	size_t w = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc0 ? 2 : 1;
	return i + w <= n ? w : 1;
}

int gw_tmpl__fn_re_replace_all(struct tcall *c)
{
	pcre2_code *re = compile(c, &c->args[0]);
	if (!re) {
		/* regexp.MustCompile panics; text/template reports the panic's text */
		char inner[sizeof(c->msg)];
		memcpy(inner, c->msg, sizeof(inner));
		struct gw_buf q;
		gw_buf_init(&q, 4096);
		gw_tmpl__quote_back(&q, c->args[0].s.p, c->args[0].s.n > 200 ? 200 : c->args[0].s.n);
		snprintf(c->msg, sizeof(c->msg), "regexp: Compile(%s): %.250s", q.data, inner);
		gw_buf_release(&q);
		return -1;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!md) {
		pcre2_code_free(re);
		snprintf(c->msg, sizeof(c->msg), "out of memory");
		return -1;
	}
	const char *src = c->args[2].s.p, *repl = c->args[1].s.p;
	size_t n = c->args[2].s.n, rn = c->args[1].s.n;
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	size_t search = 0, last_end = 0;
	pcre2_match_context *mc = bounded();
	/* Go's ReplaceAll: no replacement for an empty match right after a match */
	while (search <= n) {
		int rc = pcre2_match(re, (PCRE2_SPTR)src, n, search, 0, md, mc);
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		gw_buf_append(&b, src + last_end, ov[0] - last_end);
		if (ov[1] > last_end || ov[0] == 0)
			expand(&b, re, repl, rn, src, ov, pcre2_get_ovector_count(md));
		last_end = ov[1];
		size_t w = rune_width(src, n, search);
		if (search + w > ov[1])
			search += w;
		else if (search + 1 > ov[1])
			search++;
		else
			search = ov[1];
	}
	gw_buf_append(&b, src + last_end, n - last_end);
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return ret_buf(c, &b);
}

/* The digraphs (DŽ, LJ, NJ, DZ) have an upper, a title and a lower form. */
static uint32_t digraph(uint32_t r, int form)
{
	static const uint32_t first[] = {0x1c4, 0x1c7, 0x1ca, 0x1f1};
	for (size_t i = 0; i < 4; i++)
		if (r >= first[i] && r < first[i] + 3)
			return first[i] + (uint32_t)form;
	return 0;
}

static uint32_t map_case(uint32_t r, bool upper)
{
	uint32_t d = digraph(r, upper ? 0 : 2);
	if (d)
		return d;
	if (r == 0x130 && !upper)
		return 'i';
	if (r == 0x131 && upper)
		return 'I';
	if (upper) {
		if (r >= 'a' && r <= 'z')
			return r - 32;
		if ((r >= 0xe0 && r <= 0xfe && r != 0xf7))
			return r - 32;
		if (r == 0xff)
			return 0x178;
		if (r == 0xb5)
			return 0x39c;
		if (r >= 0x100 && r <= 0x17f && r != 0x130 && r != 0x131 && r != 0x138 && r != 0x149 &&
		    r != 0x17f)
			return ((r >= 0x139 && r <= 0x148) || (r >= 0x179 && r <= 0x17e))
				   ? (r % 2 == 0 ? r - 1 : r)
				   : (r % 2 == 1 ? r - 1 : r);
		if (r >= 0x3b1 && r <= 0x3c9 && r != 0x3c2)
			return r - 32;
		if (r == 0x3c2)
			return 0x3a3;
		if (r >= 0x430 && r <= 0x44f)
			return r - 32;
		if (r >= 0x450 && r <= 0x45f)
			return r - 80;
		return r;
	}
	if (r >= 'A' && r <= 'Z')
		return r + 32;
	if (r >= 0xc0 && r <= 0xde && r != 0xd7)
		return r + 32;
	if (r == 0x178)
		return 0xff;
	if (r >= 0x100 && r <= 0x17f && r != 0x130 && r != 0x131 && r != 0x138 && r != 0x149 && r != 0x17f)
		return ((r >= 0x139 && r <= 0x148) || (r >= 0x179 && r <= 0x17e)) ? (r % 2 == 1 ? r + 1 : r)
										  : (r % 2 == 0 ? r + 1 : r);
	if (r >= 0x391 && r <= 0x3a9 && r != 0x3a2)
		return r + 32;
	if (r >= 0x410 && r <= 0x42f)
		return r + 32;
	if (r >= 0x400 && r <= 0x40f)
		return r + 80;
	return r;
}

static uint32_t next_rune(const char *s, size_t n, size_t *i)
{
	unsigned char ch = (unsigned char)s[*i];
	int len = ch < 0x80 ? 1 : ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc0 ? 2 : 0;
	if (len == 0 || *i + (size_t)len > n) {
		(*i)++;
		return 0xfffd;
	}
	uint32_t r = len == 1 ? ch : (uint32_t)(ch & (0x7f >> len));
	for (int k = 1; k < len; k++) {
		unsigned char cc = (unsigned char)s[*i + (size_t)k];
		if ((cc & 0xc0) != 0x80) {
			(*i)++;
			return 0xfffd;
		}
		r = r << 6 | (cc & 0x3f);
	}
	*i += (size_t)len;
	return r;
}

/* strings.Title's word boundary: ASCII non-alphanumerics and Unicode spaces. */
static bool separator(uint32_t r)
{
	if (r <= 0x7f)
		return !((r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') ||
			 r == '_');
	return r == 0x85 || r == 0xa0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200a) || r == 0x2028 ||
	       r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000;
}

enum casing { C_UPPER, C_LOWER, C_TITLE };

static int map_string(struct tcall *c, enum casing how)
{
	const char *s = c->args[0].s.p;
	size_t n = c->args[0].s.n;
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	uint32_t prev = ' ';
	for (size_t i = 0; i < n;) {
		uint32_t r = next_rune(s, n, &i);
		uint32_t m = r;
		if (how == C_TITLE)
			m = !separator(prev) ? r : digraph(r, 1) ? digraph(r, 1) : map_case(r, true);
		else
			m = map_case(r, how == C_UPPER);
		prev = r;
		gw_tmpl__put_rune(&b, m);
	}
	return ret_buf(c, &b);
}

int gw_tmpl__fn_title(struct tcall *c)
{
	return map_string(c, C_TITLE);
}

int gw_tmpl__fn_to_upper(struct tcall *c)
{
	return map_string(c, C_UPPER);
}

int gw_tmpl__fn_to_lower(struct tcall *c)
{
	return map_string(c, C_LOWER);
}
