/*
 * topo.h - where each GPU sits, read from NVML: its NVLinks (state, speed,
 * what is at the other end), the PCIe path between two GPUs, and the CPUs
 * and NUMA node near it. `smi topo -m` and `smi nvlink -s` print these.
 *
 * Nothing here is cached: each call asks NVML. A value NVML does not give
 * is a cleared validity bit or GW_ENOTSUP, never a 0 that reads as real.
 *
 * Ownership: caller-owned structs and buffers. Threading: reentrant.
 */
#ifndef GW_NVML_TOPO_H
#define GW_NVML_TOPO_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stddef.h>

struct gw_nvlink {
	unsigned int id;
	bool active;
	bool speed_valid;
	unsigned int speed_mbps;	       /* MBps, as NVML's field 164 gives it */
	nvmlIntNvLinkDeviceType_t remote_type; /* NVML_NVLINK_DEVICE_TYPE_UNKNOWN when not known */
	char remote_bus[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "" when not known */
};

struct gw_nvlinks {
	unsigned int n; /* links the GPU has (active or not) */
	unsigned int nactive;
	struct gw_nvlink v[NVML_NVLINK_MAX_LINKS];
};

/*
 * Read every NVLink of dev. GW_ENOTSUP when the GPU has none (or the
 * library cannot tell), GW_EGPULOST when it fell off the bus.
 */
int gw_nvlinks_read(struct gw_nvml *nv, nvmlDevice_t dev, struct gw_nvlinks *out);

/*
 * How many links join GPU a (bus id a_bus) to GPU b: links of a whose far
 * end is b, or, when both reach NVSwitches, the links a and b both have
 * into the switch fabric (an HGX board's NV18). 0: no NVLink path.
 */
unsigned int gw_nvlinks_between(const struct gw_nvlinks *a, const struct gw_nvlinks *b, const char *b_bus);

/* NVML's nearest common PCIe ancestor of two GPUs. */
int gw_topo_level(struct gw_nvml *nv, nvmlDevice_t a, nvmlDevice_t b, nvmlGpuTopologyLevel_t *out);

/* nvidia-smi's short name of a level: "X", "PIX", "PXB", "PHB", "NODE", "SYS". */
const char *gw_topo_level_name(nvmlGpuTopologyLevel_t level);

/* The CPUs near the GPU as a list, "0-55,112-167". */
int gw_topo_cpus(struct gw_nvml *nv, nvmlDevice_t dev, char *buf, size_t n);

/* The NUMA node(s) of the GPU's memory affinity as a list, "0". */
int gw_topo_numa(struct gw_nvml *nv, nvmlDevice_t dev, char *buf, size_t n);

/* The GPU's own NUMA node id (coherent-memory systems only). */
int gw_topo_gpu_numa_id(struct gw_nvml *nv, nvmlDevice_t dev, unsigned int *id);

#endif
