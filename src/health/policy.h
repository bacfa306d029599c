/*
 * policy.h - health policies, as DCGM's policy manager has them: a
 * condition on a GPU (a double-bit error, listed XIDs, retired pages, a
 * PCIe replay rate, thermal or power violations, NVLink errors, a health
 * verdict) and what to do when it holds (log it, run a program, post to a
 * webhook), at most once per interval for each GPU and condition.
 *
 *   policies:
 *     - name: drain-on-memory-errors
 *       conditions:
 *         dbe: true
 *         xid: [48, 79, 94, 95]
 *         retired_pages: 60
 *       actions:
 *         - log
 *         - exec: [/usr/local/sbin/drain-gpu, --now]
 *         - webhook: http://127.0.0.1:8080/gpu-events
 *       interval: 5m
 *
 * This module reads the file and decides which conditions fire on a
 * reading and its health report; running the actions is the agent's
 * (agent/policy.c), off the sampling thread.
 *
 * Ownership: gw_policies_load fills a caller-embedded set that owns its
 * strings; gw_policies_release frees. The state is caller-embedded too.
 * Threading: none.
 */
#ifndef GW_HEALTH_POLICY_H
#define GW_HEALTH_POLICY_H

#include "core/err.h"
#include "health/health.h"

#define GW_POLICY_CONDITIONS(X)                                                                              \
	X(DBE, "dbe")                                                                                        \
	X(XID, "xid")                                                                                        \
	X(RETIRED_PAGES, "retired_pages")                                                                    \
	X(PCIE_REPLAYS, "pcie_replays_per_min")                                                              \
	X(THERMAL, "thermal_violation")                                                                      \
	X(POWER, "power_violation")                                                                          \
	X(NVLINK, "nvlink_errors")                                                                           \
	X(HEALTH, "health")

enum gw_policy_cond {
#define GW_PC_ENUM(id, name) GW_PC_##id,
	GW_POLICY_CONDITIONS(GW_PC_ENUM)
#undef GW_PC_ENUM
	    GW_PC__COUNT
};

const char *gw_policy_cond_name(enum gw_policy_cond c);

enum gw_policy_action_kind { GW_PA_LOG, GW_PA_EXEC, GW_PA_WEBHOOK };

struct gw_policy_action {
	enum gw_policy_action_kind kind;
	char **argv; /* exec: NULL-terminated */
	char *url;   /* webhook */
};

#define GW_POLICY_XIDS 32
#define GW_POLICIES_MAX 64

struct gw_policy {
	char *name;
	uint32_t conds; /* bit (1 << enum gw_policy_cond) */
	unsigned int xid[GW_POLICY_XIDS];
	unsigned int nxid;
	int64_t retired_pages; /* fires at or above */
	int64_t pcie_per_min;  /* fires above */
	int64_t nvlink_over;   /* fires above (true: 0) */
	uint8_t health;	       /* fires at or above this status (WARN or FAIL) */
	struct gw_policy_action *actions;
	size_t nactions;
	int64_t interval_ms; /* default 5 minutes */
};

struct gw_policies {
	struct gw_policy *v;
	size_t n;
};

/*
 * Read a policy file. Errors name the file and line ("policy.yml:7:
 * unknown condition \"dbee\""); an unknown key, a policy without a
 * condition or an action, or a bad value stops the load.
 */
int gw_policies_load(struct gw_policies *p, const char *path, struct gw_err *err);
int gw_policies_parse(struct gw_policies *p, const char *text, size_t len, const char *origin,
		      struct gw_err *err);
void gw_policies_release(struct gw_policies *p);

/* What the checks remember: per GPU, the counts events are told by, and when each condition last fired. */
struct gw_policy_gpu {
	bool seen;
	int64_t dbe;
	struct {
		unsigned int code;
		uint64_t count;
	} xid[GW_HEALTH_XIDS];
	unsigned int nxid;
	int64_t fired[GW_POLICIES_MAX][GW_PC__COUNT]; /* ms; 0: never */
};

struct gw_policy_state {
	struct gw_policy_gpu *gpu;
	unsigned int ngpus;
};

int gw_policy_state_init(struct gw_policy_state *s, unsigned int ngpus);
void gw_policy_state_release(struct gw_policy_state *s);

/* One firing: policy, condition, and the value it fired on in words ("94", "2", "fail"). */
struct gw_policy_fire {
	const struct gw_policy *policy;
	enum gw_policy_cond cond;
	char value[32];
};

/*
 * Check GPU g's reading and its health report against every policy; fire
 * is called for each condition that holds and has not fired for this GPU
 * within its policy's interval. dbe and xid fire on new events (the count
 * grew since the last check); the others while they hold.
 */
void gw_policies_check(const struct gw_policies *p, struct gw_policy_state *s, unsigned int g,
		       const struct gw_health_reading *r, const struct gw_health_report *rep,
		       void (*fire)(void *arg, unsigned int g, const struct gw_policy_fire *f), void *arg);

#endif
