/*
 * tmpl_lex.h - the tokens of Go's text/template, as tmpl_lex.c cuts a
 * template's text into them for tmpl_parse.c. Tokens point into the text
 * (pos, len); the array lives in the template's arena.
 */
#ifndef GW_RULES_TMPL_LEX_H
#define GW_RULES_TMPL_LEX_H

#include "core/arena.h"
#include "core/err.h"

#include <stdbool.h>
#include <stddef.h>

enum ttok {
	TT_ERROR,
	TT_EOF,
	TT_TEXT,
	TT_LEFT,
	TT_RIGHT,
	TT_SPACE,
	TT_ASSIGN,
	TT_DECLARE,
	TT_PIPE,
	TT_CHAR, /* any other printable ASCII character, such as ',' */
	TT_STRING,
	TT_RAWSTRING,
	TT_CHARCONST,
	TT_NUMBER,
	TT_VAR,
	TT_FIELD,
	TT_IDENT,
	TT_LPAREN,
	TT_RPAREN,
	TT_BOOL,
	/* keywords: Go prints these as <word> */
	TT_KEYWORD,
	TT_DOT,
	TT_NIL,
	TT_IF,
	TT_ELSE,
	TT_END,
	TT_RANGE,
	TT_WITH,
	TT_BREAK,
	TT_CONTINUE,
	TT_DEFINE,
	TT_TEMPLATE,
	TT_BLOCK,
};

struct ttoken {
	enum ttok typ;
	size_t pos, len;
	int line;
	const char *msg; /* TT_ERROR: the lexer's message */
};

struct tlex {
	const char *src;
	struct gw_arena *arena;
	struct ttoken *t;
	size_t n, cap;
	int line;
};

/* Cut l->src into l->t; a lexing error ends the tokens with TT_ERROR. */
int gw_tmpl__lex(struct tlex *l);

#endif
