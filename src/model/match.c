#define PCRE2_CODE_UNIT_WIDTH 8
#include "model/match.h"

#include <pcre2.h>
#include <string.h>

void *gw_regex_compile(const char *re, struct gw_err *err)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
				      PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_UTF, &code, &off, NULL);
	if (!c) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(code, msg, sizeof(msg));
		gw_err_set(err, GW_EPARSE, "invalid regular expression \"%s\": %s at offset %zu", re,
			   (const char *)msg, (size_t)off);
	}
	return c;
}

void gw_regex_free(void *re)
{
	pcre2_code_free(re);
}

int gw_matcher_init(struct gw_matcher *m, const char *name, const char *value, enum gw_match_op op,
		    struct gw_err *err)
{
	memset(m, 0, sizeof(*m));
	m->name = name;
	m->value = value;
	m->op = op;
	if (op == GW_MATCH_RE || op == GW_MATCH_NRE) {
		m->re = gw_regex_compile(value, err);
		if (!m->re)
			return GW_EPARSE;
		m->md = pcre2_match_data_create_from_pattern(m->re, NULL);
		if (!m->md) {
			pcre2_code_free(m->re);
			m->re = NULL;
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		}
	}
	return 0;
}

void gw_matcher_release(struct gw_matcher *m)
{
	if (m->md)
		pcre2_match_data_free(m->md);
	if (m->re)
		pcre2_code_free(m->re);
	m->md = m->re = NULL;
}

bool gw_matcher_matches(const struct gw_matcher *m, const char *v)
{
	if (!v)
		v = "";
	switch (m->op) {
	case GW_MATCH_EQ:
		return strcmp(v, m->value) == 0;
	case GW_MATCH_NEQ:
		return strcmp(v, m->value) != 0;
	default: {
		int rc = pcre2_match(m->re, (PCRE2_SPTR)v, strlen(v), 0, 0, m->md, NULL);
		return (rc >= 0) == (m->op == GW_MATCH_RE);
	}
	}
}

int gw_regex_match_groups(void *re, const char *v, size_t *ov, int max)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!md)
		return 0;
	int rc = pcre2_match(re, (PCRE2_SPTR)v, strlen(v), 0, 0, md, NULL);
	int n = 0;
	if (rc > 0) {
		PCRE2_SIZE *o = pcre2_get_ovector_pointer(md);
		uint32_t count = pcre2_get_ovector_count(md);
		n = (int)count < max ? (int)count : max;
		for (int i = 0; i < n; i++) {
			ov[2 * i] = o[2 * i] == PCRE2_UNSET ? (size_t)-1 : (size_t)o[2 * i];
			ov[2 * i + 1] = o[2 * i + 1] == PCRE2_UNSET ? (size_t)-1 : (size_t)o[2 * i + 1];
		}
	}
	pcre2_match_data_free(md);
	return n;
}

long gw_regex_group_number(void *re, const char *name)
{
	int n = pcre2_substring_number_from_name(re, (PCRE2_SPTR)name);
	return n < 0 ? -1 : n;
}
