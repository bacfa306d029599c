/*
 * sim_tokens.c - the simulated training job's tokens into the store
 * (see sim_tokens.h).
 */
#include "cmd/sim_tokens.h"

#include "core/err.h"
#include "model/labels.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shape of the model the throughput model's token rates assume (an 8B Llama-like). */
static const struct gw_lpair model_shape[] = {
	{"params", "8030261248"}, {"layers", "32"}, {"hidden", "4096"}, {"seq", "8192"}, {"recompute", "none"},
};
#define NSHAPE (sizeof(model_shape) / sizeof(model_shape[0]))

/* "0,1,2": the training GPUs' indexes. */
static void gpu_list(const struct sim_tokens *t, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (unsigned int i = 0; i < t->ngpus && o + 12 < len; i++)
		if (t->trains[i])
			o += (size_t)snprintf(out + o, len - o, "%s%u", o ? "," : "", i);
}

int sim_tokens_open(struct sim_tokens *t, void *lib, unsigned int ngpus, struct gw_tsdb *db, const char *instance)
{
	memset(t, 0, sizeof(*t));
	*(void **)&t->total = dlsym(lib, "gwsim_tokens_total");
	if (!t->total || !ngpus)
		return 0;
	if (!(t->trains = calloc(ngpus, sizeof(*t->trains))))
		return GW_ENOMEM;
	t->ngpus = ngpus;
	for (unsigned int i = 0; i < ngpus; i++) {
		double v;
		t->trains[i] = t->total(i, &v) == 0;
		t->ntrain += t->trains[i];
	}
	if (!t->ntrain)
		return 0;
	char gpus[4096];
	gpu_list(t, gpus, sizeof(gpus));
	struct gw_lpair l[4 + NSHAPE] = {
		{GW_METRIC_NAME, "gpuwatch_training_tokens_total"}, {"job", SIM_TOKENS_JOB}, {"instance", instance}};
	int rc = gw_tsdb_series(db, l, 3, &t->ref_tokens);
	if (rc)
		return rc;
	l[0].value = "gpuwatch_training_model_info";
	l[3] = (struct gw_lpair){"gpus", gpus};
	memcpy(&l[4], model_shape, sizeof(model_shape));
	return gw_tsdb_series(db, l, 4 + NSHAPE, &t->ref_info);
}

void sim_tokens_feed(struct sim_tokens *t, struct gw_tsdb *db, int64_t t_ms)
{
	if (!t->ntrain)
		return;
	double sum = 0;
	for (unsigned int i = 0; i < t->ngpus; i++) {
		double v = 0;
		if (t->trains[i] && t->total(i, &v) == 0)
			sum += v;
	}
	/* a counter of whole tokens, as a job counts them */
	if (gw_tsdb_append(db, t->ref_tokens, t_ms, (double)(uint64_t)sum) != 0)
		t->refused++;
	if (gw_tsdb_append(db, t->ref_info, t_ms, 1) != 0)
		t->refused++;
}

void sim_tokens_close(struct sim_tokens *t)
{
	free(t->trains);
	memset(t, 0, sizeof(*t));
}
