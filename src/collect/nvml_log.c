#include "collect/nvml_log.h"

#include <string.h>

void gw_nvml_log_init(struct gw_nvml_log *l, int64_t interval_ms)
{
	memset(l, 0, sizeof(*l));
	l->interval_ms = interval_ms > 0 ? interval_ms : 60000;
}

void gw_nvml_log_check(struct gw_nvml_log *l, const struct gw_nvml_tally *t, int64_t now_ms,
		       gw_nvml_log_fn fn, void *arg)
{
	/* The common case, every tick: nothing failed and nothing is held. */
	if (t->total == l->seen_total && !l->held)
		return;
	l->seen_total = t->total;
	l->held = 0;
	for (int i = 0; i < GW_NVML_FN__COUNT; i++) {
		uint64_t n = t->by_fn[i] - l->logged[i];
		if (!n)
			continue;
		/* A clock that went back (a wall-clock step) ends the interval too. */
		bool due =
		    !l->last_ms[i] || now_ms - l->last_ms[i] >= l->interval_ms || now_ms < l->last_ms[i];
		if (!due) {
			l->pending[i] = true;
			l->held++;
			continue;
		}
		struct gw_nvml_log_line line = {
		    .function = gw_nvml_fn_name((enum gw_nvml_fn)i),
		    .errors = n,
		    .total = t->by_fn[i],
		    .summary = l->pending[i],
		    .span_ms = l->pending[i] ? now_ms - l->last_ms[i] : 0,
		    .gpu = t->last_gpu[i],
		    .ret = t->last_ret[i],
		};
		l->logged[i] = t->by_fn[i];
		l->last_ms[i] = now_ms ? now_ms : 1;
		l->pending[i] = false;
		if (fn)
			fn(arg, &line);
	}
}
