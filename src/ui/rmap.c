/*
 * rmap.c - Prometheus API answers into a remote snapshot, through one
 * table of the metrics top reads (the query is made from the same table).
 */
#include "ui/rsnap.h"

#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

enum rkind {
	RK_COL,  /* a column of the model, value * scale */
	RK_PROF, /* a profiling field, a fraction 0..1 */
	RK_RAW,  /* memory free/total kept for the history and totals */
	RK_XID,  /* the last XID (dcgm-exporter's XID_ERRORS is the last one's number) */
	RK_LOST, /* gpuwatch_gpu_lost */
	RK_PMEM, /* per-process memory, bytes */
	RK_PSM,  /* per-process SM utilisation, a fraction */
	RK_BUILD, /* gpuwatch_build_info: the node's simulated label */
	RK_HEALTH, /* gpuwatch_health_status{system}: 0 pass, 1 warn, 2 fail */
	RK_TTF,    /* gpuwatch_memory_time_to_full_seconds */
};

/*
 * Units: dcgm-exporter's (MiB, W, MHz, KB/s) scaled to the field table's
 * (bytes, mW, MHz, KB/s), so remote values print like local ones. Where two
 * names fill one column (exporters differ in what they keep), prio 0 wins.
 */
static const struct rmetric {
	const char *name;
	enum rkind kind;
	int slot;
	double scale;
	uint8_t prio;
	int um; /* charted metric of the history query: GW_UM_*, or -1; RK_RAW: the raw slot */
} metrics[] = {
	{"DCGM_FI_DEV_GPU_UTIL", RK_COL, GW_UC_UTIL, 1, 0, GW_UM_UTIL},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", RK_COL, GW_UC_MEMUTIL, 1, 0, -1},
	{"DCGM_FI_DEV_FB_USED", RK_COL, GW_UC_MEMUSED, MIB, 0, GW_UI_RAW_USED + 100},
	{"DCGM_FI_DEV_FB_TOTAL", RK_COL, GW_UC_MEMTOTAL, MIB, 0, GW_UI_RAW_TOTAL + 100},
	{"DCGM_FI_DEV_FB_FREE", RK_RAW, GW_UI_RAW_FREE, MIB, 0, GW_UI_RAW_FREE + 100},
	{"DCGM_FI_DEV_GPU_TEMP", RK_COL, GW_UC_TEMP, 1, 0, GW_UM_TEMP},
	{"DCGM_FI_DEV_POWER_USAGE", RK_COL, GW_UC_POWER, 1000, 0, GW_UM_POWER},
	{"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", RK_COL, GW_UC_PLIMIT, 1000, 0, -1},
	{"DCGM_FI_DEV_POWER_MGMT_LIMIT", RK_COL, GW_UC_PLIMIT, 1000, 1, -1},
	{"DCGM_FI_DEV_SM_CLOCK", RK_COL, GW_UC_SMCLK, 1, 0, -1},
	{"DCGM_FI_DEV_MEM_CLOCK", RK_COL, GW_UC_MEMCLK, 1, 0, -1},
	{"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", RK_COL, GW_UC_PCIERX, 1, 0, -1},
	{"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", RK_COL, GW_UC_PCIETX, 1, 0, -1},
	{"DCGM_FI_DEV_FAN_SPEED", RK_COL, GW_UC_FAN, 1, 0, -1},
	{"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", RK_COL, GW_UC_REASONS, 1, 0, -1},
	{"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", RK_COL, GW_UC_REASONS, 1, 1, -1},
	{"DCGM_FI_DEV_PSTATE", RK_COL, GW_UC_PSTATE, 1, 0, -1},
	/* gpuwatch's own names, for what dcgm-exporter's default set leaves out */
	{"gpuwatch_memory_total_bytes", RK_COL, GW_UC_MEMTOTAL, 1, 1, -1},
	{"gpuwatch_pcie_rx_bytes_per_second", RK_COL, GW_UC_PCIERX, 1 / 1024.0, 1, -1},
	{"gpuwatch_pcie_tx_bytes_per_second", RK_COL, GW_UC_PCIETX, 1 / 1024.0, 1, -1},
	{"gpuwatch_pstate", RK_COL, GW_UC_PSTATE, 1, 1, -1},
	{"gpuwatch_clocks_event_reasons", RK_COL, GW_UC_REASONS, 1, 2, -1},
	/* dcgm-exporter's default set has PCIe only as profiling rates (bytes/s, headers included) */
	{"DCGM_FI_PROF_PCIE_RX_BYTES", RK_COL, GW_UC_PCIERX, 1 / 1024.0, 2, -1},
	{"DCGM_FI_PROF_PCIE_TX_BYTES", RK_COL, GW_UC_PCIETX, 1 / 1024.0, 2, -1},
	{"DCGM_FI_PROF_SM_ACTIVE", RK_PROF, GW_UP_SMACT, 1, 0, -1},
	{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", RK_PROF, GW_UP_TENSOR, 1, 0, -1},
	{"DCGM_FI_DEV_XID_ERRORS", RK_XID, 0, 1, 0, -1},
	{"gpuwatch_gpu_lost", RK_LOST, 0, 1, 0, -1},
	{"gpuwatch_process_memory_used_bytes", RK_PMEM, 0, 1, 0, -1},
	{"gpuwatch_process_sm_utilization_ratio", RK_PSM, 0, 1, 0, -1},
	{"gpuwatch_build_info", RK_BUILD, 0, 1, 0, -1},
	{"gpuwatch_health_status", RK_HEALTH, 0, 1, 0, -1},
	{"gpuwatch_memory_time_to_full_seconds", RK_TTF, 0, 1, 0, -1},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static void names_query(char *buf, size_t n, bool hist)
{
	size_t len = (size_t)snprintf(buf, n, "{__name__=~\"");
	bool first = true;
	for (size_t i = 0; i < NMETRICS && len < n; i++) {
		if (hist && metrics[i].um < 0)
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", first ? "" : "|", metrics[i].name);
		first = false;
	}
	if (len < n)
		snprintf(buf + len, n - len, "\"}");
}

void gw_ui_rmap_query(char *buf, size_t n)
{
	names_query(buf, n, false);
}

void gw_ui_rmap_hist_query(char *buf, size_t n)
{
	names_query(buf, n, true);
}

bool gw_ui_rmap_wanted(const char *name)
{
	for (size_t i = 0; i < NMETRICS; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return true;
	return false;
}

void gw_ui_rsnap_free(struct gw_ui_rsnap *s)
{
	if (!s)
		return;
	for (unsigned int g = 0; g < s->ngpus; g++)
		free(s->gpus[g].hist[0]); /* one block holds every history array of the GPU */
	free(s->nodes);
	free(s->gpus);
	free(s->procs);
	free(s);
}

int gw_ui_rbuild_init(struct gw_ui_rbuild *b, int64_t t_ms)
{
	memset(b, 0, sizeof(*b));
	b->s = calloc(1, sizeof(*b->s));
	if (!b->s)
		return GW_ENOMEM;
	b->s->t_ms = t_ms;
	return 0;
}

void gw_ui_rbuild_release(struct gw_ui_rbuild *b)
{
	gw_ui_rsnap_free(b->s);
	free(b->proc_node);
	memset(b, 0, sizeof(*b));
}

/* Grow *p (elements of size sz, *cap of them) to hold need; false after a failure. */
static bool grow(struct gw_ui_rbuild *b, void **p, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 8;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * sz);
	if (!q) {
		b->err = GW_ENOMEM;
		return false;
	}
	memset((char *)q + *cap * sz, 0, (c - *cap) * sz);
	*p = q;
	*cap = c;
	return true;
}

int gw_ui_rbuild_node(struct gw_ui_rbuild *b, const char *name, const char *key)
{
	struct gw_ui_rsnap *s = b->s;
	size_t cap = b->nodes_cap;
	if (!grow(b, (void **)&s->nodes, &cap, s->nnodes + 1, sizeof(*s->nodes)))
		return -1;
	b->nodes_cap = (unsigned int)cap;
	struct gw_ui_rnode *n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->key, sizeof(n->key), "%s", key);
	return (int)s->nnodes++;
}

/* The node a series belongs to: given, or found (added) by its instance label. */
static int node_of(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r, const struct gw_ui_series *se, int node)
{
	const char *host = gw_ui_promresp_label(r, se, "Hostname");
	if (node < 0) {
		const char *key = gw_ui_promresp_label(r, se, "instance");
		if (!key)
			key = host ? host : "";
		for (unsigned int i = 0; i < b->s->nnodes && node < 0; i++)
			if (strcmp(b->s->nodes[i].key, key) == 0)
				node = (int)i;
		if (node < 0 && (node = gw_ui_rbuild_node(b, key[0] ? key : "?", key)) < 0)
			return -1;
	}
	if (host && !b->s->nodes[node].host[0])
		snprintf(b->s->nodes[node].host, sizeof(b->s->nodes[node].host), "%s", host);
	return node;
}

static bool label_uint(const struct gw_ui_promresp *r, const struct gw_ui_series *se, const char *name,
		       unsigned int *out)
{
	const char *v = gw_ui_promresp_label(r, se, name);
	char *end;
	if (!v || !*v)
		return false;
	unsigned long x = strtoul(v, &end, 10);
	if (*end || x > UINT32_MAX - 1)
		return false;
	*out = (unsigned int)x;
	return true;
}

/* The GPU (node, index), added when new; NULL after a failure or without a gpu label. */
static struct gw_ui_rgpu *gpu_of(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r,
				 const struct gw_ui_series *se, int node)
{
	unsigned int idx;
	if (!label_uint(r, se, "gpu", &idx))
		return NULL;
	struct gw_ui_rsnap *s = b->s;
	for (unsigned int g = s->ngpus; g-- > 0;)
		if (s->gpus[g].node == (unsigned int)node && s->gpus[g].index == idx)
			return &s->gpus[g];
	size_t cap = b->gpus_cap;
	if (!grow(b, (void **)&s->gpus, &cap, s->ngpus + 1, sizeof(*s->gpus)))
		return NULL;
	b->gpus_cap = (unsigned int)cap;
	struct gw_ui_rgpu *u = &s->gpus[s->ngpus++];
	memset(u, 0, sizeof(*u));
	u->node = (unsigned int)node;
	u->index = idx;
	for (int c = 0; c < GW_UC__COUNT; c++) {
		u->cur[c].state = GW_V_NA;
		u->prio[c] = UINT8_MAX;
	}
	for (int p = 0; p < GW_UP__COUNT; p++)
		u->prof[p].state = GW_V_NA;
	u->ttf_s = -1;
	return u;
}

/* One system's verdict from gpuwatch_health_status; the GPU's is the worst. */
static void health_sample(struct gw_ui_rgpu *u, const struct gw_ui_promresp *r, const struct gw_ui_series *se,
			  double v)
{
	const char *sys = gw_ui_promresp_label(r, se, "system");
	if (!sys || !(v >= 0 && v <= GW_HEALTH_FAIL))
		return;
	for (int s = 0; s < GW_HSYS__COUNT; s++)
		if (strcmp(gw_health_system_name((enum gw_health_system)s), sys) == 0) {
			u->health.known = true;
			u->health.system[s] = (uint8_t)v;
			if (u->health.status < (uint8_t)v)
				u->health.status = (uint8_t)v;
		}
}

void gw_ui_rbuild_health(struct gw_ui_rbuild *b, const struct gw_ui_rhealth *h, int node)
{
	struct gw_ui_rsnap *s = b->s;
	for (unsigned int i = 0; i < h->n; i++) {
		const struct gw_ui_rhealth_gpu *hg = &h->gpus[i];
		for (unsigned int g = 0; g < s->ngpus; g++) {
			struct gw_ui_rgpu *u = &s->gpus[g];
			bool same = u->uuid[0] && hg->uuid[0] ? strcmp(u->uuid, hg->uuid) == 0 : u->index == hg->index;
			if (u->node == (unsigned int)node && same)
				u->health = hg->h;
		}
	}
}

/* Names and bus id from whichever labels the exporter uses. */
static void identify(struct gw_ui_rgpu *u, const struct gw_ui_promresp *r, const struct gw_ui_series *se)
{
	const char *v;
	if (!u->uuid[0] && ((v = gw_ui_promresp_label(r, se, "UUID")) || (v = gw_ui_promresp_label(r, se, "uuid"))))
		snprintf(u->uuid, sizeof(u->uuid), "%s", v);
	if (!u->name[0] && ((v = gw_ui_promresp_label(r, se, "modelName")) || (v = gw_ui_promresp_label(r, se, "model"))))
		snprintf(u->name, sizeof(u->name), "%s", v);
	if (!u->bus_id[0] && (v = gw_ui_promresp_label(r, se, "pci_bus_id")))
		snprintf(u->bus_id, sizeof(u->bus_id), "%s", v);
}

static void set_value(struct gw_value *val, double v, bool integral)
{
	val->state = GW_V_OK;
	val->kind = integral ? GW_VK_INT : GW_VK_FLOAT;
	val->i = integral ? (int64_t)llround(v) : 0;
	val->d = v;
}

/* The process (node, gpu, pid), added when new. */
static struct gw_ui_proc *proc_of(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r,
				  const struct gw_ui_series *se, int node)
{
	unsigned int gpu, pid;
	if (!label_uint(r, se, "gpu", &gpu) || !label_uint(r, se, "pid", &pid))
		return NULL;
	struct gw_ui_rsnap *s = b->s;
	for (size_t i = 0; i < s->nprocs; i++)
		if (b->proc_node[i] == (unsigned int)node && s->procs[i].gpu == gpu && s->procs[i].pid == pid)
			return &s->procs[i];
	size_t cap = b->procs_cap, cap2 = b->procs_cap;
	if (!grow(b, (void **)&s->procs, &cap, s->nprocs + 1, sizeof(*s->procs)) ||
	    !grow(b, (void **)&b->proc_node, &cap2, s->nprocs + 1, sizeof(*b->proc_node)))
		return NULL;
	b->procs_cap = cap;
	struct gw_ui_proc *p = &s->procs[s->nprocs];
	b->proc_node[s->nprocs++] = (unsigned int)node;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->gpu = gpu;
	p->sm_pct = -1;
	const char *v;
	snprintf(p->type, sizeof(p->type), "%s", (v = gw_ui_promresp_label(r, se, "type")) ? v : "C");
	snprintf(p->user, sizeof(p->user), "%s", (v = gw_ui_promresp_label(r, se, "user")) ? v : "");
	snprintf(p->cmd, sizeof(p->cmd), "%s", (v = gw_ui_promresp_label(r, se, "process")) ? v : "");
	if ((v = gw_ui_promresp_label(r, se, "pod_uid")))
		snprintf(p->owner, sizeof(p->owner), "pod:%s", v);
	else if ((v = gw_ui_promresp_label(r, se, "slurm_job")))
		snprintf(p->owner, sizeof(p->owner), "job:%s", v);
	else if ((v = gw_ui_promresp_label(r, se, "container")))
		snprintf(p->owner, sizeof(p->owner), "ctr:%.12s", v);
	return p;
}

static const struct rmetric *metric_of(const struct gw_ui_promresp *r, const struct gw_ui_series *se)
{
	const char *name = gw_ui_promresp_label(r, se, "__name__");
	for (size_t i = 0; name && i < NMETRICS; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return &metrics[i];
	return NULL;
}

static void add_sample(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r, const struct gw_ui_series *se,
		       const struct rmetric *mt, int node)
{
	double v = se->pts[se->npts - 1].v;
	if (mt->kind == RK_BUILD) { /* the node's, not a GPU's */
		const char *sim = gw_ui_promresp_label(r, se, "simulated");
		b->s->nodes[node].simulated |= sim && strcmp(sim, "true") == 0;
		return;
	}
	if (mt->kind == RK_PMEM || mt->kind == RK_PSM) {
		struct gw_ui_proc *p = proc_of(b, r, se, node);
		if (p && mt->kind == RK_PMEM && v >= 0) {
			p->mem_valid = true;
			p->mem_bytes = (uint64_t)v;
		} else if (p && mt->kind == RK_PSM && v >= 0) {
			p->sm_pct = (int)lround(v * 100);
		}
		return;
	}
	struct gw_ui_rgpu *u = gpu_of(b, r, se, node);
	if (!u || isnan(v))
		return;
	identify(u, r, se);
	switch (mt->kind) {
	case RK_COL:
		if (mt->prio <= u->prio[mt->slot]) {
			bool integral = mt->slot == GW_UC_PSTATE || mt->slot == GW_UC_REASONS;
			set_value(&u->cur[mt->slot], v * mt->scale, integral);
			u->prio[mt->slot] = mt->prio;
		}
		break;
	case RK_PROF: set_value(&u->prof[mt->slot], v, false); break;
	case RK_RAW: /* FB_FREE: only the total is shown, made at the end */
		u->free_valid = true;
		u->free_bytes = v * mt->scale;
		break;
	case RK_XID: u->last_xid = v > 0 && v < 1e9 ? (unsigned int)v : 0; break;
	case RK_LOST: u->lost = v != 0; break;
	case RK_HEALTH: health_sample(u, r, se, v); break;
	case RK_TTF: u->ttf_s = v >= 0 ? v : -1; break;
	default: break;
	}
}

int gw_ui_rbuild_answer(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r, int node)
{
	for (size_t i = 0; i < r->nseries && !b->err; i++) {
		const struct gw_ui_series *se = &r->series[i];
		const struct rmetric *mt = metric_of(r, se);
		if (!mt || se->npts == 0)
			continue;
		int nd = node_of(b, r, se, node);
		if (nd >= 0)
			add_sample(b, r, se, mt, nd);
	}
	return b->err;
}

/* The GPU's history arrays, NAN-filled on first use; false after a failure. */
static bool hist_arrays(struct gw_ui_rbuild *b, struct gw_ui_rgpu *u)
{
	unsigned int n = b->s->hist_n;
	if (u->hist[0])
		return true;
	float *blk = malloc(sizeof(float) * n * (GW_UM__COUNT + GW_UI_RAW__COUNT));
	if (!blk) {
		b->err = GW_ENOMEM;
		return false;
	}
	for (size_t i = 0; i < (size_t)n * (GW_UM__COUNT + GW_UI_RAW__COUNT); i++)
		blk[i] = NAN;
	for (int k = 0; k < GW_UM__COUNT; k++)
		u->hist[k] = blk + (size_t)k * n;
	for (int k = 0; k < GW_UI_RAW__COUNT; k++)
		u->raw[k] = blk + (size_t)(GW_UM__COUNT + k) * n;
	return true;
}

int gw_ui_rbuild_history(struct gw_ui_rbuild *b, const struct gw_ui_promresp *r, int node, int64_t t0,
			 int64_t step, unsigned int n)
{
	struct gw_ui_rsnap *s = b->s;
	if (step <= 0 || n == 0)
		return GW_EINVAL;
	if (!s->hist_n) {
		s->hist_t0 = t0;
		s->hist_step = step;
		s->hist_n = n;
	}
	for (size_t i = 0; i < r->nseries && !b->err; i++) {
		const struct gw_ui_series *se = &r->series[i];
		const struct rmetric *mt = metric_of(r, se);
		if (!mt || mt->um < 0)
			continue;
		int nd = node_of(b, r, se, node);
		struct gw_ui_rgpu *u = nd >= 0 ? gpu_of(b, r, se, nd) : NULL;
		if (!u || !hist_arrays(b, u))
			continue;
		identify(u, r, se);
		float *dst = mt->um >= 100 ? u->raw[mt->um - 100] : u->hist[mt->um];
		for (size_t p = 0; p < se->npts; p++) {
			int64_t off = se->pts[p].t_ms - s->hist_t0;
			int64_t k = (off + s->hist_step / 2) / s->hist_step;
			if (off >= -s->hist_step / 2 && k >= 0 && k < (int64_t)s->hist_n)
				dst[k] = (float)se->pts[p].v;
		}
	}
	return b->err;
}

static void finish_gpu(struct gw_ui_rsnap *s, struct gw_ui_rgpu *u)
{
	double used;
	if (u->cur[GW_UC_MEMTOTAL].state != GW_V_OK && u->free_valid && gw_ui_num(&u->cur[GW_UC_MEMUSED], &used))
		set_value(&u->cur[GW_UC_MEMTOTAL], used + u->free_bytes, false);
	if (!u->hist[0])
		return;
	for (unsigned int k = 0; k < s->hist_n; k++) {
		float usedk = u->raw[GW_UI_RAW_USED][k], totk = u->raw[GW_UI_RAW_TOTAL][k];
		if (isnan(totk))
			totk = usedk + u->raw[GW_UI_RAW_FREE][k];
		u->hist[GW_UM_MEM][k] = totk > 0 ? usedk / totk * 100.0f : NAN;
	}
}

/* Where the Hostname label tells a node apart from every other, it names the node. */
static void name_nodes(struct gw_ui_rsnap *s)
{
	for (unsigned int i = 0; i < s->nnodes; i++) {
		struct gw_ui_rnode *n = &s->nodes[i];
		if (!n->key[0] || !n->host[0])
			continue;
		bool unique = true;
		for (unsigned int j = 0; j < s->nnodes && unique; j++)
			unique = j == i || strcmp(s->nodes[j].host, n->host) != 0;
		snprintf(n->name, sizeof(n->name), "%.*s", (int)sizeof(n->name) - 1, unique ? n->host : n->key);
	}
}

static int cmp_gpu(const void *a, const void *b)
{
	const struct gw_ui_rgpu *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int cmp_node_name(const void *a, const void *b)
{
	return strcmp(((const struct gw_ui_rnode *)a)->name, ((const struct gw_ui_rnode *)b)->name);
}

/* Nodes in name order; GPUs and processes follow their node to its new index. */
static int sort_by_name(struct gw_ui_rbuild *b)
{
	struct gw_ui_rsnap *s = b->s;
	unsigned int *old = malloc(sizeof(*old) * (s->nnodes ? s->nnodes : 1));
	unsigned int *to = malloc(sizeof(*to) * (s->nnodes ? s->nnodes : 1));
	if (!old || !to) {
		free(old);
		free(to);
		return GW_ENOMEM;
	}
	for (unsigned int i = 0; i < s->nnodes; i++)
		old[i] = i;
	for (unsigned int i = 1; i < s->nnodes; i++) /* insertion sort of the permutation */
		for (unsigned int j = i; j > 0 && cmp_node_name(&s->nodes[old[j - 1]], &s->nodes[old[j]]) > 0; j--) {
			unsigned int t = old[j];
			old[j] = old[j - 1];
			old[j - 1] = t;
		}
	for (unsigned int i = 0; i < s->nnodes; i++)
		to[old[i]] = i;
	struct gw_ui_rnode *sorted = malloc(sizeof(*sorted) * (s->nnodes ? s->nnodes : 1));
	if (!sorted) {
		free(old);
		free(to);
		return GW_ENOMEM;
	}
	for (unsigned int i = 0; i < s->nnodes; i++)
		sorted[i] = s->nodes[old[i]];
	memcpy(s->nodes, sorted, sizeof(*sorted) * s->nnodes);
	free(sorted);
	for (unsigned int g = 0; g < s->ngpus; g++)
		s->gpus[g].node = to[s->gpus[g].node];
	for (size_t p = 0; p < s->nprocs; p++)
		b->proc_node[p] = to[b->proc_node[p]];
	free(old);
	free(to);
	return 0;
}

struct gw_ui_rsnap *gw_ui_rbuild_finish(struct gw_ui_rbuild *b, bool sort_nodes)
{
	struct gw_ui_rsnap *s = b->s;
	if (b->err)
		return NULL;
	name_nodes(s);
	if (sort_nodes && sort_by_name(b) != 0)
		return NULL;
	for (unsigned int g = 0; g < s->ngpus; g++)
		finish_gpu(s, &s->gpus[g]);
	if (s->ngpus > 1)
		qsort(s->gpus, s->ngpus, sizeof(*s->gpus), cmp_gpu);
	for (size_t p = 0; p < s->nprocs; p++)
		snprintf(s->procs[p].node, sizeof(s->procs[p].node), "%s", s->nodes[b->proc_node[p]].name);
	b->s = NULL;
	free(b->proc_node);
	b->proc_node = NULL;
	return s;
}
