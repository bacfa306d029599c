/*
 * env.c - level 1's check of the environment variables that change what
 * CUDA sees or how it runs (CUDA C Programming Guide, "CUDA Environment
 * Variables"; the MPS guide for CUDA_MPS_PIPE_DIRECTORY).
 */
#include "diag/diag_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CAT "Deployment"

/* Does token name one of the GPUs: an index below n, or a (prefix of a) GPU-/MIG- UUID? */
static bool token_known(const char *tok, size_t len, const struct gw_gpu *gpus, unsigned int n)
{
	if (len == 0)
		return false;
	bool digits = true;
	for (size_t i = 0; i < len; i++)
		digits = digits && isdigit((unsigned char)tok[i]);
	if (digits)
		return len < 10 && strtoul(tok, NULL, 10) < n;
	if (len > 4 && strncmp(tok, "MIG-", 4) == 0)
		return true; /* MIG instances are not enumerated here: not judged */
	if (len > 4 && strncmp(tok, "GPU-", 4) == 0) {
		for (unsigned int g = 0; g < n; g++)
			if (strncmp(gpus[g].uuid, tok, len) == 0)
				return true;
		return false;
	}
	return false;
}

static void visible_devices(struct gw_diag_run *r, const char *v, const struct gw_gpu *gpus, unsigned int n)
{
	const char *th = "each entry an index below the GPU count or a GPU's UUID";
	if (!v) {
		gw_diag_add(r, CAT, "CUDA_VISIBLE_DEVICES", GW_DIAG_SYSTEM, GW_DIAG_PASS, "unset", th,
			    "not set: CUDA sees every GPU");
		return;
	}
	char m[200];
	snprintf(m, sizeof(m), "CUDA_VISIBLE_DEVICES=%s", v);
	if (!*v) {
		gw_diag_add(r, CAT, "CUDA_VISIBLE_DEVICES", GW_DIAG_SYSTEM, GW_DIAG_FAIL, m, th,
			    "set but empty: CUDA sees no GPU at all");
		return;
	}
	for (const char *p = v; *p;) {
		size_t len = strcspn(p, ",");
		while (len && p[len - 1] == ' ')
			len--;
		if (!token_known(p, len, gpus, n)) {
			gw_diag_add(
			    r, CAT, "CUDA_VISIBLE_DEVICES", GW_DIAG_SYSTEM, GW_DIAG_FAIL, m, th,
			    "'%.*s' is not a GPU of this system (%u GPUs): CUDA hides it and every entry "
			    "after it; unset the variable or name an existing GPU",
			    (int)len, p, n);
			return;
		}
		p += strcspn(p, ",");
		while (*p == ',' || *p == ' ')
			p++;
	}
	gw_diag_add(r, CAT, "CUDA_VISIBLE_DEVICES", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
		    "every entry names a GPU of this system");
}

static void launch_blocking(struct gw_diag_run *r, const char *v)
{
	const char *th = "unset or 0";
	char m[200];
	snprintf(m, sizeof(m), "CUDA_LAUNCH_BLOCKING=%s", v ? v : "(unset)");
	if (v && strcmp(v, "1") == 0)
		gw_diag_add(r, CAT, "CUDA_LAUNCH_BLOCKING", GW_DIAG_SYSTEM, GW_DIAG_WARN, m, th,
			    "every kernel launch waits for the kernel to finish: a debugging setting that "
			    "serialises the host and the GPU and slows every application");
	else
		gw_diag_add(r, CAT, "CUDA_LAUNCH_BLOCKING", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
			    "kernel launches are asynchronous");
}

static void max_connections(struct gw_diag_run *r, const char *v)
{
	const char *th = "unset (8) or 2..32";
	char m[200];
	snprintf(m, sizeof(m), "CUDA_DEVICE_MAX_CONNECTIONS=%s", v ? v : "(unset)");
	if (!v) {
		gw_diag_add(r, CAT, "CUDA_DEVICE_MAX_CONNECTIONS", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
			    "default: 8 hardware work queues per device");
		return;
	}
	char *end;
	long k = strtol(v, &end, 10);
	if (end == v || *end || k < 1 || k > 32)
		gw_diag_add(r, CAT, "CUDA_DEVICE_MAX_CONNECTIONS", GW_DIAG_SYSTEM, GW_DIAG_WARN, m, th,
			    "not a number from 1 to 32: CUDA ignores or clamps it");
	else if (k == 1)
		gw_diag_add(r, CAT, "CUDA_DEVICE_MAX_CONNECTIONS", GW_DIAG_SYSTEM, GW_DIAG_WARN, m, th,
			    "one hardware work queue: work from different streams is serialised (false "
			    "dependencies); right only where a framework asks for it on purpose");
	else
		gw_diag_add(r, CAT, "CUDA_DEVICE_MAX_CONNECTIONS", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
			    "%ld hardware work queues per device", k);
}

static void mps_pipe(struct gw_diag_run *r, const char *v)
{
	const char *th = "unset, or an existing directory";
	char m[300];
	snprintf(m, sizeof(m), "CUDA_MPS_PIPE_DIRECTORY=%s", v ? v : "(unset)");
	struct stat st;
	if (!v)
		gw_diag_add(r, CAT, "CUDA_MPS_PIPE_DIRECTORY", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
			    "not set: MPS clients use the default /tmp/nvidia-mps");
	else if (stat(v, &st) != 0 || !S_ISDIR(st.st_mode))
		gw_diag_add(r, CAT, "CUDA_MPS_PIPE_DIRECTORY", GW_DIAG_SYSTEM, GW_DIAG_WARN, m, th,
			    "%s is not a directory: CUDA applications cannot reach an MPS control daemon "
			    "there and run without MPS",
			    v);
	else
		gw_diag_add(r, CAT, "CUDA_MPS_PIPE_DIRECTORY", GW_DIAG_SYSTEM, GW_DIAG_PASS, m, th,
			    "the directory exists");
}

void gw_diag_env_checks(struct gw_diag_run *r, const struct gw_diag_env *env, const struct gw_gpu *gpus,
			unsigned int n)
{
	visible_devices(r, env->cuda_visible_devices, gpus, n);
	launch_blocking(r, env->cuda_launch_blocking);
	max_connections(r, env->cuda_device_max_connections);
	mps_pipe(r, env->cuda_mps_pipe_directory);
}
