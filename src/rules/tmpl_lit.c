/*
 * tmpl_lit.c - Go's strconv as templates need it: Unquote for string and
 * character literals, the numbers the parser accepts (ints, floats, hex,
 * underscores, 'c'), and Quote for %q and error messages.
 */
#include "rules/tmpl_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_utf8(char *o, size_t *k, uint32_t r)
{
	if (r > 0x10ffff || (r >= 0xd800 && r < 0xe000))
		r = 0xfffd;
	if (r < 0x80) {
		o[(*k)++] = (char)r;
	} else if (r < 0x800) {
		o[(*k)++] = (char)(0xc0 | r >> 6);
		o[(*k)++] = (char)(0x80 | (r & 0x3f));
	} else if (r < 0x10000) {
		o[(*k)++] = (char)(0xe0 | r >> 12);
		o[(*k)++] = (char)(0x80 | ((r >> 6) & 0x3f));
		o[(*k)++] = (char)(0x80 | (r & 0x3f));
	} else {
		o[(*k)++] = (char)(0xf0 | r >> 18);
		o[(*k)++] = (char)(0x80 | ((r >> 12) & 0x3f));
		o[(*k)++] = (char)(0x80 | ((r >> 6) & 0x3f));
		o[(*k)++] = (char)(0x80 | (r & 0x3f));
	}
}

/* strconv.Unquote of a "..." or '...' literal; -1 on Go's "invalid syntax". */
int gw_tmpl__unquote(const char *s, size_t n, char quote, char *o, size_t *outlen)
{
	size_t k = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		if (s[i] != '\\') {
			if (s[i] == quote)
				return -1;
			o[k++] = s[i];
			continue;
		}
		char c = s[++i];
		const char *simple = "abfnrtv\\";
		const char *vals = "\a\b\f\n\r\t\v\\";
		const char *hit = c ? strchr(simple, c) : NULL;
		if (hit) {
			o[k++] = vals[hit - simple];
		} else if (c == quote) {
			o[k++] = c;
		} else if (c == 'x' || c == 'u' || c == 'U') {
			int digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
			uint32_t r = 0;
			for (int j = 0; j < digits; j++) {
				int h = i + 1 < n - 1 ? hexval(s[++i]) : -1;
				if (h < 0)
					return -1;
				r = r << 4 | (uint32_t)h;
			}
			if (c == 'x')
				o[k++] = (char)r;
			else if (r > 0x10ffff || (r >= 0xd800 && r < 0xe000))
				return -1;
			else
				put_utf8(o, &k, r);
		} else if (c >= '0' && c <= '7') {
			uint32_t r = 0;
			for (int j = 0; j < 3; j++, i++) {
				if (i >= n - 1 || s[i] < '0' || s[i] > '7')
					return -1;
				r = r * 8 + (uint32_t)(s[i] - '0');
			}
			i--;
			if (r > 255)
				return -1;
			o[k++] = (char)r;
		} else {
			return -1;
		}
	}
	*outlen = k;
	return 0;
}

static uint32_t decode_rune(const unsigned char *s, size_t n, size_t *len)
{
	if (s[0] < 0x80 || n < 2) {
		*len = 1;
		return s[0];
	}
	int extra = s[0] >= 0xf0 ? 3 : s[0] >= 0xe0 ? 2 : 1;
	uint32_t r = s[0] & (0x3f >> extra);
	for (int i = 1; i <= extra && (size_t)i < n; i++)
		r = r << 6 | (s[i] & 0x3f);
	*len = (size_t)extra + 1;
	return r;
}

static int number_error(char *msg, size_t cap, const char *what, const char *s, size_t len)
{
	snprintf(msg, cap, "%s: %s%.*s%s", what, what[0] == 'm' ? "" : "\"", (int)len, s,
		 what[0] == 'm' ? "" : "\"");
	return -1;
}

static int number_value(struct tnode *n, const char *s, size_t len, char *clean, size_t k, char *msg,
			size_t cap);

int gw_tmpl__number(struct tnode *n, const char *s, size_t len, bool charconst, char *msg, size_t cap)
{
	n->src = s;
	n->srclen = len;
	if (charconst) {
		char buf[16];
		size_t blen = 0, rl;
		if (len > 10 || gw_tmpl__unquote(s, len, '\'', buf, &blen) < 0 || blen == 0)
			return number_error(msg, cap, "malformed character constant", s, len);
		uint32_t r = decode_rune((const unsigned char *)buf, blen, &rl);
		if (rl != blen)
			return number_error(msg, cap, "malformed character constant", s, len);
		n->is_int = n->is_float = true;
		n->ival = r;
		n->fval = r;
		return 0;
	}
	char small[64];
	char *clean = len < sizeof(small) ? small : malloc(len + 1);
	if (!clean) {
		snprintf(msg, cap, "out of memory");
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] != '_')
			clean[k++] = s[i];
	clean[k] = 0;
	int rc = number_value(n, s, len, clean, k, msg, cap);
	if (clean != small)
		free(clean);
	return rc;
}

/* The values of a number token, clean of underscores (k bytes). */
static int number_value(struct tnode *n, const char *s, size_t len, char *clean, size_t k, char *msg,
			size_t cap)
{
	bool hex = k > 1 && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'X');
	bool floaty = strpbrk(clean, ".eEpP") && !hex;
	char *end;
	errno = 0;
	long long iv = strtoll(clean, &end, 0);
	if (!floaty && *end == 0 && k > 0 && errno == 0) {
		n->is_int = n->is_float = true;
		n->ival = iv;
		n->fval = (double)iv;
		return 0;
	}
	double fv = strtod(clean, &end);
	if (*end != 0 || k == 0 || (hex && !floaty && errno == 0))
		return number_error(msg, cap, "illegal number syntax", s, len);
	if (!floaty)
		return number_error(msg, cap, "integer overflow", s, len);
	n->is_float = true;
	n->fval = fv;
	if (fv >= -9.2e18 && fv <= 9.2e18 && fv == (double)(int64_t)fv) {
		n->is_int = true;
		n->ival = (int64_t)fv;
	}
	return 0;
}

uint32_t gw_tmpl__rune(const char *s, size_t n, size_t *width)
{
	unsigned char c = (unsigned char)s[0];
	int len = c < 0x80 ? 1 : c >= 0xf8 ? 0 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
	*width = 1;
	if (len == 1)
		return c;
	if (len == 0 || (size_t)len > n)
		return 0xfffd;
	uint32_t r = c & (0x7f >> len);
	for (int k = 1; k < len; k++) {
		unsigned char cc = (unsigned char)s[k];
		if ((cc & 0xc0) != 0x80)
			return 0xfffd;
		r = r << 6 | (cc & 0x3f);
	}
	if ((len == 2 && r < 0x80) || (len == 3 && r < 0x800) || (len == 4 && r < 0x10000) || r > 0x10ffff ||
	    (r >= 0xd800 && r < 0xe000))
		return 0xfffd;
	*width = (size_t)len;
	return r;
}

/* unicode.IsPrint for the runes annotations meet: controls, format
 * characters, separators other than space and private use are not. */
bool gw_tmpl__rune_printable(uint32_t r)
{
	if (r < 0x80)
		return r >= 0x20 && r < 0x7f;
	return r >= 0xa0 && r != 0xad && !(r >= 0x2000 && r <= 0x200f) && !(r >= 0x2028 && r <= 0x202f) &&
	       !(r >= 0x205f && r <= 0x206f) && r != 0x3000 && r != 0xfeff && !(r >= 0xe000 && r <= 0xf8ff) &&
	       !(r >= 0xfff9 && r <= 0xfffb) && r != 0x1680 && r != 0x180e;
}

static void quote_with(struct gw_buf *b, const char *s, size_t n, char q)
{
	gw_buf_putc(b, q);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			const char *esc = NULL;
			switch (c) {
			case '\a':
				esc = "\\a";
				break;
			case '\b':
				esc = "\\b";
				break;
			case '\f':
				esc = "\\f";
				break;
			case '\n':
				esc = "\\n";
				break;
			case '\r':
				esc = "\\r";
				break;
			case '\t':
				esc = "\\t";
				break;
			case '\v':
				esc = "\\v";
				break;
			case '\\':
				esc = "\\\\";
				break;
			case '"':
			case '\'':
				esc = c == (unsigned char)q ? (q == '"' ? "\\\"" : "\\'") : NULL;
				break;
			default:
				break;
			}
			if (esc)
				gw_buf_puts(b, esc);
			else if (c < 0x20 || c == 0x7f)
				gw_buf_printf(b, "\\x%02x", c);
			else
				gw_buf_putc(b, (char)c);
			i++;
			continue;
		}
		int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
		bool ok = len > 0 && i + (size_t)len <= n;
		uint32_t r = ok ? (uint32_t)(c & (0x7f >> len)) : 0;
		for (int k = 1; ok && k < len; k++) {
			unsigned char cc = (unsigned char)s[i + (size_t)k];
			ok = (cc & 0xc0) == 0x80;
			r = r << 6 | (cc & 0x3f);
		}
		if (ok && ((len == 2 && r < 0x80) || (len == 3 && r < 0x800) || (len == 4 && r < 0x10000) ||
			   r > 0x10ffff || (r >= 0xd800 && r < 0xe000)))
			ok = false;
		if (!ok) {
			gw_buf_printf(b, "\\x%02x", c);
			i++;
			continue;
		}
		if (gw_tmpl__rune_printable(r))
			gw_buf_append(b, s + i, (size_t)len);
		else if (r < 0x10000)
			gw_buf_printf(b, "\\u%04x", r);
		else
			gw_buf_printf(b, "\\U%08x", r);
		i += (size_t)len;
	}
	gw_buf_putc(b, q);
}

void gw_tmpl__quote(struct gw_buf *b, const char *s, size_t n)
{
	quote_with(b, s, n, '"');
}

void gw_tmpl__quote_rune(struct gw_buf *b, int64_t r)
{
	char o[4];
	size_t k = 0;
	uint32_t u = r < 0 || r > 0x10ffff || (r >= 0xd800 && r < 0xe000) ? 0xfffd : (uint32_t)r;
	if (u < 0x80) {
		o[k++] = (char)u;
	} else if (u < 0x800) {
		o[k++] = (char)(0xc0 | u >> 6);
		o[k++] = (char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		o[k++] = (char)(0xe0 | u >> 12);
		o[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
		o[k++] = (char)(0x80 | (u & 0x3f));
	} else {
		o[k++] = (char)(0xf0 | u >> 18);
		o[k++] = (char)(0x80 | ((u >> 12) & 0x3f));
		o[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
		o[k++] = (char)(0x80 | (u & 0x3f));
	}
	quote_with(b, o, k, '\'');
}

void gw_tmpl__quote_back(struct gw_buf *b, const char *s, size_t n)
{
	bool plain = true; /* strconv.CanBackquote */
	for (size_t i = 0; i < n && plain;) {
		size_t w;
		uint32_t r = gw_tmpl__rune(s + i, n - i, &w);
		if (r == '`' || r == 0xfeff || (r == 0xfffd && w == 1) || (r < ' ' && r != '\t') || r == 0x7f)
			plain = false;
		i += w;
	}
	if (plain) {
		gw_buf_putc(b, '`');
		gw_buf_append(b, s, n);
		gw_buf_putc(b, '`');
	} else {
		gw_tmpl__quote(b, s, n);
	}
}
