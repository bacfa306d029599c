/*
 * match.h - label matchers (=, !=, =~, !~) as selectors and the store use them.
 *
 * Regular expressions are anchored at both ends, as Prometheus anchors them
 * ("gpu=~\"1|2\"" matches "1" or "2", never "12"), and compiled once with
 * PCRE2 in UTF mode. A label that is absent matches as the empty string.
 * Ownership: caller-embedded; gw_matcher_release frees the compiled regex.
 * Threading: a matcher holds match scratch space; one thread at a time.
 */
#ifndef GW_MODEL_MATCH_H
#define GW_MODEL_MATCH_H

#include "core/err.h"

#include <stdbool.h>

enum gw_match_op { GW_MATCH_EQ, GW_MATCH_NEQ, GW_MATCH_RE, GW_MATCH_NRE };

struct gw_matcher {
	const char *name; /* borrowed */
	const char *value;
	enum gw_match_op op;
	void *re; /* pcre2_code */
	void *md; /* pcre2_match_data */
};

int gw_matcher_init(struct gw_matcher *m, const char *name, const char *value, enum gw_match_op op,
		    struct gw_err *err);
void gw_matcher_release(struct gw_matcher *m);
bool gw_matcher_matches(const struct gw_matcher *m, const char *v);

/* Compile a full-string regex for other users (label_replace); NULL + err if bad. */
void *gw_regex_compile(const char *re, struct gw_err *err);
void gw_regex_free(void *re);



/*
 * Match v against a regex from gw_regex_compile(); on a match fill ov with
 * start/end offsets of up to max groups ((size_t)-1 for unset) and return
 * the group count, else return 0.
 */
int gw_regex_match_groups(void *re, const char *v, size_t *ov, int max);
/* Number of a named group, or -1. */
long gw_regex_group_number(void *re, const char *name);
#endif
