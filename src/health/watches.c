/*
 * watches.c - the watches themselves: each reads the reading (and the
 * window's first snapshot, for counters) and adds incidents. Verdicts and
 * thresholds are DCGM's health module's; where DCGM has no health watch
 * for something the issue asks for (the link's width and generation, the
 * slowdown margin, a row remap pending) the severity is a warning, as
 * DCGM's diagnostic gives them. docs/HEALTH.md lists them all.
 */
#include "health/health_int.h"

#include <math.h>
#include <stdio.h>

static bool has(const struct gw_health_reading *r, enum gw_health_value k)
{
	return r->valid & (1u << k);
}

bool health_delta(const struct health_view *v, enum gw_health_value k, int64_t *d)
{
	if (!v->base || v->base->t_ms >= v->r->t_ms || !has(v->r, k) || !(v->base->valid & (1u << k)))
		return false;
	int64_t now = v->r->v[k], then = v->base->v[k];
	*d = now >= then ? now - then : now;
	return true;
}

/*
 * PCIe: more replays in the window than a healthy link makes at its speed
 * (DCGM: a bit error rate of 1e-12 at the generation's line rate, per lane,
 * per minute, rounded up); a link narrower than it can be; a busy link
 * slower than it can be (an idle one slows on purpose).
 */
static void watch_pcie(const struct health_view *v, struct gw_health_report *out)
{
	const struct gw_health_reading *r = v->r;
	static const double gbps[] = {2.5, 5, 8, 16, 32, 64}; /* Gen1..Gen6 line rate per lane */
	int64_t d;
	if (health_delta(v, GW_HV_PCIE_REPLAYS, &d) && has(r, GW_HV_PCIE_GEN) && has(r, GW_HV_PCIE_WIDTH) &&
	    r->v[GW_HV_PCIE_GEN] > 0) {
		int64_t gen = r->v[GW_HV_PCIE_GEN] > 6 ? 6 : r->v[GW_HV_PCIE_GEN];
		int64_t expected =
		    (int64_t)ceil(gbps[gen - 1] / 1000.0 * 60.0 * (double)r->v[GW_HV_PCIE_WIDTH]);
		if (d > expected)
			health_add(out, GW_HSYS_PCIE, GW_HEALTH_WARN, false, "DCGM_FR_PCI_REPLAY_RATE",
				   "pcie-replay",
				   "check the slot, riser and cables; run a diagnostic if it goes on",
				   "%lld PCIe replays in the last minute, more than the %lld expected of a "
				   "Gen%lld x%lld link",
				   (long long)d, (long long)expected, (long long)r->v[GW_HV_PCIE_GEN],
				   (long long)r->v[GW_HV_PCIE_WIDTH]);
	}
	if (has(r, GW_HV_PCIE_WIDTH) && has(r, GW_HV_PCIE_WIDTH_MAX) && r->v[GW_HV_PCIE_WIDTH] > 0 &&
	    r->v[GW_HV_PCIE_WIDTH] < r->v[GW_HV_PCIE_WIDTH_MAX])
		health_add(out, GW_HSYS_PCIE, GW_HEALTH_WARN, false, "DCGM_FR_PCIE_WIDTH", "pcie-width",
			   "reseat the GPU or check its slot and riser",
			   "the PCIe link runs at x%lld of x%lld", (long long)r->v[GW_HV_PCIE_WIDTH],
			   (long long)r->v[GW_HV_PCIE_WIDTH_MAX]);
	bool idle = has(r, GW_HV_IDLE) && r->v[GW_HV_IDLE];
	if (!idle && has(r, GW_HV_PCIE_GEN) && has(r, GW_HV_PCIE_GEN_MAX) && r->v[GW_HV_PCIE_GEN] > 0 &&
	    r->v[GW_HV_PCIE_GEN] < r->v[GW_HV_PCIE_GEN_MAX])
		health_add(out, GW_HSYS_PCIE, GW_HEALTH_WARN, false, "DCGM_FR_PCIE_GENERATION", "pcie-gen",
			   "check the slot, riser and the host's PCIe settings",
			   "the PCIe link runs at Gen%lld of Gen%lld while the GPU is busy",
			   (long long)r->v[GW_HV_PCIE_GEN], (long long)r->v[GW_HV_PCIE_GEN_MAX]);
}

static void watch_retired(const struct health_view *v, struct gw_health_report *out)
{
	const struct gw_health_reading *r = v->r;
	int64_t sbe = has(r, GW_HV_RETIRED_SBE) ? r->v[GW_HV_RETIRED_SBE] : 0;
	int64_t dbe = has(r, GW_HV_RETIRED_DBE) ? r->v[GW_HV_RETIRED_DBE] : 0;
	if (has(r, GW_HV_RETIRED_PENDING) && r->v[GW_HV_RETIRED_PENDING])
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_WARN, false, "DCGM_FR_PENDING_PAGE_RETIREMENTS",
			   "retire-pending",
			   "reset the GPU (or reboot) when convenient; it can still run work",
			   "pages wait to be retired");
	if (sbe + dbe >= v->o->retired_pages_max)
		health_add(
		    out, GW_HSYS_MEMORY, GW_HEALTH_FAIL, false, "DCGM_FR_RETIRED_PAGES_LIMIT",
		    "retired-limit", "run a field diagnostic and RMA the board",
		    "%lld pages retired (%lld single-bit, %lld double-bit), at or above the limit of %lld",
		    (long long)(sbe + dbe), (long long)sbe, (long long)dbe,
		    (long long)v->o->retired_pages_max);
	else if (dbe > v->o->retired_dbe_soft && v->week_dbe >= 0 && dbe - v->week_dbe > 1)
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_FAIL, false, "DCGM_FR_RETIRED_PAGES_DBE_LIMIT",
			   "retired-dbe-week", "run a field diagnostic and RMA the board",
			   "%lld pages retired for double-bit errors, over %lld, and %lld more this week",
			   (long long)dbe, (long long)v->o->retired_dbe_soft, (long long)(dbe - v->week_dbe));
}

static void watch_remap(const struct health_view *v, struct gw_health_report *out)
{
	const struct gw_health_reading *r = v->r;
	if (has(r, GW_HV_REMAP_FAILURE) && r->v[GW_HV_REMAP_FAILURE])
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_FAIL, false, "DCGM_FR_ROW_REMAP_FAILURE",
			   "remap-failure", "drain the GPU, run a field diagnostic and RMA it",
			   "a row remap failed: memory with errors stays in use");
	if (has(r, GW_HV_REMAP_PENDING) && r->v[GW_HV_REMAP_PENDING])
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_WARN, false, "DCGM_FR_PENDING_ROW_REMAP",
			   "remap-pending", "reset the GPU when convenient so the remap takes effect",
			   "a row remap waits for a GPU reset");
	if (has(r, GW_HV_REMAP_UNC) && r->v[GW_HV_REMAP_UNC] >= v->o->remap_unc_max)
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_WARN, false, "DCGM_FR_UNCORRECTABLE_ROW_REMAP",
			   "remap-unc", "run a field diagnostic; the board is wearing out",
			   "%lld rows remapped for uncorrectable errors, at or above %lld",
			   (long long)r->v[GW_HV_REMAP_UNC], (long long)v->o->remap_unc_max);
}

static void watch_memory(const struct health_view *v, struct gw_health_report *out)
{
	const struct gw_health_reading *r = v->r;
	int64_t d;
	if (has(r, GW_HV_DBE_VOL) && r->v[GW_HV_DBE_VOL] > 0)
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_FAIL, false, "DCGM_FR_VOLATILE_DBE_DETECTED", "dbe",
			   "drain the GPU and reset it (or reboot the node)",
			   "%lld uncorrectable (double-bit) ECC errors since the driver loaded",
			   (long long)r->v[GW_HV_DBE_VOL]);
	if (health_delta(v, GW_HV_SBE_VOL, &d) && d > v->o->sbe_per_window)
		health_add(out, GW_HSYS_MEMORY, GW_HEALTH_WARN, false, "DCGM_FR_VOLATILE_SBE_DETECTED",
			   "sbe-rate", "watch it: a rising rate means failing memory; run a field diagnostic",
			   "%lld corrected (single-bit) ECC errors in the last minute, more than %lld",
			   (long long)d, (long long)v->o->sbe_per_window);
	watch_retired(v, out);
	watch_remap(v, out);
}

static void watch_inforom(const struct health_view *v, struct gw_health_report *out)
{
	if (has(v->r, GW_HV_INFOROM_VALID) && !v->r->v[GW_HV_INFOROM_VALID])
		health_add(out, GW_HSYS_INFOROM, GW_HEALTH_WARN, false, "DCGM_FR_CORRUPT_INFOROM", "inforom",
			   "flash the InfoROM again, or RMA the board",
			   "the InfoROM's checksums do not verify");
}

static void watch_thermal(const struct health_view *v, struct gw_health_report *out)
{
	int64_t d;
	if (health_delta(v, GW_HV_THERMAL_NS, &d) && d > 0)
		health_add(out, GW_HSYS_THERMAL, GW_HEALTH_WARN, false, "DCGM_FR_CLOCK_THROTTLE_THERMAL",
			   "thermal-violation", "check the cooling: fans, airflow and inlet temperature",
			   "thermal limits held the clocks down for %.1f s in the last minute",
			   (double)d / 1e9);
	if (has(v->r, GW_HV_TLIMIT_C) && v->r->v[GW_HV_TLIMIT_C] <= 0)
		health_add(out, GW_HSYS_THERMAL, GW_HEALTH_WARN, false, "DCGM_FR_TEMP_VIOLATION",
			   "thermal-margin", "check the cooling: fans, airflow and inlet temperature",
			   "the GPU is %lld C past its slowdown temperature",
			   (long long)-v->r->v[GW_HV_TLIMIT_C]);
}

static void watch_power(const struct health_view *v, struct gw_health_report *out)
{
	int64_t d;
	if (v->o->power_cap_warns && health_delta(v, GW_HV_POWER_NS, &d) && d > 0)
		health_add(out, GW_HSYS_POWER, GW_HEALTH_WARN, false, "DCGM_FR_CLOCK_THROTTLE_POWER",
			   "power-violation", "check the power limit and supply; the GPU can still run work",
			   "the power cap held the clocks down for %.1f s in the last minute",
			   (double)d / 1e9);
	if (health_delta(v, GW_HV_BRAKE_NS, &d) && d > 0)
		health_add(out, GW_HSYS_POWER, GW_HEALTH_WARN, false, "DCGM_FR_CLOCK_THROTTLE_POWER",
			   "power-brake", "check the power supplies and the board's power brake signal",
			   "an external power brake held the clocks down for %.1f s in the last minute",
			   (double)d / 1e9);
}

/* Replay and recovery errors fail at one; CRC errors warn, and fail from 100 a second (DCGM). */
static void watch_nvlink(const struct health_view *v, struct gw_health_report *out)
{
	static const struct {
		enum gw_health_value k;
		const char *name, *key;
		bool crc;
	} c[] = {{GW_HV_NVL_CRC_FLIT, "flow-control CRC", "nvlink-crc-flit", true},
		 {GW_HV_NVL_CRC_DATA, "data CRC", "nvlink-crc-data", true},
		 {GW_HV_NVL_REPLAY, "replay", "nvlink-replay", false},
		 {GW_HV_NVL_RECOVERY, "recovery", "nvlink-recovery", false}};
	if (has(v->r, GW_HV_NVL_ACTIVE) && v->r->v[GW_HV_NVL_ACTIVE] < v->nvl_max)
		health_add(out, GW_HSYS_NVLINK, GW_HEALTH_FAIL, false, "DCGM_FR_NVLINK_DOWN", "nvlink-down",
			   "drain the GPU and check its NVLink connections; run a field diagnostic",
			   "%lld of %lld NVLinks are down",
			   (long long)(v->nvl_max - v->r->v[GW_HV_NVL_ACTIVE]), (long long)v->nvl_max);
	double secs = (double)v->o->window_ms / 1000.0;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int64_t d;
		if (!health_delta(v, c[i].k, &d) || d < 1)
			continue;
		if (!c[i].crc)
			health_add(out, GW_HSYS_NVLINK, GW_HEALTH_FAIL, false,
				   "DCGM_FR_NVLINK_ERROR_CRITICAL", c[i].key,
				   "drain the GPU and run a field diagnostic; check the NVLink fabric",
				   "%lld NVLink %s errors in the last minute", (long long)d, c[i].name);
		else if ((double)d / secs >= v->o->nvlink_crc_per_s)
			health_add(out, GW_HSYS_NVLINK, GW_HEALTH_FAIL, false,
				   "DCGM_FR_NVLINK_CRC_ERROR_THRESHOLD", c[i].key,
				   "drain the GPU and run a field diagnostic; check the NVLink fabric",
				   "%.0f NVLink %s errors a second over the last minute, at or above %.0f",
				   (double)d / secs, c[i].name, v->o->nvlink_crc_per_s);
		else
			health_add(out, GW_HSYS_NVLINK, GW_HEALTH_WARN, false,
				   "DCGM_FR_NVLINK_ERROR_THRESHOLD", c[i].key,
				   "watch the NVLink error counters; run a diagnostic if they grow",
				   "%lld NVLink %s errors in the last minute", (long long)d, c[i].name);
	}
}

/* The driver's recovery action (DCGM: drain P2P warns, the others fail). */
static void watch_recovery(const struct health_view *v, struct gw_health_report *out)
{
	static const struct {
		const char *code, *what, *todo;
		enum gw_health_status sev;
	} act[] = {
	    {NULL, NULL, NULL, GW_HEALTH_PASS},
	    {"DCGM_FR_GPU_RECOVERY_RESET", "the driver asks for a GPU reset",
	     "stop the GPU's processes and reset it", GW_HEALTH_FAIL},
	    {"DCGM_FR_GPU_RECOVERY_REBOOT", "the driver asks for a node reboot",
	     "drain the node and reboot it", GW_HEALTH_FAIL},
	    {"DCGM_FR_GPU_RECOVERY_DRAIN_P2P", "the driver asks for peer-to-peer traffic to drain",
	     "let running peer-to-peer work finish and start no new", GW_HEALTH_WARN},
	    {"DCGM_FR_GPU_RECOVERY_DRAIN_RESET", "the driver asks for the GPU to be drained and reset",
	     "let the GPU's work finish, start no new, then reset it", GW_HEALTH_FAIL},
	};
	if (!has(v->r, GW_HV_RECOVERY_ACTION))
		return;
	int64_t a = v->r->v[GW_HV_RECOVERY_ACTION];
	if (a > 0 && a < (int64_t)(sizeof(act) / sizeof(act[0])))
		health_add(out, GW_HSYS_DRIVER, act[a].sev, false, act[a].code, "recovery-action",
			   act[a].todo, "%s", act[a].what);
}

static void watch_xids(const struct health_view *v, struct gw_health_report *out)
{
	for (unsigned int i = 0; i < v->r->nxid; i++) {
		const struct health_xid *x = health_xid_find(v->r->xid[i].code);
		if (!x || !v->r->xid[i].count)
			continue;
		char key[24];
		snprintf(key, sizeof(key), "xid-%u", x->code);
		health_add(out, (enum gw_health_system)x->system, (enum gw_health_status)x->severity, x->all,
			   x->dcgm, key, x->todo, "XID %u: %s (%llu since watching began)", x->code, x->what,
			   (unsigned long long)v->r->xid[i].count);
	}
}

void health_watch_all(const struct health_view *v, struct gw_health_report *out)
{
	watch_xids(v, out);
	if (v->r->lost) {
		health_add(out, GW_HSYS_DRIVER, GW_HEALTH_FAIL, true, "DCGM_FR_FALLEN_OFF_BUS", "lost",
			   "drain the node and reboot it; check power, seating and cooling; RMA if it recurs",
			   "the GPU is lost: it fell off the bus and answers nothing");
		return;
	}
	watch_pcie(v, out);
	watch_memory(v, out);
	watch_inforom(v, out);
	watch_thermal(v, out);
	watch_power(v, out);
	watch_nvlink(v, out);
	watch_recovery(v, out);
}
