/*
 * nvml_mig.c - MIG: GPU instances, compute instances and their device handles.
 *
 * A layout (`mig = 3g.40gb+2g.20gb+2x1g.10gb` in a scenario, `:mig=...` in
 * the short form) places GPU instances in the order written, each with one
 * compute instance spanning it; `1c.3g.71gb+2c.3g.71gb` (the names -L
 * prints) makes one 3g GPU instance holding a 1-slice and a 2-slice compute
 * instance, which share its memory and engines. The profiles per model are
 * those of the reference captures.
 *
 * Placement: a GPU instance takes an aligned run of the 8 memory slices,
 * and its id is that run's node in the binary tree over them (0 the whole
 * memory, 1 and 2 the halves, 3..6 the quarters, 7..14 single slices). A
 * half-memory profile (3g, 4g) tries the upper half first and the others
 * the lowest free run, which is how the driver placed the captures'
 * 3g+2g+1g+1g as GPU instances 2, 3, 9 and 10. Single-slice profiles start
 * at slices 0..6 (the seventh compute slice is the last).
 */
#include "scenario.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIB (1024ULL * 1024ULL)
#define MEM_SLICES 8
#define COMPUTE_SLICES 7
#define SM_PER_SLICE 16 /* SMs of one compute slice in a partial compute instance (GH100) */

struct gwsim_mig_profile {
	const char *model; /* gwsim_model key */
	const char *name;  /* "3g.40gb" */
	unsigned int id;   /* NVML_GPU_INSTANCE_PROFILE_* */
	unsigned int slices, mem_slices, instances;
	unsigned int sms, ce, dec, enc, jpg, ofa;
	unsigned int mem_mib, bar1_mib;
	unsigned int base_mib; /* used with no process: what the captures show idle */
};

/* From the H100 80GB and H200 captures (driver 590.48.01, MIG devices table and -q);
 * the H200 3g's 60 SMs are the H100's (same chip): its capture shows only 1c and 2c. */
static const struct gwsim_mig_profile profiles[] = {
    {"H100", "1g.10gb", NVML_GPU_INSTANCE_PROFILE_1_SLICE, 1, 1, 7, 16, 1, 1, 0, 1, 0, 9984, 6184, 9},
    {"H100", "2g.20gb", NVML_GPU_INSTANCE_PROFILE_2_SLICE, 2, 2, 3, 32, 2, 2, 0, 2, 0, 20096, 12369, 17},
    {"H100", "3g.40gb", NVML_GPU_INSTANCE_PROFILE_3_SLICE, 3, 4, 2, 60, 3, 3, 0, 3, 0, 40448, 24739, 26},
    {"H200", "1g.18gb", NVML_GPU_INSTANCE_PROFILE_1_SLICE, 1, 1, 7, 16, 1, 1, 0, 1, 0, 16384, 14809, 9},
    {"H200", "2g.35gb", NVML_GPU_INSTANCE_PROFILE_2_SLICE, 2, 2, 3, 32, 2, 2, 0, 2, 0, 33280, 29618, 17},
    {"H200", "3g.71gb", NVML_GPU_INSTANCE_PROFILE_3_SLICE, 3, 4, 2, 60, 3, 3, 0, 3, 0, 71424, 59237, 22},
};
#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

static const struct gwsim_mig_profile *profile_find(const struct gwsim_gpu *g, const char *name, size_t n)
{
	for (size_t i = 0; i < NPROFILES; i++)
		if (strcmp(profiles[i].model, g->model->key) == 0 && strlen(profiles[i].name) == n &&
		    strncasecmp(profiles[i].name, name, n) == 0)
			return &profiles[i];
	return NULL;
}

static void profile_list(const struct gwsim_gpu *g, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0, o = 0; i < NPROFILES && o < len; i++)
		if (strcmp(profiles[i].model, g->model->key) == 0)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", profiles[i].name);
}

/* Node of the run [start, start + size) in the memory-slice tree. */
static unsigned int node_id(unsigned int start, unsigned int size)
{
	return MEM_SLICES / size - 1 + start / size;
}

static int place(struct gwsim_mig *mig, const struct gwsim_mig_profile *p, unsigned int *id)
{
	unsigned int size = p->mem_slices, used = 0;
	for (unsigned int i = 0; i < mig->ngi; i++)
		used += mig->gi[i].prof->slices;
	if (used + p->slices > COMPUTE_SLICES || mig->ngi >= GWSIM_MIG_MAX_GI)
		return -1;
	unsigned int last = size == 1 ? COMPUTE_SLICES - 1 : MEM_SLICES - size;
	bool top = size == MEM_SLICES / 2;
	for (unsigned int k = 0; k <= last; k += size) {
		unsigned int start = top ? last - k : k;
		unsigned int bits = ((1U << size) - 1) << start;
		if (mig->mem_used & bits)
			continue;
		mig->mem_used |= bits;
		*id = node_id(start, size);
		return 0;
	}
	return -1;
}

static int add_ci(struct gwsim_gpu *g, unsigned int gi, unsigned int slices)
{
	struct gwsim_mig *mig = &g->mig;
	struct gwsim_mig_gi *x = &mig->gi[gi];
	if (slices == 0 || x->ci_used + slices > x->prof->slices || mig->ndev >= GWSIM_MIG_MAX_DEVS)
		return -1;
	struct gwsim_mig_dev *d = &mig->dev[mig->ndev++];
	memset(d, 0, sizeof(*d));
	d->gpu = g->index;
	d->gi = gi;
	d->ci_id = x->nci++;
	d->ci_slices = slices;
	x->ci_used += slices;
	return 0;
}

/* Devices are enumerated by GPU instance id, then compute instance id. */
static int dev_cmp(const void *a, const void *b, const struct gwsim_mig *mig)
{
	const struct gwsim_mig_dev *x = a, *y = b;
	unsigned int gx = mig->gi[x->gi].id, gy = mig->gi[y->gi].id;
	if (gx != gy)
		return gx < gy ? -1 : 1;
	return x->ci_id < y->ci_id ? -1 : x->ci_id > y->ci_id;
}

static void sort_devs(struct gwsim_mig *mig)
{
	for (unsigned int i = 1; i < mig->ndev; i++)
		for (unsigned int j = i; j > 0 && dev_cmp(&mig->dev[j - 1], &mig->dev[j], mig) > 0; j--) {
			struct gwsim_mig_dev t = mig->dev[j];
			mig->dev[j] = mig->dev[j - 1];
			mig->dev[j - 1] = t;
		}
}

static int new_gi(struct gwsim_gpu *g, const struct gwsim_mig_profile *prof, char *err, size_t errlen)
{
	struct gwsim_mig *mig = &g->mig;
	unsigned int id;
	if (place(mig, prof, &id) != 0) {
		snprintf(err, errlen, "MIG profile %s does not fit beside the instances before it",
			 prof->name);
		return -1;
	}
	mig->gi[mig->ngi] = (struct gwsim_mig_gi){.prof = prof, .id = id, .base_mib = prof->base_mib};
	return (int)mig->ngi++;
}

/*
 * One item: [Nx][Cc.]PROFILE. Without "Cc." each is a GPU instance with one
 * compute instance spanning it. "Cc.PROFILE" (the name -L prints) is a
 * compute instance of C slices: it joins the GPU instance before it when
 * that one has the same profile, was made by a "c." item and has room.
 */
static int add_item(struct gwsim_gpu *g, const char *item, bool *partial_last, char *err, size_t errlen)
{
	unsigned long count = 1, cslices = 0;
	const char *p = item;
	char *end;
	const char *x = strpbrk(p, "xX");
	const char *dot = strchr(p, '.');
	if (x && (!dot || x < dot)) {
		count = strtoul(p, &end, 10);
		if (end != x || count == 0 || count > GWSIM_MIG_MAX_DEVS) {
			snprintf(err, errlen, "bad MIG count in \"%s\" (1..%d)", item, GWSIM_MIG_MAX_DEVS);
			return -1;
		}
		p = x + 1;
	}
	bool has_c = false;
	cslices = strtoul(p, &end, 10);
	if (end != p && (*end == 'c' || *end == 'C') && end[1] == '.') {
		has_c = true;
		p = end + 2;
	} else {
		cslices = 0;
	}
	const struct gwsim_mig_profile *prof = profile_find(g, p, strlen(p));
	if (!prof) {
		char known[256];
		profile_list(g, known, sizeof(known));
		snprintf(err, errlen,
			 "unknown MIG profile \"%s\" for %s (known: %s, each also as Cc.PROFILE)", p,
			 g->model->key, known[0] ? known : "none");
		return -1;
	}
	if (has_c && (cslices == 0 || cslices > prof->slices)) {
		snprintf(err, errlen, "compute instance \"%s\" has 1..%u slices", item, prof->slices);
		return -1;
	}
	struct gwsim_mig *mig = &g->mig;
	for (unsigned long i = 0; i < count; i++) {
		int gi = -1;
		if (cslices && *partial_last && mig->ngi && mig->gi[mig->ngi - 1].prof == prof &&
		    mig->gi[mig->ngi - 1].ci_used + cslices <= prof->slices)
			gi = (int)mig->ngi - 1;
		if (gi < 0 && (gi = new_gi(g, prof, err, errlen)) < 0)
			return -1;
		*partial_last = cslices != 0;
		if (add_ci(g, (unsigned int)gi, cslices ? (unsigned int)cslices : prof->slices) != 0) {
			snprintf(err, errlen, "too many MIG devices (max %d)", GWSIM_MIG_MAX_DEVS);
			return -1;
		}
	}
	return 0;
}

int gwsim_mig_set(struct gwsim_gpu *g, const char *layout, char *err, size_t errlen)
{
	if (!g->st.mig_capable) {
		snprintf(err, errlen, "GPU %u (%s) has no MIG", g->index, g->model->key);
		return -1;
	}
	memset(&g->mig, 0, sizeof(g->mig));
	char buf[256];
	if (strlen(layout) >= sizeof(buf)) {
		snprintf(err, errlen, "MIG layout too long");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", layout);
	char *save = NULL;
	bool partial_last = false;
	for (char *t = strtok_r(buf, "+ \t", &save); t; t = strtok_r(NULL, "+ \t", &save))
		if (add_item(g, t, &partial_last, err, errlen) != 0) {
			memset(&g->mig, 0, sizeof(g->mig));
			return -1;
		}
	sort_devs(&g->mig);
	g->st.mig_mode = g->mig.ngi > 0;
	return 0;
}

int gwsim_mig_key(struct gwsim_gpu *g, const char *k, const char *v, char *err, size_t errlen)
{
	bool base = strcmp(k, "mig_base_mib") == 0;
	if (!base && strcmp(k, "mig_uuid") != 0)
		return 0;
	unsigned int max = base ? g->mig.ngi : g->mig.ndev;
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", v);
	char *save = NULL;
	unsigned int i = 0;
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save), i++) {
		if (i >= max) {
			snprintf(err, errlen, "%s has more values than the layout has %s (%u; set mig first)",
				 k, base ? "GPU instances" : "MIG devices", max);
			return -1;
		}
		if (base) {
			double x;
			if (gwsim_parse_range(k, t, 0, g->mig.gi[i].prof->mem_mib, &x, err, errlen) != 0)
				return -1;
			g->mig.gi[i].base_mib = (unsigned int)x;
		} else {
			snprintf(g->mig.dev[i].uuid, sizeof(g->mig.dev[i].uuid), "%s", t);
		}
	}
	return 1;
}

const struct gwsim_mig_dev *gwsim_mig_of(nvmlDevice_t d)
{
	/* compared as addresses before anything is read through the handle */
	uintptr_t h = (uintptr_t)(const void *)d;
	for (unsigned int i = 0; i < gwsim.ngpus; i++) {
		const struct gwsim_mig *mig = &gwsim.gpus[i].mig;
		uintptr_t lo = (uintptr_t)(const void *)mig->dev;
		if (h >= lo && h < lo + mig->ndev * sizeof(mig->dev[0]) &&
		    (h - lo) % sizeof(mig->dev[0]) == 0)
			return &mig->dev[(h - lo) / sizeof(mig->dev[0])];
	}
	return NULL;
}

unsigned int gwsim_mig_mem_total(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m)
{
	return g->mig.gi[m->gi].prof->mem_mib;
}

bool gwsim_mig_busy(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m)
{
	for (unsigned int i = 0; i < g->nprocs; i++) {
		const struct gwsim_proc *p = &g->procs[i];
		if (p->on_mig && p->gi == g->mig.gi[m->gi].id && gwsim_proc_alive(p, g->d.t))
			return true;
	}
	return false;
}

/* The instance's own memory plus its processes'. */
double gwsim_mig_mem_used(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m)
{
	const struct gwsim_mig_gi *x = &g->mig.gi[m->gi];
	double used = x->base_mib;
	for (unsigned int i = 0; i < g->nprocs; i++) {
		const struct gwsim_proc *p = &g->procs[i];
		if (p->on_mig && p->gi == x->id && gwsim_proc_alive(p, g->d.t))
			used += gwsim_proc_mem(p, g->d.t);
	}
	return used < x->prof->mem_mib ? used : x->prof->mem_mib;
}

nvmlReturn_t gwsim_mig_uuid(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m, char *buf,
			    unsigned int len)
{
	if (m->uuid[0])
		return gwsim_copy_str(buf, len, m->uuid);
	/* derived from the parent's, so instances of two GPUs never share one */
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const char *s = g->st.uuid; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	uint64_t a = gwsim_hash(h, g->mig.gi[m->gi].id * 16ULL + m->ci_id), b = gwsim_hash(a, 0x4D4947);
	char u[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	snprintf(u, sizeof(u), "MIG-%08x-%04x-%04x-%04x-%012llx", (unsigned int)(a >> 32),
		 (unsigned int)(a >> 16) & 0xFFFF, (unsigned int)a & 0xFFFF, (unsigned int)(b >> 48),
		 (unsigned long long)b & 0xFFFFFFFFFFFFULL);
	return gwsim_copy_str(buf, len, u);
}

nvmlReturn_t gwsim_mig_bar1(const struct gwsim_mig_dev *m, nvmlBAR1Memory_t *b)
{
	if (!b)
		return NVML_ERROR_INVALID_ARGUMENT;
	const struct gwsim_gpu *g = &gwsim.gpus[m->gpu];
	b->bar1Total = g->mig.gi[m->gi].prof->bar1_mib * MIB;
	b->bar1Used = 0;
	b->bar1Free = b->bar1Total;
	return NVML_SUCCESS;
}

/* ---- NVML ------------------------------------------------------------------- */
static nvmlReturn_t max_count(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m, unsigned int *count)
{
	if (!count || m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!g->st.mig_capable)
		return NVML_ERROR_NOT_SUPPORTED;
	*count = COMPUTE_SLICES;
	return NVML_SUCCESS;
}

static nvmlReturn_t by_index(struct gwsim_gpu *g, const struct gwsim_mig_dev *m, unsigned int i,
			     nvmlDevice_t *out)
{
	if (!out || m || i >= COMPUTE_SLICES)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!g->st.mig_capable)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!g->st.mig_mode || i >= g->mig.ndev)
		return NVML_ERROR_NOT_FOUND;
	*out = (nvmlDevice_t)(void *)&g->mig.dev[i];
	return NVML_SUCCESS;
}

static nvmlReturn_t parent(struct gwsim_gpu *g, const struct gwsim_mig_dev *m, nvmlDevice_t *out)
{
	if (!out || !m)
		return NVML_ERROR_INVALID_ARGUMENT;
	*out = gwsim_handle(g);
	return NVML_SUCCESS;
}

static nvmlReturn_t put(unsigned int *p, unsigned int v)
{
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	*p = v;
	return NVML_SUCCESS;
}

static nvmlReturn_t mig_attrs(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m,
			      nvmlDeviceAttributes_t *a)
{
	if (!a)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!m) /* whole-GPU attributes are not modelled */
		return NVML_ERROR_NOT_SUPPORTED;
	const struct gwsim_mig_profile *p = g->mig.gi[m->gi].prof;
	memset(a, 0, sizeof(*a));
	a->multiprocessorCount = m->ci_slices == p->slices ? p->sms : m->ci_slices * SM_PER_SLICE;
	a->sharedCopyEngineCount = p->ce;
	a->sharedDecoderCount = p->dec;
	a->sharedEncoderCount = p->enc;
	a->sharedJpegCount = p->jpg;
	a->sharedOfaCount = p->ofa;
	a->gpuInstanceSliceCount = p->slices;
	a->computeInstanceSliceCount = m->ci_slices;
	a->memorySizeMB = p->mem_mib;
	return NVML_SUCCESS;
}

static nvmlReturn_t profile_info(const struct gwsim_gpu *g, const struct gwsim_mig_dev *m, unsigned int id,
				 nvmlGpuInstanceProfileInfo_v2_t *info)
{
	if (!info || m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (info->version != nvmlGpuInstanceProfileInfo_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (!g->st.mig_capable)
		return NVML_ERROR_NOT_SUPPORTED;
	for (size_t i = 0; i < NPROFILES; i++) {
		const struct gwsim_mig_profile *p = &profiles[i];
		if (p->id != id || strcmp(p->model, g->model->key) != 0)
			continue;
		unsigned int version = info->version;
		memset(info, 0, sizeof(*info));
		info->version = version;
		info->id = p->id;
		info->sliceCount = p->slices;
		info->instanceCount = p->instances;
		info->multiprocessorCount = p->sms;
		info->copyEngineCount = p->ce;
		info->decoderCount = p->dec;
		info->encoderCount = p->enc;
		info->jpegCount = p->jpg;
		info->ofaCount = p->ofa;
		info->memorySizeMB = p->mem_mib;
		snprintf(info->name, sizeof(info->name), "MIG %s", p->name);
		return NVML_SUCCESS;
	}
	return id < NVML_GPU_INSTANCE_PROFILE_COUNT ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
}

GWSIM_DEV_MIG(nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t d, unsigned int *count), max_count(g, m, count))
GWSIM_DEV_MIG(nvmlDeviceGetMigDeviceHandleByIndex,
	      (nvmlDevice_t d, unsigned int index, nvmlDevice_t *migDevice), by_index(g, m, index, migDevice))
GWSIM_DEV_MIG(nvmlDeviceIsMigDeviceHandle, (nvmlDevice_t d, unsigned int *isMigDevice),
	      put(isMigDevice, m != NULL))
GWSIM_EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
								       nvmlDevice_t *device)
{
	struct gwsim_gpu *g;
	const struct gwsim_mig_dev *m;
	nvmlReturn_t r = gwsim_enter_mig(migDevice, __func__, &g, &m);
	if (r == NVML_SUCCESS)
		r = parent(g, m, device);
	return gwsim_leave(r);
}
GWSIM_DEV_MIG(nvmlDeviceGetGpuInstanceId, (nvmlDevice_t d, unsigned int *id),
	      m ? put(id, g->mig.gi[m->gi].id) : NVML_ERROR_NOT_SUPPORTED)
GWSIM_DEV_MIG(nvmlDeviceGetComputeInstanceId, (nvmlDevice_t d, unsigned int *id),
	      m ? put(id, m->ci_id) : NVML_ERROR_NOT_SUPPORTED)
GWSIM_DEV_MIG(nvmlDeviceGetAttributes_v2, (nvmlDevice_t d, nvmlDeviceAttributes_t *attributes),
	      mig_attrs(g, m, attributes))
GWSIM_DEV_MIG(nvmlDeviceGetAttributes, (nvmlDevice_t d, nvmlDeviceAttributes_t *attributes),
	      mig_attrs(g, m, attributes))
GWSIM_DEV_MIG(nvmlDeviceGetGpuInstanceProfileInfoV,
	      (nvmlDevice_t d, unsigned int profile, nvmlGpuInstanceProfileInfo_v2_t *info),
	      profile_info(g, m, profile, info))
