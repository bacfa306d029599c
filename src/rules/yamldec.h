/*
 * yamldec.h - strict YAML decoding as Prometheus' yaml decoders do it
 * (KnownFields / UnmarshalStrict): unknown keys, repeated keys and values
 * of the wrong kind become "unmarshal errors" gathered with their lines,
 * a bad duration stops decoding. Shared by the rule-file and unit-test
 * file readers; errors go to a gw_rf's report.
 */
#ifndef GW_RULES_YAMLDEC_H
#define GW_RULES_YAMLDEC_H

#include "core/buf.h"
#include "rules/rulefile_int.h"

#include <stdbool.h>
#include <yaml.h>

struct gw_ydec {
	struct gw_rf *c;
	yaml_document_t *doc;
	struct gw_buf uerr; /* "\n  line N: ..." per unmarshal error */
	bool fatal;         /* a bad duration: stop */
	bool nomem;
	void *user; /* the decoder's destination */
	yaml_node_t *mapping; /* the mapping a decoder is walking, for repeated keys */
};

struct gw_rf_pos gw_yd_pos(const yaml_node_t *n);
void gw_yd_uerr(struct gw_ydec *d, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool gw_yd_null(const yaml_node_t *n);
const char *gw_yd_tag(const yaml_node_t *n);
void gw_yd_type_err(struct gw_ydec *d, const yaml_node_t *n, const char *into);
yaml_node_t *gw_yd_node(struct gw_ydec *d, int id);
char *gw_yd_str(struct gw_ydec *d, const yaml_node_t *v, bool *bad);
void gw_yd_duration(struct gw_ydec *d, const yaml_node_t *v, int64_t *ms, bool *set);
bool gw_yd_mapping(struct gw_ydec *d, const yaml_node_t *m, const char *type, const char *const *known);
void gw_yd_kvs(struct gw_ydec *d, const yaml_node_t *m, struct gw_rule_kv **out, size_t *n);

/*
 * Parse text and hand its root to decode (d->user = user); YAML syntax errors are reported
 * as "L:C: yaml: ...", unmarshal errors as one "yaml: unmarshal errors:"
 * report. Returns GW_ENOMEM or 0.
 */
int gw_yd_load(struct gw_rf *c, const char *text, size_t len, void (*decode)(struct gw_ydec *d, const yaml_node_t *root),
	       void *user);

#endif
