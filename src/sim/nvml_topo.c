/*
 * nvml_topo.c - where a board sits: the PCIe path between two GPUs, the
 * CPUs and NUMA node near it, and its NVLinks (`smi topo -m`, `nvlink -s`).
 *
 * The host is a DGX-like machine unless the scenario says otherwise
 * (config.c fills cpu_affinity and numa_node): datacenter boards hang off
 * their own PCIe switches, so two of them meet at the host bridges of one
 * NUMA node (NODE) or across the sockets (SYSTEM); workstation boards
 * (no ECC) share one host bridge (HOSTBRIDGE). Every active NVLink of a
 * datacenter board goes to an NVSwitch, as on HGX baseboards, so any two
 * such GPUs reach each other over all of their links. Links after the
 * active ones (`nvlink_inactive`) exist but are down, as on a GeForce card
 * with no bridge fitted.
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVSWITCHES 4 /* per HGX H100/H200 baseboard */

static const struct gwsim_gpu *gpu_of_handle(nvmlDevice_t d)
{
	for (unsigned int i = 0; i < gwsim.ngpus; i++)
		if (gwsim_handle(&gwsim.gpus[i]) == d)
			return &gwsim.gpus[i];
	return NULL;
}

static nvmlReturn_t common_ancestor(const struct gwsim_gpu *g, nvmlDevice_t d2, nvmlGpuTopologyLevel_t *out)
{
	const struct gwsim_gpu *h = gpu_of_handle(d2);
	if (!h || !out)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (h->h.lost)
		return NVML_ERROR_GPU_IS_LOST;
	if (g == h)
		*out = NVML_TOPOLOGY_INTERNAL;
	else if (!g->st.ecc && !h->st.ecc)
		*out = NVML_TOPOLOGY_HOSTBRIDGE;
	else if (g->st.numa_node == h->st.numa_node)
		*out = NVML_TOPOLOGY_NODE;
	else
		*out = NVML_TOPOLOGY_SYSTEM;
	return NVML_SUCCESS;
}

/*
 * Peer-to-peer between two boards: over NVLink when both have an active
 * link (each reaches the other through the NVSwitches); over PCIe (read,
 * write, atomics) between datacenter boards, which have ECC; GeForce and
 * workstation boards answer that the GPU does not support it.
 */
static nvmlReturn_t p2p_status(const struct gwsim_gpu *g, nvmlDevice_t d2, nvmlGpuP2PCapsIndex_t index,
			       nvmlGpuP2PStatus_t *out)
{
	const struct gwsim_gpu *h = gpu_of_handle(d2);
	if (!h || !out || index < NVML_P2P_CAPS_INDEX_READ || index > NVML_P2P_CAPS_INDEX_PCI)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (h->h.lost)
		return NVML_ERROR_GPU_IS_LOST;
	if (index == NVML_P2P_CAPS_INDEX_NVLINK)
		*out = g->st.nvlinks && h->st.nvlinks ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
	else
		*out = g->st.ecc && h->st.ecc ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_GPU_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

/* Set the bits of a CPU list ("0-55,112-167") in words of unsigned long. */
static nvmlReturn_t cpu_set(const char *list, unsigned int words, unsigned long *set)
{
	if (!set || words == 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(set, 0, words * sizeof(*set));
	const unsigned int bits = 8 * sizeof(*set);
	const char *p = list;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return NVML_ERROR_UNKNOWN; /* a scenario string that is not a CPU list */
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				return NVML_ERROR_UNKNOWN;
		}
		for (unsigned long c = lo; c <= hi && c < (unsigned long)words * bits; c++)
			set[c / bits] |= 1UL << (c % bits);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return NVML_ERROR_UNKNOWN;
	}
	return NVML_SUCCESS;
}

static nvmlReturn_t mem_affinity(const struct gwsim_gpu *g, unsigned int words, unsigned long *set,
				 nvmlAffinityScope_t scope)
{
	if (!set || words == 0 || (scope != NVML_AFFINITY_SCOPE_NODE && scope != NVML_AFFINITY_SCOPE_SOCKET))
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(set, 0, words * sizeof(*set));
	const unsigned int bits = 8 * sizeof(*set);
	if (g->st.numa_node < words * bits)
		set[g->st.numa_node / bits] |= 1UL << (g->st.numa_node % bits);
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetTopologyCommonAncestor,
	  (nvmlDevice_t d, nvmlDevice_t d2, nvmlGpuTopologyLevel_t *pathInfo),
	  common_ancestor(g, d2, pathInfo))
GWSIM_DEV(nvmlDeviceGetP2PStatus,
	  (nvmlDevice_t d, nvmlDevice_t d2, nvmlGpuP2PCapsIndex_t index, nvmlGpuP2PStatus_t *status),
	  p2p_status(g, d2, index, status))
GWSIM_DEV(nvmlDeviceGetCpuAffinity, (nvmlDevice_t d, unsigned int cpuSetSize, unsigned long *cpuSet),
	  cpu_set(g->st.cpu_affinity, cpuSetSize, cpuSet))
GWSIM_DEV(nvmlDeviceGetMemoryAffinity,
	  (nvmlDevice_t d, unsigned int nodeSetSize, unsigned long *nodeSet, nvmlAffinityScope_t scope),
	  mem_affinity(g, nodeSetSize, nodeSet, scope))
/* A GPU is its own NUMA node only when its memory is coherent with the
 * CPU's (Grace Hopper); every board simulated here sits on PCIe. */
GWSIM_DEV(nvmlDeviceGetNumaNodeId, (nvmlDevice_t d, unsigned int *node),
	  node ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT)

/* ---- NVLink ------------------------------------------------------------- */
static nvmlReturn_t link_check(const struct gwsim_gpu *g, unsigned int link, const void *out)
{
	if (g->st.nvlinks + g->st.nvlink_inactive == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!out || link >= g->st.nvlinks + g->st.nvlink_inactive)
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

static nvmlReturn_t link_state(const struct gwsim_gpu *g, unsigned int link, nvmlEnableState_t *active)
{
	nvmlReturn_t r = link_check(g, link, active);
	if (r == NVML_SUCCESS)
		*active = link < g->st.nvlinks && !(g->h.nvlink_down >> link & 1) ? NVML_FEATURE_ENABLED
										    : NVML_FEATURE_DISABLED;
	return r;
}

static nvmlReturn_t link_version(const struct gwsim_gpu *g, unsigned int link, unsigned int *version)
{
	nvmlReturn_t r = link_check(g, link, version);
	if (r != NVML_SUCCESS)
		return r;
	/* NVLink 2 on Volta and Turing, 3 on Ampere, 4 on Hopper, 5 on Blackwell */
	unsigned int a = g->st.arch;
	*version = a >= NVML_DEVICE_ARCH_BLACKWELL ? 5
		   : a >= NVML_DEVICE_ARCH_HOPPER  ? 4
		   : a >= NVML_DEVICE_ARCH_AMPERE  ? 3
						   : 2;
	return NVML_SUCCESS;
}

static nvmlReturn_t link_remote_type(const struct gwsim_gpu *g, unsigned int link,
				     nvmlIntNvLinkDeviceType_t *type)
{
	nvmlReturn_t r = link_check(g, link, type);
	if (r != NVML_SUCCESS)
		return r;
	*type = link < g->st.nvlinks ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
	return NVML_SUCCESS;
}

/* The NVSwitch at the far end: links spread over the baseboard's switches,
 * whose bus ids follow the GPUs' domain. */
static nvmlReturn_t link_remote_pci(const struct gwsim_gpu *g, unsigned int link, nvmlPciInfo_t *pci)
{
	nvmlReturn_t r = link_check(g, link, pci);
	if (r != NVML_SUCCESS)
		return r;
	if (link >= g->st.nvlinks)
		return NVML_ERROR_NOT_SUPPORTED; /* nothing at the other end */
	memset(pci, 0, sizeof(*pci));
	nvmlPciInfo_t own;
	gwsim_pci_info(g, &own);
	pci->domain = own.domain;
	pci->bus = 0xC0 + link % NVSWITCHES;
	pci->pciDeviceId = 0x22A310DE; /* NVSwitch (third generation) */
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:00.0", pci->domain & 0xFFFF,
		 pci->bus);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:00.0", pci->domain, pci->bus);
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetNvLinkState, (nvmlDevice_t d, unsigned int link, nvmlEnableState_t *isActive),
	  link_state(g, link, isActive))
GWSIM_DEV(nvmlDeviceGetNvLinkVersion, (nvmlDevice_t d, unsigned int link, unsigned int *version),
	  link_version(g, link, version))
GWSIM_DEV(nvmlDeviceGetNvLinkRemoteDeviceType,
	  (nvmlDevice_t d, unsigned int link, nvmlIntNvLinkDeviceType_t *type),
	  link_remote_type(g, link, type))
GWSIM_DEV(nvmlDeviceGetNvLinkRemotePciInfo_v2, (nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci),
	  link_remote_pci(g, link, pci))
GWSIM_DEV(nvmlDeviceGetNvLinkRemotePciInfo, (nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci),
	  link_remote_pci(g, link, pci))

/* Field NVML_FI_DEV_NVLINK_GET_SPEED: MBps of one link, 0 when it is down. */
nvmlReturn_t gwsim_nvlink_speed(const struct gwsim_gpu *g, unsigned int link, unsigned int *mbps)
{
	nvmlReturn_t r = link_check(g, link, mbps);
	if (r == NVML_SUCCESS)
		*mbps = link < g->st.nvlinks ? (unsigned int)(g->st.nvlink_gbps * 1000.0 + 0.5) : 0;
	return r;
}
