/*
 * tmpl_parser.h - the parser's state and helpers, shared by its two files:
 * tmpl_parse.c (expressions) and tmpl_parse_ctl.c (structure). Nodes and
 * strings live in the template's arena; a failure records Go's message in
 * err once and makes every later step return NULL.
 */
#ifndef GW_RULES_TMPL_PARSER_H
#define GW_RULES_TMPL_PARSER_H

#include "rules/tmpl_int.h"
#include "rules/tmpl_lex.h"

struct parser {
	struct gw_tmpl *t;
	struct gw_arena *a;
	const struct ttoken *tok;
	size_t i;	   /* next token */
	int line;	   /* the line of the furthest token read, which errors name */
	size_t far;	   /* that token */
	const char **vars; /* declared variables, innermost last */
	size_t nvars, capvars;
	int range_depth;
	int action_line; /* where the action being parsed began; 0 between actions */
	int depth;	 /* nested parentheses and control structures */
	int rc;
	struct gw_err *err;
};

/* Go stops at 10,000 nested parentheses ("max expression depth
 * exceeded"); a C stack, sanitizers included, is safe at 1,000, which no
 * real template comes near. */
#define MAX_DEPTH 1000

#define FAIL_IF(p)                                                                                           \
	do {                                                                                                 \
		if ((p)->rc)                                                                                 \
			return NULL;                                                                         \
	} while (0)

struct tnode *gw_tmpl__p_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct tnode *gw_tmpl__p_oom(struct parser *p);
struct tnode *gw_tmpl__p_unexpected(struct parser *p, const struct ttoken *t, const char *context);
const struct ttoken *gw_tmpl__p_next(struct parser *p);
const struct ttoken *gw_tmpl__p_peek(struct parser *p);
const struct ttoken *gw_tmpl__p_next_nonspace(struct parser *p);
const struct ttoken *gw_tmpl__p_peek_nonspace(struct parser *p);
void gw_tmpl__p_backup_to(struct parser *p, const struct ttoken *t);
struct tnode *gw_tmpl__p_new_node(struct parser *p, enum tnode_kind k, size_t pos);
/* Append x to a growing array of pointers in the arena. */
int gw_tmpl__p_push(struct parser *p, void ***arr, size_t *n, void *x);
#define PUSH(p, arr, n, x) gw_tmpl__p_push(p, (void ***)&(arr), &(n), x)
void gw_tmpl__p_declare(struct parser *p, const char *name);
const char *gw_tmpl__p_tok_str(struct parser *p, const struct ttoken *t);
struct tnode *gw_tmpl__p_term(struct parser *p);
struct tnode *gw_tmpl__p_pipeline(struct parser *p, const char *context, enum ttok end);
/* Items up to {{end}} or {{else}}, which comes back in *stop. */
struct tnode *gw_tmpl__p_item_list(struct parser *p, struct tnode **stop);

#endif
