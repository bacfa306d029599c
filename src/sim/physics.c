/*
 * physics.c - turning workload demand into clocks, power, temperature and
 * counters, consistently.
 *
 *   power   = idle + dynamic demand x (sm clock / max)^2   (V ~ f, P ~ V^2 f
 *             flattened: boards hold voltage near flat at the top bins)
 *   clocks  drop until power fits the enforced limit (SW power cap) and when
 *             the die passes its max operating temperature (SW thermal) or
 *             its slowdown threshold (HW thermal slowdown); the reason bits
 *             say which, and the violation counters accumulate while set;
 *   temp    first-order lag towards ambient + R x power (time constant tau);
 *   energy  the integral of power (mJ = mW x s).
 *
 * State is integrated lazily: a getter advances its GPU to "now" in steps
 * that end on the driver's sample boundaries (1/6 s), recording one sample
 * per boundary in the ring nvmlDeviceGetSamples drains. A gap longer than
 * 30 s (manual clock jumping hours) is crossed in 1 s steps first, so a day
 * costs ~86k cheap steps and the last 20 s still have every sample.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

#define COARSE_GAP 30.0  /* s: longer gaps use coarse steps */
#define COARSE_STEP 1.0  /* s */
#define AVG_WINDOW 1.0   /* s: nvmlDeviceGetPowerUsage averages over ~1 s */
#define LEAK_LIFE (6 * 3600.0) /* s */
#define THERMAL_BAD 2.4  /* thermal workload: impaired cooling multiplies R */

bool gwsim_pinned(const struct gwsim_gpu *g, enum gwsim_pin p)
{
	return (g->pins.mask >> p) & 1U;
}

int gwsim_seq_index(double t, unsigned int n)
{
	double i = ceil(t - 1e-9) - 1;
	if (n == 0 || i < 0)
		return 0;
	return i >= n ? (int)n - 1 : (int)i;
}

double gwsim_pin_at(const struct gwsim_gpu *g, enum gwsim_pin p, double t)
{
	return g->pins.v[p][gwsim_seq_index(t, g->pins.n[p])];
}

double gwsim_pin(const struct gwsim_gpu *g, enum gwsim_pin p)
{
	return gwsim_pin_at(g, p, g->d.t);
}

bool gwsim_proc_alive(const struct gwsim_proc *p, double t)
{
	return t >= p->start && (p->end <= p->start || t < p->end);
}

double gwsim_proc_mem(const struct gwsim_proc *p, double t)
{
	double m = p->mem_mib;
	/* A leaking job grows for one life (6 virtual hours), is OOM-killed and
	 * restarts with its initial footprint. */
	if (p->leak_mib_s > 0 && t > p->start)
		m += p->leak_mib_s * fmod(t - p->start, LEAK_LIFE);
	return floor(m);
}

static double round_clock(double mhz)
{
	/* clocks step in 15 MHz bins on every board we model */
	return floor(mhz / 15.0 + 0.5) * 15.0;
}

/* The chip's state for a given demand at the current temperature. */
static void state(const struct gwsim_gpu *g, const struct gwsim_load *l, double t, struct gwsim_now *n)
{
	const struct gwsim_static *st = &g->st;
	const struct gwsim_dyn *d = &g->d;
	memset(n, 0, sizeof(*n));
	n->load = *l;
	double temp = d->temp_c;
	bool busy = l->gpu > 0.005 || l->power > 0.01;
	double idle_mw = st->power_idle_mw;
	if (!busy) {
		n->clk_sm = st->clk_idle_sm;
		n->clk_mem = st->clk_idle_mem;
		n->clk_video = st->clk_idle_video;
		n->pstate = st->pstate_idle;
		n->reasons = nvmlClocksEventReasonGpuIdle;
		n->power_mw = idle_mw;
	} else {
		double limit = st->power_limit_mw;
		double dyn = (st->power_full_mw - idle_mw) * l->power;
		double c = 1.0;
		if (idle_mw + dyn > limit && dyn > 0) {
			c = cbrt((limit - idle_mw) / dyn);
			n->reasons |= nvmlClocksEventReasonSwPowerCap;
		}
		if (temp >= st->temp_slowdown) {
			c = fmin(c, 0.5);
			n->reasons |= nvmlClocksThrottleReasonHwSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown;
		} else if (temp > st->temp_gpu_max) {
			double ct = 1.0 - 0.08 * (temp - st->temp_gpu_max);
			if (ct < c) {
				c = ct;
				n->reasons |= nvmlClocksEventReasonSwThermalSlowdown;
			}
		}
		if (d->forced_reasons && t < d->forced_until) {
			c = fmin(c, 0.6);
			n->reasons |= d->forced_reasons;
		}
		double floor_c = (double)st->clk_idle_sm / st->clk_max_sm;
		if (c < floor_c)
			c = floor_c;
		n->clk_sm = (unsigned int)round_clock(st->clk_max_sm * c);
		if (n->clk_sm > st->clk_max_sm)
			n->clk_sm = st->clk_max_sm;
		double cf = (double)n->clk_sm / st->clk_max_sm;
		n->clk_mem = st->clk_busy_mem;
		n->clk_video = st->clk_busy_video;
		n->pstate = st->pstate_busy;
		n->power_mw = idle_mw + dyn * cf * cf * cf; /* f x V^2, the voltage scaling with the clock */
	}
	n->util_gpu = floor(100.0 * l->gpu + 0.5);
	n->util_mem = floor(100.0 * l->mem + 0.5);
	n->util_enc = floor(100.0 * l->enc + 0.5);
	n->util_dec = floor(100.0 * l->dec + 0.5);
	n->util_jpg = floor(100.0 * l->jpg + 0.5);
	n->util_ofa = floor(100.0 * l->ofa + 0.5);
	n->pcie_tx = l->pcie_tx;
	n->pcie_rx = l->pcie_rx;
	if (st->fans) {
		double f = st->fan_min_pct + (temp - 50.0) * 2.5;
		n->fan_pct = f < st->fan_min_pct ? st->fan_min_pct : f > 100 ? 100 : f;
	}
	double used = st->mem_base_mib;
	for (unsigned int i = 0; i < g->nprocs; i++)
		if (gwsim_proc_alive(&g->procs[i], t))
			used += gwsim_proc_mem(&g->procs[i], t);
	double cap = (double)st->mem_total_mib - st->mem_reserved_mib;
	n->mem_used_mib = used > cap ? cap : used;
	n->power_avg_mw = d->power_avg_mw;

	/* Pins win: a golden scenario fixes what the capture showed. */
	const struct gwsim_pins *p = &g->pins;
	if (p->mask) {
#define PIN(id, field)                                                                             \
	if ((p->mask >> GWSIM_PIN_##id) & 1U)                                                      \
		n->field = gwsim_pin_at(g, GWSIM_PIN_##id, t);
		PIN(POWER, power_mw)
		PIN(POWER_INSTANT, power_mw)
		PIN(UTIL_GPU, util_gpu)
		PIN(UTIL_MEM, util_mem)
		PIN(UTIL_ENC, util_enc)
		PIN(UTIL_DEC, util_dec)
		PIN(UTIL_JPG, util_jpg)
		PIN(UTIL_OFA, util_ofa)
		PIN(CLK_SM, clk_sm)
		PIN(CLK_MEM, clk_mem)
		PIN(CLK_VIDEO, clk_video)
		PIN(PSTATE, pstate)
		PIN(FAN, fan_pct)
		PIN(MEM_USED, mem_used_mib)
		PIN(PCIE_TX, pcie_tx)
		PIN(PCIE_RX, pcie_rx)
		PIN(POWER_AVG, power_avg_mw)
#undef PIN
		if (gwsim_pinned(g, GWSIM_PIN_REASONS))
			n->reasons = (unsigned long long)gwsim_pin_at(g, GWSIM_PIN_REASONS, t);
		if (gwsim_pinned(g, GWSIM_PIN_POWER) && !gwsim_pinned(g, GWSIM_PIN_POWER_AVG))
			n->power_avg_mw = gwsim_pin_at(g, GWSIM_PIN_POWER, t);
	}
	/* Spikes win over pins: a short excursion a test puts between two polls. */
	double *spiked[GWSIM_SPIKE__COUNT] = {&n->util_gpu, &n->util_mem, &n->power_mw};
	for (int i = 0; i < GWSIM_SPIKE__COUNT; i++)
		if (t >= d->spike_from[i] && t < d->spike_until[i])
			*spiked[i] = d->spike_v[i];
}

static void record(struct gwsim_gpu *g, long long k, const struct gwsim_now *n)
{
	struct gwsim_sample *s = &g->d.ring[k % GWSIM_RING];
	s->k = k;
	s->v[NVML_TOTAL_POWER_SAMPLES] = (float)n->power_mw;
	s->v[NVML_GPU_UTILIZATION_SAMPLES] = (float)n->util_gpu;
	s->v[NVML_MEMORY_UTILIZATION_SAMPLES] = (float)n->util_mem;
	s->v[NVML_ENC_UTILIZATION_SAMPLES] = (float)n->util_enc;
	s->v[NVML_DEC_UTILIZATION_SAMPLES] = (float)n->util_dec;
	s->v[NVML_PROCESSOR_CLK_SAMPLES] = (float)n->clk_sm;
	s->v[NVML_MEMORY_CLK_SAMPLES] = (float)n->clk_mem;
	s->v[NVML_MODULE_POWER_SAMPLES] = (float)n->power_mw;
	s->v[NVML_JPG_UTILIZATION_SAMPLES] = (float)n->util_jpg;
	s->v[NVML_OFA_UTILIZATION_SAMPLES] = (float)n->util_ofa;
	g->d.ring_k = k;
}

/*
 * The throughput model: tokens a second of the job on g in state n. A step's
 * time is a compute part that runs at the SM clock and a memory-bound part
 * (st->mem_bound of it at full clocks) that runs at the memory clock, so
 * speed = 1 / ((1 - m) / f_sm + m / f_mem). Power falls with the square of
 * the SM clock under a cap and throughput less than linearly, which is why
 * a lower power limit buys tokens per joule at a cost in tokens a second.
 */
double gwsim_tokens_rate(const struct gwsim_gpu *g, const struct gwsim_now *n)
{
	const struct gwsim_static *st = &g->st;
	if (n->load.work <= 0 || st->tokens_per_s <= 0 || !st->clk_max_sm || !n->clk_sm)
		return 0;
	double fs = (double)n->clk_sm / st->clk_max_sm;
	double fm = st->clk_busy_mem && n->clk_mem ? (double)n->clk_mem / st->clk_busy_mem : 1.0;
	double m = st->mem_bound;
	return st->tokens_per_s * n->load.work / ((1.0 - m) / fs + m / (fm > 0 ? fm : 1.0));
}

static void integrate(struct gwsim_gpu *g, double t0, double t1)
{
	struct gwsim_dyn *d = &g->d;
	const struct gwsim_static *st = &g->st;
	double dt = t1 - t0;
	if (dt <= 0)
		return;
	struct gwsim_load l;
	struct gwsim_now n;
	gwsim_workload_eval(g, 0.5 * (t0 + t1), &l);
	state(g, &l, 0.5 * (t0 + t1), &n);
	double p = n.power_mw;
	d->energy_mj += p * dt;
	d->tokens += gwsim_tokens_rate(g, &n) * dt;
	double r = st->thermal_r * (g->wl == GWSIM_WL_THERMAL ? THERMAL_BAD : 1.0);
	double a = 1.0 - exp(-dt / st->thermal_tau);
	d->temp_c += (st->temp_ambient + r * p / 1000.0 - d->temp_c) * a;
	d->mem_temp_c += (st->mem_temp_base + st->mem_temp_r * p / 1000.0 - d->mem_temp_c) * a;
	if (gwsim_pinned(g, GWSIM_PIN_TEMP))
		d->temp_c = gwsim_pin_at(g, GWSIM_PIN_TEMP, t1);
	d->power_avg_mw += (p - d->power_avg_mw) * (1.0 - exp(-dt / AVG_WINDOW));
	double ns = dt * 1e9;
	if (n.reasons & nvmlClocksEventReasonSwPowerCap)
		d->viol_ns[0] += ns;
	if (n.reasons & (nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown))
		d->viol_ns[1] += ns;
	if (n.reasons & nvmlClocksEventReasonSyncBoost)
		d->viol_ns[2] += ns;
	if (n.reasons & nvmlClocksEventReasonSwThermalSlowdown)
		d->viol_ns[3] += ns;
	if (n.reasons & nvmlClocksThrottleReasonHwThermalSlowdown)
		d->viol_ns[4] += ns;
	if (n.reasons & nvmlClocksThrottleReasonHwPowerBrakeSlowdown)
		d->viol_ns[5] += ns;
	/* GPM counts work done: activity scales with the clock actually run */
	double cf = (double)n.clk_sm / st->clk_max_sm;
	d->gpm_gr += l.gpu * dt;
	d->gpm_sm += l.sm * dt;
	d->gpm_occ += l.occ * dt;
	d->gpm_tensor += l.tensor * dt * cf;
	d->gpm_dram += l.dram * dt;
	d->gpm_fp16 += l.fp16 * dt * cf;
	d->gpm_fp32 += l.fp32 * dt * cf;
	d->gpm_fp64 += l.fp64 * dt * cf;
	d->gpm_pcie_tx += n.pcie_tx * 1000.0 * dt;
	d->gpm_pcie_rx += n.pcie_rx * 1000.0 * dt;
	d->gpm_nvl_tx += l.nvlink * dt;
	d->gpm_nvl_rx += l.nvlink * dt;
	d->t = t1;
}

void gwsim_warm_start(struct gwsim_gpu *g, double t, double uptime_s)
{
	struct gwsim_dyn *d = &g->d;
	const struct gwsim_static *st = &g->st;
	struct gwsim_load l;
	struct gwsim_now n;
	gwsim_workload_eval(g, t, &l);
	state(g, &l, t, &n);
	double p = n.power_mw;
	double r = st->thermal_r * (g->wl == GWSIM_WL_THERMAL ? THERMAL_BAD : 1.0);
	d->t = t;
	d->temp_c = st->temp_ambient + r * p / 1000.0;
	d->mem_temp_c = st->mem_temp_base + st->mem_temp_r * p / 1000.0;
	if (gwsim_pinned(g, GWSIM_PIN_TEMP))
		d->temp_c = gwsim_pin_at(g, GWSIM_PIN_TEMP, t);
	d->power_avg_mw = p;
	d->energy_mj = p * uptime_s; /* mW * s = mJ: as if it had drawn this since the driver loaded */
}

void gwsim_advance(struct gwsim_gpu *g, double t)
{
	struct gwsim_dyn *d = &g->d;
	if (t < d->t)
		t = d->t;
	gwsim_faults_apply(g, t);
	if (t - d->t > COARSE_GAP) {
		double coarse_end = t - 20.0;
		while (d->t < coarse_end)
			integrate(g, d->t, fmin(d->t + COARSE_STEP, coarse_end));
	}
	while (d->t < t) {
		long long k = (long long)floor(d->t * GWSIM_SAMPLE_HZ) + 1;
		double tb = (double)k / GWSIM_SAMPLE_HZ;
		if (tb <= t) {
			integrate(g, d->t, tb);
			d->t = tb;
			struct gwsim_load l;
			struct gwsim_now n;
			gwsim_workload_eval(g, tb, &l);
			state(g, &l, tb, &n);
			record(g, k, &n);
		} else {
			integrate(g, d->t, t);
		}
	}
	struct gwsim_load l;
	gwsim_workload_eval(g, t, &l);
	state(g, &l, t, &d->now);
}
