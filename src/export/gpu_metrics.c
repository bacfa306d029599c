#include "export/gpu_metrics.h"

#include "export/series.h"
#include "export/xid.h"
#include "fields/fields_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Counter sources that are not a field of the table. */
#define SRC_NONE (-1)
#define SRC_LAST_XID (-2)
#define SRC_XID_COUNT (-5)	/* DCGM_EXP_XID_ERRORS_COUNT: frame xid_window, by code */
#define SRC_CLOCK_COUNT (-6) /* DCGM_EXP_CLOCK_EVENTS_COUNT: frame clock_window, by reason */
#define SRC_P2P (-7)	     /* DCGM_EXP_P2P_STATUS: frame p2p_nvlink, by peer */
#define SRC_HEALTH (-8)      /* DCGM_EXP_GPU_HEALTH_STATUS: gw_metrics.health */

static int field_index(const char *name)
{
	for (size_t i = 0; i < gw_fields_count(); i++)
		if (strcmp(gw_field_at(i)->name, name) == 0)
			return (int)i;
	return SRC_NONE;
}

static int source_of(const char *dcgm)
{
	if (strcmp(dcgm, "DCGM_FI_DEV_XID_ERRORS") == 0)
		return SRC_LAST_XID;
	if (strcmp(dcgm, "DCGM_EXP_XID_ERRORS_COUNT") == 0)
		return SRC_XID_COUNT;
	if (strcmp(dcgm, "DCGM_EXP_CLOCK_EVENTS_COUNT") == 0)
		return SRC_CLOCK_COUNT;
	if (strcmp(dcgm, "DCGM_EXP_P2P_STATUS") == 0)
		return SRC_P2P;
	if (strcmp(dcgm, "DCGM_EXP_GPU_HEALTH_STATUS") == 0)
		return SRC_HEALTH;
	/* Not a DCGM field, but the name common alert rules use for the enforced limit. */
	if (strcmp(dcgm, "DCGM_FI_DEV_POWER_LIMIT") == 0)
		return field_index("enforced.power.limit");
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->dcgm && strcmp(f->dcgm, dcgm) == 0)
			return (int)i;
	}
	return SRC_NONE;
}

void gw_metrics_hostname(char *buf, size_t len)
{
	const char *node = getenv("NODE_NAME"); /* Kubernetes sets the node's name here */
	if (node && *node)
		snprintf(buf, len, "%s", node);
	else if (len < 2 || gethostname(buf, len - 1) != 0 || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

int gw_metrics_prepare(struct gw_metrics *m, const struct gw_counters *counters, struct gw_nvml *nv)
{
	memset(m, 0, sizeof(*m));
	m->counters = counters;
	m->native = m->dcgm = true;
	m->simulated = nv->simulated;
	m->field_of = calloc(counters->n ? counters->n : 1, sizeof(int));
	if (!m->field_of)
		return GW_ENOMEM;
	for (size_t i = 0; i < counters->n; i++)
		m->field_of[i] = counters->v[i].label ? gw_series_label_source(counters->v[i].field)
						      : source_of(counters->v[i].field);
	gw_metrics_hostname(m->hostname, sizeof(m->hostname));
	if (nv->nvmlSystemGetDriverVersion)
		nv->nvmlSystemGetDriverVersion(m->driver, sizeof(m->driver));
	if (nv->nvmlSystemGetNVMLVersion)
		nv->nvmlSystemGetNVMLVersion(m->nvml, sizeof(m->nvml));
	return 0;
}

void gw_metrics_release(struct gw_metrics *m)
{
	free(m->field_of);
	m->field_of = NULL;
}

/* DCGM's units (gw_series_dcgm_value); dcgm-exporter prints doubles as "%f". */
static bool dcgm_value(const struct gw_field *f, const struct gw_value *v, char *buf, size_t n)
{
	if (v->state != GW_V_OK || v->kind == GW_VK_STR)
		return false;
	double x = gw_series_dcgm_value(f, v);
	if ((f->cunit == GW_CU_MW || v->kind == GW_VK_FLOAT) && !(f->flags & GW_FL_DCGM_INT))
		snprintf(buf, n, "%f", x);
	else
		snprintf(buf, n, "%lld", (long long)x);
	return true;
}

/* The most label rows a DCGM series carries; later ones are left out. */
#define LABEL_ROWS_MAX 32

struct glabels {
	char gpu[16], device[24], pid[16];
	struct gw_label l[13 + LABEL_ROWS_MAX]; /* 6 standard + label rows + 3 Kubernetes + err_code, err_msg + hpc_job */
	size_t n;
	size_t k8s; /* the last k8s labels are the Kubernetes ones (0 or 3) */
};

/*
 * Kubernetes (collect/podres.h): dcgm-exporter adds a GPU's pod container
 * as the labels container, namespace and pod, last and in name order (its
 * "attributes", which an HPC job's hpc_job joins in that order). Returns
 * how many were written (0 without a pod).
 */
static size_t k8s_labels(const struct gw_pod_dev *d, struct gw_label *l)
{
	if (!d)
		return 0;
	l[0] = (struct gw_label){"container", d->container};
	l[1] = (struct gw_label){"namespace", d->ns};
	l[2] = (struct gw_label){"pod", d->pod};
	return 3;
}

/* Room for hpc_job among the attributes: its index in gl->l (set it, then use gl->n + 1 labels). */
static size_t job_slot(struct glabels *gl)
{
	if (!gl->k8s || strcmp(gl->l[gl->n - 1].name, "pod") != 0)
		return gl->n; /* none, or labels after them (err_code, err_msg): hpc_job last */
	gl->l[gl->n] = gl->l[gl->n - 1]; /* pod */
	gl->l[gl->n - 1] = gl->l[gl->n - 2]; /* namespace */
	return gl->n - 2;		     /* after container */
}

/*
 * dcgm-exporter's labels: gpu, UUID, pci_bus_id, device, modelName,
 * Hostname, then each label row's value under the file's name, in file
 * order (one the GPU has no value for is left out).
 */
static void dcgm_labels(const struct gw_metrics *m, const struct gw_frame_gpu *g, struct glabels *o)
{
	snprintf(o->gpu, sizeof(o->gpu), "%u", g->gpu->index);
	snprintf(o->device, sizeof(o->device), "nvidia%u", g->gpu->index);
	size_t n = 0;
	o->l[n++] = (struct gw_label){"gpu", o->gpu};
	o->l[n++] = (struct gw_label){"UUID", g->gpu->uuid};
	o->l[n++] = (struct gw_label){"pci_bus_id", g->gpu->bus_id};
	o->l[n++] = (struct gw_label){"device", o->device};
	o->l[n++] = (struct gw_label){"modelName", g->gpu->name};
	o->l[n++] = (struct gw_label){"Hostname", m->hostname};
	const struct gw_counters *c = m->counters;
	for (size_t i = 0; i < c->n && n < 6 + LABEL_ROWS_MAX; i++) {
		if (!c->v[i].label)
			continue;
		const char *v = gw_series_label_value(m->field_of[i], g->v, m->driver, m->nvml);
		if (*v)
			o->l[n++] = (struct gw_label){c->v[i].name, v};
	}
	o->k8s = k8s_labels(gw_pods_gpu(g->pods, g->gpu), o->l + n);
	o->n = n + o->k8s;
}

static void native_labels(const struct gw_frame_gpu *g, struct glabels *o);
static void render_mig(const struct gw_metrics *m, const struct gw_frame_gpu *fg, bool used, struct gw_expfmt *w);

/*
 * Each GPU's native and DCGM label sets, escaped and written once per
 * render: nearly every sample carries one of them, and writing them label
 * by label for each sample was most of a render's work after the numbers.
 */
struct pre {
	struct gw_buf buf;
	size_t at[2 * 64 + 1]; /* GPU g: native [at[2g], at[2g+1]), DCGM [at[2g+1], at[2g+2]) */
};

static int pre_build(struct pre *p, const struct gw_metrics *m, const struct gw_frame *f)
{
	gw_buf_init(&p->buf, (size_t)1 << 20);
	int rc = 0;
	for (unsigned int g = 0; g < f->ngpus && g < 64 && !rc; g++) {
		struct glabels gl;
		p->at[2 * g] = p->buf.len;
		native_labels(&f->gpus[g], &gl);
		rc = gw_expfmt_labels(&p->buf, gl.l, gl.n);
		p->at[2 * g + 1] = p->buf.len;
		dcgm_labels(m, &f->gpus[g], &gl);
		if (!rc)
			rc = gw_expfmt_labels(&p->buf, gl.l, gl.n);
		p->at[2 * g + 2] = p->buf.len;
	}
	return rc;
}

static void sample_native(const struct pre *p, unsigned int g, struct gw_expfmt *w, double v)
{
	gw_expfmt_sample_pre(w, p->buf.data + p->at[2 * g], p->at[2 * g + 1] - p->at[2 * g], v);
}

/*
 * dcgm-exporter's window counts: one series per XID code, or per clock
 * event reason, seen in the window (xid / clock_event after the label
 * rows); none while nothing happened.
 */
static void render_window(const struct gw_metrics *m, const struct gw_frame *f, struct gw_expfmt *w,
			  const struct gw_counter *ct, enum gw_metric_type type, bool xid)
{
	bool opened = false;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		unsigned int n = xid ? fg->nxid : fg->clock_window_valid ? GW_WINDOW_CLOCKS : 0;
		for (unsigned int i = 0; !fg->lost && i < n; i++) {
			uint64_t c = xid ? fg->xid_window[i] : fg->clock_window[i];
			if (!c)
				continue;
			if (!opened) {
				gw_expfmt_family(w, ct->name, ct->help, type);
				opened = true;
			}
			struct glabels gl;
			dcgm_labels(m, fg, &gl);
			char code[16], val[32];
			snprintf(code, sizeof(code), "%u", fg->xid[i].code);
			snprintf(val, sizeof(val), "%llu", (unsigned long long)c);
			gl.l[gl.n++] = xid ? (struct gw_label){"xid", code}
					   : (struct gw_label){"clock_event", gw_window_clock_names[i]};
			gw_expfmt_sample_text(w, gl.l, gl.n, val);
		}
	}
}

/*
 * dcgm-exporter's health family: each GPU once per health watch it lists,
 * health_error_code and health_watch after the label rows (in the order
 * its Go template prints a label map: sorted).
 */
static void render_health(const struct gw_metrics *m, const struct gw_frame *f, struct gw_expfmt *w,
			  const struct gw_counter *ct, enum gw_metric_type type)
{
	static const char *const watches[] = {"PCIE", "NVLINK", "PMU",	   "MCU",    "MEM", "SM",
					      "INFOROM", "THERMAL", "POWER", "DRIVER", "ALL"};
	if (!m->health)
		return;
	bool opened = false;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		struct glabels gl;
		dcgm_labels(m, &f->gpus[g], &gl);
		for (size_t i = 0; i < sizeof(watches) / sizeof(watches[0]); i++) {
			const char *code = "DCGM_FR_OK";
			int v = m->health(m->health_arg, g, watches[i], &code);
			if (v < 0)
				break;
			if (!opened) {
				gw_expfmt_family(w, ct->name, ct->help, type);
				opened = true;
			}
			char val[16];
			snprintf(val, sizeof(val), "%d", v);
			gl.l[gl.n] = (struct gw_label){"health_error_code", code};
			gl.l[gl.n + 1] = (struct gw_label){"health_watch", watches[i]};
			gw_expfmt_sample_text(w, gl.l, gl.n + 2, val);
		}
	}
}

/* dcgm-exporter's names of NVML's P2P statuses (link_status). */
static const char *p2p_text(unsigned int st)
{
	static const char *const names[] = {"OK", "ChipsetNotSupported", "GPUNotSupported", "TopologyNotSupported",
					    "DisabledByRegKey", "NotSupported", "Unknown"};
	return st < sizeof(names) / sizeof(names[0]) ? names[st] : "Unknown";
}

/*
 * DCGM_EXP_P2P_STATUS as dcgm-exporter gives it: for each GPU, one series
 * per other GPU with the NVLink P2P status as the value, the peer's index
 * in peer_gpu and the status in words in link_status (the two after the
 * label rows, in the order dcgm-exporter's template sorts them).
 */
static void render_p2p(const struct gw_metrics *m, const struct gw_frame *f, struct gw_expfmt *w,
		       const struct gw_counter *ct, enum gw_metric_type type)
{
	bool opened = false;
	for (unsigned int g = 0; f->p2p_nvlink && g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		for (unsigned int p = 0; !fg->lost && p < f->ngpus; p++) {
			unsigned int st = f->p2p_nvlink[g * f->ngpus + p];
			if (p == g || st == GW_P2P_UNREAD || f->gpus[p].lost)
				continue;
			if (!opened) {
				gw_expfmt_family(w, ct->name, ct->help, type);
				opened = true;
			}
			struct glabels gl;
			dcgm_labels(m, fg, &gl);
			char peer[16], val[16];
			snprintf(peer, sizeof(peer), "%u", f->gpus[p].gpu->index);
			snprintf(val, sizeof(val), "%u", st);
			gl.l[gl.n++] = (struct gw_label){"link_status", p2p_text(st)};
			gl.l[gl.n++] = (struct gw_label){"peer_gpu", peer};
			gw_expfmt_sample_text(w, gl.l, gl.n, val);
		}
	}
}

static void render_dcgm(const struct gw_metrics *m, const struct pre *pre, const struct gw_frame *f,
			struct gw_expfmt *w)
{
	const struct gw_counters *c = m->counters;
	for (size_t i = 0; i < c->n; i++) {
		const struct gw_counter *ct = &c->v[i];
		int src = m->field_of[i];
		if (ct->label || src == SRC_NONE)
			continue;
		enum gw_metric_type type = ct->type;
		/* OpenMetrics would rename a counter's samples to _total: keep DCGM's names. */
		if (w->kind == GW_EXPFMT_OPENMETRICS && type == GW_METRIC_COUNTER)
			type = GW_METRIC_UNTYPED;
		if (src == SRC_XID_COUNT || src == SRC_CLOCK_COUNT) {
			render_window(m, f, w, ct, type, src == SRC_XID_COUNT);
			continue;
		}
		if (src == SRC_P2P) {
			render_p2p(m, f, w, ct, type);
			continue;
		}
		if (src == SRC_HEALTH) {
			render_health(m, f, w, ct, type);
			continue;
		}
		bool opened = false;
		bool fb_used = strcmp(ct->name, "DCGM_FI_DEV_FB_USED") == 0;
		bool fb = fb_used || strcmp(ct->name, "DCGM_FI_DEV_FB_FREE") == 0;
		for (unsigned int g = 0; g < f->ngpus; g++) {
			const struct gw_frame_gpu *fg = &f->gpus[g];
			char val[64];
			if (fg->lost)
				continue;
			if (src == SRC_LAST_XID)
				snprintf(val, sizeof(val), "%u", fg->last_xid);
			else if (!dcgm_value(gw_field_at((size_t)src), &fg->v[src], val, sizeof(val)))
				continue;
			if (!opened) {
				gw_expfmt_family(w, ct->name, ct->help, type);
				opened = true;
			}
			if (!fg->jobs && src != SRC_LAST_XID) {
				const char *l = pre->buf.data + pre->at[2 * g + 1];
				gw_expfmt_sample_pre_text(w, l, pre->at[2 * g + 2] - pre->at[2 * g + 1], val);
			} else {
				struct glabels gl;
				dcgm_labels(m, fg, &gl);
				if (src == SRC_LAST_XID) { /* dcgm-exporter 4.x: the code and what it means */
					gl.l[gl.n++] = (struct gw_label){"err_code", val};
					gl.l[gl.n++] = (struct gw_label){"err_msg", gw_xid_text(fg->last_xid)};
				}
				if (!fg->jobs)
					gw_expfmt_sample_text(w, gl.l, gl.n, val);
				/* dcgm-exporter's HPC job mapping: the series once per job, hpc_job last. */
				size_t at = fg->jobs ? job_slot(&gl) : gl.n;
				for (unsigned int j = 0; fg->jobs && j < fg->jobs->n; j++) {
					gl.l[at] = (struct gw_label){"hpc_job", fg->jobs->id[j]};
					gw_expfmt_sample_text(w, gl.l, gl.n + 1, val);
				}
			}
			if (fb && fg->migs.n)
				render_mig(m, fg, fb_used, w);
		}
	}
}

/*
 * dcgm-exporter's MIG series: once per GPU instance, the GPU's labels with
 * GPU_I_PROFILE and GPU_I_ID before Hostname. Only the framebuffer fields,
 * the ones NVML answers per instance.
 */
static void render_mig(const struct gw_metrics *m, const struct gw_frame_gpu *fg, bool used, struct gw_expfmt *w)
{
	struct glabels gl;
	dcgm_labels(m, fg, &gl);
	for (size_t i = 0; i < fg->migs.n; i++) {
		const struct gw_mig *x = &fg->migs.v[i];
		bool seen = false; /* compute instances of one GPU instance share its memory */
		for (size_t k = 0; k < i; k++)
			seen = seen || fg->migs.v[k].gi == x->gi;
		if (seen || !x->mem_valid || !x->gi_profile[0])
			continue;
		char id[16], val[32];
		snprintf(id, sizeof(id), "%u", x->gi);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)((used ? x->mem_used : x->mem_free) >> 20));
		struct gw_label l[sizeof(gl.l) / sizeof(gl.l[0]) + 2];
		size_t n = 0;
		for (size_t k = 0; k < gl.n - gl.k8s; k++) {
			if (strcmp(gl.l[k].name, "Hostname") == 0) {
				l[n++] = (struct gw_label){"GPU_I_PROFILE", x->gi_profile};
				l[n++] = (struct gw_label){"GPU_I_ID", id};
			}
			l[n++] = gl.l[k];
		}
		n += k8s_labels(gw_pods_mig(fg->pods, fg->gpu, x), l + n); /* the instance's pod, not the GPU's */
		gw_expfmt_sample_text(w, l, n, val);
	}
}

static void native_labels(const struct gw_frame_gpu *g, struct glabels *o)
{
	snprintf(o->gpu, sizeof(o->gpu), "%u", g->gpu->index);
	o->l[0] = (struct gw_label){"gpu", o->gpu};
	o->l[1] = (struct gw_label){"uuid", g->gpu->uuid};
	o->l[2] = (struct gw_label){"pci_bus_id", g->gpu->bus_id};
	o->l[3] = (struct gw_label){"model", g->gpu->name};
	o->n = 4;
}

static void render_fields(const struct pre *pre, const struct gw_frame *f, struct gw_expfmt *w)
{
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *fd = gw_field_at(i);
		if (!fd->prom || (fd->ptype != GW_PT_GAUGE && fd->ptype != GW_PT_COUNTER))
			continue;
		bool opened = false;
		for (unsigned int g = 0; g < f->ngpus; g++) {
			const struct gw_frame_gpu *fg = &f->gpus[g];
			const struct gw_value *v = &fg->v[i];
			if (fg->lost || v->state != GW_V_OK || v->kind == GW_VK_STR)
				continue;
			if (!opened) {
				gw_expfmt_family(w, fd->prom, fd->help,
						 fd->ptype == GW_PT_COUNTER ? GW_METRIC_COUNTER : GW_METRIC_GAUGE);
				opened = true;
			}
			sample_native(pre, g, w, gw_field_prom_value(fd, v));
		}
	}
}

static void render_info(const struct pre *pre, const struct gw_frame *f, struct gw_expfmt *w)
{
	gw_expfmt_family(w, "gpuwatch_gpu_info", "Static facts about each GPU, as labels.", GW_METRIC_GAUGE);
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		struct glabels gl;
		native_labels(fg, &gl);
		struct gw_label l[16];
		size_t n = 0;
		for (size_t k = 0; k < gl.n; k++)
			l[n++] = gl.l[k];
		for (size_t i = 0; i < gw_fields_count() && n < 16; i++) {
			const struct gw_field *fd = gw_field_at(i);
			const char *lname = fd->prom;
			if (fd->ptype != GW_PT_INFO || !lname || strcmp(lname, "uuid") == 0 ||
			    strcmp(lname, "pci_bus_id") == 0 || strcmp(lname, "name") == 0)
				continue;
			if (fg->v[i].state == GW_V_OK && fg->v[i].kind == GW_VK_STR)
				l[n++] = (struct gw_label){lname, fg->v[i].s};
		}
		gw_expfmt_sample(w, l, n, 1);
	}
	gw_expfmt_family(w, "gpuwatch_gpu_lost", "1 once the GPU has fallen off the bus; its other series stop.",
			 GW_METRIC_GAUGE);
	for (unsigned int g = 0; g < f->ngpus; g++)
		sample_native(pre, g, w, f->gpus[g].lost ? 1 : 0);
	gw_expfmt_family(w, "gpuwatch_gpu_read_stalled",
			 "1 while a read of the GPU runs past its sample's deadline (a hung NVML call); its values are left out meanwhile.",
			 GW_METRIC_GAUGE);
	for (unsigned int g = 0; g < f->ngpus; g++)
		sample_native(pre, g, w, f->gpus[g].stalled ? 1 : 0);
	gw_expfmt_family(w, "gpuwatch_gpu_read_timeouts_total",
			 "Reads of the GPU that ran past their sample's deadline.", GW_METRIC_COUNTER);
	for (unsigned int g = 0; g < f->ngpus; g++)
		sample_native(pre, g, w, (double)f->gpus[g].read_timeouts);
}

/* Which jobs use each GPU, for joins: `x * on(gpu) group_left(hpc_job) gpuwatch_hpc_job_info`. */
static void render_jobs(const struct gw_frame *f, struct gw_expfmt *w)
{
	bool opened = false;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		for (unsigned int j = 0; fg->jobs && j < fg->jobs->n; j++) {
			if (!opened) {
				gw_expfmt_family(w, "gpuwatch_hpc_job_info",
						 "HPC jobs using each GPU, from the job mapping directory (1 per job).",
						 GW_METRIC_GAUGE);
				opened = true;
			}
			struct glabels gl;
			native_labels(fg, &gl);
			gl.l[gl.n++] = (struct gw_label){"hpc_job", fg->jobs->id[j]};
			gw_expfmt_sample(w, gl.l, gl.n, 1);
		}
	}
}

static void render_events(const struct gw_frame *f, struct gw_expfmt *w)
{
	bool opened = false;
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		for (unsigned int i = 0; i < fg->nxid; i++) {
			if (!opened) {
				gw_expfmt_family(w, "gpuwatch_xid_errors_total", "XID errors reported by the driver, by code.",
						 GW_METRIC_COUNTER);
				opened = true;
			}
			struct glabels gl;
			native_labels(fg, &gl);
			char code[16];
			snprintf(code, sizeof(code), "%u", fg->xid[i].code);
			gl.l[gl.n++] = (struct gw_label){"xid", code};
			gw_expfmt_sample(w, gl.l, gl.n, (double)fg->xid[i].count);
		}
	}
	gw_expfmt_family(w, "gpuwatch_ecc_events_total", "ECC error events delivered by the driver, by kind.",
			 GW_METRIC_COUNTER);
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		for (int k = 0; k < 2; k++) {
			struct glabels gl;
			native_labels(fg, &gl);
			gl.l[gl.n++] = (struct gw_label){"kind", k ? "double_bit" : "single_bit"};
			gw_expfmt_sample(w, gl.l, gl.n, (double)(k ? fg->dbe_events : fg->sbe_events));
		}
	}
}

/* A process series' labels: the GPU's, the process's, and its owner's where known. */
static void proc_labels(const struct gw_frame_gpu *fg, const struct gw_proc *p, const struct gw_pod_uids *uids,
			struct glabels *gl)
{
	native_labels(fg, gl);
	snprintf(gl->pid, sizeof(gl->pid), "%u", p->pid);
	gl->l[gl->n++] = (struct gw_label){"pid", gl->pid};
	gl->l[gl->n++] = (struct gw_label){"process", gw_proc_basename(p->name)};
	gl->l[gl->n++] = (struct gw_label){"type", p->compute && p->graphics ? "C+G" : p->compute ? "C" : "G"};
	/* Attribution labels only when known: an empty label would read as a value. */
	const struct {
		const char *name, *value;
	} owner[] = {{"container", p->attr.container},
		     {"pod_uid", p->attr.pod_uid},
		     {"slurm_job", p->attr.slurm_job},
		     {"user", p->attr.user}};
	/* With the kubelet naming its container, container is the name, as on
	 * the DCGM series, and the cgroup's id moves to container_id. */
	const struct gw_pod_dev *d = gw_pods_owner(fg, p, uids);
	for (size_t k = 0; k < sizeof(owner) / sizeof(owner[0]); k++)
		if (owner[k].value[0])
			gl->l[gl->n++] = (struct gw_label){d && k == 0 ? "container_id" : owner[k].name, owner[k].value};
	gl->n += k8s_labels(d, gl->l + gl->n);
}

enum proc_family { PF_MEMORY, PF_SM, PF_MEMUTIL, PF_N };

static const struct {
	const char *name, *help;
} proc_fam[PF_N] = {
	[PF_MEMORY] = {"gpuwatch_process_memory_used_bytes", "Device memory held by each process on the GPU."},
	[PF_SM] = {"gpuwatch_process_sm_utilization_ratio",
		   "Fraction of time a kernel of this process ran on the GPU, over the last samples."},
	[PF_MEMUTIL] = {"gpuwatch_process_memory_utilization_ratio",
			"Fraction of time this process read or wrote device memory, over the last samples."},
};

/* Each sample of one process family, with its labels, to fn. */
static void each_proc_sample(const struct gw_frame *f, const struct gw_pod_uids *uids, enum proc_family which,
			     gw_proc_sample_fn fn, void *arg)
{
	for (unsigned int g = 0; g < f->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		for (size_t i = 0; i < fg->procs.n; i++) {
			const struct gw_proc *p = &fg->procs.v[i];
			double v;
			if (which == PF_MEMORY && p->mem_valid)
				v = (double)p->used_bytes;
			else if (which == PF_SM && p->sm_pct >= 0)
				v = p->sm_pct / 100.0;
			else if (which == PF_MEMUTIL && p->mem_pct >= 0)
				v = p->mem_pct / 100.0;
			else
				continue;
			struct glabels gl;
			proc_labels(fg, p, uids, &gl);
			fn(arg, proc_fam[which].name, gl.l, gl.n, v);
		}
	}
}

void gw_metrics_each_proc(const struct gw_frame *f, gw_proc_sample_fn fn, void *arg)
{
	struct gw_pod_uids uids; /* which pod each pod uid is (collect/podres.h) */
	gw_pod_uids_learn(&uids, f);
	for (int k = 0; k < PF_N; k++)
		each_proc_sample(f, &uids, (enum proc_family)k, fn, arg);
}

struct proc_render {
	struct gw_expfmt *w;
	const char *open; /* the family whose lines are being written */
};

static void render_proc_sample(void *arg, const char *family, const struct gw_label *l, size_t n, double v)
{
	struct proc_render *pr = arg;
	if (pr->open != family) {
		for (int k = 0; k < PF_N; k++)
			if (proc_fam[k].name == family)
				gw_expfmt_family(pr->w, family, proc_fam[k].help, GW_METRIC_GAUGE);
		pr->open = family;
	}
	gw_expfmt_sample(pr->w, l, n, v);
}

static void render_procs(const struct gw_frame *f, struct gw_expfmt *w)
{
	struct proc_render pr = {w, NULL};
	gw_metrics_each_proc(f, render_proc_sample, &pr);
}

/* Failed NVML calls by function, per GPU and then on no GPU; only functions that failed. */
static void render_nvml_errors(const struct gw_frame *f, struct gw_expfmt *w)
{
	if (!f->nvml_errors_total)
		return;
	gw_expfmt_family(w, "gpuwatch_nvml_errors_total",
			 "NVML calls that failed, by function (answers meaning not supported are not failures).",
			 GW_METRIC_COUNTER);
	for (unsigned int g = 0; g <= f->ngpus; g++) {
		const uint64_t *n = g < f->ngpus ? f->gpus[g].nvml_errors : f->nvml_errors;
		for (int fn = 0; fn < GW_NVML_FN__COUNT; fn++) {
			if (!n[fn])
				continue;
			struct glabels gl = {.n = 0};
			if (g < f->ngpus)
				native_labels(&f->gpus[g], &gl);
			gl.l[gl.n++] = (struct gw_label){"function", gw_nvml_fn_name((enum gw_nvml_fn)fn)};
			gw_expfmt_sample(w, gl.l, gl.n, (double)n[fn]);
		}
	}
}

static void render_self(const struct gw_metrics *m, const struct gw_frame *f, struct gw_expfmt *w)
{
	struct gw_label bl[] = {{"version", m->version ? m->version : ""},
				{"simulated", m->simulated ? "true" : "false"},
				{"driver_version", m->driver}};
	gw_expfmt_family(w, "gpuwatch_build_info", "gpuwatch's version, and whether the GPUs are simulated.",
			 GW_METRIC_GAUGE);
	gw_expfmt_sample(w, bl, 3, 1);
	gw_expfmt_family(w, "gpuwatch_sample_duration_seconds", "Time the last sample of all GPUs took.",
			 GW_METRIC_GAUGE);
	gw_expfmt_sample(w, NULL, 0, f->sample_seconds);
	gw_expfmt_family(w, "gpuwatch_samples_total", "Samples taken since the agent started.", GW_METRIC_COUNTER);
	gw_expfmt_sample(w, NULL, 0, (double)f->ticks_total);
	gw_expfmt_family(w, "gpuwatch_samples_missed_total",
			 "Scheduled samples skipped because an earlier one ran past its slot or readers held every frame.",
			 GW_METRIC_COUNTER);
	gw_expfmt_sample(w, NULL, 0, (double)f->missed_ticks_total);
	gw_expfmt_family(w, "gpuwatch_read_errors_total", "Field reads that NVML answered with an error.",
			 GW_METRIC_COUNTER);
	gw_expfmt_sample(w, NULL, 0, (double)f->read_errors_total);
	render_nvml_errors(f, w);
	gw_expfmt_family(w, "gpuwatch_last_sample_timestamp_seconds", "Time of the sample these values come from.",
			 GW_METRIC_GAUGE);
	gw_expfmt_sample(w, NULL, 0, (double)f->t_ms / 1000.0);
}

int gw_metrics_render(const struct gw_metrics *m, const struct gw_frame *f, enum gw_expfmt_kind kind,
		      struct gw_buf *out)
{
	struct pre pre;
	int rc = pre_build(&pre, m, f);
	if (rc) {
		gw_buf_release(&pre.buf);
		return rc;
	}
	struct gw_expfmt w;
	gw_expfmt_init(&w, out, kind);
	if (m->dcgm)
		render_dcgm(m, &pre, f, &w);
	if (m->native) {
		render_fields(&pre, f, &w);
		render_info(&pre, f, &w);
		render_jobs(f, &w);
		render_events(f, &w);
		render_procs(f, &w);
		render_self(m, f, &w);
		if (m->extra)
			m->extra(m->extra_arg, &w);
	}
	gw_buf_release(&pre.buf);
	return gw_expfmt_finish(&w);
}
