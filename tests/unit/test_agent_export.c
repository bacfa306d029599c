/* The agent's exposition: counters CSV, DCGM label order, native families, sampler frames.
 * Driver sample buffers and NVML failure counting: test_agent_nvml.c. */
#include "nvml/dsamples.h"
#include "collect/sampler.h"
#include "export/expo_cache.h"
#include "export/gpu_metrics.h"
#include "fields/fields_table.h"
#include "harness.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static void test_counters_parse(void)
{
	struct gw_counters c;
	struct gw_err err;
	gw_err_clear(&err);
	const char *ok = "# comment\n\n  DCGM_FI_DEV_GPU_TEMP ,  gauge , GPU temperature (in C).\n"
			 "DCGM_FI_DEV_POWER_USAGE, gauge, Power, in W, with commas\n"
			 "DCGM_FI_DRIVER_VERSION, label, Driver Version\r\n";
	CHECK_INT_EQ(gw_counters_parse(&c, ok, "t.csv", &err), 0);
	CHECK_INT_EQ(c.n, 3);
	if (c.n == 3) {
		CHECK_STR_EQ(c.v[0].name, "DCGM_FI_DEV_GPU_TEMP");
		CHECK_STR_EQ(c.v[0].help, "GPU temperature (in C).");
		CHECK_STR_EQ(c.v[1].help, "Power, in W, with commas");
		CHECK(c.v[2].label);
	}
	gw_counters_release(&c);
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_GPU_TEMP, gauge, x\nDCGM_FI_DEV_SM_CLOCK, gaugez, y\n", "t.csv", &err),
		     GW_EPARSE);
	CHECK_STR_EQ(err.msg, "t.csv:2: unknown metric type \"gaugez\" (gauge, counter, histogram, summary, label)");
	CHECK_INT_EQ(gw_counters_parse(&c, "\n\nGPU_TEMP, gauge, x\n", "t.csv", &err), GW_EPARSE);
	CHECK(strstr(err.msg, "t.csv:3:") != NULL);
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_GPU_TEMP gauge x\n", "t.csv", &err), GW_EPARSE);
	CHECK(strstr(err.msg, "t.csv:1: expected") != NULL);
	CHECK_INT_EQ(gw_counters_parse(&c, "# only comments\n", "t.csv", &err), GW_EPARSE);
	CHECK_INT_EQ(gw_counters_load(&c, "/nonexistent/counters.csv", &err), GW_EIO);
	CHECK(strstr(err.msg, "/nonexistent/counters.csv") != NULL);
	CHECK_INT_EQ(gw_counters_default(&c), 0);
	CHECK(c.n > 15);
	gw_counters_release(&c);
}

/* Rows /metrics cannot show are skipped with a warning naming the line; binary files are refused. */
static void test_counters_checks(void)
{
	struct gw_counters c;
	struct gw_err err;
	gw_err_clear(&err);
	CHECK_INT_EQ(gw_counters_default(&c), 0);
	CHECK_INT_EQ(c.nwarnings, 0); /* the built-in set is all exportable */
	gw_counters_release(&c);

	/* real DCGM fields gpuwatch does not read: left out with a note; a repeat: a warning */
	const char *csv = "DCGM_FI_DEV_GPU_TEMP, gauge, T\n"
			  "DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS, counter, x\n"
			  "# a comment\n"
			  "DCGM_FI_DEV_GPU_TEMP, gauge, T again\n"
			  "DCGM_FI_DEV_CPU_VENDOR, label, Vendor\n"
			  "dcgm_fi_dev_nvlink_tx_bandwidth_l0, counter, y\n";
	CHECK_INT_EQ(gw_counters_parse(&c, csv, "t.csv", &err), 0);
	CHECK_INT_EQ(c.n, 1);
	if (c.n == 1)
		CHECK_STR_EQ(c.v[0].help, "T"); /* the first of the two kept */
	CHECK_INT_EQ(c.nwarnings, 1);
	if (c.nwarnings == 1)
		CHECK_STR_EQ(c.warnings[0], "t.csv:4: DCGM_FI_DEV_GPU_TEMP repeats line 1; line 4 skipped");
	CHECK_INT_EQ(c.nnotes, 3);
	if (c.nnotes == 3) {
		CHECK_STR_EQ(c.notes[0], "t.csv:2: DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS left out: gpuwatch does not read "
					 "this DCGM field");
		CHECK_STR_EQ(c.notes[1], "t.csv:5: DCGM_FI_DEV_CPU_VENDOR left out: gpuwatch does not read this DCGM "
					 "field as a label");
		CHECK_STR_EQ(c.notes[2], "t.csv:6: dcgm_fi_dev_nvlink_tx_bandwidth_l0 left out: gpuwatch does not read "
					 "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L0");
	}
	gw_counters_release(&c);
	CHECK_INT_EQ(c.nwarnings, 0);

	/* a name no DCGM header or dcgm-exporter defines (a typo) stops the file, escaped */
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_GPU_TEMP, gauge, T\n\nDCGM_FI_DEV_GPU_TEMPP, gauge, T\n", "t.csv",
				       &err),
		     GW_EPARSE);
	CHECK_STR_EQ(err.msg, "t.csv:3: unknown DCGM field \"DCGM_FI_DEV_GPU_TEMPP\": not a name DCGM or dcgm-exporter "
			      "defines (a typo?)");
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_BAD\x01\x1b[2J\"\\, counter, x\n", "t.csv", &err), GW_EPARSE);
	CHECK_STR_EQ(err.msg, "t.csv:1: unknown DCGM field \"DCGM_FI_DEV_BAD\\x01\\x1b[2J\\\"\\\\\": not a name DCGM "
			      "or dcgm-exporter defines (a typo?)");
	CHECK_INT_EQ(gw_counters_parse(&c, "dcgm_gpu_tempp, gauge, T\n", "t.csv", &err), GW_EPARSE);
	CHECK(strstr(err.msg, "t.csv:1: unknown DCGM field \"dcgm_gpu_tempp\"") != NULL);
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L18, gauge, T\n", "t.csv", &err), GW_EPARSE);
	/* an empty file, or one of comments only: the file and its last line */
	CHECK_INT_EQ(gw_counters_parse(&c, "", "e.csv", &err), GW_EPARSE);
	CHECK_STR_EQ(err.msg, "e.csv:1: no counters: the file lists no DCGM field (expected lines of \"FIELD, type, "
			      "help\")");

	/* errors quoting the file escape it too */
	CHECK_INT_EQ(gw_counters_parse(&c, "\x7f""ELF\x02\x01, gauge, x\n", "t.csv", &err), GW_EPARSE);
	CHECK_STR_EQ(err.msg, "t.csv:1: \"\\x7fELF\\x02\\x01\" is not a DCGM field name (DCGM_FI_...)");
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_GPU_TEMP, gau\xffge, x\n", "t.csv", &err), GW_EPARSE);
	CHECK(strstr(err.msg, "\"gau\\xffge\"") != NULL);
	/* only rows left out: nothing to export is an error */
	CHECK_INT_EQ(gw_counters_parse(&c, "DCGM_FI_DEV_NVSWITCH_PHYS_ID, gauge, x\n", "t.csv", &err), GW_EPARSE);
	CHECK_STR_EQ(err.msg, "t.csv: no counters gpuwatch can export");

	/* a binary file is refused by name; a text one with a stray control byte is not */
	char path[] = "/tmp/gw-counters-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char elf[] = "\x7f""ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0DCGM_FI_DEV_GPU_TEMP, gauge, x\n";
	CHECK(write(fd, elf, sizeof(elf) - 1) == (ssize_t)(sizeof(elf) - 1));
	close(fd);
	CHECK_INT_EQ(gw_counters_load(&c, path, &err), GW_EPARSE);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK(strstr(err.msg, "is not text (byte 0x7f at offset 0)") != NULL);
	CHECK(strchr(err.msg, '\x7f') == NULL && strchr(err.msg, '\x01') == NULL);
	FILE *fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs("# counters\x07\nDCGM_FI_DEV_GPU_TEMP, gauge, T\nDCGM_FI_DEV_GPU_TEMP, gauge, T\n", fp);
		fclose(fp);
	}
	CHECK_INT_EQ(gw_counters_load(&c, path, &err), 0);
	CHECK_INT_EQ(c.n, 1);
	CHECK_INT_EQ(c.nwarnings, 1);
	gw_counters_release(&c);
	unlink(path);
}

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

static void test_render(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim("2xH200:training", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK_INT_EQ(gw_sampler_tick(s, 1700000000000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	CHECK(f != NULL && f->ngpus == 2 && f->t_ms == 1700000000000);
	struct gw_counters c;
	gw_counters_default(&c);
	struct gw_metrics m;
	CHECK_INT_EQ(gw_metrics_prepare(&m, &c, nv), 0);
	snprintf(m.hostname, sizeof(m.hostname), "node1");
	struct gw_buf b;
	gw_buf_init(&b, 1 << 22);
	CHECK_INT_EQ(gw_metrics_render(&m, f, GW_EXPFMT_TEXT, &b), 0);
	char want[512];
	snprintf(want, sizeof(want),
		 "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"%s\",pci_bus_id=\"%s\",device=\"nvidia1\","
		 "modelName=\"NVIDIA H200\",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"590.48.01\"} ",
		 gpus[1].uuid, gpus[1].bus_id);
	CHECK(strstr(b.data, want) != NULL);
	CHECK(strstr(b.data, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n") != NULL);
	CHECK(strstr(b.data, "DCGM_FI_DEV_FB_TOTAL{gpu=\"0\"") != NULL);
	CHECK(strstr(b.data, "\nDCGM_FI_DEV_XID_ERRORS{gpu=\"0\"") != NULL);
	/* Power in W with six decimals, as dcgm-exporter prints doubles. */
	const char *p = strstr(b.data, "\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"");
	CHECK(p != NULL);
	if (p) {
		const char *val = strchr(strchr(p, '}'), ' ') + 1;
		const char *dot = strchr(val, '.');
		CHECK(dot && strspn(dot + 1, "0123456789") == 6);
	}
	CHECK(strstr(b.data, "# TYPE gpuwatch_energy_consumed_joules_total counter\n") != NULL);
	CHECK(strstr(b.data, "gpuwatch_gpu_lost{gpu=\"1\"") != NULL);
	CHECK(strstr(b.data, "gpuwatch_build_info{version=") != NULL);
	CHECK(strstr(b.data, "\ngpuwatch_process_memory_used_bytes{gpu=\"0\"") != NULL);
	CHECK(strstr(b.data, "simulated=\"true\"") != NULL);

	/* A counters file with one field exports just that DCGM family. */
	struct gw_counters one;
	CHECK_INT_EQ(gw_counters_parse(&one, "DCGM_FI_DEV_GPU_TEMP, gauge, T\n", "one", &err), 0);
	struct gw_metrics m1;
	gw_metrics_prepare(&m1, &one, nv);
	m1.native = false;
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_metrics_render(&m1, f, GW_EXPFMT_TEXT, &b), 0);
	CHECK(strncmp(b.data, "# HELP DCGM_FI_DEV_GPU_TEMP T\n# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n", 62) == 0);
	CHECK(strstr(b.data, "DCGM_FI_DRIVER_VERSION") == NULL); /* no label row: no label */
	CHECK(strstr(b.data, "POWER_USAGE") == NULL);
	/* A field listed twice is one family: Prometheus refuses a scrape with a HELP or TYPE twice. */
	struct gw_counters two;
	CHECK_INT_EQ(gw_counters_parse(&two, "DCGM_FI_DEV_GPU_TEMP, gauge, T\nDCGM_FI_DEV_GPU_TEMP, gauge, T\n", "two", &err),
		     0);
	struct gw_metrics m2;
	gw_metrics_prepare(&m2, &two, nv);
	m2.native = false;
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_metrics_render(&m2, f, GW_EXPFMT_TEXT, &b), 0);
	const char *help = strstr(b.data, "# HELP DCGM_FI_DEV_GPU_TEMP ");
	CHECK(help && !strstr(help + 1, "# HELP DCGM_FI_DEV_GPU_TEMP "));
	gw_metrics_release(&m2);
	gw_counters_release(&two);
	/* OpenMetrics ends with # EOF. */
	gw_buf_reset(&b);
	CHECK_INT_EQ(gw_metrics_render(&m, f, GW_EXPFMT_OPENMETRICS, &b), 0);
	CHECK(b.len > 6 && strcmp(b.data + b.len - 6, "# EOF\n") == 0);

	gw_metrics_release(&m1);
	gw_counters_release(&one);
	gw_buf_release(&b);
	gw_metrics_release(&m);
	gw_counters_release(&c);
	gw_sampler_release(s, f);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* Each frame renders once per format; scrapes share the bytes; a clear re-renders. */
static void test_expo_cache(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim("2xH200:training", &gpus, &n);
	CHECK(nv != NULL);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.interval_ms = 1000, .no_events = true};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK_INT_EQ(gw_sampler_tick(s, 1700000000000), 0);
	const struct gw_frame *f1 = gw_sampler_acquire(s);
	struct gw_counters c;
	gw_counters_default(&c);
	struct gw_metrics m;
	CHECK_INT_EQ(gw_metrics_prepare(&m, &c, nv), 0);
	struct gw_expo_cache ec;
	gw_expo_cache_init(&ec, 1 << 22);

	const char *d1, *d2, *d3, *d4;
	size_t l1, l2, l3, l4;
	void *r1, *r2, *r3, *r4;
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f1, GW_EXPFMT_TEXT, false, &d1, &l1, &r1), 0);
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f1, GW_EXPFMT_TEXT, false, &d2, &l2, &r2), 0);
	CHECK(d1 == d2 && l1 == l2 && ec.renders == 1);
	/* The bytes are exactly what a direct render gives. */
	struct gw_buf b;
	gw_buf_init(&b, 1 << 22);
	CHECK_INT_EQ(gw_metrics_render(&m, f1, GW_EXPFMT_TEXT, &b), 0);
	CHECK(b.len == l1 && memcmp(b.data, d1, l1) == 0);
	/* Gzip: the plain bytes compressed once, shared by every gzip scrape of the frame. */
	const char *z1, *z2;
	size_t zl1, zl2;
	void *zr1, *zr2;
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f1, GW_EXPFMT_TEXT, true, &z1, &zl1, &zr1), 0);
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f1, GW_EXPFMT_TEXT, true, &z2, &zl2, &zr2), 0);
	CHECK(z1 == z2 && ec.renders == 1 && ec.compressions == 1);
	CHECK(zl1 > 18 && zl1 * 8 < l1 && (unsigned char)z1[0] == 0x1f && (unsigned char)z1[1] == 0x8b);
	{
		char *out = malloc(l1 + 1);
		z_stream z = {0};
		CHECK_INT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
		z.next_in = (Bytef *)z1;
		z.avail_in = (uInt)zl1;
		z.next_out = (Bytef *)out;
		z.avail_out = (uInt)(l1 + 1);
		CHECK_INT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
		CHECK(z.total_out == l1 && memcmp(out, d1, l1) == 0);
		inflateEnd(&z);
		free(out);
	}
	gw_expo_body_unref(zr1);
	gw_expo_body_unref(zr2);
	/* The other format is its own entry. */
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f1, GW_EXPFMT_OPENMETRICS, false, &d3, &l3, &r3), 0);
	CHECK(ec.renders == 2 && l3 > 6 && memcmp(d3 + l3 - 6, "# EOF\n", 6) == 0);
	gw_expo_body_unref(r3);

	/* A new frame renders anew; the old body stays valid while referenced. */
	CHECK_INT_EQ(gw_sampler_tick(s, 1700000001000), 0);
	const struct gw_frame *f2 = gw_sampler_acquire(s);
	CHECK(f2 != NULL && f2->seq > f1->seq);
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f2, GW_EXPFMT_TEXT, false, &d3, &l3, &r3), 0);
	CHECK(ec.renders == 3 && d3 != d1);
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f2, GW_EXPFMT_TEXT, true, &z1, &zl1, &zr1), 0);
	CHECK(ec.renders == 3 && ec.compressions == 2); /* the new frame's bytes compressed, not rendered again */
	gw_expo_body_unref(zr1);
	CHECK(memcmp(b.data, d1, l1) == 0); /* r1 still holds the first frame's bytes */
	gw_expo_body_unref(r1);
	gw_expo_body_unref(r2);
	/* A late request with the older frame gets the newer bytes, no render. */
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f1, GW_EXPFMT_TEXT, false, &d4, &l4, &r4), 0);
	CHECK(d4 == d3 && ec.renders == 3);
	gw_expo_body_unref(r4);
	/* After a config change the cache is cleared and the same frame renders again. */
	gw_expo_cache_clear(&ec);
	CHECK_INT_EQ(gw_expo_cache_get(&ec, &m, f2, GW_EXPFMT_TEXT, false, &d4, &l4, &r4), 0);
	CHECK(ec.renders == 4 && l4 == l3 && memcmp(d4, d3, l3) == 0);
	gw_expo_body_unref(r4);
	gw_expo_body_unref(r3);
	/* Over the limit: an error, nothing cached. */
	struct gw_expo_cache tiny;
	gw_expo_cache_init(&tiny, 1000);
	CHECK_INT_EQ(gw_expo_cache_get(&tiny, &m, f2, GW_EXPFMT_TEXT, false, &d4, &l4, &r4), GW_EOVERFLOW);
	CHECK(tiny.renders == 0);
	gw_expo_cache_release(&tiny);

	gw_buf_release(&b);
	gw_expo_cache_release(&ec);
	gw_metrics_release(&m);
	gw_counters_release(&c);
	gw_sampler_release(s, f1);
	gw_sampler_release(s, f2);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

static void test_frames_and_readers(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim("1xH100:training", &gpus, &n);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.no_events = true};
	gw_sampler_new(&s, nv, gpus, n, &so, &err);
	/* Readers holding frames never block ticks; with every frame held, a tick is skipped. */
	const struct gw_frame *held[4] = {0};
	for (int i = 0; i < 4; i++) {
		CHECK_INT_EQ(gw_sampler_tick(s, 1000 * (i + 1)), 0);
		held[i] = gw_sampler_acquire(s);
		CHECK(held[i] && held[i]->t_ms == 1000 * (i + 1));
	}
	CHECK_INT_EQ(gw_sampler_tick(s, 5000), GW_EOVERFLOW);
	for (int i = 0; i < 4; i++)
		gw_sampler_release(s, held[i]);
	CHECK_INT_EQ(gw_sampler_tick(s, 6000), 0);
	const struct gw_frame *f = gw_sampler_acquire(s);
	CHECK(f->t_ms == 6000 && f->seq == 5);
	gw_sampler_release(s, f);
	gw_sampler_free(s);
	free(gpus);
	gw_nvml_close(nv);
}

/* GPM (Hopper): activity ratios between two samples >= 100 ms apart; absent elsewhere. */
static void test_gpm(void)
{
	struct gw_gpu *gpus;
	unsigned int n;
	struct gw_nvml *nv = open_sim("1xH100:burn,1xL40S:burn", &gpus, &n);
	if (!nv)
		return;
	struct gw_sampler *s;
	struct gw_err err;
	struct gw_sampler_opts so = {.no_events = true, .proc_interval_ms = 1};
	CHECK_INT_EQ(gw_sampler_new(&s, nv, gpus, n, &so, &err), 0);
	CHECK(gpus[0].gpm != NULL);
	CHECK(gpus[1].gpm == NULL);
	gw_sampler_tick(s, 1000);
	struct timespec pause = {0, 400 * 1000000L}; /* > 2 driver sample periods (1/6 s) */
	nanosleep(&pause, NULL);
	gw_sampler_tick(s, 2000);
	const struct gw_frame *f = gw_sampler_acquire(s);
	const struct gw_field *tensor = gw_field_find_any("gpm.tensor_active");
	const struct gw_field *pcie = gw_field_find_any("gpm.pcie_rx");
	CHECK(tensor != NULL && pcie != NULL);
	if (f && tensor && pcie) {
		size_t ti = 0, pi = 0;
		for (size_t i = 0; i < gw_fields_count(); i++) {
			if (gw_field_at(i) == tensor)
				ti = i;
			if (gw_field_at(i) == pcie)
				pi = i;
		}
		const struct gw_value *h100 = &f->gpus[0].v[ti], *l40s = &f->gpus[1].v[ti];
		CHECK_INT_EQ(h100->state, GW_V_OK);
		CHECK(h100->d >= 0 && h100->d <= 1.0); /* a ratio, as DCGM reports it */
		const struct gw_field *gr = gw_field_find_any("gpm.graphics_active");
		for (size_t i = 0; gr && i < gw_fields_count(); i++)
			if (gw_field_at(i) == gr)
				CHECK(f->gpus[0].v[i].state == GW_V_OK && f->gpus[0].v[i].d > 0.5); /* burn: busy */
		CHECK_INT_EQ(l40s->state, GW_V_NA);
		CHECK_INT_EQ(f->gpus[0].v[pi].state, GW_V_OK);
		CHECK(f->gpus[0].v[pi].d > 1024.0); /* bytes/s, not MiB/s */
		struct gw_counters c;
		gw_counters_default(&c);
		struct gw_metrics m;
		gw_metrics_prepare(&m, &c, nv);
		struct gw_buf b;
		gw_buf_init(&b, 1 << 22);
		gw_metrics_render(&m, f, GW_EXPFMT_TEXT, &b);
		CHECK(strstr(b.data, "\nDCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\"") != NULL);
		CHECK(strstr(b.data, "\nDCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"1\"") == NULL);
		/* Per-process utilisation from the driver's samples (the second tick reads them). */
		const char *u = strstr(b.data, "\ngpuwatch_process_sm_utilization_ratio{gpu=\"0\"");
		CHECK(u != NULL);
		if (u) {
			const char *eol = strchr(u + 1, '\n'), *sp = eol;
			while (sp > u && *sp != ' ')
				sp--;
			double r = strtod(sp, NULL);
			CHECK(eol && r >= 0 && r <= 1);
		}
		gw_buf_release(&b);
		gw_metrics_release(&m);
		gw_counters_release(&c);
	}
	gw_sampler_release(s, f);
	gw_sampler_free(s);
	CHECK(gpus[0].gpm == NULL); /* freed with the sampler */
	free(gpus);
	gw_nvml_close(nv);
}

int main(void)
{
	RUN(test_gpm);
	RUN(test_counters_parse);
	RUN(test_counters_checks);
	RUN(test_render);
	RUN(test_expo_cache);
	RUN(test_frames_and_readers);
	return harness_done();
}
