/*
 * model_remote.c - remote snapshots into the model: nodes, GPUs matched
 * across refreshes (so their history rings follow them), stale and
 * placeholder rows, history from the first snapshot, processes.
 */
#include "ui/model_priv.h"
#include "ui/rsnap.h"

#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rings for a GPU that joins later: NAN where the ring already has times. */
static int alloc_rings(struct gw_ui_model *m, struct gw_ui_gpu *u)
{
	for (int k = 0; k < GW_UM__COUNT; k++) {
		u->hist[k] = malloc(sizeof(float) * m->hist_cap);
		if (!u->hist[k])
			return GW_ENOMEM;
		for (unsigned int i = 0; i < m->hist_cap; i++)
			u->hist[k][i] = NAN;
	}
	return 0;
}

static void free_rings(struct gw_ui_gpu *u)
{
	for (int k = 0; k < GW_UM__COUNT; k++)
		free(u->hist[k]);
}

/* New node table; a node's last answer time and its news become events. */
static int update_nodes(struct gw_ui_model *m, const struct gw_ui_rsnap *s, struct gw_ui_node *nodes)
{
	for (unsigned int i = 0; i < s->nnodes; i++) {
		const struct gw_ui_rnode *r = &s->nodes[i];
		const struct gw_ui_node *old = NULL;
		for (unsigned int j = 0; j < m->nnodes && !old; j++)
			if (strcmp(m->nodes[j].name, r->name) == 0)
				old = &m->nodes[j];
		struct gw_ui_node *n = &nodes[i];
		snprintf(n->name, sizeof(n->name), "%s", r->name);
		n->seen_ms = old ? old->seen_ms : 0;
		n->err = r->pending && old ? old->err : r->err;
		snprintf(n->why, sizeof(n->why), "%s", r->pending && old ? old->why : r->why);
		n->simulated = (r->pending || r->err) && old ? old->simulated : r->simulated;
		snprintf(n->note, sizeof(n->note), "%s", r->note[0] || !old ? r->note : old->note);
		if (r->note[0] && (!old || strcmp(old->note, r->note) != 0))
			gw_ui_model_add_event(m, s->t_ms, UINT32_MAX, n->name, r->note);
		if (r->pending)
			continue;
		if (!r->err)
			n->seen_ms = s->t_ms;
		if (old && !old->err && r->err)
			gw_ui_model_add_event(m, s->t_ms, UINT32_MAX, n->name, r->why);
		else if (old && old->err && !r->err && old->seen_ms)
			gw_ui_model_add_event(m, s->t_ms, UINT32_MAX, n->name, "answers again");
	}
	return 0;
}

static bool same_gpu(const struct gw_ui_gpu *u, const struct gw_ui_rgpu *g)
{
	if (u->placeholder)
		return false;
	if (u->uuid[0] && g->uuid[0])
		return strcmp(u->uuid, g->uuid) == 0;
	return u->index == g->index;
}

static void copy_values(struct gw_ui_model *m, struct gw_ui_gpu *u, const struct gw_ui_rgpu *g, const char *node,
			int64_t t_ms)
{
	char where[96], text[48];
	snprintf(where, sizeof(where), "%s GPU %u", node, g->index);
	if (g->last_xid && g->last_xid != u->last_xid && u->seen_ms) {
		snprintf(text, sizeof(text), "XID %u", g->last_xid);
		gw_ui_model_add_event(m, t_ms, UINT32_MAX, where, text);
	}
	if (g->lost && !u->lost)
		gw_ui_model_add_event(m, t_ms, UINT32_MAX, where, "GPU lost (fell off the bus)");
	if (u->seen_ms) /* not the verdict a GPU is first seen with */
		gw_ui_model_health_news(m, UINT32_MAX, where, &u->health, &g->health, t_ms);
	u->index = g->index;
	snprintf(u->name, sizeof(u->name), "%s", g->name);
	snprintf(u->bus_id, sizeof(u->bus_id), "%s", g->bus_id);
	snprintf(u->uuid, sizeof(u->uuid), "%s", g->uuid);
	memcpy(u->cur, g->cur, sizeof(u->cur));
	memcpy(u->prof, g->prof, sizeof(u->prof));
	u->lost = g->lost;
	u->last_xid = g->last_xid;
	u->health = g->health;
	u->ttf_s = g->ttf_s;
	u->stale = false;
	u->placeholder = false;
	u->seen_ms = t_ms;
}

/*
 * The new GPU list in node order: each node's GPUs from the snapshot
 * (matched to the old rows so their rings follow), then its old GPUs the
 * answer lacked (stale), or a placeholder when it has none. src[i] is the
 * snapshot GPU behind new row i, or -1.
 */
static int arrange(struct gw_ui_model *m, const struct gw_ui_rsnap *s, struct gw_ui_gpu *out, unsigned int *nout,
		   int *src, bool *taken, bool *isnew)
{
	unsigned int n = 0;
	for (unsigned int nd = 0; nd < s->nnodes; nd++) {
		const struct gw_ui_rnode *rn = &s->nodes[nd];
		unsigned int first = n;
		bool fresh = !rn->pending && !rn->err;
		for (unsigned int g = 0; fresh && g < s->ngpus; g++) {
			if (s->gpus[g].node != nd)
				continue;
			int found = -1;
			for (unsigned int o = 0; o < m->ngpus && found < 0; o++)
				if (!taken[o] && m->gpus[o].node != GW_UI_NO_NODE &&
				    strcmp(m->nodes[m->gpus[o].node].name, rn->name) == 0 && same_gpu(&m->gpus[o], &s->gpus[g]))
					found = (int)o;
			struct gw_ui_gpu *u = &out[n];
			if (found >= 0) {
				*u = m->gpus[found];
				taken[found] = true;
			} else {
				memset(u, 0, sizeof(*u));
				isnew[n] = true;
				if (alloc_rings(m, u) != 0) {
					*nout = n + 1;
					return GW_ENOMEM;
				}
			}
			copy_values(m, u, &s->gpus[g], rn->name, s->t_ms);
			u->node = nd;
			src[n++] = (int)g;
		}
		for (unsigned int o = 0; o < m->ngpus; o++) { /* known GPUs without news */
			struct gw_ui_gpu *u = &m->gpus[o];
			if (taken[o] || u->node == GW_UI_NO_NODE || strcmp(m->nodes[u->node].name, rn->name) != 0)
				continue;
			if (u->placeholder && n > first)
				continue; /* real GPUs replace it */
			out[n] = *u;
			taken[o] = true;
			out[n].node = nd;
			if (!rn->pending)
				out[n].stale = true;
			src[n++] = -1;
		}
		if (n == first) { /* a node that never answered: one row says so */
			struct gw_ui_gpu *u = &out[n];
			memset(u, 0, sizeof(*u));
			isnew[n] = true;
			if (alloc_rings(m, u) != 0) {
				*nout = n + 1;
				return GW_ENOMEM;
			}
			u->placeholder = u->stale = true;
			u->ttf_s = -1;
			u->node = nd;
			src[n++] = -1;
		}
	}
	*nout = n;
	return 0;
}

/* The history of the first snapshot, into rings that are still empty. */
static void backfill(struct gw_ui_model *m, const struct gw_ui_rsnap *s, const int *src)
{
	if (!s->hist_n || m->hist_n)
		return;
	for (unsigned int k = 0; k < s->hist_n; k++) {
		int64_t t = s->hist_t0 + (int64_t)k * s->hist_step;
		if (t >= s->t_ms)
			break;
		unsigned int slot = m->hist_head;
		for (unsigned int g = 0; g < m->ngpus; g++)
			for (int q = 0; q < GW_UM__COUNT; q++) {
				const struct gw_ui_rgpu *r = src[g] >= 0 ? &s->gpus[src[g]] : NULL;
				m->gpus[g].hist[q][slot] = r && r->hist[q] ? r->hist[q][k] : NAN;
			}
		m->hist_t[slot] = t;
		m->hist_head = (slot + 1) % m->hist_cap;
		if (m->hist_n < m->hist_cap)
			m->hist_n++;
	}
}

static int copy_procs(struct gw_ui_model *m, const struct gw_ui_rsnap *s)
{
	if (s->nprocs > m->procs_cap) {
		struct gw_ui_proc *p = realloc(m->procs, s->nprocs * sizeof(*p));
		if (!p)
			return GW_ENOMEM;
		m->procs = p;
		m->procs_cap = s->nprocs;
	}
	if (s->nprocs)
		memcpy(m->procs, s->procs, s->nprocs * sizeof(*s->procs));
	m->nprocs = s->nprocs;
	return 0;
}

int gw_ui_model_update_remote(struct gw_ui_model *m, const struct gw_ui_rsnap *s)
{
	size_t maxg = (size_t)m->ngpus + s->ngpus + s->nnodes + 1;
	struct gw_ui_node *nodes = calloc(s->nnodes ? s->nnodes : 1, sizeof(*nodes));
	struct gw_ui_gpu *gpus = calloc(maxg, sizeof(*gpus));
	int *src = calloc(maxg, sizeof(*src));
	bool *taken = calloc(m->ngpus ? m->ngpus : 1, sizeof(*taken));
	bool *isnew = calloc(maxg, sizeof(*isnew));
	int rc = nodes && gpus && src && taken && isnew ? 0 : GW_ENOMEM;
	unsigned int n = 0;
	if (rc == 0)
		rc = update_nodes(m, s, nodes);
	if (rc == 0)
		rc = arrange(m, s, gpus, &n, src, taken, isnew);
	if (rc) {
		for (unsigned int g = 0; g < n; g++) /* only rows new in this call own their rings */
			if (isnew[g])
				free_rings(&gpus[g]);
		free(nodes);
		free(gpus);
		free(src);
		free(taken);
		free(isnew);
		return rc;
	}
	for (unsigned int o = 0; o < m->ngpus; o++) /* rows of nodes no longer listed */
		if (!taken[o])
			free_rings(&m->gpus[o]);
	free(m->gpus);
	free(m->nodes);
	m->gpus = gpus;
	m->ngpus = n;
	m->nodes = nodes;
	m->nnodes = m->nodes_cap = s->nnodes;
	m->remote = true;
	backfill(m, s, src);
	unsigned int slot = m->hist_head;
	for (unsigned int g = 0; g < n; g++)
		for (int k = 0; k < GW_UM__COUNT; k++)
			m->gpus[g].hist[k][slot] = src[g] >= 0 ? gw_ui_model_metric(&m->gpus[g], (enum gw_ui_metric)k) : NAN;
	m->hist_t[slot] = s->t_ms;
	m->hist_head = (slot + 1) % m->hist_cap;
	if (m->hist_n < m->hist_cap)
		m->hist_n++;
	m->last_seq++;
	m->last_t_ms = s->t_ms;
	free(src);
	free(taken);
	free(isnew);
	return copy_procs(m, s);
}
