/*
 * import_post.h - `gpuwatch import --agent URL`: samples read from logs
 * sent to a running agent (POST URL/api/v1/import, an agent started with
 * --web.enable-import) as OpenMetrics text with time stamps, so they land
 * in the store the agent holds and are queryable at once. Samples are
 * buffered and posted in bodies of at most POST_BYTES (under the agent's
 * 1 MiB request limit); libcurl is loaded on open (http/curl.h).
 *
 * Ownership: the caller opens and closes. Threading: one thread.
 */
#ifndef GW_CMD_IMPORT_POST_H
#define GW_CMD_IMPORT_POST_H

#include "core/err.h"
#include "model/labels.h"

#include <stdbool.h>
#include <stdint.h>

struct gw_import_post;

int gw_import_post_open(struct gw_import_post **out, const char *url, struct gw_err *err);
void gw_import_post_close(struct gw_import_post *p);

/* Buffer one sample (labels with __name__); 0, or GW_EOVERFLOW for labels past 4 KiB. */
int gw_import_post_add(struct gw_import_post *p, const struct gw_lpair *l, size_t n, int64_t t_ms, double v);

/* Post what is buffered: when it passed the body size, or always with force. 0 or the error, err saying why. */
int gw_import_post_flush(struct gw_import_post *p, bool force, struct gw_err *err);

/* Samples the agent stored, and refused (not newer than their series' last), so far. */
void gw_import_post_counts(const struct gw_import_post *p, uint64_t *stored, uint64_t *refused);

#endif
