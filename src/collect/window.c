#include "collect/window.h"

#include <stdlib.h>
#include <string.h>

const char *const gw_window_clock_names[GW_WINDOW_CLOCKS] = {
	"gpu_idle", "clocks_setting", "power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal", "hw_thermal", "hw_power_brake", "display_clock",
};

int gw_window_init(struct gw_window *w, int64_t window_ms)
{
	*w = (struct gw_window){0};
	int64_t slots = window_ms / 1000 + 2;
	w->slots = (unsigned int)(slots < 2 ? 2 : slots > GW_WINDOW_SLOTS ? GW_WINDOW_SLOTS : slots);
	w->ring = calloc(w->slots, sizeof(*w->ring));
	return w->ring ? 0 : -1;
}

void gw_window_release(struct gw_window *w)
{
	free(w->ring);
	w->ring = NULL;
	w->slots = w->n = w->head = 0;
}

void gw_window_tick(struct gw_window *w, int64_t t_ms, int64_t window_ms, const uint64_t *xid, unsigned int nxid,
		    uint64_t mask, int valid, uint64_t *xid_out, uint64_t *clock_out)
{
	for (unsigned int k = 0; valid && k < GW_WINDOW_CLOCKS; k++)
		w->clock_cum[k] += (mask >> k) & 1;
	struct gw_window_snap now = {.t_ms = t_ms};
	for (unsigned int i = 0; i < nxid && i < GW_WINDOW_XIDS; i++)
		now.xid[i] = (uint32_t)xid[i];
	for (unsigned int k = 0; k < GW_WINDOW_CLOCKS; k++)
		now.clock[k] = (uint32_t)w->clock_cum[k];
	/* the baseline: the newest snapshot at or before the window's start; none: since start (zeros) */
	static const struct gw_window_snap zero;
	const struct gw_window_snap *base = &zero;
	for (unsigned int j = 0; j < w->n; j++) {
		const struct gw_window_snap *s = &w->ring[(w->head + w->slots - 1 - j) % w->slots];
		if (s->t_ms <= t_ms - window_ms) {
			base = s;
			break;
		}
	}
	for (unsigned int i = 0; i < GW_WINDOW_XIDS; i++)
		xid_out[i] = (uint32_t)(now.xid[i] - base->xid[i]);
	for (unsigned int k = 0; k < GW_WINDOW_CLOCKS; k++)
		clock_out[k] = (uint32_t)(now.clock[k] - base->clock[k]);
	/* a snapshot a second at most: slots - 1 seconds cover the window whatever the interval */
	const struct gw_window_snap *last = w->n ? &w->ring[(w->head + w->slots - 1) % w->slots] : NULL;
	if (!last || t_ms - last->t_ms >= 1000) {
		w->ring[w->head] = now;
		w->head = (w->head + 1) % w->slots;
		if (w->n < w->slots)
			w->n++;
	}
}
