/* Counts over a sliding window (collect/window.h): DCGM_EXP_XID_ERRORS_COUNT and DCGM_EXP_CLOCK_EVENTS_COUNT. */
#include "collect/window.h"
#include "harness.h"

#include <stdlib.h>

static void test_window(void)
{
	struct gw_window *w = calloc(1, sizeof(*w));
	const int64_t t0 = 1700000000000, win = 10000; /* a 10 s window, 1 s ticks */
	CHECK(w != NULL);
	if (!w || gw_window_init(w, win) != 0)
		return;
	CHECK_INT_EQ(w->slots, 12);
	uint64_t xid[2] = {0, 0}, xo[GW_WINDOW_XIDS], co[GW_WINDOW_CLOCKS];
	/* t = 0..4: XID 0 once at t = 2; reason bit 2 (power cap) active at every tick */
	for (int s = 0; s <= 4; s++) {
		if (s == 2)
			xid[0] = 1;
		gw_window_tick(w, t0 + 1000 * s, win, xid, 1, 1u << 2, 1, xo, co);
	}
	CHECK_INT_EQ(xo[0], 1);
	CHECK_INT_EQ(co[2], 5);
	CHECK_INT_EQ(co[0], 0);
	/* t = 5..11: a second XID kind at t = 6; no reason active */
	for (int s = 5; s <= 11; s++) {
		if (s == 6)
			xid[1] = 3;
		gw_window_tick(w, t0 + 1000 * s, win, xid, 2, 0, 1, xo, co);
	}
	/* the window (1, 11]: the XID at t = 2 is in, the reason at t = 0 and 1 is out */
	CHECK_INT_EQ(xo[0], 1);
	CHECK_INT_EQ(xo[1], 3);
	CHECK_INT_EQ(co[2], 3);
	/* at t = 13 the XID at t = 2 has left the window; at t = 15 the reasons have too */
	gw_window_tick(w, t0 + 13000, win, xid, 2, 0, 1, xo, co);
	CHECK_INT_EQ(xo[0], 0);
	CHECK_INT_EQ(xo[1], 3);
	gw_window_tick(w, t0 + 15000, win, xid, 2, 0, 0, xo, co);
	CHECK_INT_EQ(co[2], 0);
	/* ticks closer than a second share a snapshot and count each tick's mask */
	for (int s = 0; s < 10; s++)
		gw_window_tick(w, t0 + 16000 + 100 * s, win, xid, 2, 1u << 8, 1, xo, co);
	CHECK_INT_EQ(co[8], 10);
	CHECK_STR_EQ(gw_window_clock_names[2], "power_cap");
	/* the ring has wrapped many times: the window still ends where it should */
	for (int s = 0; s < 100; s++)
		gw_window_tick(w, t0 + 20000 + 1000 * s, win, xid, 2, s >= 95 ? 1u << 3 : 0, 1, xo, co);
	CHECK_INT_EQ(co[3], 5);
	CHECK_INT_EQ(co[8], 0);
	/* counts past 2^32 in all: a window's difference is still right */
	uint64_t big[1] = {(1ull << 32) - 2};
	gw_window_tick(w, t0 + 200000, win, big, 1, 0, 1, xo, co);
	big[0] += 5;
	gw_window_tick(w, t0 + 201000, win, big, 1, 0, 1, xo, co);
	for (int s = 2; s <= 10; s++) /* the window (200 s, 210 s]: the five at 201 s are in it */
		gw_window_tick(w, t0 + 200000 + 1000 * s, win, big, 1, 0, 1, xo, co);
	CHECK_INT_EQ(xo[0], 5);
	gw_window_release(w);
	free(w);
}

int main(void)
{
	RUN(test_window);
	return harness_done();
}
