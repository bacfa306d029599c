/*
 * tmpl_lex.c - Go text/template's lexer: text and actions, "{{- " and
 * " -}}" trim markers, comments, and the tokens inside actions, with the
 * lexer's error messages ("unclosed action", "unterminated quoted
 * string", ...).
 */
#include "rules/tmpl_lex.h"
#include "rules/tmpl_int.h"

#include <stdio.h>
#include <string.h>

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_alnum(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80;
}

static int count_lines(const char *s, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

static int emit(struct tlex *l, enum ttok typ, size_t pos, size_t len)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ttoken *t = gw_arena_alloc(l->arena, cap * sizeof(*t));
		if (!t)
			return GW_ENOMEM;
		if (l->n)
			memcpy(t, l->t, l->n * sizeof(*t));
		l->t = t;
		l->cap = cap;
	}
	struct ttoken *t = &l->t[l->n++];
	t->typ = typ;
	t->pos = pos;
	t->len = len;
	t->line = l->line;
	t->msg = NULL;
	l->line += count_lines(l->src + pos, len);
	return 0;
}

static int lex_error(struct tlex *l, size_t pos, int line, const char *msg)
{
	int save = l->line;
	l->line = line;
	int rc = emit(l, TT_ERROR, pos, 0);
	l->line = save;
	if (rc)
		return rc;
	l->t[l->n - 1].msg = gw_arena_strdup(l->arena, msg);
	return 1;
}

static const struct {
	const char *word;
	enum ttok typ;
} keywords[] = {
    {"if", TT_IF},
    {"else", TT_ELSE},
    {"end", TT_END},
    {"range", TT_RANGE},
    {"with", TT_WITH},
    {"break", TT_BREAK},
    {"continue", TT_CONTINUE},
    {"define", TT_DEFINE},
    {"template", TT_TEMPLATE},
    {"block", TT_BLOCK},
    {"nil", TT_NIL},
    {"true", TT_BOOL},
    {"false", TT_BOOL},
};

static enum ttok word_type(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i].word) == n && memcmp(keywords[i].word, s, n) == 0)
			return keywords[i].typ;
	return TT_IDENT;
}

/* Where a right delimiter, with or without its trim marker, starts at i. */
static size_t right_delim(const char *s, size_t i, bool *trim)
{
	*trim = false;
	if (is_space(s[i]) && s[i + 1] == '-' && s[i + 2] == '}' && s[i + 3] == '}') {
		*trim = true;
		return 4;
	}
	if (s[i] == '}' && s[i + 1] == '}')
		return 2;
	return 0;
}

static size_t lex_number_len(const char *s, size_t i)
{
	size_t j = i;
	if (s[j] == '+' || s[j] == '-')
		j++;
	const char *digits = "0123456789_";
	if (s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
		j += 2;
		digits = "0123456789abcdefABCDEF_";
	} else if (s[j] == '0' &&
		   (s[j + 1] == 'b' || s[j + 1] == 'B' || s[j + 1] == 'o' || s[j + 1] == 'O')) {
		j += 2;
	}
	while (s[j] && strchr(digits, s[j]))
		j++;
	if (s[j] == '.') {
		j++;
		while (s[j] && strchr(digits, s[j]))
			j++;
	}
	if (s[j] && strchr("eEpP", s[j]) && strlen(digits) == 11) {
		j++;
		if (s[j] == '+' || s[j] == '-')
			j++;
		while (s[j] >= '0' && s[j] <= '9')
			j++;
	}
	return j - i;
}

static bool at_terminator(const char *s, size_t j)
{
	bool trim;
	return !s[j] || is_space(s[j]) || strchr(".,|:()", s[j]) || (s[j] == '}' && s[j + 1] == '}') ||
	       (right_delim(s, j, &trim) && trim);
}

/* The tokens of one action, from just after its left delimiter. */
static int lex_action(struct tlex *l, size_t *ip)
{
	const char *s = l->src;
	size_t i = *ip;
	int parens = 0;
	for (;;) {
		bool trim;
		size_t d = right_delim(s, i, &trim);
		if (d && (trim || s[i] == '}')) {
			if (parens > 0)
				return lex_error(l, i, l->line, "unclosed left paren");
			int rc = emit(l, TT_RIGHT, i, d);
			if (rc)
				return rc;
			i += d;
			size_t from = i;
			if (trim)
				while (is_space(s[i]))
					i++;
			l->line += count_lines(s + from, i - from);
			*ip = i;
			return 0;
		}
		char c = s[i];
		size_t j = i + 1;
		enum ttok typ = TT_CHAR;
		if (!c)
			return lex_error(l, i, l->line, "unclosed action");
		if (is_space(c)) {
			while (is_space(s[j]) && !right_delim(s, j, &trim))
				j++;
			typ = TT_SPACE;
		} else if (c == '=') {
			typ = TT_ASSIGN;
		} else if (c == ':') {
			if (s[j] != '=')
				return lex_error(l, i, l->line, "expected :=");
			j++;
			typ = TT_DECLARE;
		} else if (c == '|') {
			typ = TT_PIPE;
		} else if (c == '"' || c == '\'') {
			while (s[j] && s[j] != c && s[j] != '\n') {
				if (s[j] == '\\' && s[j + 1] && s[j + 1] != '\n')
					j++;
				j++;
			}
			if (s[j] != c)
				return lex_error(l, i, l->line,
						 c == '"' ? "unterminated quoted string"
							  : "unterminated character constant");
			j++;
			typ = c == '"' ? TT_STRING : TT_CHARCONST;
		} else if (c == '`') {
			while (s[j] && s[j] != '`')
				j++;
			if (!s[j])
				return lex_error(l, i, l->line, "unterminated raw quoted string");
			j++;
			typ = TT_RAWSTRING;
		} else if (c == '$') {
			while (is_alnum((unsigned char)s[j]))
				j++;
			typ = TT_VAR;
		} else if (c == '.' && s[j] &&
			   !(s[j] >= '0' && s[j] <= '9')) { /* at the end, Go reads a number */
			while (is_alnum((unsigned char)s[j]))
				j++;
			typ = j == i + 1 ? TT_DOT : TT_FIELD;
		} else if (c == '.' || c == '+' || c == '-' || (c >= '0' && c <= '9')) {
			j = i + lex_number_len(s, i);
			typ = TT_NUMBER;
			if (is_alnum((unsigned char)s[j])) {
				/* Go's lexer refuses a number running into a letter, quoting one more
				 * character */
				j++;
				while (((unsigned char)s[j] & 0xc0) == 0x80)
					j++;
				char msg[96];
				snprintf(msg, sizeof(msg), "bad number syntax: \"%.*s\"",
					 (int)(j - i > 60 ? 60 : j - i), s + i);
				return lex_error(l, i, l->line, msg);
			}
		} else if (is_alnum((unsigned char)c)) {
			while (is_alnum((unsigned char)s[j]))
				j++;
			typ = word_type(s + i, j - i);
		} else if (c == '(') {
			parens++;
			typ = TT_LPAREN;
		} else if (c == ')') {
			parens--; /* a stray one is the parser's to report */
			typ = TT_RPAREN;
		} else if ((unsigned char)c >= 0x80 || (unsigned char)c < 0x20 || c == 0x7f) {
			char msg[64];
			snprintf(msg, sizeof(msg), "unrecognized character in action: U+%04X",
				 (unsigned char)c);
			return lex_error(l, i, l->line, msg);
		}
		if ((typ == TT_VAR || typ == TT_FIELD || typ == TT_DOT || typ == TT_IDENT ||
		     typ >= TT_KEYWORD || typ == TT_BOOL || typ == TT_NIL) &&
		    !at_terminator(s, j)) {
			/* Go's lexer wants a word to end at a space, . , | : ( ) or the delimiter */
			size_t w;
			uint32_t r = gw_tmpl__rune(s + j, strlen(s + j), &w);
			char msg[64];
			if (gw_tmpl__rune_printable(r))
				snprintf(msg, sizeof(msg), "bad character U+%04X '%.*s'", r, (int)w, s + j);
			else
				snprintf(msg, sizeof(msg), "bad character U+%04X", r);
			return lex_error(l, j, l->line, msg);
		}
		int rc = emit(l, typ, i, j - i);
		if (rc)
			return rc;
		i = j;
	}
}

int gw_tmpl__lex(struct tlex *l)
{
	const char *s = l->src;
	size_t i = 0, n = strlen(s);
	l->line = 1;
	while (i < n) {
		const char *open = strstr(s + i, "{{");
		size_t end = open ? (size_t)(open - s) : n;
		bool ltrim = open && open[2] == '-' && is_space(open[3]);
		size_t text_end = end;
		if (ltrim)
			while (text_end > i && is_space(s[text_end - 1]))
				text_end--;
		if (text_end > i) {
			int rc = emit(l, TT_TEXT, i, text_end - i);
			if (rc)
				return rc;
		}
		l->line += count_lines(s + text_end, end - text_end);
		if (!open)
			break;
		/* "{{- " takes its space with it; a comment must follow at once */
		i = end + (ltrim ? 4 : 2);
		size_t k = i;
		if (s[k] == '/' && s[k + 1] == '*') {
			const char *close = strstr(s + k + 2, "*/");
			if (!close)
				return lex_error(l, end, l->line, "unclosed comment");
			size_t c = (size_t)(close - s) + 2;
			bool trim;
			size_t d = right_delim(s, c, &trim);
			if (!d)
				return lex_error(l, end, l->line, "comment ends before closing delimiter");
			l->line += count_lines(s + end, c + d - end);
			i = c + d;
			size_t from = i;
			if (trim)
				while (is_space(s[i]))
					i++;
			l->line += count_lines(s + from, i - from);
			continue;
		}
		int rc = emit(l, TT_LEFT, end, i - end);
		if (rc)
			return rc;
		rc = lex_action(l, &i);
		if (rc)
			return rc > 0 ? 0 : rc;
	}
	return emit(l, TT_EOF, n, 0);
}
