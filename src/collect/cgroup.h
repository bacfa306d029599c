/*
 * cgroup.h - who a GPU process belongs to: its container, Kubernetes pod,
 * Slurm job and user, read from /proc/<pid>/cgroup and /proc/<pid>/status.
 *
 * The cgroup path names the owner by convention, and the conventions differ
 * by runtime and cgroup driver; gw_cgroup_parse_path() knows these:
 *
 *   container  docker:      /docker/<64hex>, /system.slice/docker-<64hex>.scope
 *              containerd:  cri-containerd-<64hex>.scope, /kubepods/.../<64hex>
 *              cri-o:       crio-<64hex>.scope (crio-conmon-* is the monitor, skipped)
 *              podman:      libpod-<64hex>.scope
 *   pod uid    cgroupfs:    /kubepods/burstable/pod<uid>/...
 *              systemd:     kubepods-burstable-pod<uid with _ for ->.slice
 *   slurm job  /slurm/uid_N/job_N/..., /system.slice/slurmstepd.scope/job_N/...
 *
 * The user is the real uid of /proc/<pid>/status, named through
 * getpwuid_r (the agent's own passwd database, so an agent in a container
 * reading the host's /proc shows numbers for users it does not know).
 *
 * Every read goes through a root prefix (default "/") so tests run on
 * fixture trees. With simulated GPUs the process ids are invented, so the
 * simulator's own cgroup path (gwsim_process_cgroup) may stand in for the
 * /proc read: see struct gw_cgroup_src.
 *
 * Ownership: all buffers are the caller's. Threading: reentrant, no state.
 */
#ifndef GW_COLLECT_CGROUP_H
#define GW_COLLECT_CGROUP_H

#include "core/err.h"

#include <stdbool.h>

/* Each field is "" when unknown. */
struct gw_attr {
	char container[72]; /* 64 hex digits for the runtimes above */
	char pod_uid[40];   /* 36 characters, with dashes */
	char slurm_job[24]; /* decimal job id */
	char user[40];      /* login name, or the uid in decimal */
};

/* Where attribution reads from. */
struct gw_cgroup_src {
	const char *root;      /* prefix of /proc; NULL or "" means "/" */
	bool read_proc;        /* read <root>/proc/<pid>/{cgroup,status} */
	/* The simulator's answer for a pid (gwsim_process_cgroup), tried when
	 * <root>/proc/<pid>/cgroup is absent or read_proc is false; NULL: none. */
	int (*sim_cgroup)(unsigned int pid, char *buf, unsigned int len);
};

/* Fill the container, pod_uid and slurm_job fields found in one cgroup
 * path; fields already set are kept (so v1's many lines add up). */
void gw_cgroup_parse_path(const char *path, struct gw_attr *out);

/* Parse the text of a /proc/<pid>/cgroup file (v1 lines, the v2 "0::" line,
 * or both in hybrid mode). */
void gw_cgroup_parse_file(const char *text, struct gw_attr *out);

/*
 * Attribute pid. *out is cleared first. Returns 0 when anything was found
 * (some fields may still be ""), GW_ENOTFOUND when neither /proc nor the
 * simulator knows the pid. A missing /proc entry is not an error: the
 * process may have exited between the NVML list and this read.
 */
int gw_cgroup_attribute(const struct gw_cgroup_src *src, unsigned int pid, struct gw_attr *out);

#endif
