/*
 * faults.c - the gate every NVML call passes (gwsim_enter/gwsim_leave),
 * faults at chosen virtual times, call rules (fail with a code, time out),
 * and the event queues nvmlEventSetWait drains.
 *
 * Fault text (scenario "fault = TIME WHAT", gwsim_inject(gpu, WHAT)):
 *   xid N | ecc-sbe [N] [dram|sram] | ecc-dbe [N] [dram|sram]
 *   retire-page sbe|dbe [ADDR] | remap-row corr|unc | remap-fail
 *   pcie-replay [N] | lost | throttle REASON SECONDS
 *   nvlink-error crc-flit|crc-data|replay|recovery [N [LINK]] | nvlink-down LINK
 *   spike util_gpu|util_mem|power_mw VALUE SECONDS | power-limit WATTS
 *   fail FUNC CODE [SECONDS] | timeout FUNC DELAY_MS [SECONDS]
 */
#include "sim.h"
#include "gwsim.h"
#include "scenario.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void gwsim_base_name(const char *func, char *out, size_t len)
{
	/* Every NVML call passes here: a bounded copy, not snprintf. */
	size_t n = len ? strnlen(func, len - 1) : 0;
	if (!len)
		return;
	memcpy(out, func, n);
	out[n] = '\0';
	size_t i = n;
	while (i > 0 && isdigit((unsigned char)out[i - 1]))
		i--;
	if (i < n && i >= 2 && out[i - 1] == 'v' && out[i - 2] == '_')
		out[i - 2] = '\0';
}

nvmlReturn_t gwsim_copy_str(char *dst, unsigned int len, const char *src)
{
	if (!dst)
		return NVML_ERROR_INVALID_ARGUMENT;
	size_t n = strlen(src);
	if (n + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(dst, src, n + 1);
	return NVML_SUCCESS;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Rules: a call answers a chosen code (or sleeps, then TIMEOUT) in a window. */
static nvmlReturn_t rule_check(const char *base, int gpu, double t)
{
	for (unsigned int i = 0; i < gwsim.nrules; i++) {
		const struct gwsim_rule *r = &gwsim.rules[i];
		if ((r->gpu >= 0 && r->gpu != gpu) || t < r->from || (r->until >= 0 && t >= r->until))
			continue;
		if (strcmp(r->func, base) != 0 && strcmp(r->func, "*") != 0)
			continue;
		if (r->delay_ms) {
			/* A hung driver call: the caller really waits, without the lock. */
			unsigned int ms = r->delay_ms;
			pthread_mutex_unlock(&gwsim.lock);
			sleep_ms(ms);
			pthread_mutex_lock(&gwsim.lock);
		}
		return r->ret;
	}
	return NVML_SUCCESS;
}

/* The board's own answer for calls it does not support ("func=code," list). */
static nvmlReturn_t ret_lookup(const struct gwsim_gpu *g, const char *base)
{
	char key[80];
	size_t n = strnlen(base, sizeof(key) - 3);
	key[0] = ',';
	memcpy(key + 1, base, n);
	memcpy(key + 1 + n, "=", 2);
	const char *hit = NULL;
	for (const char *p = strstr(g->rets, key); p; p = strstr(p + 1, key))
		hit = p;
	if (!hit)
		return NVML_SUCCESS;
	return (nvmlReturn_t)atoi(hit + strlen(key));
}

static struct gwsim_gpu *gpu_of(nvmlDevice_t d)
{
	struct gwsim_gpu *g = (struct gwsim_gpu *)(void *)d;
	if (!d || g < gwsim.gpus || g >= gwsim.gpus + gwsim.ngpus)
		return NULL;
	if ((size_t)((char *)g - (char *)gwsim.gpus) % sizeof(*g))
		return NULL;
	return g;
}

static nvmlReturn_t enter_gpu(struct gwsim_gpu *g, const char *func, struct gwsim_gpu **out)
{
	if (!g)
		return NVML_ERROR_INVALID_ARGUMENT;
	gwsim_clock_poll();
	double t = gwsim_now_t();
	gwsim_advance(g, t);
	if (g->h.lost)
		return NVML_ERROR_GPU_IS_LOST;
	char base[64];
	gwsim_base_name(func, base, sizeof(base));
	nvmlReturn_t r = rule_check(base, (int)g->index, t);
	if (r == NVML_SUCCESS)
		r = ret_lookup(g, base);
	if (r == NVML_SUCCESS)
		*out = g;
	return r;
}

nvmlReturn_t gwsim_enter(nvmlDevice_t d, const char *func, struct gwsim_gpu **out)
{
	pthread_mutex_lock(&gwsim.lock);
	*out = NULL;
	if (gwsim.init_count <= 0)
		return NVML_ERROR_UNINITIALIZED;
	return enter_gpu(gpu_of(d), func, out);
}

/* A MIG handle's calls follow its parent's faults and rules: an instance
 * is lost with its GPU. */
nvmlReturn_t gwsim_enter_mig(nvmlDevice_t d, const char *func, struct gwsim_gpu **out,
			     const struct gwsim_mig_dev **mig)
{
	pthread_mutex_lock(&gwsim.lock);
	*out = NULL;
	*mig = NULL;
	if (gwsim.init_count <= 0)
		return NVML_ERROR_UNINITIALIZED;
	struct gwsim_gpu *g = gpu_of(d);
	if (!g) {
		*mig = gwsim_mig_of(d);
		if (*mig)
			g = &gwsim.gpus[(*mig)->gpu];
	}
	return enter_gpu(g, func, out);
}

nvmlReturn_t gwsim_enter_sys(const char *func)
{
	pthread_mutex_lock(&gwsim.lock);
	if (gwsim.init_count <= 0)
		return NVML_ERROR_UNINITIALIZED;
	gwsim_clock_poll();
	char base[64];
	gwsim_base_name(func, base, sizeof(base));
	return rule_check(base, -1, gwsim_now_t());
}

nvmlReturn_t gwsim_leave(nvmlReturn_t r)
{
	pthread_mutex_unlock(&gwsim.lock);
	return r;
}

void gwsim_wake_waiters(void)
{
	pthread_cond_broadcast(&gwsim.wake);
}

void gwsim_event_post(struct gwsim_gpu *g, unsigned long long type, unsigned long long data)
{
	gwsim_wake_waiters();
	for (unsigned int i = 0; i < GWSIM_MAX_SETS; i++) {
		struct gwsim_event_set *s = &gwsim.sets[i];
		if (!s->used || !(s->mask[g->index] & type))
			continue;
		if (s->len == GWSIM_EVQ_LEN) { /* full: the oldest is lost, as in the driver */
			s->head = (s->head + 1) % GWSIM_EVQ_LEN;
			s->len--;
		}
		nvmlEventData_t *e = &s->q[(s->head + s->len) % GWSIM_EVQ_LEN];
		memset(e, 0, sizeof(*e));
		e->device = gwsim_handle(g);
		e->eventType = type;
		e->eventData = data;
		e->gpuInstanceId = NVML_VALUE_NOT_AVAILABLE_UINT;
		e->computeInstanceId = NVML_VALUE_NOT_AVAILABLE_UINT;
		s->len++;
	}
}

static void retire(struct gwsim_gpu *g, int cause, unsigned long long addr, double t)
{
	struct gwsim_health *h = &g->h;
	if (!g->st.retired_pages || h->retired_n[cause] >= GWSIM_MAX_RETIRED)
		return;
	if (!addr)
		addr = 0x1000ULL * (gwsim_hash(gwsim.seed, (uint64_t)t * 977 + g->index) % 0x400000ULL);
	h->retired[cause][h->retired_n[cause]] = addr;
	h->retired_t[cause][h->retired_n[cause]++] = gwsim_t_to_us(t) / 1000000ULL;
	h->retired_pending = true;
}

static void remap(struct gwsim_gpu *g, bool uncorrectable)
{
	struct gwsim_health *h = &g->h;
	if (!g->st.remap)
		return;
	if (uncorrectable)
		h->remap_unc++;
	else
		h->remap_corr++;
	h->remap_pending = true;
	/* a bank that loses a spare row moves from "max" to "high" availability */
	if (h->remap_hist[0] > 0) {
		h->remap_hist[0]--;
		h->remap_hist[1]++;
	}
}

static void apply(struct gwsim_gpu *g, const struct gwsim_fault *f)
{
	struct gwsim_health *h = &g->h;
	unsigned int loc = f->arg2 ? (unsigned int)f->arg2 : NVML_MEMORY_LOCATION_DRAM;
	switch (f->kind) {
	case GWSIM_F_XID:
		h->last_xid = f->arg;
		gwsim_event_post(g, nvmlEventTypeXidCriticalError, f->arg);
		break;
	case GWSIM_F_ECC_SBE:
		if (!g->st.ecc)
			break;
		h->ecc[0][0][loc] += f->arg;
		h->ecc[0][1][loc] += f->arg;
		if (f->arg >= 2) /* pre-Ampere: repeated single-bit errors retire the page */
			retire(g, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, 0, f->at);
		gwsim_event_post(g, nvmlEventTypeSingleBitEccError, f->arg);
		break;
	case GWSIM_F_ECC_DBE:
		if (!g->st.ecc)
			break;
		h->ecc[1][0][loc] += f->arg;
		h->ecc[1][1][loc] += f->arg;
		retire(g, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, 0, f->at);
		if (loc == NVML_MEMORY_LOCATION_DRAM)
			remap(g, true);
		gwsim_event_post(g, nvmlEventTypeDoubleBitEccError, f->arg);
		/* the driver logs the uncorrectable error as an XID too */
		h->last_xid = g->st.arch >= NVML_DEVICE_ARCH_AMPERE ? 94 : 48;
		gwsim_event_post(g, nvmlEventTypeXidCriticalError, h->last_xid);
		break;
	case GWSIM_F_RETIRE_PAGE:
		retire(g, f->arg2, f->arg, f->at);
		break;
	case GWSIM_F_REMAP_ROW:
		if (f->arg2 == 2)
			h->remap_failure = true;
		else
			remap(g, f->arg2 == 1);
		break;
	case GWSIM_F_PCIE_REPLAY:
		h->pcie_replays += (unsigned int)f->arg;
		break;
	case GWSIM_F_NVLINK:
		if (g->st.nvlinks > (unsigned int)f->link) { /* a board without the link has no counters to add to */
			h->nvlink_err[f->arg2] += f->arg;
			h->nvlink_link_err[f->arg2][f->link] += f->arg;
		}
		break;
	case GWSIM_F_NVLINK_DOWN:
		h->nvlink_down |= 1u << f->arg;
		break;
	case GWSIM_F_LOST:
		h->last_xid = 79;
		gwsim_event_post(g, nvmlEventTypeXidCriticalError, 79);
		h->lost = true;
		break;
	case GWSIM_F_THROTTLE:
		g->d.forced_reasons = f->arg;
		g->d.forced_until = f->at + f->duration;
		break;
	case GWSIM_F_POWER_LIMIT: {
		unsigned long long mw = f->arg;
		if (g->st.power_min_mw && mw < g->st.power_min_mw)
			mw = g->st.power_min_mw;
		if (g->st.power_max_mw && mw > g->st.power_max_mw)
			mw = g->st.power_max_mw;
		g->st.power_limit_mw = (unsigned int)mw;
		break;
	}
	case GWSIM_F_SPIKE:
		/* from the fault's own time, however late the clock got here */
		g->d.spike_from[f->arg2] = f->at;
		g->d.spike_until[f->arg2] = f->at + f->duration;
		g->d.spike_v[f->arg2] = (double)f->arg;
		break;
	}
}

void gwsim_faults_apply(struct gwsim_gpu *g, double t)
{
	for (unsigned int i = 0; i < gwsim.nfaults; i++) {
		struct gwsim_fault *f = &gwsim.faults[i];
		uint64_t bit = 1ULL << g->index;
		if (f->at > t || (f->gpu >= 0 && f->gpu != (int)g->index) || (f->done_mask & bit))
			continue;
		f->done_mask |= bit;
		if (!g->h.lost)
			apply(g, f);
	}
}

static const struct {
	const char *name;
	unsigned long long bits;
} reasons[] = {
	{"sw-power", nvmlClocksEventReasonSwPowerCap},
	{"hw-slowdown", nvmlClocksThrottleReasonHwSlowdown},
	{"hw-thermal", nvmlClocksThrottleReasonHwSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown},
	{"hw-power-brake", nvmlClocksThrottleReasonHwSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown},
	{"sw-thermal", nvmlClocksEventReasonSwThermalSlowdown},
	{"sync-boost", nvmlClocksEventReasonSyncBoost},
};

static int location(const char *s)
{
	if (!s || strcasecmp(s, "dram") == 0 || strcasecmp(s, "device") == 0)
		return NVML_MEMORY_LOCATION_DRAM;
	if (strcasecmp(s, "sram") == 0)
		return NVML_MEMORY_LOCATION_SRAM;
	if (strcasecmp(s, "l1") == 0)
		return NVML_MEMORY_LOCATION_L1_CACHE;
	if (strcasecmp(s, "l2") == 0)
		return NVML_MEMORY_LOCATION_L2_CACHE;
	if (strcasecmp(s, "register") == 0)
		return NVML_MEMORY_LOCATION_REGISTER_FILE;
	return -1;
}

/* A positive duration up to GWSIM_T_MAX: "0.2", "0.2s" or "200ms". */
static bool seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return false;
	if (strcasecmp(end, "ms") == 0)
		v /= 1000.0;
	else if (*end && strcasecmp(end, "s") != 0)
		return false;
	*out = v;
	return v > 0 && v <= GWSIM_T_MAX;
}

/* The count or code after a fault's name: lo..hi, err naming what and the range. */
static int count(const char *what, const char *v, double lo, double hi, unsigned long long *out, char *err,
		 size_t errlen)
{
	double x;
	if (gwsim_parse_range(what, v, lo, hi, &x, err, errlen) != 0)
		return -1;
	if (x != floor(x))
		return snprintf(err, errlen, "%s wants a whole number, not \"%s\"", what, v), -1;
	*out = (unsigned long long)x;
	return 0;
}

/* Parse WHAT (see the top of this file) for GPU gpu (-1 all) at time at. */
int gwsim_fault_parse(const char *text, int gpu, double at, char *err, size_t errlen)
{
	char buf[256], *w[6] = {0};
	int n = 0;
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *save = NULL, *tok = strtok_r(buf, " \t", &save); tok && n < 6; tok = strtok_r(NULL, " \t", &save))
		w[n++] = tok;
	if (n == 0)
		return snprintf(err, errlen, "empty fault"), -1;
	struct gwsim_fault f = {.at = at, .gpu = gpu};
	const char *k = w[0];
	if (strcasecmp(k, "fail") == 0 || strcasecmp(k, "timeout") == 0) {
		if (n < 3 || gwsim.nrules >= GWSIM_MAX_RULES)
			return snprintf(err, errlen, "expected \"%s FUNC %s [SECONDS]\"", k,
					k[0] == 'f' ? "CODE" : "DELAY_MS"), -1;
		struct gwsim_rule r = {.gpu = gpu, .from = at, .until = -1};
		gwsim_base_name(w[1], r.func, sizeof(r.func));
		if (k[0] == 'f' || k[0] == 'F') {
			if (gwsim_ret_parse(w[2], &r.ret) != 0)
				return snprintf(err, errlen, "unknown NVML return code \"%s\"", w[2]), -1;
		} else {
			/* a hung call blocks its caller for real: ten minutes is already a hang */
			unsigned long long ms;
			r.ret = NVML_ERROR_TIMEOUT;
			if (count("timeout delay (ms)", w[2], 0, 600000, &ms, err, errlen) != 0)
				return -1;
			r.delay_ms = (unsigned int)ms;
		}
		double window;
		if (n >= 4 && !seconds(w[3], &window))
			return snprintf(err, errlen, "%s window \"%s\" is not 0..%.0f seconds", k, w[3], GWSIM_T_MAX), -1;
		if (n >= 4)
			r.until = at + window;
		gwsim.rules[gwsim.nrules++] = r;
		return 0;
	}
	if (gwsim.nfaults >= GWSIM_MAX_FAULTS)
		return snprintf(err, errlen, "too many faults (max %d)", GWSIM_MAX_FAULTS), -1;
	/* a number after the name (xid N, ecc-sbe [N], pcie-replay [N]) */
	bool num_ok = n >= 2 && isdigit((unsigned char)w[1][0]);
	if (strcasecmp(k, "xid") == 0) {
		if (n < 2)
			return snprintf(err, errlen, "expected \"xid N\""), -1;
		f.kind = GWSIM_F_XID;
		/* the driver's XIDs are below 200; NVML reports an unsigned long long */
		if (count("xid", w[1], 0, 65535, &f.arg, err, errlen) != 0)
			return -1;
	} else if (strcasecmp(k, "ecc-sbe") == 0 || strcasecmp(k, "ecc-dbe") == 0) {
		f.kind = k[4] == 's' || k[4] == 'S' ? GWSIM_F_ECC_SBE : GWSIM_F_ECC_DBE;
		f.arg = 1;
		if (num_ok && count("ecc error count", w[1], 1, 1000000, &f.arg, err, errlen) != 0)
			return -1;
		f.arg2 = location(num_ok ? w[2] : w[1]);
		if (f.arg2 < 0)
			return snprintf(err, errlen, "unknown memory location (dram, sram, l1, l2, register)"), -1;
	} else if (strcasecmp(k, "retire-page") == 0) {
		f.kind = GWSIM_F_RETIRE_PAGE;
		if (n < 2 || (strcasecmp(w[1], "sbe") && strcasecmp(w[1], "dbe")))
			return snprintf(err, errlen, "expected \"retire-page sbe|dbe [ADDR]\""), -1;
		f.arg2 = strcasecmp(w[1], "dbe") == 0 ? NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
						       : NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS;
		f.arg = 0;
		if (n >= 3 && gwsim_parse_u64("retire-page address", w[2], &f.arg, err, errlen) != 0)
			return -1;
	} else if (strcasecmp(k, "remap-row") == 0) {
		if (n < 2 || (strcasecmp(w[1], "corr") && strcasecmp(w[1], "unc")))
			return snprintf(err, errlen, "expected \"remap-row corr|unc\""), -1;
		f.kind = GWSIM_F_REMAP_ROW;
		f.arg2 = strcasecmp(w[1], "unc") == 0;
	} else if (strcasecmp(k, "remap-fail") == 0) {
		f.kind = GWSIM_F_REMAP_ROW;
		f.arg2 = 2;
	} else if (strcasecmp(k, "pcie-replay") == 0) {
		f.kind = GWSIM_F_PCIE_REPLAY;
		f.arg = 1;
		if (n >= 2 && count("pcie-replay count", w[1], 1, 1000000, &f.arg, err, errlen) != 0)
			return -1;
	} else if (strcasecmp(k, "nvlink-error") == 0) {
		static const char *const which[] = {"crc-flit", "crc-data", "replay", "recovery"};
		f.kind = GWSIM_F_NVLINK;
		f.arg2 = -1;
		for (int i = 0; n >= 2 && i < 4; i++)
			if (strcasecmp(w[1], which[i]) == 0)
				f.arg2 = i;
		if (f.arg2 < 0)
			return snprintf(err, errlen, "expected \"nvlink-error crc-flit|crc-data|replay|recovery [N [LINK]]\""), -1;
		f.arg = 1;
		if (n >= 3 && count("nvlink-error count", w[2], 1, 1000000, &f.arg, err, errlen) != 0)
			return -1;
		unsigned long long link = 0;
		if (n >= 4 && count("nvlink-error link", w[3], 0, NVML_NVLINK_MAX_LINKS - 1, &link, err, errlen) != 0)
			return -1;
		f.link = (int)link;
	} else if (strcasecmp(k, "nvlink-down") == 0) {
		f.kind = GWSIM_F_NVLINK_DOWN;
		if (n < 2)
			return snprintf(err, errlen, "expected \"nvlink-down LINK\""), -1;
		if (count("nvlink-down link", w[1], 0, NVML_NVLINK_MAX_LINKS - 1, &f.arg, err, errlen) != 0)
			return -1;
	} else if (strcasecmp(k, "lost") == 0) {
		f.kind = GWSIM_F_LOST;
	} else if (strcasecmp(k, "throttle") == 0) {
		f.kind = GWSIM_F_THROTTLE;
		if (n < 3)
			return snprintf(err, errlen, "expected \"throttle REASON SECONDS\""), -1;
		for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
			if (strcasecmp(w[1], reasons[i].name) == 0)
				f.arg = reasons[i].bits;
		char m[8];
		if (!f.arg && (gwsim_parse_u64("throttle", w[1], &f.arg, m, sizeof(m)) != 0 || !f.arg))
			return snprintf(err, errlen,
					"unknown throttle reason \"%s\" (sw-power, hw-slowdown, hw-thermal, "
					"hw-power-brake, sw-thermal, sync-boost or a bit mask)", w[1]), -1;
		if (!seconds(w[2], &f.duration))
			return snprintf(err, errlen, "throttle duration \"%s\" is not 0..%.0f seconds", w[2], GWSIM_T_MAX),
			       -1;
	} else if (strcasecmp(k, "spike") == 0) {
		static const char *const of[GWSIM_SPIKE__COUNT] = {"util_gpu", "util_mem", "power_mw"};
		f.kind = GWSIM_F_SPIKE;
		f.arg2 = -1;
		for (int i = 0; n >= 2 && i < GWSIM_SPIKE__COUNT; i++)
			if (strcasecmp(w[1], of[i]) == 0)
				f.arg2 = i;
		double sv;
		if (f.arg2 < 0 || n < 4 || gwsim_parse_num(w[2], &sv) != 0 || !seconds(w[3], &f.duration))
			return snprintf(err, errlen,
					"expected \"spike util_gpu|util_mem|power_mw VALUE SECONDS\" (e.g. spike "
					"util_gpu 100 200ms, at most %.0f s)", GWSIM_T_MAX), -1;
		/* utilisation in %, power in mW (10 kW at most, as power_mw) */
		if (count(of[f.arg2], w[2], 0, f.arg2 == GWSIM_SPIKE_POWER ? 1e7 : 100, &f.arg, err, errlen) != 0)
			return -1;
	} else if (strcasecmp(k, "power-limit") == 0) {
		f.kind = GWSIM_F_POWER_LIMIT;
		double watts;
		if (n < 2 || gwsim_parse_num(w[1], &watts) != 0 || !(watts >= 1 && watts <= 10000))
			return snprintf(err, errlen, "expected \"power-limit WATTS\" (1..10000, e.g. power-limit 500)"), -1;
		f.arg = (unsigned long long)(watts * 1000.0 + 0.5);
	} else {
		return snprintf(err, errlen,
				"unknown fault \"%s\" (known: xid, ecc-sbe, ecc-dbe, retire-page, remap-row, "
				"remap-fail, pcie-replay, nvlink-error, nvlink-down, lost, throttle, spike, power-limit, "
				"fail, timeout)", k), -1;
	}
	gwsim.faults[gwsim.nfaults++] = f;
	return 0;
}

GWSIM_EXPORT int gwsim_inject(unsigned int gpu, const char *fault, char *errbuf, unsigned int errlen)
{
	char local[GWSIM_ERRLEN];
	char *err = errbuf && errlen ? errbuf : local;
	size_t elen = errbuf && errlen ? errlen : sizeof(local);
	pthread_mutex_lock(&gwsim.lock);
	int rc;
	if (gpu >= gwsim.ngpus) {
		snprintf(err, elen, "no GPU %u", gpu);
		rc = -1;
	} else {
		double t = gwsim_now_t();
		gwsim_advance(&gwsim.gpus[gpu], t);
		rc = gwsim_fault_parse(fault, (int)gpu, t, err, elen);
		if (rc == 0)
			gwsim_faults_apply(&gwsim.gpus[gpu], t);
		gwsim_wake_waiters(); /* a rule may now answer a waiter's calls */
	}
	pthread_mutex_unlock(&gwsim.lock);
	return rc;
}

GWSIM_EXPORT int gwsim_gpu_count(void)
{
	pthread_mutex_lock(&gwsim.lock);
	int n = (int)gwsim.ngpus;
	pthread_mutex_unlock(&gwsim.lock);
	return n;
}

GWSIM_EXPORT int gwsim_process_cgroup(unsigned int pid, char *buf, unsigned int len)
{
	int rc = -1;
	pthread_mutex_lock(&gwsim.lock);
	for (unsigned int i = 0; i < gwsim.ngpus && rc == -1; i++) {
		const struct gwsim_gpu *g = &gwsim.gpus[i];
		for (unsigned int j = 0; j < g->nprocs; j++) {
			if (g->procs[j].pid != pid)
				continue;
			rc = gwsim_copy_str(buf, len, g->procs[j].cgroup) == NVML_SUCCESS ? 0 : -2;
			break;
		}
	}
	pthread_mutex_unlock(&gwsim.lock);
	return rc;
}
