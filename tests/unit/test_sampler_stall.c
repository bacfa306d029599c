/* A GPU whose NVML call hangs is stalled in the frames; the other GPUs stay fresh, and it rejoins once the
 * call returns. */
#include "collect/sampler.h"
#include "fields/fields_table.h"
#include "harness.h"
#include "sim_text.h"

#include <dlfcn.h>
#include <time.h>

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
	CHECK(!"field in the table");
	return 0;
}

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/*
 * GPU 1's power read sleeps 400 ms (real) in the virtual second [1, 2);
 * each tick waits 100 ms for the reads.
 */
static void test_one_gpu_stalls(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 3xH200:training\nclock = manual\n"
						"[gpu 1]\nfault = 1 timeout nvmlDeviceGetPowerUsage 400 1\n",
						&gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .read_timeout_ms = 100, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	size_t power = field_idx("power.draw"), uuid = field_idx("uuid");
	char text[256];

	/* Before the fault: everyone fresh. */
	CHECK_INT_EQ(gw_sampler_tick(s, 1000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	CHECK_INT_EQ(f->stalled_gpus, 0);
	for (unsigned int g = 0; g < n; g++) {
		CHECK(!f->gpus[g].stalled);
		CHECK_INT_EQ(f->gpus[g].v[power].state, GW_V_OK);
	}
	CHECK_INT_EQ(gw_sampler_stalled_text(f, text, sizeof(text)), 0);
	gw_sampler_release(s, f);

	/* GPU 1 hangs: its values are not available, its identity stays, the others are read. */
	advance(nv, 1.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 2000), 0);
	f = gw_sampler_acquire(s);
	CHECK_INT_EQ(f->seq, 2);
	CHECK_INT_EQ(f->stalled_gpus, 1);
	CHECK(f->gpus[1].stalled);
	CHECK(f->gpus[1].stalled_seconds >= 0.09);
	CHECK_INT_EQ(f->gpus[1].v[power].state, GW_V_NA);
	CHECK_INT_EQ(f->gpus[1].v[uuid].state, GW_V_OK);
	CHECK_STR_EQ(f->gpus[1].v[uuid].s, gpus[1].uuid);
	CHECK_INT_EQ(f->gpus[1].read_timeouts, 1);
	for (unsigned int g = 0; g < n; g += 2) {
		CHECK(!f->gpus[g].stalled);
		CHECK_INT_EQ(f->gpus[g].v[power].state, GW_V_OK);
		CHECK_INT_EQ(f->gpus[g].read_timeouts, 0);
	}
	gw_sampler_stalled_text(f, text, sizeof(text));
	CHECK(strncmp(text, "gpu 1 (read stuck 0.", 20) == 0);
	gw_sampler_release(s, f);

	/* Still in that read at the next tick: stalled again, the same read counted once. */
	CHECK_INT_EQ(gw_sampler_tick(s, 3000), 0);
	f = gw_sampler_acquire(s);
	CHECK(f->gpus[1].stalled);
	CHECK_INT_EQ(f->gpus[1].read_timeouts, 1);
	CHECK_INT_EQ(f->gpus[0].v[power].state, GW_V_OK);
	/* The read ends after the frame was published: the frame does not change under its reader. */
	pause_ms(500);
	CHECK_INT_EQ(f->gpus[1].v[power].state, GW_V_NA);
	gw_sampler_release(s, f);

	/* The fault is over and the call returned: GPU 1 rejoins. */
	advance(nv, 1.0);
	CHECK_INT_EQ(gw_sampler_tick(s, 4000), 0);
	f = gw_sampler_acquire(s);
	CHECK_INT_EQ(f->stalled_gpus, 0);
	CHECK(!f->gpus[1].stalled);
	CHECK_INT_EQ(f->gpus[1].v[power].state, GW_V_OK);
	CHECK_INT_EQ(f->gpus[1].read_timeouts, 1);
	CHECK_INT_EQ(gw_sampler_stalled_text(f, text, sizeof(text)), 0);
	/* The timed-out call was counted as a failed NVML call on GPU 1. */
	CHECK(f->gpus[1].nvml_errors[GW_NVML_FN_nvmlDeviceGetPowerUsage] >= 1);
	CHECK_INT_EQ(f->gpus[0].nvml_errors[GW_NVML_FN_nvmlDeviceGetPowerUsage], 0);
	gw_sampler_release(s, f);

	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* The text for /health is cut to the buffer, never past it. */
static void test_stalled_text_truncates(void)
{
	struct gw_gpu gpus[2] = {{.index = 3}, {.index = 5}};
	struct gw_frame_gpu fg[2] = {{.gpu = &gpus[0], .stalled = true, .stalled_seconds = 2.25},
				     {.gpu = &gpus[1], .stalled = true, .stalled_seconds = 12}};
	struct gw_frame f = {.ngpus = 2, .gpus = fg, .stalled_gpus = 2};
	char buf[64];
	CHECK_INT_EQ(gw_sampler_stalled_text(&f, buf, sizeof(buf)), strlen(buf));
	CHECK_STR_EQ(buf, "gpu 3 (read stuck 2.2 s), gpu 5 (read stuck 12.0 s)");
	char small[10];
	size_t len = gw_sampler_stalled_text(&f, small, sizeof(small));
	CHECK_INT_EQ(len, 9);
	CHECK_STR_EQ(small, "gpu 3 (re");
}

int main(void)
{
	RUN(test_one_gpu_stalls);
	RUN(test_stalled_text_truncates);
	return harness_done();
}
