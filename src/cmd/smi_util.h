/*
 * smi_util.h - what smi, dmon and pmon share: GPU selection (-i), the
 * Ctrl-C-aware wait between samples, output files (-f) and number parsing.
 *
 * Ctrl-C: gw_smi_loop_begin() blocks SIGINT so it stays pending; the wait
 * between samples takes it with sigtimedwait(), so a loop ends cleanly
 * (exit 0, as nvidia-smi) with no handler and no global flag.
 *
 * Ownership: caller-owned arguments only. Threading: call from the main
 * thread (signal masks are per thread).
 */
#ifndef GW_CMD_SMI_UTIL_H
#define GW_CMD_SMI_UTIL_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/*
 * Mark in sel[] the GPUs named by spec: a comma-separated list of indexes,
 * UUIDs (GPU-...) and PCI bus ids ("00000000:83:00.0", "83:00.0").
 * Returns the number selected, or -1 when an entry matches no GPU.
 */
int gw_smi_select(const struct gw_gpu *gpus, unsigned int n, const char *spec, bool *sel);

/* Block SIGINT for the loop (so the wait can take it). */
void gw_smi_loop_begin(void);

/* Sleep ms; true when Ctrl-C (SIGINT) arrived and the loop should end. */
bool gw_smi_wait_ms(long ms);

/* Parse a non-negative decimal integer; false on junk or overflow. */
bool gw_smi_parse_uint(const char *s, unsigned long *out);

/* Local time of ts (real time), for table stamps and -o DT. */
struct tm gw_smi_localtime(const struct timespec *ts);

#endif
