/* print.h - PromQL syntax tree back to canonical text. */
#ifndef GW_PROMQL_PRINT_H
#define GW_PROMQL_PRINT_H

#include "core/buf.h"
#include "promql/ast.h"

void gw_promql_print(struct gw_buf *b, const struct gw_pq_node *n);

#endif
