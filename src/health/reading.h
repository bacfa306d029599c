/*
 * reading.h - a health reading (health/health.h) from a sampler frame: the
 * fields the watches read, looked up in the field table once, and the XID
 * counts the frame carries. The one-shot command and the agent both read
 * GPUs through the sampler, so both feed the watches the same values.
 *
 * Ownership: the map is a caller-embedded table of indexes. Threading:
 * reentrant.
 */
#ifndef GW_HEALTH_READING_H
#define GW_HEALTH_READING_H

#include "collect/sampler.h"
#include "health/health.h"

#define GW_HEALTH_MAP_SUMS 2 /* fields summed into one value (thermal: software and hardware slowdown) */

struct gw_health_map {
	int idx[GW_HV__COUNT][GW_HEALTH_MAP_SUMS]; /* table index, -1: none */
};

void gw_health_map_init(struct gw_health_map *m);

/* GPU g of frame f as a reading at the frame's time. A stalled GPU's values are not valid. */
void gw_health_reading_from_frame(const struct gw_health_map *m, const struct gw_frame *f, unsigned int g,
				  struct gw_health_reading *r);

#endif
