/*
 * config.c - the simulator's single state, gwsim_configure() and the fleet
 * builder shared by the short-form spec and the scenario parser.
 *
 * gwsim_configure() is the first thing the binding calls: it resets the
 * state, parses SPEC (short form "8xH200:training" or a scenario file), then
 * fills in what the spec left open (serials, UUIDs, bus ids derived from the
 * seed; default processes for each workload) so the fleet is complete before
 * nvmlInit.
 */
#include "sim.h"

#include <stddef.h>
#include "gwsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

struct gwsim_sim gwsim = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* What current drivers answer for calls NVIDIA retired (see the captures:
 * "[Requested functionality has been deprecated]"). */
#define GWSIM_DEFAULT_RETS                                                                         \
	"nvmlDeviceGetDisplayMode=26,nvmlDeviceGetPowerManagementMode=26,"                         \
	"nvmlDeviceGetApplicationsClock=26,nvmlDeviceGetDefaultApplicationsClock=26,"              \
	"nvmlDeviceGetGpuOperationMode=3,"

/* A DGX H100/H200 board's PCI buses, in nvidia-smi order. */
static const unsigned int dgx_bus[8] = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};

static const struct {
	const char *name;
	enum gwsim_workload wl;
} workloads[] = {
	{"idle", GWSIM_WL_IDLE},         {"training", GWSIM_WL_TRAINING}, {"train", GWSIM_WL_TRAINING},
	{"inference", GWSIM_WL_INFERENCE}, {"serve", GWSIM_WL_INFERENCE}, {"leak", GWSIM_WL_LEAK},
	{"thermal", GWSIM_WL_THERMAL},   {"powercap", GWSIM_WL_POWERCAP}, {"burn", GWSIM_WL_BURN},
	{"offload", GWSIM_WL_OFFLOAD},
};

static const struct {
	const char *name;
	nvmlReturn_t ret;
} rets[] = {
	{"SUCCESS", NVML_SUCCESS},
	{"UNINITIALIZED", NVML_ERROR_UNINITIALIZED},
	{"INVALID_ARGUMENT", NVML_ERROR_INVALID_ARGUMENT},
	{"NOT_SUPPORTED", NVML_ERROR_NOT_SUPPORTED},
	{"NO_PERMISSION", NVML_ERROR_NO_PERMISSION},
	{"ALREADY_INITIALIZED", NVML_ERROR_ALREADY_INITIALIZED},
	{"NOT_FOUND", NVML_ERROR_NOT_FOUND},
	{"INSUFFICIENT_SIZE", NVML_ERROR_INSUFFICIENT_SIZE},
	{"INSUFFICIENT_POWER", NVML_ERROR_INSUFFICIENT_POWER},
	{"DRIVER_NOT_LOADED", NVML_ERROR_DRIVER_NOT_LOADED},
	{"TIMEOUT", NVML_ERROR_TIMEOUT},
	{"IRQ_ISSUE", NVML_ERROR_IRQ_ISSUE},
	{"LIBRARY_NOT_FOUND", NVML_ERROR_LIBRARY_NOT_FOUND},
	{"FUNCTION_NOT_FOUND", NVML_ERROR_FUNCTION_NOT_FOUND},
	{"CORRUPTED_INFOROM", NVML_ERROR_CORRUPTED_INFOROM},
	{"GPU_IS_LOST", NVML_ERROR_GPU_IS_LOST},
	{"RESET_REQUIRED", NVML_ERROR_RESET_REQUIRED},
	{"OPERATING_SYSTEM", NVML_ERROR_OPERATING_SYSTEM},
	{"LIB_RM_VERSION_MISMATCH", NVML_ERROR_LIB_RM_VERSION_MISMATCH},
	{"IN_USE", NVML_ERROR_IN_USE},
	{"MEMORY", NVML_ERROR_MEMORY},
	{"NO_DATA", NVML_ERROR_NO_DATA},
	{"INSUFFICIENT_RESOURCES", NVML_ERROR_INSUFFICIENT_RESOURCES},
	{"ARGUMENT_VERSION_MISMATCH", NVML_ERROR_ARGUMENT_VERSION_MISMATCH},
	{"DEPRECATED", NVML_ERROR_DEPRECATED},
	{"NOT_READY", NVML_ERROR_NOT_READY},
	{"GPU_NOT_FOUND", NVML_ERROR_GPU_NOT_FOUND},
	{"INVALID_STATE", NVML_ERROR_INVALID_STATE},
	{"UNKNOWN", NVML_ERROR_UNKNOWN},
};

/* splitmix64 finaliser: every "random" value is a pure function of the seed
 * and what it describes, so any instant can be evaluated on its own. */
uint64_t gwsim_hash(uint64_t a, uint64_t b)
{
	uint64_t z = a * 0x9E3779B97F4A7C15ULL + b + 0x632BE59BD9B4E019ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

double gwsim_unit(uint64_t a, uint64_t b)
{
	return (double)(gwsim_hash(a, b) >> 11) / 9007199254740992.0;
}

int gwsim_workload_parse(const char *s, enum gwsim_workload *out)
{
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		if (strcasecmp(s, workloads[i].name) == 0) {
			*out = workloads[i].wl;
			return 0;
		}
	}
	return -1;
}

int gwsim_ret_parse(const char *s, nvmlReturn_t *out)
{
	const char *p = s;
	if (strncasecmp(p, "NVML_ERROR_", 11) == 0)
		p += 11;
	else if (strncasecmp(p, "NVML_", 5) == 0)
		p += 5;
	for (size_t i = 0; i < sizeof(rets) / sizeof(rets[0]); i++) {
		if (strcasecmp(p, rets[i].name) == 0) {
			*out = rets[i].ret;
			return 0;
		}
	}
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0 && v <= NVML_ERROR_UNKNOWN) { /* 999, the largest code NVML has */
		*out = (nvmlReturn_t)v;
		return 0;
	}
	return -1;
}

const char *gwsim_ret_name(nvmlReturn_t r)
{
	for (size_t i = 0; i < sizeof(rets) / sizeof(rets[0]); i++)
		if (rets[i].ret == r)
			return rets[i].name;
	return "UNKNOWN";
}

void gwsim_reset(void)
{
	struct gwsim_sim *s = &gwsim;
	/* The lock and the condition variable survive a reset (a waiter may hold them). The state is
	 * ~1 MB of zeroed bss at load: clearing it untouched costs page faults, not work. */
	const size_t keep = offsetof(struct gwsim_sim, configured);
	if (s->dirty)
		memset((char *)s + keep, 0, sizeof(*s) - keep);
	s->dirty = true;
	s->seed = 1;
	snprintf(s->driver, sizeof(s->driver), "590.48.01");
	s->nvml[0] = '\0';
	s->cuda = 13010;
	s->clock_mode = GWSIM_CLOCK_REAL;
	s->speed = 1.0;
	s->epoch_us = -1;
}

int gwsim_fleet_add(const char *model, const char *workload, unsigned int count, char *err, size_t errlen)
{
	const struct gwsim_model *m = gwsim_model_find(model);
	if (!m) {
		char known[256];
		gwsim_model_list(known, sizeof(known));
		snprintf(err, errlen, "unknown GPU model \"%s\" (known: %s)", model, known);
		return -1;
	}
	enum gwsim_workload wl = GWSIM_WL_IDLE;
	if (workload && *workload && gwsim_workload_parse(workload, &wl) != 0) {
		snprintf(err, errlen,
			 "unknown workload \"%s\" (known: idle, training, inference, leak, thermal, powercap, burn, offload)",
			 workload);
		return -1;
	}
	if (count == 0 || gwsim.ngpus + count > GWSIM_MAX_GPUS) {
		snprintf(err, errlen, "GPU count must be 1..%d in all", GWSIM_MAX_GPUS);
		return -1;
	}
	/* GPUs added together form one job (one training run spans them). */
	unsigned int job = gwsim.ngpus + 1;
	for (unsigned int i = 0; i < count; i++) {
		struct gwsim_gpu *g = &gwsim.gpus[gwsim.ngpus];
		memset(g, 0, sizeof(*g));
		g->index = gwsim.ngpus++;
		g->model = m;
		g->st = m->st;
		snprintf(g->rets, sizeof(g->rets), ",%s%s", GWSIM_DEFAULT_RETS, m->rets);
		g->wl = wl;
		g->wl_scale = 1.0;
		g->job = job;
		g->h.remap_hist[0] = m->st.remap_banks;
	}
	return 0;
}

/* host=: a name as a DNS label allows (letters, digits, '-', '.', '_'), 1..63 characters. */
int gwsim_host_set(const char *v, char *err, size_t errlen)
{
	size_t n = strlen(v);
	bool ok = n > 0 && n < GWSIM_HOST_MAX;
	for (size_t i = 0; ok && i < n; i++)
		ok = (v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9') ||
		     v[i] == '-' || v[i] == '.' || v[i] == '_';
	if (!ok) {
		snprintf(err, errlen, "host = \"%.80s\" is not a host name (1..%d of a-z, 0-9, '-', '.', '_')", v,
			 GWSIM_HOST_MAX - 1);
		return -1;
	}
	memcpy(gwsim.host, v, n + 1);
	return 0;
}

/* FNV-1a: folds a name into the identity hash. */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * Identity and state nobody set explicitly. The UUID is a function of
 * (seed, host, model, index): the same spec gives the same UUIDs on every
 * run, while an H200 and an A100 at the same index, or the same board on
 * two simulated hosts, never share one (a store or a Prometheus telling
 * GPUs apart by UUID would merge them). Serials keep (seed, index).
 */
static void fill_identity(struct gwsim_gpu *g)
{
	uint64_t h = gwsim_hash(gwsim.seed, 1000 + g->index);
	struct gwsim_static *st = &g->st;
	uint64_t u = gwsim_hash(h ^ str_hash(g->model->key), str_hash(gwsim.host));
	if (!st->uuid[0])
		snprintf(st->uuid, sizeof(st->uuid), "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned int)(u >> 32),
			 (unsigned int)(u >> 16) & 0xFFFF, 0x4000 | ((unsigned int)u & 0x0FFF),
			 0x8000 | ((unsigned int)(u >> 48) & 0x3FFF),
			 (unsigned long long)(gwsim_hash(u, 7) & 0xFFFFFFFFFFFFULL));
	/* Boards without a serial (GeForce) keep it empty: NOT_SUPPORTED. */
	if (!st->serial[0] && st->ecc)
		snprintf(st->serial, sizeof(st->serial), "16%011llu",
			 (unsigned long long)(gwsim_hash(h, 11) % 100000000000ULL));
	if (!st->bus_id[0]) {
		unsigned int i = g->index;
		unsigned int bus = gwsim.ngpus == 1 ? 0x01 : dgx_bus[i % 8];
		if (gwsim.ngpus > 1 && !st->ecc) /* workstation cards: consecutive slots */
			bus = 0x01 + i;
		snprintf(st->bus_id, sizeof(st->bus_id), "%08X:%02X:00.0", i / 8, bus);
	}
	/* A DGX H100/H200 host: two sockets of 56 cores with SMT, the first
	 * half of the GPUs on node 0. A scenario names both or neither. */
	if (!st->cpu_affinity[0]) {
		st->numa_node = gwsim.ngpus > 1 && g->index >= (gwsim.ngpus + 1) / 2;
		snprintf(st->cpu_affinity, sizeof(st->cpu_affinity), "%s",
			 st->numa_node ? "56-111,168-223" : "0-55,112-167");
	}
	if (!st->minor)
		st->minor = g->index;
	if (!st->power_limit_mw)
		st->power_limit_mw = st->power_default_mw;
}

/*
 * A real-clock fleet without a pinned epoch starts "warm": as if its
 * workloads had been running for a while (10 min plus the position in the
 * current hour, so two processes a minute apart see the same fleet a minute
 * apart), each GPU in the thermal steady state of its load and its energy
 * counter as after a few days of uptime. Without this every one-shot
 * `smi` would show the first second of a cold start.
 */
#define WARM_BASE_S 600.0
#define WARM_UPTIME_S (3 * 86400.0)

static void warm_start(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double w = WARM_BASE_S + fmod((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9, 3600.0);
	gwsim.t_offset = w;
	gwsim.epoch_us -= w * 1e6; /* epoch + t stays the wall clock */
	for (unsigned int i = 0; i < gwsim.ngpus; i++)
		gwsim_warm_start(&gwsim.gpus[i], w, WARM_UPTIME_S + w);
	/* The scenario's fault times count from the start of the run, as written:
	 * "fault = 2s xid 79" happens two seconds in, not before it began. */
	for (unsigned int i = 0; i < gwsim.nfaults; i++)
		gwsim.faults[i].at += w;
	for (unsigned int i = 0; i < gwsim.nrules; i++) {
		gwsim.rules[i].from += w;
		if (gwsim.rules[i].until >= 0)
			gwsim.rules[i].until += w;
	}
}

void gwsim_fleet_finish(void)
{
	bool warm = gwsim.clock_mode == GWSIM_CLOCK_REAL && gwsim.epoch_us < 0;
	if (gwsim.epoch_us < 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		gwsim.epoch_us = (double)ts.tv_sec * 1e6 + (double)(ts.tv_nsec / 1000);
	}
	if (!gwsim.nvml[0]) {
		/* NVML's version is the driver's first two components: 590.48.01 -> 590.48 */
		snprintf(gwsim.nvml, sizeof(gwsim.nvml), "%s", gwsim.driver);
		char *dot = strchr(gwsim.nvml, '.');
		if (dot && (dot = strchr(dot + 1, '.')))
			*dot = '\0';
	}
	for (unsigned int i = 0; i < gwsim.ngpus; i++) {
		struct gwsim_gpu *g = &gwsim.gpus[i];
		fill_identity(g);
		g->wl_phase = 3.0 * gwsim_unit(gwsim.seed, 2000 + g->job);
		gwsim_workload_procs(g);
		struct gwsim_dyn *d = &g->d;
		d->t = 0;
		d->temp_c = g->st.temp_ambient + g->st.thermal_r * g->st.power_idle_mw / 1000.0;
		d->mem_temp_c = g->st.mem_temp_base + g->st.mem_temp_r * g->st.power_idle_mw / 1000.0;
		d->power_avg_mw = g->st.power_idle_mw;
		d->clk_factor = 1.0;
		if (gwsim_pinned(g, GWSIM_PIN_TEMP))
			d->temp_c = gwsim_pin(g, GWSIM_PIN_TEMP);
		d->ring_k = -1;
	}
	gwsim.mono0 = gwsim_mono();
	if (warm)
		warm_start();
	gwsim.configured = true;
}

/* Values that are each in range but together would wrap NVML's unsigned
 * arithmetic (free = total - reserved - used) or divide by nothing. */
static int check_fleet(char *err, size_t elen)
{
	for (unsigned int i = 0; i < gwsim.ngpus; i++) {
		const struct gwsim_static *st = &gwsim.gpus[i].st;
		if ((unsigned long long)st->mem_reserved_mib + st->mem_base_mib > st->mem_total_mib) {
			snprintf(err, elen, "GPU %u: mem_reserved_mib %u + mem_base_mib %u exceed mem_total_mib %u", i,
				 st->mem_reserved_mib, st->mem_base_mib, st->mem_total_mib);
			return -1;
		}
		if (st->bar1_used_mib > st->bar1_total_mib) {
			snprintf(err, elen, "GPU %u: bar1_used_mib %u exceeds bar1_total_mib %u", i, st->bar1_used_mib,
				 st->bar1_total_mib);
			return -1;
		}
		if (st->clk_idle_sm > st->clk_max_sm) {
			snprintf(err, elen, "GPU %u: clock_idle_sm_mhz %u exceeds clock_max_sm_mhz %u", i, st->clk_idle_sm,
				 st->clk_max_sm);
			return -1;
		}
	}
	return 0;
}

static int is_file(const char *spec)
{
	struct stat sb;
	return stat(spec, &sb) == 0 && S_ISREG(sb.st_mode);
}

GWSIM_EXPORT int gwsim_configure(const char *spec, char *errbuf, unsigned int errlen)
{
	char local[GWSIM_ERRLEN];
	char *err = errbuf && errlen ? errbuf : local;
	size_t elen = errbuf && errlen ? errlen : sizeof(local);
	err[0] = '\0';
	pthread_mutex_lock(&gwsim.lock);
	gwsim_reset();
	int rc;
	if (!spec || !*spec) {
		snprintf(err, elen, "empty simulator spec (try 8xH200 or a scenario file)");
		rc = -1;
	} else if (is_file(spec)) {
		rc = gwsim_scenario_load(spec, err, elen);
	} else if (strchr(spec, '/') || strstr(spec, ".scn")) {
		snprintf(err, elen, "cannot open scenario file %s", spec);
		rc = -1;
	} else {
		rc = gwsim_spec_parse(spec, err, elen);
	}
	if (rc == 0)
		rc = check_fleet(err, elen);
	if (rc == 0 && gwsim.ngpus == 0 && gwsim.init_error == NVML_SUCCESS) {
		snprintf(err, elen, "the scenario defines no GPUs");
		rc = -1;
	}
	if (rc == 0)
		gwsim_fleet_finish();
	else
		gwsim_reset();
	pthread_mutex_unlock(&gwsim.lock);
	return rc;
}

GWSIM_EXPORT int gwsim_symbol_missing(const char *name)
{
	int missing = 0;
	pthread_mutex_lock(&gwsim.lock);
	for (unsigned int i = 0; i < gwsim.nmissing && !missing; i++)
		missing = strcmp(gwsim.missing[i], name) == 0;
	pthread_mutex_unlock(&gwsim.lock);
	return missing;
}

GWSIM_EXPORT int gwsim_is_simulated(void)
{
	return 1;
}
