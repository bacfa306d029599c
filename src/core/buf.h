/*
 * buf.h - a growing byte buffer with a cap.
 *
 * Every growing buffer in gpuwatch has an upper bound so a runaway producer
 * (a huge request, a pathological query) fails with GW_EOVERFLOW instead of
 * eating the machine. The buffer is always NUL-terminated when non-empty.
 * Ownership: caller-embedded; gw_buf_release frees the storage.
 * Threading: none; one owner at a time.
 */
#ifndef GW_CORE_BUF_H
#define GW_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct gw_buf {
	char *data;
	size_t len;
	size_t cap;   /* allocated bytes */
	size_t limit; /* most bytes it may ever hold */
};

void gw_buf_init(struct gw_buf *b, size_t limit);
void gw_buf_release(struct gw_buf *b);
void gw_buf_reset(struct gw_buf *b); /* len = 0, storage kept */

int gw_buf_append(struct gw_buf *b, const void *data, size_t n);
int gw_buf_puts(struct gw_buf *b, const char *s);
int gw_buf_putc(struct gw_buf *b, char c);
int gw_buf_printf(struct gw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gw_buf_vprintf(struct gw_buf *b, const char *fmt, va_list ap);

/* Make room for n more bytes; returns 0 or GW_ENOMEM / GW_EOVERFLOW. */
int gw_buf_reserve(struct gw_buf *b, size_t n);

#endif
