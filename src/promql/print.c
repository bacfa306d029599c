/*
 * print.c - a syntax tree back to PromQL text, in Prometheus' canonical
 * spelling (what its String() methods print), so parsed rules and API
 * answers show expressions the way Prometheus users know them.
 */
#include "promql/print.h"

#include "promql/funcs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dur(struct gw_buf *b, int64_t ms)
{
	if (ms == 0) {
		gw_buf_puts(b, "0s");
		return;
	}
	if (ms < 0) {
		gw_buf_putc(b, '-');
		ms = -ms;
	}
	static const struct {
		int64_t ms;
		const char *u;
	} units[] = {{365LL * 86400000, "y"}, {7LL * 86400000, "w"}, {86400000, "d"}, {3600000, "h"},
		     {60000, "m"},            {1000, "s"},           {1, "ms"}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ms >= units[i].ms) {
			gw_buf_printf(b, "%lld%s", (long long)(ms / units[i].ms), units[i].u);
			ms %= units[i].ms;
		}
	}
}

/*
 * The shortest text that reads back as the same double, spelled like Go's
 * %v: plain decimals for exponents in [-4, 21), exponent form otherwise.
 */
static void shortest(struct gw_buf *b, double v)
{
	char t[64];
	int digits = 1;
	for (; digits <= 17; digits++) {
		snprintf(t, sizeof(t), "%.*e", digits - 1, v);
		if (strtod(t, NULL) == v)
			break;
	}
	int exp = atoi(strchr(t, 'e') + 1);
	if (exp >= -4 && exp < 21) {
		int decimals = digits - 1 - exp;
		snprintf(t, sizeof(t), "%.*f", decimals > 0 ? decimals : 0, v);
	}
	gw_buf_puts(b, t);
}

static void quoted(struct gw_buf *b, const char *s)
{
	gw_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			gw_buf_putc(b, '\\');
		if (*s == '\n')
			gw_buf_puts(b, "\\n");
		else
			gw_buf_putc(b, *s);
	}
	gw_buf_putc(b, '"');
}

static void labels(struct gw_buf *b, char **v, size_t n)
{
	gw_buf_putc(b, '(');
	for (size_t i = 0; i < n; i++)
		gw_buf_printf(b, "%s%s", i ? ", " : "", v[i]);
	gw_buf_putc(b, ')');
}

static void modifiers(struct gw_buf *b, int64_t offset, enum gw_pq_at at, int64_t at_ms)
{
	if (at == GW_PQ_AT_TIME)
		gw_buf_printf(b, " @ %lld.%03lld", (long long)(at_ms / 1000), (long long)llabs(at_ms % 1000));
	else if (at == GW_PQ_AT_START)
		gw_buf_puts(b, " @ start()");
	else if (at == GW_PQ_AT_END)
		gw_buf_puts(b, " @ end()");
	if (offset) {
		gw_buf_puts(b, " offset ");
		dur(b, offset);
	}
}

static const char *match_op(enum gw_match_op op)
{
	static const char *const s[] = {"=", "!=", "=~", "!~"};
	return s[op];
}

void gw_promql_print(struct gw_buf *b, const struct gw_pq_node *n)
{
	switch (n->kind) {
	case GW_PQ_NUMBER:
		if (isnan(n->u.number))
			gw_buf_puts(b, "NaN");
		else if (isinf(n->u.number))
			gw_buf_puts(b, n->u.number > 0 ? "+Inf" : "-Inf");
		else
			shortest(b, n->u.number);
		break;
	case GW_PQ_STRING:
		quoted(b, n->u.string);
		break;
	case GW_PQ_VECTOR_SEL: {
		if (n->u.sel.name)
			gw_buf_puts(b, n->u.sel.name);
		if (n->u.sel.nmatchers || !n->u.sel.name) {
			gw_buf_putc(b, '{');
			for (size_t i = 0; i < n->u.sel.nmatchers; i++) {
				const struct gw_pq_matcher *m = &n->u.sel.matchers[i];
				gw_buf_printf(b, "%s%s%s", i ? ", " : "", m->name, match_op(m->op));
				quoted(b, m->value);
			}
			gw_buf_putc(b, '}');
		}
		modifiers(b, n->u.sel.offset_ms, n->u.sel.at, n->u.sel.at_ms);
		break;
	}
	case GW_PQ_MATRIX_SEL:
	case GW_PQ_SUBQUERY: {
		const struct gw_pq_node *vs = n->u.range.vs;
		if (n->kind == GW_PQ_MATRIX_SEL) {
			/* The selector, then the range, then its modifiers. */
			struct gw_pq_node tmp = *vs;
			tmp.u.sel.offset_ms = 0;
			tmp.u.sel.at = GW_PQ_AT_NONE;
			gw_promql_print(b, &tmp);
		} else {
			gw_promql_print(b, vs);
		}
		gw_buf_putc(b, '[');
		dur(b, n->u.range.range_ms);
		if (n->kind == GW_PQ_SUBQUERY) {
			gw_buf_putc(b, ':');
			if (n->u.range.step_ms)
				dur(b, n->u.range.step_ms);
		}
		gw_buf_putc(b, ']');
		if (n->kind == GW_PQ_MATRIX_SEL)
			modifiers(b, vs->u.sel.offset_ms, vs->u.sel.at, vs->u.sel.at_ms);
		else
			modifiers(b, n->u.range.offset_ms, n->u.range.at, n->u.range.at_ms);
		break;
	}
	case GW_PQ_CALL:
		gw_buf_printf(b, "%s(", n->u.call.func->name);
		for (size_t i = 0; i < n->u.call.nargs; i++) {
			if (i)
				gw_buf_puts(b, ", ");
			gw_promql_print(b, n->u.call.args[i]);
		}
		gw_buf_putc(b, ')');
		break;
	case GW_PQ_AGGREGATE:
		gw_buf_puts(b, gw_pq_aggop_name(n->u.agg.op));
		if (n->u.agg.grouping) {
			gw_buf_puts(b, n->u.agg.without ? " without " : " by ");
			labels(b, n->u.agg.grouping, n->u.agg.ngrouping);
			gw_buf_putc(b, ' ');
		}
		gw_buf_putc(b, '(');
		if (n->u.agg.param) {
			gw_promql_print(b, n->u.agg.param);
			gw_buf_puts(b, ", ");
		}
		gw_promql_print(b, n->u.agg.expr);
		gw_buf_putc(b, ')');
		break;
	case GW_PQ_BINARY:
		gw_promql_print(b, n->u.bin.lhs);
		gw_buf_printf(b, " %s", gw_pq_binop_name(n->u.bin.op));
		if (n->u.bin.return_bool)
			gw_buf_puts(b, " bool");
		if (n->u.bin.labels) {
			gw_buf_puts(b, n->u.bin.on ? " on" : " ignoring");
			labels(b, n->u.bin.labels, n->u.bin.nlabels);
		}
		if (n->u.bin.card == GW_PQ_CARD_MANY_TO_ONE || n->u.bin.card == GW_PQ_CARD_ONE_TO_MANY) {
			gw_buf_puts(b, n->u.bin.card == GW_PQ_CARD_MANY_TO_ONE ? " group_left" : " group_right");
			labels(b, n->u.bin.include, n->u.bin.ninclude);
		}
		gw_buf_putc(b, ' ');
		gw_promql_print(b, n->u.bin.rhs);
		break;
	case GW_PQ_UNARY:
		gw_buf_putc(b, n->u.unary.op);
		gw_promql_print(b, n->u.unary.expr);
		break;
	case GW_PQ_PAREN:
		gw_buf_putc(b, '(');
		gw_promql_print(b, n->u.paren);
		gw_buf_putc(b, ')');
		break;
	}
}
