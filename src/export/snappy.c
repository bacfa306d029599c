/*
 * snappy.c - libsnappy's C functions looked up in the library loaded at run time.
 */
#include "export/snappy.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

int gw_snappy_open(struct gw_snappy *s, struct gw_err *err)
{
	const char *path = getenv("GPUWATCH_SNAPPY_LIBRARY");
	if (!path || !*path)
		path = GW_SNAPPY_SONAME;
	memset(s, 0, sizeof(*s));
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return gw_err_set(err, GW_ENOLIB, "cannot load %s (install libsnappy1v5): %s", path,
				  dlerror());
#define GW_SNAPPY_RESOLVE(name)                                                                              \
	*(void **)&s->name = dlsym(h, #name);                                                                \
	if (!s->name)                                                                                        \
		return gw_err_set(err, GW_ENOLIB, "%s lacks %s", path, #name);
	GW_SNAPPY_FUNCS(GW_SNAPPY_RESOLVE)
#undef GW_SNAPPY_RESOLVE
	return 0;
}

int gw_snappy_compress(const struct gw_snappy *s, const void *in, size_t len, struct gw_buf *out)
{
	size_t cap = s->snappy_max_compressed_length(len);
	gw_buf_reset(out);
	int rc = gw_buf_reserve(out, cap + 1);
	if (rc)
		return rc;
	size_t n = cap;
	if (s->snappy_compress(in, len, out->data, &n) != SNAPPY_OK)
		return GW_EINVAL;
	out->len = n;
	out->data[n] = '\0'; /* the buffer's promise */
	return 0;
}

int gw_snappy_uncompress(const struct gw_snappy *s, const void *in, size_t len, struct gw_buf *out)
{
	size_t n = 0;
	gw_buf_reset(out);
	if (s->snappy_uncompressed_length(in, len, &n) != SNAPPY_OK)
		return GW_EINVAL;
	int rc = gw_buf_reserve(out, n + 1);
	if (rc)
		return rc;
	if (s->snappy_uncompress(in, len, out->data, &n) != SNAPPY_OK)
		return GW_EINVAL;
	out->len = n;
	out->data[n] = '\0'; /* the buffer's promise */
	return 0;
}
