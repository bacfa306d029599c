/*
 * unittest_fmt.c - what promtool's unit-test failures print, in Go's
 * formats: model.Duration and time.Duration, strconv.Quote, a label set's
 * String(), and FormatFloat's 'E'.
 */
#include "rules/manager_int.h"
#include "rules/unittest_int.h"

#include <stdio.h>
#include <string.h>

/* Prometheus' model.Duration: "1h30m", "5m", "0s", "1d", years and weeks only when exact. */
void gw_ut_model_duration(struct gw_buf *b, int64_t ms)
{
	if (ms == 0) {
		gw_buf_puts(b, "0s");
		return;
	}
	static const struct {
		const char *unit;
		int64_t mult;
		bool exact;
	} u[] = {{"y", 365LL * 86400000, true}, {"w", 7LL * 86400000, true}, {"d", 86400000, false},
		 {"h", 3600000, false},	     {"m", 60000, false},	     {"s", 1000, false},
		 {"ms", 1, false}};
	if (ms < 0) {
		gw_buf_putc(b, '-');
		ms = -ms;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (u[i].exact && ms % u[i].mult)
			continue;
		if (ms / u[i].mult > 0) {
			gw_buf_printf(b, "%lld%s", (long long)(ms / u[i].mult), u[i].unit);
			ms %= u[i].mult;
		}
	}
}

/* Go's time.Duration.String() for whole milliseconds: "0s", "500ms", "1.5s", "1m0s", "1h0m0s". */
void gw_ut_go_duration(struct gw_buf *b, int64_t ms)
{
	if (ms < 0) {
		gw_buf_putc(b, '-');
		ms = -ms;
	}
	if (ms == 0) {
		gw_buf_puts(b, "0s");
		return;
	}
	if (ms < 1000) {
		gw_buf_printf(b, "%lldms", (long long)ms);
		return;
	}
	int64_t h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, frac = ms % 1000;
	if (h)
		gw_buf_printf(b, "%lldh", (long long)h);
	if (h || m)
		gw_buf_printf(b, "%lldm", (long long)m);
	gw_buf_printf(b, "%lld", (long long)s);
	if (frac) {
		char f[8];
		snprintf(f, sizeof(f), ".%03lld", (long long)frac);
		size_t n = strlen(f);
		while (f[n - 1] == '0')
			f[--n] = '\0';
		gw_buf_puts(b, f);
	}
	gw_buf_putc(b, 's');
}

/* Go's strconv.Quote for the text people write (printable UTF-8 kept). */
void gw_ut_go_quote(struct gw_buf *b, const char *s)
{
	gw_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			gw_buf_printf(b, "\\%c", c);
		else if (c == '\n')
			gw_buf_puts(b, "\\n");
		else if (c == '\t')
			gw_buf_puts(b, "\\t");
		else if (c == '\r')
			gw_buf_puts(b, "\\r");
		else if (c < 0x20 || c == 0x7f)
			gw_buf_printf(b, "\\x%02x", c);
		else
			gw_buf_putc(b, (char)c);
	}
	gw_buf_putc(b, '"');
}

/* labels.Labels.String(): {a="b", c="d"}. */
void gw_ut_labels_string(struct gw_buf *b, const struct gw_labels *l)
{
	gw_buf_putc(b, '{');
	for (size_t i = 0; i < l->n; i++) {
		gw_buf_printf(b, "%s%s=", i ? ", " : "", l->p[i].name);
		gw_ut_go_quote(b, l->p[i].value);
	}
	gw_buf_putc(b, '}');
}

void gw_ut_float_E(struct gw_buf *b, double v)
{
	char out[40];
	gw_rules_format_e(out, v, true);
	gw_buf_puts(b, out);
}

