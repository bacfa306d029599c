/*
 * parse.c - the inverse of format.c: a value as nvidia-smi's --query-gpu CSV
 * prints it ("32362 MiB", "627.40 W", "0x0000", "Enabled", "P0", "[N/A]")
 * read back into the field's canonical unit, so logs people already keep
 * can be imported. Units are optional (nounits logs); "[N/A]" and the other
 * bracketed texts give a value whose state says it is not available.
 */
#include "fields/fields_table.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <strings.h>

/* Strip a trailing " unit" (as printed) from [s, *end). */
static void strip_unit(const struct gw_field *f, const char *s, const char **end)
{
	if (!f->unit)
		return;
	size_t ul = strlen(f->unit), len = (size_t)(*end - s);
	if (len > ul && strncmp(*end - ul, f->unit, ul) == 0) {
		const char *e = *end - ul;
		while (e > s && e[-1] == ' ')
			e--;
		*end = e;
	}
}

static int parse_number(const char *s, const char *end, double *out)
{
	char tmp[64];
	size_t n = (size_t)(end - s);
	if (n == 0 || n >= sizeof(tmp))
		return GW_EPARSE;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *e;
	double v = tmp[0] == '0' && (tmp[1] == 'x' || tmp[1] == 'X') ? (double)strtoull(tmp, &e, 16) : strtod(tmp, &e);
	if (*e || !isfinite(v))
		return GW_EPARSE;
	*out = v;
	return 0;
}

static int word(const char *s, size_t n, const char *no, const char *yes, int64_t *out)
{
	if (strlen(no) == n && strncasecmp(s, no, n) == 0)
		*out = 0;
	else if (strlen(yes) == n && strncasecmp(s, yes, n) == 0)
		*out = 1;
	else
		return GW_EPARSE;
	return 0;
}

int gw_field_parse(const struct gw_field *f, const char *text, size_t len, struct gw_value *v)
{
	memset(v, 0, sizeof(*v));
	while (len && isspace((unsigned char)*text)) {
		text++;
		len--;
	}
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	const char *end = text + len;
	if ((len && text[0] == '[') || (len == 3 && strncmp(text, "N/A", 3) == 0)) {
		v->state = GW_V_NA;
		return 0;
	}
	v->state = GW_V_OK;
	v->kind = GW_VK_INT;
	double x;
	switch (f->fmt) {
	case GW_FMT_STR:
	case GW_FMT_TIMESTAMP:
		v->kind = GW_VK_STR;
		snprintf(v->s, sizeof(v->s), "%.*s", (int)(len < GW_VALUE_STR_MAX - 1 ? len : GW_VALUE_STR_MAX - 1), text);
		return 0;
	case GW_FMT_ENABLED:
		return word(text, len, "Disabled", "Enabled", &v->i);
	case GW_FMT_ACTIVE:
		return word(text, len, "Not Active", "Active", &v->i);
	case GW_FMT_YESNO:
		return word(text, len, "No", "Yes", &v->i);
	case GW_FMT_PSTATE:
		if (len < 2 || (text[0] != 'P' && text[0] != 'p') || parse_number(text + 1, end, &x) ||
		    !(x >= 0 && x <= 32))
			return GW_EPARSE;
		v->i = (int64_t)x;
		return 0;
	case GW_FMT_ENUM:
		for (uint8_t i = 0; i < f->nnames; i++) {
			if (f->names[i] && strlen(f->names[i]) == len && strncmp(f->names[i], text, len) == 0) {
				v->i = i;
				return 0;
			}
		}
		return GW_EPARSE;
	default:
		break;
	}
	strip_unit(f, text, &end);
	if (parse_number(text, end, &x))
		return GW_EPARSE;
	/* What converts to an integer must fit one (int64: 9.2e18) after its
	 * scaling: a log's 1e300 is refused, not wrapped. */
	double scale = f->fmt == GW_FMT_MIB				       ? 1048576.0
		       : f->fmt == GW_FMT_MW_AS_W || f->fmt == GW_FMT_NS_AS_US ? 1000.0
									       : 1.0;
	if (!(fabs(x) * scale < 9.2e18))
		return GW_ERANGE;
	switch (f->fmt) {
	case GW_FMT_MIB:
		v->i = (int64_t)llround(x * 1048576.0);
		break;
	case GW_FMT_MW_AS_W:
		v->i = (int64_t)llround(x * 1000.0);
		break;
	case GW_FMT_NS_AS_US:
		v->i = (int64_t)llround(x * 1000.0);
		break;
	default:
		if (x != floor(x)) {
			v->kind = GW_VK_FLOAT;
			v->d = x;
		} else {
			v->i = (int64_t)x;
		}
		break;
	}
	return 0;
}
