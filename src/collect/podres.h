/*
 * podres.h - which Kubernetes pod container holds each GPU, from the
 * kubelet's pod-resources API (v1.PodResourcesLister/List on
 * /var/lib/kubelet/pod-resources/kubelet.sock, over collect/grpc.h).
 *
 * The kubelet lists, for every pod on the node, each container's devices
 * by resource name and device id. gpuwatch keeps the NVIDIA ones, as
 * dcgm-exporter does: "nvidia.com/gpu" (and the renamed shared resources
 * "nvidia.com/gpu.*"), and "nvidia.com/mig-*". The device plugin's ids
 * are GPU UUIDs ("GPU-..."), MIG device UUIDs ("MIG-..."), a time-sliced
 * replica's "GPU-...::N" (kept without "::N": every replica is the GPU),
 * or GKE's "nvidia0" and "nvidia0/gi1" (a GPU by index, a MIG GPU instance).
 *
 * A GPU listed for several containers (time-slicing, MPS) is credited to
 * the last one listed, as dcgm-exporter does without its virtual-GPU mode.
 *
 * A watcher (gw_podres_new) calls List every interval on a thread of its
 * own and publishes the answer as an immutable, reference-counted snapshot
 * (struct gw_pods) that the sampler attaches to each frame; a List that
 * fails drops the snapshot (no pod labels; processes keep their cgroup
 * attribution), and the change either way is reported once through
 * opts.log. A slow kubelet delays nothing but the next snapshot: each
 * call is bounded by opts.timeout_ms.
 *
 * Ownership: gw_podres_new / gw_podres_free; snapshots by gw_podres_get
 * (a reference) / gw_pods_unref. Threading: get, stats and unref from any
 * thread; the watcher's thread only calls List and publishes.
 */
#ifndef GW_COLLECT_PODRES_H
#define GW_COLLECT_PODRES_H

#include "collect/mig.h"
#include "core/err.h"
#include "nvml/binding.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_PODRES_SOCKET "/var/lib/kubelet/pod-resources/kubelet.sock"
#define GW_PODRES_REPLY_MAX ((size_t)16 << 20) /* bytes; a node of 110 pods answers in a few KB */

/* One device held by one container. */
struct gw_pod_dev {
	const char *id; /* as listed, "::N" cut */
	const char *resource, *pod, *ns, *container;
};

/* One List answer: immutable once published. */
struct gw_pods {
	atomic_uint refs;
	size_t n;     /* devices of NVIDIA resources, in the kubelet's order */
	size_t npods; /* pods listed, with GPUs or without */
	struct gw_pod_dev *v;
	void *msg; /* the decoded message the strings point into */
};

void gw_pods_ref(struct gw_pods *p);
void gw_pods_unref(struct gw_pods *p); /* NULL is a no-op */

/* Decode a ListPodResourcesResponse (protobuf bytes). Returns 0, GW_EPARSE or GW_ENOMEM. */
int gw_pods_decode(const uint8_t *msg, size_t len, struct gw_pods **out);

/* Call List on the socket once. Returns 0 or grpc.h's codes; err says why. */
int gw_pods_list(const char *sock, int timeout_ms, struct gw_pods **out, struct gw_err *err);

/* The container holding the whole GPU (by UUID or "nvidia<index>"), or NULL. */
const struct gw_pod_dev *gw_pods_gpu(const struct gw_pods *p, const struct gw_gpu *gpu);

/* The container holding a MIG device (by MIG UUID or "nvidia<index>/gi<gi>"), or NULL. */
const struct gw_pod_dev *gw_pods_mig(const struct gw_pods *p, const struct gw_gpu *gpu,
				     const struct gw_mig *m);

/*
 * The container a process on gpu belongs to: the one holding its MIG GPU
 * instance (gi; GW_PROC_ID_NONE without MIG: the GPU) when exactly one
 * container holds it; NULL when none or several do (their processes are
 * told apart by their cgroup's pod_uid and container labels only).
 */
const struct gw_pod_dev *gw_pods_proc(const struct gw_pods *p, const struct gw_gpu *gpu,
				      const struct gw_migs *migs, unsigned int gi);

/*
 * The kubelet names pods but gives no pod uid; a process's cgroup gives
 * its pod's uid (collect/cgroup.h) but no name. A process on a GPU that
 * exactly one container holds links the two, and the link then names the
 * pod of that uid's processes on a GPU several containers share (a uid
 * seen on the GPUs of two pods names neither).
 */
#define GW_POD_UIDS_MAX 128 /* a node runs at most 110 pods by default */

struct gw_pod_uids {
	size_t n;
	struct {
		const char *uid;	      /* borrowed from the frame's processes */
		const struct gw_pod_dev *dev; /* its pod (any of its containers); NULL: seen with two pods */
	} v[GW_POD_UIDS_MAX];
};

struct gw_frame;
struct gw_frame_gpu;
struct gw_proc;

/* Learn the uids of the pods of f's processes (valid while f is held). */
void gw_pod_uids_learn(struct gw_pod_uids *u, const struct gw_frame *f);

/*
 * The container a process on fg belongs to: gw_pods_proc()'s sole holder;
 * on a GPU several containers share, the one container of the process's
 * pod (its pod uid learned in u) among them. NULL when it cannot be told.
 */
const struct gw_pod_dev *gw_pods_owner(const struct gw_frame_gpu *fg, const struct gw_proc *proc,
				       const struct gw_pod_uids *u);

/* The watcher. */
typedef void (*gw_podres_log_fn)(void *arg, bool up, const char *sock, const struct gw_err *why, size_t npods,
				 size_t ndevs);

struct gw_podres_opts {
	const char *socket;	  /* NULL: GW_PODRES_SOCKET */
	unsigned int interval_ms; /* between Lists; default 5000 */
	unsigned int timeout_ms;  /* of one List; default 5000 */
	/* called on the watcher's thread when List starts failing (up false,
	 * why) or answers (again; up true, with what it listed); NULL: none */
	gw_podres_log_fn log;
	void *log_arg;
};

struct gw_podres_stats {
	uint64_t lists_total, errors_total;
	int64_t last_success_ms; /* wall clock; 0: never */
	bool up;		 /* the last List answered */
	size_t npods, ndevs;	 /* in the current snapshot */
};

struct gw_podres;

/* Start watching (the first List runs at once, on the thread). Returns 0, GW_ENOMEM or GW_EIO. */
int gw_podres_new(struct gw_podres **out, const struct gw_podres_opts *opts, struct gw_err *err);
void gw_podres_free(struct gw_podres *w); /* NULL is a no-op; snapshots still referenced stay valid */

/* The current snapshot with a reference taken, NULL while List fails or before it answered. */
struct gw_pods *gw_podres_get(struct gw_podres *w);
void gw_podres_stats(struct gw_podres *w, struct gw_podres_stats *out);

#endif
