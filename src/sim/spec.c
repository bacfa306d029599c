/*
 * spec.c - the short form of --sim: "8xH200", "4xH100:training,4xL40S:inference".
 *
 * Grammar: ITEM[,ITEM]... where ITEM is COUNTxMODEL[:WORKLOAD][:mig=LAYOUT]
 * (COUNT defaults to 1, model names are case-insensitive with aliases; the
 * MIG layout is nvml_mig.c's, e.g. 3g.40gb+2g.20gb+2x1g.10gb) or one of
 * the options seed=N, host=NAME, speed=N, clock=real|manual|step. Anything richer is a
 * scenario file (scenario.c).
 */
#include "sim.h"
#include "scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int parse_option(const char *item, char *err, size_t errlen)
{
	const char *eq = strchr(item, '=');
	size_t klen = (size_t)(eq - item);
	const char *v = eq + 1;
	if (klen == 4 && strncasecmp(item, "seed", 4) == 0) {
		unsigned long long seed;
		if (gwsim_parse_u64("seed", v, &seed, err, errlen) != 0)
			return -1;
		gwsim.seed = seed;
		return 0;
	} else if (klen == 4 && strncasecmp(item, "host", 4) == 0) {
		return gwsim_host_set(v, err, errlen);
	} else if (klen == 5 && strncasecmp(item, "speed", 5) == 0) {
		double sp;
		if (gwsim_parse_range("speed", v, GWSIM_SPEED_MIN, GWSIM_SPEED_MAX, &sp, err, errlen) != 0)
			return -1;
		gwsim.speed = sp;
		return 0;
	} else if (klen == 5 && strncasecmp(item, "clock", 5) == 0) {
		if (strcasecmp(v, "manual") == 0 || strcasecmp(v, "frozen") == 0) {
			gwsim.clock_mode = GWSIM_CLOCK_MANUAL;
			return 0;
		}
		if (strcasecmp(v, "real") == 0) {
			gwsim.clock_mode = GWSIM_CLOCK_REAL;
			return 0;
		}
		if (strcasecmp(v, "step") == 0) {
			gwsim.clock_mode = GWSIM_CLOCK_STEP;
			return 0;
		}
	} else {
		snprintf(err, errlen, "unknown option \"%.*s\" (known: seed, host, speed, clock)", (int)klen, item);
		return -1;
	}
	snprintf(err, errlen, "bad value in \"%s\"", item);
	return -1;
}

/* The parts after MODEL: a workload and/or mig=LAYOUT, ':' separated. */
static int parse_suffix(const char *model, const char *suffix, unsigned int count, char *err, size_t errlen)
{
	char buf[128], wl[64] = "";
	const char *mig = NULL;
	snprintf(buf, sizeof(buf), "%s", suffix ? suffix : "");
	char *save = NULL;
	for (char *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		if (strncasecmp(t, "mig=", 4) == 0)
			mig = t + 4;
		else if (!wl[0])
			snprintf(wl, sizeof(wl), "%s", t);
		else {
			snprintf(err, errlen, "bad GPU spec suffix \"%s\" (expected WORKLOAD and/or mig=LAYOUT)", suffix);
			return -1;
		}
	}
	unsigned int first = gwsim.ngpus;
	if (gwsim_fleet_add(model, wl, count, err, errlen) != 0)
		return -1;
	for (unsigned int i = first; mig && i < gwsim.ngpus; i++)
		if (gwsim_mig_set(&gwsim.gpus[i], mig, err, errlen) != 0)
			return -1;
	return 0;
}

static int parse_item(const char *item, char *err, size_t errlen)
{
	const char *eq = strchr(item, '='), *colon = strchr(item, ':');
	if (eq && (!colon || eq < colon))
		return parse_option(item, err, errlen);
	unsigned long count = 1;
	const char *p = item;
	if (isdigit((unsigned char)*p)) {
		char *end;
		count = strtoul(p, &end, 10);
		if (*end != 'x' && *end != 'X') {
			snprintf(err, errlen, "bad GPU spec \"%s\" (expected COUNTxMODEL[:WORKLOAD], e.g. 8xH200:training)",
				 item);
			return -1;
		}
		if (count == 0 || count > GWSIM_MAX_GPUS) {
			snprintf(err, errlen, "GPU count %.*s in \"%s\" is out of range (1..%d)", (int)(end - p), p, item,
				 GWSIM_MAX_GPUS);
			return -1;
		}
		p = end + 1;
	}
	char model[64];
	colon = strchr(p, ':');
	size_t mlen = colon ? (size_t)(colon - p) : strlen(p);
	if (mlen == 0 || mlen >= sizeof(model)) {
		snprintf(err, errlen, "bad GPU spec \"%s\" (expected COUNTxMODEL[:WORKLOAD], e.g. 8xH200:training)", item);
		return -1;
	}
	memcpy(model, p, mlen);
	model[mlen] = '\0';
	return parse_suffix(model, colon ? colon + 1 : NULL, (unsigned int)count, err, errlen);
}

int gwsim_spec_parse(const char *spec, char *err, size_t errlen)
{
	char item[128];
	const char *p = spec;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		while (n && isspace((unsigned char)*p)) {
			p++;
			n--;
		}
		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		if (n == 0 || n >= sizeof(item)) {
			snprintf(err, errlen, "bad simulator spec \"%s\" (expected e.g. 8xH200 or 4xH100:training,4xL40S:inference)",
				 spec);
			return -1;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		if (parse_item(item, err, errlen) != 0)
			return -1;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}
