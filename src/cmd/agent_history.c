#include "cmd/agent_history.h"

#include "api/json.h"
#include "export/series.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOB_INFO "gpuwatch_hpc_job_info"
#define JOB_INFO_HELP "HPC jobs using each GPU, from the job mapping directory (1 per job)."

static void metadata(void *ctx, const char *metric, struct gw_buf *out)
{
	gw_buf_putc(out, '{');
	bool first = true;
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		for (int k = 0; k < 2; k++) {
			const char *name = k ? f->dcgm : f->prom;
			if (!name || (!k && f->ptype != GW_PT_GAUGE && f->ptype != GW_PT_COUNTER))
				continue;
			if (metric && strcmp(metric, name) != 0)
				continue;
			const char *type = !k && f->ptype == GW_PT_COUNTER ? "counter" : "gauge";
			gw_buf_puts(out, first ? "" : ",");
			first = false;
			gw_json_str(out, name);
			gw_buf_printf(out, ":[{\"type\":\"%s\",\"help\":", type);
			gw_json_str(out, !k && f->help ? f->help : f->desc ? f->desc : "");
			gw_buf_puts(out, ",\"unit\":\"\"}]");
		}
	}
	if (!metric || strcmp(metric, JOB_INFO) == 0) {
		gw_buf_printf(out, "%s\"" JOB_INFO "\":[{\"type\":\"gauge\",\"help\":\"" JOB_INFO_HELP
				   "\",\"unit\":\"\"}]",
			      first ? "" : ",");
	}
	gw_buf_putc(out, '}');
}

int agent_history_open(struct agent_history *h, const struct agent_history_opts *o, struct gw_nvml *nv,
		       unsigned int ngpus, struct gw_err *err)
{
	memset(h, 0, sizeof(*h));
	struct gw_tsdb_opts to = {.path = o->path,
				  .retention_ms = o->retention_ms,
				  .retention_bytes = o->retention_bytes,
				  .flush_interval_ms = o->flush_interval_ms};
	int rc = gw_tsdb_open(&h->db, &to, err);
	if (rc)
		return rc;
	h->ngpus = ngpus;
	h->nfields = gw_fields_count();
	h->refs = calloc((size_t)ngpus * h->nfields * 2 + 1, sizeof(uint64_t));
	h->jobs = calloc(ngpus ? ngpus : 1, sizeof(*h->jobs));
	if (!h->refs || !h->jobs) {
		free(h->refs);
		free(h->jobs);
		gw_tsdb_close(h->db);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	if (gethostname(h->hostname, sizeof(h->hostname) - 1) != 0)
		snprintf(h->hostname, sizeof(h->hostname), "localhost");
	snprintf(h->instance, sizeof(h->instance), "%s", o->instance ? o->instance : h->hostname);
	snprintf(h->job, sizeof(h->job), "%s", o->job ? o->job : "gpuwatch");
	if (nv->nvmlSystemGetDriverVersion)
		nv->nvmlSystemGetDriverVersion(h->driver, sizeof(h->driver));
	h->api.q = gw_tsdb_querier(h->db);
	h->api.version = GW_VERSION;
	h->api.metadata = metadata;
	h->api.opts.timeout_ms = 2 * 60 * 1000; /* Prometheus' default query timeout */
	gw_api_routes(&h->api, h->routes);
	return 0;
}

static void *store_loop(void *arg)
{
	struct agent_history *h = arg;
	uint64_t last_seq = 0;
	unsigned int wait_ms = h->interval_ms / 2 ? h->interval_ms / 2 : 1;
	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
		ts.tv_sec += wait_ms / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&h->cond, &h->lock, &ts);
		if (h->stop)
			break;
		pthread_mutex_unlock(&h->lock);
		const struct gw_frame *f = gw_sampler_acquire(h->sampler);
		if (f && f->seq != last_seq) {
			if (last_seq && f->seq > last_seq + 1)
				h->frames_missed += f->seq - last_seq - 1;
			agent_history_feed(h, f);
			h->frames_stored++;
			last_seq = f->seq;
		}
		gw_sampler_release(h->sampler, f);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int agent_history_start(struct agent_history *h, struct gw_sampler *s, unsigned int interval_ms)
{
	h->sampler = s;
	h->interval_ms = interval_ms;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	if (pthread_create(&h->thread, NULL, store_loop, h) != 0)
		return GW_ENOMEM;
	h->running = true;
	return 0;
}

void agent_history_close(struct agent_history *h)
{
	if (h->running) {
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_cond_broadcast(&h->cond);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->thread, NULL);
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->cond);
		h->running = false;
	}
	gw_tsdb_close(h->db);
	for (unsigned int g = 0; h->jobs && g < h->ngpus; g++)
		free(h->jobs[g].refs);
	free(h->jobs);
	free(h->refs);
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
	free(hj->refs);
	hj->refs = jobs ? calloc((size_t)jobs->n * (h->nfields + 1), sizeof(uint64_t)) : NULL;
	hj->gen = hj->refs ? gen : 0;
	return hj->refs;
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
	struct gw_lpair extra[] = {{"instance", h->instance}, {"job", h->job}};
	for (unsigned int g = 0; g < f->ngpus && g < h->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		if (fg->lost)
			continue;
		char idx[16];
		snprintf(idx, sizeof(idx), "%u", fg->gpu->index);
		uint64_t *jr = job_refs(h, g, fg->jobs);
		unsigned int njobs = jr ? fg->jobs->n : 0;
		struct gw_series_gpu sg = {.index = idx,
					   .uuid = fg->gpu->uuid,
					   .bus_id = fg->gpu->bus_id,
					   .model = fg->gpu->name,
					   .hostname = h->hostname,
					   .driver = h->driver,
					   .hpc_job = njobs ? fg->jobs->id[0] : NULL};
		for (size_t i = 0; i < h->nfields; i++) {
			const struct gw_field *fd = gw_field_at(i);
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
	}
}
