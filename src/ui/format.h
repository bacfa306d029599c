/*
 * format.h - the text of top's cells: bars, chart rows, throttle reasons
 * and sizes, in UTF-8 block characters or a plain ASCII fallback.
 *
 * Every function writes a NUL-terminated string into the caller's buffer
 * and never more than n bytes; strings meant to fill a width come out
 * exactly that many terminal cells wide (a UTF-8 block is 3 bytes but one
 * cell), so the drawing code can lay out by cells without measuring.
 *
 * Ownership: buffers are the caller's. Threading: reentrant, no state.
 */
#ifndef GW_UI_FORMAT_H
#define GW_UI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A bar `width` cells wide, filled to frac (0..1) with 1/8-cell resolution in UTF-8. */
void gw_ui_bar(char *buf, size_t n, double frac, unsigned int width, bool utf8);

/*
 * One text row of a chart nrows high over values in [lo, hi]: row 0 is the
 * top. Each value fills its column from the bottom with 1/8-cell steps in
 * UTF-8; NAN (no sample) leaves the column blank.
 */
void gw_ui_chart_row(char *buf, size_t n, const float *v, unsigned int ncols, double lo, double hi,
		     unsigned int row, unsigned int nrows, bool utf8);

/*
 * Clock event reasons (nvmlClocksEventReason* bits) as short words,
 * "pwr-cap hw-therm". Returns how many are severe: those that cost
 * performance because of power or heat, which the UI highlights; idle,
 * application clocks and display clocks are only mentioned.
 */
int gw_ui_reasons(uint64_t mask, char *buf, size_t n);

/* Bytes as a short size: "512M", "31.6G", "140G". */
void gw_ui_size(uint64_t bytes, char *buf, size_t n);

/* Seconds as a short span, 3 characters at most (4 past 99 days): "45s", "59m", "47h", "12d", ">99d". */
void gw_ui_span(double seconds, char *buf, size_t n);

/* Whether the locale's character set is UTF-8 (call after setlocale). */
bool gw_ui_locale_utf8(void);

#endif
