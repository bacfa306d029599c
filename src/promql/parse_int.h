/*
 * parse_int.h - what the parser's two files share (not a public header):
 * parse.c (expressions, operators, modifiers, entry points) and
 * parse_sel.c (selectors, matchers, label lists, calls, aggregations).
 */
#ifndef GW_PROMQL_PARSE_INT_H
#define GW_PROMQL_PARSE_INT_H

#include "promql/funcs.h"
#include "promql/lex.h"

struct parser {
	struct gw_pq_lexer lx;
	struct gw_pq_token tok; /* current */
	const char *q;
	struct gw_err *err;
	bool failed;
	unsigned depth; /* pq_expr calls now on the stack */
	/* gw_promql_parse_selector(): a selector of only empty-matching
	 * matchers is noted here, for the API's own message, not refused */
	bool selector_only, empty_selector;
};

struct gw_pq_node *pq_fail(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void pq_next(struct parser *p);
bool pq_is_ident(const struct parser *p, const char *kw);
struct gw_pq_node *pq_unexpected(struct parser *p, const char *where);
bool pq_expect(struct parser *p, enum gw_pq_tok kind, const char *where);
struct gw_pq_node *pq_node_new(struct parser *p, enum gw_pq_kind kind, size_t pos);
char *pq_tok_strdup(const struct parser *p);
struct gw_pq_node *pq_expr(struct parser *p, int min_prec);
struct gw_pq_node *pq_seal(struct parser *p, struct gw_pq_node *n);

bool pq_label_list(struct parser *p, char ***out, size_t *n, const char *where);
struct gw_pq_node *pq_vector_selector(struct parser *p, char *name, size_t pos);
/* The end of a parse: anything left is "unexpected"; *root = n on success (n freed otherwise). */
int pq_finish(struct parser *p, struct gw_pq_node *n, struct gw_pq_node **root);
/* The argument list of a call to no known function, parsed for its errors and dropped. */
void pq_unknown_call(struct parser *p);
bool pq_check_type(struct parser *p, const struct gw_pq_node *n, enum gw_pq_type want, const char *ctx);
struct gw_pq_node *pq_call(struct parser *p, const struct gw_pq_func *f, size_t pos);
int pq_aggop_of(const struct parser *p);
struct gw_pq_node *pq_aggregate(struct parser *p, enum gw_pq_aggop op, size_t pos);

#endif
