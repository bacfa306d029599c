#include "cmd/smi_apps.h"
#include "cmd/smi_collect.h"

#include <stdlib.h>
#include <string.h>

enum app_col {
	A_TIMESTAMP,
	A_GPU_NAME,
	A_GPU_BUS_ID,
	A_GPU_SERIAL,
	A_GPU_UUID,
	A_VGPU,
	A_PID,
	A_NAME,
	A_MEM,
	A_GPU_UTIL,
	A_MEM_UTIL,
	A_MAX_MEM,
	A_TIME,
	A_PAGE_ADDR,
	A_PAGE_TIME,
	A_PAGE_CAUSE,
	A_REMAP_CORR,
	A_REMAP_UNC,
	A_REMAP_PENDING,
	A_REMAP_FAILURE,
};

#define Q_COMPUTE (1U << GW_SMI_Q_COMPUTE_APPS)
#define Q_ACCT (1U << GW_SMI_Q_ACCOUNTED_APPS)
#define Q_PAGES (1U << GW_SMI_Q_RETIRED_PAGES)
#define Q_REMAP (1U << GW_SMI_Q_REMAPPED_ROWS)
#define Q_ALL (Q_COMPUTE | Q_ACCT | Q_PAGES | Q_REMAP)

/* In the order each query's help lists them. */
static const struct {
	enum app_col id;
	unsigned int queries; /* Q_* mask */
	const char *name;     /* canonical, printed in the header */
	const char *alias;
	const char *unit; /* header suffix */
	const char *help;
} app_fields[] = {
    {A_TIMESTAMP, Q_ALL, "timestamp", NULL, NULL,
     "The timestamp of when the query was made in format \"YYYY/MM/DD HH:MM:SS.msec\"."},
    {A_GPU_NAME, Q_ALL, "gpu_name", NULL, NULL,
     "The official product name of the GPU. This is an alphanumeric string. For all products."},
    {A_GPU_BUS_ID, Q_ALL, "gpu_bus_id", NULL, NULL, "PCI bus id as \"domain:bus:device.function\", in hex."},
    {A_GPU_SERIAL, Q_ALL, "gpu_serial", NULL, NULL,
     "This number matches the serial number physically printed on each board. It is a globally unique "
     "immutable alphanumeric value."},
    {A_GPU_UUID, Q_ALL, "gpu_uuid", NULL, NULL,
     "This value is the globally unique immutable alphanumeric identifier of the GPU. It does not "
     "correspond to any physical label on the board."},
    {A_VGPU, Q_ACCT, "vgpu_instance", NULL, NULL, "vGPU instance"},
    {A_PID, Q_COMPUTE | Q_ACCT, "pid", NULL, NULL, "Process ID of the compute application"},
    {A_NAME, Q_COMPUTE, "process_name", "name", NULL, "Process Name"},
    {A_MEM, Q_COMPUTE, "used_gpu_memory", "used_memory", "MiB",
     "Amount memory used on the device by the context. Not available on Windows when running in WDDM "
     "mode because Windows KMD manages all the memory not NVIDIA driver."},
    {A_GPU_UTIL, Q_ACCT, "gpu_utilization", "gpu_util", "%", "GPU Utilization"},
    {A_MEM_UTIL, Q_ACCT, "mem_utilization", "mem_util", "%",
     "Percentage of GPU memory utilized on the device by the context."},
    {A_MAX_MEM, Q_ACCT, "max_memory_usage", NULL, "MiB",
     "Maximum amount memory used on the device by the context."},
    {A_TIME, Q_ACCT, "time", NULL, "ms", "Amount of time in ms during which the compute context was active."},
    {A_PAGE_ADDR, Q_PAGES, "retired_pages.address", NULL, NULL,
     "Address of a retired page. Address might be different when ECC is Enabled or Disabled."},
    {A_PAGE_TIME, Q_PAGES, "retired_pages.timestamp", NULL, NULL, "Timestamp at which the page was retired."},
    {A_PAGE_CAUSE, Q_PAGES, "retired_pages.cause", NULL, NULL,
     "Reason that describes why the page was retired. Can take one of two values: \n"
     " - Double Bit ECC - The number of GPU device memory pages that have been retired due to a double bit "
     "ECC "
     "error.\n"
     " - Single Bit ECC - The number of GPU device memory pages that have been retired due to multiple "
     "single "
     "bit ECC errors."},
    {A_REMAP_CORR, Q_REMAP, "remapped_rows.correctable", "remapped_rows.sbe", NULL,
     "The number of rows that have been remapped due to multiple single bit ECC errors."},
    {A_REMAP_UNC, Q_REMAP, "remapped_rows.uncorrectable", "remapped_rows.dbe", NULL,
     "The number of rows that have been remapped due to a double bit ECC error."},
    {A_REMAP_PENDING, Q_REMAP, "remapped_rows.pending", NULL, NULL,
     "Checks if any row remapping are pending on the next reboot."},
    {A_REMAP_FAILURE, Q_REMAP, "remapped_rows.failure", NULL, NULL,
     "Checks if any row remapping failure happens in the GPU lifespan."},
};
#define N_APP_FIELDS (sizeof(app_fields) / sizeof(app_fields[0]))

static const struct {
	const char *option;
	const char *preamble; /* help text between the first line and the fields */
} queries[] = {
    [GW_SMI_Q_COMPUTE_APPS] = {"--query-compute-apps",
			       "Section about Active Compute Processes properties\n"
			       "List of processes having compute context on the device.\n\n"},
    [GW_SMI_Q_ACCOUNTED_APPS] =
	{"--query-accounted-apps",
	 "Section about Accounted Graphics/Compute Processes properties\n"
	 "List of accounted processes having had a graphics/compute context on the device.\n\n"
	 "Format options and one or more properties to be queried need to be provided as "
	 "comma separated values for this switch.\n"
	 "For example:\n"
	 "nvidia-smi --query-accounted-apps=gpu_name,pid,time,gpu_util,mem_util,"
	 "max_memory_usage --format=csv\n\n"
	 "List of properties that can be queried are:\n\n"},
    [GW_SMI_Q_RETIRED_PAGES] = {"--query-retired-pages", ""},
    [GW_SMI_Q_REMAPPED_ROWS] = {"--query-remapped-rows", ""},
};

static bool word_is(const char *p, size_t len, const char *s)
{
	return s && strlen(s) == len && strncmp(p, s, len) == 0;
}

int gw_smi_apps_parse(enum gw_smi_listq q, const char *list, int *cols, size_t *n, char *bad, size_t badlen)
{
	*n = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		size_t i = 0;
		for (; i < N_APP_FIELDS; i++)
			if ((app_fields[i].queries & (1U << q)) &&
			    (word_is(p, len, app_fields[i].name) || word_is(p, len, app_fields[i].alias)))
				break;
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

static void local_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, n, "%Y/%m/%d %H:%M:%S", &tm);
}

static void timestamp(char *buf, size_t n, const struct timespec *ts)
{
	char base[32];
	local_time(base, sizeof(base), ts->tv_sec);
	snprintf(buf, n, "%s.%03ld", base, ts->tv_nsec / 1000000L);
}

/* A number with its unit unless nounits, or [N/A]. */
static void num(char *buf, size_t n, bool valid, unsigned long long v, const char *unit,
		const struct gw_smi_format *fmt)
{
	if (!valid)
		snprintf(buf, n, "[N/A]");
	else if (unit && !fmt->nounits)
		snprintf(buf, n, "%llu %s", v, unit);
	else
		snprintf(buf, n, "%llu", v);
}

static void cell(char *buf, size_t n, enum app_col id, const struct gw_smi_rec *r,
		 const struct gw_read_ctx *c, const struct gw_smi_format *fmt)
{
	const unsigned long long mib = 1024ULL * 1024ULL;
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
	case A_VGPU:
		snprintf(buf, n, "[N/A]"); /* no vGPU host support */
		break;
	case A_PID:
		snprintf(buf, n, "%u", r->pid);
		break;
	case A_NAME:
		snprintf(buf, n, "%s", r->name[0] ? r->name : "[N/A]");
		break;
	case A_MEM:
		num(buf, n, r->mem_valid, r->mem_bytes / mib, "MiB", fmt);
		break;
	case A_GPU_UTIL:
		num(buf, n, r->acct_valid, r->gpu_util, "%", fmt);
		break;
	case A_MEM_UTIL:
		num(buf, n, r->acct_valid, r->mem_util, "%", fmt);
		break;
	case A_MAX_MEM:
		num(buf, n, r->acct_valid && r->mem_valid, r->mem_bytes / mib, "MiB", fmt);
		break;
	case A_TIME:
		num(buf, n, r->acct_valid, r->time_ms, "ms", fmt);
		break;
	case A_PAGE_ADDR:
		if (r->page_valid)
			snprintf(buf, n, "0x%016llx", r->addr);
		else
			snprintf(buf, n, "[N/A]");
		break;
	case A_PAGE_TIME:
		if (r->page_valid && r->stamp)
			local_time(buf, n, (time_t)r->stamp);
		else
			snprintf(buf, n, "[N/A]");
		break;
	case A_PAGE_CAUSE:
		snprintf(buf, n, "%s",
			 r->cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? "Double Bit ECC"
										     : "Single Bit ECC");
		break;
	case A_REMAP_CORR:
		num(buf, n, r->remap_valid, r->corr, NULL, fmt);
		break;
	case A_REMAP_UNC:
		num(buf, n, r->remap_valid, r->unc, NULL, fmt);
		break;
	case A_REMAP_PENDING:
		snprintf(buf, n, "%s", !r->remap_valid ? "[N/A]" : r->pending ? "Yes" : "No");
		break;
	case A_REMAP_FAILURE:
		snprintf(buf, n, "%s", !r->remap_valid ? "[N/A]" : r->failure ? "Yes" : "No");
		break;
	}
}

/* The GPU's compute processes in the driver's order. */
static int recs_compute(const struct gw_read_ctx *c, struct gw_smi_rec **recs, size_t *n)
{
	struct gw_procs p;
	int rc = gw_procs_list(c->nv, c->gpu->dev, &p);
	if (rc != 0)
		return rc;
	*n = 0;
	*recs = calloc(p.n ? p.n : 1, sizeof(**recs));
	if (!*recs) {
		gw_procs_release(&p);
		return GW_ENOMEM;
	}
	for (size_t i = 0; i < p.n; i++) {
		if (!p.v[i].compute)
			continue;
		struct gw_smi_rec *r = &(*recs)[(*n)++];
		r->pid = p.v[i].pid;
		snprintf(r->name, sizeof(r->name), "%s", p.v[i].name);
		r->mem_valid = p.v[i].mem_valid;
		r->mem_bytes = p.v[i].used_bytes;
	}
	gw_procs_release(&p);
	return 0;
}

int gw_smi_apps_rows(enum gw_smi_listq q, FILE *out, const int *cols, size_t n,
		     const struct gw_smi_format *fmt, const struct gw_read_ctx *c)
{
	if (c->gpu->lost)
		return GW_EGPULOST;
	struct gw_smi_rec *recs = NULL;
	size_t nrecs = 0;
	int rc;
	switch (q) {
	case GW_SMI_Q_ACCOUNTED_APPS:
		rc = gw_smi_recs_accounted(c, &recs, &nrecs);
		break;
	case GW_SMI_Q_RETIRED_PAGES:
		rc = gw_smi_recs_retired(c, &recs, &nrecs);
		break;
	case GW_SMI_Q_REMAPPED_ROWS:
		rc = gw_smi_recs_remapped(c, &recs, &nrecs);
		break;
	default:
		rc = recs_compute(c, &recs, &nrecs);
		break;
	}
	char buf[GW_PROC_NAME_MAX + 32];
	for (size_t i = 0; rc == 0 && i < nrecs; i++) {
		for (size_t k = 0; k < n; k++) {
			cell(buf, sizeof(buf), app_fields[cols[k]].id, &recs[i], c, fmt);
			fprintf(out, "%s%s", k ? ", " : "", buf);
		}
		fputc('\n', out);
	}
	free(recs);
	return rc;
}

void gw_smi_apps_help(enum gw_smi_listq q, FILE *out)
{
	fprintf(out, "List of valid properties to query for the switch \"%s\":\n\n%s", queries[q].option,
		queries[q].preamble);
	for (size_t i = 0; i < N_APP_FIELDS; i++) {
		if (!(app_fields[i].queries & (1U << q)))
			continue;
		if (app_fields[i].alias)
			fprintf(out, "\"%s\" or \"%s\"\n", app_fields[i].name, app_fields[i].alias);
		else
			fprintf(out, "\"%s\"\n", app_fields[i].name);
		fprintf(out, "%s\n\n", app_fields[i].help);
	}
}
