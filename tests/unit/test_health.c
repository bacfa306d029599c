/*
 * test_health.c - the health watches over hand-made readings: each watch's
 * verdict at and around its threshold, rates over the window, "since", and
 * that every field the frame reader names is in the field table.
 */
#include "harness.h"

#include "health/health.h"
#include "health/reading.h"

#define T0 1700000000000LL

/* A healthy H200-like reading at time t: Gen5 x16, counters at c. */
static struct gw_health_reading healthy(int64_t t, int64_t c)
{
	struct gw_health_reading r = {.t_ms = t};
	gw_health_set(&r, GW_HV_PCIE_REPLAYS, c);
	gw_health_set(&r, GW_HV_PCIE_GEN, 5);
	gw_health_set(&r, GW_HV_PCIE_GEN_MAX, 5);
	gw_health_set(&r, GW_HV_PCIE_WIDTH, 16);
	gw_health_set(&r, GW_HV_PCIE_WIDTH_MAX, 16);
	gw_health_set(&r, GW_HV_IDLE, 0);
	gw_health_set(&r, GW_HV_SBE_VOL, c);
	gw_health_set(&r, GW_HV_DBE_VOL, 0);
	gw_health_set(&r, GW_HV_RETIRED_SBE, 0);
	gw_health_set(&r, GW_HV_RETIRED_DBE, 0);
	gw_health_set(&r, GW_HV_RETIRED_PENDING, 0);
	gw_health_set(&r, GW_HV_REMAP_UNC, 0);
	gw_health_set(&r, GW_HV_REMAP_PENDING, 0);
	gw_health_set(&r, GW_HV_REMAP_FAILURE, 0);
	gw_health_set(&r, GW_HV_INFOROM_VALID, 1);
	gw_health_set(&r, GW_HV_THERMAL_NS, c);
	gw_health_set(&r, GW_HV_TLIMIT_C, 30);
	gw_health_set(&r, GW_HV_POWER_NS, c);
	gw_health_set(&r, GW_HV_BRAKE_NS, c);
	gw_health_set(&r, GW_HV_NVL_CRC_FLIT, c);
	gw_health_set(&r, GW_HV_NVL_CRC_DATA, c);
	gw_health_set(&r, GW_HV_NVL_REPLAY, c);
	gw_health_set(&r, GW_HV_NVL_RECOVERY, c);
	gw_health_set(&r, GW_HV_NVL_ACTIVE, 18);
	gw_health_set(&r, GW_HV_RECOVERY_ACTION, 0);
	return r;
}

/* The one incident of a report with this key; NULL: none. */
static const struct gw_health_incident *find(const struct gw_health_report *rep, const char *key)
{
	for (unsigned int i = 0; i < rep->ninc; i++)
		if (strcmp(rep->inc[i].key, key) == 0)
			return &rep->inc[i];
	return NULL;
}

/* Evaluate a fresh watch on base (at T0) then r; the report of r. */
static struct gw_health_report after(const struct gw_health_reading *base, const struct gw_health_reading *r)
{
	struct gw_health h;
	struct gw_health_report rep;
	CHECK_INT_EQ(gw_health_init(&h, 1, NULL), 0);
	gw_health_eval(&h, 0, base, &rep);
	gw_health_eval(&h, 0, r, &rep);
	gw_health_release(&h);
	return rep;
}

static void test_clean_passes(void)
{
	struct gw_health_reading a = healthy(T0, 5), b = healthy(T0 + 30000, 5);
	struct gw_health_report rep = after(&a, &b);
	CHECK_INT_EQ(rep.status, GW_HEALTH_PASS);
	CHECK_INT_EQ(rep.ninc, 0);
	for (int s = 0; s < GW_HSYS__COUNT; s++)
		CHECK_INT_EQ(rep.system[s], GW_HEALTH_PASS);
	/* nothing valid at all passes too, as DCGM's watches pass on blank samples */
	struct gw_health_reading blank = {.t_ms = T0};
	rep = after(&blank, &blank);
	CHECK_INT_EQ(rep.status, GW_HEALTH_PASS);
}

static void test_dbe_fails_and_keeps_since(void)
{
	struct gw_health h;
	struct gw_health_report rep;
	CHECK_INT_EQ(gw_health_init(&h, 2, NULL), 0);
	struct gw_health_reading r = healthy(T0, 0);
	gw_health_eval(&h, 0, &r, &rep);
	gw_health_eval(&h, 1, &r, &rep);
	r = healthy(T0 + 1000, 0);
	gw_health_set(&r, GW_HV_DBE_VOL, 2);
	gw_health_eval(&h, 1, &r, &rep);
	CHECK_INT_EQ(rep.status, GW_HEALTH_FAIL);
	CHECK_INT_EQ(rep.system[GW_HSYS_MEMORY], GW_HEALTH_FAIL);
	CHECK_INT_EQ(rep.system[GW_HSYS_PCIE], GW_HEALTH_PASS);
	const struct gw_health_incident *in = find(&rep, "dbe");
	CHECK(in != NULL);
	if (in) {
		CHECK_STR_EQ(in->code, "DCGM_FR_VOLATILE_DBE_DETECTED");
		CHECK_INT_EQ(in->since_ms, T0 + 1000);
		CHECK(strstr(in->message, "2 uncorrectable") != NULL);
		CHECK(strstr(in->message, "reset") != NULL);
	}
	r.t_ms = T0 + 9000;
	gw_health_eval(&h, 1, &r, &rep);
	in = find(&rep, "dbe");
	CHECK(in && in->since_ms == T0 + 1000);
	/* the other GPU is untouched */
	r = healthy(T0 + 9000, 0);
	gw_health_eval(&h, 0, &r, &rep);
	CHECK_INT_EQ(rep.status, GW_HEALTH_PASS);
	/* gone (a reset), then back: a new since */
	r = healthy(T0 + 10000, 0);
	gw_health_eval(&h, 1, &r, &rep);
	CHECK_INT_EQ(rep.status, GW_HEALTH_PASS);
	gw_health_set(&r, GW_HV_DBE_VOL, 1);
	r.t_ms = T0 + 11000;
	gw_health_eval(&h, 1, &r, &rep);
	in = find(&rep, "dbe");
	CHECK(in && in->since_ms == T0 + 11000);
	gw_health_release(&h);
}

static void test_pcie_replay_rate(void)
{
	/* Gen5 x16: ceil(32e9 * 1e-12 * 60 * 16) = 31 a minute */
	struct gw_health_reading a = healthy(T0, 100), b = healthy(T0 + 30000, 131);
	struct gw_health_report rep = after(&a, &b);
	CHECK(find(&rep, "pcie-replay") == NULL);
	b.v[GW_HV_PCIE_REPLAYS] = 132;
	rep = after(&a, &b);
	const struct gw_health_incident *in = find(&rep, "pcie-replay");
	CHECK(in != NULL);
	CHECK_INT_EQ(rep.system[GW_HSYS_PCIE], GW_HEALTH_WARN);
	if (in) {
		CHECK_STR_EQ(in->code, "DCGM_FR_PCI_REPLAY_RATE");
		CHECK(strstr(in->message, "32 PCIe replays") != NULL);
		CHECK(strstr(in->message, "31 expected of a Gen5 x16") != NULL);
	}
	/* a Gen3 x8 link expects ceil(0.48 * 8) = 4 */
	gw_health_set(&a, GW_HV_PCIE_GEN, 3);
	gw_health_set(&b, GW_HV_PCIE_GEN, 3);
	gw_health_set(&a, GW_HV_PCIE_WIDTH, 8);
	gw_health_set(&b, GW_HV_PCIE_WIDTH, 8);
	b.v[GW_HV_PCIE_REPLAYS] = 104;
	rep = after(&a, &b);
	CHECK(find(&rep, "pcie-replay") == NULL);
	b.v[GW_HV_PCIE_REPLAYS] = 105;
	rep = after(&a, &b);
	CHECK(find(&rep, "pcie-replay") != NULL);
	/* the window is one minute: replays counted against an older reading do not count */
	struct gw_health_reading late = healthy(T0 + 61000, 1000);
	rep = after(&a, &late);
	CHECK(find(&rep, "pcie-replay") == NULL);
}

static void test_pcie_link(void)
{
	struct gw_health_reading a = healthy(T0, 0);
	gw_health_set(&a, GW_HV_PCIE_WIDTH, 8);
	struct gw_health_report rep = after(&a, &a);
	const struct gw_health_incident *in = find(&rep, "pcie-width");
	CHECK(in && strstr(in->message, "x8 of x16"));
	a = healthy(T0, 0);
	gw_health_set(&a, GW_HV_PCIE_GEN, 1);
	gw_health_set(&a, GW_HV_IDLE, 1); /* idle: a slow link saves power */
	rep = after(&a, &a);
	CHECK_INT_EQ(rep.status, GW_HEALTH_PASS);
	gw_health_set(&a, GW_HV_IDLE, 0);
	rep = after(&a, &a);
	CHECK(find(&rep, "pcie-gen") != NULL);
	CHECK_INT_EQ(rep.status, GW_HEALTH_WARN);
}

static void test_retired_and_remap(void)
{
	struct gw_health_reading a = healthy(T0, 0);
	gw_health_set(&a, GW_HV_RETIRED_SBE, 40);
	gw_health_set(&a, GW_HV_RETIRED_DBE, 22);
	struct gw_health_report rep = after(&a, &a);
	CHECK(find(&rep, "retired-limit") == NULL); /* 62 < 63 */
	gw_health_set(&a, GW_HV_RETIRED_DBE, 23);
	rep = after(&a, &a);
	CHECK(find(&rep, "retired-limit") != NULL);
	CHECK_INT_EQ(rep.system[GW_HSYS_MEMORY], GW_HEALTH_FAIL);

	a = healthy(T0, 0);
	gw_health_set(&a, GW_HV_RETIRED_PENDING, 1);
	gw_health_set(&a, GW_HV_REMAP_PENDING, 1);
	rep = after(&a, &a);
	CHECK(find(&rep, "retire-pending") != NULL);
	CHECK(find(&rep, "remap-pending") != NULL);
	CHECK_INT_EQ(rep.status, GW_HEALTH_WARN);
	gw_health_set(&a, GW_HV_REMAP_FAILURE, 1);
	rep = after(&a, &a);
	CHECK_INT_EQ(rep.status, GW_HEALTH_FAIL);
	CHECK_STR_EQ(rep.inc[0].key, "remap-failure"); /* worst first */
	a = healthy(T0, 0);
	gw_health_set(&a, GW_HV_REMAP_UNC, 512);
	rep = after(&a, &a);
	CHECK(find(&rep, "remap-unc") != NULL);
}

/* DBE retired pages over 15 fail only while more than one a week is added (DCGM). */
static void test_retired_dbe_week(void)
{
	struct gw_health h;
	struct gw_health_report rep;
	CHECK_INT_EQ(gw_health_init(&h, 1, NULL), 0);
	int64_t day = 24 * 3600 * 1000LL;
	for (int d = 0; d <= 8; d++) {
		struct gw_health_reading r = healthy(T0 + d * day, 0);
		gw_health_set(&r, GW_HV_RETIRED_DBE, d < 8 ? 16 : 18);
		gw_health_eval(&h, 0, &r, &rep);
		CHECK(d == 8 ? find(&rep, "retired-dbe-week") != NULL
			     : find(&rep, "retired-dbe-week") == NULL);
	}
	gw_health_release(&h);
	CHECK_INT_EQ(gw_health_init(&h, 1, NULL), 0);
	for (int d = 0; d <= 8; d++) {
		struct gw_health_reading r = healthy(T0 + d * day, 0);
		gw_health_set(&r, GW_HV_RETIRED_DBE, d < 8 ? 16 : 17); /* one more: not yet */
		gw_health_eval(&h, 0, &r, &rep);
	}
	CHECK(find(&rep, "retired-dbe-week") == NULL);
	gw_health_release(&h);
}

static void test_sbe_rate(void)
{
	struct gw_health_reading a = healthy(T0, 0), b = healthy(T0 + 20000, 0);
	gw_health_set(&b, GW_HV_SBE_VOL, 10);
	struct gw_health_report rep = after(&a, &b);
	CHECK(find(&rep, "sbe-rate") == NULL);
	gw_health_set(&b, GW_HV_SBE_VOL, 11);
	rep = after(&a, &b);
	CHECK(find(&rep, "sbe-rate") != NULL);
	CHECK_INT_EQ(rep.status, GW_HEALTH_WARN);
}

static void test_thermal_power_inforom(void)
{
	struct gw_health_reading a = healthy(T0, 0), b = healthy(T0 + 10000, 0);
	gw_health_set(&b, GW_HV_THERMAL_NS, 2500000000LL);
	gw_health_set(&b, GW_HV_BRAKE_NS, 1);
	struct gw_health_report rep = after(&a, &b);
	CHECK_INT_EQ(rep.system[GW_HSYS_THERMAL], GW_HEALTH_WARN);
	CHECK_INT_EQ(rep.system[GW_HSYS_POWER], GW_HEALTH_WARN);
	const struct gw_health_incident *in = find(&rep, "thermal-violation");
	CHECK(in && strstr(in->message, "2.5 s"));
	CHECK(find(&rep, "power-brake") != NULL);
	CHECK(find(&rep, "power-violation") == NULL);
	/* software power capping warns only when asked to, as DCGM always does */
	gw_health_set(&b, GW_HV_POWER_NS, 1000000000LL);
	rep = after(&a, &b);
	CHECK(find(&rep, "power-violation") == NULL);
	struct gw_health h;
	struct gw_health_opts o;
	gw_health_defaults(&o);
	o.power_cap_warns = true;
	CHECK_INT_EQ(gw_health_init(&h, 1, &o), 0);
	gw_health_eval(&h, 0, &a, &rep);
	gw_health_eval(&h, 0, &b, &rep);
	CHECK(find(&rep, "power-violation") != NULL);
	gw_health_release(&h);
	b = healthy(T0 + 10000, 0);
	gw_health_set(&b, GW_HV_TLIMIT_C, -3);
	gw_health_set(&b, GW_HV_INFOROM_VALID, 0);
	rep = after(&a, &b);
	in = find(&rep, "thermal-margin");
	CHECK(in && strstr(in->message, "3 C past"));
	CHECK_INT_EQ(rep.system[GW_HSYS_INFOROM], GW_HEALTH_WARN);
}

static void test_nvlink(void)
{
	struct gw_health_reading a = healthy(T0, 0), b = healthy(T0 + 30000, 0);
	gw_health_set(&b, GW_HV_NVL_CRC_DATA, 10);
	struct gw_health_report rep = after(&a, &b);
	CHECK_INT_EQ(rep.system[GW_HSYS_NVLINK], GW_HEALTH_WARN);
	CHECK(find(&rep, "nvlink-crc-data") != NULL);
	gw_health_set(&b, GW_HV_NVL_CRC_DATA, 6000); /* 100 a second over the minute */
	rep = after(&a, &b);
	CHECK_INT_EQ(rep.system[GW_HSYS_NVLINK], GW_HEALTH_FAIL);
	CHECK_STR_EQ(find(&rep, "nvlink-crc-data")->code, "DCGM_FR_NVLINK_CRC_ERROR_THRESHOLD");
	b = healthy(T0 + 30000, 0);
	gw_health_set(&b, GW_HV_NVL_RECOVERY, 1);
	rep = after(&a, &b);
	CHECK_INT_EQ(rep.system[GW_HSYS_NVLINK], GW_HEALTH_FAIL);
	CHECK_STR_EQ(rep.inc[0].code, "DCGM_FR_NVLINK_ERROR_CRITICAL");
	/* a link that goes down fails until it is back */
	b = healthy(T0 + 30000, 0);
	gw_health_set(&b, GW_HV_NVL_ACTIVE, 16);
	rep = after(&a, &b);
	const struct gw_health_incident *in = find(&rep, "nvlink-down");
	CHECK(in && strstr(in->message, "2 of 18 NVLinks are down"));
	CHECK_STR_EQ(in ? in->code : NULL, "DCGM_FR_NVLINK_DOWN");
	rep = after(&a, &a);
	CHECK(find(&rep, "nvlink-down") == NULL);
	/* a GPU without NVLink has no counters: nothing to say */
	struct gw_health_reading c = healthy(T0, 0), d = healthy(T0 + 30000, 0);
	c.valid &= ~(1u << GW_HV_NVL_REPLAY);
	gw_health_set(&d, GW_HV_NVL_REPLAY, 5);
	rep = after(&c, &d);
	CHECK_INT_EQ(rep.status, GW_HEALTH_PASS);
}

static void test_xids_lost_recovery(void)
{
	struct gw_health_reading a = healthy(T0, 0);
	a.xid[0].code = 13; /* not a health XID (an application's exception) */
	a.xid[0].count = 4;
	a.xid[1].code = 31;
	a.xid[1].count = 1;
	a.nxid = 2;
	struct gw_health_report rep = after(&a, &a);
	CHECK_INT_EQ(rep.ninc, 1);
	CHECK_INT_EQ(rep.system[GW_HSYS_MEMORY], GW_HEALTH_WARN);
	CHECK(find(&rep, "xid-31") && !find(&rep, "xid-31")->all);
	a.xid[0].code = 95;
	rep = after(&a, &a);
	const struct gw_health_incident *in = find(&rep, "xid-95");
	CHECK(in && in->all && in->severity == GW_HEALTH_FAIL);
	CHECK_INT_EQ(rep.system[GW_HSYS_DRIVER], GW_HEALTH_FAIL);

	struct gw_health_reading lost = {.t_ms = T0, .lost = true};
	lost.xid[0].code = 79;
	lost.xid[0].count = 1;
	lost.nxid = 1;
	rep = after(&lost, &lost);
	CHECK(find(&rep, "lost") != NULL);
	CHECK(find(&rep, "xid-79") != NULL);
	CHECK_INT_EQ(rep.system[GW_HSYS_DRIVER], GW_HEALTH_FAIL);
	CHECK_INT_EQ(rep.system[GW_HSYS_PCIE], GW_HEALTH_PASS);

	a = healthy(T0, 0);
	gw_health_set(&a, GW_HV_RECOVERY_ACTION, 3);
	rep = after(&a, &a);
	CHECK_INT_EQ(rep.system[GW_HSYS_DRIVER], GW_HEALTH_WARN);
	gw_health_set(&a, GW_HV_RECOVERY_ACTION, 4);
	rep = after(&a, &a);
	CHECK_INT_EQ(rep.system[GW_HSYS_DRIVER], GW_HEALTH_FAIL);
	CHECK_STR_EQ(rep.inc[0].code, "DCGM_FR_GPU_RECOVERY_DRAIN_RESET");
}

static void test_overall_and_names(void)
{
	struct gw_health_report r[3] = {
	    {.status = GW_HEALTH_PASS}, {.status = GW_HEALTH_WARN}, {.status = GW_HEALTH_PASS}};
	CHECK_INT_EQ(gw_health_overall(r, 3), GW_HEALTH_WARN);
	CHECK_INT_EQ(gw_health_overall(r, 0), GW_HEALTH_PASS);
	CHECK_STR_EQ(gw_health_system_name(GW_HSYS_NVLINK), "nvlink");
	CHECK_STR_EQ(gw_health_system_dcgm(GW_HSYS_MEMORY), "MEM");
	CHECK_STR_EQ(gw_health_status_name(GW_HEALTH_FAIL), "fail");
}

/* Every value the watches read comes from a field the table has. */
static void test_map_complete(void)
{
	struct gw_health_map m;
	gw_health_map_init(&m);
	for (int v = 0; v < GW_HV__COUNT; v++) {
		if (m.idx[v][0] < 0)
			fprintf(stderr, "value %d has no field\n", v);
		CHECK(m.idx[v][0] >= 0);
	}
	CHECK(m.idx[GW_HV_THERMAL_NS][1] >= 0);
}

int main(void)
{
	RUN(test_clean_passes);
	RUN(test_dbe_fails_and_keeps_since);
	RUN(test_pcie_replay_rate);
	RUN(test_pcie_link);
	RUN(test_retired_and_remap);
	RUN(test_retired_dbe_week);
	RUN(test_sbe_rate);
	RUN(test_thermal_power_inforom);
	RUN(test_nvlink);
	RUN(test_xids_lost_recovery);
	RUN(test_overall_and_names);
	RUN(test_map_complete);
	return harness_done();
}
