/*
 * window.h - counts over a sliding window (dcgm-exporter's
 * DCGM_EXP_XID_ERRORS_COUNT and DCGM_EXP_CLOCK_EVENTS_COUNT): how many XIDs
 * of each code the driver delivered, and in how many samples each clock
 * event reason was active, in the last window (5 minutes by default).
 *
 * The sampler keeps one gw_window per GPU and feeds it every tick the
 * GPU's cumulative counts; it keeps a snapshot a second, as many as the
 * window needs (windows up to 10 minutes), and answers count now - count
 * at the window's start (since the agent started while it has run for
 * less than a window). Snapshots hold the counts modulo 2^32, which
 * differences over a window undo: a few hundred bytes a snapshot instead
 * of twice that, 50 KB a GPU for the default window.
 *
 * Ownership: caller-embedded; gw_window_init allocates the snapshots,
 * gw_window_release frees them. Threading: the sampling thread only.
 */
#ifndef GW_COLLECT_WINDOW_H
#define GW_COLLECT_WINDOW_H

#include <stdint.h>

#define GW_WINDOW_SLOTS 600
#define GW_WINDOW_XIDS 32  /* = GW_XID_TRACKED: index i counts the frame's xid[i] */
#define GW_WINDOW_CLOCKS 9 /* clock event reasons, gw_window_clock_names order */
#define GW_WINDOW_DEFAULT_MS 300000

/* dcgm-exporter's clock_event label values, by bit of NVML's reason mask (bit i = 1 << i). */
extern const char *const gw_window_clock_names[GW_WINDOW_CLOCKS];

struct gw_window_snap {
	int64_t t_ms;
	uint32_t xid[GW_WINDOW_XIDS];	  /* modulo 2^32 */
	uint32_t clock[GW_WINDOW_CLOCKS]; /* modulo 2^32 */
};

struct gw_window {
	struct gw_window_snap *ring;
	unsigned int slots;   /* window / 1 s + 2, at most GW_WINDOW_SLOTS */
	unsigned int head, n; /* next slot, slots used */
	uint64_t clock_cum[GW_WINDOW_CLOCKS]; /* samples with each reason active, since start */
};

/* Room for a window of window_ms (at most GW_WINDOW_SLOTS seconds); -1 when out of memory. */
int gw_window_init(struct gw_window *w, int64_t window_ms);
void gw_window_release(struct gw_window *w);

/*
 * One tick at t_ms: xid[i] the cumulative count of tracked XID i, mask the
 * reasons active now (valid: mask was read). Writes the counts over the
 * window ending at t_ms into xid_out and clock_out. window_ms must not
 * exceed the one gw_window_init was given.
 */
void gw_window_tick(struct gw_window *w, int64_t t_ms, int64_t window_ms, const uint64_t *xid, unsigned int nxid,
		    uint64_t mask, int valid, uint64_t *xid_out, uint64_t *clock_out);

#endif
