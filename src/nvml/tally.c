#include "nvml/tally.h"

#include <stdlib.h>
#include <string.h>

int gw_nvml_tally_init(struct gw_nvml_tally *t, unsigned int ngpus)
{
	memset(t, 0, sizeof(*t));
	t->rows = calloc((size_t)ngpus + 1, sizeof(*t->rows));
	if (!t->rows)
		return GW_ENOMEM;
	t->ngpus = ngpus;
	for (size_t i = 0; i < GW_NVML_FN__COUNT; i++)
		t->last_gpu[i] = -1;
	return 0;
}

void gw_nvml_tally_release(struct gw_nvml_tally *t)
{
	free(t->rows);
	t->rows = NULL;
}

void gw_nvml_tally_add(struct gw_nvml_tally *t, const struct gw_gpu *gpu, enum gw_nvml_fn fn,
		       nvmlReturn_t ret, uint64_t n)
{
	if (!t || !t->rows || (unsigned int)fn >= GW_NVML_FN__COUNT || !n)
		return;
	/* A GPU outside the rows (not from this tally's list) counts as "no GPU". */
	unsigned int row = gpu && gpu->index < t->ngpus ? gpu->index : t->ngpus;
	t->rows[row][fn] += n;
	t->by_fn[fn] += n;
	t->total += n;
	t->last_ret[fn] = ret;
	t->last_gpu[fn] = row < t->ngpus ? (int)row : -1;
}
