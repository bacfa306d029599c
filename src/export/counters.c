#include "export/counters.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gw_counters_default_csv[] =
	"# gpuwatch's default DCGM counters: dcgm-exporter's defaults, plus the\n"
	"# fields common alert rules read (FB_TOTAL, power limits).\n"
	"# DCGM FIELD, Prometheus metric type, help message\n"
	"DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).\n"
	"DCGM_FI_DEV_MEM_CLOCK, gauge, Memory clock frequency (in MHz).\n"
	"DCGM_FI_DEV_MEMORY_TEMP, gauge, Memory temperature (in C).\n"
	"DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n"
	"DCGM_FI_DEV_POWER_USAGE, gauge, Power draw (in W).\n"
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, counter, Total energy consumption since boot (in mJ).\n"
	"DCGM_FI_DEV_PCIE_REPLAY_COUNTER, counter, Total number of PCIe retries.\n"
	"DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (in %).\n"
	"DCGM_FI_DEV_MEM_COPY_UTIL, gauge, Memory utilization (in %).\n"
	"DCGM_FI_DEV_ENC_UTIL, gauge, Encoder utilization (in %).\n"
	"DCGM_FI_DEV_DEC_UTIL, gauge, Decoder utilization (in %).\n"
	"DCGM_FI_DEV_XID_ERRORS, gauge, Value of the last XID error encountered.\n"
	"DCGM_FI_DEV_FB_FREE, gauge, Framebuffer memory free (in MiB).\n"
	"DCGM_FI_DEV_FB_USED, gauge, Framebuffer memory used (in MiB).\n"
	"DCGM_FI_DEV_FB_RESERVED, gauge, Framebuffer memory reserved (in MiB).\n"
	"DCGM_FI_DEV_FB_TOTAL, gauge, Framebuffer memory total (in MiB).\n"
	"DCGM_FI_DEV_POWER_MGMT_LIMIT, gauge, Power management limit (in W).\n"
	"DCGM_FI_DEV_POWER_LIMIT, gauge, Power limit enforced on the GPU (in W).\n"
	"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for uncorrectable errors\n"
	"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for correctable errors\n"
	"DCGM_FI_DEV_ROW_REMAP_FAILURE, gauge, Whether remapping of rows has failed\n"
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE, gauge, Ratio of time the graphics engine is active.\n"
	"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, gauge, Ratio of cycles the tensor (HMMA) pipe is active.\n"
	"DCGM_FI_PROF_DRAM_ACTIVE, gauge, Ratio of cycles the device memory interface is active sending or "
	"receiving data.\n"
	"DCGM_FI_PROF_PCIE_TX_BYTES, gauge, The rate of data transmitted over the PCIe bus - including both "
	"protocol headers and data payloads - in bytes per second.\n"
	"DCGM_FI_PROF_PCIE_RX_BYTES, gauge, The rate of data received over the PCIe bus - including both "
	"protocol headers and data payloads - in bytes per second.\n"
	"DCGM_FI_DRIVER_VERSION, label, Driver Version\n";

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static const struct {
	const char *name;
	enum gw_metric_type type;
	bool label;
} types[] = {
	{"gauge", GW_METRIC_GAUGE, false},     {"counter", GW_METRIC_COUNTER, false},
	{"histogram", GW_METRIC_UNTYPED, false}, {"summary", GW_METRIC_UNTYPED, false},
	{"label", GW_METRIC_UNTYPED, true},
};

void gw_counters_release(struct gw_counters *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].help);
	}
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

static int parse_line(struct gw_counters *c, char *line, const char *origin, int lineno, struct gw_err *err)
{
	char *f[3] = {line, NULL, NULL};
	char *comma = strchr(line, ',');
	if (!comma)
		return gw_err_set(err, GW_EPARSE, "%s:%d: expected \"FIELD, type, help\", got \"%.60s\"", origin,
				  lineno, line);
	*comma = '\0';
	f[1] = comma + 1;
	comma = strchr(f[1], ',');
	if (comma) { /* the help text may itself contain commas */
		*comma = '\0';
		f[2] = comma + 1;
	}
	char *name = trim(f[0]), *type = trim(f[1]), *help = f[2] ? trim(f[2]) : "";
	if (strncmp(name, "DCGM_FI_", 8) != 0)
		return gw_err_set(err, GW_EPARSE, "%s:%d: \"%s\" is not a DCGM field name (DCGM_FI_...)", origin,
				  lineno, name);
	size_t t = 0;
	while (t < sizeof(types) / sizeof(types[0]) && strcmp(types[t].name, type) != 0)
		t++;
	if (t == sizeof(types) / sizeof(types[0]))
		return gw_err_set(err, GW_EPARSE,
				  "%s:%d: unknown metric type \"%s\" (gauge, counter, histogram, summary, label)",
				  origin, lineno, type);
	struct gw_counter *v = realloc(c->v, (c->n + 1) * sizeof(*v));
	if (!v)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	c->v = v;
	v[c->n].name = strdup(name);
	v[c->n].help = strdup(help);
	v[c->n].type = types[t].type;
	v[c->n].label = types[t].label;
	if (!v[c->n].name || !v[c->n].help)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	c->n++;
	return 0;
}

int gw_counters_parse(struct gw_counters *c, const char *text, const char *origin, struct gw_err *err)
{
	c->v = NULL;
	c->n = 0;
	char *copy = strdup(text);
	if (!copy)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int lineno = 0, rc = 0;
	char *save = NULL;
	for (char *p = copy; p && rc == 0; p = save) {
		char *nl = strchr(p, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		char *line = trim(p);
		if (!*line || *line == '#')
			continue;
		rc = parse_line(c, line, origin, lineno, err);
	}
	free(copy);
	if (rc == 0 && c->n == 0)
		rc = gw_err_set(err, GW_EPARSE, "%s: no counters defined", origin);
	if (rc)
		gw_counters_release(c);
	return rc;
}

int gw_counters_load(struct gw_counters *c, const char *path, struct gw_err *err)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return gw_err_set(err, GW_EIO, "cannot open counters file %s: %m", path);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	char tmp[4096];
	size_t n;
	int rc = 0;
	while (rc == 0 && (n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		rc = gw_buf_append(&b, tmp, n);
	bool bad = ferror(fp);
	fclose(fp);
	if (rc || bad) {
		gw_buf_release(&b);
		return gw_err_set(err, rc ? rc : GW_EIO, "cannot read counters file %s%s", path,
				  rc == GW_EOVERFLOW ? ": larger than 1 MiB" : "");
	}
	rc = gw_counters_parse(c, b.data ? b.data : "", path, err);
	gw_buf_release(&b);
	return rc;
}

int gw_counters_default(struct gw_counters *c)
{
	return gw_counters_parse(c, gw_counters_default_csv, "default counters", NULL);
}

static bool lists(const struct gw_counters *c, const char *name, bool label)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->v[i].label == label && strcmp(c->v[i].name, name) == 0)
			return true;
	return false;
}

bool gw_counters_has_label(const struct gw_counters *c, const char *name)
{
	return lists(c, name, true);
}

bool gw_counters_has_family(const struct gw_counters *c, const char *name)
{
	return lists(c, name, false);
}
