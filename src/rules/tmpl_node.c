/*
 * tmpl_node.c - Go's String() of parse nodes, which execution errors quote
 * as their context ("at <humanize \"x\">").
 */
#include "rules/tmpl_int.h"

static void idents(struct gw_buf *b, const struct tnode *n)
{
	for (size_t i = 0; i < n->nidents; i++) {
		gw_buf_putc(b, '.');
		gw_buf_puts(b, n->idents[i]);
	}
}

void gw_tmpl__node_str(struct gw_buf *b, const struct tnode *n)
{
	switch (n->k) {
	case TN_COMMAND:
		for (size_t i = 0; i < n->nkids; i++) {
			if (i)
				gw_buf_putc(b, ' ');
			if (n->kids[i]->k == TN_PIPE) {
				gw_buf_putc(b, '(');
				gw_tmpl__node_str(b, n->kids[i]);
				gw_buf_putc(b, ')');
			} else {
				gw_tmpl__node_str(b, n->kids[i]);
			}
		}
		break;
	case TN_PIPE:
		for (size_t i = 0; i < n->ndecl; i++) {
			if (i)
				gw_buf_puts(b, ", ");
			gw_tmpl__node_str(b, n->decl[i]);
		}
		if (n->ndecl)
			gw_buf_puts(b, " := ");
		for (size_t i = 0; i < n->nkids; i++) {
			if (i)
				gw_buf_puts(b, " | ");
			gw_tmpl__node_str(b, n->kids[i]);
		}
		break;
	case TN_CHAIN:
		if (n->sub->k == TN_PIPE) {
			gw_buf_putc(b, '(');
			gw_tmpl__node_str(b, n->sub);
			gw_buf_putc(b, ')');
		} else {
			gw_tmpl__node_str(b, n->sub);
		}
		idents(b, n);
		break;
	case TN_FIELD:
		idents(b, n);
		break;
	case TN_VAR:
		gw_buf_puts(b, n->s);
		idents(b, n);
		break;
	case TN_NUMBER:
	case TN_STRING:
		gw_buf_append(b, n->src, n->srclen);
		break;
	case TN_BOOL:
		gw_buf_puts(b, n->bval ? "true" : "false");
		break;
	case TN_DOT:
		gw_buf_putc(b, '.');
		break;
	case TN_NIL:
		gw_buf_puts(b, "nil");
		break;
	case TN_IDENT:
		gw_buf_puts(b, n->s);
		break;
	case TN_ACTION:
		gw_buf_puts(b, "{{");
		gw_tmpl__node_str(b, n->pipe);
		gw_buf_puts(b, "}}");
		break;
	case TN_IF:
	case TN_RANGE:
	case TN_WITH:
		gw_buf_puts(b, n->k == TN_IF ? "{{if " : n->k == TN_RANGE ? "{{range " : "{{with ");
		gw_tmpl__node_str(b, n->pipe);
		gw_buf_puts(b, "}}");
		break;
	case TN_TEMPLATE:
		gw_buf_puts(b, "{{template ");
		gw_tmpl__quote(b, n->s, n->n);
		if (n->pipe) {
			gw_buf_putc(b, ' ');
			gw_tmpl__node_str(b, n->pipe);
		}
		gw_buf_puts(b, "}}");
		break;
	default:
		break;
	}
}
