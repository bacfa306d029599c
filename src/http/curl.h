/*
 * curl.h - libcurl, loaded when a client first needs HTTP (top's remote
 * views, import's remote write, the alert notifier).
 *
 * The binary loads only libc and libm at start (exec speed of the one-shot
 * commands; see CMakeLists.txt), so libcurl is dlopen()ed by name
 * ("libcurl.so.4", or $GPUWATCH_CURL_LIBRARY) the first time a module needs
 * HTTP, and its functions are called through this table. The library stays
 * loaded until exit: unloading it would leave its TLS library's exit
 * handlers pointing nowhere.
 *
 * Ownership: the caller embeds struct gw_curl. Threading: open from one
 * thread before any use; the table is read-only afterwards.
 */
#ifndef GW_HTTP_CURL_H
#define GW_HTTP_CURL_H

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

#include "core/err.h"

#define GW_CURL_SONAME "libcurl.so.4"

#define GW_CURL_FUNCS(X)                                                                           \
	X(curl_global_init)                                                                        \
	X(curl_easy_init)                                                                          \
	X(curl_easy_setopt)                                                                        \
	X(curl_easy_getinfo)                                                                       \
	X(curl_easy_cleanup)                                                                       \
	X(curl_easy_strerror)                                                                      \
	X(curl_easy_escape)                                                                        \
	X(curl_easy_perform)                                                                       \
	X(curl_slist_append)                                                                       \
	X(curl_slist_free_all)                                                                     \
	X(curl_free)                                                                               \
	X(curl_multi_init)                                                                         \
	X(curl_multi_add_handle)                                                                   \
	X(curl_multi_remove_handle)                                                                \
	X(curl_multi_perform)                                                                      \
	X(curl_multi_poll)                                                                         \
	X(curl_multi_wakeup)                                                                       \
	X(curl_multi_info_read)                                                                    \
	X(curl_multi_cleanup)

struct gw_curl {
#define GW_CURL_MEMBER(name) __typeof__(&name) name;
	GW_CURL_FUNCS(GW_CURL_MEMBER)
#undef GW_CURL_MEMBER
};

/* Load libcurl into c. GW_ENOLIB with "cannot load libcurl.so.4 (...)" when it is missing or too old. */
int gw_curl_open(struct gw_curl *c, struct gw_err *err);

#endif
