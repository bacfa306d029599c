/*
 * nvml_util.c - utilisation (instant, driver sample ring, per process) and
 * the running-process lists.
 *
 * The driver keeps samples every 1/6 s; physics.c records one per boundary
 * into g->d.ring (GWSIM_RING deep), and nvmlDeviceGetSamples /
 * nvmlDeviceGetProcessUtilization hand out those newer than the caller's
 * lastSeenTimeStamp (us), NOT_FOUND when there are none.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

#define MIB 1048576ULL
#define SAMPLE_PERIOD_US 166667U /* 1/6 s */

static nvmlReturn_t engine(double pct, unsigned int *util, unsigned int *period)
{
	if (!util || !period)
		return NVML_ERROR_INVALID_ARGUMENT;
	*util = (unsigned int)pct;
	*period = SAMPLE_PERIOD_US;
	return NVML_SUCCESS;
}

static nvmlReturn_t rates(const struct gwsim_gpu *g, nvmlUtilization_t *u)
{
	if (!u)
		return NVML_ERROR_INVALID_ARGUMENT;
	u->gpu = (unsigned int)g->d.now.util_gpu;
	u->memory = (unsigned int)g->d.now.util_mem;
	return NVML_SUCCESS;
}

static nvmlReturn_t enc_stats(const struct gwsim_gpu *g, unsigned int *n, unsigned int *fps, unsigned int *lat)
{
	if (!n || !fps || !lat)
		return NVML_ERROR_INVALID_ARGUMENT;
	*n = (unsigned int)(gwsim_pinned(g, GWSIM_PIN_ENC_SESSIONS) ? gwsim_pin(g, GWSIM_PIN_ENC_SESSIONS) : 0);
	*fps = (unsigned int)(gwsim_pinned(g, GWSIM_PIN_ENC_FPS) ? gwsim_pin(g, GWSIM_PIN_ENC_FPS) : 0);
	*lat = (unsigned int)(gwsim_pinned(g, GWSIM_PIN_ENC_LATENCY) ? gwsim_pin(g, GWSIM_PIN_ENC_LATENCY) : 0);
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetUtilizationRates, (nvmlDevice_t d, nvmlUtilization_t *util), rates(g, util))
GWSIM_DEV(nvmlDeviceGetEncoderUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs),
	  engine(g->d.now.util_enc, util, periodUs))
GWSIM_DEV(nvmlDeviceGetDecoderUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs),
	  engine(g->d.now.util_dec, util, periodUs))
GWSIM_DEV(nvmlDeviceGetJpgUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs),
	  engine(g->d.now.util_jpg, util, periodUs))
GWSIM_DEV(nvmlDeviceGetOfaUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs),
	  engine(g->d.now.util_ofa, util, periodUs))
GWSIM_DEV(nvmlDeviceGetEncoderStats,
	  (nvmlDevice_t d, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency),
	  enc_stats(g, sessionCount, averageFps, averageLatency))

static unsigned long long sample_us(long long k)
{
	return gwsim_t_to_us((double)k / GWSIM_SAMPLE_HZ);
}

/* Oldest ring index newer than last_seen (us), or ring_k + 1 when none. */
static long long first_new(const struct gwsim_gpu *g, unsigned long long last_seen)
{
	long long newest = g->d.ring_k;
	long long k = newest - GWSIM_RING + 1;
	if (k < 1)
		k = 1;
	while (k <= newest && (g->d.ring[k % GWSIM_RING].k != k || sample_us(k) <= last_seen))
		k++;
	return k;
}

static nvmlReturn_t samples(const struct gwsim_gpu *g, nvmlSamplingType_t type, unsigned long long last_seen,
			    nvmlValueType_t *vt, unsigned int *count, nvmlSample_t *out)
{
	if (type < NVML_TOTAL_POWER_SAMPLES || type > NVML_OFA_UTILIZATION_SAMPLES || !vt || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*vt = NVML_VALUE_TYPE_UNSIGNED_INT;
	if (!out) {
		*count = GWSIM_RING;
		return NVML_SUCCESS;
	}
	long long k0 = first_new(g, last_seen);
	long long n = g->d.ring_k - k0 + 1;
	if (n <= 0)
		return NVML_ERROR_NOT_FOUND;
	if (*count < (unsigned int)n) {
		/* a short buffer gets the newest samples, as draining callers want */
		k0 = g->d.ring_k - *count + 1;
		n = *count;
	}
	for (long long i = 0; i < n; i++) {
		const struct gwsim_sample *s = &g->d.ring[(k0 + i) % GWSIM_RING];
		out[i].timeStamp = sample_us(k0 + i);
		out[i].sampleValue.ullVal = 0;
		out[i].sampleValue.uiVal = (unsigned int)lrintf(s->v[type]);
	}
	*count = (unsigned int)n;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetSamples,
	  (nvmlDevice_t d, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp, nvmlValueType_t *sampleValType,
	   unsigned int *sampleCount, nvmlSample_t *samples_out),
	  samples(g, type, lastSeenTimeStamp, sampleValType, sampleCount, samples_out))

/* A process's value of one engine over ring samples k0..k1: the mean of its
 * sequence (NAN entries skipped), else the GPU's mean times its share (sm,
 * mem), else no sample (NVML_VALUE_NOT_AVAILABLE_UINT, pmon's "-"). */
static unsigned int proc_engine(const struct gwsim_gpu *g, const struct gwsim_pseq *seq, double share, int type,
				long long k0, long long k1)
{
	double sum = 0;
	unsigned int n = 0;
	for (long long k = k0; k <= k1; k++) {
		double v;
		if (seq->n)
			v = seq->v[gwsim_seq_index((double)k / GWSIM_SAMPLE_HZ, seq->n)];
		else if (type >= 0 && share > 0)
			v = g->d.ring[k % GWSIM_RING].v[type] * share;
		else
			continue;
		if (isnan(v))
			continue;
		sum += v;
		n++;
	}
	return n ? (unsigned int)floor(sum / n + 0.5) : NVML_VALUE_NOT_AVAILABLE_UINT;
}

static nvmlReturn_t proc_util(const struct gwsim_gpu *g, nvmlProcessUtilizationSample_t *u, unsigned int *count,
			      unsigned long long last_seen)
{
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	long long k0 = first_new(g, last_seen);
	long long k1 = g->d.ring_k;
	nvmlProcessUtilizationSample_t v[GWSIM_MAX_PROCS];
	unsigned int np = 0;
	for (unsigned int i = 0; k0 <= k1 && i < g->nprocs; i++) {
		const struct gwsim_proc *p = &g->procs[i];
		if (!gwsim_proc_alive(p, g->d.t))
			continue;
		nvmlProcessUtilizationSample_t *s = &v[np];
		memset(s, 0, sizeof(*s));
		s->pid = p->pid;
		s->timeStamp = sample_us(k1);
		s->smUtil = proc_engine(g, &p->sm, p->sm_share, NVML_GPU_UTILIZATION_SAMPLES, k0, k1);
		s->memUtil = proc_engine(g, &p->mem, p->mem_share, NVML_MEMORY_UTILIZATION_SAMPLES, k0, k1);
		s->encUtil = proc_engine(g, &p->enc, 0, -1, k0, k1);
		s->decUtil = proc_engine(g, &p->dec, 0, -1, k0, k1);
		if (s->smUtil != NVML_VALUE_NOT_AVAILABLE_UINT || s->memUtil != NVML_VALUE_NOT_AVAILABLE_UINT ||
		    s->encUtil != NVML_VALUE_NOT_AVAILABLE_UINT || s->decUtil != NVML_VALUE_NOT_AVAILABLE_UINT)
			np++;
	}
	if (np == 0)
		return NVML_ERROR_NOT_FOUND;
	if (!u || *count < np) {
		*count = np;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	memcpy(u, v, np * sizeof(v[0]));
	*count = np;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetProcessUtilization,
	  (nvmlDevice_t d, nvmlProcessUtilizationSample_t *utilization, unsigned int *processSamplesCount,
	   unsigned long long lastSeenTimeStamp),
	  proc_util(g, utilization, processSamplesCount, lastSeenTimeStamp))

/* Process lists, 24-byte (v2/v3) or 16-byte (v1) records, with NVML's
 * INSUFFICIENT_SIZE protocol: a short buffer gets the needed count. */
static nvmlReturn_t procs(const struct gwsim_gpu *g, unsigned int type, unsigned int *count, nvmlProcessInfo_t *v3,
			  nvmlProcessInfo_v1_t *v1)
{
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	double t = g->d.t;
	unsigned int n = 0;
	for (unsigned int i = 0; i < g->nprocs; i++)
		n += gwsim_proc_alive(&g->procs[i], t) && (g->procs[i].type & type);
	if (n == 0) {
		*count = 0;
		return NVML_SUCCESS;
	}
	if (*count < n || (!v3 && !v1)) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	unsigned int j = 0;
	for (unsigned int i = 0; i < g->nprocs; i++) {
		const struct gwsim_proc *p = &g->procs[i];
		if (!gwsim_proc_alive(p, t) || !(p->type & type))
			continue;
		unsigned long long bytes = (unsigned long long)gwsim_proc_mem(p, t) * MIB;
		if (v3) {
			v3[j].pid = p->pid;
			v3[j].usedGpuMemory = bytes;
			v3[j].gpuInstanceId = p->on_mig ? p->gi : NVML_VALUE_NOT_AVAILABLE_UINT;
			v3[j].computeInstanceId = p->on_mig ? p->ci : NVML_VALUE_NOT_AVAILABLE_UINT;
		} else {
			v1[j].pid = p->pid;
			v1[j].usedGpuMemory = bytes;
		}
		j++;
	}
	*count = j;
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetComputeRunningProcesses_v3, (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos),
	  procs(g, GWSIM_PROC_COMPUTE, infoCount, infos, NULL))
GWSIM_DEV(nvmlDeviceGetComputeRunningProcesses_v2, (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos),
	  procs(g, GWSIM_PROC_COMPUTE, infoCount, infos, NULL))
GWSIM_DEV(nvmlDeviceGetComputeRunningProcesses, (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos),
	  procs(g, GWSIM_PROC_COMPUTE, infoCount, NULL, infos))
GWSIM_DEV(nvmlDeviceGetGraphicsRunningProcesses_v3, (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos),
	  procs(g, GWSIM_PROC_GRAPHICS, infoCount, infos, NULL))
GWSIM_DEV(nvmlDeviceGetGraphicsRunningProcesses_v2, (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos),
	  procs(g, GWSIM_PROC_GRAPHICS, infoCount, infos, NULL))
GWSIM_DEV(nvmlDeviceGetGraphicsRunningProcesses, (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos),
	  procs(g, GWSIM_PROC_GRAPHICS, infoCount, NULL, infos))
