#include "cmd/agent_history.h"

#include "api/json.h"
#include "export/series.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	if (!h->refs) {
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
	free(h->refs);
	h->db = NULL;
	h->refs = NULL;
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

void agent_history_feed(struct agent_history *h, const struct gw_frame *f)
{
	struct gw_lpair extra[] = {{"instance", h->instance}, {"job", h->job}};
	for (unsigned int g = 0; g < f->ngpus && g < h->ngpus; g++) {
		const struct gw_frame_gpu *fg = &f->gpus[g];
		if (fg->lost)
			continue;
		char idx[16];
		snprintf(idx, sizeof(idx), "%u", fg->gpu->index);
		struct gw_series_gpu sg = {idx, fg->gpu->uuid, fg->gpu->bus_id, fg->gpu->name, h->hostname, h->driver};
		for (size_t i = 0; i < h->nfields; i++) {
			const struct gw_field *fd = gw_field_at(i);
			if ((fd->flags & GW_FL_STATIC) && fd->cunit == GW_CU_NONE)
				continue; /* identity, not a measurement */
			struct emit_ctx e = {h, &h->refs[((size_t)g * h->nfields + i) * 2], 0};
			if (gw_series_emit(fd, &fg->v[i], &sg, extra, 2, f->t_ms, store_sample, &e) != 0)
				h->append_errors++;
		}
	}
}
