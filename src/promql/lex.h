/*
 * lex.h - PromQL tokens (internal to the parser).
 */
#ifndef GW_PROMQL_LEX_H
#define GW_PROMQL_LEX_H

#include <stddef.h>
#include <stdint.h>

enum gw_pq_tok {
	TK_EOF,
	TK_ERROR,
	TK_IDENT,    /* [a-zA-Z_][a-zA-Z0-9_:]* (metric names may hold ':') */
	TK_NUMBER,   /* 1, 1.5e3, 0x1f, Inf, NaN */
	TK_DURATION, /* 5m, 1h30m */
	TK_STRING,   /* "..." '...' `...` */
	TK_LPAREN,
	TK_RPAREN,
	TK_LBRACE,
	TK_RBRACE,
	TK_LBRACKET,
	TK_RBRACKET,
	TK_COMMA,
	TK_ASSIGN, /* = */
	TK_COLON,
	TK_AT,
	TK_RE,  /* =~ */
	TK_NRE, /* !~ */
	TK_NEQ, /* != */
	TK_ADD,
	TK_SUB,
	TK_MUL,
	TK_DIV,
	TK_MOD,
	TK_POW,
	TK_EQLC, /* == */
	TK_GTR,
	TK_LSS,
	TK_GTE,
	TK_LTE,
};

struct gw_pq_token {
	enum gw_pq_tok kind;
	size_t pos, len; /* in the query */
	double number;   /* TK_NUMBER */
	int64_t ms;      /* TK_DURATION */
	const char *msg; /* TK_ERROR */
};

struct gw_pq_lexer {
	const char *s;
	size_t len, pos;
	int parens, brackets, braces; /* open now: end of input inside one is an error, as in Prometheus' lexer */
};

void gw_pq_lex_init(struct gw_pq_lexer *lx, const char *s);
void gw_pq_lex_next(struct gw_pq_lexer *lx, struct gw_pq_token *t);

/* Decode a TK_STRING's text (with quotes) into a malloc'd string; NULL if bad. */
char *gw_pq_unquote(const char *s, size_t len);

#endif
