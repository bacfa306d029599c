#include "api/json.h"

#include "model/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

void gw_json_str(struct gw_buf *b, const char *s)
{
	gw_buf_putc(b, '"');
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		/* Go's encoder, which Prometheus answers with, also escapes <, > and &,
		 * and U+2028 and U+2029 (E2 80 A8, E2 80 A9), for HTML and JavaScript */
		bool ls = c == 0xE2 && (unsigned char)s[1] == 0x80 && ((unsigned char)s[2] & 0xFE) == 0xA8;
		if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && !ls)
			continue;
		gw_buf_append(b, run, (size_t)(s - run));
		if (ls) {
			gw_buf_puts(b, (unsigned char)s[2] == 0xA8 ? "\\u2028" : "\\u2029");
			s += 2;
			run = s + 1;
			continue;
		}
		switch (c) {
		case '"':
			gw_buf_puts(b, "\\\"");
			break;
		case '\\':
			gw_buf_puts(b, "\\\\");
			break;
		case '\n':
			gw_buf_puts(b, "\\n");
			break;
		case '\t':
			gw_buf_puts(b, "\\t");
			break;
		case '\r':
			gw_buf_puts(b, "\\r");
			break;
		default:
			gw_buf_printf(b, "\\u%04x", c);
			break;
		}
		run = s + 1;
	}
	gw_buf_append(b, run, (size_t)(s - run));
	gw_buf_putc(b, '"');
}

size_t gw_json_value_fmt(char *out, double v)
{
	if (isnan(v)) {
		memcpy(out, "\"NaN\"", 5);
		return 5;
	}
	if (isinf(v)) {
		memcpy(out, v > 0 ? "\"+Inf\"" : "\"-Inf\"", 6);
		return 6;
	}
	out[0] = '"';
	/* Prometheus' writer switches to an exponent outside [1e-6, 1e21). */
	double a = fabs(v);
	size_t n = a != 0 && (a < 1e-6 || a >= 1e21) ? gw_num_format_e(out + 1, v)
						      : gw_num_format_f(out + 1, GW_JSON_VALUE_MAX - 2, v);
	out[n + 1] = '"';
	return n + 2;
}

/* As Prometheus writes a sample value: shortest round-trip digits, 'f' or 'e'. */
void gw_json_value(struct gw_buf *b, double v)
{
	char out[GW_JSON_VALUE_MAX];
	gw_buf_append(b, out, gw_json_value_fmt(out, v));
}

/* Prometheus' scalar result is written by its own strconv.FormatFloat(v, 'f',
 * -1, 64), not by the sample writer that switches to an exponent. */
void gw_json_scalar(struct gw_buf *b, double v)
{
	char out[GW_JSON_VALUE_MAX];
	if (!isfinite(v)) {
		gw_json_value(b, v);
		return;
	}
	out[0] = '"';
	size_t n = gw_num_format_f(out + 1, GW_JSON_VALUE_MAX - 2, v);
	out[n + 1] = '"';
	gw_buf_append(b, out, n + 2);
}

size_t gw_json_time_fmt(char *out, int64_t ms)
{
	uint64_t u = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
	return gw_num_decimal(out, ms < 0, u % 1000 ? u : u / 1000, u % 1000 ? 3 : 0);
}

void gw_json_time(struct gw_buf *b, int64_t ms)
{
	char out[GW_JSON_TIME_MAX];
	gw_buf_append(b, out, gw_json_time_fmt(out, ms));
}

void gw_json_labels(struct gw_buf *b, const struct gw_labels *l)
{
	gw_buf_putc(b, '{');
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			gw_buf_putc(b, ',');
		gw_json_str(b, l->p[i].name);
		gw_buf_putc(b, ':');
		gw_json_str(b, l->p[i].value);
	}
	gw_buf_putc(b, '}');
}
