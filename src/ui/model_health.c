/*
 * model_health.c - the local view's health verdicts and OOM forecast: the
 * frames top samples go through the health module's watches (as `gpuwatch
 * health` and the agent run them) and each GPU's memory use through the
 * forecast's Theil-Sen trend (analysis/trend.h, as the agent's
 * agent/forecast.c), one point a step of the window. Also the short tags
 * incidents are shown by, whichever source they came from.
 */
#include "ui/model_priv.h"

#include "core/err.h"
#include "fields/fields_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORECAST_WINDOW_MS (10 * 60 * 1000) /* the agent's default --memory.forecast-window */

/* A word or two for each DCGM code the watches give, where the code says more than the system. */
static const struct {
	const char *code, *tag;
} tags[] = {
    {"DCGM_FR_VOLATILE_DBE_DETECTED", "DBE"},
    {"DCGM_FR_VOLATILE_SBE_DETECTED", "SBE rate"},
    {"DCGM_FR_PENDING_PAGE_RETIREMENTS", "retire pending"},
    {"DCGM_FR_RETIRED_PAGES_LIMIT", "retired pages"},
    {"DCGM_FR_RETIRED_PAGES_DBE_LIMIT", "retired DBE"},
    {"DCGM_FR_ROW_REMAP_FAILURE", "remap failed"},
    {"DCGM_FR_PENDING_ROW_REMAP", "remap pending"},
    {"DCGM_FR_UNCORRECTABLE_ROW_REMAP", "remapped rows"},
    {"DCGM_FR_PCI_REPLAY_RATE", "replays"},
    {"DCGM_FR_PCIE_WIDTH", "link width"},
    {"DCGM_FR_PCIE_GENERATION", "link gen"},
    {"DCGM_FR_CORRUPT_INFOROM", "corrupt"},
    {"DCGM_FR_CLOCK_THROTTLE_THERMAL", "throttled"},
    {"DCGM_FR_TEMP_VIOLATION", "too hot"},
    {"DCGM_FR_CLOCK_THROTTLE_POWER", "throttled"},
    {"DCGM_FR_NVLINK_DOWN", "link down"},
    {"DCGM_FR_NVLINK_ERROR_CRITICAL", "errors"},
    {"DCGM_FR_NVLINK_CRC_ERROR_THRESHOLD", "CRC errors"},
    {"DCGM_FR_NVLINK_ERROR_THRESHOLD", "errors"},
    {"DCGM_FR_GPU_RECOVERY_RESET", "reset needed"},
    {"DCGM_FR_GPU_RECOVERY_REBOOT", "reboot needed"},
    {"DCGM_FR_GPU_RECOVERY_DRAIN_P2P", "drain P2P"},
    {"DCGM_FR_GPU_RECOVERY_DRAIN_RESET", "drain, reset"},
    {"DCGM_FR_FALLEN_OFF_BUS", "lost"},
};

void gw_ui_health_tag(const char *code, const char *message, char *buf, size_t n)
{
	unsigned int xid;
	if (message && sscanf(message, "XID %u:", &xid) == 1) {
		snprintf(buf, n, "XID %u", xid);
		return;
	}
	for (size_t i = 0; code && i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strcmp(tags[i].code, code) == 0) {
			snprintf(buf, n, "%s", tags[i].tag);
			return;
		}
	if (code && strncmp(code, "DCGM_FR_", 8) == 0)
		code += 8;
	snprintf(buf, n, "%s", code ? code : "");
}

void gw_ui_health_from_report(struct gw_ui_health *h, const struct gw_health_report *r)
{
	h->known = true;
	h->status = r->status;
	memcpy(h->system, r->system, sizeof(h->system));
	h->ninc = 0;
	for (unsigned int i = 0; i < r->ninc && h->ninc < GW_UI_INCIDENTS_MAX; i++) {
		const struct gw_health_incident *in = &r->inc[i];
		struct gw_ui_incident *o = &h->inc[h->ninc++];
		o->severity = in->severity;
		o->system = in->system;
		gw_ui_health_tag(in->code, in->message, o->tag, sizeof(o->tag));
		snprintf(o->message, sizeof(o->message), "%s", in->message);
	}
}

static int watch_open(struct gw_ui_model *m)
{
	struct gw_ui_watch *w = &m->watch;
	w->window_ms = m->forecast_window_ms > 0 ? m->forecast_window_ms : FORECAST_WINDOW_MS;
	w->step_ms = gw_trend_step_ms(w->window_ms, 0);
	w->used_idx = gw_field_index(gw_field_find("memory.used"));
	w->free_idx = gw_field_index(gw_field_find("memory.free"));
	w->ring = calloc(m->ngpus ? m->ngpus : 1, sizeof(*w->ring));
	w->scratch = malloc(gw_trend_scratch(GW_TREND_POINTS) * sizeof(double));
	if (!w->ring || !w->scratch || gw_health_init(&w->h, m->ngpus, NULL) != 0) {
		free(w->ring);
		free(w->scratch);
		w->ring = NULL;
		w->scratch = NULL;
		return GW_ENOMEM;
	}
	gw_health_map_init(&w->map);
	w->open = true;
	return 0;
}

void gw_ui_model_watch_release(struct gw_ui_model *m)
{
	struct gw_ui_watch *w = &m->watch;
	if (w->open)
		gw_health_release(&w->h);
	free(w->ring);
	free(w->scratch);
	memset(w, 0, sizeof(*w));
}

/* A field's value in bytes; -1 when not available. */
static double bytes(const struct gw_frame_gpu *fg, long k)
{
	if (k < 0 || fg->v[k].state != GW_V_OK || fg->v[k].kind == GW_VK_STR)
		return -1;
	return fg->v[k].kind == GW_VK_INT ? (double)fg->v[k].i : fg->v[k].d;
}

/* GPU g's point of the frame into its trend; the time to full, or -1. */
static double forecast(struct gw_ui_watch *w, const struct gw_frame *f, unsigned int g)
{
	const struct gw_frame_gpu *fg = &f->gpus[g];
	double used = bytes(fg, w->used_idx), free_ = bytes(fg, w->free_idx);
	if (fg->lost || fg->stalled || used < 0 || free_ < 0) {
		w->ring[g].n = 0; /* a gap: start again rather than join across it */
		return -1;
	}
	return gw_trend_ring_add(&w->ring[g], (double)f->t_ms / 1000.0, used, used + free_,
				 (double)w->window_ms / 1000.0, w->scratch);
}

void gw_ui_model_health_news(struct gw_ui_model *m, unsigned int gpu, const char *where,
			     const struct gw_ui_health *old, const struct gw_ui_health *now, int64_t t_ms)
{
	if (!old->known || !now->known || now->status == GW_HEALTH_PASS || old->status >= now->status)
		return;
	char text[80], sys[64] = "";
	if (now->ninc) /* incidents are worst first */
		snprintf(sys, sizeof(sys), " %s: %s",
			 gw_health_system_name((enum gw_health_system)now->inc[0].system), now->inc[0].tag);
	for (int s = 0; !now->ninc && s < GW_HSYS__COUNT && !sys[0]; s++)
		if (now->system[s] == now->status)
			snprintf(sys, sizeof(sys), " %s", gw_health_system_name((enum gw_health_system)s));
	snprintf(text, sizeof(text), "health %s%s", now->status == GW_HEALTH_FAIL ? "FAIL" : "WARN", sys);
	gw_ui_model_add_event(m, t_ms, gpu, where, text);
}

int gw_ui_model_watch(struct gw_ui_model *m, const struct gw_frame *f)
{
	struct gw_ui_watch *w = &m->watch;
	if (!w->open && watch_open(m) != 0)
		return GW_ENOMEM;
	bool step = f->t_ms - w->last_ms >= w->step_ms;
	if (step)
		w->last_ms = f->t_ms;
	for (unsigned int g = 0; g < f->ngpus && g < m->ngpus; g++) {
		struct gw_health_reading r;
		struct gw_health_report rep;
		struct gw_ui_health old = m->gpus[g].health;
		char where[16];
		gw_health_reading_from_frame(&w->map, f, g, &r);
		gw_health_eval(&w->h, g, &r, &rep);
		gw_ui_health_from_report(&m->gpus[g].health, &rep);
		snprintf(where, sizeof(where), "GPU %u", m->gpus[g].index);
		gw_ui_model_health_news(m, g, where, &old, &m->gpus[g].health, f->t_ms);
		if (step)
			m->gpus[g].ttf_s = forecast(w, f, g);
	}
	return 0;
}
