/*
 * gwsim.h - the simulator's own control API, next to the NVML functions it
 * exports (libgpuwatch-sim.so).
 *
 * The binding dlopens the simulator when --sim SPEC is given and calls
 * gwsim_configure() (and gwsim_symbol_missing() for every symbol) before
 * nvmlInit. Tests and tools may call the rest, by dlsym or by linking the
 * library, to steer the virtual clock, inject faults at run time and read
 * what NVML has no call for (the cgroup owning a process).
 *
 * All functions are thread-safe (one mutex inside the simulator) and return
 * 0 on success or a negative number; strings are copied into caller buffers.
 * The simulated GPUs keep the real boards' names so every output format
 * matches; gwsim_is_simulated() (and the binding's nv->simulated) is how a
 * program tells a simulated fleet apart.
 */
#ifndef GWSIM_H
#define GWSIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPEC: "8xH200", "4xH100:training,4xL40S:inference,seed=7,clock=manual"
 * or the path of a scenario file (docs/SIMULATOR.md). Nonzero on error with
 * a one-line message in errbuf. Resets all simulator state. */
int gwsim_configure(const char *spec, char *errbuf, unsigned int errlen);

/* Nonzero when the scenario says NVML function NAME does not exist. */
int gwsim_symbol_missing(const char *name);

/* Always 1: lets a program confirm it runs on the simulator. */
int gwsim_is_simulated(void);

/* Virtual clock. Real mode (default) follows the monotonic clock times the
 * speed; manual mode moves only through gwsim_clock_advance(). */
int gwsim_clock_advance(double seconds);     /* seconds >= 0 */
unsigned long long gwsim_clock_now_ns(void); /* virtual ns since configure */
int gwsim_clock_set_manual(int manual);      /* 1 manual, 0 real (time stays continuous) */
int gwsim_clock_set_speed(double speed);     /* virtual seconds per real second, > 0 */
unsigned long long gwsim_clock_epoch_us(void); /* wall clock at virtual 0, us since 1970 */

/* Number of simulated GPUs (0 before gwsim_configure). */
int gwsim_gpu_count(void);

/* The cgroup path owning PID ("/kubepods.slice/..."), as /proc/PID/cgroup's
 * v2 line would show it. -1 when no simulated process has that pid, -2 when
 * buf is too small. */
int gwsim_process_cgroup(unsigned int pid, char *buf, unsigned int len);

/* What nvidia-smi -q prints that NVML has no public call for, as text:
 * KEY is "gpu_part_number", "pcie_host_max_gen", "sparse_operation_mode",
 * "edpp_multiplier", "unrepairable_memory", "remap_inactive_correctable",
 * "remap_inactive_uncorrectable" or "display_attached". -1 when
 * the GPU or the key is unknown or the board lacks it (N/A), -2 when buf
 * is too small. */
int gwsim_device_info(unsigned int gpu, const char *key, char *buf, unsigned int len);

/* The tokens the job on GPU gpu has processed since configure, by the
 * simulator's throughput model (docs/SIMULATOR.md): what a training job
 * would count and push. 0, or 1 when the GPU's workload makes no tokens
 * (*tokens then stays 0); -1 for an unknown GPU. */
int gwsim_tokens_total(unsigned int gpu, double *tokens);

/* Inject a fault now on GPU index gpu, in the scenario's fault syntax
 * without the time: "xid 79", "ecc-sbe 3", "lost", "fail nvmlDeviceGetPowerUsage UNKNOWN 10" ...
 * -1 and a message in errbuf when the text is not understood. */
int gwsim_inject(unsigned int gpu, const char *fault, char *errbuf, unsigned int errlen);

#ifdef __cplusplus
}
#endif

#endif
