#include "collect/podres.h"

#include "collect/grpc.h"
#include "collect/procs.h"
#include "collect/sampler.h"

#include "podresources.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gw_pods_ref(struct gw_pods *p)
{
	atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
}

void gw_pods_unref(struct gw_pods *p)
{
	if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
		return;
	v1__list_pod_resources_response__free_unpacked(p->msg, NULL);
	free(p->v);
	free(p);
}

/* dcgm-exporter's resources: whole GPUs (also renamed shared ones) and MIG devices. */
static bool nvidia_resource(const char *r)
{
	return strcmp(r, "nvidia.com/gpu") == 0 || strncmp(r, "nvidia.com/gpu.", 15) == 0 ||
	       strncmp(r, "nvidia.com/mig-", 15) == 0;
}

int gw_pods_decode(const uint8_t *msg, size_t len, struct gw_pods **out)
{
	*out = NULL;
	V1__ListPodResourcesResponse *r = v1__list_pod_resources_response__unpack(NULL, len, msg);
	if (!r)
		return GW_EPARSE;
	size_t n = 0;
	for (size_t i = 0; i < r->n_pod_resources; i++)
		for (size_t c = 0; c < r->pod_resources[i]->n_containers; c++)
			for (size_t d = 0; d < r->pod_resources[i]->containers[c]->n_devices; d++) {
				const V1__ContainerDevices *dv =
				    r->pod_resources[i]->containers[c]->devices[d];
				if (nvidia_resource(dv->resource_name))
					n += dv->n_device_ids;
			}
	struct gw_pods *p = calloc(1, sizeof(*p));
	if (p)
		p->v = calloc(n ? n : 1, sizeof(*p->v));
	if (!p || !p->v) {
		free(p);
		v1__list_pod_resources_response__free_unpacked(r, NULL);
		return GW_ENOMEM;
	}
	atomic_init(&p->refs, 1);
	p->msg = r;
	p->npods = r->n_pod_resources;
	for (size_t i = 0; i < r->n_pod_resources; i++) {
		const V1__PodResources *pod = r->pod_resources[i];
		for (size_t c = 0; c < pod->n_containers; c++) {
			const V1__ContainerResources *ct = pod->containers[c];
			for (size_t d = 0; d < ct->n_devices; d++) {
				const V1__ContainerDevices *dv = ct->devices[d];
				if (!nvidia_resource(dv->resource_name))
					continue;
				for (size_t k = 0; k < dv->n_device_ids; k++) {
					char *id = dv->device_ids[k], *rep = strstr(id, "::");
					if (rep)
						*rep = '\0'; /* a time-sliced replica: the GPU itself */
					p->v[p->n++] = (struct gw_pod_dev){id, dv->resource_name, pod->name,
									   pod->namespace_, ct->name};
				}
			}
		}
	}
	*out = p;
	return 0;
}

int gw_pods_list(const char *sock, int timeout_ms, struct gw_pods **out, struct gw_err *err)
{
	uint8_t *reply;
	size_t len;
	*out = NULL;
	/* ListPodResourcesRequest has no fields: its encoding is empty */
	int rc = gw_grpc_call_unix(sock, "/v1.PodResourcesLister/List", NULL, 0, timeout_ms,
				   GW_PODRES_REPLY_MAX, &reply, &len, err);
	if (rc)
		return rc;
	rc = gw_pods_decode(reply, len, out);
	free(reply);
	if (rc)
		return gw_err_set(err, rc, "List: %s",
				  rc == GW_EPARSE ? "not a ListPodResourcesResponse" : gw_strerror(rc));
	return 0;
}

static bool is_index(const char *id, const struct gw_gpu *gpu)
{
	char name[24];
	snprintf(name, sizeof(name), "nvidia%u", gpu->index);
	return strcmp(id, name) == 0;
}

const struct gw_pod_dev *gw_pods_gpu(const struct gw_pods *p, const struct gw_gpu *gpu)
{
	const struct gw_pod_dev *hit = NULL;
	for (size_t i = 0; p && i < p->n; i++)
		if (strcmp(p->v[i].id, gpu->uuid) == 0 || is_index(p->v[i].id, gpu))
			hit = &p->v[i]; /* the last listed wins */
	return hit;
}

static bool is_instance(const char *id, const struct gw_gpu *gpu, unsigned int gi)
{
	char name[40];
	snprintf(name, sizeof(name), "nvidia%u/gi%u", gpu->index, gi);
	/* GKE's shared MIG ids add "/vgpuN" */
	size_t n = strlen(name);
	return strncmp(id, name, n) == 0 && (id[n] == '\0' || strncmp(id + n, "/vgpu", 5) == 0);
}

const struct gw_pod_dev *gw_pods_mig(const struct gw_pods *p, const struct gw_gpu *gpu,
				     const struct gw_mig *m)
{
	const struct gw_pod_dev *hit = NULL;
	for (size_t i = 0; p && i < p->n; i++)
		if ((m->uuid[0] && strcmp(p->v[i].id, m->uuid) == 0) || is_instance(p->v[i].id, gpu, m->gi))
			hit = &p->v[i];
	return hit;
}

static bool same_owner(const struct gw_pod_dev *a, const struct gw_pod_dev *b)
{
	return strcmp(a->pod, b->pod) == 0 && strcmp(a->ns, b->ns) == 0 &&
	       strcmp(a->container, b->container) == 0;
}

static bool same_pod(const struct gw_pod_dev *a, const struct gw_pod_dev *b)
{
	return strcmp(a->pod, b->pod) == 0 && strcmp(a->ns, b->ns) == 0;
}

/* Does d give the GPU (gi GW_PROC_ID_NONE) or its MIG GPU instance gi? */
static bool holds(const struct gw_pod_dev *d, const struct gw_gpu *gpu, const struct gw_migs *migs,
		  unsigned int gi)
{
	if (gi == GW_PROC_ID_NONE)
		return strcmp(d->id, gpu->uuid) == 0 || is_index(d->id, gpu);
	for (size_t k = 0; migs && k < migs->n; k++)
		if (migs->v[k].gi == gi && ((migs->v[k].uuid[0] && strcmp(d->id, migs->v[k].uuid) == 0) ||
					    is_instance(d->id, gpu, gi)))
			return true;
	return false;
}

/* The one container (of pod `of`, unless NULL) holding the GPU or instance; NULL: none or several. */
static const struct gw_pod_dev *sole(const struct gw_pods *p, const struct gw_gpu *gpu,
				     const struct gw_migs *migs, unsigned int gi, const struct gw_pod_dev *of)
{
	const struct gw_pod_dev *one = NULL;
	for (size_t i = 0; p && i < p->n; i++) {
		const struct gw_pod_dev *d = &p->v[i];
		if (!holds(d, gpu, migs, gi) || (of && !same_pod(d, of)))
			continue;
		if (one && !same_owner(one, d))
			return NULL; /* shared: the GPU does not say whose the process is */
		one = d;
	}
	return one;
}

const struct gw_pod_dev *gw_pods_proc(const struct gw_pods *p, const struct gw_gpu *gpu,
				      const struct gw_migs *migs, unsigned int gi)
{
	return sole(p, gpu, migs, gi, NULL);
}

static size_t uid_find(const struct gw_pod_uids *u, const char *uid)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i].uid, uid) == 0)
			return i;
	return SIZE_MAX;
}

void gw_pod_uids_learn(struct gw_pod_uids *u, const struct gw_frame *f)
{
	u->n = 0;
	for (unsigned int g = 0; f->pods && g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		for (size_t i = 0; i < fg->procs.n; i++) {
			const struct gw_proc *p = &fg->procs.v[i];
			const struct gw_pod_dev *d =
			    p->attr.pod_uid[0] ? gw_pods_proc(f->pods, fg->gpu, &fg->migs, p->gi) : NULL;
			if (!d)
				continue;
			size_t k = uid_find(u, p->attr.pod_uid);
			if (k != SIZE_MAX) {
				if (u->v[k].dev && !same_pod(u->v[k].dev, d))
					u->v[k].dev = NULL; /* one uid, two pods: trust neither */
			} else if (u->n < GW_POD_UIDS_MAX) {
				u->v[u->n].uid = p->attr.pod_uid;
				u->v[u->n++].dev = d;
			}
		}
	}
}

const struct gw_pod_dev *gw_pods_owner(const struct gw_frame_gpu *fg, const struct gw_proc *proc,
				       const struct gw_pod_uids *u)
{
	const struct gw_pod_dev *one = sole(fg->pods, fg->gpu, &fg->migs, proc->gi, NULL);
	if (one)
		return one;
	size_t k = u && proc->attr.pod_uid[0] ? uid_find(u, proc->attr.pod_uid) : SIZE_MAX;
	const struct gw_pod_dev *known = k != SIZE_MAX ? u->v[k].dev : NULL;
	return known ? sole(fg->pods, fg->gpu, &fg->migs, proc->gi, known) : NULL;
}
