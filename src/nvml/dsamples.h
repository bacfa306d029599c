/*
 * dsamples.h - the driver's own sample buffers (nvmlDeviceGetSamples),
 * drained every tick so what happens between two polls is not lost.
 *
 * The driver samples GPU utilisation, memory utilisation and board power
 * several times a second (every 1/6 s on current GPUs) into a ring of
 * about 20 s. A poll of nvmlDeviceGetUtilizationRates or GetPowerUsage sees
 * one value per tick; a 200 ms spike or stall between two 1 s polls never
 * shows. Each tick, gw_dsamples_tick() asks for the samples newer than the
 * newest one it read before (lastSeenTimeStamp), so every driver sample is
 * read exactly once, and keeps their maximum, minimum, mean and count per
 * kind; the field table's readers (gw_rd_dsample) turn those into values of
 * the frame without calling NVML.
 *
 * The first tick has no previous one: it takes the samples of one interval
 * back from the driver's newest, in the driver's own time base (so it works
 * whatever the wall clock or a simulator's virtual clock says). A tick with
 * no new driver sample (polling faster than the driver samples) keeps the
 * previous window's statistics and adds nothing to the count; after about
 * 2 s without one the statistics are dropped rather than shown stale, and
 * the position is taken afresh from the driver's newest sample (its time
 * stamps follow the wall clock, which may have stepped back). A kind the
 * GPU does not sample (NOT_SUPPORTED), or a driver without the function,
 * is never asked again and its values read as not available; a failed call
 * leaves them not available for that tick, and the next successful one
 * covers the gap, since the position did not move.
 *
 * Units: utilisation in percent, power in mW (the field table's canonical
 * units).
 *
 * Ownership: gw_dsamples_open() sets gpu->dsamples (NULL when the driver
 * lacks the function or the GPU is lost) and gw_dsamples_close() frees it.
 * Threading: one sampler thread per GPU; nothing is allocated per tick.
 */
#ifndef GW_NVML_DSAMPLES_H
#define GW_NVML_DSAMPLES_H

#include "nvml/tally.h"

#include <stdbool.h>
#include <stdint.h>

enum gw_dsample_kind {
	GW_DS_GPU_UTIL, /* NVML_GPU_UTILIZATION_SAMPLES, percent */
	GW_DS_MEM_UTIL, /* NVML_MEMORY_UTILIZATION_SAMPLES, percent */
	GW_DS_POWER,	/* NVML_TOTAL_POWER_SAMPLES, mW */
	GW_DS__COUNT
};

/* What the readers take from a kind's window (a field row's arg1). */
enum gw_dsample_stat { GW_DS_MAX, GW_DS_MIN, GW_DS_MEAN, GW_DS_COUNT };

struct gw_dsample_window {
	bool supported; /* false: NOT_SUPPORTED or unusable answers; never asked again */
	bool valid;	/* max/min/mean describe a window; false until the first, and after a failed call */
	unsigned long long last_seen_us; /* newest driver time stamp read (driver's time base, us); 0: none */
	unsigned long long floor_us;	 /* after a restart of the position: the newest read before it */
	unsigned int empty;		 /* drains in a row without a new sample */
	double max, min, mean;		 /* over the newest window that had samples */
	unsigned int n;			 /* samples read this tick (0: none new, values carried) */
	uint64_t total;			 /* samples read since open */
};

struct gw_dsamples {
	struct gw_dsample_window k[GW_DS__COUNT];
	int64_t first_window_us; /* how far back the first tick looks: one sampler interval */
	nvmlSample_t *buf;	 /* room for cap samples, the driver's ring size */
	unsigned int cap;
};

/* Set gpu->dsamples for a sampler ticking every interval_ms; failed NVML
 * calls are counted in tally (NULL: not counted). 0 or GW_ENOMEM. */
int gw_dsamples_open(struct gw_nvml *nv, struct gw_gpu *gpu, unsigned int interval_ms,
		     struct gw_nvml_tally *tally);
void gw_dsamples_close(struct gw_gpu *gpu);

/* Drain the new driver samples of every supported kind. */
void gw_dsamples_tick(struct gw_nvml *nv, struct gw_gpu *gpu, struct gw_nvml_tally *tally);

#endif
