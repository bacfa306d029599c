/*
 * model.c - copies sampler frames into the UI's model: current values,
 * history rings, events and the flat process table.
 */
#include "ui/model_priv.h"

#include "core/err.h"
#include "fields/fields_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_field[GW_UC__COUNT] = {
#define GW_UI_COL_NAME(id, name) name,
	GW_UI_COLS(GW_UI_COL_NAME)
#undef GW_UI_COL_NAME
};

/* DCGM profiling fields; the table may not have them (then the UI hides them). */
static const char *const prof_dcgm[GW_UP__COUNT] = {"DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"};

static size_t index_of(const struct gw_field *f)
{
	for (size_t i = 0; f && i < gw_fields_count(); i++)
		if (gw_field_at(i) == f)
			return i;
	return SIZE_MAX;
}

static size_t index_of_dcgm(const char *dcgm)
{
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->dcgm && strcmp(f->dcgm, dcgm) == 0)
			return i;
	}
	return SIZE_MAX;
}

int gw_ui_model_init(struct gw_ui_model *m, unsigned int hist_cap)
{
	memset(m, 0, sizeof(*m));
	if (hist_cap < 2)
		return GW_EINVAL;
	m->hist_cap = hist_cap;
	m->hist_t = calloc(hist_cap, sizeof(*m->hist_t));
	if (!m->hist_t)
		return GW_ENOMEM;
	/* _any: PCIe throughput is no --query-gpu field (nvidia-smi has none), but the table reads it */
	for (int c = 0; c < GW_UC__COUNT; c++)
		m->fidx[c] = index_of(gw_field_find_any(col_field[c]));
	for (int p = 0; p < GW_UP__COUNT; p++)
		m->pidx[p] = index_of_dcgm(prof_dcgm[p]);
	return 0;
}

void gw_ui_model_release(struct gw_ui_model *m)
{
	gw_ui_model_watch_release(m);
	for (unsigned int g = 0; g < m->ngpus; g++)
		for (int k = 0; k < GW_UM__COUNT; k++)
			free(m->gpus[g].hist[k]);
	free(m->gpus);
	free(m->hist_t);
	free(m->procs);
	free(m->nodes);
	memset(m, 0, sizeof(*m));
}

void gw_ui_model_clear_history(struct gw_ui_model *m)
{
	m->hist_n = 0;
	m->hist_head = 0;
}

bool gw_ui_num(const struct gw_value *v, double *out)
{
	if (v->state != GW_V_OK || v->kind == GW_VK_STR)
		return false;
	*out = v->kind == GW_VK_FLOAT ? v->d : (double)v->i;
	return true;
}

static int size_gpus(struct gw_ui_model *m, const struct gw_frame *f)
{
	m->gpus = calloc(f->ngpus ? f->ngpus : 1, sizeof(*m->gpus));
	if (!m->gpus)
		return GW_ENOMEM;
	m->ngpus = f->ngpus;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		struct gw_ui_gpu *u = &m->gpus[g];
		const struct gw_gpu *id = f->gpus[g].gpu;
		u->index = id->index;
		u->node = GW_UI_NO_NODE;
		u->ttf_s = -1;
		snprintf(u->name, sizeof(u->name), "%s", id->name);
		snprintf(u->bus_id, sizeof(u->bus_id), "%s", id->bus_id);
		for (int k = 0; k < GW_UM__COUNT; k++) {
			u->hist[k] = malloc(sizeof(float) * m->hist_cap);
			if (!u->hist[k])
				return GW_ENOMEM;
		}
	}
	return 0;
}

void gw_ui_model_add_event(struct gw_ui_model *m, int64_t t_ms, unsigned int gpu, const char *where,
			   const char *text)
{
	struct gw_ui_event *e = &m->events[m->events_head];
	e->t_ms = t_ms;
	e->gpu = gpu;
	snprintf(e->where, sizeof(e->where), "%s", where);
	snprintf(e->text, sizeof(e->text), "%s", text);
	m->events_head = (m->events_head + 1) % GW_UI_EVENTS_MAX;
	if (m->nevents < GW_UI_EVENTS_MAX)
		m->nevents++;
	m->events_total++;
}

const struct gw_ui_event *gw_ui_model_event(const struct gw_ui_model *m, unsigned int i)
{
	if (i >= m->nevents)
		return NULL;
	return &m->events[(m->events_head + GW_UI_EVENTS_MAX - 1 - i) % GW_UI_EVENTS_MAX];
}

/* New XIDs, ECC events and the loss, compared with what the model had. */
static void diff_events(struct gw_ui_model *m, unsigned int g, const struct gw_frame_gpu *fg, int64_t t_ms)
{
	struct gw_ui_gpu *u = &m->gpus[g];
	uint64_t xids = 0;
	char text[48], where[16];
	snprintf(where, sizeof(where), "GPU %u", u->index);
	for (unsigned int i = 0; i < fg->nxid; i++)
		xids += fg->xid[i].count;
	if (xids > u->xid_total && fg->last_xid) {
		snprintf(text, sizeof(text), "XID %u", fg->last_xid);
		gw_ui_model_add_event(m, t_ms, g, where, text);
	}
	if (fg->sbe_events > u->sbe) {
		snprintf(text, sizeof(text), "ECC SBE +%llu", (unsigned long long)(fg->sbe_events - u->sbe));
		gw_ui_model_add_event(m, t_ms, g, where, text);
	}
	if (fg->dbe_events > u->dbe) {
		snprintf(text, sizeof(text), "ECC DBE +%llu", (unsigned long long)(fg->dbe_events - u->dbe));
		gw_ui_model_add_event(m, t_ms, g, where, text);
	}
	if (fg->lost && !u->lost)
		gw_ui_model_add_event(m, t_ms, g, where, "GPU lost (fell off the bus)");
	u->xid_total = xids;
	u->sbe = fg->sbe_events;
	u->dbe = fg->dbe_events;
	u->last_xid = fg->last_xid;
	u->lost = fg->lost;
}

float gw_ui_model_metric(const struct gw_ui_gpu *u, enum gw_ui_metric k)
{
	double a, b;
	switch (k) {
	case GW_UM_UTIL:
		return gw_ui_num(&u->cur[GW_UC_UTIL], &a) ? (float)a : NAN;
	case GW_UM_MEM: /* percent of total, so GPUs of different sizes share a scale */
		if (gw_ui_num(&u->cur[GW_UC_MEMUSED], &a) && gw_ui_num(&u->cur[GW_UC_MEMTOTAL], &b) && b > 0)
			return (float)(a / b * 100.0);
		return NAN;
	case GW_UM_POWER: /* W */
		return gw_ui_num(&u->cur[GW_UC_POWER], &a) ? (float)(a / 1000.0) : NAN;
	case GW_UM_TEMP:
		return gw_ui_num(&u->cur[GW_UC_TEMP], &a) ? (float)a : NAN;
	default:
		return NAN;
	}
}

static void owner_of(const struct gw_attr *a, char *buf, size_t n)
{
	if (a->pod_uid[0])
		snprintf(buf, n, "pod:%s", a->pod_uid);
	else if (a->slurm_job[0])
		snprintf(buf, n, "job:%s", a->slurm_job);
	else if (a->container[0])
		snprintf(buf, n, "ctr:%.12s", a->container); /* docker ps's short id */
	else
		buf[0] = '\0';
}

static int copy_procs(struct gw_ui_model *m, const struct gw_frame *f)
{
	size_t total = 0;
	for (unsigned int g = 0; g < f->ngpus; g++)
		total += f->gpus[g].procs.n;
	if (total > m->procs_cap) {
		struct gw_ui_proc *p = realloc(m->procs, total * sizeof(*p));
		if (!p)
			return GW_ENOMEM;
		m->procs = p;
		m->procs_cap = total;
	}
	m->nprocs = 0;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_procs *ps = &f->gpus[g].procs;
		for (size_t i = 0; i < ps->n; i++) {
			const struct gw_proc *s = &ps->v[i];
			struct gw_ui_proc *d = &m->procs[m->nprocs++];
			d->pid = s->pid;
			d->gpu = f->gpus[g].gpu->index;
			d->mem_valid = s->mem_valid;
			d->mem_bytes = s->used_bytes;
			d->sm_pct = s->sm_pct;
			snprintf(d->type, sizeof(d->type), "%s", s->compute && s->graphics ? "C+G" : s->graphics ? "G" : "C");
			snprintf(d->user, sizeof(d->user), "%s", s->attr.user);
			owner_of(&s->attr, d->owner, sizeof(d->owner));
			snprintf(d->cmd, sizeof(d->cmd), "%s", s->name);
			d->node[0] = '\0'; /* this machine's */
		}
	}
	return 0;
}

int gw_ui_model_update(struct gw_ui_model *m, const struct gw_frame *f, bool *changed)
{
	*changed = false;
	if (!f || f->seq == m->last_seq)
		return 0;
	if (!m->gpus) {
		int rc = size_gpus(m, f);
		if (rc)
			return rc;
	} else if (f->ngpus != m->ngpus) {
		return GW_EINVAL;
	}
	unsigned int slot = m->hist_head;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		struct gw_ui_gpu *u = &m->gpus[g];
		for (int c = 0; c < GW_UC__COUNT; c++) {
			if (m->fidx[c] != SIZE_MAX && !fg->lost)
				u->cur[c] = fg->v[m->fidx[c]];
			else
				u->cur[c].state = fg->lost ? GW_V_GPU_LOST : GW_V_NA;
		}
		for (int p = 0; p < GW_UP__COUNT; p++) {
			if (m->pidx[p] != SIZE_MAX && !fg->lost)
				u->prof[p] = fg->v[m->pidx[p]];
			else
				u->prof[p].state = GW_V_NA;
		}
		if (!m->last_seq) { /* counts before the first frame are history, not news */
			u->xid_total = 0;
			for (unsigned int i = 0; i < fg->nxid; i++)
				u->xid_total += fg->xid[i].count;
			u->sbe = fg->sbe_events;
			u->dbe = fg->dbe_events;
		}
		diff_events(m, g, fg, f->t_ms);
		for (int k = 0; k < GW_UM__COUNT; k++)
			u->hist[k][slot] = gw_ui_model_metric(u, (enum gw_ui_metric)k);
	}
	m->hist_t[slot] = f->t_ms;
	m->hist_head = (slot + 1) % m->hist_cap;
	if (m->hist_n < m->hist_cap)
		m->hist_n++;
	m->last_seq = f->seq;
	m->last_t_ms = f->t_ms;
	*changed = true;
	int rc = gw_ui_model_watch(m, f);
	return rc ? rc : copy_procs(m, f);
}

/*
 * Ticks come at most 10 s apart (the slowest refresh); two samples further
 * apart than this had missed ticks between them, a gap the chart shows.
 */
#define HOLD_MAX_MS 15000

/* The column of time t in a window of ncols columns from start; -1 before it. */
static long column_of(int64_t t, int64_t start, int64_t window_ms, unsigned int ncols)
{
	if (t < start)
		return -1;
	long col = (long)((t - start) * (int64_t)ncols / (window_ms + 1));
	return col >= (long)ncols ? (long)ncols - 1 : col;
}

void gw_ui_hist_series(const struct gw_ui_model *m, unsigned int gpu, enum gw_ui_metric metric, int64_t now_ms,
		       int64_t window_ms, float *out, unsigned int ncols)
{
	for (unsigned int c = 0; c < ncols; c++)
		out[c] = NAN;
	if (gpu >= m->ngpus || ncols == 0 || window_ms <= 0)
		return;
	const float *ring = m->gpus[gpu].hist[metric];
	int64_t start = now_ms - window_ms;
	/* the sample after the one at hand (newer), once one is seen: its time, column and whether it had a value */
	int64_t next_t = 0;
	long next_col = -1;
	bool next_ok = false;
	/* newest first; stop at the first sample older than the window */
	for (unsigned int i = 0; i < m->hist_n; i++) {
		unsigned int s = (m->hist_head + m->hist_cap - 1 - i) % m->hist_cap;
		int64_t t = m->hist_t[s];
		if (t > now_ms)
			continue;
		float x = ring[s];
		long col = column_of(t, start, window_ms, ncols);
		if (col >= 0 && !isnan(x) && (isnan(out[col]) || x > out[col]))
			out[col] = x;
		/* columns narrower than the sampling interval hold this value until the next sample */
		if (next_ok && !isnan(x) && next_t - t <= HOLD_MAX_MS)
			for (long c = col + 1; c < next_col; c++)
				out[c] = x;
		next_t = t;
		next_col = col;
		next_ok = !isnan(x);
		if (col < 0)
			break;
	}
}
