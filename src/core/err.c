#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const names[] = {
#define GW_ERR_NAME(name, msg) "E" #name,
	GW_ERRNO_MAP(GW_ERR_NAME)
#undef GW_ERR_NAME
};

static const char *const msgs[] = {
#define GW_ERR_STR(name, msg) msg,
	GW_ERRNO_MAP(GW_ERR_STR)
#undef GW_ERR_STR
};

static int idx_of(int code)
{
	int i = code < 0 ? -code : code;
	return i < GW_E__COUNT ? i : -1;
}

const char *gw_strerror_name(int code)
{
	int i = idx_of(code);
	return i < 0 ? "EUNKNOWN" : names[i];
}

const char *gw_strerror(int code)
{
	int i = idx_of(code);
	return i < 0 ? "unknown error" : msgs[i];
}

int gw_err_set(struct gw_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

void gw_err_clear(struct gw_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}
