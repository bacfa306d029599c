/* logq.c - quoting log values (logq.h). */
#include "core/logq.h"

const char *gw_logq(char *dst, size_t n, const char *s)
{
	size_t w = 0;
	for (; s && *s && w + 3 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			dst[w++] = '\\';
		dst[w++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	dst[w] = '\0';
	return dst;
}
