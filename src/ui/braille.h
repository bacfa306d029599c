/*
 * braille.h - chart rows in Unicode braille (U+2800..U+28FF): each cell is
 * 2 dots wide and 4 high, so a chart gets twice the columns and four
 * levels per text row, against the block characters' one column and eight
 * levels. For UTF-8 terminals only; format.h has the block and ASCII rows.
 *
 * Ownership: buffers are the caller's. Threading: reentrant, no state.
 */
#ifndef GW_UI_BRAILLE_H
#define GW_UI_BRAILLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * One text row of an area chart nrows high over [lo, hi], row 0 the top,
 * from 2 * ncells values (v[2c] the left dot column of cell c, v[2c+1]
 * the right). Each value fills its dot column from the bottom; a value
 * above lo shows at least its bottom dot; NAN leaves the column empty. A
 * cell without dots is a space. Writes exactly ncells cells (3 bytes each
 * in UTF-8, 1 for a space) and never more than n bytes, NUL included; a
 * cell that would not fit whole is left out.
 */
void gw_ui_braille_row(char *buf, size_t n, const float *v, unsigned int ncells, double lo, double hi,
		       unsigned int row, unsigned int nrows);

/* The dots of one cell as its code point's low byte: bit 0..7 = dots 1..8. */
unsigned int gw_ui_braille_dots(float left, float right, double lo, double hi, unsigned int row, unsigned int nrows);

#endif
