/*
 * reading.c - a frame's values as the watches' readings.
 */
#include "health/reading.h"

#include "fields/fields_table.h"

#include <string.h>

/* Which fields feed each value (the first found is used; THERMAL_NS sums both). */
static const struct {
	enum gw_health_value v;
	const char *field[GW_HEALTH_MAP_SUMS];
} sources[] = {
    {GW_HV_PCIE_REPLAYS, {"pcie.replay_counter"}},
    {GW_HV_PCIE_GEN, {"pcie.link.gen.current"}},
    {GW_HV_PCIE_GEN_MAX, {"pcie.link.gen.max"}},
    {GW_HV_PCIE_WIDTH, {"pcie.link.width.current"}},
    {GW_HV_PCIE_WIDTH_MAX, {"pcie.link.width.max"}},
    {GW_HV_IDLE, {"clocks_event_reasons.active"}},
    {GW_HV_SBE_VOL, {"ecc.errors.corrected.volatile.total"}},
    {GW_HV_DBE_VOL, {"ecc.errors.uncorrected.volatile.total"}},
    {GW_HV_RETIRED_SBE, {"retired_pages.single_bit_ecc.count"}},
    {GW_HV_RETIRED_DBE, {"retired_pages.double_bit.count"}},
    {GW_HV_RETIRED_PENDING, {"retired_pages.pending"}},
    {GW_HV_REMAP_UNC, {"remapped_rows.uncorrectable"}},
    {GW_HV_REMAP_PENDING, {"remapped_rows.pending"}},
    {GW_HV_REMAP_FAILURE, {"remapped_rows.failure"}},
    {GW_HV_INFOROM_VALID, {"inforom.checksum_validation"}},
    {GW_HV_THERMAL_NS,
     {"clocks_event_reasons_counters.sw_thermal_slowdown",
      "clocks_event_reasons_counters.hw_thermal_slowdown"}},
    {GW_HV_TLIMIT_C, {"temperature.gpu.tlimit"}},
    {GW_HV_POWER_NS, {"clocks_event_reasons_counters.sw_power_cap"}},
    {GW_HV_BRAKE_NS, {"clocks_event_reasons_counters.hw_power_brake_slowdown"}},
    {GW_HV_NVL_CRC_FLIT, {"nvlink.errors.crc_flit.total"}},
    {GW_HV_NVL_CRC_DATA, {"nvlink.errors.crc_data.total"}},
    {GW_HV_NVL_REPLAY, {"nvlink.errors.replay.total"}},
    {GW_HV_NVL_RECOVERY, {"nvlink.errors.recovery.total"}},
    {GW_HV_NVL_ACTIVE, {"nvlink.links_active"}},
    {GW_HV_RECOVERY_ACTION, {"gpu_recovery_action"}},
};

#define REASON_GPU_IDLE 0x1 /* nvmlClocksEventReasonGpuIdle */

static int index_of(const char *name)
{
	for (size_t i = 0; name && i < gw_fields_count(); i++)
		if (strcmp(gw_field_at(i)->name, name) == 0)
			return (int)i;
	return -1;
}

void gw_health_map_init(struct gw_health_map *m)
{
	memset(m->idx, 0xff, sizeof(m->idx)); /* -1 */
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		for (int k = 0; k < GW_HEALTH_MAP_SUMS; k++)
			m->idx[sources[i].v][k] = index_of(sources[i].field[k]);
}

void gw_health_reading_from_frame(const struct gw_health_map *m, const struct gw_frame *f, unsigned int g,
				  struct gw_health_reading *r)
{
	const struct gw_frame_gpu *fg = &f->gpus[g];
	memset(r, 0, sizeof(*r));
	r->t_ms = f->t_ms;
	r->lost = fg->lost;
	for (unsigned int i = 0; i < fg->nxid && i < GW_HEALTH_XIDS; i++) {
		r->xid[i].code = fg->xid[i].code;
		r->xid[i].count = fg->xid[i].count;
	}
	r->nxid = fg->nxid < GW_HEALTH_XIDS ? fg->nxid : GW_HEALTH_XIDS;
	if (fg->lost || fg->stalled)
		return;
	for (int v = 0; v < GW_HV__COUNT; v++) {
		int64_t sum = 0;
		bool any = false;
		for (int k = 0; k < GW_HEALTH_MAP_SUMS; k++) {
			int i = m->idx[v][k];
			if (i < 0 || fg->v[i].state != GW_V_OK || fg->v[i].kind != GW_VK_INT)
				continue;
			sum += fg->v[i].i;
			any = true;
		}
		if (any)
			gw_health_set(r, (enum gw_health_value)v, sum);
	}
	if (r->valid & (1u << GW_HV_IDLE))
		r->v[GW_HV_IDLE] = (r->v[GW_HV_IDLE] & REASON_GPU_IDLE) != 0;
}
