/*
 * health.c - the agent's health part: the health watches (health/) run
 * continuously on a thread of their own over the sampler's latest frame
 * (at most once a second: the watches look a minute back, and the
 * sampling thread is never delayed by them), their verdicts kept for
 * /metrics (gpuwatch_health_status{gpu,uuid,pci_bus_id,model,system}
 * 0 pass, 1 warn, 2 fail; DCGM_EXP_GPU_HEALTH_STATUS when the counters
 * file lists it), for /api/v1/health (the JSON `gpuwatch health --json`
 * prints) and, with history, stored as the exposition shows them. The
 * policies (--policy, policy.c) are checked after each evaluation.
 */
#include "agent/agent_int.h"

#include "health/reading.h"
#include "health/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAMILY "gpuwatch_health_status"

/* Each GPU's verdicts into the store, as /metrics labels them. */
static void store(struct gw_agent *a, const struct gw_frame *f)
{
	struct agent_health *hl = &a->health;
	struct agent_history *h = &a->history;
	if (!h->db)
		return;
	pthread_mutex_lock(&h->append_mu);
	for (unsigned int g = 0; g < f->ngpus && g < a->ngpus; g++) {
		const struct gw_gpu *gpu = f->gpus[g].gpu;
		char idx[16];
		snprintf(idx, sizeof(idx), "%u", gpu->index);
		for (int s = 0; s < GW_HSYS__COUNT; s++) {
			uint64_t *ref = &hl->refs[g * GW_HSYS__COUNT + (unsigned int)s];
			struct gw_lpair l[] = {{GW_METRIC_NAME, FAMILY},
					       {"gpu", idx},
					       {"uuid", gpu->uuid},
					       {"pci_bus_id", gpu->bus_id},
					       {"model", gpu->name},
					       {"system", gw_health_system_name((enum gw_health_system)s)},
					       {"instance", h->instance},
					       {"job", h->job}};
			if (!*ref && gw_tsdb_series(h->db, l, sizeof(l) / sizeof(l[0]), ref) != 0) {
				*ref = 0;
				continue;
			}
			/* an out-of-order sample (a clock stepped back) is dropped, as the frames' are */
			gw_tsdb_append(h->db, *ref, f->t_ms, hl->rep[g].system[s]);
		}
	}
	pthread_mutex_unlock(&h->append_mu);
	agent_rw_note_append(a, f->t_ms); /* the latest frame, evaluated after it was published */
}

/* The latest frame, if new, through the watches. */
static void evaluate(struct gw_agent *a)
{
	struct agent_health *hl = &a->health;
	const struct gw_frame *f = gw_sampler_acquire(a->sampler);
	if (!f || f->seq == hl->seq) {
		gw_sampler_release(a->sampler, f);
		return;
	}
	pthread_mutex_lock(&hl->mu);
	hl->seq = f->seq;
	for (unsigned int g = 0; g < f->ngpus && g < a->ngpus; g++) {
		struct gw_health_reading r;
		gw_health_reading_from_frame(&hl->map, f, g, &r);
		gw_health_eval(&hl->h, g, &r, &hl->rep[g]);
		agent_policy_check(a, g, &r, &hl->rep[g]); /* queues what fires; never waits on an action */
	}
	hl->have = true;
	pthread_mutex_unlock(&hl->mu);
	store(a, f);
	gw_sampler_release(a->sampler, f);
}

static void *run(void *arg)
{
	struct gw_agent *a = arg;
	struct agent_health *hl = &a->health;
	unsigned int every = a->interval_ms > 1000 ? a->interval_ms : 1000;
	pthread_mutex_lock(&hl->stop_mu);
	while (!hl->stop) {
		pthread_mutex_unlock(&hl->stop_mu);
		evaluate(a);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += every / 1000;
		until.tv_nsec += (long)(every % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&hl->stop_mu);
		while (!hl->stop && pthread_cond_timedwait(&hl->wake, &hl->stop_mu, &until) == 0)
			;
	}
	pthread_mutex_unlock(&hl->stop_mu);
	return NULL;
}

int agent_health_start(struct gw_agent *a, struct gw_err *err)
{
	struct agent_health *hl = &a->health;
	hl->rep = calloc(a->ngpus ? a->ngpus : 1, sizeof(*hl->rep));
	hl->refs = calloc((a->ngpus ? a->ngpus : 1) * GW_HSYS__COUNT, sizeof(*hl->refs));
	if (!hl->rep || !hl->refs || gw_health_init(&hl->h, a->ngpus, NULL) != 0)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	gw_health_map_init(&hl->map);
	pthread_mutex_init(&hl->mu, NULL);
	pthread_mutex_init(&hl->stop_mu, NULL);
	pthread_cond_init(&hl->wake, NULL);
	hl->open = true;
	evaluate(a); /* verdicts from the first frame on */
	if (pthread_create(&hl->thread, NULL, run, a) != 0)
		return gw_err_set(err, GW_ENOMEM, "cannot start the health watches' thread");
	hl->running = true;
	return 0;
}

void agent_health_stop(struct gw_agent *a)
{
	struct agent_health *hl = &a->health;
	if (hl->running) {
		pthread_mutex_lock(&hl->stop_mu);
		hl->stop = true;
		pthread_cond_signal(&hl->wake);
		pthread_mutex_unlock(&hl->stop_mu);
		pthread_join(hl->thread, NULL);
		hl->running = false;
	}
	if (hl->open) {
		pthread_mutex_destroy(&hl->mu);
		pthread_mutex_destroy(&hl->stop_mu);
		pthread_cond_destroy(&hl->wake);
		hl->open = false;
	}
	gw_health_release(&hl->h);
	free(hl->rep);
	free(hl->refs);
	hl->rep = NULL;
	hl->refs = NULL;
}

void agent_health_render(struct gw_agent *a, struct gw_expfmt *w)
{
	struct agent_health *hl = &a->health;
	if (!hl->open)
		return;
	pthread_mutex_lock(&hl->mu);
	if (hl->have) {
		gw_expfmt_family(
		    w, FAMILY,
		    "Health watch verdict by GPU and system (DCGM's health watches): 0 pass, 1 warn, 2 fail.",
		    GW_METRIC_GAUGE);
		for (unsigned int g = 0; g < a->ngpus; g++) {
			const struct gw_gpu *gpu = &a->gpus[g];
			char idx[16];
			snprintf(idx, sizeof(idx), "%u", gpu->index);
			for (int s = 0; s < GW_HSYS__COUNT; s++) {
				struct gw_label l[] = {
				    {"gpu", idx},
				    {"uuid", gpu->uuid},
				    {"pci_bus_id", gpu->bus_id},
				    {"model", gpu->name},
				    {"system", gw_health_system_name((enum gw_health_system)s)}};
				gw_expfmt_sample(w, l, sizeof(l) / sizeof(l[0]), hl->rep[g].system[s]);
			}
		}
	}
	pthread_mutex_unlock(&hl->mu);
}

/* gw_metrics.health: DCGM's result values (0, 10, 20) under dcgm-exporter's watch names. */
int agent_health_dcgm(void *arg, unsigned int g, const char *watch, const char **code)
{
	struct gw_agent *a = arg;
	struct agent_health *hl = &a->health;
	int v = -1;
	if (!hl->open)
		return -1;
	pthread_mutex_lock(&hl->mu);
	if (hl->have && g < a->ngpus) {
		const struct gw_health_report *r = &hl->rep[g];
		bool all = strcmp(watch, "ALL") == 0;
		int sys = -1;
		for (int s = 0; s < GW_HSYS__COUNT && sys < 0; s++)
			if (strcmp(gw_health_system_dcgm((enum gw_health_system)s), watch) == 0)
				sys = s;
		v = 0;
		*code = "DCGM_FR_OK";
		/* incidents are worst first: the first that belongs to the watch is its verdict */
		for (unsigned int i = 0; i < r->ninc; i++)
			if (all ? r->inc[i].all : !r->inc[i].all && r->inc[i].system == sys) {
				v = r->inc[i].severity == GW_HEALTH_FAIL ? 20 : 10;
				*code = r->inc[i].code;
				break;
			}
	}
	pthread_mutex_unlock(&hl->mu);
	return v;
}

/* GET /api/v1/health: `gpuwatch health --json`'s answer, from the latest evaluation. */
static void h_health(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	struct agent_health *hl = &a->health;
	(void)req;
	resp->content_type = "application/json";
	struct gw_health_gpu_id *ids = calloc(a->ngpus ? a->ngpus : 1, sizeof(*ids));
	if (!ids) {
		gw_http_reply_text(resp, 500, "out of memory\n");
		return;
	}
	for (unsigned int g = 0; g < a->ngpus; g++)
		ids[g] = (struct gw_health_gpu_id){a->gpus[g].index, a->gpus[g].uuid};
	pthread_mutex_lock(&hl->mu);
	if (hl->have)
		gw_health_json(&resp->body, ids, hl->rep, a->ngpus);
	pthread_mutex_unlock(&hl->mu);
	free(ids);
	if (!resp->body.len)
		gw_http_reply_text(resp, 503, "no sample yet\n");
}

const struct gw_http_route agent_health_route = {"/api/v1/health", GW_HTTP_GET, false, h_health, NULL};
