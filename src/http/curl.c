/*
 * curl.c - libcurl's functions looked up in the library loaded at run time.
 */
#include "http/curl.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

int gw_curl_open(struct gw_curl *c, struct gw_err *err)
{
	const char *path = getenv("GPUWATCH_CURL_LIBRARY");
	if (!path || !*path)
		path = GW_CURL_SONAME;
	memset(c, 0, sizeof(*c));
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return gw_err_set(err, GW_ENOLIB, "cannot load %s (install libcurl4): %s", path, dlerror());
#define GW_CURL_RESOLVE(name)                                                                      \
	*(void **)&c->name = dlsym(h, #name);                                                      \
	if (!c->name)                                                                              \
		return gw_err_set(err, GW_ENOLIB, "%s lacks %s (libcurl 7.68 or newer is needed)", path, #name);
	GW_CURL_FUNCS(GW_CURL_RESOLVE)
#undef GW_CURL_RESOLVE
	if (c->curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return gw_err_set(err, GW_ENOLIB, "%s: curl_global_init failed", path);
	return 0;
}
