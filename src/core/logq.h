/*
 * logq.h - a string made safe for a quoted value of a key=value log line
 * ("... path=\"%s\""): quotes and backslashes escaped, other unprintable
 * bytes as '?', cut to fit. Threading: none (the caller's buffer).
 */
#ifndef GW_CORE_LOGQ_H
#define GW_CORE_LOGQ_H

#include <stddef.h>

/* s quoted into dst (n bytes, n >= 1); returns dst. NULL is "". */
const char *gw_logq(char *dst, size_t n, const char *s);

#endif
