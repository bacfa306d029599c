/*
 * jsonread.h - a small, strict, bounded JSON reader (RFC 8259).
 *
 * Meant for answers from other programs (Prometheus' HTTP API): the whole
 * text is parsed into a flat array of values in one pass without recursion,
 * so depth is limited by a cap, not by the C stack. Anything that is not
 * JSON (a truncated answer, a trailing comma, a lone surrogate, bytes after
 * the value) is GW_EPARSE with the byte offset in the message; a text over
 * the size cap or with more nesting than the depth cap is GW_ERANGE.
 *
 * Strings are decoded (escapes, \u surrogate pairs to UTF-8) into the
 * document's own copy of the text and NUL-terminated there; a string with
 * an escaped NUL keeps its full length in len. Numbers are read without
 * the C locale's help, so a decimal comma locale changes nothing.
 *
 * Ownership: gw_jsonread_parse allocates the document; gw_jsonread_free
 * frees it and every value and string in it (all borrowed from it).
 * Threading: a document is immutable after parsing; reentrant otherwise.
 */
#ifndef GW_CORE_JSONREAD_H
#define GW_CORE_JSONREAD_H

#include "core/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gw_jtype { GW_JNULL, GW_JFALSE, GW_JTRUE, GW_JNUM, GW_JSTR, GW_JARR, GW_JOBJ };

struct gw_jval {
	uint8_t type;    /* enum gw_jtype */
	uint32_t next;   /* index of the next sibling; 0: none (0 is always the root) */
	uint32_t first;  /* arrays, objects: index of the first child; 0: empty */
	uint32_t n;      /* arrays, objects: number of children */
	const char *key; /* members of an object: their name; else NULL */
	const char *s;   /* strings: decoded, NUL-terminated */
	size_t len;      /* strings: bytes in s */
	double num;      /* numbers */
};

struct gw_jdoc {
	struct gw_jval *v; /* v[0] is the root */
	uint32_t n;
	char *text; /* the document's copy of the text, strings decoded in place */
};

#define GW_JSON_DEPTH_MAX 64
#define GW_JSON_SIZE_MAX (64u << 20)

/* Limits; a zero field means the default above. */
struct gw_json_limits {
	size_t max_bytes;
	unsigned int max_depth;
};

/*
 * Parse len bytes of text (no NUL needed). On success *out is a new
 * document. Errors: GW_EPARSE (not JSON; err says where and why),
 * GW_ERANGE (over a cap), GW_ENOMEM.
 */
int gw_jsonread_parse(struct gw_jdoc **out, const char *text, size_t len, const struct gw_json_limits *lim,
		      struct gw_err *err);
void gw_jsonread_free(struct gw_jdoc *d);

static inline const struct gw_jval *gw_jsonread_root(const struct gw_jdoc *d)
{
	return &d->v[0];
}

/* Member key of object o (the first one with that name); NULL when o is not an object or lacks it. */
const struct gw_jval *gw_jsonread_get(const struct gw_jdoc *d, const struct gw_jval *o, const char *key);

/* Child i of array or object a; NULL past the end or when a is neither. */
const struct gw_jval *gw_jsonread_at(const struct gw_jdoc *d, const struct gw_jval *a, uint32_t i);

/* The sibling after v; NULL at the end. Walks arrays and objects in order. */
static inline const struct gw_jval *gw_jsonread_next(const struct gw_jdoc *d, const struct gw_jval *v)
{
	return v->next ? &d->v[v->next] : NULL;
}

static inline const struct gw_jval *gw_jsonread_first(const struct gw_jdoc *d, const struct gw_jval *a)
{
	return (a->type == GW_JARR || a->type == GW_JOBJ) && a->first ? &d->v[a->first] : NULL;
}

/* A string value's text, or NULL when v is NULL or not a string. */
const char *gw_jsonread_str(const struct gw_jval *v);

/*
 * A decimal number as JSON writes it, and also the words Prometheus uses
 * for sample values ("NaN", "+Inf", "-Inf", "Inf"), into *out; the whole
 * of s[0..len) must be the number. Returns 0 or GW_EPARSE.
 */
int gw_jsonread_number(const char *s, size_t len, double *out);

#endif
