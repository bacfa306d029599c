#include "cmd/smi_collect.h"
#include "cmd/smi_util.h"
#include "collect/mig.h"
#include "collect/procs.h"

#include <stdlib.h>
#include <string.h>

#define SET(dst, ...) snprintf((dst), sizeof(dst), __VA_ARGS__)

bool gw_smi_field_text(const struct gw_read_ctx *c, const char *name, char *buf, size_t n, bool *lost)
{
	buf[0] = '\0';
	const struct gw_field *f = gw_field_find(name);
	if (!f)
		return false;
	struct gw_value v;
	memset(&v, 0, sizeof(v));
	if (gw_field_read(f, c, &v) != 0)
		return false;
	if (v.state == GW_V_GPU_LOST && lost)
		*lost = true;
	if (v.state != GW_V_OK)
		return false;
	gw_field_format(f, &v, GW_FMT_NOUNITS, buf, n);
	return true;
}

void gw_smi_collect_head(struct gw_nvml *nv, struct gw_smi_head *h, const struct timespec *now)
{
	memset(h, 0, sizeof(*h));
	h->stamp = gw_smi_localtime(now);
	SET(h->driver, "N/A");
	SET(h->cuda, "N/A");
	if (nv->nvmlSystemGetDriverVersion &&
	    nv->nvmlSystemGetDriverVersion(h->driver, sizeof(h->driver)) != NVML_SUCCESS)
		SET(h->driver, "N/A");
	int cuda = 0;
	/* 13010 -> "13.1": major = v / 1000, minor = v % 1000 / 10 */
	if (nv->nvmlSystemGetCudaDriverVersion_v2 && nv->nvmlSystemGetCudaDriverVersion_v2(&cuda) == NVML_SUCCESS)
		SET(h->cuda, "%d.%d", cuda / 1000, cuda % 1000 / 10);
	/* nvidia-smi is versioned with the driver it ships in */
	SET(h->smi_version, "%s", h->driver);
}

/* "Enabled"/"Disabled" as the table's "On"/"Off". */
static void on_off(char *dst, size_t n, const char *text, bool ok)
{
	const char *s = !ok ? "N/A" : strcmp(text, "Enabled") == 0 ? "On" : strcmp(text, "Disabled") == 0 ? "Off" : "N/A";
	snprintf(dst, n, "%s", s);
}

/* Field text plus a suffix ("37" -> "37%"), cutting decimals ("627.40" -> "627W"). */
static void with_unit(const struct gw_read_ctx *c, const char *field, const char *unit, char *dst, size_t n,
		      bool *lost)
{
	char t[GW_VALUE_STR_MAX];
	if (!gw_smi_field_text(c, field, t, sizeof(t), lost)) {
		snprintf(dst, n, "N/A");
		return;
	}
	t[strcspn(t, ".")] = '\0';
	snprintf(dst, n, "%.12s%s", t, unit);
}

static const struct {
	const char *query; /* compute_mode as --query-gpu prints it */
	const char *table;
} compute_modes[] = {
	{"Default", "Default"},
	{"Exclusive_Thread", "E. Thread"},
	{"Exclusive_Process", "E. Process"},
	{"Prohibited", "Prohibited"},
};

static void compute_mode(const struct gw_read_ctx *c, char *dst, size_t n, bool *lost)
{
	char t[GW_VALUE_STR_MAX];
	snprintf(dst, n, "N/A");
	if (!gw_smi_field_text(c, "compute_mode", t, sizeof(t), lost))
		return;
	for (size_t i = 0; i < sizeof(compute_modes) / sizeof(compute_modes[0]); i++)
		if (strcmp(t, compute_modes[i].query) == 0)
			snprintf(dst, n, "%s", compute_modes[i].table);
}

int gw_smi_collect_gpu(const struct gw_read_ctx *c, struct gw_smi_gpu_row *r)
{
	bool lost = c->gpu->lost;
	char t[GW_VALUE_STR_MAX];
	bool ok;
	memset(r, 0, sizeof(*r));
	r->index = c->gpu->index;
	SET(r->name, "%s", c->gpu->name);
	SET(r->bus_id, "%s", c->gpu->bus_id);
	ok = gw_smi_field_text(c, "persistence_mode", t, sizeof(t), &lost);
	on_off(r->persistence, sizeof(r->persistence), t, ok);
	ok = gw_smi_field_text(c, "display_active", t, sizeof(t), &lost);
	on_off(r->disp, sizeof(r->disp), t, ok);
	ok = gw_smi_field_text(c, "mig.mode.current", t, sizeof(t), &lost);
	bool mig = ok && strcmp(t, "Enabled") == 0;
	SET(r->mig, "%.20s", ok && (mig || strcmp(t, "Disabled") == 0) ? t : "N/A");
	if (mig) {
		/* with MIG on, errors are per instance: the column shows the ECC mode */
		ok = gw_smi_field_text(c, "ecc.mode.current", t, sizeof(t), &lost);
		on_off(r->ecc, sizeof(r->ecc), t, ok);
	} else if (!gw_smi_field_text(c, "ecc.errors.uncorrected.volatile.total", r->ecc, sizeof(r->ecc), &lost)) {
		SET(r->ecc, "N/A");
	}
	with_unit(c, "fan.speed", "%", r->fan, sizeof(r->fan), &lost);
	with_unit(c, "temperature.gpu", "C", r->temp, sizeof(r->temp), &lost);
	if (!gw_smi_field_text(c, "pstate", r->perf, sizeof(r->perf), &lost))
		SET(r->perf, "N/A");
	with_unit(c, "power.draw", "W", r->pwr_use, sizeof(r->pwr_use), &lost);
	with_unit(c, "power.limit", "W", r->pwr_cap, sizeof(r->pwr_cap), &lost);
	with_unit(c, "memory.used", "MiB", r->mem_used, sizeof(r->mem_used), &lost);
	with_unit(c, "memory.total", "MiB", r->mem_total, sizeof(r->mem_total), &lost);
	if (mig)
		SET(r->util, "N/A");
	else
		with_unit(c, "utilization.gpu", "%", r->util, sizeof(r->util), &lost);
	compute_mode(c, r->compute, sizeof(r->compute), &lost);
	return lost ? GW_EGPULOST : 0;
}

int gw_smi_collect_procs(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_smi_proc_row **rows, size_t *n)
{
	if (gpu->lost)
		return GW_EGPULOST;
	struct gw_procs p;
	int rc = gw_procs_list(nv, gpu->dev, &p);
	if (rc != 0)
		return rc;
	gw_procs_sort_pid(&p);
	struct gw_smi_proc_row *nr = realloc(*rows, (*n + p.n + 1) * sizeof(*nr));
	if (!nr) {
		gw_procs_release(&p);
		return GW_ENOMEM;
	}
	*rows = nr;
	for (size_t i = 0; i < p.n; i++) {
		struct gw_smi_proc_row *r = &nr[(*n)++];
		const struct gw_proc *e = &p.v[i];
		memset(r, 0, sizeof(*r));
		r->gpu = gpu->index;
		if (e->gi == GW_PROC_ID_NONE)
			SET(r->gi, "N/A");
		else
			SET(r->gi, "%u", e->gi);
		if (e->ci == GW_PROC_ID_NONE)
			SET(r->ci, "N/A");
		else
			SET(r->ci, "%u", e->ci);
		r->pid = e->pid;
		SET(r->type, "%s", e->compute && e->graphics ? "C+G" : e->compute ? "C" : "G");
		SET(r->name, "%s", e->name[0] ? e->name : "N/A");
		if (e->mem_valid)
			gw_smi_cell_mib(r->mem, sizeof(r->mem), e->used_bytes);
		else
			SET(r->mem, "N/A");
	}
	gw_procs_release(&p);
	return 0;
}

/* A count as the MIG table prints it, "N/A" when NVML did not say. */
static void count_cell(char *dst, size_t n, bool ok, unsigned long long v)
{
	char t[24];
	int k = ok ? snprintf(t, sizeof(t), "%llu", v) : snprintf(t, sizeof(t), "N/A");
	size_t len = (size_t)k < n ? (size_t)k : n - 1; /* cells are sized for what a board can have */
	memcpy(dst, t, len);
	dst[len] = '\0';
}

static void mib_cell(char *dst, size_t n, bool ok, uint64_t bytes)
{
	if (ok)
		gw_smi_cell_mib(dst, n, bytes);
	else
		snprintf(dst, n, "N/A");
}

int gw_smi_collect_migs(struct gw_nvml *nv, const struct gw_gpu *gpu, struct gw_smi_mig_row **rows, size_t *n)
{
	if (gpu->lost)
		return GW_EGPULOST;
	struct gw_migs m;
	int rc = gw_mig_list(nv, gpu->dev, &m);
	if (rc != 0 || m.n == 0)
		return rc;
	struct gw_smi_mig_row *nr = realloc(*rows, (*n + m.n) * sizeof(*nr));
	if (!nr) {
		gw_migs_release(&m);
		return GW_ENOMEM;
	}
	*rows = nr;
	for (size_t i = 0; i < m.n; i++) {
		const struct gw_mig *e = &m.v[i];
		struct gw_smi_mig_row *r = &nr[(*n)++];
		bool a = e->attrs_valid;
		memset(r, 0, sizeof(*r));
		r->gpu = gpu->index;
		r->gi = e->gi;
		r->ci = e->ci;
		r->dev = e->index;
		mib_cell(r->mem_used, sizeof(r->mem_used), e->mem_valid, e->mem_used);
		mib_cell(r->mem_total, sizeof(r->mem_total), e->mem_valid, e->mem_total);
		mib_cell(r->bar1_used, sizeof(r->bar1_used), e->bar1_valid, e->bar1_used);
		mib_cell(r->bar1_total, sizeof(r->bar1_total), e->bar1_valid, e->bar1_total);
		count_cell(r->sm, sizeof(r->sm), a, e->attrs.multiprocessorCount);
		count_cell(r->ecc, sizeof(r->ecc), e->ecc_valid, e->ecc_unc_volatile);
		count_cell(r->ce, sizeof(r->ce), a, e->attrs.sharedCopyEngineCount);
		count_cell(r->enc, sizeof(r->enc), a, e->attrs.sharedEncoderCount);
		count_cell(r->dec, sizeof(r->dec), a, e->attrs.sharedDecoderCount);
		count_cell(r->ofa, sizeof(r->ofa), a, e->attrs.sharedOfaCount);
		count_cell(r->jpg, sizeof(r->jpg), a, e->attrs.sharedJpegCount);
	}
	gw_migs_release(&m);
	return 0;
}

int gw_smi_list_migs(FILE *out, struct gw_nvml *nv, const struct gw_gpu *gpu)
{
	if (gpu->lost)
		return GW_EGPULOST;
	struct gw_migs m;
	int rc = gw_mig_list(nv, gpu->dev, &m);
	for (size_t i = 0; rc == 0 && i < m.n; i++)
		gw_smi_list_mig(out, m.v[i].profile[0] ? m.v[i].profile : "N/A", m.v[i].index,
				m.v[i].uuid[0] ? m.v[i].uuid : "N/A");
	if (rc == 0)
		gw_migs_release(&m);
	return rc;
}
