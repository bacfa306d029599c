/*
 * The default table and -L rendered from the states of the nvidia-smi
 * captures (H200, H100 MIG, RTX 2080 SUPER on 595 and 610, RTX 4080 SUPER,
 * L40S); each golden file is the capture's text for that state.
 */
#include "cmd/smi_table.h"
#include "smi_golden.h"

#include <string.h>

static struct tm mk_tm(int wday, int mon, int mday, int h, int m, int s)
{
	struct tm t;
	memset(&t, 0, sizeof(t));
	t.tm_year = 126;
	t.tm_wday = wday;
	t.tm_mon = mon;
	t.tm_mday = mday;
	t.tm_hour = h;
	t.tm_min = m;
	t.tm_sec = s;
	return t;
}

static void head(struct gw_smi_head *h, struct tm t, const char *drv, const char *cuda)
{
	memset(h, 0, sizeof(*h));
	h->stamp = t;
	snprintf(h->smi_version, sizeof(h->smi_version), "%s", drv);
	snprintf(h->driver, sizeof(h->driver), "%s", drv);
	snprintf(h->cuda, sizeof(h->cuda), "%s", cuda);
}

#define SET(dst, val) snprintf((dst), sizeof(dst), "%s", (val))

static struct gw_smi_gpu_row gpu(const char *name, const char *pm, const char *bus, const char *disp,
				 const char *ecc, const char *fan, const char *temp, const char *perf,
				 const char *use, const char *cap, const char *mu, const char *mt,
				 const char *util, const char *mig)
{
	struct gw_smi_gpu_row g;
	memset(&g, 0, sizeof(g));
	SET(g.name, name);
	SET(g.persistence, pm);
	SET(g.bus_id, bus);
	SET(g.disp, disp);
	SET(g.ecc, ecc);
	SET(g.fan, fan);
	SET(g.temp, temp);
	SET(g.perf, perf);
	SET(g.pwr_use, use);
	SET(g.pwr_cap, cap);
	SET(g.mem_used, mu);
	SET(g.mem_total, mt);
	SET(g.util, util);
	SET(g.compute, "Default");
	SET(g.mig, mig);
	return g;
}

static struct gw_smi_proc_row proc(const char *gi, const char *ci, unsigned int pid, const char *type,
				   const char *name, const char *mem)
{
	struct gw_smi_proc_row p;
	memset(&p, 0, sizeof(p));
	SET(p.gi, gi);
	SET(p.ci, ci);
	p.pid = pid;
	SET(p.type, type);
	SET(p.name, name);
	SET(p.mem, mem);
	return p;
}

static void check_table(const char *golden, const struct gw_smi_table *t)
{
	RENDER(text, gw_smi_table_render(out, t));
	golden_check(golden, text);
	free(text);
}

static void test_h200_idle(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA H200", "On", "00000000:83:00.0", "Off", "0", "N/A", "28C", "P0",
				      "77W", "700W", "0MiB", "143771MiB", "0%", "Disabled");
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1};
	head(&t.head, mk_tm(5, 6, 3, 22, 10, 45), "590.48.01", "13.1");
	check_table("smi_table_h200_idle.txt", &t);
}

static void test_h200_load(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA H200", "On", "00000000:83:00.0", "Off", "0", "N/A", "52C", "P0",
				      "628W", "700W", "32362MiB", "143771MiB", "100%", "Disabled");
	struct gw_smi_proc_row p[] = {
		proc("N/A", "N/A", 10291, "C", "/root/tools/memhog", "2566MiB"),
		proc("N/A", "N/A", 10293, "C", "/root/tools/memhog", "1542MiB"),
		proc("N/A", "N/A", 10309, "C", "./gpu_burn", "28234MiB"),
	};
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1, .procs = p, .nprocs = 3};
	head(&t.head, mk_tm(5, 6, 3, 22, 11, 9), "590.48.01", "13.1");
	check_table("smi_table_h200_load.txt", &t);
}

static void test_rtx2080_595_load(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA GeForce RTX 2080 SUPER", "Off", "00000000:0C:00.0", "On", "N/A",
				      "38%", "45C", "P2", "98W", "250W", "819MiB", "8192MiB", "8%", "N/A");
	struct gw_smi_proc_row p[] = {
		proc("N/A", "N/A", 1696, "G", "/usr/bin/gnome-shell", "176MiB"),
		proc("N/A", "N/A", 4584, "G", "/usr/bin/Xwayland", "3MiB"),
		proc("N/A", "N/A", 5267, "C", "ffmpeg", "230MiB"),
		proc("N/A", "N/A", 5268, "C", "ffmpeg", "370MiB"),
	};
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1, .procs = p, .nprocs = 4};
	head(&t.head, mk_tm(3, 5, 24, 10, 26, 49), "595.71.05", "13.2");
	check_table("smi_table_rtx2080_595_load.txt", &t);
}

static void test_rtx2080_610_idle(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA GeForce RTX 2080 SUPER", "Off", "00000000:0C:00.0", "Off", "N/A",
				      "38%", "33C", "P8", "38W", "250W", "211MiB", "8192MiB", "0%", "N/A");
	struct gw_smi_proc_row p[] = {
		proc("N/A", "N/A", 1720, "G", "/usr/bin/gnome-shell", "173MiB"),
		proc("N/A", "N/A", 4556, "G", "/usr/bin/Xwayland", "3MiB"),
	};
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1, .procs = p, .nprocs = 2};
	head(&t.head, mk_tm(3, 7, 12, 21, 53, 45), "610.57.04", "13.3");
	check_table("smi_table_rtx2080_610_idle.txt", &t);
}

static void test_rtx4080_idle(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA GeForce RTX 4080 SUPER", "Off", "00000000:01:00.0", "On", "N/A",
				      "0%", "43C", "P8", "25W", "320W", "596MiB", "16376MiB", "0%", "N/A");
	struct gw_smi_proc_row p[] = {
		proc("N/A", "N/A", 2165, "C+G", "/usr/bin/kwin_wayland", "25MiB"),
		proc("N/A", "N/A", 2496, "G", "/usr/bin/plasma-keyboard", "200MiB"),
		proc("N/A", "N/A", 2620, "G", "/usr/bin/Xwayland", "4MiB"),
		proc("N/A", "N/A", 2954, "G", "/usr/bin/plasmashell", "120MiB"),
		proc("N/A", "N/A", 3527, "G", "/usr/bin/xwaylandvideobridge", "3MiB"),
	};
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1, .procs = p, .nprocs = 5};
	head(&t.head, mk_tm(5, 5, 26, 11, 59, 44), "595.71.05", "13.2");
	check_table("smi_table_rtx4080_idle.txt", &t);
}

static void test_l40s_idle(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA L40S", "Off", "00000000:01:00.0", "Off", "0", "N/A", "64C", "P0",
				      "242W", "350W", "0MiB", "46068MiB", "100%", "N/A");
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1};
	head(&t.head, mk_tm(5, 6, 3, 8, 33, 38), "595.80", "13.2");
	check_table("smi_table_l40s_idle.txt", &t);
}

static struct gw_smi_mig_row mig(unsigned int gi, unsigned int dev, const char *mu, const char *mt,
				 const char *bt, const char *sm, const char *engines)
{
	struct gw_smi_mig_row m;
	memset(&m, 0, sizeof(m));
	m.gi = gi;
	m.dev = dev;
	SET(m.mem_used, mu);
	SET(m.mem_total, mt);
	SET(m.bar1_used, "0MiB");
	SET(m.bar1_total, bt);
	SET(m.sm, sm);
	SET(m.ecc, "0");
	SET(m.ce, engines);
	SET(m.enc, "0");
	SET(m.dec, engines);
	SET(m.ofa, "0");
	SET(m.jpg, engines);
	return m;
}

static void test_h100_mig_load(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA H100 80GB HBM3", "On", "00000000:00:09.0", "Off", "On", "N/A",
				      "52C", "P0", "432W", "700W", "11125MiB", "81559MiB", "N/A", "Enabled");
	struct gw_smi_mig_row m[] = {
		mig(2, 0, "11091MiB", "40448MiB", "24739MiB", "60", "3"),
		mig(3, 1, "17MiB", "20096MiB", "12369MiB", "32", "2"),
		mig(9, 2, "9MiB", "9984MiB", "6184MiB", "16", "1"),
		mig(10, 3, "9MiB", "9984MiB", "6184MiB", "16", "1"),
	};
	struct gw_smi_proc_row p[] = {
		proc("2", "0", 21180, "C", "/root/tools/memhog", "2296MiB"),
		proc("2", "0", 21181, "C", "/root/tools/memhog", "1272MiB"),
		proc("2", "0", 21198, "C", "./gpu_burn", "7484MiB"),
	};
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1, .migs = m, .nmigs = 4, .procs = p, .nprocs = 3};
	head(&t.head, mk_tm(2, 6, 14, 9, 0, 43), "590.48.01", "13.1");
	check_table("smi_table_h100_mig_load.txt", &t);
}

/* Not in the captures: a long process name keeps its tail, the GPU name its head. */
static void test_long_names(void)
{
	struct gw_smi_gpu_row g = gpu("NVIDIA RTX 6000 Ada Generation", "On", "00000000:41:00.0", "Off", "0",
				      "30%", "35C", "P8", "22W", "300W", "1MiB", "49140MiB", "0%", "N/A");
	struct gw_smi_proc_row p = proc("N/A", "N/A", 4242, "C",
					"/home/user/miniconda3/envs/torch-2.4/bin/python3.11", "912MiB");
	struct gw_smi_table t = {.gpus = &g, .ngpus = 1, .procs = &p, .nprocs = 1};
	head(&t.head, mk_tm(1, 0, 5, 9, 5, 7), "595.71.05", "13.2");
	RENDER(text, gw_smi_table_render(out, &t));
	CHECK(strstr(text, "|   0  NVIDIA RTX 6000 Ada Gene...    On  |") != NULL);
	CHECK(strstr(text, "   C   ...da3/envs/torch-2.4/bin/python3.11    912MiB |\n") != NULL);
	CHECK(strstr(text, "Mon Jan  5 09:05:07 2026       \n") == text);
	free(text);
}

static void test_list(void)
{
	RENDER(text, {
		gw_smi_list_gpu(out, 0, "NVIDIA H200", "GPU-00000000-0000-0000-0000-000000000000");
		gw_smi_list_mig(out, "1c.3g.71gb", 0, "MIG-00000000-0000-0000-0000-000000000000");
		gw_smi_list_mig(out, "2c.3g.71gb", 1, "MIG-00000001-0000-0000-0000-000000000001");
		gw_smi_list_mig(out, "2g.35gb", 2, "MIG-00000002-0000-0000-0000-000000000002");
		gw_smi_list_mig(out, "1g.18gb", 3, "MIG-00000003-0000-0000-0000-000000000003");
		gw_smi_list_mig(out, "1g.18gb", 4, "MIG-00000004-0000-0000-0000-000000000004");
	});
	golden_check("smi_list_h200_mig.txt", text);
	free(text);
}

static void test_cell_mib(void)
{
	char b[16];
	CHECK_STR_EQ(gw_smi_cell_mib(b, sizeof(b), 150754820096ULL), "143771MiB");
	CHECK_STR_EQ(gw_smi_cell_mib(b, sizeof(b), 1048575ULL), "0MiB");
}

int main(void)
{
	RUN(test_h200_idle);
	RUN(test_h200_load);
	RUN(test_rtx2080_595_load);
	RUN(test_rtx2080_610_idle);
	RUN(test_rtx4080_idle);
	RUN(test_l40s_idle);
	RUN(test_h100_mig_load);
	RUN(test_long_names);
	RUN(test_list);
	RUN(test_cell_mib);
	return harness_done();
}
