/*
 * What a tick asks of the driver: each call whose one answer fills several
 * fields is made once per GPU per tick, the field values go in one
 * nvmlDeviceGetFieldValues call, and the values are those of a field-by-field
 * read. And the event thread's wait blocks, as a driver's does, yet wakes for
 * an injected fault, a clock moved by hand, and a fault falling due.
 */
#include "collect/sampler.h"
#include "fields/fields_table.h"
#include "harness.h"
#include "sim_text.h"

#include <dlfcn.h>
#include <pthread.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


/* Counting wrappers around the simulator's shared calls. */
static struct {
	nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_v2_t *);
	nvmlReturn_t (*bar1)(nvmlDevice_t, nvmlBAR1Memory_t *);
	nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*enc)(nvmlDevice_t, unsigned int *, unsigned int *, unsigned int *);
	nvmlReturn_t (*ecc)(nvmlDevice_t, nvmlEnableState_t *, nvmlEnableState_t *);
	nvmlReturn_t (*fv)(nvmlDevice_t, int, nvmlFieldValue_t *);
	unsigned int n_mem, n_bar1, n_util, n_enc, n_ecc, n_fv, fv_values;
} real;

static nvmlReturn_t c_mem(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
	real.n_mem++;
	return real.mem(d, m);
}
static nvmlReturn_t c_bar1(nvmlDevice_t d, nvmlBAR1Memory_t *b)
{
	real.n_bar1++;
	return real.bar1(d, b);
}
static nvmlReturn_t c_util(nvmlDevice_t d, nvmlUtilization_t *u)
{
	real.n_util++;
	return real.util(d, u);
}
static nvmlReturn_t c_enc(nvmlDevice_t d, unsigned int *a, unsigned int *b, unsigned int *c)
{
	real.n_enc++;
	return real.enc(d, a, b, c);
}
static nvmlReturn_t c_ecc(nvmlDevice_t d, nvmlEnableState_t *a, nvmlEnableState_t *b)
{
	real.n_ecc++;
	return real.ecc(d, a, b);
}
static nvmlReturn_t c_fv(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
	real.n_fv++;
	real.fv_values += (unsigned int)n;
	return real.fv(d, n, v);
}

static void wrap(struct gw_nvml *nv)
{
	real.mem = nv->nvmlDeviceGetMemoryInfo_v2;
	real.bar1 = nv->nvmlDeviceGetBAR1MemoryInfo;
	real.util = nv->nvmlDeviceGetUtilizationRates;
	real.enc = nv->nvmlDeviceGetEncoderStats;
	real.ecc = nv->nvmlDeviceGetEccMode;
	real.fv = nv->nvmlDeviceGetFieldValues;
	nv->nvmlDeviceGetMemoryInfo_v2 = c_mem;
	nv->nvmlDeviceGetBAR1MemoryInfo = c_bar1;
	nv->nvmlDeviceGetUtilizationRates = c_util;
	nv->nvmlDeviceGetEncoderStats = c_enc;
	nv->nvmlDeviceGetEccMode = c_ecc;
	nv->nvmlDeviceGetFieldValues = c_fv;
}

static void zero_counts(void)
{
	real.n_mem = real.n_bar1 = real.n_util = real.n_enc = real.n_ecc = real.n_fv = real.fv_values = 0;
}

/* Fields read through nvmlDeviceGetFieldValues. */
/* NVML field values a round asks for: one per field-value row, two (received, sent) per NVLink counter. */
static unsigned int fv_fields(void)
{
	unsigned int n = 0;
	for (size_t i = 0; i < gw_fields_count(); i++)
		if (!(gw_field_at(i)->flags & GW_FL_ON_DEMAND)) /* not asked for: not read */
			n += gw_field_at(i)->read == gw_rd_field_value ? 1 : gw_field_at(i)->read == gw_rd_nvlink_kib ? 2 : 0;
	return n;
}

/* Each field of a frame equals a read of its own (no memo), the clock standing still. */
static void check_same_as_single_reads(struct gw_nvml *nv, struct gw_gpu *gpus, unsigned int n,
				       const struct gw_frame *f)
{
	int differ = 0;
	for (unsigned int g = 0; g < n; g++) {
		struct gw_read_ctx c = {.nv = nv, .gpu = &gpus[g], .gpu_count = n};
		for (size_t i = 0; i < gw_fields_count(); i++) {
			const struct gw_field *fd = gw_field_at(i);
			/* a GW_FL_KIB_RATE row holds the sampler's rate of what a read gives; on-demand rows nobody
			 * asked for are not read */
			if (fd->read == gw_rd_timestamp || (fd->flags & (GW_FL_SLOW | GW_FL_KIB_RATE | GW_FL_ON_DEMAND)))
				continue;
			struct gw_value v;
			memset(&v, 0, sizeof(v));
			gw_field_read(fd, &c, &v);
			const struct gw_value *w = &f->gpus[g].v[i];
			bool same = v.state == w->state &&
				    (v.state != GW_V_OK ||
				     (v.kind == w->kind && v.i == w->i &&
				      (v.kind != GW_VK_FLOAT || v.d == w->d) && strcmp(v.s, w->s) == 0));
			if (!same && differ++ < 5)
				fprintf(stderr,
					"gpu %u %s: frame %lld/%g state %d, single read %lld/%g state %d\n",
					g, fd->name, (long long)w->i, w->d, w->state, (long long)v.i, v.d,
					v.state);
		}
	}
	CHECK_INT_EQ(differ, 0);
}

static void test_shared_calls(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 2xH200:training\nclock = manual\n", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	wrap(nv);
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	for (int tick = 1; tick <= 3; tick++) {
		zero_counts();
		CHECK_INT_EQ(gw_sampler_tick(s, 1000 * tick), 0);
		/* one call per GPU, however many fields it fills (total, used, free, reserved; ...) */
		CHECK_INT_EQ(real.n_mem, n);
		CHECK_INT_EQ(real.n_bar1, n);
		CHECK_INT_EQ(real.n_util, n);
		CHECK_INT_EQ(real.n_enc, n);
		CHECK_INT_EQ(real.n_ecc, n);
		CHECK_INT_EQ(real.n_fv, n);
		CHECK_INT_EQ(real.fv_values, n * fv_fields());
		const struct gw_frame *f = gw_sampler_acquire(s);
		check_same_as_single_reads(nv, gpus, n, f);
		gw_sampler_release(s, f);
	}
	CHECK(fv_fields() >= 4);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* A call failing for the whole round fails every field it feeds, and counts once, as it was made once. */
static void test_shared_call_failing(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 1xH200:training\nclock = manual\n"
				      "fault = 0 fail nvmlDeviceGetFieldValues UNKNOWN\n"
				      "fault = 0 fail nvmlDeviceGetBAR1MemoryInfo UNKNOWN\n",
				      &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK_INT_EQ(gw_sampler_tick(s, 1000), 0);
	CHECK_INT_EQ(gw_sampler_tick(s, 2000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	CHECK_INT_EQ(f->gpus[0].nvml_errors[GW_NVML_FN_nvmlDeviceGetFieldValues], 2);
	CHECK_INT_EQ(f->gpus[0].nvml_errors[GW_NVML_FN_nvmlDeviceGetBAR1MemoryInfo],
		     2); /* total, used, free: one call a tick */
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *fd = gw_field_at(i);
		if (fd->read == gw_rd_field_value || fd->read == gw_rd_bar1)
			CHECK_INT_EQ(f->gpus[0].v[i].state, GW_V_UNKNOWN_ERROR);
	}
	gw_sampler_release(s, f);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long voluntary_switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

struct waiter {
	struct gw_nvml *nv;
	nvmlEventSet_t set;
	unsigned int timeout_ms;
	nvmlReturn_t r;
	nvmlEventData_t e;
	double took_s;
	long switches;
};

static void wait_once(struct waiter *w)
{
	long c0 = voluntary_switches();
	double t0 = mono();
	memset(&w->e, 0, sizeof(w->e));
	w->r = w->nv->nvmlEventSetWait_v2(w->set, &w->e, w->timeout_ms);
	w->took_s = mono() - t0;
	w->switches = voluntary_switches() - c0;
}

static void *wait_thread(void *arg)
{
	wait_once(arg);
	return NULL;
}

static nvmlEventSet_t watch_xid(struct gw_nvml *nv, struct gw_gpu *g)
{
	nvmlEventSet_t set = NULL;
	CHECK_INT_EQ(nv->nvmlEventSetCreate(&set), NVML_SUCCESS);
	CHECK_INT_EQ(nv->nvmlDeviceRegisterEvents(g->dev, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
	return set;
}

static void test_event_wait_blocks(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 1xH200\nfault = 1.2 xid 13\n", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct waiter w = {.nv = nv, .set = watch_xid(nv, &gpus[0]), .timeout_ms = 600};
	/* Nothing due within the wait: it sleeps through, not polling (a poll every 100 ms made 6 switches).
	 */
	wait_once(&w);
	CHECK_INT_EQ(w.r, NVML_ERROR_TIMEOUT);
	CHECK(w.took_s >= 0.59 && w.took_s < 1.0);
	CHECK(w.switches <= 2);
	/* The fault at t = 1.2 s wakes a waiter with time to spare, when it falls due. */
	w.timeout_ms = 5000;
	wait_once(&w);
	CHECK_INT_EQ(w.r, NVML_SUCCESS);
	CHECK_INT_EQ(w.e.eventData, 13);
	CHECK(w.took_s < 1.5);
	CHECK(w.switches <= 3);

	/* A fault injected from another thread wakes it at once. */
	int (*inject)(unsigned int, const char *, char *, unsigned int);
	*(void **)&inject = dlsym(nv->lib, "gwsim_inject");
	CHECK(inject != NULL);
	pthread_t th;
	w.timeout_ms = 5000;
	CHECK_INT_EQ(pthread_create(&th, NULL, wait_thread, &w), 0);
	struct timespec pause = {0, 200 * 1000000L};
	nanosleep(&pause, NULL);
	double t_inject = mono();
	if (inject)
		CHECK_INT_EQ(inject(0, "xid 31", NULL, 0), 0);
	pthread_join(th, NULL);
	CHECK_INT_EQ(w.r, NVML_SUCCESS);
	CHECK_INT_EQ(w.e.eventData, 31);
	CHECK(w.took_s < 1.0);
	CHECK(mono() - t_inject < 0.1);
	nv->nvmlEventSetFree(w.set);
	free(gpus);
	gw_nvml_close(nv);
}

/* A manual clock moved past a fault's time by another thread wakes the waiter. */
static void test_event_wait_manual_clock(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 1xH200\nclock = manual\nfault = 5 xid 43\n", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	int (*adv)(double);
	*(void **)&adv = dlsym(nv->lib, "gwsim_clock_advance");
	CHECK(adv != NULL);
	struct waiter w = {.nv = nv, .set = watch_xid(nv, &gpus[0]), .timeout_ms = 5000};
	pthread_t th;
	CHECK_INT_EQ(pthread_create(&th, NULL, wait_thread, &w), 0);
	struct timespec pause = {0, 150 * 1000000L};
	nanosleep(&pause, NULL);
	if (adv)
		adv(3.0); /* not yet due: the waiter looks and sleeps on */
	nanosleep(&pause, NULL);
	double t_due = mono();
	if (adv)
		adv(3.0);
	pthread_join(th, NULL);
	CHECK_INT_EQ(w.r, NVML_SUCCESS);
	CHECK_INT_EQ(w.e.eventData, 43);
	CHECK(mono() - t_due < 0.1);
	nv->nvmlEventSetFree(w.set);
	free(gpus);
	gw_nvml_close(nv);
}

/* NVLink counters the test sets: KiB received and sent over every link. */
static unsigned long long nvl_rx, nvl_tx;

static nvmlReturn_t c_fv_nvlink(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
	real.n_fv++;
	nvmlReturn_t r = real.fv(d, n, v);
	for (int i = 0; r == NVML_SUCCESS && i < n; i++) {
		bool rx = v[i].fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
		if ((rx || v[i].fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX) && v[i].scopeId == UINT_MAX) {
			v[i].nvmlReturn = NVML_SUCCESS;
			v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
			v[i].value.ullVal = rx ? nvl_rx : nvl_tx;
		}
	}
	return r;
}

static int64_t frame_value(struct gw_sampler *s, const char *field)
{
	size_t i = 0;
	while (i < gw_fields_count() && strcmp(gw_field_at(i)->name, field) != 0)
		i++;
	CHECK(i < gw_fields_count());
	if (i == gw_fields_count())
		return -2;
	const struct gw_frame *f = gw_sampler_acquire(s);
	const struct gw_value *v = &f->gpus[0].v[i];
	int64_t x = v->state == GW_V_OK ? v->i : -1;
	gw_sampler_release(s, f);
	return x;
}

/*
 * DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL as DCGM computes it from the
 * received and sent KiB counters: 0 on the first read, then the change
 * per second divided by 1000, cut to an integer; 0 again when the counter
 * goes back (a driver reload) or reads 0.
 */
static void test_nvlink_bandwidth_rate(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 1xH200:training\nclock = manual\n", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	real.fv = nv->nvmlDeviceGetFieldValues;
	nv->nvmlDeviceGetFieldValues = c_fv_nvlink;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	nvl_rx = 1000000, nvl_tx = 500000;
	CHECK_INT_EQ(gw_sampler_tick(s, 1000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.total"), 0);
	nvl_rx += 3000000, nvl_tx += 1000999; /* 4,000,999 KiB in 1 s */
	CHECK_INT_EQ(gw_sampler_tick(s, 2000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.total"), 4000);
	nvl_rx += 1500, nvl_tx += 1500; /* 3000 KiB in 2 s */
	CHECK_INT_EQ(gw_sampler_tick(s, 4000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.total"), 1);
	nvl_rx = 10, nvl_tx = 0; /* went back */
	CHECK_INT_EQ(gw_sampler_tick(s, 5000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.total"), 0);
	nvl_rx += 2000000;
	CHECK_INT_EQ(gw_sampler_tick(s, 6000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.total"), 2000);
	/* a per-link row is read only once asked for, in the same round's one call */
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.l3"), -1);
	bool *want = calloc(gw_fields_count(), sizeof(*want));
	for (size_t i = 0; i < gw_fields_count(); i++)
		want[i] = strcmp(gw_field_at(i)->name, "nvlink.bandwidth.l3") == 0 ||
			  strcmp(gw_field_at(i)->name, "nvlink.bandwidth.l17") == 0;
	gw_sampler_want(s, want);
	zero_counts();
	CHECK_INT_EQ(gw_sampler_tick(s, 7000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.l3"), 0); /* its first read */
	CHECK_INT_EQ(real.n_fv, 1);
	int (*adv)(double);
	*(void **)&adv = dlsym(nv->lib, "gwsim_clock_advance");
	CHECK(adv != NULL);
	if (adv)
		adv(1.0); /* a second of the training workload's traffic */
	CHECK_INT_EQ(gw_sampler_tick(s, 8000), 0);
	CHECK(frame_value(s, "nvlink.bandwidth.l3") > 0); /* the training workload moves data over every link */
	CHECK(frame_value(s, "nvlink.bandwidth.l17") > 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.l2"), -1);
	gw_sampler_want(s, NULL);
	CHECK_INT_EQ(gw_sampler_tick(s, 9000), 0);
	CHECK_INT_EQ(frame_value(s, "nvlink.bandwidth.l3"), -1);
	free(want);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

int main(void)
{
	RUN(test_nvlink_bandwidth_rate);
	RUN(test_shared_calls);
	RUN(test_shared_call_failing);
	RUN(test_event_wait_blocks);
	RUN(test_event_wait_manual_clock);
	return harness_done();
}
