/*
 * nvml_health.c - ECC counters, retired pages, row remapping, field values
 * and the event API (XID, ECC events) that faults.c feeds.
 */
#include "sim.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* Which memory locations count ECC errors: Ampere and newer report DRAM and
 * SRAM only (the captures print N/A for the rest); older boards per cache. */
static bool ecc_location(const struct gwsim_gpu *g, nvmlMemoryLocation_t loc)
{
	if (g->st.arch >= NVML_DEVICE_ARCH_AMPERE)
		return loc == NVML_MEMORY_LOCATION_DRAM || loc == NVML_MEMORY_LOCATION_SRAM;
	return loc >= NVML_MEMORY_LOCATION_L1_CACHE && loc <= NVML_MEMORY_LOCATION_TEXTURE_MEMORY;
}

static bool ecc_args(nvmlMemoryErrorType_t e, nvmlEccCounterType_t c)
{
	return (e == NVML_MEMORY_ERROR_TYPE_CORRECTED || e == NVML_MEMORY_ERROR_TYPE_UNCORRECTED) &&
	       (c == NVML_VOLATILE_ECC || c == NVML_AGGREGATE_ECC);
}

static nvmlReturn_t ecc_total(const struct gwsim_gpu *g, nvmlMemoryErrorType_t e, nvmlEccCounterType_t c,
			      unsigned long long *out)
{
	if (!g->st.ecc)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!out || !ecc_args(e, c))
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned long long sum = 0;
	for (int l = 0; l < 8; l++)
		sum += g->h.ecc[e][c][l];
	*out = sum;
	return NVML_SUCCESS;
}

static nvmlReturn_t ecc_counter(const struct gwsim_gpu *g, nvmlMemoryErrorType_t e, nvmlEccCounterType_t c,
				nvmlMemoryLocation_t loc, unsigned long long *out)
{
	if (!g->st.ecc)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!out || !ecc_args(e, c) || loc < 0 || loc > NVML_MEMORY_LOCATION_SRAM)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!ecc_location(g, loc))
		return NVML_ERROR_NOT_SUPPORTED;
	*out = g->h.ecc[e][c][loc];
	return NVML_SUCCESS;
}

/* A MIG device counts its own errors; the simulator attributes none to instances. */
static nvmlReturn_t mig_ecc_total(const struct gwsim_gpu *g, nvmlMemoryErrorType_t e, nvmlEccCounterType_t c,
				  unsigned long long *out)
{
	unsigned long long whole;
	nvmlReturn_t r = ecc_total(g, e, c, &whole);
	if (r == NVML_SUCCESS && out)
		*out = 0;
	return out ? r : NVML_ERROR_INVALID_ARGUMENT;
}

GWSIM_DEV_MIG(nvmlDeviceGetTotalEccErrors,
	      (nvmlDevice_t d, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,
	       unsigned long long *eccCounts),
	      m ? mig_ecc_total(g, errorType, counterType, eccCounts) : ecc_total(g, errorType, counterType, eccCounts))
GWSIM_DEV(nvmlDeviceGetMemoryErrorCounter,
	  (nvmlDevice_t d, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,
	   nvmlMemoryLocation_t locationType, unsigned long long *count),
	  ecc_counter(g, errorType, counterType, locationType, count))

/* Timestamps (seconds since the epoch) only for the _v2 call. */
static nvmlReturn_t retired(const struct gwsim_gpu *g, nvmlPageRetirementCause_t cause, unsigned int *count,
			    unsigned long long *addr, unsigned long long *stamps)
{
	if (!g->st.retired_pages)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!count || (cause != NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS &&
		       cause != NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR))
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned int n = g->h.retired_n[cause];
	if (n && (!addr || *count < n)) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned int i = 0; i < n; i++) {
		addr[i] = g->h.retired[cause][i];
		if (stamps)
			stamps[i] = g->h.retired_t[cause][i];
	}
	*count = n;
	return NVML_SUCCESS;
}

static nvmlReturn_t retired_pending(const struct gwsim_gpu *g, nvmlEnableState_t *p)
{
	if (!g->st.retired_pages)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = g->h.retired_pending ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

static nvmlReturn_t remapped(const struct gwsim_gpu *g, unsigned int *corr, unsigned int *unc, unsigned int *pend,
			     unsigned int *fail)
{
	if (!g->st.remap)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!corr || !unc || !pend || !fail)
		return NVML_ERROR_INVALID_ARGUMENT;
	*corr = g->h.remap_corr;
	*unc = g->h.remap_unc;
	*pend = g->h.remap_pending;
	*fail = g->h.remap_failure;
	return NVML_SUCCESS;
}

static nvmlReturn_t histogram(const struct gwsim_gpu *g, nvmlRowRemapperHistogramValues_t *v)
{
	if (!g->st.remap)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	v->max = g->h.remap_hist[0];
	v->high = g->h.remap_hist[1];
	v->partial = g->h.remap_hist[2];
	v->low = g->h.remap_hist[3];
	v->none = g->h.remap_hist[4];
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetRetiredPages,
	  (nvmlDevice_t d, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses),
	  retired(g, cause, pageCount, addresses, NULL))
GWSIM_DEV(nvmlDeviceGetRetiredPages_v2,
	  (nvmlDevice_t d, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses,
	   unsigned long long *timestamps),
	  retired(g, cause, pageCount, addresses, timestamps))
GWSIM_DEV(nvmlDeviceGetRetiredPagesPendingStatus, (nvmlDevice_t d, nvmlEnableState_t *isPending),
	  retired_pending(g, isPending))
GWSIM_DEV(nvmlDeviceGetRemappedRows,
	  (nvmlDevice_t d, unsigned int *corrRows, unsigned int *uncRows, unsigned int *isPending,
	   unsigned int *failureOccurred),
	  remapped(g, corrRows, uncRows, isPending, failureOccurred))
GWSIM_DEV(nvmlDeviceGetRowRemapperHistogram, (nvmlDevice_t d, nvmlRowRemapperHistogramValues_t *values),
	  histogram(g, values))

/* ---- field values ------------------------------------------------------------ */
static void field_ull(nvmlFieldValue_t *f, unsigned long long v)
{
	f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
	f->value.ullVal = v;
}

static void field_uint(nvmlFieldValue_t *f, unsigned int v)
{
	f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
	f->value.ullVal = 0;
	f->value.uiVal = v;
}

static nvmlReturn_t field(const struct gwsim_gpu *g, nvmlFieldValue_t *f)
{
	const struct gwsim_static *st = &g->st;
	nvmlReturn_t q;
	if (gwsim_query_field(g, f, &q))
		return q;
	switch (f->fieldId) {
	case NVML_FI_DEV_PERF_POLICY_POWER:
		field_ull(f, gwsim_violation_ns(g, 0));
		return NVML_SUCCESS;
	case NVML_FI_DEV_PERF_POLICY_THERMAL:
		field_ull(f, gwsim_violation_ns(g, 1));
		return NVML_SUCCESS;
	case NVML_FI_DEV_PERF_POLICY_SYNC_BOOST:
		field_ull(f, gwsim_violation_ns(g, 2));
		return NVML_SUCCESS;
	case NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN:
	case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
	case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN:
		field_ull(f, gwsim_violation_ns(g, 3 + f->fieldId - NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN));
		return NVML_SUCCESS;
	case NVML_FI_DEV_MEMORY_TEMP:
		if (!st->has_mem_temp)
			return NVML_ERROR_NOT_SUPPORTED;
		field_uint(f, (unsigned int)floor(gwsim_mem_temp(g) + 0.5));
		return NVML_SUCCESS;
	case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
	case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
	case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX:
	case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX: {
		if (!st->nvlinks)
			return NVML_ERROR_NOT_SUPPORTED;
		if (f->scopeId >= st->nvlinks && f->scopeId != NVML_VALUE_NOT_AVAILABLE_UINT)
			return NVML_ERROR_INVALID_ARGUMENT;
		bool tx = f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX ||
			  f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX;
		bool raw = f->fieldId >= NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX;
		double bytes = tx ? g->d.gpm_nvl_tx : g->d.gpm_nvl_rx;
		if (f->scopeId != NVML_VALUE_NOT_AVAILABLE_UINT)
			bytes /= st->nvlinks;
		/* KiB counters; raw adds the link protocol's framing (~10 %) */
		field_ull(f, (unsigned long long)(bytes * (raw ? 1.1 : 1.0) / 1024.0));
		return NVML_SUCCESS;
	}
	case NVML_FI_DEV_NVLINK_GET_SPEED: {
		unsigned int mbps = 0;
		nvmlReturn_t r = gwsim_nvlink_speed(g, f->scopeId, &mbps);
		if (r == NVML_SUCCESS)
			field_uint(f, mbps);
		return r;
	}
	case NVML_FI_DEV_POWER_AVERAGE:
		if (st->arch < NVML_DEVICE_ARCH_AMPERE)
			return NVML_ERROR_NOT_SUPPORTED;
		field_uint(f, (unsigned int)llround(gwsim_pinned(g, GWSIM_PIN_POWER_AVG) ? gwsim_pin(g, GWSIM_PIN_POWER_AVG)
											 : g->d.now.power_avg_mw));
		return NVML_SUCCESS;
	case NVML_FI_DEV_POWER_INSTANT:
		field_uint(f, (unsigned int)llround(g->d.now.power_mw));
		return NVML_SUCCESS;
	default:
		return gwsim_field_nvlink_errors(g, f);
	}
}

static nvmlReturn_t fields(const struct gwsim_gpu *g, int n, nvmlFieldValue_t *v)
{
	if (n < 0 || (n > 0 && !v))
		return NVML_ERROR_INVALID_ARGUMENT;
	long long ts = (long long)gwsim_t_to_us(g->d.t);
	for (int i = 0; i < n; i++) {
		v[i].timestamp = ts;
		v[i].latencyUsec = 0;
		v[i].nvmlReturn = field(g, &v[i]);
	}
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetFieldValues, (nvmlDevice_t d, int valuesCount, nvmlFieldValue_t *values),
	  fields(g, valuesCount, values))

/* ---- events -------------------------------------------------------------------- */
static struct gwsim_event_set *set_of(nvmlEventSet_t set)
{
	struct gwsim_event_set *s = (struct gwsim_event_set *)(void *)set;
	if (!set || s < gwsim.sets || s >= gwsim.sets + GWSIM_MAX_SETS || !s->used)
		return NULL;
	if ((size_t)((char *)s - (char *)gwsim.sets) % sizeof(*s))
		return NULL;
	return s;
}

static unsigned long long supported_events(const struct gwsim_gpu *g)
{
	unsigned long long t = nvmlEventTypeXidCriticalError | nvmlEventTypePState | nvmlEventTypeClock;
	if (g->st.ecc)
		t |= nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError;
	return t;
}

GWSIM_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	if (r == NVML_SUCCESS && !set)
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS) {
		r = NVML_ERROR_MEMORY;
		for (unsigned int i = 0; i < GWSIM_MAX_SETS; i++) {
			if (!gwsim.sets[i].used) {
				memset(&gwsim.sets[i], 0, sizeof(gwsim.sets[i]));
				gwsim.sets[i].used = true;
				*set = (nvmlEventSet_t)(void *)&gwsim.sets[i];
				r = NVML_SUCCESS;
				break;
			}
		}
	}
	return gwsim_leave(r);
}

static nvmlReturn_t reg(const struct gwsim_gpu *g, unsigned long long types, nvmlEventSet_t set)
{
	struct gwsim_event_set *s = set_of(set);
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (types & ~supported_events(g))
		return NVML_ERROR_NOT_SUPPORTED;
	s->mask[g->index] |= types;
	return NVML_SUCCESS;
}

static nvmlReturn_t supported(const struct gwsim_gpu *g, unsigned long long *types)
{
	if (!types)
		return NVML_ERROR_INVALID_ARGUMENT;
	*types = supported_events(g);
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceRegisterEvents, (nvmlDevice_t d, unsigned long long eventTypes, nvmlEventSet_t set),
	  reg(g, eventTypes, set))
GWSIM_DEV(nvmlDeviceGetSupportedEventTypes, (nvmlDevice_t d, unsigned long long *eventTypes), supported(g, eventTypes))

/*
 * Whether a fault of GPU g is due and not yet applied: only applying one
 * posts events, so only then does a waiter advance the GPU (the physics
 * catch up on the next call that reads it, as always). Lock held.
 */
static bool fault_due(unsigned int g, double t)
{
	for (unsigned int i = 0; i < gwsim.nfaults; i++) {
		const struct gwsim_fault *f = &gwsim.faults[i];
		if (f->at <= t && (f->gpu < 0 || f->gpu == (int)g) && !(f->done_mask & (1ULL << g)))
			return true;
	}
	return false;
}

/*
 * Seconds of real time until something this waiter must act on is due: the
 * next fault of a GPU the set watches (it posts the event), or a rule on
 * this call starting or ending. Only the real clock moves by itself; the
 * other clocks wake waiters when they move. Lock held.
 */
static double next_due(const struct gwsim_event_set *s, double t)
{
	double due = INFINITY;
	if (gwsim.clock_mode != GWSIM_CLOCK_REAL || !(gwsim.speed > 0))
		return due;
	for (unsigned int i = 0; i < gwsim.nfaults; i++) {
		const struct gwsim_fault *f = &gwsim.faults[i];
		if (f->at <= t)
			continue; /* due ones were applied by the advance before this */
		for (unsigned int g = 0; g < gwsim.ngpus; g++)
			if (s->mask[g] && (f->gpu < 0 || f->gpu == (int)g) && !(f->done_mask & (1ULL << g)))
				due = fmin(due, f->at);
	}
	for (unsigned int i = 0; i < gwsim.nrules; i++) {
		const struct gwsim_rule *r = &gwsim.rules[i];
		if (strcmp(r->func, "nvmlEventSetWait") != 0 && strcmp(r->func, "*") != 0)
			continue;
		if (r->from > t)
			due = fmin(due, r->from);
		if (r->until > t)
			due = fmin(due, r->until);
	}
	return (due - t) / gwsim.speed;
}

/*
 * Waits in real time for an event, blocked as a driver blocks: each round
 * advances the GPUs the set watches that have a fault due (which fires it
 * into the queue), then sleeps on gwsim.wake until an event is posted, the clock is
 * moved (manual-clock tests gwsim_clock_advance() from another thread while
 * a waiter blocks), the next fault or rule is due, or the timeout. The
 * waiter costs no CPU between those: the agent's CPU figures measure
 * gpuwatch, not a simulator polling on its behalf.
 */
GWSIM_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
	double deadline = gwsim_mono() + timeoutms / 1000.0;
	for (;;) {
		nvmlReturn_t r = gwsim_enter_sys(__func__);
		struct gwsim_event_set *s = r == NVML_SUCCESS ? set_of(set) : NULL;
		if (r == NVML_SUCCESS && (!s || !data))
			r = NVML_ERROR_INVALID_ARGUMENT;
		if (r != NVML_SUCCESS)
			return gwsim_leave(r);
		double t = gwsim_now_t();
		for (unsigned int i = 0; i < gwsim.ngpus; i++)
			if (s->mask[i] && fault_due(i, t))
				gwsim_advance(&gwsim.gpus[i], t);
		if (s->len) {
			*data = s->q[s->head];
			s->head = (s->head + 1) % GWSIM_EVQ_LEN;
			s->len--;
			return gwsim_leave(NVML_SUCCESS);
		}
		double left = deadline - gwsim_mono();
		if (left <= 0) {
			gwsim_leave(NVML_SUCCESS);
			return NVML_ERROR_TIMEOUT;
		}
		/* at least 1 ms: a fault due "now" by rounding must not spin */
		double wait = fmax(fmin(left, next_due(s, t)), 0.001);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double ns = (double)ts.tv_nsec + wait * 1e9;
		ts.tv_sec += (time_t)(ns / 1e9);
		ts.tv_nsec = (long)fmod(ns, 1e9);
		pthread_cond_clockwait(&gwsim.wake, &gwsim.lock, CLOCK_MONOTONIC, &ts);
		gwsim_leave(NVML_SUCCESS);
	}
}

GWSIM_EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
	return nvmlEventSetWait_v2(set, data, timeoutms);
}

GWSIM_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
	nvmlReturn_t r = gwsim_enter_sys(__func__);
	struct gwsim_event_set *s = r == NVML_SUCCESS ? set_of(set) : NULL;
	if (r == NVML_SUCCESS && !s)
		r = NVML_ERROR_INVALID_ARGUMENT;
	if (s)
		s->used = false;
	return gwsim_leave(r);
}
