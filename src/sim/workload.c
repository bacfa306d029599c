/*
 * workload.c - what each simulated job asks of its GPU at virtual time t,
 * and the processes it runs.
 *
 * Every workload is a pure function of (seed, GPU, t): nothing is integrated
 * here, so any instant costs a handful of hashes and the same seed always
 * gives the same history. Rhythms:
 *   training  - ~2 s steps (compute 80 %, NCCL all-reduce 20 %), a data-loader
 *               stall on ~4 % of steps, a 30 s evaluation every 10 min, a 20 s
 *               checkpoint write (PCIe to host, GPU nearly idle) every 30 min;
 *   inference - request bursts per 0.5 s bucket under a daily load curve;
 *   leak      - moderate load while the process's memory creeps up;
 *   thermal   - full load on a board whose cooling is impaired (physics.c
 *               raises its thermal resistance), so it heats into slowdown;
 *   powercap  - full load under a lowered power limit (a training job with no
 *               evaluation, checkpoints or all-reduce: every second makes tokens);
 *   burn      - constant full load (gpu-burn, what the captures ran);
 *   offload   - training with its optimizer states on the host (ZeRO-Offload):
 *               parameters stream in and gradients out over PCIe near the
 *               link's capacity while the GPU mostly waits on them.
 */
#include "sim.h"
#include "gwsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TRAIN_EVAL_EVERY 600.0  /* s */
#define TRAIN_EVAL_LEN 30.0     /* s */
#define TRAIN_CKPT_EVERY 1800.0 /* s */
#define TRAIN_CKPT_AT 900.0     /* s into each period */
#define TRAIN_CKPT_LEN 20.0     /* s */
#define TRAIN_STALL_P 0.04      /* share of steps the data loader stalls */

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Small deterministic jitter around 1.0, changing every driver sample. */
static double jitter(const struct gwsim_gpu *g, double t, double amp, uint64_t salt)
{
	long long k = (long long)floor(t * GWSIM_SAMPLE_HZ);
	return 1.0 + amp * (2.0 * gwsim_unit(gwsim.seed ^ ((uint64_t)g->index << 40) ^ salt, (uint64_t)k) - 1.0);
}

static void idle(struct gwsim_load *l)
{
	memset(l, 0, sizeof(*l));
	l->pcie_tx = 350; /* KB/s of driver housekeeping, as the idle captures show */
	l->pcie_rx = 330;
}

static void full(const struct gwsim_gpu *g, double t, struct gwsim_load *l, double power)
{
	l->gpu = 1.0;
	l->mem = 0.075 * jitter(g, t, 0.1, 1);
	l->sm = 0.98;
	l->occ = 0.62;
	l->tensor = 0.05;
	l->dram = 0.30 * jitter(g, t, 0.05, 2);
	l->fp32 = 0.90;
	l->fp16 = 0.02;
	l->fp64 = 0.01;
	l->pcie_tx = 400 * jitter(g, t, 0.2, 3);
	l->pcie_rx = 380 * jitter(g, t, 0.2, 4);
	l->power = power * jitter(g, t, 0.004, 5);
}

static void training(const struct gwsim_gpu *g, double t, struct gwsim_load *l)
{
	double nvl_max = g->st.nvlinks * g->st.nvlink_gbps * 1e9; /* B/s */
	double period = 1.8 + 0.4 * gwsim_unit(gwsim.seed, 3000 + g->job);
	double tt = t + g->wl_phase;
	double in_ckpt = fmod(tt + TRAIN_CKPT_EVERY - TRAIN_CKPT_AT, TRAIN_CKPT_EVERY);
	if (in_ckpt < TRAIN_CKPT_LEN && tt >= TRAIN_CKPT_AT) {
		idle(l);
		l->gpu = 0.03;
		l->mem = 0.02;
		l->sm = 0.02;
		l->pcie_tx = 2.4e6 * jitter(g, t, 0.1, 6); /* KB/s: state dict to host */
		l->power = 0.04;
		return;
	}
	if (fmod(tt, TRAIN_EVAL_EVERY) < TRAIN_EVAL_LEN && tt >= TRAIN_EVAL_EVERY) {
		l->gpu = 0.55 * jitter(g, t, 0.15, 7);
		l->mem = 0.20;
		l->sm = 0.40;
		l->occ = 0.25;
		l->tensor = 0.25;
		l->dram = 0.35;
		l->fp16 = 0.22;
		l->fp32 = 0.05;
		l->pcie_rx = 9000;
		l->pcie_tx = 600;
		l->power = 0.45 * jitter(g, t, 0.02, 8);
		return;
	}
	long long step = (long long)floor(tt / period);
	double u = tt / period - (double)step;
	/* One rank's loader stalls hold every rank of the job at the barrier. */
	if (gwsim_unit(gwsim.seed ^ 0x5A5AULL, (uint64_t)step * 131 + g->job) < TRAIN_STALL_P) {
		idle(l);
		l->gpu = 0.02;
		l->pcie_rx = 1500;
		l->power = 0.02;
		return;
	}
	if (u < 0.8) { /* forward + backward */
		l->gpu = 1.0;
		l->mem = 0.38 * jitter(g, t, 0.08, 9);
		l->sm = 0.86 * jitter(g, t, 0.03, 10);
		l->occ = 0.48;
		l->tensor = 0.58 * jitter(g, t, 0.05, 11);
		l->dram = 0.46 * jitter(g, t, 0.05, 12);
		l->fp16 = 0.55;
		l->fp32 = 0.08;
		l->nvlink = 0.10 * nvl_max;
		l->pcie_rx = 20000 * jitter(g, t, 0.3, 13); /* next batch */
		l->pcie_tx = 800;
		l->power = 0.93 * jitter(g, t, 0.01, 14);
		l->work = 1.0; /* the only part of a step that makes tokens (physics.c's throughput model) */
	} else { /* all-reduce */
		l->gpu = 0.97;
		l->mem = 0.30;
		l->sm = 0.22;
		l->occ = 0.10;
		l->tensor = 0.01;
		l->dram = 0.35;
		l->fp32 = 0.05;
		l->nvlink = 0.65 * nvl_max * jitter(g, t, 0.05, 15);
		l->pcie_rx = 600;
		l->pcie_tx = 600;
		l->power = 0.55 * jitter(g, t, 0.02, 16);
	}
}

static void inference(const struct gwsim_gpu *g, double t, struct gwsim_load *l)
{
	/* Daily curve: busiest mid-afternoon of virtual day, quietest at night. */
	double day = 0.55 + 0.35 * sin(2 * M_PI * (t / 86400.0 - 0.25));
	long long bucket = (long long)floor(t * 2.0);
	double b = gwsim_unit(gwsim.seed ^ 0xBEEFULL ^ ((uint64_t)g->index << 32), (uint64_t)bucket);
	double u = b < 0.15 ? 0 : clamp01(day * (0.25 + 0.95 * b * b));
	memset(l, 0, sizeof(*l));
	l->gpu = u;
	l->mem = 0.55 * u;
	l->sm = 0.60 * u;
	l->occ = 0.30 * u;
	l->tensor = 0.30 * u;
	l->dram = 0.70 * u; /* decode is memory bound */
	l->fp16 = 0.28 * u;
	l->fp32 = 0.04 * u;
	l->pcie_tx = 350 + 15000 * u;
	l->pcie_rx = 330 + 9000 * u;
	l->power = 0.70 * u;
}

/* Payload bytes a second one direction of g's link at its current generation and width, in KB/s. */
static double link_kbs(const struct gwsim_gpu *g)
{
	static const double lane[] = {0, 250e6, 500e6, 984.6e6, 1969e6, 3938e6, 7563e6, 15125e6, 15125e6};
	unsigned int gen = g->st.pcie_gen < 8 ? g->st.pcie_gen : 8;
	return lane[gen] * g->st.pcie_width / 1000.0;
}

static void offload(const struct gwsim_gpu *g, double t, struct gwsim_load *l)
{
	full(g, t, l, 0.40);
	l->gpu = 0.38 * jitter(g, t, 0.15, 19);
	l->sm = 0.30 * jitter(g, t, 0.15, 20);
	l->tensor = 0.18;
	l->mem = 0.15;
	l->pcie_rx = 0.86 * link_kbs(g) * jitter(g, t, 0.04, 21); /* parameters in */
	l->pcie_tx = 0.55 * link_kbs(g) * jitter(g, t, 0.08, 22); /* gradients out */
}

void gwsim_workload_eval(const struct gwsim_gpu *g, double t, struct gwsim_load *l)
{
	memset(l, 0, sizeof(*l));
	switch (g->wl) {
	case GWSIM_WL_IDLE:
		idle(l);
		break;
	case GWSIM_WL_TRAINING:
		training(g, t, l);
		break;
	case GWSIM_WL_INFERENCE:
		inference(g, t, l);
		break;
	case GWSIM_WL_LEAK:
		full(g, t, l, 0.35);
		l->gpu = 0.40 * jitter(g, t, 0.2, 17);
		l->sm = 0.35 * jitter(g, t, 0.2, 18);
		l->mem = 0.12;
		break;
	case GWSIM_WL_THERMAL:
	case GWSIM_WL_BURN:
		full(g, t, l, 0.80);
		break;
	case GWSIM_WL_POWERCAP:
		full(g, t, l, 1.0);
		l->work = 1.0;
		break;
	case GWSIM_WL_OFFLOAD:
		offload(g, t, l);
		break;
	case GWSIM_WL__COUNT:
		break;
	}
	double s = g->wl_scale;
	if (s != 1.0) {
		l->gpu *= s;
		l->sm *= s;
		l->power *= s;
	}
	if (g->wl != GWSIM_WL_TRAINING && g->st.nvlinks && l->gpu > 0)
		l->nvlink = 0.01 * l->gpu * g->st.nvlinks * g->st.nvlink_gbps * 1e9;
}

static void proc_add(struct gwsim_gpu *g, unsigned int pid, const char *name, double mem_mib, const char *cgroup)
{
	if (g->nprocs >= GWSIM_MAX_PROCS)
		return;
	struct gwsim_proc *p = &g->procs[g->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->cgroup, sizeof(p->cgroup), "%s", cgroup);
	p->type = GWSIM_PROC_COMPUTE;
	p->mem_mib = floor(mem_mib);
	p->sm_share = 1.0;
	p->mem_share = 1.0;
}

/* Processes a workload runs when the scenario did not list any. */
void gwsim_workload_procs(struct gwsim_gpu *g)
{
	if (g->wl == GWSIM_WL_POWERCAP && g->st.power_limit_mw == g->st.power_default_mw)
		g->st.power_limit_mw = (unsigned int)(g->st.power_default_mw * 0.65 / 1000.0) * 1000;
	if (g->nprocs || g->wl == GWSIM_WL_IDLE)
		return;
	uint64_t h = gwsim_hash(gwsim.seed, 5000 + g->job);
	double total = g->st.mem_total_mib - g->st.mem_reserved_mib;
	char cg[256];
	unsigned int pid = 20000 + (unsigned int)(h % 40000) + g->index;
	switch (g->wl) {
	case GWSIM_WL_TRAINING:
		/* torchrun: one rank per GPU, under a Slurm job step */
		snprintf(cg, sizeof(cg), "/system.slice/slurmstepd.scope/job_%u/step_0/user/task_%u",
			 4000000 + (unsigned int)(h % 900000), g->index);
		proc_add(g, pid, "python3", total * 0.78, cg);
		break;
	case GWSIM_WL_INFERENCE: {
		/* vLLM in a Kubernetes pod: preallocates 90 % for weights + KV cache */
		uint64_t h2 = gwsim_hash(h, g->index);
		snprintf(cg, sizeof(cg),
			 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%08x_%04x_%04x_%04x_%012llx.slice/"
			 "cri-containerd-%016llx%016llx%016llx%016llx.scope",
			 (unsigned int)(h2 >> 32), (unsigned int)(h2 >> 16) & 0xFFFF, (unsigned int)h2 & 0xFFFF,
			 (unsigned int)(h2 >> 48), (unsigned long long)(h2 & 0xFFFFFFFFFFFFULL),
			 (unsigned long long)gwsim_hash(h2, 1), (unsigned long long)gwsim_hash(h2, 2),
			 (unsigned long long)gwsim_hash(h2, 3), (unsigned long long)gwsim_hash(h2, 4));
		proc_add(g, pid, "/usr/bin/python3", total * 0.90, cg);
		break;
	}
	case GWSIM_WL_LEAK:
		snprintf(cg, sizeof(cg), "/system.slice/docker-%016llx%016llx%016llx%016llx.scope",
			 (unsigned long long)gwsim_hash(h, 21), (unsigned long long)gwsim_hash(h, 22),
			 (unsigned long long)gwsim_hash(h, 23), (unsigned long long)gwsim_hash(h, 24));
		proc_add(g, pid, "python3", total * 0.15, cg);
		/* fills the rest of the board in ~6 virtual hours, then "OOM-restarts" */
		g->procs[g->nprocs - 1].leak_mib_s = total * 0.80 / (6 * 3600.0);
		break;
	case GWSIM_WL_OFFLOAD: /* DeepSpeed ZeRO-Offload: the GPU holds parameters and activations only */
		snprintf(cg, sizeof(cg), "/user.slice/user-1000.slice/session-4.scope");
		proc_add(g, pid, "python3", total * 0.45, cg);
		break;
	default:
		snprintf(cg, sizeof(cg), "/user.slice/user-1000.slice/session-3.scope");
		proc_add(g, pid, "./gpu_burn", total * 0.20, cg);
		break;
	}
}

GWSIM_EXPORT int gwsim_tokens_total(unsigned int gpu, double *tokens)
{
	pthread_mutex_lock(&gwsim.lock);
	int rc = -1;
	if (gpu < gwsim.ngpus && tokens) {
		struct gwsim_gpu *g = &gwsim.gpus[gpu];
		gwsim_advance(g, gwsim_now_t());
		*tokens = g->d.tokens;
		bool makes = (g->wl == GWSIM_WL_TRAINING || g->wl == GWSIM_WL_POWERCAP) && g->st.tokens_per_s > 0;
		rc = makes ? 0 : 1;
	}
	pthread_mutex_unlock(&gwsim.lock);
	return rc;
}
