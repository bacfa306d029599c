/*
 * format.c - bars, chart rows, reasons and sizes as text.
 */
#include "ui/format.h"

#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Eighths of a cell, 0..8; UTF-8 left-aligned and lower blocks. */
static const char *const hblock[9] = {" ", "\u258F", "\u258E", "\u258D", "\u258C", "\u258B", "\u258A", "\u2589", "\u2588"};
static const char *const vblock[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
static const char *const vascii[9] = {" ", "_", "_", ".", ".", ":", ":", "#", "#"};

/* Append s; a string that would not fit whole is dropped, so no glyph is cut. */
static void put(char *buf, size_t n, size_t *len, const char *s)
{
	size_t l = strlen(s);
	if (*len + l + 1 > n)
		return;
	memcpy(buf + *len, s, l + 1);
	*len += l;
}

void gw_ui_bar(char *buf, size_t n, double frac, unsigned int width, bool utf8)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	if (!(frac > 0)) /* also NAN */
		frac = 0;
	if (frac > 1)
		frac = 1;
	unsigned int eighths = (unsigned int)lround(frac * width * 8);
	for (unsigned int c = 0; c < width; c++) {
		unsigned int e = eighths >= 8 * (c + 1) ? 8 : eighths > 8 * c ? eighths - 8 * c : 0;
		if (utf8)
			put(buf, n, &len, hblock[e]);
		else
			put(buf, n, &len, e >= 4 ? "|" : " ");
	}
}

void gw_ui_chart_row(char *buf, size_t n, const float *v, unsigned int ncols, double lo, double hi,
		     unsigned int row, unsigned int nrows, bool utf8)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (unsigned int c = 0; c < ncols; c++) {
		unsigned int e = 0;
		if (!isnan(v[c]) && hi > lo && row < nrows) {
			double f = (v[c] - lo) / (hi - lo);
			f = f < 0 ? 0 : f > 1 ? 1 : f;
			/* a value above the bottom always shows at least a sliver */
			long level = lround(f * nrows * 8);
			if (level == 0 && f > 0)
				level = 1;
			long base = (long)(nrows - 1 - row) * 8;
			e = level >= base + 8 ? 8 : level > base ? (unsigned int)(level - base) : 0;
		}
		put(buf, n, &len, utf8 ? vblock[e] : vascii[e]);
	}
}

static const struct {
	uint64_t bit;
	const char *word;
	bool severe;
} reasons[] = {
	{0x4, "pwr-cap", true},      {0x8, "hw-slow", true},       {0x20, "sw-therm", true},
	{0x40, "hw-therm", true},    {0x80, "pwr-brake", true},    {0x10, "sync-boost", false},
	{0x2, "app-clocks", false},  {0x100, "display", false},    {0x1, "idle", false},
};

int gw_ui_reasons(uint64_t mask, char *buf, size_t n)
{
	size_t len = 0;
	int severe = 0;
	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (!(mask & reasons[i].bit))
			continue;
		if (len)
			put(buf, n, &len, " ");
		put(buf, n, &len, reasons[i].word);
		severe += reasons[i].severe;
	}
	return severe;
}

void gw_ui_size(uint64_t bytes, char *buf, size_t n)
{
	double g = (double)bytes / (1024.0 * 1024.0 * 1024.0);
	if (g >= 100)
		snprintf(buf, n, "%.0fG", g);
	else if (g >= 1)
		snprintf(buf, n, "%.1fG", g);
	else
		snprintf(buf, n, "%lluM", (unsigned long long)(bytes >> 20));
}

bool gw_ui_locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

void gw_ui_span(double seconds, char *buf, size_t n)
{
	static const struct {
		double unit;
		char sym;
	} units[] = {{1, 's'}, {60, 'm'}, {3600, 'h'}, {86400, 'd'}};
	double s = seconds > 0 ? seconds : 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (s / units[i].unit < 99.5) {
			snprintf(buf, n, "%.0f%c", s / units[i].unit, units[i].sym);
			return;
		}
	snprintf(buf, n, ">99d");
}
