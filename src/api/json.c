#include "api/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gw_json_str(struct gw_buf *b, const char *s)
{
	gw_buf_putc(b, '"');
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		gw_buf_append(b, run, (size_t)(s - run));
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

/* Go's strconv.FormatFloat(v, 'f', -1, 64): shortest round-trip digits, no exponent. */
void gw_json_value(struct gw_buf *b, double v)
{
	if (isnan(v)) {
		gw_buf_puts(b, "\"NaN\"");
		return;
	}
	if (isinf(v)) {
		gw_buf_puts(b, v > 0 ? "\"+Inf\"" : "\"-Inf\"");
		return;
	}
	char e[40], out[400];
	int digits = 1;
	for (; digits <= 17; digits++) {
		snprintf(e, sizeof(e), "%.*e", digits - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	int exp = atoi(strchr(e, 'e') + 1);
	int decimals = digits - 1 - exp;
	snprintf(out, sizeof(out), "%.*f", decimals > 0 ? decimals : 0, v);
	gw_buf_putc(b, '"');
	gw_buf_puts(b, out);
	gw_buf_putc(b, '"');
}

void gw_json_time(struct gw_buf *b, int64_t ms)
{
	if (ms < 0) {
		gw_buf_putc(b, '-');
		ms = -ms;
	}
	gw_buf_printf(b, "%lld", (long long)(ms / 1000));
	if (ms % 1000)
		gw_buf_printf(b, ".%03lld", (long long)(ms % 1000));
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
