/*
 * format.c - values printed the way nvidia-smi's --query-gpu CSV prints
 * them, and the CSV header cells.
 *
 * Hand-rolled digit writers instead of snprintf: a CSV row of 200 fields is
 * formatted every loop, and these keep a value well under 100 ns with no
 * allocation. Every writer is bounded by the caller's buffer.
 */
#include "fields/fields_table.h"

#include <string.h>
#include <time.h>

/* A bounded writer over the caller's buffer; len counts what was wanted. */
struct out {
	char *buf;
	size_t n;
	size_t len;
};

static void put(struct out *o, const char *s, size_t k)
{
	if (o->len < o->n) {
		size_t room = o->n - o->len - 1;
		memcpy(o->buf + o->len, s, k < room ? k : room);
	}
	o->len += k;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct out *o, uint64_t x)
{
	char tmp[24];
	size_t i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	put(o, tmp + i, sizeof(tmp) - i);
}

static void put_i64(struct out *o, int64_t x)
{
	if (x < 0) {
		put(o, "-", 1);
		put_u64(o, (uint64_t)0 - (uint64_t)x);
		return;
	}
	put_u64(o, (uint64_t)x);
}

/* Zero-padded decimal of exactly w digits (w <= 4). */
static void put_pad(struct out *o, unsigned x, unsigned w)
{
	char tmp[4];
	for (unsigned i = w; i > 0; i--) {
		tmp[i - 1] = (char)('0' + x % 10);
		x /= 10;
	}
	put(o, tmp, w);
}

static void put_hex(struct out *o, uint64_t x, unsigned width)
{
	static const char digits[] = "0123456789ABCDEF";
	char tmp[2 + 16];
	unsigned nd = 1;
	while (nd < 16 && (x >> (4 * nd)))
		nd++;
	if (nd < width)
		nd = width > 16 ? 16 : width;
	tmp[0] = '0';
	tmp[1] = 'x';
	for (unsigned i = 0; i < nd; i++)
		tmp[2 + nd - 1 - i] = digits[(x >> (4 * i)) & 0xF];
	put(o, tmp, 2 + nd);
}

/* mW as watts with two decimals, rounded half up: 77713 -> "77.71". */
static void put_mw_as_w(struct out *o, int64_t mw)
{
	if (mw < 0) {
		put(o, "-", 1);
		mw = -mw;
	}
	uint64_t cw = ((uint64_t)mw + 5) / 10; /* centiwatts */
	put_u64(o, cw / 100);
	put(o, ".", 1);
	put_pad(o, (unsigned)(cw % 100), 2);
}

/* "2026/07/03 22:10:46.109", local time, from ns since the epoch. */
static void put_timestamp(struct out *o, int64_t ns)
{
	time_t secs = (time_t)(ns / 1000000000);
	unsigned ms = (unsigned)((ns % 1000000000) / 1000000);
	struct tm tm;
	if (!localtime_r(&secs, &tm)) {
		puts_(o, "[Unknown Error]");
		return;
	}
	put_pad(o, (unsigned)(tm.tm_year + 1900), 4);
	put(o, "/", 1);
	put_pad(o, (unsigned)tm.tm_mon + 1, 2);
	put(o, "/", 1);
	put_pad(o, (unsigned)tm.tm_mday, 2);
	put(o, " ", 1);
	put_pad(o, (unsigned)tm.tm_hour, 2);
	put(o, ":", 1);
	put_pad(o, (unsigned)tm.tm_min, 2);
	put(o, ":", 1);
	put_pad(o, (unsigned)tm.tm_sec, 2);
	put(o, ".", 1);
	put_pad(o, ms, 3);
}

static void put_unit(struct out *o, const struct gw_field *f, unsigned int flags)
{
	if (f->unit && !(flags & GW_FMT_NOUNITS)) {
		put(o, " ", 1);
		puts_(o, f->unit);
	}
}

static void put_choice(struct out *o, int64_t i, const char *no, const char *yes)
{
	puts_(o, i ? yes : no);
}

static void put_value(struct out *o, const struct gw_field *f, const struct gw_value *v, unsigned int flags)
{
	switch ((enum gw_fmt)f->fmt) {
	case GW_FMT_UINT:
		put_i64(o, v->i);
		break;
	case GW_FMT_MIB:
		put_u64(o, (uint64_t)v->i / 1048576u);
		break;
	case GW_FMT_MW_AS_W:
		put_mw_as_w(o, v->i);
		break;
	case GW_FMT_NS_AS_US:
		put_u64(o, (uint64_t)v->i / 1000u);
		break;
	case GW_FMT_HEX:
		put_hex(o, (uint64_t)v->i, f->width);
		return; /* hex never carries a unit */
	case GW_FMT_ENABLED:
		put_choice(o, v->i, "Disabled", "Enabled");
		return;
	case GW_FMT_ACTIVE:
		put_choice(o, v->i, "Not Active", "Active");
		return;
	case GW_FMT_YESNO:
		put_choice(o, v->i, "No", "Yes");
		return;
	case GW_FMT_PSTATE:
		put(o, "P", 1);
		put_i64(o, v->i);
		return;
	case GW_FMT_ENUM:
		if (v->i >= 0 && v->i < f->nnames && f->names[v->i])
			puts_(o, f->names[v->i]);
		else
			puts_(o, "Unknown");
		return;
	case GW_FMT_STR:
		puts_(o, v->s);
		break;
	case GW_FMT_TIMESTAMP:
		put_timestamp(o, v->i);
		return;
	}
	put_unit(o, f, flags);
}

size_t gw_field_format(const struct gw_field *f, const struct gw_value *v, unsigned int flags, char *buf,
		       size_t n)
{
	struct out o = {buf, n, 0};
	if (v->state == GW_V_OK) {
		put_value(&o, f, v, flags);
	} else if (v->state == GW_V_NA && f->na) {
		puts_(&o, f->na);
		if (f->na_unit)
			put_unit(&o, f, flags);
	} else {
		puts_(&o, gw_vstate_text((enum gw_vstate)v->state));
	}
	if (n)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return o.len;
}

size_t gw_field_header(const struct gw_field *f, unsigned int flags, char *buf, size_t n)
{
	struct out o = {buf, n, 0};
	puts_(&o, f->name);
	if (f->unit && !(flags & GW_FMT_NOUNITS)) {
		put(&o, " [", 2);
		puts_(&o, f->unit);
		put(&o, "]", 1);
	}
	if (n)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return o.len;
}
