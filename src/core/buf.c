#include "core/buf.h"

#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gw_buf_init(struct gw_buf *b, size_t limit)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
}

void gw_buf_release(struct gw_buf *b)
{
	free(b->data);
	gw_buf_init(b, b->limit);
}

void gw_buf_reset(struct gw_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

int gw_buf_reserve(struct gw_buf *b, size_t n)
{
	/* +1 keeps room for the terminating NUL. */
	if (n > b->limit || b->len > b->limit - n)
		return GW_EOVERFLOW;
	size_t need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	if (cap > b->limit + 1)
		cap = b->limit + 1;
	char *p = realloc(b->data, cap);
	if (!p)
		return GW_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int gw_buf_append(struct gw_buf *b, const void *data, size_t n)
{
	int rc = gw_buf_reserve(b, n);
	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int gw_buf_puts(struct gw_buf *b, const char *s)
{
	return gw_buf_append(b, s, strlen(s));
}

int gw_buf_putc(struct gw_buf *b, char c)
{
	return gw_buf_append(b, &c, 1);
}

int gw_buf_vprintf(struct gw_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return GW_EINVAL;
	if ((size_t)n < sizeof(small))
		return gw_buf_append(b, small, (size_t)n);
	int rc = gw_buf_reserve(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int gw_buf_printf(struct gw_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = gw_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}
