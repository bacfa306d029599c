#include "cmd/smi_apps.h"
#include "cmd/smi_collect.h"
#include "collect/procs.h"

#include <string.h>

enum app_col { A_TIMESTAMP, A_GPU_NAME, A_GPU_BUS_ID, A_GPU_SERIAL, A_GPU_UUID, A_PID, A_NAME, A_MEM };

static const struct {
	enum app_col id;
	const char *name; /* canonical, printed in the header */
	const char *alias;
	const char *unit; /* header suffix */
	const char *help;
} app_fields[] = {
	{A_TIMESTAMP, "timestamp", NULL, NULL,
	 "The timestamp of when the query was made in format \"YYYY/MM/DD HH:MM:SS.msec\"."},
	{A_GPU_NAME, "gpu_name", NULL, NULL,
	 "The official product name of the GPU. This is an alphanumeric string. For all products."},
	{A_GPU_BUS_ID, "gpu_bus_id", NULL, NULL, "PCI bus id as \"domain:bus:device.function\", in hex."},
	{A_GPU_SERIAL, "gpu_serial", NULL, NULL,
	 "This number matches the serial number physically printed on each board. It is a globally unique "
	 "immutable alphanumeric value."},
	{A_GPU_UUID, "gpu_uuid", NULL, NULL,
	 "This value is the globally unique immutable alphanumeric identifier of the GPU. It does not "
	 "correspond to any physical label on the board."},
	{A_PID, "pid", NULL, NULL, "Process ID of the compute application"},
	{A_NAME, "process_name", "name", NULL, "Process Name"},
	{A_MEM, "used_gpu_memory", "used_memory", "MiB",
	 "Amount memory used on the device by the context. Not available on Windows when running in WDDM "
	 "mode because Windows KMD manages all the memory not NVIDIA driver."},
};
#define N_APP_FIELDS (sizeof(app_fields) / sizeof(app_fields[0]))

int gw_smi_apps_parse(const char *list, int *cols, size_t *n, char *bad, size_t badlen)
{
	*n = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		size_t i = 0;
		for (; i < N_APP_FIELDS; i++) {
			const char *a = app_fields[i].alias;
			if ((strlen(app_fields[i].name) == len && strncmp(p, app_fields[i].name, len) == 0) ||
			    (a && strlen(a) == len && strncmp(p, a, len) == 0))
				break;
		}
		if (i == N_APP_FIELDS || *n >= GW_SMI_APPS_MAX) {
			snprintf(bad, badlen, "%.*s", (int)len, p);
			return GW_EINVAL;
		}
		cols[(*n)++] = (int)i;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

void gw_smi_apps_header(FILE *out, const int *cols, size_t n, const struct gw_smi_format *fmt)
{
	if (fmt->noheader)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *unit = app_fields[cols[i]].unit;
		fprintf(out, "%s%s", i ? ", " : "", app_fields[cols[i]].name);
		if (unit && !fmt->nounits)
			fprintf(out, " [%s]", unit);
	}
	fputc('\n', out);
}

static void timestamp(char *buf, size_t n, const struct timespec *ts)
{
	struct tm tm;
	time_t t = ts->tv_sec;
	localtime_r(&t, &tm);
	char base[32];
	strftime(base, sizeof(base), "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03ld", base, ts->tv_nsec / 1000000L);
}

static void cell(char *buf, size_t n, enum app_col id, const struct gw_proc *p, const struct gw_read_ctx *c,
		 const struct gw_smi_format *fmt)
{
	switch (id) {
	case A_TIMESTAMP:
		timestamp(buf, n, &c->now);
		break;
	case A_GPU_NAME:
		snprintf(buf, n, "%s", c->gpu->name);
		break;
	case A_GPU_BUS_ID:
		snprintf(buf, n, "%s", c->gpu->bus_id);
		break;
	case A_GPU_SERIAL:
		if (!gw_smi_field_text(c, "serial", buf, n, NULL))
			snprintf(buf, n, "[N/A]");
		break;
	case A_GPU_UUID:
		snprintf(buf, n, "%s", c->gpu->uuid);
		break;
	case A_PID:
		snprintf(buf, n, "%u", p->pid);
		break;
	case A_NAME:
		snprintf(buf, n, "%s", p->name[0] ? p->name : "[N/A]");
		break;
	case A_MEM:
		if (p->mem_valid)
			snprintf(buf, n, "%llu%s", (unsigned long long)(p->used_bytes / (1024ULL * 1024ULL)),
				 fmt->nounits ? "" : " MiB");
		else
			snprintf(buf, n, "[N/A]");
		break;
	}
}

int gw_smi_apps_rows(FILE *out, const int *cols, size_t n, const struct gw_smi_format *fmt,
		     const struct gw_read_ctx *c)
{
	if (c->gpu->lost)
		return GW_EGPULOST;
	struct gw_procs p;
	int rc = gw_procs_list(c->nv, c->gpu->dev, &p);
	if (rc != 0)
		return rc;
	char buf[GW_PROC_NAME_MAX + 32];
	for (size_t i = 0; i < p.n; i++) {
		if (!p.v[i].compute)
			continue;
		for (size_t k = 0; k < n; k++) {
			cell(buf, sizeof(buf), app_fields[cols[k]].id, &p.v[i], c, fmt);
			fprintf(out, "%s%s", k ? ", " : "", buf);
		}
		fputc('\n', out);
	}
	gw_procs_release(&p);
	return 0;
}

void gw_smi_help_query_compute_apps(FILE *out)
{
	fputs("List of valid properties to query for the switch \"--query-compute-apps\":\n\n"
	      "Section about Active Compute Processes properties\n"
	      "List of processes having compute context on the device.\n\n",
	      out);
	for (size_t i = 0; i < N_APP_FIELDS; i++) {
		if (app_fields[i].alias)
			fprintf(out, "\"%s\" or \"%s\"\n", app_fields[i].name, app_fields[i].alias);
		else
			fprintf(out, "\"%s\"\n", app_fields[i].name);
		fprintf(out, "%s\n\n", app_fields[i].help);
	}
}
