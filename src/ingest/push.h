/*
 * push.h - Prometheus Pushgateway's protocol, for jobs that push what
 * they measure (a training loop's tokens/s and step time, for live MFU)
 * instead of being scraped: the grouping key from a request path
 * (/metrics/job/NAME{/LABEL/VALUE}, with Pushgateway's "@base64" form for
 * values that hold a slash or are empty), pushed bodies in the text
 * format checked and parsed, and the groups they land in: PUT replaces a
 * group, POST replaces the families of the same name in it, DELETE
 * removes it. gw_push_render() writes them as the Pushgateway serves
 * them: every pushed sample with its group's labels, each family once
 * over all groups, plus push_time_seconds and push_failure_time_seconds
 * a group.
 *
 * Refused, as the Pushgateway refuses them (nothing changes, 400): a
 * body line that does not parse, a sample with a time stamp, a sample
 * label that names a grouping label with another value, a family whose
 * type differs from the same family's in another group.
 *
 * Ownership: the caller owns the store (_new/_free); keys borrow nothing
 * after gw_push_key_parse returns (they hold their own copies). Threading:
 * none inside; the caller serialises calls on one store.
 */
#ifndef GW_INGEST_PUSH_H
#define GW_INGEST_PUSH_H

#include "core/err.h"
#include "export/expfmt.h"
#include "model/labels.h"

#include <stddef.h>
#include <stdint.h>

#define GW_PUSH_KEY_MAX 16	   /* labels in a grouping key */
#define GW_PUSH_KEY_BYTES 2048	   /* their names and values, decoded */
#define GW_PUSH_GROUPS_MAX 4096	   /* groups a store holds */
#define GW_PUSH_SAMPLES_MAX 100000 /* samples a group holds */

/* A grouping key: job first, then the path's labels in path order. */
struct gw_push_key {
	struct gw_lpair l[GW_PUSH_KEY_MAX];
	size_t n;
	char buf[GW_PUSH_KEY_BYTES];
};

/* "/metrics/job/train/rank/0" -> {job="train", rank="0"}. GW_EINVAL with why in err. */
int gw_push_key_parse(const char *path, struct gw_push_key *k, struct gw_err *err);

enum gw_push_method { GW_PUSH_PUT, GW_PUSH_POST, GW_PUSH_DELETE };

struct gw_push_store;

int gw_push_store_new(struct gw_push_store **out);
void gw_push_store_free(struct gw_push_store *s);

/*
 * Apply one request at now_ms. A refused push changes no sample but sets
 * the group's push_failure_time_seconds (when the group exists). Returns
 * 0, GW_EINVAL / GW_EPARSE (a bad body: 400), GW_EOVERFLOW (over a cap)
 * or GW_ENOMEM, with why in err.
 */
int gw_push_apply(struct gw_push_store *s, enum gw_push_method m, const struct gw_push_key *k,
		  const char *body, size_t len, int64_t now_ms, struct gw_err *err);

/* Every group's families, then push_time_seconds and push_failure_time_seconds. */
void gw_push_render(const struct gw_push_store *s, struct gw_expfmt *w);

/*
 * Every sample of group k as a series: __name__ (the family's name with
 * its sample's suffix), the sample's labels, then the group's (empty
 * values left out). Labels are valid during the call only. Returns the
 * first non-zero result of fn, or 0 (also when there is no such group).
 */
typedef int (*gw_push_sample_fn)(void *ctx, const struct gw_lpair *labels, size_t n, double v);
int gw_push_group_each(const struct gw_push_store *s, const struct gw_push_key *k, gw_push_sample_fn fn,
		       void *ctx);

/* Whether group k's family NAME has samples from its last push (false: none, or a POST kept it as it was). */
bool gw_push_family_pushed(const struct gw_push_store *s, const struct gw_push_key *k, const char *name);

/* The number of groups and of samples in them (for the agent's own metrics and tests). */
void gw_push_count(const struct gw_push_store *s, size_t *groups, size_t *samples);

#endif
