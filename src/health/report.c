/*
 * report.c - verdicts as JSON (the one-shot's --json, /api/v1/health) and
 * as the one-shot's text.
 */
#include "health/report.h"

#include "api/json.h"

#include <stdio.h>
#include <time.h>

size_t gw_health_time(char *out, size_t n, int64_t ms)
{
	time_t s = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int frac = (int)(ms - (int64_t)s * 1000);
	struct tm tm;
	if (!gmtime_r(&s, &tm) || n < 32) {
		if (n)
			out[0] = '\0';
		return 0;
	}
	size_t w = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
	int k = frac ? snprintf(out + w, n - w, ".%03dZ", frac) : snprintf(out + w, n - w, "Z");
	return w + (size_t)(k > 0 ? k : 0);
}

void gw_health_json(struct gw_buf *b, const struct gw_health_gpu_id *ids, const struct gw_health_report *r,
		    unsigned int n)
{
	gw_buf_printf(b, "{\"overall\":\"%s\",\"gpus\":[", gw_health_status_name(gw_health_overall(r, n)));
	for (unsigned int g = 0; g < n; g++) {
		gw_buf_printf(b, "%s{\"index\":%u,\"uuid\":", g ? "," : "", ids[g].index);
		gw_json_str(b, ids[g].uuid);
		gw_buf_printf(b, ",\"status\":\"%s\",\"incidents\":[",
			      gw_health_status_name((enum gw_health_status)r[g].status));
		for (unsigned int i = 0; i < r[g].ninc; i++) {
			const struct gw_health_incident *in = &r[g].inc[i];
			char since[40];
			gw_health_time(since, sizeof(since), in->since_ms);
			gw_buf_printf(b, "%s{\"system\":\"%s\",\"severity\":\"%s\",\"code\":", i ? "," : "",
				      gw_health_system_name((enum gw_health_system)in->system),
				      gw_health_status_name((enum gw_health_status)in->severity));
			gw_json_str(b, in->code);
			gw_buf_puts(b, ",\"message\":");
			gw_json_str(b, in->message);
			gw_buf_printf(b, ",\"since\":\"%s\"}", since);
		}
		gw_buf_puts(b, "]}");
	}
	gw_buf_puts(b, "]}\n");
}

void gw_health_text(struct gw_buf *b, const struct gw_health_gpu_id *ids, const struct gw_health_report *r,
		    unsigned int n)
{
	gw_buf_printf(b, "Overall: %s\n", gw_health_status_name(gw_health_overall(r, n)));
	for (unsigned int g = 0; g < n; g++) {
		/* a GPU lost before it was first read has no UUID to show */
		gw_buf_printf(b, "GPU %u  %s  %s\n", ids[g].index, ids[g].uuid[0] ? ids[g].uuid : "(UUID unknown)",
			      gw_health_status_name((enum gw_health_status)r[g].status));
		for (unsigned int i = 0; i < r[g].ninc; i++) {
			const struct gw_health_incident *in = &r[g].inc[i];
			char since[40];
			gw_health_time(since, sizeof(since), in->since_ms);
			gw_buf_printf(b, "  %-8s %s  %s (since %s)\n",
				      gw_health_system_name((enum gw_health_system)in->system),
				      gw_health_status_name((enum gw_health_status)in->severity), in->message,
				      since);
		}
	}
}
