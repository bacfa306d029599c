#include "nvml/topo.h"

#include <stdio.h>
#include <string.h>

#define CPU_WORDS 64 /* 4096 CPUs */
#define NODE_WORDS 4 /* 256 NUMA nodes */

/* The link's speed: field 164 for the link, else (drivers before it) the
 * speed all active links share, field 90. */
static void link_speed(struct gw_nvml *nv, nvmlDevice_t dev, struct gw_nvlink *l)
{
	static const unsigned int ids[2] = {NVML_FI_DEV_NVLINK_GET_SPEED,
					    NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON};
	for (int i = 0; i < 2 && nv->nvmlDeviceGetFieldValues; i++) {
		nvmlFieldValue_t f = {.fieldId = ids[i], .scopeId = i == 0 ? l->id : 0};
		if (nv->nvmlDeviceGetFieldValues(dev, 1, &f) != NVML_SUCCESS || f.nvmlReturn != NVML_SUCCESS)
			continue;
		l->speed_valid = true;
		l->speed_mbps = f.valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
				    ? (unsigned int)f.value.ullVal
				    : f.value.uiVal;
		return;
	}
}

static int link_read(struct gw_nvml *nv, nvmlDevice_t dev, unsigned int id, struct gw_nvlink *l)
{
	memset(l, 0, sizeof(*l));
	l->id = id;
	l->remote_type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
	nvmlEnableState_t st;
	nvmlReturn_t r = nv->nvmlDeviceGetNvLinkState(dev, id, &st);
	if (r != NVML_SUCCESS)
		return gw_nvml_to_gw(r);
	l->active = st == NVML_FEATURE_ENABLED;
	if (!l->active)
		return 0;
	link_speed(nv, dev, l);
	nvmlIntNvLinkDeviceType_t type;
	if (nv->nvmlDeviceGetNvLinkRemoteDeviceType &&
	    nv->nvmlDeviceGetNvLinkRemoteDeviceType(dev, id, &type) == NVML_SUCCESS)
		l->remote_type = type;
	nvmlPciInfo_t pci;
	if (nv->nvmlDeviceGetNvLinkRemotePciInfo_v2 &&
	    nv->nvmlDeviceGetNvLinkRemotePciInfo_v2(dev, id, &pci) == NVML_SUCCESS)
		snprintf(l->remote_bus, sizeof(l->remote_bus), "%s", pci.busId);
	return 0;
}

int gw_nvlinks_read(struct gw_nvml *nv, nvmlDevice_t dev, struct gw_nvlinks *out)
{
	memset(out, 0, sizeof(*out));
	if (!nv->nvmlDeviceGetNvLinkState)
		return GW_ENOTSUP;
	/* NVML has no link count call every driver answers: links are asked
	 * for in order until one is out of range (INVALID_ARGUMENT). */
	for (unsigned int id = 0; id < NVML_NVLINK_MAX_LINKS; id++) {
		int rc = link_read(nv, dev, id, &out->v[id]);
		if (rc == GW_EINVAL)
			break;
		if (rc == GW_ENOTSUP && id == 0)
			return GW_ENOTSUP;
		if (rc != 0)
			return rc;
		out->n++;
		out->nactive += out->v[id].active;
	}
	return out->n ? 0 : GW_ENOTSUP;
}

static unsigned int switch_links(const struct gw_nvlinks *l)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < l->n; i++)
		n += l->v[i].active && l->v[i].remote_type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
	return n;
}

unsigned int gw_nvlinks_between(const struct gw_nvlinks *a, const struct gw_nvlinks *b, const char *b_bus)
{
	unsigned int direct = 0;
	for (unsigned int i = 0; i < a->n; i++)
		direct += a->v[i].active && a->v[i].remote_type == NVML_NVLINK_DEVICE_TYPE_GPU &&
			  strcmp(a->v[i].remote_bus, b_bus) == 0;
	if (direct)
		return direct;
	unsigned int sa = switch_links(a), sb = switch_links(b);
	return sa < sb ? sa : sb;
}

int gw_topo_level(struct gw_nvml *nv, nvmlDevice_t a, nvmlDevice_t b, nvmlGpuTopologyLevel_t *out)
{
	if (!nv->nvmlDeviceGetTopologyCommonAncestor)
		return GW_ENOTSUP;
	return gw_nvml_to_gw(nv->nvmlDeviceGetTopologyCommonAncestor(a, b, out));
}

const char *gw_topo_level_name(nvmlGpuTopologyLevel_t level)
{
	switch (level) {
	case NVML_TOPOLOGY_INTERNAL:
		return "X";
	case NVML_TOPOLOGY_SINGLE:
		return "PIX";
	case NVML_TOPOLOGY_MULTIPLE:
		return "PXB";
	case NVML_TOPOLOGY_HOSTBRIDGE:
		return "PHB";
	case NVML_TOPOLOGY_NODE:
		return "NODE";
	default:
		return "SYS";
	}
}

/* Bits of a set as a list of ranges, "0-55,112-167". */
static int bits_list(const unsigned long *set, unsigned int words, char *buf, size_t n)
{
	const unsigned int bits = 8 * sizeof(*set), total = words * bits;
	size_t len = 0;
	buf[0] = '\0';
	for (unsigned int i = 0; i < total; i++) {
		if (!(set[i / bits] >> (i % bits) & 1UL))
			continue;
		unsigned int j = i;
		while (j + 1 < total && (set[(j + 1) / bits] >> ((j + 1) % bits) & 1UL))
			j++;
		int w = j > i ? snprintf(buf + len, n - len, "%s%u-%u", len ? "," : "", i, j)
			      : snprintf(buf + len, n - len, "%s%u", len ? "," : "", i);
		if (w < 0 || (size_t)w >= n - len)
			return GW_EOVERFLOW;
		len += (size_t)w;
		i = j;
	}
	return len ? 0 : GW_ENOTFOUND;
}

int gw_topo_cpus(struct gw_nvml *nv, nvmlDevice_t dev, char *buf, size_t n)
{
	unsigned long set[CPU_WORDS];
	if (!nv->nvmlDeviceGetCpuAffinity)
		return GW_ENOTSUP;
	nvmlReturn_t r = nv->nvmlDeviceGetCpuAffinity(dev, CPU_WORDS, set);
	if (r != NVML_SUCCESS)
		return gw_nvml_to_gw(r);
	return bits_list(set, CPU_WORDS, buf, n);
}

int gw_topo_numa(struct gw_nvml *nv, nvmlDevice_t dev, char *buf, size_t n)
{
	unsigned long set[NODE_WORDS];
	if (!nv->nvmlDeviceGetMemoryAffinity)
		return GW_ENOTSUP;
	nvmlReturn_t r = nv->nvmlDeviceGetMemoryAffinity(dev, NODE_WORDS, set, NVML_AFFINITY_SCOPE_NODE);
	if (r != NVML_SUCCESS)
		return gw_nvml_to_gw(r);
	return bits_list(set, NODE_WORDS, buf, n);
}

int gw_topo_gpu_numa_id(struct gw_nvml *nv, nvmlDevice_t dev, unsigned int *id)
{
	if (!nv->nvmlDeviceGetNumaNodeId)
		return GW_ENOTSUP;
	return gw_nvml_to_gw(nv->nvmlDeviceGetNumaNodeId(dev, id));
}
