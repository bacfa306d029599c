/*
 * err.h - gpuwatch's error codes and the optional error message carrier.
 *
 * Every fallible function returns int: 0 on success or a negative GW_E* code.
 * The codes come from one X-macro list that also yields their names and
 * messages. Where a caller needs context ("open /x: No such file"), the callee
 * fills an optional struct gw_err passed by the caller; a NULL gw_err is
 * allowed everywhere. The struct is caller-owned and holds no heap memory.
 * Thread-safe: no shared state.
 */
#ifndef GW_CORE_ERR_H
#define GW_CORE_ERR_H

#include <stddef.h>

#define GW_ERRNO_MAP(X)                                                        \
	X(OK, "success")                                                       \
	X(NOMEM, "out of memory")                                              \
	X(INVAL, "invalid argument")                                           \
	X(IO, "input/output error")                                            \
	X(NOTFOUND, "not found")                                               \
	X(NOTSUP, "not supported")                                             \
	X(RANGE, "value out of range")                                         \
	X(PARSE, "parse error")                                                \
	X(NVML, "NVML call failed")                                            \
	X(NODRIVER, "NVIDIA driver not loaded")                                \
	X(NOLIB, "NVML library not found")                                     \
	X(GPULOST, "GPU has fallen off the bus")                               \
	X(TIMEOUT, "timed out")                                                \
	X(PERM, "permission denied")                                           \
	X(OVERFLOW, "buffer limit reached")                                    \
	X(BUSY, "held by another process")

enum gw_errno {
#define GW_ERR_ENUM(name, msg) GW_E_##name##_IDX,
	GW_ERRNO_MAP(GW_ERR_ENUM)
#undef GW_ERR_ENUM
	GW_E__COUNT
};

/* Negative codes: GW_ENOMEM == -1, ... */
#define GW_OK 0
#define GW_ENOMEM (-GW_E_NOMEM_IDX)
#define GW_EINVAL (-GW_E_INVAL_IDX)
#define GW_EIO (-GW_E_IO_IDX)
#define GW_ENOTFOUND (-GW_E_NOTFOUND_IDX)
#define GW_ENOTSUP (-GW_E_NOTSUP_IDX)
#define GW_ERANGE (-GW_E_RANGE_IDX)
#define GW_EPARSE (-GW_E_PARSE_IDX)
#define GW_ENVML (-GW_E_NVML_IDX)
#define GW_ENODRIVER (-GW_E_NODRIVER_IDX)
#define GW_ENOLIB (-GW_E_NOLIB_IDX)
#define GW_EGPULOST (-GW_E_GPULOST_IDX)
#define GW_ETIMEOUT (-GW_E_TIMEOUT_IDX)
#define GW_EPERM (-GW_E_PERM_IDX)
#define GW_EOVERFLOW (-GW_E_OVERFLOW_IDX)
#define GW_EBUSY (-GW_E_BUSY_IDX)

#define GW_ERR_MSG_MAX 512

/* Context for an error; msg is empty when the callee had nothing to add. */
struct gw_err {
	int code;
	char msg[GW_ERR_MSG_MAX];
};

/* "ENOMEM" style name and "out of memory" style message of a code. */
const char *gw_strerror_name(int code);
const char *gw_strerror(int code);

/*
 * Record code and a printf-style message in err (if non-NULL) and return
 * code, so callers can write `return gw_err_set(err, GW_EIO, "open %s", p);`.
 */
int gw_err_set(struct gw_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Empty err (if non-NULL). */
void gw_err_clear(struct gw_err *err);

#endif
