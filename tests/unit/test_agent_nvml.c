/* The sampler's driver-side work: the sample buffers drained per tick, and NVML failures counted and logged. */
#include "nvml/dsamples.h"
#include "collect/sampler.h"
#include "export/gpu_metrics.h"
#include "fields/fields_table.h"
#include "harness.h"
#include "sim_text.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct gw_nvml *open_sim(const char *spec, struct gw_gpu **gpus, unsigned int *n)
{
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	struct gw_nvml_opts o = {.sim = spec};
	if (gw_nvml_open(&nv, &o, &err) != 0 || gw_nvml_gpus_list(nv, gpus, n, &err) != 0) {
		fprintf(stderr, "open %s: %s\n", spec, err.msg);
		return NULL;
	}
	return nv;
}

static void advance(struct gw_nvml *nv, double seconds)
{
	int (*adv)(double);
	*(void **)&adv = dlsym(nv->lib, "gwsim_clock_advance");
	CHECK(adv != NULL);
	if (adv)
		adv(seconds);
}

static size_t field_idx(const char *name)
{
	const struct gw_field *f = gw_field_find_any(name);
	for (size_t i = 0; f && i < gw_fields_count(); i++)
		if (gw_field_at(i) == f)
			return i;
	fprintf(stderr, "no field %s\n", name);
	CHECK(0);
	return 0;
}

/* A field's value in a frame in its canonical unit; NAN when not valid. */
static double value(const struct gw_frame *f, unsigned int g, const char *name)
{
	const struct gw_value *v = &f->gpus[g].v[field_idx(name)];
	if (v->state != GW_V_OK)
		return NAN;
	return v->kind == GW_VK_FLOAT ? v->d : (double)v->i;
}

/* The exposition line of a family for one GPU: "NAME{gpu="G",..." up to the newline, or NULL. */
static const char *series_line(const char *text, const char *name, unsigned int gpu, char *out, size_t n)
{
	char key[160];
	snprintf(key, sizeof(key), "\n%s{gpu=\"%u\"", name, gpu);
	const char *p = strstr(text, key);
	if (!p)
		return NULL;
	p++;
	const char *e = strchr(p, '\n');
	snprintf(out, n, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return out;
}

static double series_value(const char *text, const char *name, unsigned int gpu)
{
	char line[1024];
	if (!series_line(text, name, gpu, line, sizeof(line)))
		return NAN;
	return strtod(strrchr(line, ' ') + 1, NULL);
}

/*
 * A 200 ms spike the simulator puts between two 1 s polls: the polled
 * value never sees it, the driver's samples of that tick do, and only that
 * tick's window has it.
 */
static void test_dsamples_spike(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 2xH200:training\nclock = manual\n"
				      "[gpu *]\nutil_gpu = 30\nutil_mem = 10\npower_mw = 400000\n"
				      "[gpu 1]\nfault = 2.4 spike util_gpu 97 200ms\n"
				      "fault = 2.4 spike power_mw 690000 0.2\n",
				      &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK(gpus[0].dsamples != NULL && gpus[1].dsamples != NULL);
	struct gw_counters c;
	gw_counters_default(&c);
	struct gw_metrics m;
	gw_metrics_prepare(&m, &c, nv);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 22);
	const double want_max[4] = {30, 30, 97, 30}; /* the spike lies in (2 s, 3 s]: the third tick */
	for (int i = 0; i < 4; i++) {
		advance(nv, 1.0);
		CHECK_INT_EQ(gw_sampler_tick(s, 1000 * (i + 1)), 0);
		const struct gw_frame *f = gw_sampler_acquire(s);
		CHECK_DBL_NEAR(value(f, 1, "utilization.gpu"), 30, 0); /* the poll misses it */
		CHECK_DBL_NEAR(value(f, 1, "power.draw"), 400000, 0);
		CHECK_DBL_NEAR(value(f, 1, "samples.utilization.gpu.max"), want_max[i], 0);
		CHECK_DBL_NEAR(value(f, 1, "samples.utilization.gpu.min"), 30, 0);
		CHECK_DBL_NEAR(value(f, 1, "samples.power.max"), i == 2 ? 690000 : 400000, 0);
		CHECK_DBL_NEAR(value(f, 1, "samples.power.min"), 400000, 0);
		CHECK_DBL_NEAR(value(f, 0, "samples.utilization.gpu.max"), 30, 0); /* GPU 0 had none */
		CHECK_DBL_NEAR(value(f, 1, "samples.utilization.memory.max"), 10, 0);
		/* six driver samples a second, each read once: 6 per tick (the first looks one interval back) */
		CHECK_DBL_NEAR(value(f, 1, "samples.utilization.gpu.count"), 6 * (i + 1), 0);
		CHECK_DBL_NEAR(value(f, 1, "samples.power.count"), 6 * (i + 1), 0);
		if (i == 2) {
			/* one sample (t = 2.5 s) of the six in the window was in the spike;
			 * the mean kept to a tenth of a percent (41.1666... -> 41.2) */
			CHECK_DBL_NEAR(value(f, 1, "samples.utilization.gpu.mean"), 41.2, 0);
			gw_buf_reset(&b);
			CHECK_INT_EQ(gw_metrics_render(&m, f, GW_EXPFMT_TEXT, &b), 0);
			CHECK_DBL_NEAR(series_value(b.data, "gpuwatch_utilization_gpu_max_ratio", 1), 0.97, 0);
			CHECK_DBL_NEAR(series_value(b.data, "gpuwatch_utilization_gpu_ratio", 1), 0.30, 0);
			CHECK_DBL_NEAR(series_value(b.data, "gpuwatch_utilization_gpu_max_ratio", 0), 0.30, 0);
			CHECK_DBL_NEAR(series_value(b.data, "gpuwatch_power_draw_max_watts", 1), 690, 0);
			CHECK_DBL_NEAR(series_value(b.data, "gpuwatch_power_draw_watts", 1), 400, 0);
			CHECK_DBL_NEAR(series_value(b.data, "gpuwatch_utilization_gpu_driver_samples_total", 1), 18, 0);
			CHECK(strstr(b.data, "# TYPE gpuwatch_utilization_gpu_driver_samples_total counter\n") != NULL);
			CHECK(strstr(b.data, "# TYPE gpuwatch_power_draw_mean_watts gauge\n") != NULL);
		}
		gw_sampler_release(s, f);
	}
	gw_buf_release(&b);
	gw_metrics_release(&m);
	gw_counters_release(&c);
	gw_sampler_free(s);
	CHECK(gpus[0].dsamples == NULL); /* freed with the sampler */
	free(gpus);
	gw_nvml_close(nv);
}

/*
 * Ticks at irregular gaps, some shorter than the driver's 1/6 s: each
 * tick's window holds exactly the driver samples after the previous one's,
 * so max, min, mean and count match the driver's ring read independently,
 * and the windows tile the time with no sample counted twice or lost.
 */
static void test_dsamples_each_once(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim("1xH100:training,clock=manual,seed=5", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 500, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK(gpus[0].dsamples != NULL);
	if (!gpus[0].dsamples) {
		gw_sampler_free(s);
		free(gpus);
		gw_nvml_close(nv);
		return;
	}
	const struct gw_dsample_window *w = &gpus[0].dsamples->k[GW_DS_GPU_UTIL];
	advance(nv, 5.0);
	static const double gaps[] = {0, 0.05, 0.1, 0.35, 1.0, 2.5, 0.1, 0.1, 0.1, 0.7, 3.0, 0.02};
	enum { N = sizeof(gaps) / sizeof(gaps[0]) };
	struct {
		unsigned long long from, to;
		double max, min, mean, field_max;
		unsigned int n;
	} got[N];
	unsigned int empty = 0;
	for (int i = 0; i < N; i++) {
		advance(nv, gaps[i]);
		got[i].from = w->last_seen_us;
		CHECK_INT_EQ(gw_sampler_tick(s, 1000 + 100 * i), 0);
		got[i].to = w->last_seen_us;
		got[i].max = w->max;
		got[i].min = w->min;
		got[i].mean = w->mean;
		got[i].n = w->n;
		empty += w->n == 0;
		const struct gw_frame *f = gw_sampler_acquire(s);
		got[i].field_max = value(f, 0, "samples.utilization.gpu.max");
		CHECK_DBL_NEAR(value(f, 0, "samples.utilization.gpu.count"), (double)w->total, 0);
		gw_sampler_release(s, f);
	}
	CHECK(empty >= 2); /* the 0 and 0.05 s gaps bring no new driver sample */

	/* The driver's ring, read independently: 13 s so far, within the 20 s it keeps. */
	nvmlSample_t ring[200];
	unsigned int nr = 200;
	nvmlValueType_t vt;
	CHECK_INT_EQ(nv->nvmlDeviceGetSamples(gpus[0].dev, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &nr, ring),
		     NVML_SUCCESS);
	uint64_t sum_n = 0;
	for (int i = 0; i < N; i++) {
		/* the first window is one interval back from the newest sample */
		unsigned long long lo = i == 0 ? got[0].to - 500000 : got[i].from;
		if (i > 0)
			CHECK(got[i].from == got[i - 1].to); /* windows tile: nothing between them */
		double max = 0, min = 0, sum = 0;
		unsigned int cnt = 0;
		for (unsigned int k = 0; k < nr; k++) {
			if (ring[k].timeStamp <= lo || ring[k].timeStamp > got[i].to)
				continue;
			double x = ring[k].sampleValue.uiVal;
			max = cnt == 0 || x > max ? x : max;
			min = cnt == 0 || x < min ? x : min;
			sum += x;
			cnt++;
		}
		CHECK_INT_EQ(got[i].n, cnt);
		sum_n += got[i].n;
		if (cnt) {
			CHECK_DBL_NEAR(got[i].max, max, 0);
			CHECK_DBL_NEAR(got[i].min, min, 0);
			CHECK_DBL_NEAR(got[i].mean, sum / cnt, 1e-9);
		} else if (i > 0) {
			/* nothing new: the previous window's values stand */
			CHECK_DBL_NEAR(got[i].max, got[i - 1].max, 0);
		}
		CHECK_DBL_NEAR(got[i].field_max, got[i].max, 0);
	}
	CHECK_INT_EQ(sum_n, w->total);
	/* a 0.5 s first window and 8.02 s of gaps: 6 driver samples a second */
	CHECK(w->total >= 50 && w->total <= 52);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* No new driver sample for 2 s: the window is dropped, not shown stale; when
 * samples come again, none is lost or read twice. */
static void test_dsamples_stale_and_resume(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim("1xH200:training,clock=manual", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 500, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	advance(nv, 5.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 1000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	double total0 = value(f, 0, "samples.power.count");
	CHECK_DBL_NEAR(total0, 3, 0); /* the first window: 0.5 s */
	gw_sampler_release(s, f);
	for (int i = 1; i <= 4; i++) { /* the driver's clock stands still */
		CHECK_INT_EQ(gw_sampler_tick(s, 1000 + 500 * i), 0);
		f = gw_sampler_acquire(s);
		/* carried for 1.5 s, dropped at 2 s; the counter stays */
		CHECK(isnan(value(f, 0, "samples.power.max")) == (i == 4));
		CHECK_DBL_NEAR(value(f, 0, "samples.power.count"), total0, 0);
		gw_sampler_release(s, f);
	}
	advance(nv, 1.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 4000), 0);
	f = gw_sampler_acquire(s);
	CHECK(value(f, 0, "samples.power.max") > 0);
	/* the six samples of the last second, not just the last interval's three */
	CHECK_DBL_NEAR(value(f, 0, "samples.power.count"), total0 + 6, 0);
	gw_sampler_release(s, f);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* An old driver without nvmlDeviceGetSamples, or a GPU that does not sample: no
 * metrics, and no failures counted or logged. */
static void test_dsamples_missing_or_unsupported(void)
{
	for (int pass = 0; pass < 2; pass++) {
		struct gw_gpu *gpus;
		unsigned int n;
		struct gw_nvml *nv =
		    sim_open_text_gpus(pass == 0 ? "[sim]\nfleet = 2xL40S:inference\nmissing = nvmlDeviceGetSamples\n"
				       : "[sim]\nfleet = 2xL40S:inference\n[gpu 0]\nunsupported = nvmlDeviceGetSamples\n",
			     &gpus, &n);
		CHECK(nv != NULL);
		if (!nv)
			return;
		struct gw_sampler *s;
		struct gw_err err;
		struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
		CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
		CHECK(gpus[0].dsamples == NULL);
		CHECK(pass == 0 ? gpus[1].dsamples == NULL : gpus[1].dsamples != NULL);
		gw_sampler_tick(s, 1000);
		struct timespec pause = {0, 250 * 1000000L}; /* > a driver sample period */
		nanosleep(&pause, NULL);
		gw_sampler_tick(s, 2000);
		const struct gw_frame *f = gw_sampler_acquire(s);
		CHECK(isnan(value(f, 0, "samples.utilization.gpu.max")));
		CHECK(isnan(value(f, 0, "samples.power.count")));
		CHECK(pass == 0 ? isnan(value(f, 1, "samples.power.max")) : value(f, 1, "samples.power.max") > 0);
		CHECK_INT_EQ(f->nvml_errors_total, 0);
		struct gw_counters c;
		gw_counters_default(&c);
		struct gw_metrics m;
		gw_metrics_prepare(&m, &c, nv);
		struct gw_buf b;
		gw_buf_init(&b, 1 << 22);
		gw_metrics_render(&m, f, GW_EXPFMT_TEXT, &b);
		char line[1024];
		CHECK(series_line(b.data, "gpuwatch_power_draw_max_watts", 0, line, sizeof(line)) == NULL);
		CHECK((series_line(b.data, "gpuwatch_power_draw_max_watts", 1, line, sizeof(line)) != NULL) == pass);
		CHECK(strstr(b.data, "gpuwatch_nvml_errors_total") == NULL);
		gw_buf_release(&b);
		gw_metrics_release(&m);
		gw_counters_release(&c);
		gw_sampler_release(s, f);
		gw_sampler_free(s);
		free(gpus);
		gw_nvml_close(nv);
	}
}

struct log_rec {
	int n;
	struct gw_nvml_log_line v[16];
};

static void log_line(void *arg, const struct gw_nvml_log_line *l)
{
	struct log_rec *r = arg;
	if (r->n < 16)
		r->v[r->n] = *l;
	r->n++;
}

/* The calls of one NVML function on one GPU per tick, counted the hard way. */
static uint64_t errs(const struct gw_frame *f, int gpu, enum gw_nvml_fn fn)
{
	return gpu < 0 ? f->nvml_errors[fn] : f->gpus[gpu].nvml_errors[fn];
}

/*
 * Injected failures are counted per function and GPU, "not supported" and
 * "no permission" are not, the sampling goes on, the counters are exported,
 * and the log hears of each failing function once, then once a minute.
 */
static void test_nvml_errors(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 2xH200:training\nclock = manual\n"
				      "[gpu 1]\nfault = 0 fail nvmlDeviceGetPowerUsage UNKNOWN\n"
				      "fault = 0 fail nvmlDeviceGetClockInfo NO_PERMISSION\n"
				      "unsupported = nvmlDeviceGetFanSpeed\n"
				      "[gpu 0]\nfault = 0 timeout nvmlDeviceGetTemperature 5 1.5\n",
				      &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct log_rec log = {0};
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true, .nvml_log = log_line, .nvml_log_arg = &log};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	const enum gw_nvml_fn power = GW_NVML_FN_nvmlDeviceGetPowerUsage, temp = GW_NVML_FN_nvmlDeviceGetTemperature;

	advance(nv, 1.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 1000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	uint64_t p1 = errs(f, 1, power), t1 = errs(f, 0, temp);
	CHECK(p1 >= 1 && t1 >= 1);
	CHECK_INT_EQ(errs(f, 0, power), 0);
	CHECK_INT_EQ(errs(f, 1, temp), 0);
	CHECK_INT_EQ(errs(f, 1, GW_NVML_FN_nvmlDeviceGetClockInfo), 0); /* NO_PERMISSION: how we run, not a failure */
	CHECK_INT_EQ(errs(f, 1, GW_NVML_FN_nvmlDeviceGetFanSpeed), 0);	/* NOT_SUPPORTED */
	CHECK_INT_EQ(errs(f, -1, power), 0);
	CHECK_INT_EQ(f->nvml_errors_total, p1 + t1);
	CHECK(f->read_errors_total >= 2); /* the values those calls left in an error state */
	CHECK(isnan(value(f, 1, "power.draw")));
	CHECK(!isnan(value(f, 0, "power.draw")));
	/* The first failure of each function is logged at once. */
	CHECK_INT_EQ(log.n, 2);
	for (int i = 0; i < log.n && i < 2; i++) {
		const struct gw_nvml_log_line *l = &log.v[i];
		CHECK(!l->summary);
		if (strcmp(l->function, "nvmlDeviceGetPowerUsage") == 0) {
			CHECK_INT_EQ(l->gpu, 1);
			CHECK_INT_EQ(l->ret, NVML_ERROR_UNKNOWN);
			CHECK_INT_EQ(l->errors, p1);
		} else {
			CHECK_STR_EQ(l->function, "nvmlDeviceGetTemperature");
			CHECK_INT_EQ(l->gpu, 0);
			CHECK_INT_EQ(l->ret, NVML_ERROR_TIMEOUT);
		}
	}
	struct gw_counters c;
	gw_counters_default(&c);
	struct gw_metrics m;
	gw_metrics_prepare(&m, &c, nv);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 22);
	gw_metrics_render(&m, f, GW_EXPFMT_TEXT, &b);
	char want[512];
	snprintf(want, sizeof(want),
		 "\ngpuwatch_nvml_errors_total{gpu=\"1\",uuid=\"%s\",pci_bus_id=\"%s\",model=\"NVIDIA H200\","
		 "function=\"nvmlDeviceGetPowerUsage\"} %llu\n",
		 gpus[1].uuid, gpus[1].bus_id, (unsigned long long)p1);
	CHECK(strstr(b.data, want) != NULL);
	CHECK(strstr(b.data, "# TYPE gpuwatch_nvml_errors_total counter\n") != NULL);
	CHECK(strstr(b.data, "function=\"nvmlDeviceGetClockInfo\"") == NULL);
	gw_sampler_release(s, f);

	/* Failing on: counted every tick, held back from the log for a minute; the
	 * timeout's window (1.5 virtual s) has ended, so its count stays. */
	for (int i = 2; i <= 4; i++) {
		advance(nv, 1.0);
		CHECK_INT_EQ(gw_sampler_tick(s, 1000 * i), 0);
	}
	f = gw_sampler_acquire(s);
	CHECK_INT_EQ(f->seq, 4);
	CHECK_INT_EQ(errs(f, 1, power), 4 * p1);
	CHECK_INT_EQ(errs(f, 0, temp), t1);
	CHECK_INT_EQ(log.n, 2);
	gw_sampler_release(s, f);
	/* A minute after the first line: one summary of what was held back. */
	advance(nv, 1.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 61000), 0);
	CHECK_INT_EQ(log.n, 3);
	if (log.n == 3) {
		CHECK_STR_EQ(log.v[2].function, "nvmlDeviceGetPowerUsage");
		CHECK(log.v[2].summary);
		CHECK_INT_EQ(log.v[2].errors, 4 * p1);
		CHECK_INT_EQ(log.v[2].total, 5 * p1);
		CHECK_INT_EQ(log.v[2].span_ms, 60000);
	}
	advance(nv, 1.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 62000), 0);
	CHECK_INT_EQ(log.n, 3);
	gw_buf_release(&b);
	gw_metrics_release(&m);
	gw_counters_release(&c);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* A failing nvmlEventSetWait (on no GPU, on the event thread) is counted in the frames' own row. */
static void test_nvml_errors_events(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 1xH200\nfault = 0 fail nvmlEventSetWait UNKNOWN\n", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct log_rec log = {0};
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 100, .nvml_log = log_line, .nvml_log_arg = &log};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK_INT_EQ(gw_sampler_start(s, &err), 0);
	uint64_t got = 0;
	for (int i = 0; i < 40 && got < 2; i++) {
		struct timespec pause = {0, 50 * 1000000L};
		nanosleep(&pause, NULL);
		const struct gw_frame *f = gw_sampler_acquire(s);
		got = f->nvml_errors[GW_NVML_FN_nvmlEventSetWait_v2];
		CHECK_INT_EQ(f->gpus[0].nvml_errors[GW_NVML_FN_nvmlEventSetWait_v2], 0);
		gw_sampler_release(s, f);
	}
	CHECK(got >= 2);
	gw_sampler_free(s); /* joins the threads: the log is ours again */
	CHECK(log.n >= 1);
	if (log.n >= 1) {
		CHECK_STR_EQ(log.v[0].function, "nvmlEventSetWait_v2");
		CHECK_INT_EQ(log.v[0].gpu, -1);
		CHECK_INT_EQ(log.v[0].ret, NVML_ERROR_UNKNOWN);
	}
	free(gpus);
	gw_nvml_close(nv);
}

/* The log's rate limit on its own: first at once, held, one summary per interval, quiet resets. */
static void test_nvml_log_limit(void)
{
	struct gw_nvml_tally t;
	CHECK_INT_EQ(gw_nvml_tally_init(&t, 2), 0);
	struct gw_gpu g1 = {.index = 1};
	struct gw_nvml_log l;
	gw_nvml_log_init(&l, 60000);
	struct log_rec r = {0};
	const enum gw_nvml_fn fn = GW_NVML_FN_nvmlDeviceGetPowerUsage;
	gw_nvml_log_check(&l, &t, 1000, log_line, &r);
	CHECK_INT_EQ(r.n, 0);
	gw_nvml_tally_add(&t, &g1, fn, NVML_ERROR_TIMEOUT, 1);
	gw_nvml_log_check(&l, &t, 1000, log_line, &r);
	CHECK_INT_EQ(r.n, 1);
	CHECK(!r.v[0].summary && r.v[0].errors == 1 && r.v[0].gpu == 1 && r.v[0].ret == NVML_ERROR_TIMEOUT);
	for (int64_t ms = 2000; ms < 61000; ms += 1000) { /* failing every second */
		gw_nvml_tally_add(&t, &g1, fn, NVML_ERROR_UNKNOWN, 1);
		gw_nvml_log_check(&l, &t, ms, log_line, &r);
	}
	CHECK_INT_EQ(r.n, 1);
	gw_nvml_log_check(&l, &t, 61000, log_line, &r); /* the interval ends: one summary */
	CHECK_INT_EQ(r.n, 2);
	CHECK(r.v[1].summary && r.v[1].errors == 59 && r.v[1].total == 60 && r.v[1].span_ms == 60000);
	CHECK_INT_EQ(r.v[1].ret, NVML_ERROR_UNKNOWN);
	gw_nvml_log_check(&l, &t, 200000, log_line, &r); /* quiet: nothing to say */
	CHECK_INT_EQ(r.n, 2);
	gw_nvml_tally_add(&t, NULL, fn, NVML_ERROR_TIMEOUT, 3); /* after a quiet spell: at once, not a summary */
	gw_nvml_log_check(&l, &t, 200500, log_line, &r);
	CHECK_INT_EQ(r.n, 3);
	CHECK(!r.v[2].summary && r.v[2].errors == 3 && r.v[2].gpu == -1);
	gw_nvml_tally_add(&t, &g1, fn, NVML_ERROR_TIMEOUT, 1);
	gw_nvml_log_check(&l, &t, 100000, log_line, &r); /* the clock stepped back: due */
	CHECK_INT_EQ(r.n, 4);
	/* The tally's rows: GPU 1, and "no GPU" for the call on none (and for a GPU outside the rows). */
	CHECK_INT_EQ(t.rows[1][fn], 61);
	CHECK_INT_EQ(t.rows[2][fn], 3);
	struct gw_gpu g9 = {.index = 9};
	gw_nvml_tally_add(&t, &g9, fn, NVML_ERROR_TIMEOUT, 1);
	CHECK_INT_EQ(t.rows[2][fn], 4);
	CHECK_INT_EQ(t.by_fn[fn], 65);
	CHECK_INT_EQ(t.total, 65);
	/* Only failures count. */
	CHECK_INT_EQ(gw_nvml_tally_note(&t, &g1, fn, NVML_ERROR_NOT_SUPPORTED), NVML_ERROR_NOT_SUPPORTED);
	CHECK_INT_EQ(gw_nvml_tally_note(&t, &g1, fn, NVML_SUCCESS), NVML_SUCCESS);
	CHECK_INT_EQ(gw_nvml_tally_note(NULL, &g1, fn, NVML_ERROR_UNKNOWN), NVML_ERROR_UNKNOWN);
	CHECK_INT_EQ(t.total, 65);
	CHECK_INT_EQ(gw_nvml_tally_note(&t, &g1, fn, NVML_ERROR_GPU_IS_LOST), NVML_ERROR_GPU_IS_LOST);
	CHECK_INT_EQ(t.total, 66);
	gw_nvml_tally_release(&t);
}

int main(void)
{
	RUN(test_dsamples_spike);
	RUN(test_dsamples_each_once);
	RUN(test_dsamples_stale_and_resume);
	RUN(test_dsamples_missing_or_unsupported);
	RUN(test_nvml_errors);
	RUN(test_nvml_errors_events);
	RUN(test_nvml_log_limit);
	return harness_done();
}
