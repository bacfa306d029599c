/*
 * expose.c - the agent's exposition part: the counters file (what /metrics
 * shows, reloaded on SIGHUP), the rendered families, and /metrics served
 * from a cache that renders each frame once per format.
 */
#include "agent/agent_int.h"

#include "fields/fields_table.h"

#include "version.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The store's families, then the server's: connections refused and cut, queries queued. */
static void render_extra(void *arg, struct gw_expfmt *w)
{
	struct gw_agent *a = arg;
	agent_history_render(&a->history, w);
	agent_alerting_render(a, w);
	agent_forecast_render(a, w);
	agent_anom_render(a, w);
	agent_push_render(a, w);
	agent_scrape_render(a, w);
	agent_health_render(a, w);
	agent_rw_render(a, w);
	agent_kubernetes_render(a, w);
	struct gw_http *srv = atomic_load(&a->http);
	if (!srv)
		return;
	struct gw_http_stats st;
	gw_http_stats(srv, &st);
	static const struct {
		const char *name, *help;
		enum gw_metric_type type;
		bool query; /* only with the query API */
	} fams[] = {
		{"gpuwatch_http_connections", "Open HTTP connections.", GW_METRIC_GAUGE, false},
		{"gpuwatch_http_connections_rejected_total",
		 "HTTP connections refused at accept: their source address held --web.max-connections-per-ip.",
		 GW_METRIC_COUNTER, false},
		{"gpuwatch_http_read_header_timeouts_total",
		 "HTTP connections closed because a request was not received within --web.read-header-timeout.",
		 GW_METRIC_COUNTER, false},
		{"gpuwatch_query_queue_length", "Queries waiting for one of --query.max-concurrency slots.",
		 GW_METRIC_GAUGE, true},
		{"gpuwatch_query_running", "Queries running now.", GW_METRIC_GAUGE, true},
		{"gpuwatch_query_rejected_total",
		 "Queries answered 503 without running: the queue was full, or they waited longer than --query.timeout.",
		 GW_METRIC_COUNTER, true},
	};
	const double v[] = {st.conns, (double)st.conns_rejected, (double)st.head_timeouts, (double)st.pool_queued,
			    st.pool_running, (double)st.pool_refused};
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		if (fams[i].query && !a->history.db)
			continue;
		gw_expfmt_family(w, fams[i].name, fams[i].help, fams[i].type);
		gw_expfmt_sample(w, NULL, 0, v[i]);
	}
}

/* The on-demand rows (GW_FL_ON_DEMAND) the counters list, asked of the sampler; the others it reads anyway. */
void agent_expose_want(struct gw_agent *a)
{
	if (!a->sampler)
		return;
	size_t n = gw_fields_count();
	bool *want = calloc(n ? n : 1, sizeof(*want));
	if (!want)
		return; /* the rows stay as they were */
	pthread_rwlock_rdlock(&a->lock);
	for (size_t i = 0; a->counters && i < a->counters->n; i++) {
		int f = a->metrics.field_of[i];
		if (f >= 0 && !a->counters->v[i].label)
			want[f] = true;
	}
	pthread_rwlock_unlock(&a->lock);
	gw_sampler_want(a->sampler, want);
	free(want);
}

/* Build the new counters and metrics aside, then swap them in under the lock. */
int agent_expose_load(struct gw_agent *a, struct gw_err *err)
{
	struct gw_counters *c = calloc(1, sizeof(*c));
	if (!c)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = a->o.counters ? gw_counters_load(c, a->o.counters, err) : gw_counters_default(c);
	if (rc) {
		free(c);
		return rc;
	}
	for (size_t i = 0; i < c->nwarnings && i < GW_COUNTERS_WARNINGS_MAX; i++)
		a->o.log("warn", "msg=\"counters file: line skipped\" err=\"%s\"", c->warnings[i]);
	if (c->nwarnings > GW_COUNTERS_WARNINGS_MAX)
		a->o.log("warn", "msg=\"counters file: more lines skipped\" count=%zu",
			 c->nwarnings - GW_COUNTERS_WARNINGS_MAX);
	/* real DCGM fields gpuwatch does not read: what the file asks for and does not get, said once */
	for (size_t i = 0; i < c->nnotes && i < GW_COUNTERS_WARNINGS_MAX; i++)
		a->o.log("info", "msg=\"counters file: field left out\" why=\"%s\"", c->notes[i]);
	if (c->nnotes > GW_COUNTERS_WARNINGS_MAX)
		a->o.log("info", "msg=\"counters file: more fields left out\" count=%zu",
			 c->nnotes - GW_COUNTERS_WARNINGS_MAX);
	struct gw_metrics m;
	if (gw_metrics_prepare(&m, c, a->nv) != 0) {
		gw_counters_release(c);
		free(c);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	m.version = GW_VERSION;
	m.native = a->o.native;
	m.extra = render_extra; /* the store's part is empty while no history is kept */
	m.extra_arg = a;
	m.health = agent_health_dcgm; /* DCGM_EXP_GPU_HEALTH_STATUS, when the counters list it */
	m.health_arg = a;
	pthread_rwlock_wrlock(&a->lock);
	struct gw_counters *old_c = a->counters;
	struct gw_metrics old_m = a->metrics;
	a->counters = c;
	a->metrics = m;
	gw_expo_cache_clear(&a->expo); /* rendered with the old config */
	pthread_rwlock_unlock(&a->lock);
	/* the history keeps what /metrics now shows (nothing before it opens) */
	agent_history_reconfigure(&a->history, c);
	agent_expose_want(a);
	if (old_c) {
		gw_metrics_release(&old_m);
		gw_counters_release(old_c);
		free(old_c);
	}
	return 0;
}

void agent_expose_release(struct gw_agent *a)
{
	gw_expo_cache_release(&a->expo);
	gw_metrics_release(&a->metrics);
	if (a->counters) {
		gw_counters_release(a->counters);
		free(a->counters);
	}
}

void agent_expose_metrics(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	enum gw_expfmt_kind kind = gw_expfmt_negotiate(gw_http_header(req, "Accept"));
	const struct gw_frame *f = gw_sampler_acquire(a->sampler);
	if (!f) {
		gw_http_reply_text(resp, 503, "no sample yet\n");
		return;
	}
	const char *data;
	size_t len;
	void *ref;
	pthread_rwlock_rdlock(&a->lock);
	bool gzip = gw_http_accepts_coding(gw_http_header(req, "Accept-Encoding"), "gzip");
	int rc = gw_expo_cache_get(&a->expo, &a->metrics, f, kind, gzip, &data, &len, &ref);
	pthread_rwlock_unlock(&a->lock);
	gw_sampler_release(a->sampler, f);
	if (rc) {
		gw_http_reply_text(resp, 500, rc == GW_EOVERFLOW ? "exposition too large\n" : "out of memory\n");
		return;
	}
	gw_http_reply_shared(resp, data, len, gw_expo_body_unref, ref);
	if (gzip)
		gw_http_add_header(resp, "Content-Encoding", "gzip");
	gw_http_add_header(resp, "Vary", "Accept-Encoding");
	resp->content_type = kind == GW_EXPFMT_OPENMETRICS ? GW_EXPFMT_CONTENT_TYPE_OPENMETRICS
							   : GW_EXPFMT_CONTENT_TYPE_TEXT;
}

/*
 * Once the second sample is in (GPM values need two; a value not yet read
 * is not available either): each listed DCGM field that no GPU answers
 * is left out of /metrics, as dcgm-exporter leaves it out; say so once
 * rather than leave the family silently missing. NVML's "not supported"
 * reads as not available (nvidia-smi's [N/A]). Waits at most 3 s, after
 * the server is up; without a second sample by then, says nothing.
 */
void agent_expose_check(struct gw_agent *a)
{
	const struct gw_frame *f = NULL;
	for (int waited = 0; waited <= 3000; waited += 50) {
		f = gw_sampler_acquire(a->sampler);
		if (!f || f->seq >= 2)
			break;
		gw_sampler_release(a->sampler, f);
		f = NULL;
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (!f)
		return;
	pthread_rwlock_rdlock(&a->lock);
	const struct gw_counters *c = a->counters;
	for (size_t i = 0; c && i < c->n; i++) {
		const struct gw_field *fd = NULL;
		size_t k = 0;
		for (; k < gw_fields_count() && !fd; k++)
			if (gw_field_at(k)->dcgm && strcmp(gw_field_at(k)->dcgm, c->v[i].field) == 0)
				fd = gw_field_at(k);
		if (!fd || c->v[i].label)
			continue;
		k--;
		unsigned int no = 0;
		uint8_t state = GW_V_OK;
		for (unsigned int g = 0; g < f->ngpus; g++) {
			uint8_t s = f->gpus[g].v[k].state;
			if (!f->gpus[g].lost && !f->gpus[g].stalled && s != GW_V_OK && s != GW_V_UNKNOWN_ERROR) {
				no++;
				state = s;
			}
		}
		if (f->ngpus && no == f->ngpus)
			a->o.log("info",
				 "msg=\"counters file: field left out\" why=\"%s left out: NVML cannot answer %s on "
				 "this GPU\" answer=\"%s\"",
				 c->v[i].name, c->v[i].field, gw_vstate_text((enum gw_vstate)state));
	}
	pthread_rwlock_unlock(&a->lock);
	gw_sampler_release(a->sampler, f);
}
