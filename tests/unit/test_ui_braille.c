/*
 * test_ui_braille.c - braille chart cells: which dots a value lights, the
 * UTF-8 bytes of a row, empty and missing columns, charts several rows
 * high, and buffers too small for a row (no overflow, no cut glyph).
 */
#include "harness.h"

#include "ui/braille.h"

static void test_dots(void)
{
	/* one text row over 0..100: 4 levels per column */
	CHECK_INT_EQ(gw_ui_braille_dots(100, 100, 0, 100, 0, 1), 0xFF);
	CHECK_INT_EQ(gw_ui_braille_dots(0, 0, 0, 100, 0, 1), 0x00);
	CHECK_INT_EQ(gw_ui_braille_dots(50, 50, 0, 100, 0, 1), 0x40 | 0x04 | 0x80 | 0x20); /* dots 3,7 and 6,8 */
	CHECK_INT_EQ(gw_ui_braille_dots(1, 0, 0, 100, 0, 1), 0x40);      /* a sliver still shows: dot 7 */
	CHECK_INT_EQ(gw_ui_braille_dots(NAN, 100, 0, 100, 0, 1), 0xB8);  /* right column only: 4,5,6,8 */
	CHECK_INT_EQ(gw_ui_braille_dots(100, NAN, 0, 100, 0, 1), 0x47);  /* left column only: 1,2,3,7 */
	CHECK_INT_EQ(gw_ui_braille_dots(25, 75, 0, 100, 0, 1), 0x40 | 0x80 | 0x20 | 0x10);
	CHECK_INT_EQ(gw_ui_braille_dots(500, -5, 0, 100, 0, 1), 0x47);   /* clipped to the scale */
	CHECK_INT_EQ(gw_ui_braille_dots(50, 50, 0, 0, 0, 1), 0);         /* no scale, no dots */
	/* two rows high: 50% fills the bottom row and nothing of the top */
	CHECK_INT_EQ(gw_ui_braille_dots(50, 50, 0, 100, 0, 2), 0x00);
	CHECK_INT_EQ(gw_ui_braille_dots(50, 50, 0, 100, 1, 2), 0xFF);
	CHECK_INT_EQ(gw_ui_braille_dots(75, 75, 0, 100, 0, 2), 0x40 | 0x04 | 0x80 | 0x20);
	CHECK_INT_EQ(gw_ui_braille_dots(75, 75, 0, 100, 2, 2), 0); /* a row past the chart */
}

static void test_row(void)
{
	const float v[] = {100, 100, 50, 50, NAN, NAN, 0, 100};
	char buf[64];
	gw_ui_braille_row(buf, sizeof(buf), v, 4, 0, 100, 0, 1);
	/* U+28FF, U+28E4, space, U+28B8 */
	CHECK_STR_EQ(buf, "\xe2\xa3\xbf\xe2\xa3\xa4 \xe2\xa2\xb8");
	gw_ui_braille_row(buf, sizeof(buf), v, 0, 0, 100, 0, 1);
	CHECK_STR_EQ(buf, "");
}

static void test_small_buffer(void)
{
	const float v[] = {100, 100, 100, 100, 100, 100};
	char buf[16];
	memset(buf, 'x', sizeof(buf));
	gw_ui_braille_row(buf, 8, v, 3, 0, 100, 0, 1); /* room for two glyphs and the NUL */
	CHECK_STR_EQ(buf, "\xe2\xa3\xbf\xe2\xa3\xbf");
	CHECK(buf[8] == 'x');
	gw_ui_braille_row(buf, 3, v, 3, 0, 100, 0, 1); /* no glyph fits whole */
	CHECK_STR_EQ(buf, "");
	buf[0] = 'y';
	gw_ui_braille_row(buf, 0, v, 3, 0, 100, 0, 1); /* n == 0 writes nothing at all */
	CHECK(buf[0] == 'y');
}

int main(void)
{
	RUN(test_dots);
	RUN(test_row);
	RUN(test_small_buffer);
	return harness_done();
}
