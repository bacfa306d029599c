/*
 * snappy.h - the snappy block format (what remote write's bodies are
 * compressed with), from Debian's libsnappy, loaded at run time.
 *
 * libsnappy is a C++ library: linking it would put libstdc++ into every
 * one-shot command's start (see CMakeLists.txt), so its C interface
 * (snappy-c.h) is dlopen()ed by name ("libsnappy.so.1", or
 * $GPUWATCH_SNAPPY_LIBRARY) when a remote writer starts, and called
 * through this table, as http/curl.h does for libcurl.
 *
 * Ownership: the caller embeds struct gw_snappy; the library stays loaded
 * until exit. Threading: open from one thread; the table is read-only
 * afterwards and snappy's functions are reentrant.
 */
#ifndef GW_EXPORT_SNAPPY_H
#define GW_EXPORT_SNAPPY_H

#include "core/buf.h"
#include "core/err.h"

#include <snappy-c.h>

#define GW_SNAPPY_SONAME "libsnappy.so.1"

#define GW_SNAPPY_FUNCS(X)                                                                                   \
	X(snappy_compress)                                                                                   \
	X(snappy_uncompress)                                                                                 \
	X(snappy_max_compressed_length)                                                                      \
	X(snappy_uncompressed_length)

struct gw_snappy {
#define GW_SNAPPY_MEMBER(name) __typeof__(&name) name;
	GW_SNAPPY_FUNCS(GW_SNAPPY_MEMBER)
#undef GW_SNAPPY_MEMBER
};

/* Load libsnappy into s. GW_ENOLIB with "cannot load libsnappy.so.1 (...)" when it is missing. */
int gw_snappy_open(struct gw_snappy *s, struct gw_err *err);

/* in -> out (replaced) in snappy's block format. */
int gw_snappy_compress(const struct gw_snappy *s, const void *in, size_t len, struct gw_buf *out);
/* A block back to its bytes (out replaced); GW_EINVAL when it is not valid snappy. */
int gw_snappy_uncompress(const struct gw_snappy *s, const void *in, size_t len, struct gw_buf *out);

#endif
