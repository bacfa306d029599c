/*
 * sim_backfill.h - `sim record` into a store that already holds newer
 * samples of the same instance and job (an agent ran first, as the quick
 * start's does). The store keeps each series in time order, so the older
 * samples cannot be appended to those series: they are recorded under a
 * temporary instance name, then the store is reopened with a rename of
 * that name to the real one (gw_tsdb_opts.relabel), which merges each
 * recorded series into the stored one as older chunks.
 *
 * Ownership: the caller's store handle is borrowed; the merge opens and
 * closes its own. Threading: the caller's thread, with the store closed
 * for the merge.
 */
#ifndef GW_CMD_SIM_BACKFILL_H
#define GW_CMD_SIM_BACKFILL_H

#include "core/err.h"
#include "store/tsdb.h"

#include <stdint.h>

#define SIM_BACKFILL_SUFFIX "~backfill" /* appended to the instance while recording */

/*
 * The earliest sample at or after `from` of instance and job (the minimum
 * over their first 8 series: a frame stores every series at once), or
 * INT64_MAX when none has one.
 */
int sim_backfill_first(struct gw_tsdb *db, const char *instance, const char *job, int64_t from,
		       int64_t *first, struct gw_err *err);

/* Rename instance `from` to `to` in the store at path, merging series; *n: series renamed. */
int sim_backfill_merge(const char *path, const char *from, const char *to, uint64_t *n, struct gw_err *err);

#endif
