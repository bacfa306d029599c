/*
 * tmpl_time.c - time in templates: Prometheus' toTime and
 * humanizeTimestamp (seconds to a time with millisecond precision), Go's
 * time.Time String(), and the methods templates call on a time
 * ({{ (toTime $value).Format "2006-01-02" }}, .Unix, .Year, ...). Times
 * are UTC, as Prometheus makes them; Local reads as UTC too.
 */
#include "rules/tmpl_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const months[] = {"January", "February", "March",	 "April",   "May",	"June",
				     "July",	"August",   "September", "October", "November", "December"};
static const char *const days[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
				   "Thursday", "Friday", "Saturday"};

/* The civil time of ns since the epoch, and the nanoseconds within its second. */
static void civil(int64_t ns, struct tm *tm, int64_t *frac)
{
	int64_t sec = ns / 1000000000;
	*frac = ns % 1000000000;
	if (*frac < 0) {
		*frac += 1000000000;
		sec--;
	}
	time_t tt = (time_t)sec;
	gmtime_r(&tt, tm);
}

void gw_tmpl__fmt_time(struct gw_buf *b, int64_t ns)
{
	struct tm tm;
	int64_t frac;
	civil(ns, &tm, &frac);
	gw_buf_printf(b, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		      tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (frac) {
		char f[16];
		int n = snprintf(f, sizeof(f), "%09lld", (long long)frac);
		while (n > 0 && f[n - 1] == '0')
			n--;
		gw_buf_printf(b, ".%.*s", n, f);
	}
	gw_buf_puts(b, " +0000 UTC");
}

/* Go's fractional-second chunk at s: ".000" (fixed) or ".999" (trimmed); its digits or 0. */
static int fraction_chunk(const char *s, size_t n, bool *trim)
{
	if (n < 2 || (s[0] != '.' && s[0] != ',') || (s[1] != '0' && s[1] != '9'))
		return 0;
	size_t j = 1;
	while (j < n && s[j] == s[1])
		j++;
	if (j < n && s[j] >= '0' && s[j] <= '9')
		return 0;
	*trim = s[1] == '9';
	return (int)(j - 1);
}

static bool has(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && memcmp(s, p, k) == 0;
}

/* time.Time.Format for a UTC time: Go's layout chunks, the rest as text. */
static void format(struct gw_buf *b, int64_t ns, const char *l, size_t n)
{
	struct tm tm;
	int64_t frac;
	civil(ns, &tm, &frac);
	int year = tm.tm_year + 1900, h12 = tm.tm_hour % 12 ? tm.tm_hour % 12 : 12;
	for (size_t i = 0; i < n;) {
		const char *s = l + i;
		size_t r = n - i;
		bool trim;
		int fd;
		if (has(s, r, "January")) {
			gw_buf_puts(b, months[tm.tm_mon]);
			i += 7;
		} else if (has(s, r, "Jan")) {
			gw_buf_printf(b, "%.3s", months[tm.tm_mon]);
			i += 3;
		} else if (has(s, r, "Monday")) {
			gw_buf_puts(b, days[tm.tm_wday]);
			i += 6;
		} else if (has(s, r, "Mon")) {
			gw_buf_printf(b, "%.3s", days[tm.tm_wday]);
			i += 3;
		} else if (has(s, r, "MST")) {
			gw_buf_puts(b, "UTC");
			i += 3;
		} else if (has(s, r, "2006")) {
			gw_buf_printf(b, "%04d", year);
			i += 4;
		} else if (has(s, r, "002")) {
			gw_buf_printf(b, "%03d", tm.tm_yday + 1);
			i += 3;
		} else if (has(s, r, "__2")) {
			gw_buf_printf(b, "%3d", tm.tm_yday + 1);
			i += 3;
		} else if (has(s, r, "_2") && !has(s, r, "_2006")) {
			gw_buf_printf(b, "%2d", tm.tm_mday);
			i += 2;
		} else if (has(s, r, "01") || has(s, r, "02") || has(s, r, "03") || has(s, r, "04") ||
			   has(s, r, "05") || has(s, r, "06")) {
			int v[] = {tm.tm_mon + 1, tm.tm_mday, h12, tm.tm_min, tm.tm_sec, year % 100};
			gw_buf_printf(b, "%02d", v[s[1] - '1']);
			i += 2;
		} else if (has(s, r, "15")) {
			gw_buf_printf(b, "%02d", tm.tm_hour);
			i += 2;
		} else if (s[0] >= '1' && s[0] <= '5') {
			int v[] = {tm.tm_mon + 1, tm.tm_mday, h12, tm.tm_min, tm.tm_sec};
			gw_buf_printf(b, "%d", v[s[0] - '1']);
			i++;
		} else if (has(s, r, "PM") || has(s, r, "pm")) {
			const char *ap = tm.tm_hour >= 12 ? "PM" : "AM";
			gw_buf_printf(b, "%c%c", s[0] == 'p' ? ap[0] + 32 : ap[0], s[0] == 'p' ? 'm' : 'M');
			i += 2;
		} else if (has(s, r, "-07:00:00") || has(s, r, "Z07:00:00")) {
			gw_buf_puts(b, s[0] == 'Z' ? "Z" : "+00:00:00");
			i += 9;
		} else if (has(s, r, "-070000") || has(s, r, "Z070000")) {
			gw_buf_puts(b, s[0] == 'Z' ? "Z" : "+000000");
			i += 7;
		} else if (has(s, r, "-07:00") || has(s, r, "Z07:00")) {
			gw_buf_puts(b, s[0] == 'Z' ? "Z" : "+00:00");
			i += 6;
		} else if (has(s, r, "-0700") || has(s, r, "Z0700")) {
			gw_buf_puts(b, s[0] == 'Z' ? "Z" : "+0000");
			i += 5;
		} else if (has(s, r, "-07") || has(s, r, "Z07")) {
			gw_buf_puts(b, s[0] == 'Z' ? "Z" : "+00");
			i += 3;
		} else if ((fd = fraction_chunk(s, r, &trim)) > 0) {
			char f[16];
			snprintf(f, sizeof(f), "%09lld", (long long)frac);
			int k = fd > 9 ? 9 : fd;
			if (trim)
				while (k > 0 && f[k - 1] == '0')
					k--;
			if (k > 0 || !trim)
				gw_buf_printf(b, "%c%.*s", s[0], k, f);
			i += (size_t)fd + 1;
		} else {
			gw_buf_putc(b, s[0]);
			i++;
		}
	}
}

/* floatToTime: seconds to a time with Prometheus' millisecond precision. */
static int float_to_time(struct tcall *c, double v, int64_t *ns)
{
	double t = v * 1e9;
	if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) {
		struct gw_buf b;
		gw_buf_init(&b, 256);
		struct tv f = {.k = TV_FLOAT, .f = v};
		gw_tmpl__print_value(&b, &f);
		gw_tmpl__fail(c, "%s cannot be represented as a nanoseconds timestamp since it overflows int64",
		     b.data);
		gw_buf_release(&b);
		return -1;
	}
	int64_t ms = (int64_t)t / 1000000;
	*ns = ms * 1000000;
	return 0;
}

int gw_tmpl__fn_humanize_timestamp(struct tcall *c)
{
	double v;
	if (gw_tmpl__to_float(c, &c->args[0], &v))
		return -1;
	struct gw_buf b;
	gw_buf_init(&b, 256);
	if (isnan(v) || isinf(v)) {
		gw_tmpl__fmt_g4(&b, v);
		return gw_tmpl__ret_buf(c, &b);
	}
	int64_t ns;
	if (float_to_time(c, v, &ns)) {
		gw_buf_release(&b);
		return -1;
	}
	gw_tmpl__fmt_time(&b, ns);
	return gw_tmpl__ret_buf(c, &b);
}

int gw_tmpl__fn_to_time(struct tcall *c)
{
	double v;
	if (gw_tmpl__to_float(c, &c->args[0], &v))
		return -1;
	if (isnan(v) || isinf(v))
		return gw_tmpl__fail(c, "value is NaN or Inf");
	int64_t ns;
	if (float_to_time(c, v, &ns))
		return -1;
	c->ret = (struct tv){.k = TV_TIME, .ns = ns};
	return 0;
}

/* The methods: args[0] is the receiver. */
static int ret_int(struct tcall *c, int64_t v)
{
	c->ret = (struct tv){.k = TV_INT, .i = v};
	return 0;
}

static int ret_int64(struct tcall *c, int64_t v)
{
	c->ret = (struct tv){.k = TV_INT, .int64 = true, .i = v};
	return 0;
}

static int m_unix(struct tcall *c)
{
	int64_t ns = c->args[0].ns;
	return ret_int64(c, ns / 1000000000 - (ns % 1000000000 < 0));
}

static int m_unix_milli(struct tcall *c)
{
	int64_t ns = c->args[0].ns;
	return ret_int64(c, ns / 1000000 - (ns % 1000000 < 0));
}

static int m_unix_micro(struct tcall *c)
{
	int64_t ns = c->args[0].ns;
	return ret_int64(c, ns / 1000 - (ns % 1000 < 0));
}

static int m_unix_nano(struct tcall *c)
{
	return ret_int64(c, c->args[0].ns);
}

static int m_field(struct tcall *c, int which)
{
	struct tm tm;
	int64_t frac;
	civil(c->args[0].ns, &tm, &frac);
	int64_t v[] = {tm.tm_year + 1900, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac, tm.tm_yday + 1};
	return ret_int(c, v[which]);
}

static int m_year(struct tcall *c)
{
	return m_field(c, 0);
}

static int m_day(struct tcall *c)
{
	return m_field(c, 1);
}

static int m_hour(struct tcall *c)
{
	return m_field(c, 2);
}

static int m_minute(struct tcall *c)
{
	return m_field(c, 3);
}

static int m_second(struct tcall *c)
{
	return m_field(c, 4);
}

static int m_nanosecond(struct tcall *c)
{
	return m_field(c, 5);
}

static int m_year_day(struct tcall *c)
{
	return m_field(c, 6);
}

static int m_month(struct tcall *c)
{
	struct tm tm;
	int64_t frac;
	civil(c->args[0].ns, &tm, &frac);
	c->ret = tv_str(months[tm.tm_mon], strlen(months[tm.tm_mon]));
	return 0;
}

static int m_weekday(struct tcall *c)
{
	struct tm tm;
	int64_t frac;
	civil(c->args[0].ns, &tm, &frac);
	c->ret = tv_str(days[tm.tm_wday], strlen(days[tm.tm_wday]));
	return 0;
}

static int m_string(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, 256);
	gw_tmpl__fmt_time(&b, c->args[0].ns);
	return gw_tmpl__ret_buf(c, &b);
}

static int m_same(struct tcall *c)
{
	c->ret = c->args[0];
	return 0;
}

static int m_is_zero(struct tcall *c)
{
	/* Go's zero time is year 1, which no float of seconds reaches */
	c->ret = (struct tv){.k = TV_BOOL, .b = false};
	return 0;
}

static int m_format(struct tcall *c)
{
	struct gw_buf b;
	gw_buf_init(&b, TMPL_VALUE_MAX);
	format(&b, c->args[0].ns, c->args[1].s.p, c->args[1].s.n);
	return gw_tmpl__ret_buf(c, &b);
}

static const struct tfunc methods[] = {
    {"Unix", "", m_unix},
    {"UnixMilli", "", m_unix_milli},
    {"UnixMicro", "", m_unix_micro},
    {"UnixNano", "", m_unix_nano},
    {"Year", "", m_year},
    {"Month", "", m_month},
    {"Day", "", m_day},
    {"Hour", "", m_hour},
    {"Minute", "", m_minute},
    {"Second", "", m_second},
    {"Nanosecond", "", m_nanosecond},
    {"YearDay", "", m_year_day},
    {"Weekday", "", m_weekday},
    {"String", "", m_string},
    {"UTC", "", m_same},
    {"Local", "", m_same},
    {"IsZero", "", m_is_zero},
    {"Format", "s", m_format},
};

const struct tfunc *gw_tmpl__time_method(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(methods[i].name, name))
			return &methods[i];
	return NULL;
}
