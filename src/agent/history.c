#include "agent/history.h"

#include "api/json.h"
#include "export/gpu_metrics.h"
#include "export/series.h"
#include "export/xid.h"
#include "version.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void consume(void *arg, const struct gw_frame *f);

#define JOB_INFO "gpuwatch_hpc_job_info"
#define JOB_INFO_HELP "HPC jobs using each GPU, from the job mapping directory (1 per job)."

static const char *type_name(enum gw_metric_type t)
{
	return t == GW_METRIC_COUNTER ? "counter" : t == GW_METRIC_GAUGE ? "gauge" : "unknown";
}

static void meta_entry(struct gw_buf *out, bool *first, const char *name, const char *type, const char *help)
{
	gw_buf_puts(out, *first ? "" : ",");
	*first = false;
	gw_json_str(out, name);
	gw_buf_printf(out, ":[{\"type\":\"%s\",\"help\":", type);
	gw_json_str(out, help);
	gw_buf_puts(out, ",\"unit\":\"\"}]");
}

static void metadata(void *ctx, const char *metric, long limit, struct gw_buf *out)
{
	struct agent_history *h = ctx;
	gw_buf_putc(out, '{');
	bool first = true;
	long n = 0;
	pthread_mutex_lock(&h->meta_lock);
	for (size_t i = 0; i < h->nfields && (limit < 0 || n < limit); i++) {
		const struct gw_field *f = gw_field_at(i);
		if ((f->flags & GW_FL_STATIC) && f->cunit == GW_CU_NONE)
			continue; /* identity, never stored (agent_history_feed) */
		for (int k = 0; k < 2; k++) {
			/* the DCGM family under the counters file's name, type and help */
			const char *name = k ? h->fam[i].name : f->prom;
			if (!name || (!k && f->ptype != GW_PT_GAUGE && f->ptype != GW_PT_COUNTER))
				continue;
			if (metric && strcmp(metric, name) != 0)
				continue;
			if (limit >= 0 && n >= limit)
				break;
			n++;
			if (k)
				meta_entry(out, &first, name, type_name(h->fam[i].type), h->fam[i].help);
			else
				meta_entry(out, &first, name, f->ptype == GW_PT_COUNTER ? "counter" : "gauge",
					   f->help ? f->help : f->desc ? f->desc : "");
		}
	}
	/* the two DCGM families that are no field of the table */
	for (size_t i = h->nfields; i < h->nfields + 2 && (limit < 0 || n < limit); i++) {
		const struct agent_history_family *fm = &h->fam[i];
		if (!fm->name || (metric && strcmp(metric, fm->name) != 0))
			continue;
		n++;
		meta_entry(out, &first, fm->name, type_name(fm->type), fm->help);
	}
	pthread_mutex_unlock(&h->meta_lock);
	if ((!metric || strcmp(metric, "up") == 0) && (limit < 0 || n < limit)) {
		n++;
		meta_entry(out, &first, "up", "gauge",
			   "1 for each sample the agent took (as a Prometheus scraping the agent records it).");
	}
	if ((!metric || strcmp(metric, JOB_INFO) == 0) && (limit < 0 || n < limit))
		meta_entry(out, &first, JOB_INFO, "gauge", JOB_INFO_HELP);
	gw_buf_putc(out, '}');
}

/* The first metric row of c reading this DCGM field; NULL: none. */
static const struct gw_counter *row_for(const struct gw_counters *c, const char *field)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (!c->v[i].label && strcmp(c->v[i].field, field) == 0)
			return &c->v[i];
	return NULL;
}

static void families_free(struct agent_history_family *fam, size_t n, struct agent_history_label *lab, size_t nlab)
{
	for (size_t i = 0; fam && i < n; i++) {
		free(fam[i].name);
		free(fam[i].help);
	}
	free(fam);
	for (size_t i = 0; lab && i < nlab; i++)
		free(lab[i].name);
	free(lab);
}

/*
 * The DCGM families and label rows to keep, as the counters give them
 * (NULL: every field's DCGM family, no label rows); no feed may
 * run meanwhile. Returns 0 or GW_ENOMEM (then the previous ones stay).
 */
static int configure(struct agent_history *h, const struct gw_counters *c)
{
	static const char *const more[2][2] = {
		{"DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."},
		{"DCGM_FI_DEV_POWER_LIMIT", "Power limit enforced on the GPU (in W)."},
	};
	size_t nf = h->nfields + 2, nlab = 0;
	struct agent_history_family *fam = calloc(nf, sizeof(*fam));
	for (size_t i = 0; c && i < c->n; i++)
		nlab += c->v[i].label && gw_series_label_source(c->v[i].field) != GW_SERIES_LABEL_NONE;
	struct agent_history_label *lab = calloc(nlab ? nlab : 1, sizeof(*lab));
	bool oom = !fam || !lab;
	for (size_t i = 0; !oom && i < nf; i++) {
		const char *field = i < h->nfields ? gw_field_at(i)->dcgm : more[i - h->nfields][0];
		if (!field || (i == h->nfields + 1 && h->enforced < 0))
			continue;
		const struct gw_counter *ct = row_for(c, field);
		if (c && !ct)
			continue; /* a family /metrics leaves out is not history either */
		const char *help = ct ? ct->help : i < h->nfields ? gw_field_at(i)->desc : more[i - h->nfields][1];
		fam[i].name = strdup(ct ? ct->name : field);
		fam[i].help = strdup(help ? help : "");
		fam[i].type = ct ? ct->type : GW_METRIC_GAUGE;
		oom = !fam[i].name || !fam[i].help;
	}
	size_t k = 0;
	for (size_t i = 0; !oom && c && i < c->n; i++) {
		int src = c->v[i].label ? gw_series_label_source(c->v[i].field) : GW_SERIES_LABEL_NONE;
		if (src == GW_SERIES_LABEL_NONE)
			continue;
		lab[k] = (struct agent_history_label){strdup(c->v[i].name), src};
		oom = !lab[k++].name;
	}
	if (oom) {
		families_free(fam, nf, lab, k);
		return GW_ENOMEM;
	}
	pthread_mutex_lock(&h->meta_lock);
	struct agent_history_family *old = h->fam;
	struct agent_history_label *old_lab = h->lab;
	size_t old_nlab = h->nlab;
	h->fam = fam;
	h->lab = lab;
	h->nlab = k;
	for (size_t i = 0; i < h->nfields; i++) {
		h->fields[i] = *gw_field_at(i);
		h->fields[i].dcgm = fam[i].name; /* the file's name: what gw_series_emit() stores */
	}
	pthread_mutex_unlock(&h->meta_lock);
	families_free(old, old ? nf : 0, old_lab, old_nlab);
	h->driver[0] = h->nvml[0] = '\0';
	if (h->nv && h->nv->nvmlSystemGetDriverVersion)
		h->nv->nvmlSystemGetDriverVersion(h->driver, sizeof(h->driver));
	if (h->nv && h->nv->nvmlSystemGetNVMLVersion)
		h->nv->nvmlSystemGetNVMLVersion(h->nvml, sizeof(h->nvml));
	return 0;
}

void agent_history_reconfigure(struct agent_history *h, const struct gw_counters *c)
{
	if (!h->db)
		return;
	struct gw_sampler *s = h->sampler;
	if (s)
		gw_sampler_set_consumer(s, NULL, NULL); /* no feed runs now */
	if (configure(h, c) == 0) {
		/* the DCGM series' names and label sets changed: their refs are found again */
		memset(h->refs, 0, (size_t)h->ngpus * h->nfields * 2 * sizeof(uint64_t));
		memset(h->xrefs, 0, (size_t)h->ngpus * 2 * sizeof(uint64_t));
		for (unsigned int g = 0; g < h->ngpus; g++) {
			free(h->jobs[g].refs);
			h->jobs[g] = (struct agent_history_jobs){0};
		}
	}
	if (s)
		gw_sampler_set_consumer(s, consume, h); /* frames already stored are not fed again */
}

/* After each background flush, on the store's flushing thread. */
static void flushed(void *arg, int rc, const struct gw_err *e)
{
	struct agent_history *h = arg;
	if (!h->log)
		return;
	if (rc) {
		/* once per kind of failure (a full disk, then damage), then once a minute while it goes on */
		int64_t now = gw_now_ms();
		if (h->failing++ == 0 || rc != h->fail_kind || now - h->fail_logged_ms >= 60000) {
			h->log("error",
			       "msg=\"cannot write the history store; new samples wait in memory and are written once "
			       "it works again\" path=%s failed_flushes=%llu kind=%s err=\"%s\"",
			       h->path, (unsigned long long)h->failing, gw_strerror_name(rc), e->msg);
			h->fail_logged_ms = now;
			h->fail_kind = rc;
		}
	} else if (h->failing) {
		h->log("info", "msg=\"writing the history store again\" path=%s failed_flushes=%llu", h->path,
		       (unsigned long long)h->failing);
		h->failing = 0;
		h->fail_kind = 0;
	}
}

/* What the store's open did: damage said loudly (where the old file went, or what will be skipped), renames. */
static void log_recovery(struct agent_history *h)
{
	struct gw_tsdb_status st;
	gw_tsdb_status(h->db, &st);
	if (st.moved_to[0])
		h->log("error",
		       "msg=\"the history store could not be used; moved it aside and started a fresh one\" path=%s "
		       "moved_to=%s why=\"%s\" hint=\"sqlite3 FILE .recover may still read rows from the old file\"",
		       h->path, st.moved_to, st.moved_why);
	if (st.relabelled)
		h->log("info",
		       "msg=\"renamed the series of the old instance name host:port to the host name\" path=%s "
		       "instance=\"%s\" series=%llu merged=%llu",
		       h->path, h->instance, (unsigned long long)st.relabelled, (unsigned long long)st.relabel_merged);
	if (st.moved_to[0])
		return;
	if (st.corrupt_chunks)
		h->log("warn",
		       "msg=\"the history store is damaged; kept it, and queries skip the damaged chunks with a "
		       "warning\" path=%s damaged_chunks=%llu",
		       h->path, (unsigned long long)st.corrupt_chunks);
}

void agent_history_host(char *buf, size_t len)
{
	if (len < 2 || gethostname(buf, len - 1) != 0 || !buf[0])
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

/*
 * The instance label before 2026-12-03 was "HOST:PORT" (the agent's listen
 * port, 9400 for sim record); the host name alone names the machine now.
 * Series written under the old name are renamed at open so one GPU stays
 * one series (tsdb_relabel.c).
 */
static bool old_instance(void *arg, const char *value, char *out, size_t len)
{
	const char *host = arg;
	size_t n = strlen(host), digits = 0;
	if (strncmp(value, host, n) != 0 || value[n] != ':')
		return false;
	for (const char *p = value + n + 1; *p; p++, digits++)
		if (*p < '0' || *p > '9')
			return false;
	if (digits < 1 || digits > 5)
		return false;
	snprintf(out, len, "%s", host);
	return true;
}

int agent_history_open(struct agent_history *h, const struct agent_history_opts *o, struct gw_nvml *nv,
		       unsigned int ngpus, struct gw_err *err)
{
	memset(h, 0, sizeof(*h));
	h->log = o->log;
	snprintf(h->path, sizeof(h->path), "%s", o->path ? o->path : "");
	agent_history_host(h->hostname, sizeof(h->hostname));
	gw_metrics_hostname(h->host_label, sizeof(h->host_label));
	snprintf(h->instance, sizeof(h->instance), "%s", o->instance ? o->instance : h->hostname);
	struct gw_tsdb_opts to = {.path = o->path,
				  .retention_ms = o->retention_ms,
				  .retention_bytes = o->retention_bytes,
				  .flush_interval_ms = o->flush_interval_ms,
				  .stagger = o->stagger,
				  .on_flush = flushed,
				  .on_flush_arg = h,
				  .recover = !o->readonly,
				  .must_write = !o->readonly,
				  .must_exist = o->readonly,
				  .holder = o->readonly ? NULL : o->holder};
	if (o->readonly) {
		to.flush_interval_ms = -1;
		to.retention_ms = 0;
		to.retention_bytes = 0;
	} else if (!o->instance) { /* the default name: take over the series of the old default */
		to.relabel = (struct gw_tsdb_relabel){"instance", old_instance, h->hostname};
	}
	int rc = gw_tsdb_open(&h->db, &to, err);
	if (rc)
		return rc;
	pthread_mutex_init(&h->append_mu, NULL);
	if (h->log)
		log_recovery(h);
	h->ngpus = ngpus;
	h->nfields = gw_fields_count();
	h->refs = calloc((size_t)ngpus * h->nfields * 2 + 1, sizeof(uint64_t));
	h->jobs = calloc(ngpus ? ngpus : 1, sizeof(*h->jobs));
	h->fields = calloc(h->nfields ? h->nfields : 1, sizeof(*h->fields));
	h->xrefs = calloc((size_t)ngpus * 2 + 1, sizeof(uint64_t));
	h->xid_code = calloc(ngpus ? ngpus : 1, sizeof(*h->xid_code));
	h->nv = nv;
	h->enforced = -1;
	for (size_t i = 0; i < h->nfields; i++)
		if (strcmp(gw_field_at(i)->name, "enforced.power.limit") == 0)
			h->enforced = (long)i;
	pthread_mutex_init(&h->meta_lock, NULL);
	if (!h->refs || !h->jobs || !h->fields || !h->xrefs || !h->xid_code || configure(h, o->counters) != 0) {
		free(h->xrefs);
		free(h->xid_code);
		free(h->refs);
		free(h->jobs);
		free(h->fields);
		pthread_mutex_destroy(&h->append_mu);
		pthread_mutex_destroy(&h->meta_lock);
		gw_tsdb_close(h->db);
		memset(h, 0, sizeof(*h));
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	snprintf(h->job, sizeof(h->job), "%s", o->job ? o->job : "gpuwatch");
	h->api.q = gw_tsdb_querier(h->db);
	h->api.version = "2.42.0"; /* the Prometheus API it follows: see api/prom_status.c */
	h->api.server_version = GW_VERSION;
	h->api.metadata = metadata;
	h->api.metadata_ctx = h;
	h->api.opts.timeout_ms = 2 * 60 * 1000; /* Prometheus' default query timeout */
	/* 4 MiB of query memory stays with the agent after a query, already
	 * paged in (a dashboard's hour of 8 GPUs fits); a bigger query's blocks
	 * go back to malloc, which returns blocks this large to the system, so
	 * the agent's size does not follow the heaviest query it answered. */
	gw_arena_pool_init(&h->pool, (size_t)4 << 20);
	h->api.pool = &h->pool;
	gw_api_routes(&h->api, h->routes);
	return 0;
}

static void family(struct gw_expfmt *w, const char *name, const char *help, enum gw_metric_type type, double v)
{
	gw_expfmt_family(w, name, help, type);
	gw_expfmt_sample(w, NULL, 0, v);
}

void agent_history_render(void *arg, struct gw_expfmt *w)
{
	struct agent_history *h = arg;
	if (!h->db)
		return;
	struct gw_tsdb_status st;
	gw_tsdb_status(h->db, &st);
	const enum gw_metric_type G = GW_METRIC_GAUGE, C = GW_METRIC_COUNTER;
	family(w, "gpuwatch_store_series", "Series in the history store.", G, (double)st.series);
	family(w, "gpuwatch_store_samples_appended_total", "Samples the history store accepted since the agent started.",
	       C, (double)st.appended);
	family(w, "gpuwatch_store_samples_dropped_total",
	       "Samples the history store refused: its memory for unwritten samples was full, or out of memory.", C,
	       (double)(st.dropped + h->append_errors));
	family(w, "gpuwatch_store_head_samples", "Samples in open (not yet sealed) chunks.", G, (double)st.head_samples);
	family(w, "gpuwatch_store_unflushed_samples", "Samples not yet written to disk.", G, (double)st.unflushed);
	family(w, "gpuwatch_store_head_bytes", "Memory the open chunks hold.", G, (double)st.head_bytes);
	family(w, "gpuwatch_store_flushes_total", "Successful writes of the history store.", C, (double)st.flushes);
	family(w, "gpuwatch_store_flush_errors_total", "Failed writes of the history store (disk full, unwritable).", C,
	       (double)st.flush_errors);
	family(w, "gpuwatch_store_chunks_written_total", "Sealed chunks written.", C, (double)st.chunks_written);
	family(w, "gpuwatch_store_chunks_deleted_total", "Chunks removed by retention.", C, (double)st.chunks_deleted);
	family(w, "gpuwatch_store_corrupt_chunks_total",
	       "Damaged chunks: found at open, or skipped by queries because they failed their checksum or decoding.", C,
	       (double)st.corrupt_chunks);
	family(w, "gpuwatch_store_moved_aside", "1 if the store found at start could not be used and was moved aside.", G,
	       st.moved_to[0] ? 1 : 0);
	family(w, "gpuwatch_store_size_bytes", "Size of the history store's database, as of the last write.", G,
	       (double)st.db_bytes);
	if (st.last_flush_t != INT64_MIN && st.flushes)
		family(w, "gpuwatch_store_last_flush_timestamp_seconds",
		       "Time of the newest sample on disk as of the last successful write.", G,
		       (double)st.last_flush_t / 1000.0);
}

static void consume(void *arg, const struct gw_frame *f)
{
	struct agent_history *h = arg;
	pthread_mutex_lock(&h->append_mu);
	agent_history_feed(h, f);
	pthread_mutex_unlock(&h->append_mu);
}

struct import_sink {
	struct agent_history *h;
	uint64_t refused;
};

static int import_sample(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	struct import_sink *s = ctx;
	uint64_t ref;
	int rc = gw_tsdb_series(s->h->db, l, n, &ref);
	if (rc == 0)
		rc = gw_tsdb_append(s->h->db, ref, t, v);
	if (rc == GW_EINVAL) { /* not newer than the series' last: the sample is refused, the rest go on */
		s->refused++;
		return 0;
	}
	return rc;
}

int agent_history_import(struct agent_history *h, const char *text, size_t len, struct gw_import_stats *st,
			 uint64_t *refused, struct gw_err *err)
{
	memset(st, 0, sizeof(*st));
	*refused = 0;
	if (!len)
		return 0;
	FILE *in = fmemopen((void *)text, len, "r");
	if (!in)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct import_sink s = {h, 0};
	struct gw_import_opts o = {.emit = import_sample, .ctx = &s};
	pthread_mutex_lock(&h->append_mu);
	int rc = gw_import_om(in, &o, st, err);
	pthread_mutex_unlock(&h->append_mu);
	fclose(in);
	*refused = s.refused;
	return rc;
}

void agent_history_start(struct agent_history *h, struct gw_sampler *s)
{
	h->sampler = s;
	gw_sampler_set_consumer(s, consume, h);
}

void agent_history_close(struct agent_history *h)
{
	if (h->sampler)
		gw_sampler_set_consumer(h->sampler, NULL, NULL); /* no feed runs after this */
	h->sampler = NULL;
	gw_tsdb_close(h->db);
	if (h->db)
		pthread_mutex_destroy(&h->append_mu);
	if (h->api.pool) /* the HTTP server has stopped: no query holds a block */
		gw_arena_pool_release(h->api.pool);
	h->api.pool = NULL;
	free(h->proc_refs);
	h->proc_refs = NULL;
	h->nproc_refs = 0;
	for (unsigned int g = 0; h->jobs && g < h->ngpus; g++)
		free(h->jobs[g].refs);
	free(h->jobs);
	free(h->refs);
	free(h->fields);
	if (h->fam) /* opened (a failed open leaves none) */
		pthread_mutex_destroy(&h->meta_lock);
	families_free(h->fam, h->fam ? h->nfields + 2 : 0, h->lab, h->nlab);
	h->fam = NULL;
	h->lab = NULL;
	free(h->xrefs);
	free(h->xid_code);
	h->xid_code = NULL;
	h->xrefs = NULL;
	h->fields = NULL;
	h->db = NULL;
	h->refs = NULL;
	h->jobs = NULL;
}

struct emit_ctx {
	struct agent_history *h;
	uint64_t *slot; /* refs of this (gpu, field): [native, dcgm] in emission order */
	int k;
};

static int store_sample(void *ctx, const struct gw_lpair *labels, size_t n, int64_t t, double v)
{
	struct emit_ctx *e = ctx;
	uint64_t *ref = &e->slot[e->k < 2 ? e->k : 1];
	e->k++;
	if (!*ref && gw_tsdb_series(e->h->db, labels, n, ref) != 0)
		return GW_ENOMEM;
	return gw_tsdb_append(e->h->db, *ref, t, v);
}

/*
 * A field's series whose store refs are known, appended without building
 * their labels again: the labels are what gw_series_emit() spends its time
 * on, ~1,900 series a frame at 8 GPUs, and a ref never changes once known.
 * slot as store_sample() fills it; dcgm_only: the slot holds just the DCGM
 * series (a further job's). Returns false while a ref is unknown: the
 * caller emits, which learns it.
 */
static bool append_known(struct agent_history *h, const struct gw_field *fd, const struct gw_value *v,
			 const uint64_t *slot, bool dcgm_only, int64_t t)
{
	if (v->state != GW_V_OK || v->kind == GW_VK_STR)
		return true; /* gw_series_emit() stores nothing either */
	bool nat = !dcgm_only && fd->prom && (fd->ptype == GW_PT_GAUGE || fd->ptype == GW_PT_COUNTER);
	bool dc = fd->dcgm != NULL;
	uint64_t rn = nat ? slot[0] : 0, rd = dc ? slot[nat ? 1 : 0] : 0;
	if ((nat && !rn) || (dc && !rd))
		return false;
	int rc = nat ? gw_tsdb_append(h->db, rn, t, gw_field_prom_value(fd, v)) : 0;
	if (rc == 0 && dc)
		rc = gw_tsdb_append(h->db, rd, t, gw_series_dcgm_value(fd, v));
	if (rc)
		h->append_errors++;
	return true;
}

/*
 * A GPU's jobs changed: the refs of its DCGM series name other series now.
 * All of the GPU's refs are dropped (the store finds the native ones again)
 * and room is made for the new jobs' refs. Returns the refs, NULL without
 * jobs or memory (the jobs' extra series are then not stored).
 */
static uint64_t *job_refs(struct agent_history *h, unsigned int g, const struct gw_hpcjobs *jobs)
{
	struct agent_history_jobs *hj = &h->jobs[g];
	uint64_t gen = jobs ? jobs->gen : 0;
	if (hj->gen == gen)
		return hj->refs;
	memset(&h->refs[(size_t)g * h->nfields * 2], 0, h->nfields * 2 * sizeof(uint64_t));
	memset(&h->xrefs[(size_t)g * 2], 0, 2 * sizeof(uint64_t));
	free(hj->refs);
	hj->refs = jobs ? calloc((size_t)jobs->n * (h->nfields + 1), sizeof(uint64_t)) : NULL;
	hj->gen = hj->refs ? gen : 0;
	return hj->refs;
}

/* FNV-1a of a pod container's names: tells one holder of a GPU from the next. */
static uint64_t pod_key(const struct gw_pod_dev *d)
{
	if (!d)
		return 0;
	uint64_t x = 1469598103934665603ULL;
	const char *s[3] = {d->ns, d->pod, d->container};
	for (int i = 0; i < 3; i++)
		for (const char *c = s[i];; c++) {
			x = (x ^ (unsigned char)*c) * 1099511628211ULL;
			if (!*c)
				break;
		}
	return x ? x : 1;
}

/*
 * The GPU changed hands (a pod container came, went or was replaced): its
 * DCGM series are other series now, so every ref of the GPU is dropped, as
 * when its jobs change (the jobs' refs too: job_refs() starts over).
 */
static void pod_refs(struct agent_history *h, unsigned int g, const struct gw_pod_dev *d)
{
	struct agent_history_jobs *hj = &h->jobs[g];
	uint64_t key = pod_key(d);
	if (hj->pod == key)
		return;
	hj->pod = key;
	memset(&h->refs[(size_t)g * h->nfields * 2], 0, h->nfields * 2 * sizeof(uint64_t));
	memset(&h->xrefs[(size_t)g * 2], 0, 2 * sizeof(uint64_t));
	free(hj->refs);
	hj->refs = NULL;
	hj->gen = UINT64_MAX; /* no list has it */
}

static void store_job_info(struct agent_history *h, const struct gw_series_gpu *sg, const char *id,
			   uint64_t *ref, int64_t t)
{
	struct gw_lpair l[] = {{GW_METRIC_NAME, JOB_INFO}, {"gpu", sg->index},     {"uuid", sg->uuid},
			       {"pci_bus_id", sg->bus_id}, {"model", sg->model},  {"hpc_job", id},
			       {"instance", h->instance},  {"job", h->job}};
	if ((!*ref && gw_tsdb_series(h->db, l, sizeof(l) / sizeof(l[0]), ref) != 0) ||
	    gw_tsdb_append(h->db, *ref, t, 1) != 0)
		h->append_errors++;
}

void agent_history_feed(struct agent_history *h, const struct gw_frame *f)
{
	h->frames_stored++;
	struct gw_lpair extra[] = {{"instance", h->instance}, {"job", h->job}};
	for (unsigned int g = 0; g < f->ngpus && g < h->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		if (fg->lost)
			continue;
		char idx[16];
		snprintf(idx, sizeof(idx), "%u", fg->gpu->index);
		const struct gw_pod_dev *pd = gw_pods_gpu(fg->pods, fg->gpu);
		pod_refs(h, g, pd);
		uint64_t *jr = job_refs(h, g, fg->jobs);
		unsigned int njobs = jr ? fg->jobs->n : 0;
		/* the label rows' labels, as /metrics gives them (gpu_metrics.c dcgm_labels) */
		struct gw_lpair dl[32];
		size_t ndl = 0;
		for (size_t k = 0; k < h->nlab && ndl < 32; k++) {
			const char *v = gw_series_label_value(h->lab[k].src, fg->v, h->driver, h->nvml);
			if (*v)
				dl[ndl++] = (struct gw_lpair){h->lab[k].name, v};
		}
		struct gw_series_gpu sg = {.index = idx,
					   .uuid = fg->gpu->uuid,
					   .bus_id = fg->gpu->bus_id,
					   .model = fg->gpu->name,
					   .hostname = h->host_label,
					   .labels = dl,
					   .nlabels = ndl,
					   .hpc_job = njobs ? fg->jobs->id[0] : NULL,
					   .container = pd ? pd->container : NULL,
					   .ns = pd ? pd->ns : NULL,
					   .pod = pd ? pd->pod : NULL};
		for (size_t i = 0; i < h->nfields; i++) {
			const struct gw_field *fd = &h->fields[i];
			if ((fd->flags & GW_FL_STATIC) && fd->cunit == GW_CU_NONE)
				continue; /* identity, not a measurement */
			struct emit_ctx e = {h, &h->refs[((size_t)g * h->nfields + i) * 2], 0};
			if (!append_known(h, fd, &fg->v[i], e.slot, false, f->t_ms) &&
			    gw_series_emit(fd, &fg->v[i], &sg, extra, 2, f->t_ms, store_sample, &e) != 0)
				h->append_errors++;
			/* the DCGM series again for each further job (the first came with the native one) */
			for (unsigned int j = 1; j < njobs; j++) {
				struct gw_series_gpu sj = sg;
				sj.hpc_job = fg->jobs->id[j];
				struct emit_ctx ej = {h, &jr[(size_t)j * (h->nfields + 1) + i], 0};
				if (!append_known(h, fd, &fg->v[i], ej.slot, true, f->t_ms) &&
				    gw_series_emit_dcgm(fd, &fg->v[i], &sj, extra, 2, f->t_ms, store_sample, &ej) != 0)
					h->append_errors++;
			}
		}
		for (unsigned int j = 0; j < njobs; j++)
			store_job_info(h, &sg, fg->jobs->id[j], &jr[(size_t)j * (h->nfields + 1) + h->nfields], f->t_ms);
		/* the two DCGM families /metrics gives that are no field of the table */
		const char *xid_name = h->fam[h->nfields].name, *pl_name = h->fam[h->nfields + 1].name;
		if (xid_name) {
			/* err_code and err_msg, as /metrics has them: a new XID is a new series */
			char code[16];
			snprintf(code, sizeof(code), "%u", fg->last_xid);
			struct gw_lpair xl[] = {{"err_code", code}, {"err_msg", gw_xid_text(fg->last_xid)},
						{"instance", h->instance}, {"job", h->job}};
			if (h->xid_code[g] != fg->last_xid) {
				h->xrefs[(size_t)g * 2] = 0;
				h->xid_code[g] = fg->last_xid;
			}
			struct emit_ctx e = {h, &h->xrefs[(size_t)g * 2], 0};
			if (gw_series_emit_dcgm_named(xid_name, fg->last_xid, &sg, xl, 4, f->t_ms,
						      store_sample, &e) != 0)
				h->append_errors++;
		}
		const struct gw_value *pl = h->enforced >= 0 ? &fg->v[h->enforced] : NULL;
		if (pl_name && pl && pl->state == GW_V_OK && pl->kind != GW_VK_STR) {
			struct emit_ctx e = {h, &h->xrefs[(size_t)g * 2 + 1], 0};
			double w = gw_series_dcgm_value(gw_field_at((size_t)h->enforced), pl);
			if (gw_series_emit_dcgm_named(pl_name, w, &sg, extra, 2, f->t_ms, store_sample,
						      &e) != 0)
				h->append_errors++;
		}
	}
	/* up, as a Prometheus scraping the agent records it: 1 for each sample taken */
	struct gw_lpair up[] = {{GW_METRIC_NAME, "up"}, {"instance", h->instance}, {"job", h->job}};
	if ((!h->up_ref && gw_tsdb_series(h->db, up, 3, &h->up_ref) != 0) || gw_tsdb_append(h->db, h->up_ref, f->t_ms, 1) != 0)
		h->append_errors++;
	agent_history_procs(h, f);
}
