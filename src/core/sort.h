/*
 * sort.h - qsort and memcpy for arrays that may be empty.
 *
 * C says qsort(NULL, 0, ...) and memcpy(dst, NULL, 0) are undefined, and
 * UBSan aborts on them; an empty answer (no series matched, an empty vector
 * sorted) is ordinary here, so every array sort and copy that can see one
 * goes through these. No state; thread-safe.
 */
#ifndef GW_CORE_SORT_H
#define GW_CORE_SORT_H

#include <stdlib.h>
#include <string.h>

static inline void gw_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static inline void *gw_memcpy(void *dst, const void *src, size_t n)
{
	return n ? memcpy(dst, src, n) : dst;
}

#endif
