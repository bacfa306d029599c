/* The agent's MIG series: dcgm-exporter's GPU_I_PROFILE and GPU_I_ID labels, once per GPU instance. */
#include "collect/sampler.h"
#include "export/gpu_metrics.h"
#include "harness.h"

#include <stdlib.h>

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

/* The exposition of one sampler tick on spec; caller frees. */
static char *render(const char *spec, char *uuid, size_t ulen)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim(spec, &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return NULL;
	snprintf(uuid, ulen, "%s", gpus[0].uuid);
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK_INT_EQ(gw_sampler_tick(s, 1700000000000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	struct gw_counters c;
	gw_counters_default(&c);
	struct gw_metrics m;
	CHECK_INT_EQ(gw_metrics_prepare(&m, &c, nv), 0);
	snprintf(m.hostname, sizeof(m.hostname), "node1");
	struct gw_buf b;
	gw_buf_init(&b, 1 << 22);
	CHECK_INT_EQ(gw_metrics_render(&m, f, GW_EXPFMT_TEXT, &b), 0);
	char *text = strdup(b.data ? b.data : "");
	gw_buf_release(&b);
	gw_metrics_release(&m);
	gw_counters_release(&c);
	gw_sampler_release(s, f);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
	return text;
}

static size_t count(const char *hay, const char *needle)
{
	size_t k = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		k++;
	return k;
}

static void test_mig_series(void)
{
	char uuid[96];
	char *t = render("1xH200:mig=1c.3g.71gb+2c.3g.71gb+2g.35gb+2x1g.18gb", uuid, sizeof(uuid));
	if (!t)
		return;
	char want[512];
	/* GI 2 holds two compute instances: one series, its GPU-instance profile's name */
	snprintf(
	    want, sizeof(want),
	    "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"%s\",pci_bus_id=\"00000000:01:00.0\",device=\"nvidia0\","
	    "modelName=\"NVIDIA H200\",GPU_I_PROFILE=\"3g.71gb\",GPU_I_ID=\"2\",Hostname=\"node1\","
	    "DCGM_FI_DRIVER_VERSION=\"590.48.01\"} 22\n",
	    uuid);
	CHECK(strstr(t, want) != NULL);
	CHECK_INT_EQ(count(t, "DCGM_FI_DEV_FB_USED{"), 1 + 4);
	CHECK_INT_EQ(count(t, "DCGM_FI_DEV_FB_FREE{"), 1 + 4);
	CHECK(strstr(t, "GPU_I_PROFILE=\"1c.") == NULL);
	/* free is the instance's own (16384 MiB, 9 used, the driver's extra MiB) */
	CHECK(strstr(t, "GPU_I_PROFILE=\"1g.18gb\",GPU_I_ID=\"10\",Hostname=\"node1\","
			"DCGM_FI_DRIVER_VERSION=\"590.48.01\"} 16376\n") != NULL);
	/* the GPU's own series stays, without the instance labels */
	snprintf(want, sizeof(want),
		 "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"%s\",pci_bus_id=\"00000000:01:00.0\","
		 "device=\"nvidia0\",modelName=\"NVIDIA H200\",Hostname=",
		 uuid);
	CHECK(strstr(t, want) != NULL);
	/* other fields have no per-instance series */
	CHECK(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-") != NULL);
	CHECK_INT_EQ(count(t, "GPU_I_ID="), 2 * 4);
	free(t);

	t = render("1xH200", uuid, sizeof(uuid));
	if (t)
		CHECK(strstr(t, "GPU_I_") == NULL);
	free(t);
}

int main(void)
{
	RUN(test_mig_series);
	return harness_done();
}
