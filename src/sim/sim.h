/*
 * sim.h - internals of the GPU simulator (libgpuwatch-sim.so).
 *
 * The simulator is an NVML implementation. One process loads it once, so its
 * state is the single instance `gwsim` (struct gwsim_sim), the one mutable
 * global a shared library that stands in for a driver genuinely needs. Every
 * exported NVML function takes gwsim.lock through gwsim_enter() and releases
 * it in gwsim_leave(); nothing else touches the state without the lock.
 *
 * Layout of the model:
 *   - struct gwsim_static: everything that does not move (names, ids, limits,
 *     max clocks, modes). Copied from the model table at configure time and
 *     then overridden by the scenario, so captures can be reproduced exactly.
 *   - struct gwsim_pins: dynamic values a scenario fixes for golden tests.
 *   - struct gwsim_dyn: the physical state integrated over virtual time
 *     (temperature, energy, violation counters, GPM integrals) and the
 *     snapshot "now" every getter reads.
 *
 * Time is virtual seconds since configure (double); NVML timestamps are
 * epoch_us + t * 1e6.
 */
#ifndef GWSIM_SIM_H
#define GWSIM_SIM_H

#include "nvml/nvml_api.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GWSIM_EXPORT __attribute__((visibility("default")))

#define GWSIM_MAX_GPUS 64
#define GWSIM_MAX_PROCS 16 /* per GPU */
#define GWSIM_MAX_FAULTS 256
#define GWSIM_MAX_RULES 64 /* fail/timeout/unsupported rules */
#define GWSIM_MAX_SETS 16
#define GWSIM_EVQ_LEN 64
#define GWSIM_MAX_MISSING 32
#define GWSIM_MAX_RETIRED 64
#define GWSIM_RING 120                 /* driver-side samples kept: 20 s */
#define GWSIM_SAMPLE_HZ 6.0            /* driver samples per second */
#define GWSIM_ERRLEN 256
#define GWSIM_SEQ_MAX 16               /* values in one time-sequenced pin */
#define GWSIM_STEP_GAP 0.2             /* s of real silence that ends a poll (step clock) */
/* Virtual seconds per real second. A real clock integrates one step per
 * virtual second per GPU to catch up: 64 GPUs keep up at 10,000 (a day in
 * 9 s) and fall behind for good at 100,000, so every call waits longer. */
#define GWSIM_SPEED_MIN 0.001
#define GWSIM_SPEED_MAX 10000.0
/* Times a scenario names (faults, process start and end): up to 10 years. */
#define GWSIM_T_MAX (3650.0 * 86400.0)
/* Epochs: 1970 up to 2200-01-01, where microseconds since 1970 still fit a
 * double exactly (2^53 us is the year 2255). */
#define GWSIM_EPOCH_MAX_S 7258118400.0

/* ---- workloads ----------------------------------------------------------- */
enum gwsim_workload {
	GWSIM_WL_IDLE,
	GWSIM_WL_TRAINING,
	GWSIM_WL_INFERENCE,
	GWSIM_WL_LEAK,
	GWSIM_WL_THERMAL,
	GWSIM_WL_POWERCAP,
	GWSIM_WL_BURN, /* constant full load (gpu-burn), what the captures ran */
	GWSIM_WL_OFFLOAD, /* training with its optimizer on the host: PCIe full, the GPU waiting on it */
	GWSIM_WL__COUNT
};

/* What the running kernels ask of the chip at one instant; all 0..1 except
 * where a unit is given. */
struct gwsim_load {
	double gpu;     /* fraction of the period any kernel ran */
	double mem;     /* fraction of the period memory was read/written */
	double sm;      /* SM activity (GPM) */
	double occ;     /* SM occupancy (GPM) */
	double tensor;  /* tensor pipe activity */
	double dram;    /* DRAM bandwidth utilisation */
	double fp16, fp32, fp64;
	double enc, dec, jpg, ofa;
	double pcie_tx, pcie_rx; /* KB/s */
	double nvlink;           /* bytes/s per direction, whole GPU */
	double power;            /* dynamic power demand at max clock, 0..1 */
	double mem_mib;          /* extra process memory the workload holds now */
	double work;             /* share of the board's token rate the job is making (training steps), 0..1 */
};

/* ---- static description of one board ------------------------------------ */
struct gwsim_static {
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	char serial[NVML_DEVICE_SERIAL_BUFFER_SIZE]; /* "" = not supported */
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	char vbios[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
	char board_part[NVML_DEVICE_PART_NUMBER_BUFFER_SIZE]; /* "" = N/A */
	char inforom_img[NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE];
	char inforom_oem[NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE];
	char inforom_ecc[NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE]; /* "" = N/A */
	char inforom_pwr[NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE]; /* "" = N/A */
	unsigned int arch, cc_major, cc_minor;
	unsigned int minor;
	unsigned int pci_device_id, pci_subsys_id; /* device<<16 | vendor */
	unsigned int pcie_gen, pcie_gen_idle, pcie_gen_max, pcie_width, pcie_width_max;
	unsigned int mem_total_mib, mem_reserved_mib, bar1_total_mib, bar1_used_mib;
	unsigned int power_default_mw, power_min_mw, power_max_mw, power_limit_mw;
	unsigned int power_idle_mw, power_full_mw; /* draw idle / at full load and max clock */
	/* throughput model (physics.c): tokens a second of a training step at full clocks, and the
	 * share of a step's time bound by memory bandwidth (scales with the memory clock, not the SM's) */
	double tokens_per_s, mem_bound;
	unsigned int clk_max_sm, clk_max_mem, clk_max_video;    /* MHz */
	unsigned int clk_idle_sm, clk_idle_mem, clk_idle_video; /* MHz */
	unsigned int clk_busy_video, clk_busy_mem;              /* MHz */
	unsigned int clk_app_sm, clk_app_mem;                   /* default app clocks, MHz */
	unsigned int pstate_idle, pstate_busy;
	unsigned int temp_shutdown, temp_slowdown, temp_gpu_max, temp_mem_max, temp_target; /* C */
	double temp_ambient;  /* C: where the die settles at 0 W */
	double thermal_r;     /* C per W */
	double thermal_tau;   /* s */
	double mem_temp_base, mem_temp_r; /* HBM: C at 0 W, C per W of board power */
	unsigned int has_mem_temp;
	unsigned int fans, fan_min_pct;
	unsigned int nvlinks;
	unsigned int nvlink_inactive; /* links after the active ones that are down (no bridge fitted) */
	double nvlink_gbps; /* GB/s per link per direction */
	char cpu_affinity[128]; /* CPU list "0-55,112-167"; "" = derived from the fleet */
	unsigned int numa_node; /* the NUMA node of those CPUs and of the GPU's memory affinity */
	unsigned int ecc, mig_capable, mig_mode, gpm, persistence, display_active, display_mode;
	unsigned int accounting, accounting_buffer, compute_mode, gsp;
	unsigned int retired_pages, remap, remap_banks;
	unsigned long long supported_reasons;
	unsigned int mem_base_mib; /* used memory no process owns (display, driver) */
	unsigned int mem_free_extra_mib; /* free beyond total - reserved - used + 1 (GeForce captures: 1) */
	unsigned int enc_supported;
	/* what `smi -q` shows beyond the monitoring values (nvml_query.c) */
	unsigned int brand;             /* NVML_BRAND_* */
	unsigned long long pdi;         /* 0: derived from the UUID */
	unsigned int multi_gpu_board, module_id, board_id; /* board_id 0: bus << 8 | device */
	unsigned int addressing;        /* NVML_DEVICE_ADDRESSING_MODE_* */
	unsigned int virt_mode;         /* NVML_GPU_VIRTUALIZATION_MODE_* */
	unsigned int c2c;               /* has a C2C link to report on (disabled) */
	unsigned int pci_base_class, pci_sub_class;
	char gpu_part[NVML_DEVICE_PART_NUMBER_BUFFER_SIZE]; /* "" = N/A */
	unsigned int pcie_gen_host_max; /* 0 = N/A */
	unsigned int atomics_out, atomics_in; /* PCIe atomic caps masks; 0 = N/A */
	unsigned int tlimit;            /* thresholds reported relative to T.Limit */
	unsigned int mem_power;         /* HBM power is metered */
	unsigned int fabric;            /* NVLink fabric registration (Hopper SXM) */
	unsigned int sparse;            /* sparse operation mode is reported */
	unsigned int edpp;              /* EDPp multiplier is reported */
	unsigned int repair;            /* channel/TPC repair status */
	unsigned int unrepairable;      /* unrepairable-memory flag is reported */
};

/* One entry of the model table. */
struct gwsim_model {
	const char *key;     /* "H200" */
	const char *aliases; /* ",h200,nvidia h200,": lower case, comma framed */
	const char *rets;    /* "nvmlDeviceGetFanSpeed=3,...": calls this board answers with a code */
	struct gwsim_static st;
};

/* ---- pinned dynamic values ---------------------------------------------- */
#define GWSIM_PIN_LIST(X)                                                              \
	X(TEMP, "temp_c")                                                              \
	X(MEM_TEMP, "mem_temp_c")                                                      \
	X(POWER, "power_mw")                                                           \
	X(POWER_AVG, "power_avg_mw")                                                   \
	X(POWER_INSTANT, "power_instant_mw")                                           \
	X(ENERGY, "energy_mj")                                                         \
	X(UTIL_GPU, "util_gpu")                                                        \
	X(UTIL_MEM, "util_mem")                                                        \
	X(UTIL_ENC, "util_enc")                                                        \
	X(UTIL_DEC, "util_dec")                                                        \
	X(UTIL_JPG, "util_jpg")                                                        \
	X(UTIL_OFA, "util_ofa")                                                        \
	X(CLK_SM, "clock_sm_mhz")                                                      \
	X(CLK_GFX, "clock_gfx_mhz")                                                    \
	X(CLK_MEM, "clock_mem_mhz")                                                    \
	X(CLK_VIDEO, "clock_video_mhz")                                                \
	X(PSTATE, "pstate")                                                            \
	X(FAN, "fan_pct")                                                              \
	X(MEM_USED, "mem_used_mib")                                                    \
	X(REASONS, "clock_reasons")                                                    \
	X(PCIE_TX, "pcie_tx_kbs")                                                      \
	X(PCIE_RX, "pcie_rx_kbs")                                                      \
	X(PCIE_GEN, "pcie_gen_now")                                                    \
	X(VIOL_POWER, "viol_power_ns")                                                 \
	X(VIOL_THERMAL, "viol_thermal_ns")                                             \
	X(VIOL_SYNC, "viol_sync_boost_ns")                                             \
	X(VIOL_SW_THERM, "viol_sw_thermal_ns")                                         \
	X(VIOL_HW_THERM, "viol_hw_thermal_ns")                                         \
	X(VIOL_HW_BRAKE, "viol_hw_power_brake_ns")                                     \
	X(ENC_SESSIONS, "enc_sessions")                                                \
	X(ENC_FPS, "enc_fps")                                                          \
	X(ENC_LATENCY, "enc_latency_us")                                              \
	X(MEM_POWER, "mem_power_mw")                                                  \
	X(MARGIN, "tlimit_c")

enum gwsim_pin {
#define GWSIM_PIN_ENUM(id, key) GWSIM_PIN_##id,
	GWSIM_PIN_LIST(GWSIM_PIN_ENUM)
#undef GWSIM_PIN_ENUM
	GWSIM_PIN__COUNT
};

/* A pin holds one value or a sequence stepping once per virtual second:
 * value i covers virtual time (i, i + 1] (t <= 0 uses the first, times past
 * the end the last), so the poll at t = 1 of a step clock reads value 0. */
struct gwsim_pins {
	uint64_t mask; /* bit per enum gwsim_pin */
	unsigned char n[GWSIM_PIN__COUNT]; /* values in the sequence (1: constant) */
	double v[GWSIM_PIN__COUNT][GWSIM_SEQ_MAX];
};

/* A per-process utilisation sequence (pmon): NAN = no sample that second. */
struct gwsim_pseq {
	unsigned char n; /* 0: not given */
	float v[GWSIM_SEQ_MAX];
};

/* ---- processes ----------------------------------------------------------- */
struct gwsim_proc {
	unsigned int pid;
	char name[64];
	char cgroup[256];
	unsigned int type;  /* bit 1 compute, bit 2 graphics */
	double mem_mib;     /* at start */
	double leak_mib_s;  /* growth, MiB per second */
	double sm_share;    /* share of the GPU's utilisation, 0..1; 0: no samples */
	double mem_share;
	/* exact per-process utilisation (%), stepping per virtual second like
	 * pins; sm/mem not given: from share; enc/dec not given: no sample */
	struct gwsim_pseq sm, mem, enc, dec;
	double start, end;  /* virtual seconds; end <= start: forever */
	/* MIG: the instance the process runs in (`gi=`/`ci=` on its line) */
	bool on_mig;
	unsigned int gi, ci;
};
/* A record of the driver's accounting buffer (`accounted = PID ...`): a
 * process that ran before the scenario starts, or what a scenario process's
 * record says over its whole life. Negative: not given. */
struct gwsim_acct {
	unsigned int pid;
	double sm, mem;  /* % over the process's life */
	double max_mib;  /* memory high-water mark */
	double time_ms;  /* how long the context lived */
};
#define GWSIM_MAX_ACCT 32 /* per GPU */

#define GWSIM_PROC_COMPUTE 1U
#define GWSIM_PROC_GRAPHICS 2U

/* ---- faults and call rules ---------------------------------------------- */
enum gwsim_fault_kind {
	GWSIM_F_XID,
	GWSIM_F_ECC_SBE,
	GWSIM_F_ECC_DBE,
	GWSIM_F_RETIRE_PAGE,
	GWSIM_F_REMAP_ROW,
	GWSIM_F_PCIE_REPLAY,
	GWSIM_F_LOST,
	GWSIM_F_THROTTLE, /* force a clock event reason for a duration */
	GWSIM_F_SPIKE,    /* a value (utilisation, power) overridden for a short window */
	GWSIM_F_NVLINK,   /* NVLink errors: arg counts, arg2 says which (enum gwsim_nvlink_err) */
	GWSIM_F_NVLINK_DOWN, /* NVLink arg goes down */
	GWSIM_F_POWER_LIMIT, /* the enforced power limit becomes arg mW (nvidia-smi -pl), clamped to min..max */
};

/* The NVLink error counters a GWSIM_F_NVLINK fault adds to. */
enum gwsim_nvlink_err { GWSIM_NVL_CRC_FLIT, GWSIM_NVL_CRC_DATA, GWSIM_NVL_REPLAY, GWSIM_NVL_RECOVERY };

/* What a spike overrides (arg2 of a GWSIM_F_SPIKE fault). */
enum gwsim_spike_of { GWSIM_SPIKE_UTIL_GPU, GWSIM_SPIKE_UTIL_MEM, GWSIM_SPIKE_POWER, GWSIM_SPIKE__COUNT };

struct gwsim_fault {
	double at;
	int gpu;
	enum gwsim_fault_kind kind;
	unsigned long long arg;  /* XID, count, address, reason bits */
	int arg2;                /* memory location / cause / corr-unc */
	int link;                /* nvlink-error: the link the errors are on */
	double duration;
	uint64_t done_mask; /* GPUs it has been applied to */
};

/* A rule that makes a call answer something other than the model would. */
struct gwsim_rule {
	char func[64];     /* base name, version suffix stripped */
	int gpu;           /* -1: every GPU */
	nvmlReturn_t ret;  /* answer; NVML_ERROR_TIMEOUT also sleeps */
	unsigned int delay_ms;
	double from, until; /* virtual window; until < 0: forever */
};

/* ---- dynamic state -------------------------------------------------------- */
struct gwsim_now {
	double util_gpu, util_mem, util_enc, util_dec, util_jpg, util_ofa; /* % */
	double power_mw, power_avg_mw;
	unsigned int clk_sm, clk_mem, clk_video;
	unsigned int pstate;
	unsigned long long reasons;
	double fan_pct;
	double pcie_tx, pcie_rx; /* KB/s */
	double mem_used_mib;     /* v2 semantics: without reserved */
	struct gwsim_load load;
};

struct gwsim_sample {
	long long k; /* taken at t = k / GWSIM_SAMPLE_HZ */
	float v[10]; /* by nvmlSamplingType_t */
};

struct gwsim_dyn {
	double t;             /* virtual time integrated to */
	double temp_c, mem_temp_c;
	double energy_mj;
	double tokens;        /* the job's work done on this GPU (throughput model), tokens */
	double power_avg_mw;  /* 1 s moving average */
	double clk_factor;    /* 0..1 of max SM clock allowed by power/thermal */
	double viol_ns[6];    /* power, thermal, sync boost, sw therm, hw therm, hw brake */
	/* GPM integrals: activity-seconds and bytes */
	double gpm_gr, gpm_sm, gpm_occ, gpm_tensor, gpm_dram, gpm_fp16, gpm_fp32, gpm_fp64;
	double gpm_pcie_tx, gpm_pcie_rx, gpm_nvl_tx, gpm_nvl_rx; /* bytes */
	long long ring_k;     /* index of the newest sample (t = k / 6) */
	bool ring_valid;
	struct gwsim_sample ring[GWSIM_RING];
	struct gwsim_now now;
	double forced_until;  /* GWSIM_F_THROTTLE */
	unsigned long long forced_reasons;
	/* GWSIM_F_SPIKE: the value during [from, until), by enum gwsim_spike_of */
	double spike_from[GWSIM_SPIKE__COUNT], spike_until[GWSIM_SPIKE__COUNT], spike_v[GWSIM_SPIKE__COUNT];
};

struct gwsim_health {
	unsigned long long ecc[2][2][8]; /* [corrected/uncorrected][volatile/aggregate][location] */
	unsigned int retired_n[2];
	unsigned long long retired[2][GWSIM_MAX_RETIRED];
	unsigned long long retired_t[2][GWSIM_MAX_RETIRED];
	bool retired_pending;
	unsigned int remap_corr, remap_unc;
	bool remap_pending, remap_failure;
	unsigned int remap_hist[5];
	unsigned int pcie_replays;
	/* NVLink error totals over all links, by enum gwsim_nvlink_err (fault nvlink-error) */
	unsigned long long nvlink_err[4];
	unsigned long long nvlink_link_err[4][NVML_NVLINK_MAX_LINKS]; /* the same by link (the fault's LINK) */
	uint32_t nvlink_down; /* links an nvlink-down fault took down, a bit per link */
	unsigned long long last_xid;
	bool lost;
};

/* ---- MIG (nvml_mig.c) ----------------------------------------------------- */
#define GWSIM_MIG_MAX_GI 8   /* one per memory slice at most */
#define GWSIM_MIG_MAX_DEVS 8 /* compute instances of all GPU instances together */
struct gwsim_mig_profile; /* a GPU-instance profile of one model (nvml_mig.c) */
struct gwsim_mig_gi {
	const struct gwsim_mig_profile *prof;
	unsigned int id;       /* GPU instance id: the placement's node in the memory-slice tree */
	unsigned int base_mib; /* used memory no process owns */
	unsigned int ci_used;  /* compute slices given to compute instances */
	unsigned int nci;
};
/* A MIG device (one compute instance); its address is its NVML handle. */
struct gwsim_mig_dev {
	unsigned int gpu;   /* parent's index */
	unsigned int gi;    /* index into gwsim_mig.gi */
	unsigned int ci_id, ci_slices;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE]; /* "" = derived from the parent's */
};
struct gwsim_mig {
	unsigned int ngi, ndev;
	unsigned int mem_used; /* bit per memory slice taken */
	struct gwsim_mig_gi gi[GWSIM_MIG_MAX_GI];
	struct gwsim_mig_dev dev[GWSIM_MIG_MAX_DEVS]; /* ordered by GPU instance id, then CI id */
};

struct gwsim_gpu {
	unsigned int index;
	const struct gwsim_model *model;
	struct gwsim_static st;
	char rets[512]; /* "func=code,..." from the model and scenario */
	enum gwsim_workload wl;
	double wl_phase;    /* s: shifts step rhythms between jobs */
	double wl_scale;    /* 0..1: how hard the workload pushes */
	unsigned int job;   /* job id shared by GPUs of one training run */
	struct gwsim_pins pins;
	struct gwsim_proc procs[GWSIM_MAX_PROCS];
	unsigned int nprocs;
	struct gwsim_acct acct[GWSIM_MAX_ACCT];
	unsigned int nacct;
	struct gwsim_health h;
	struct gwsim_dyn d;
	struct gwsim_mig mig;
};

struct gwsim_event_set {
	bool used;
	unsigned long long mask[GWSIM_MAX_GPUS];
	nvmlEventData_t q[GWSIM_EVQ_LEN];
	unsigned int head, len;
};

struct gwsim_gpm_sample {
	unsigned int magic; /* GWSIM_GPM_MAGIC while allocated */
	int gpu;            /* -1 until nvmlGpmSampleGet */
	double t;
	double gr, sm, occ, tensor, dram, fp16, fp32, fp64;
	double pcie_tx, pcie_rx, nvl_tx, nvl_rx;
};

#define GWSIM_GPM_MAGIC 0x67706D73U

/* STEP: virtual time is whole seconds, starting at 1 and advancing by one
 * whenever NVML calls resume after GWSIM_STEP_GAP of real silence, so each
 * poll of a dmon/pmon/-l loop reads the next second, whatever the load. */
#define GWSIM_HOST_MAX 64 /* a DNS label's 63 characters and the NUL */

enum gwsim_clock_mode { GWSIM_CLOCK_REAL, GWSIM_CLOCK_MANUAL, GWSIM_CLOCK_STEP };

struct gwsim_sim {
	pthread_mutex_t lock;
	/* Broadcast when an event is posted or the clock moves, so an event
	 * waiter blocks like a driver instead of polling (nvml_health.c). */
	pthread_cond_t wake;
	bool configured;
	bool dirty; /* state was written since the library loaded: reset must clear it */
	int init_count;
	nvmlReturn_t init_error;
	uint64_t seed;
	/* the simulated machine's name (host=): with the seed, the model and the
	 * index it makes the UUIDs, so two simulated hosts never share one */
	char host[GWSIM_HOST_MAX];
	char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	char nvml[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
	int cuda; /* 13010 = 13.1 */
	/* clock */
	enum gwsim_clock_mode clock_mode;
	double speed;
	double mono0;      /* real monotonic seconds at configure */
	double t_manual;   /* virtual seconds (manual mode) */
	double t_offset;   /* added by gwsim_clock_advance in real mode */
	double last_call;  /* real monotonic seconds of the last NVML call (step mode) */
	double epoch_us;   /* wall clock at t = 0, us since the epoch */
	/* fleet */
	unsigned int ngpus;
	struct gwsim_gpu gpus[GWSIM_MAX_GPUS];
	struct gwsim_fault faults[GWSIM_MAX_FAULTS];
	unsigned int nfaults;
	struct gwsim_rule rules[GWSIM_MAX_RULES];
	unsigned int nrules;
	char missing[GWSIM_MAX_MISSING][64];
	unsigned int nmissing;
	struct gwsim_event_set sets[GWSIM_MAX_SETS];
};

extern struct gwsim_sim gwsim;

/* models.c */
const struct gwsim_model *gwsim_model_find(const char *name);
void gwsim_model_list(char *buf, size_t len);

/* config.c */
int gwsim_host_set(const char *v, char *err, size_t errlen);
int gwsim_fleet_add(const char *model, const char *workload, unsigned int count, char *err, size_t errlen);
int gwsim_workload_parse(const char *s, enum gwsim_workload *out);
void gwsim_fleet_finish(void);
void gwsim_reset(void);
uint64_t gwsim_hash(uint64_t a, uint64_t b);
double gwsim_unit(uint64_t a, uint64_t b); /* deterministic [0,1) */
int gwsim_ret_parse(const char *s, nvmlReturn_t *out);
const char *gwsim_ret_name(nvmlReturn_t r);

/* spec.c */
int gwsim_spec_parse(const char *spec, char *err, size_t errlen);

/* scenario.c */
int gwsim_scenario_load(const char *path, char *err, size_t errlen);

/* Wake event waiters (lock held): an event was posted, a fault added, or the clock moved. */
void gwsim_wake_waiters(void);

/* clock.c */
double gwsim_now_t(void); /* current virtual time, lock held */
void gwsim_clock_poll(void); /* every NVML call, lock held: steps a step clock */
double gwsim_mono(void);
unsigned long long gwsim_t_to_us(double t);

/* workload.c */
void gwsim_workload_eval(const struct gwsim_gpu *g, double t, struct gwsim_load *out);
/* Put a GPU at virtual time t in the thermal steady state of its load there. */
void gwsim_warm_start(struct gwsim_gpu *g, double t, double uptime_s);
void gwsim_workload_procs(struct gwsim_gpu *g);

/* nvml_system.c */
nvmlReturn_t gwsim_pci_info(const struct gwsim_gpu *g, nvmlPciInfo_t *pci);
/* The field values nvml_query.c answers: true with *ret set, or false. */
bool gwsim_query_field(const struct gwsim_gpu *g, nvmlFieldValue_t *f, nvmlReturn_t *ret);

/* nvml_acct.c: parse an `accounted` line into g; -1 with err set when bad */
int gwsim_acct_parse(struct gwsim_gpu *g, const char *v, char *err, size_t errlen);

/* nvml_topo.c */
nvmlReturn_t gwsim_nvlink_speed(const struct gwsim_gpu *g, unsigned int link, unsigned int *mbps);

/* nvml_perf.c: values shared with field values and samples */
unsigned long long gwsim_violation_ns(const struct gwsim_gpu *g, unsigned int i);
/* NVLink error totals as field values (nvml_nvlink_errors.c); NOT_SUPPORTED for other ids. */
nvmlReturn_t gwsim_field_nvlink_errors(const struct gwsim_gpu *g, nvmlFieldValue_t *f);
double gwsim_temp(const struct gwsim_gpu *g);
double gwsim_mem_temp(const struct gwsim_gpu *g);
double gwsim_power_usage(const struct gwsim_gpu *g);
/* Tokens a second the job on g makes in state n (physics.c: the throughput model). */
double gwsim_tokens_rate(const struct gwsim_gpu *g, const struct gwsim_now *n);

/* physics.c */
void gwsim_advance(struct gwsim_gpu *g, double t);
bool gwsim_pinned(const struct gwsim_gpu *g, enum gwsim_pin p);
double gwsim_pin(const struct gwsim_gpu *g, enum gwsim_pin p); /* at g->d.t */
double gwsim_pin_at(const struct gwsim_gpu *g, enum gwsim_pin p, double t);
int gwsim_seq_index(double t, unsigned int n);
double gwsim_proc_mem(const struct gwsim_proc *p, double t);
bool gwsim_proc_alive(const struct gwsim_proc *p, double t);

/* nvml_mig.c: a layout ("3g.40gb+2g.20gb+2x1g.10gb", "1c.3g.71gb+2c.3g.71gb") replaces
 * g's GPU and compute instances and turns MIG mode on; -1 with err set when bad */
int gwsim_mig_set(struct gwsim_gpu *g, const char *layout, char *err, size_t errlen);
/* `mig_base_mib = 26 17 9 9` (per GPU instance) and `mig_uuid = MIG-...` (per device) */
int gwsim_mig_key(struct gwsim_gpu *g, const char *k, const char *v, char *err, size_t errlen);
/* The MIG device a handle stands for, or NULL (lock held). */
const struct gwsim_mig_dev *gwsim_mig_of(nvmlDevice_t d);
/* Memory of the device's GPU instance (MiB): total, and used at g->d.t */
unsigned int gwsim_mig_mem_total(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m);
double gwsim_mig_mem_used(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m);
bool gwsim_mig_busy(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m); /* a process runs in its GI */
nvmlReturn_t gwsim_mig_uuid(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m, char *buf, unsigned int len);
nvmlReturn_t gwsim_mig_bar1(const struct gwsim_mig_dev *m, nvmlBAR1Memory_t *b);

/* faults.c */
nvmlReturn_t gwsim_enter(nvmlDevice_t d, const char *func, struct gwsim_gpu **g);
/* As gwsim_enter, for calls a MIG device handle answers too: *g is the
 * parent GPU and *m the MIG device (NULL for a whole GPU's handle). */
nvmlReturn_t gwsim_enter_mig(nvmlDevice_t d, const char *func, struct gwsim_gpu **g, const struct gwsim_mig_dev **m);
nvmlReturn_t gwsim_enter_sys(const char *func);
nvmlReturn_t gwsim_leave(nvmlReturn_t r);
void gwsim_faults_apply(struct gwsim_gpu *g, double t);
void gwsim_event_post(struct gwsim_gpu *g, unsigned long long type, unsigned long long data);
void gwsim_base_name(const char *func, char *out, size_t len);
int gwsim_fault_parse(const char *text, int gpu, double at, char *err, size_t errlen);

/* Copy a string into an NVML buffer: INSUFFICIENT_SIZE when it does not fit. */
nvmlReturn_t gwsim_copy_str(char *dst, unsigned int len, const char *src);

static inline nvmlDevice_t gwsim_handle(struct gwsim_gpu *g)
{
	return (nvmlDevice_t)(void *)g;
}

/* Define an exported device function whose body is one expression using g. */
#define GWSIM_DEV(fname, params, expr)                                                 \
	GWSIM_EXPORT nvmlReturn_t fname params                                         \
	{                                                                              \
		struct gwsim_gpu *g;                                                   \
		nvmlReturn_t r = gwsim_enter(d, #fname, &g);                           \
		if (r == NVML_SUCCESS)                                                 \
			r = (expr);                                                    \
		return gwsim_leave(r);                                                 \
	}

/* As GWSIM_DEV, for calls a MIG handle answers too: expr also sees m. */
#define GWSIM_DEV_MIG(fname, params, expr)                                             \
	GWSIM_EXPORT nvmlReturn_t fname params                                         \
	{                                                                              \
		struct gwsim_gpu *g;                                                   \
		const struct gwsim_mig_dev *m;                                         \
		nvmlReturn_t r = gwsim_enter_mig(d, #fname, &g, &m);                   \
		if (r == NVML_SUCCESS)                                                 \
			r = (expr);                                                    \
		return gwsim_leave(r);                                                 \
	}

#endif
