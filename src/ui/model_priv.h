/*
 * model_priv.h - what model.c shares with model_remote.c; not for other
 * modules. Same ownership and threading as model.h.
 */
#ifndef GW_UI_MODEL_PRIV_H
#define GW_UI_MODEL_PRIV_H

#include "ui/model.h"

/* Append an event to the ring; where says which GPU or node ("GPU 1", "node-a GPU 1"). */
void gw_ui_model_add_event(struct gw_ui_model *m, int64_t t_ms, unsigned int gpu, const char *where,
			   const char *text);

/* A GPU's current value of a charted metric in the chart's unit (%, W, C); NAN when not valid. */
float gw_ui_model_metric(const struct gw_ui_gpu *u, enum gw_ui_metric k);

/* A verdict worse than the one before (WARN or FAIL, and the first incident's tag) as an event; a first
 * verdict is no news. */
void gw_ui_model_health_news(struct gw_ui_model *m, unsigned int gpu, const char *where,
			     const struct gw_ui_health *old, const struct gw_ui_health *now, int64_t t_ms);

/* model_health.c: frame f through the local health watches and forecast, into each GPU. 0 or GW_ENOMEM. */
int gw_ui_model_watch(struct gw_ui_model *m, const struct gw_frame *f);
void gw_ui_model_watch_release(struct gw_ui_model *m);

#endif
