/*
 * tmpl_regex.c - Go's regexp (RE2) syntax over PCRE2. A pattern is read
 * as Go reads it: what RE2 refuses (lookaround, backreferences, possessive
 * or stacked repetitions, bad repeat counts and class ranges) is refused
 * with Go's message, and what the two read differently is rewritten for
 * PCRE2 (\s without the vertical tab, \v as that tab, octal escapes, $ at
 * the very end only, repeated group names).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "rules/tmpl_int.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>

struct rx {
	const char *s;
	size_t n, i;
	struct gw_buf *out;
	char *msg;
	size_t cap;
};

static int rx_fail(struct rx *r, const char *code, const char *at, size_t len)
{
	snprintf(r->msg, r->cap, "error parsing regexp: %s: `%.*s`", code, (int)(len > 200 ? 200 : len), at);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* One escape at r->i (the backslash); inside a class when in_class. */
static int rx_escape(struct rx *r, bool in_class)
{
	const char *s = r->s;
	size_t i = r->i;
	if (i + 1 >= r->n)
		return rx_fail(r, "trailing backslash at end of expression", "", 0);
	char c = s[i + 1];
	if (c >= '1' && c <= '7' && !(i + 2 < r->n && s[i + 2] >= '0' && s[i + 2] <= '7'))
		return rx_fail(r, "invalid escape sequence", s + i, 2);
	if (c >= '0' && c <= '7') {
		unsigned v = 0;
		size_t j = i + 1;
		for (int k = 0; k < 3 && j < r->n && s[j] >= '0' && s[j] <= '7'; k++, j++)
			v = v * 8 + (unsigned)(s[j] - '0');
		gw_buf_printf(r->out, "\\x{%x}", v);
		r->i = j;
		return 0;
	}
	if (c == 's' || c == 'S') {
		/* Go's \s is [\t\n\f\r ]: no vertical tab */
		gw_buf_puts(r->out, in_class ? (c == 's' ? "\\t\\n\\f\\r "
							 : "\\x00-\\x08\\x0b\\x0e-\\x1f\\x21-\\x{10ffff}")
					     : (c == 's' ? "[\\t\\n\\f\\r ]" : "[^\\t\\n\\f\\r ]"));
		r->i = i + 2;
		return 0;
	}
	if (c == 'v') {
		gw_buf_puts(r->out, "\\x0b");
		r->i = i + 2;
		return 0;
	}
	if (c == 'Q') {
		const char *e = NULL;
		for (size_t j = i + 2; j + 1 < r->n; j++)
			if (s[j] == '\\' && s[j + 1] == 'E') {
				e = s + j;
				break;
			}
		size_t end = e ? (size_t)(e - s) + 2 : r->n;
		gw_buf_append(r->out, s + i, end - i);
		if (!e)
			gw_buf_puts(r->out, "\\E");
		r->i = end;
		return 0;
	}
	bool alnum = is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	if (alnum && !strchr(in_class ? "aftnrxdDwWpP" : "aftnrxdDwWpPAzbB", c))
		return rx_fail(r, "invalid escape sequence", s + i, 2);
	if (c == 'p' || c == 'P') {
		size_t j = i + 2;
		if (j < r->n && s[j] == '{') {
			while (j < r->n && s[j] != '}')
				j++;
			if (j >= r->n)
				return rx_fail(r, "invalid character class range", s + i, r->n - i);
		}
		gw_buf_append(r->out, s + i, j + 1 - i);
		r->i = j + 1;
		return 0;
	}
	if (c == 'x') {
		size_t j = i + 2;
		if (j < r->n && s[j] == '{') {
			while (j < r->n && s[j] != '}')
				j++;
		} else {
			j += 1;
		}
		if (j >= r->n)
			return rx_fail(r, "invalid escape sequence", s + i, r->n - i);
		gw_buf_append(r->out, s + i, j + 1 - i);
		r->i = j + 1;
		return 0;
	}
	if (!in_class && strchr("AzbB", c))
		gw_buf_printf(r->out, "(?:\\%c)", c);
	else
		gw_buf_append(r->out, s + i, 2);
	r->i = i + 2;
	return 0;
}

/* A bracketed class at r->i: ranges must ascend, the ] must come. */
static int rx_class(struct rx *r)
{
	const char *s = r->s;
	size_t start = r->i, i = r->i + 1;
	gw_buf_putc(r->out, '[');
	if (i < r->n && s[i] == '^')
		gw_buf_putc(r->out, s[i++]);
	bool first = true;
	while (i < r->n && (s[i] != ']' || first)) {
		first = false;
		if (s[i] == '[' && i + 1 < r->n && s[i + 1] == ':') {
			const char *e = strstr(s + i + 2, ":]");
			if (e && (size_t)(e - s) < r->n) {
				size_t end = (size_t)(e - s) + 2;
				gw_buf_append(r->out, s + i, end - i);
				i = end;
				continue;
			}
		}
		size_t lo_at = i;
		size_t w;
		uint32_t lo, hi;
		if (s[i] == '\\') {
			r->i = i;
			if (rx_escape(r, true) < 0)
				return -1;
			i = r->i;
			continue;
		}
		lo = gw_tmpl__rune(s + i, r->n - i, &w);
		gw_buf_append(r->out, s + i, w);
		i += w;
		if (i + 1 < r->n && s[i] == '-' && s[i + 1] != ']') {
			size_t hw;
			hi = s[i + 1] == '\\' && i + 2 < r->n ? (uint32_t)(unsigned char)s[i + 2]
							      : gw_tmpl__rune(s + i + 1, r->n - i - 1, &hw);
			if (hi < lo) {
				size_t end = s[i + 1] == '\\' ? i + 3 : i + 1 + hw;
				return rx_fail(r, "invalid character class range", s + lo_at, end - lo_at);
			}
			gw_buf_putc(r->out, '-');
			i++;
		}
	}
	if (i >= r->n)
		return rx_fail(r, "missing closing ]", s + start, r->n - start);
	gw_buf_putc(r->out, ']');
	r->i = i + 1;
	return 0;
}

/* A {n}, {n,} or {n,m} repeat at i: its length, or 0 where the brace is a literal. */
static size_t repeat_len(const char *s, size_t n, size_t i, int *lo, int *hi)
{
	size_t j = i + 1, k;
	*lo = *hi = 0;
	for (k = j; k < n && is_digit(s[k]); k++)
		*lo = *lo < 100000 ? *lo * 10 + (s[k] - '0') : *lo;
	if (k == j)
		return 0;
	*hi = *lo;
	if (k < n && s[k] == ',') {
		size_t m = ++k;
		*hi = -1;
		for (; k < n && is_digit(s[k]); k++)
			*hi = (*hi < 0 ? 0 : *hi < 100000 ? *hi * 10 : *hi) + (s[k] - '0');
		(void)m;
	}
	if (k >= n || s[k] != '}')
		return 0;
	return k + 1 - i;
}

enum { ST_NONE, ST_ATOM, ST_REPEAT };

static int rx_translate(struct rx *r)
{
	const char *s = r->s;
	int state = ST_NONE, depth = 0;
	size_t last_repeat = 0;
	while (r->i < r->n) {
		size_t i = r->i;
		char c = s[i];
		if (c == '*' || c == '+' || c == '?' || c == '{') {
			int lo = 0, hi = 0;
			size_t len = c == '{' ? repeat_len(s, r->n, i, &lo, &hi) : 1;
			if (len == 0) {
				gw_buf_puts(r->out, "\\{");
				r->i++;
				state = ST_ATOM;
				continue;
			}
			size_t end = i + len;
			if (end < r->n && s[end] == '?')
				end++;
			if (state == ST_REPEAT)
				return rx_fail(r, "invalid nested repetition operator", s + last_repeat,
					       end - last_repeat);
			if (state == ST_NONE)
				return rx_fail(r, "missing argument to repetition operator", s + i, end - i);
			if (c == '{' && (lo > 1000 || hi > 1000 || (hi >= 0 && hi < lo)))
				return rx_fail(r, "invalid repeat count", s + i, len);
			gw_buf_append(r->out, s + i, end - i);
			last_repeat = i;
			state = ST_REPEAT;
			r->i = end;
			continue;
		}
		state = ST_ATOM;
		if (c == '\\') {
			if (rx_escape(r, false) < 0)
				return -1;
			continue;
		}
		if (c == '[') {
			if (rx_class(r) < 0)
				return -1;
			continue;
		}
		if (c == '(') {
			depth++;
			state = ST_NONE;
			if (i + 1 < r->n && s[i + 1] == '?') {
				size_t j = i + 2;
				if (j + 1 < r->n && s[j] == 'P' && s[j + 1] == '<') {
					gw_buf_append(r->out, s + i, 4);
					r->i = i + 4;
					continue;
				}
				while (j < r->n && strchr("imsU-", s[j]))
					j++;
				if (j >= r->n || (s[j] != ')' && s[j] != ':')) {
					size_t w = 1;
					if (j < r->n)
						gw_tmpl__rune(s + j, r->n - j, &w);
					return rx_fail(r, "invalid or unsupported Perl syntax", s + i,
						       j < r->n && j == i + 2 ? 2 + w : j - i);
				}
				if (s[j] == ')') {
					depth--;
					state = ST_NONE;
				}
				gw_buf_append(r->out, s + i, j + 1 - i);
				r->i = j + 1;
				continue;
			}
		} else if (c == ')') {
			if (--depth < 0)
				return rx_fail(r, "unexpected )", s, r->n);
		} else if (c == '|') {
			state = ST_NONE;
		}
		if (c == '^' || c == '$') /* Go lets an assertion be repeated; PCRE2 a group of one */
			gw_buf_printf(r->out, "(?:%c)", c);
		else
			gw_buf_putc(r->out, c);
		r->i++;
	}
	if (depth > 0)
		return rx_fail(r, "missing closing )", s, r->n);
	return 0;
}

/* The first \p{Name} PCRE2 does not know, reported as Go reports it. */
static bool find_bad_property(const char *pat, size_t n, char *msg, size_t cap)
{
	for (size_t i = 0; i + 2 < n; i++) {
		if (pat[i] == '\\' && (pat[i + 1] == 'p' || pat[i + 1] == 'P')) {
			size_t end = i + 3;
			if (pat[i + 2] == '{') {
				const char *close = memchr(pat + i, '}', n - i);
				end = close ? (size_t)(close - pat) + 1 : n;
			}
			int code;
			PCRE2_SIZE off;
			pcre2_code *one =
			    pcre2_compile((PCRE2_SPTR)(pat + i), end - i, PCRE2_UTF, &code, &off, NULL);
			if (!one) {
				snprintf(msg, cap,
					 "error parsing regexp: invalid character class range: `%.*s`",
					 (int)(end - i > 100 ? 100 : end - i), pat + i);
				return true;
			}
			pcre2_code_free(one);
			i = end - 1;
		} else if (pat[i] == '\\') {
			i++;
		}
	}
	return false;
}

void *gw_tmpl__regex_compile(const char *pat, size_t n, char *msg, size_t cap)
{
	struct gw_buf out;
	gw_buf_init(&out, (size_t)1 << 20);
	struct rx r = {.s = pat, .n = n, .out = &out, .msg = msg, .cap = cap};
	if (rx_translate(&r) < 0) {
		gw_buf_release(&out);
		return NULL;
	}
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile(
	    (PCRE2_SPTR)(out.data ? out.data : ""), out.len,
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_DUPNAMES, &code, &off, NULL);
	gw_buf_release(&out);
	if (!re && find_bad_property(pat, n, msg, cap))
		return NULL;
	if (!re) {
		PCRE2_UCHAR m[160];
		pcre2_get_error_message(code, m, sizeof(m));
		snprintf(msg, cap, "error parsing regexp: %.100s: `%.*s`", (const char *)m,
			 (int)(n > 200 ? 200 : n), pat);
	}
	return re;
}
