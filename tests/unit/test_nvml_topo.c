/* Topology through the binding on the simulator: NVLinks (state, speed,
 * the switch at the far end, bonds between GPUs), PCIe levels, CPU and
 * NUMA affinity lists, and what a board without NVLink answers. */
#include "harness.h"
#include "nvml/topo.h"
#include "sim_text.h"

#include <stdlib.h>
#include <string.h>

static void test_hgx_h200(void)
{
	struct gw_gpu *g = NULL;
	unsigned int n = 0;
	struct gw_nvml *nv = sim_open_text_gpus("[sim]\nfleet = 8xH200\nclock = manual\n", &g, &n);
	CHECK(nv != NULL);
	CHECK_INT_EQ(n, 8);
	if (!nv || n != 8)
		goto out;
	struct gw_nvlinks a, b;
	CHECK_INT_EQ(gw_nvlinks_read(nv, g[0].dev, &a), 0);
	CHECK_INT_EQ(gw_nvlinks_read(nv, g[7].dev, &b), 0);
	CHECK_INT_EQ(a.n, 18);
	CHECK_INT_EQ(a.nactive, 18);
	CHECK(a.v[17].speed_valid);
	CHECK_INT_EQ(a.v[17].speed_mbps, 26562);
	CHECK_INT_EQ(a.v[3].remote_type, NVML_NVLINK_DEVICE_TYPE_SWITCH);
	CHECK(a.v[3].remote_bus[0] != '\0');
	CHECK_INT_EQ(gw_nvlinks_between(&a, &b, g[7].bus_id), 18);
	unsigned int ver = 0;
	CHECK_INT_EQ(nv->nvmlDeviceGetNvLinkVersion(g[0].dev, 17, &ver), NVML_SUCCESS);
	CHECK_INT_EQ(ver, 4); /* Hopper */
	CHECK_INT_EQ(nv->nvmlDeviceGetNvLinkVersion(g[0].dev, 18, &ver), NVML_ERROR_INVALID_ARGUMENT);
	nvmlGpuTopologyLevel_t lv;
	CHECK_INT_EQ(gw_topo_level(nv, g[0].dev, g[0].dev, &lv), 0);
	CHECK_STR_EQ(gw_topo_level_name(lv), "X");
	CHECK_INT_EQ(gw_topo_level(nv, g[0].dev, g[3].dev, &lv), 0);
	CHECK_STR_EQ(gw_topo_level_name(lv), "NODE");
	CHECK_INT_EQ(gw_topo_level(nv, g[0].dev, g[4].dev, &lv), 0);
	CHECK_STR_EQ(gw_topo_level_name(lv), "SYS");
	char buf[128];
	CHECK_INT_EQ(gw_topo_cpus(nv, g[0].dev, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "0-55,112-167");
	CHECK_INT_EQ(gw_topo_cpus(nv, g[7].dev, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "56-111,168-223");
	CHECK_INT_EQ(gw_topo_numa(nv, g[7].dev, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "1");
	unsigned int id;
	CHECK_INT_EQ(gw_topo_gpu_numa_id(nv, g[0].dev, &id), GW_ENOTSUP);
	/* a list that does not fit the buffer is refused, not cut */
	CHECK_INT_EQ(gw_topo_cpus(nv, g[0].dev, buf, 8), GW_EOVERFLOW);
out:
	free(g);
	gw_nvml_close(nv);
}

static void test_no_links_and_pinned_affinity(void)
{
	struct gw_gpu *g = NULL;
	unsigned int n = 0;
	struct gw_nvml *nv =
	    sim_open_text_gpus("[sim]\nclock = manual\n"
			       "[gpu 0]\nmodel = RTX2080S\ncpu_affinity = 0-3,8,10-11\nnuma_node = 2\n"
			       "[gpu 1]\nmodel = L40S\n[gpu 2]\nmodel = RTX4080S\n",
			       &g, &n);
	CHECK(nv != NULL);
	CHECK_INT_EQ(n, 3);
	if (!nv || n != 3)
		goto out;
	struct gw_nvlinks l;
	CHECK_INT_EQ(gw_nvlinks_read(nv, g[0].dev, &l), 0); /* a link, no bridge */
	CHECK_INT_EQ(l.n, 1);
	CHECK_INT_EQ(l.nactive, 0);
	CHECK(!l.v[0].speed_valid);
	CHECK_INT_EQ(gw_nvlinks_read(nv, g[1].dev, &l), GW_ENOTSUP);
	char buf[64];
	CHECK_INT_EQ(gw_topo_cpus(nv, g[0].dev, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "0-3,8,10-11");
	CHECK_INT_EQ(gw_topo_numa(nv, g[0].dev, buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "2");
	nvmlGpuTopologyLevel_t lv;
	CHECK_INT_EQ(gw_topo_level(nv, g[0].dev, g[2].dev, &lv), 0); /* two GeForce cards: one host bridge */
	CHECK_STR_EQ(gw_topo_level_name(lv), "PHB");
out:
	free(g);
	gw_nvml_close(nv);
}

int main(void)
{
	RUN(test_hgx_h200);
	RUN(test_no_links_and_pinned_affinity);
	return harness_done();
}
