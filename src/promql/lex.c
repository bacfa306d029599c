#include "promql/lex.h"

#include "promql/ast.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gw_pq_lex_init(struct gw_pq_lexer *lx, const char *s)
{
	lx->s = s;
	lx->len = strlen(s);
	lx->pos = 0;
}

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == ':';
}

/* Units in the order Prometheus requires them (y w d h m s ms). */
static int64_t unit_ms(const char *u, size_t n, int *rank)
{
	static const struct {
		const char *u;
		int64_t ms;
	} units[] = {{"y", 365LL * 24 * 3600 * 1000}, {"w", 7LL * 24 * 3600 * 1000}, {"d", 24LL * 3600 * 1000},
		     {"h", 3600LL * 1000},             {"m", 60LL * 1000},             {"s", 1000},
		     {"ms", 1}};
	for (int i = 0; i < 7; i++)
		if (strlen(units[i].u) == n && strncmp(units[i].u, u, n) == 0) {
			*rank = i;
			return units[i].ms;
		}
	return 0;
}

int gw_promql_duration(const char *s, size_t len, int64_t *ms)
{
	size_t i = 0;
	int64_t total = 0;
	int last_rank = -1;
	if (len == 0)
		return GW_EPARSE;
	while (i < len) {
		if (!isdigit((unsigned char)s[i]))
			return GW_EPARSE;
		int64_t n = 0;
		while (i < len && isdigit((unsigned char)s[i])) {
			if (n > INT64_MAX / 10 - 10)
				return GW_EPARSE;
			n = n * 10 + (s[i++] - '0');
		}
		size_t u = i;
		while (i < len && isalpha((unsigned char)s[i]))
			i++;
		/* "ms" is one unit; "m" followed by digits is minutes. */
		if (i - u > 2 || i == u)
			return GW_EPARSE;
		int rank;
		int64_t m = unit_ms(s + u, i - u, &rank);
		if (!m || rank <= last_rank)
			return GW_EPARSE;
		last_rank = rank;
		if (n > (INT64_MAX - total) / m)
			return GW_EPARSE;
		total += n * m;
	}
	*ms = total;
	return 0;
}

static void lex_number(struct gw_pq_lexer *lx, struct gw_pq_token *t)
{
	const char *p = lx->s + lx->pos;
	/* A duration is digits and units with no '.' or exponent: 5m, 1h30m. */
	size_t n = 0;
	while (isalnum((unsigned char)p[n]))
		n++;
	int64_t ms;
	if (isdigit((unsigned char)p[0]) && !(p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) &&
	    strchr("ywdhms", p[n - 1]) && gw_promql_duration(p, n, &ms) == 0) {
		t->kind = TK_DURATION;
		t->ms = ms;
		t->len = n;
		lx->pos += n;
		return;
	}
	char *end;
	double v;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		v = (double)strtoull(p, &end, 16);
	else
		v = strtod(p, &end);
	if (end == p || ident_char(*end)) {
		t->kind = TK_ERROR;
		t->msg = "bad number or duration syntax";
		t->len = n ? n : 1;
		return;
	}
	t->kind = TK_NUMBER;
	t->number = v;
	t->len = (size_t)(end - p);
	lx->pos += t->len;
}

static void lex_string(struct gw_pq_lexer *lx, struct gw_pq_token *t)
{
	char q = lx->s[lx->pos];
	size_t i = lx->pos + 1;
	while (i < lx->len && lx->s[i] != q) {
		if (lx->s[i] == '\\' && q != '`')
			i++;
		else if (lx->s[i] == '\n' && q != '`')
			break;
		i++;
	}
	if (i >= lx->len || lx->s[i] != q) {
		t->kind = TK_ERROR;
		t->msg = "unterminated quoted string";
		t->len = lx->len - lx->pos;
		lx->pos = lx->len;
		return;
	}
	t->kind = TK_STRING;
	t->len = i + 1 - lx->pos;
	lx->pos = i + 1;
}

struct punct {
	const char *s;
	enum gw_pq_tok kind;
};

/* Longest first. */
static const struct punct puncts[] = {
	{"=~", TK_RE},      {"!~", TK_NRE},      {"!=", TK_NEQ},    {"==", TK_EQLC},   {">=", TK_GTE},
	{"<=", TK_LTE},     {"(", TK_LPAREN},    {")", TK_RPAREN},  {"{", TK_LBRACE},  {"}", TK_RBRACE},
	{"[", TK_LBRACKET}, {"]", TK_RBRACKET},  {",", TK_COMMA},   {"=", TK_ASSIGN},  {":", TK_COLON},
	{"@", TK_AT},       {"+", TK_ADD},       {"-", TK_SUB},     {"*", TK_MUL},     {"/", TK_DIV},
	{"%", TK_MOD},      {"^", TK_POW},       {">", TK_GTR},     {"<", TK_LSS},
};

void gw_pq_lex_next(struct gw_pq_lexer *lx, struct gw_pq_token *t)
{
	memset(t, 0, sizeof(*t));
	for (;;) {
		while (lx->pos < lx->len && isspace((unsigned char)lx->s[lx->pos]))
			lx->pos++;
		if (lx->pos < lx->len && lx->s[lx->pos] == '#') { /* comment to end of line */
			while (lx->pos < lx->len && lx->s[lx->pos] != '\n')
				lx->pos++;
			continue;
		}
		break;
	}
	t->pos = lx->pos;
	if (lx->pos >= lx->len) {
		t->kind = TK_EOF;
		if (lx->braces > 0 || lx->parens > 0 || lx->brackets > 0) {
			t->kind = TK_ERROR;
			t->msg = lx->braces > 0   ? "unexpected end of input inside braces"
				 : lx->parens > 0 ? "unclosed left parenthesis"
						  : "unclosed left bracket";
		}
		return;
	}
	const char *p = lx->s + lx->pos;
	if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
		lex_number(lx, t);
		return;
	}
	if (ident_start(*p)) {
		size_t n = 1;
		while (ident_char(p[n]))
			n++;
		if ((n == 3 && strncasecmp(p, "nan", 3) == 0) || (n == 3 && strncasecmp(p, "inf", 3) == 0)) {
			t->kind = TK_NUMBER;
			t->number = (p[0] == 'n' || p[0] == 'N') ? NAN : INFINITY;
		} else {
			t->kind = TK_IDENT;
		}
		t->len = n;
		lx->pos += n;
		return;
	}
	if (*p == '"' || *p == '\'' || *p == '`') {
		lex_string(lx, t);
		return;
	}
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		size_t n = strlen(puncts[i].s);
		if (strncmp(p, puncts[i].s, n) == 0) {
			t->kind = puncts[i].kind;
			t->len = n;
			lx->pos += n;
			int *depth = t->kind == TK_LPAREN || t->kind == TK_RPAREN	  ? &lx->parens
				     : t->kind == TK_LBRACKET || t->kind == TK_RBRACKET ? &lx->brackets
				     : t->kind == TK_LBRACE || t->kind == TK_RBRACE	  ? &lx->braces
											  : NULL;
			if (depth && (t->kind == TK_LPAREN || t->kind == TK_LBRACKET || t->kind == TK_LBRACE))
				++*depth;
			else if (depth && --*depth < 0 && t->kind == TK_RPAREN) {
				t->kind = TK_ERROR; /* where Prometheus' lexer notices: after it */
				t->msg = "unexpected right parenthesis ')'";
				t->pos = lx->pos;
			}
			return;
		}
	}
	t->kind = TK_ERROR;
	t->msg = "unexpected character";
	t->len = 1;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Append a code point as UTF-8. */
static size_t put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Go's escapes: \a \b \f \n \r \t \v \\ \' \" \xHH \ooo \uHHHH \UHHHHHHHH. */
char *gw_pq_unquote(const char *s, size_t len)
{
	if (len < 2)
		return NULL;
	char q = s[0];
	char *out = malloc(len * 4 + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 1; i + 1 < len; i++) {
		char c = s[i];
		if (c != '\\' || q == '`') {
			*o++ = c;
			continue;
		}
		if (++i + 1 >= len)
			goto bad;
		c = s[i];
		const char *simple = strchr("abfnrtv\\'\"", c);
		if (simple && c) {
			static const char map[] = "\a\b\f\n\r\t\v\\'\"";
			if ((c == '\'' && q != '\'') || (c == '"' && q != '"'))
				goto bad;
			*o++ = map[simple - "abfnrtv\\'\""];
			continue;
		}
		int digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : (c >= '0' && c <= '7') ? 3 : 0;
		if (!digits || i + (size_t)digits >= len - (c >= '0' && c <= '7' ? 0 : 0))
			goto bad;
		unsigned long v = 0;
		if (c >= '0' && c <= '7') {
			for (int k = 0; k < 3; k++, i++) {
				if (i + 1 >= len || s[i] < '0' || s[i] > '7')
					goto bad;
				v = v * 8 + (unsigned long)(s[i] - '0');
			}
			i--;
			if (v > 255)
				goto bad;
			*o++ = (char)v;
			continue;
		}
		for (int k = 0; k < digits; k++) {
			if (i + 1 + (size_t)k + 1 > len - 1 + 1 || i + 1 + (size_t)k >= len - 1)
				goto bad;
			int h = hex(s[i + 1 + (size_t)k]);
			if (h < 0)
				goto bad;
			v = v * 16 + (unsigned long)h;
		}
		i += (size_t)digits;
		if (c == 'x')
			*o++ = (char)v;
		else if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
			goto bad;
		else
			o += put_utf8(o, v);
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}
