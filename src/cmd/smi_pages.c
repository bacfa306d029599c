/*
 * smi_pages.c - the records behind --query-accounted-apps,
 * --query-retired-pages and --query-remapped-rows (smi_apps.h prints them).
 *
 * What nvidia-smi does with what NVML answers, as the captures show:
 *   - accounting off (NOT_SUPPORTED from nvmlDeviceGetAccountingPids):
 *     no rows, the header alone;
 *   - page retirement not supported (every Ampere and newer board, which
 *     remap rows instead, and every GeForce): one row per cause with the
 *     address and timestamp [N/A]; supported: one row per retired page,
 *     single-bit causes first, none when no page is retired;
 *   - the row remapper: one row per GPU, [N/A] where it is not supported.
 */
#include "cmd/smi_apps.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PIDS 4096 /* nvidia-smi's default accounting buffer is 4000 */

static int lost_or(nvmlReturn_t r, int other)
{
	return r == NVML_ERROR_GPU_IS_LOST ? GW_EGPULOST : other;
}

int gw_smi_recs_accounted(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n)
{
	struct gw_nvml *nv = c->nv;
	nvmlDevice_t dev = c->gpu->dev;
	*recs = NULL;
	*n = 0;
	if (!nv->nvmlDeviceGetAccountingPids)
		return 0;
	unsigned int count = 0;
	nvmlReturn_t r = nv->nvmlDeviceGetAccountingPids(dev, &count, NULL);
	if (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE)
		return lost_or(r, 0); /* accounting off or not supported: the header alone */
	if (count == 0)
		return 0;
	if (count > MAX_PIDS)
		count = MAX_PIDS;
	unsigned int *pids = calloc(count, sizeof(*pids));
	*recs = calloc(count, sizeof(**recs));
	if (!pids || !*recs) {
		free(pids);
		return GW_ENOMEM;
	}
	r = nv->nvmlDeviceGetAccountingPids(dev, &count, pids);
	if (r != NVML_SUCCESS) {
		free(pids);
		return lost_or(r, 0);
	}
	for (unsigned int i = 0; i < count; i++) {
		struct gw_smi_rec *rec = &(*recs)[(*n)++];
		nvmlAccountingStats_t st;
		rec->pid = pids[i];
		if (nv->nvmlDeviceGetAccountingStats &&
		    nv->nvmlDeviceGetAccountingStats(dev, pids[i], &st) == NVML_SUCCESS) {
			rec->acct_valid = true;
			rec->gpu_util = st.gpuUtilization;
			rec->mem_util = st.memoryUtilization;
			rec->mem_valid = true;
			rec->mem_bytes = st.maxMemoryUsage;
			rec->time_ms = st.time;
		}
	}
	free(pids);
	return 0;
}

/* One cause's pages; *unsupported when NVML has no page retirement here. */
static int retired_cause(const struct gw_read_ctx *c, int cause, struct gw_smi_rec **recs, size_t *n,
			 bool *unsupported)
{
	struct gw_nvml *nv = c->nv;
	nvmlDevice_t dev = c->gpu->dev;
	unsigned int count = 0;
	nvmlReturn_t r = nv->nvmlDeviceGetRetiredPages_v2
			     ? nv->nvmlDeviceGetRetiredPages_v2(dev, cause, &count, NULL, NULL)
			 : nv->nvmlDeviceGetRetiredPages
			     ? nv->nvmlDeviceGetRetiredPages(dev, cause, &count, NULL)
			     : NVML_ERROR_NOT_SUPPORTED;
	if (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE) {
		*unsupported = true;
		return lost_or(r, 0);
	}
	if (count == 0)
		return 0;
	unsigned long long *addr = calloc(count, sizeof(*addr)), *stamp = calloc(count, sizeof(*stamp));
	struct gw_smi_rec *grown = realloc(*recs, (*n + count) * sizeof(**recs));
	if (grown)
		*recs = grown;
	if (!addr || !stamp || !grown) {
		free(addr);
		free(stamp);
		return GW_ENOMEM;
	}
	r = nv->nvmlDeviceGetRetiredPages_v2
		? nv->nvmlDeviceGetRetiredPages_v2(dev, cause, &count, addr, stamp)
		: nv->nvmlDeviceGetRetiredPages(dev, cause, &count, addr);
	for (unsigned int i = 0; r == NVML_SUCCESS && i < count; i++) {
		struct gw_smi_rec *rec = &(*recs)[(*n)++];
		memset(rec, 0, sizeof(*rec));
		rec->page_valid = true;
		rec->addr = addr[i];
		rec->stamp = stamp[i];
		rec->cause = cause;
	}
	free(addr);
	free(stamp);
	return r == NVML_SUCCESS ? 0 : lost_or(r, 0);
}

int gw_smi_recs_retired(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n)
{
	static const int causes[2] = {NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
				      NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR};
	*recs = NULL;
	*n = 0;
	for (int k = 0; k < 2; k++) {
		bool unsupported = false;
		int rc = retired_cause(c, causes[k], recs, n, &unsupported);
		if (rc != 0)
			return rc;
		if (!unsupported)
			continue;
		struct gw_smi_rec *grown = realloc(*recs, (*n + 1) * sizeof(**recs));
		if (!grown)
			return GW_ENOMEM;
		*recs = grown;
		memset(&grown[*n], 0, sizeof(grown[*n]));
		grown[(*n)++].cause = causes[k];
	}
	return 0;
}

int gw_smi_recs_remapped(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n)
{
	*n = 0;
	if (!(*recs = calloc(1, sizeof(**recs))))
		return GW_ENOMEM;
	struct gw_smi_rec *rec = *recs;
	*n = 1;
	if (!c->nv->nvmlDeviceGetRemappedRows)
		return 0;
	nvmlReturn_t r = c->nv->nvmlDeviceGetRemappedRows(c->gpu->dev, &rec->corr, &rec->unc, &rec->pending,
							  &rec->failure);
	rec->remap_valid = r == NVML_SUCCESS;
	if (r == NVML_ERROR_GPU_IS_LOST) {
		*n = 0;
		return GW_EGPULOST;
	}
	return 0;
}
