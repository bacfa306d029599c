/*
 * sim_tokens.h - `sim record` as the training job would see itself: the
 * tokens the simulator's throughput model says the job processed
 * (gwsim_tokens_total), stored as the job would push them to the agent
 * (docs/EFFICIENCY.md): gpuwatch_training_tokens_total and
 * gpuwatch_training_model_info{gpus=...}, under job "sim-training" and the
 * recording's instance. Only GPUs whose workload trains (training,
 * powercap) count; a fleet with none stores nothing.
 *
 * Ownership: the store is borrowed. Threading: the recording's thread.
 */
#ifndef GW_CMD_SIM_TOKENS_H
#define GW_CMD_SIM_TOKENS_H

#include "store/tsdb.h"

#include <stdbool.h>
#include <stdint.h>

#define SIM_TOKENS_JOB "sim-training"

struct sim_tokens {
	int (*total)(unsigned int gpu, double *tokens); /* gwsim_tokens_total; NULL: none */
	bool *trains;                                   /* [gpu]: its workload makes tokens */
	unsigned int ngpus, ntrain;
	uint64_t ref_tokens, ref_info;
	uint64_t refused;
};

/* Which GPUs train and the two series; 0, or GW_ENOMEM / the store's error. lib: the simulator (dlopen). */
int sim_tokens_open(struct sim_tokens *t, void *lib, unsigned int ngpus, struct gw_tsdb *db, const char *instance);
/* The job's tokens at t_ms (the simulator's clock is already there). */
void sim_tokens_feed(struct sim_tokens *t, struct gw_tsdb *db, int64_t t_ms);
void sim_tokens_close(struct sim_tokens *t);

#endif
