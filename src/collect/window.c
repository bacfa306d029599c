#include "collect/window.h"

#include <string.h>

const char *const gw_window_clock_names[GW_WINDOW_CLOCKS] = {
	"gpu_idle", "clocks_setting", "power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal", "hw_thermal", "hw_power_brake", "display_clock",
};

void gw_window_tick(struct gw_window *w, int64_t t_ms, int64_t window_ms, const uint64_t *xid, unsigned int nxid,
		    uint64_t mask, int valid, uint64_t *xid_out, uint64_t *clock_out)
{
	for (unsigned int k = 0; valid && k < GW_WINDOW_CLOCKS; k++)
		w->clock_cum[k] += (mask >> k) & 1;
	struct gw_window_snap now = {.t_ms = t_ms};
	for (unsigned int i = 0; i < nxid && i < GW_WINDOW_XIDS; i++)
		now.xid[i] = xid[i];
	memcpy(now.clock, w->clock_cum, sizeof(now.clock));
	/* the baseline: the newest snapshot at or before the window's start; none: since start (zeros) */
	static const struct gw_window_snap zero;
	const struct gw_window_snap *base = &zero;
	for (unsigned int j = 0; j < w->n; j++) {
		const struct gw_window_snap *s = &w->ring[(w->head + GW_WINDOW_SLOTS - 1 - j) % GW_WINDOW_SLOTS];
		if (s->t_ms <= t_ms - window_ms) {
			base = s;
			break;
		}
	}
	for (unsigned int i = 0; i < GW_WINDOW_XIDS; i++)
		xid_out[i] = now.xid[i] - base->xid[i];
	for (unsigned int k = 0; k < GW_WINDOW_CLOCKS; k++)
		clock_out[k] = now.clock[k] - base->clock[k];
	/* a snapshot a second at most: 600 cover ten minutes whatever the interval */
	const struct gw_window_snap *last = w->n ? &w->ring[(w->head + GW_WINDOW_SLOTS - 1) % GW_WINDOW_SLOTS] : NULL;
	if (!last || t_ms - last->t_ms >= 1000) {
		w->ring[w->head] = now;
		w->head = (w->head + 1) % GW_WINDOW_SLOTS;
		if (w->n < GW_WINDOW_SLOTS)
			w->n++;
	}
}
