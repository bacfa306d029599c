/*
 * health_int.h - what the health module's files share (not a public
 * header): a GPU's kept past (health.c), the watches (watches.c) and the
 * XID catalogue (xid.c).
 */
#ifndef GW_HEALTH_HEALTH_INT_H
#define GW_HEALTH_HEALTH_INT_H

#include "health/health.h"

/* Counter snapshots kept for rates: at least window / (RING / 2) apart, so RING covers two windows. */
#define HEALTH_RING 128
/* Daily snapshots of DBE retired pages, for "more than one a week". */
#define HEALTH_DAYS 9

struct health_snap {
	int64_t t_ms;
	uint32_t valid;
	int64_t v[GW_HV__COUNT];
};

struct health_seen {
	char key[40];
	int64_t since_ms;
};

struct gw_health_gpu {
	struct health_snap ring[HEALTH_RING];
	unsigned int head, n; /* next slot, snapshots kept */
	struct {
		int64_t t_ms, dbe;
	} day[HEALTH_DAYS];
	unsigned int nday;
	struct health_seen seen[GW_HEALTH_INCIDENTS_MAX]; /* the previous evaluation's incidents */
	unsigned int nseen;
	int64_t nvl_max; /* the most NVLinks seen up */
};

/* What a watch sees: the reading, and the kept snapshot the window starts at (NULL: none yet). */
struct health_view {
	const struct gw_health_opts *o;
	const struct gw_health_reading *r;
	const struct health_snap *base;
	int64_t week_dbe; /* DBE retired pages a week ago; -1: not known */
	int64_t nvl_max;  /* the most NVLinks seen up, this reading's included */
};

/* Add an incident to out (dropped when full): message is printf-formatted, then "; " and what to do. */
void health_add(struct gw_health_report *out, enum gw_health_system sys, enum gw_health_status sev, bool all,
		const char *code, const char *key, const char *todo, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* watches.c: every watch over one reading. */
void health_watch_all(const struct health_view *v, struct gw_health_report *out);
/* A counter's increase over the window; false while there is no window yet. A reset counter counts from 0. */
bool health_delta(const struct health_view *v, enum gw_health_value k, int64_t *d);

/* xid.c */
struct health_xid {
	unsigned int code;
	uint8_t system;	  /* enum gw_health_system */
	uint8_t severity; /* enum gw_health_status */
	bool all;	  /* DCGM watches it whatever the systems (its ALL watch) */
	const char *dcgm; /* DCGM_FR_* */
	const char *what;
	const char *todo;
};
const struct health_xid *health_xid_find(unsigned int code);

#endif
