#include "promql/funcs.h"

#include <string.h>

static const struct gw_pq_func funcs[] = {
#define GW_PQ_FUNC_ROW(id, name, ret, var, n, a0, a1, a2, a3, a4) {GW_PQ_F_##id, name, ret, var, n, {a0, a1, a2, a3, a4}},
	GW_PQ_FUNCS(GW_PQ_FUNC_ROW)
#undef GW_PQ_FUNC_ROW
};

const struct gw_pq_func *gw_pq_func_find(const char *name, size_t len)
{
	/* Sorted by name: binary search. */
	size_t lo = 0, hi = sizeof(funcs) / sizeof(funcs[0]);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(funcs[mid].name, name, len);
		if (c == 0 && funcs[mid].name[len] != '\0')
			c = 1;
		if (c == 0)
			return &funcs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
