/*
 * health.h - DCGM's health watches without DCGM: each GPU's PCIe, memory,
 * InfoROM, thermal, power, NVLink and driver watches, each PASS, WARN or
 * FAIL, with incidents that say what happened, since when and what to do.
 *
 * Pure evaluation: a watch is handed readings (one GPU's values at one
 * time: health/reading.h builds them from a sampler frame) and keeps what
 * it needs of the past itself, so rates (PCIe replays a minute, NVLink CRC
 * errors a second, violation time in the last minute) and "since" come
 * from the readings alone, and tests drive it without NVML. Thresholds are
 * DCGM's defaults (docs/HEALTH.md says where each comes from).
 *
 * Ownership: struct gw_health is caller-embedded (gw_health_init /
 * gw_health_release); reports are caller-owned plain structs. Threading:
 * none; one evaluator at a time per struct gw_health.
 */
#ifndef GW_HEALTH_HEALTH_H
#define GW_HEALTH_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The watches, as DCGM groups them (DCGM_HEALTH_WATCH_*); name: the system label. */
#define GW_HEALTH_SYSTEMS(X)                                                                                 \
	X(PCIE, "pcie", "PCIE")                                                                              \
	X(MEMORY, "memory", "MEM")                                                                           \
	X(INFOROM, "inforom", "INFOROM")                                                                     \
	X(THERMAL, "thermal", "THERMAL")                                                                     \
	X(POWER, "power", "POWER")                                                                           \
	X(NVLINK, "nvlink", "NVLINK")                                                                        \
	X(DRIVER, "driver", "DRIVER")

enum gw_health_system {
#define GW_HSYS_ENUM(id, name, dcgm) GW_HSYS_##id,
	GW_HEALTH_SYSTEMS(GW_HSYS_ENUM)
#undef GW_HSYS_ENUM
	    GW_HSYS__COUNT
};

/* A watch's verdict, in order of badness; the metric's value. */
enum gw_health_status { GW_HEALTH_PASS = 0, GW_HEALTH_WARN = 1, GW_HEALTH_FAIL = 2 };

const char *gw_health_system_name(enum gw_health_system s); /* "pcie" */
const char *gw_health_system_dcgm(enum gw_health_system s); /* dcgm-exporter's health_watch: "PCIE" */
const char *gw_health_status_name(enum gw_health_status s); /* "pass", "warn", "fail" */

/*
 * The values a reading may carry, each with a valid bit: "not supported"
 * and "not read" leave the bit clear and the watches that need the value
 * pass, as DCGM's do on a blank sample. Counters (C) are cumulative: the
 * watches take their increase over a window; states (S) are read as they are.
 */
#define GW_HEALTH_VALUES(X)                                                                                  \
	X(PCIE_REPLAYS, C) /* PCIe replay counter */                                                         \
	X(PCIE_GEN, S)	   /* current PCIe link generation */                                                \
	X(PCIE_GEN_MAX, S) /* the most the GPU and the host allow */                                         \
	X(PCIE_WIDTH, S)   /* current lanes */                                                               \
	X(PCIE_WIDTH_MAX, S)                                                                                 \
	X(IDLE, S)	      /* 1: the clocks are down because nothing runs (the link may slow then) */     \
	X(SBE_VOL, C)	      /* volatile corrected ECC errors, whole chip */                                \
	X(DBE_VOL, S)	      /* volatile uncorrected ECC errors: any is a failure until a reset */          \
	X(RETIRED_SBE, S)     /* pages retired for repeated single-bit errors */                             \
	X(RETIRED_DBE, S)     /* pages retired for double-bit errors */                                      \
	X(RETIRED_PENDING, S) /* 1: pages wait for a reboot to be retired */                                 \
	X(REMAP_UNC, S)	      /* rows remapped for uncorrectable errors */                                   \
	X(REMAP_PENDING, S)   /* 1: a remap waits for a reset */                                             \
	X(REMAP_FAILURE, S)   /* 1: a remap failed */                                                        \
	X(INFOROM_VALID, S)   /* 0: the InfoROM's checksums do not verify */                                 \
	X(THERMAL_NS, C)      /* time thermal limits held the clocks down (software + hardware), ns */       \
	X(TLIMIT_C, S)	      /* degrees C left before the slowdown temperature */                           \
	X(POWER_NS, C)	      /* time the power cap held the clocks down, ns */                              \
	X(BRAKE_NS, C)	      /* time an external power brake held the clocks down, ns */                    \
	X(NVL_CRC_FLIT, C)    /* NVLink error totals over all links */                                       \
	X(NVL_CRC_DATA, C)                                                                                   \
	X(NVL_REPLAY, C)                                                                                     \
	X(NVL_RECOVERY, C)                                                                                   \
	X(NVL_ACTIVE, S)      /* NVLinks up: fewer than the most seen means links went down */               \
	X(RECOVERY_ACTION, S) /* the driver's recovery action: 0 none, 1 reset, 2 reboot, 3/4 drain */

enum gw_health_value {
#define GW_HV_ENUM(id, kind) GW_HV_##id,
	GW_HEALTH_VALUES(GW_HV_ENUM)
#undef GW_HV_ENUM
	    GW_HV__COUNT
};

#define GW_HEALTH_XIDS 32 /* distinct XID codes a reading carries */

/* One GPU's values at one time. */
struct gw_health_reading {
	int64_t t_ms;
	bool lost;	/* fell off the bus: every other value is moot */
	uint32_t valid; /* bit (1 << enum gw_health_value) */
	int64_t v[GW_HV__COUNT];
	/* XIDs the driver reported since the readings began, by code (cumulative) */
	struct {
		unsigned int code;
		uint64_t count;
	} xid[GW_HEALTH_XIDS];
	unsigned int nxid;
};

static inline void gw_health_set(struct gw_health_reading *r, enum gw_health_value k, int64_t v)
{
	r->v[k] = v;
	r->valid |= 1u << k;
}

/* Thresholds; gw_health_defaults() gives DCGM's. */
struct gw_health_opts {
	int64_t window_ms;	   /* rates and violation times over this much past (DCGM: 1 minute) */
	int64_t sbe_per_window;	   /* more volatile SBEs than this in the window: warn */
	int64_t retired_pages_max; /* SBE + DBE retired pages at or above: fail */
	int64_t retired_dbe_soft;  /* DBE retired pages above this, and more than 1 a week: fail */
	int64_t remap_unc_max;	   /* uncorrectable remapped rows at or above: warn */
	double nvlink_crc_per_s;   /* NVLink CRC errors a second at or above: fail (fewer: warn) */
	/* Warn for software power capping in the window, as DCGM does. Off by
	 * default: a GPU held at its power limit does what it was told to (a
	 * training job at full power always is), so it would never pass. */
	bool power_cap_warns;
};

void gw_health_defaults(struct gw_health_opts *o);

#define GW_HEALTH_MSG_MAX 320
#define GW_HEALTH_INCIDENTS_MAX 32

struct gw_health_incident {
	uint8_t system;	  /* enum gw_health_system */
	uint8_t severity; /* enum gw_health_status: WARN or FAIL */
	bool all;	  /* DCGM reports it under its ALL watch (the XIDs it always watches) */
	const char *code; /* DCGM's error code for it (dcgm-exporter's health_error_code): "DCGM_FR_..." */
	char key[40];	  /* the same incident across evaluations has the same key */
	int64_t since_ms; /* first evaluation that saw it */
	char message[GW_HEALTH_MSG_MAX]; /* what, then what to do */
};

/* One GPU's verdict at one evaluation. */
struct gw_health_report {
	int64_t t_ms;
	uint8_t status;			/* the worst of system[] */
	uint8_t system[GW_HSYS__COUNT]; /* enum gw_health_status per watch */
	struct gw_health_incident inc[GW_HEALTH_INCIDENTS_MAX];
	unsigned int ninc; /* worst first, then by system */
	/* each counter's increase over the window (policies read them); bit (1 << value): known */
	int64_t delta[GW_HV__COUNT];
	uint32_t has_delta;
};

/* A GPU's past as the watches keep it (opaque to callers). */
struct gw_health_gpu;

struct gw_health {
	struct gw_health_opts o;
	struct gw_health_gpu *gpu;
	unsigned int ngpus;
};

/* ngpus GPUs, by position (0..ngpus-1). opts NULL: the defaults. 0 or GW_ENOMEM. */
int gw_health_init(struct gw_health *h, unsigned int ngpus, const struct gw_health_opts *opts);
void gw_health_release(struct gw_health *h);

/*
 * Evaluate GPU g on a new reading (newer than its last; an older one is
 * evaluated without being kept) and fill out. Incidents seen by the
 * previous evaluation keep their since.
 */
void gw_health_eval(struct gw_health *h, unsigned int g, const struct gw_health_reading *r,
		    struct gw_health_report *out);

/* The worst status among n reports (PASS for none). */
enum gw_health_status gw_health_overall(const struct gw_health_report *r, unsigned int n);

#endif
