/*
 * braille.c - braille chart rows.
 */
#include "ui/braille.h"

#include <math.h>

/* Dot bits from the top of a column down: dots 1, 2, 3, 7 (left) and 4, 5, 6, 8 (right). */
static const unsigned int left_bits[4] = {0x01, 0x02, 0x04, 0x40};
static const unsigned int right_bits[4] = {0x08, 0x10, 0x20, 0x80};

/* Dots lit in this text row for value x: a count 0..4 from the bottom of the row. */
static unsigned int lit(float x, double lo, double hi, unsigned int row, unsigned int nrows)
{
	if (isnan(x) || !(hi > lo) || row >= nrows)
		return 0;
	double f = (x - lo) / (hi - lo);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	long level = lround(f * nrows * 4);
	if (level == 0 && f > 0)
		level = 1;
	long base = (long)(nrows - 1 - row) * 4;
	return level >= base + 4 ? 4 : level > base ? (unsigned int)(level - base) : 0;
}

unsigned int gw_ui_braille_dots(float left, float right, double lo, double hi, unsigned int row, unsigned int nrows)
{
	unsigned int l = lit(left, lo, hi, row, nrows), r = lit(right, lo, hi, row, nrows), bits = 0;
	for (unsigned int d = 0; d < 4; d++) { /* d counts from the bottom */
		if (d < l)
			bits |= left_bits[3 - d];
		if (d < r)
			bits |= right_bits[3 - d];
	}
	return bits;
}

void gw_ui_braille_row(char *buf, size_t n, const float *v, unsigned int ncells, double lo, double hi,
		       unsigned int row, unsigned int nrows)
{
	size_t len = 0;
	if (n == 0)
		return;
	for (unsigned int c = 0; c < ncells; c++) {
		unsigned int bits = gw_ui_braille_dots(v[2 * c], v[2 * c + 1], lo, hi, row, nrows);
		if (bits == 0) {
			if (len + 2 > n)
				break;
			buf[len++] = ' ';
			continue;
		}
		if (len + 4 > n)
			break;
		unsigned int cp = 0x2800 + bits; /* three UTF-8 bytes: 1110xxxx 10xxxxxx 10xxxxxx */
		buf[len++] = (char)(0xE0 | (cp >> 12));
		buf[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
		buf[len++] = (char)(0x80 | (cp & 0x3F));
	}
	buf[len] = '\0';
}
