/*
 * proctab.c - process table columns, sort and filter.
 */
#include "ui/proctab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct gw_ui_pcol_info cols[GW_PC__COUNT] = {
	[GW_PC_NODE] = {"NODE", 16, false, false, true},
	[GW_PC_PID] = {"PID", 7, true, false},     [GW_PC_USER] = {"USER", 9, false, false},
	[GW_PC_OWNER] = {"OWNER", 16, false, false}, [GW_PC_GPU] = {"GPU", 3, true, false},
	[GW_PC_MEM] = {"GPU-MEM", 9, true, true},  [GW_PC_SM] = {"SM%", 4, true, true},
	[GW_PC_CMD] = {"COMMAND", 0, false, false},
};

const struct gw_ui_pcol_info *gw_ui_pcol_at(enum gw_ui_pcol c)
{
	return c < GW_PC__COUNT ? &cols[c] : &cols[GW_PC_PID];
}

bool gw_ui_pcol_shown(enum gw_ui_pcol c, bool remote)
{
	return c < GW_PC__COUNT && (remote || !cols[c].remote);
}

enum gw_ui_pcol gw_ui_pcol_step(enum gw_ui_pcol c, int dir, bool remote)
{
	for (int i = 0; i < GW_PC__COUNT; i++) {
		c = (enum gw_ui_pcol)((c + (dir > 0 ? 1 : GW_PC__COUNT - 1)) % GW_PC__COUNT);
		if (gw_ui_pcol_shown(c, remote))
			break;
	}
	return c;
}

void gw_ui_pcell(const struct gw_ui_proc *p, enum gw_ui_pcol c, char *buf, size_t n)
{
	switch (c) {
	case GW_PC_NODE:
		snprintf(buf, n, "%s", p->node[0] ? p->node : "-");
		break;
	case GW_PC_PID:
		snprintf(buf, n, "%u", p->pid);
		break;
	case GW_PC_USER:
		snprintf(buf, n, "%s", p->user[0] ? p->user : "-");
		break;
	case GW_PC_OWNER:
		snprintf(buf, n, "%s", p->owner[0] ? p->owner : "-");
		break;
	case GW_PC_GPU:
		snprintf(buf, n, "%u", p->gpu);
		break;
	case GW_PC_MEM:
		if (p->mem_valid)
			snprintf(buf, n, "%lluMiB", (unsigned long long)(p->mem_bytes >> 20));
		else
			snprintf(buf, n, "-");
		break;
	case GW_PC_SM:
		if (p->sm_pct >= 0)
			snprintf(buf, n, "%d", p->sm_pct);
		else
			snprintf(buf, n, "-");
		break;
	default:
		snprintf(buf, n, "%s", p->cmd[0] ? p->cmd : "?");
		break;
	}
}

bool gw_ui_proc_match(const struct gw_ui_proc *p, const char *filter)
{
	if (!filter || !filter[0])
		return true;
	char cell[GW_PROC_NAME_MAX + 8];
	for (int c = 0; c < GW_PC__COUNT; c++) {
		gw_ui_pcell(p, (enum gw_ui_pcol)c, cell, sizeof(cell));
		if (strcasestr(cell, filter))
			return true;
	}
	return false;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_col(const struct gw_ui_proc *a, const struct gw_ui_proc *b, enum gw_ui_pcol c)
{
	switch (c) {
	case GW_PC_NODE:
		return strcmp(a->node, b->node);
	case GW_PC_PID:
		return cmp_u64(a->pid, b->pid);
	case GW_PC_USER:
		return strcmp(a->user, b->user);
	case GW_PC_OWNER:
		return strcmp(a->owner, b->owner);
	case GW_PC_GPU:
		return cmp_u64(a->gpu, b->gpu);
	case GW_PC_MEM: /* unknown memory sorts below any known amount */
		return cmp_u64(a->mem_valid ? a->mem_bytes + 1 : 0, b->mem_valid ? b->mem_bytes + 1 : 0);
	case GW_PC_SM:
		return (a->sm_pct > b->sm_pct) - (a->sm_pct < b->sm_pct);
	default:
		return strcmp(a->cmd, b->cmd);
	}
}

/* qsort has no context argument in C11; the rows are few, so an insertion
 * sort with the context at hand is simple and stable. */
size_t gw_ui_procs_view(const struct gw_ui_model *m, const char *filter, enum gw_ui_pcol c, bool desc, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		if (!gw_ui_proc_match(&m->procs[i], filter))
			continue;
		size_t j = n++;
		for (; j > 0; j--) {
			const struct gw_ui_proc *a = &m->procs[idx[j - 1]], *b = &m->procs[i];
			int r = cmp_col(a, b, c);
			if (desc)
				r = -r;
			if (r == 0)
				r = strcmp(a->node, b->node);
			if (r == 0)
				r = cmp_u64(a->gpu, b->gpu) ? cmp_u64(a->gpu, b->gpu) : cmp_u64(a->pid, b->pid);
			if (r <= 0)
				break;
			idx[j] = idx[j - 1];
		}
		idx[j] = i;
	}
	return n;
}
