/* smi --query-gpu: format and list parsing, header, rows, help text, and the
 * whole path against the simulator. */
#include "cmd/smi_query.h"
#include "core/err.h"
#include "fields/fields_table.h"
#include "harness.h"

#include <stdlib.h>

static void test_format_parse(void)
{
	struct gw_smi_format f;
	char bad[32];
	CHECK_INT_EQ(gw_smi_format_parse("csv", &f, bad, sizeof(bad)), 0);
	CHECK(f.csv && !f.noheader && !f.nounits);
	CHECK_INT_EQ(gw_smi_format_parse("csv,noheader,nounits", &f, bad, sizeof(bad)), 0);
	CHECK(f.csv && f.noheader && f.nounits);
	CHECK_INT_EQ(gw_smi_format_parse("nounits, csv ", &f, bad, sizeof(bad)), 0);
	CHECK(f.csv && !f.noheader && f.nounits);
	CHECK_INT_EQ(gw_smi_format_parse("noheader", &f, bad, sizeof(bad)), 0);
	CHECK(!f.csv && f.noheader); /* the caller insists on csv */
	CHECK_INT_EQ(gw_smi_format_parse("csv,xml", &f, bad, sizeof(bad)), GW_EINVAL);
	CHECK_STR_EQ(bad, "xml");
	CHECK_INT_EQ(gw_smi_format_parse("csv,no header", &f, bad, sizeof(bad)), GW_EINVAL);
	CHECK_STR_EQ(bad, "no header");
	CHECK_INT_EQ(gw_smi_format_parse("CSV", &f, bad, sizeof(bad)), GW_EINVAL);
	CHECK_STR_EQ(bad, "CSV");
}

static void test_list_parse(void)
{
	const struct gw_field **fs = NULL;
	size_t n = 0;
	char bad[64];
	CHECK_INT_EQ(gw_smi_query_parse("name,gpu_name,memory.used", &fs, &n, bad, sizeof(bad)), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK(fs[0] == fs[1]);
		CHECK_STR_EQ(fs[2]->name, "memory.used");
	}
	free(fs);
	CHECK_INT_EQ(gw_smi_query_parse(" index , clocks.gr", &fs, &n, bad, sizeof(bad)), 0);
	CHECK_INT_EQ(n, 2);
	if (n == 2)
		CHECK_STR_EQ(fs[1]->name, "clocks.current.graphics");
	free(fs);
	CHECK_INT_EQ(gw_smi_query_parse("name,bogus.field,index", &fs, &n, bad, sizeof(bad)), GW_EINVAL);
	CHECK_STR_EQ(bad, "bogus.field");
	CHECK(fs == NULL);
	CHECK_INT_EQ(n, 0);
	CHECK_INT_EQ(gw_smi_query_parse("name,,index", &fs, &n, bad, sizeof(bad)), GW_EINVAL);
	CHECK_STR_EQ(bad, "");
	CHECK_INT_EQ(gw_smi_query_parse("energy.total", &fs, &n, bad, sizeof(bad)), GW_EINVAL);
	/* a long name is reported, truncated to the caller's buffer */
	char small[8];
	CHECK_INT_EQ(gw_smi_query_parse("abcdefghijklmnop", &fs, &n, small, sizeof(small)), GW_EINVAL);
	CHECK_STR_EQ(small, "abcdefg");
}

/* Run fn into a memory stream and return what it wrote (static buffer). */
static char *captured;
static size_t captured_len;
static FILE *cap_open(void)
{
	free(captured);
	captured = NULL;
	return open_memstream(&captured, &captured_len);
}

static void test_header(void)
{
	const struct gw_field **fs;
	size_t n;
	char bad[64];
	CHECK_INT_EQ(gw_smi_query_parse("gpu_name,memory.used,temperature.gpu,power.draw,utilization.gpu",
					&fs, &n, bad, sizeof(bad)),
		     0);
	struct gw_smi_format fmt = {.csv = true};
	FILE *out = cap_open();
	gw_smi_query_header(out, fs, n, &fmt);
	fclose(out);
	CHECK_STR_EQ(captured,
		     "name, memory.used [MiB], temperature.gpu, power.draw [W], utilization.gpu [%]\n");
	fmt.nounits = true; /* nvidia-smi keeps the units in the header */
	out = cap_open();
	gw_smi_query_header(out, fs, n, &fmt);
	fclose(out);
	CHECK_STR_EQ(captured,
		     "name, memory.used [MiB], temperature.gpu, power.draw [W], utilization.gpu [%]\n");
	fmt.noheader = true;
	out = cap_open();
	gw_smi_query_header(out, fs, n, &fmt);
	fclose(out);
	CHECK_STR_EQ(captured, "");
	free(fs);
}

static nvmlReturn_t fake_power(nvmlDevice_t d, unsigned int *mw)
{
	*mw = 77713;
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_temp(nvmlDevice_t d, nvmlTemperatureSensors_t s, unsigned int *t)
{
	*t = 28;
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_lost(nvmlDevice_t d, unsigned int *mw)
{
	return NVML_ERROR_GPU_IS_LOST;
}

static void test_row(void)
{
	const struct gw_field **fs;
	size_t n;
	char bad[64];
	CHECK_INT_EQ(
	    gw_smi_query_parse("name,temperature.gpu,power.draw,fan.speed,index", &fs, &n, bad, sizeof(bad)),
	    0);
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv));
	nv.nvmlDeviceGetPowerUsage = fake_power;
	nv.nvmlDeviceGetTemperature = fake_temp;
	struct gw_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	snprintf(gpu.name, sizeof(gpu.name), "NVIDIA H200");
	struct gw_read_ctx ctx = {.nv = &nv, .gpu = &gpu, .gpu_count = 1};
	struct gw_smi_format fmt = {.csv = true};
	FILE *out = cap_open();
	CHECK_INT_EQ(gw_smi_query_row(out, fs, n, &fmt, &ctx), 0);
	fclose(out);
	CHECK_STR_EQ(captured, "NVIDIA H200, 28, 77.71 W, [N/A], 0\n");
	fmt.nounits = true;
	out = cap_open();
	CHECK_INT_EQ(gw_smi_query_row(out, fs, n, &fmt, &ctx), 0);
	fclose(out);
	CHECK_STR_EQ(captured, "NVIDIA H200, 28, 77.71, [N/A], 0\n");
	/* the GPU falls off the bus during the row */
	nv.nvmlDeviceGetPowerUsage = fake_lost;
	out = cap_open();
	CHECK_INT_EQ(gw_smi_query_row(out, fs, n, &fmt, &ctx), GW_EGPULOST);
	fclose(out);
	CHECK_STR_EQ(captured, "NVIDIA H200, 28, [GPU is lost], [GPU is lost], 0\n");
	CHECK(gpu.lost);
	free(fs);
}

/* A line of only quoted names: "a" or "b" (descriptions may start with a quote too). */
static int is_name_line(const char *p)
{
	for (;;) {
		if (*p++ != '"')
			return 0;
		size_t k = strcspn(p, "\" \n");
		if (k == 0 || p[k] != '"')
			return 0;
		p += k + 1;
		if (*p == '\n' || *p == '\0')
			return 1;
		if (strncmp(p, " or ", 4) != 0)
			return 0;
		p += 4;
	}
}

static void test_help(void)
{
	FILE *out = cap_open();
	gw_smi_help_query_gpu(out);
	fclose(out);
	CHECK(strncmp(captured,
		      "List of valid properties to query for the switch \"--query-gpu\":\n\n\"timestamp\"\n",
		      76) == 0);
	CHECK(strstr(captured, "\n\"name\" or \"gpu_name\"\n") != NULL);
	CHECK(strstr(captured,
		     "\n\"clocks_event_reasons.gpu_idle\" or \"clocks_throttle_reasons.gpu_idle\"\n") !=
	      NULL);
	CHECK(strstr(captured, "\nSection about memory properties\n") != NULL);
	CHECK(strstr(captured, "\nSection about ecc.errors properties\n") != NULL);
	CHECK(strstr(captured, "energy.total") == NULL);
	/* one quoted-name line per --query-gpu field */
	size_t lines = 0;
	for (const char *p = captured; (p = strstr(p, "\n\"")) != NULL; p++)
		lines += is_name_line(p + 1);
	CHECK_INT_EQ(lines, 212);
	/* a section heading comes before its first field only */
	const char *s = strstr(captured, "Section about memory properties");
	CHECK(s && strstr(s + 1, "Section about memory properties") == NULL);
}

/* The whole path against the simulator: every field of an H200. */
static void test_simulated_h200(void)
{
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.sim = "1xH200"};
	int rc = gw_nvml_open(&nv, &opts, &err);
	if (rc == GW_ENOLIB) {
		/* the simulator is not built (or not complete) in this tree */
		printf("SKIP test_simulated_h200: %s\n", err.msg);
		return;
	}
	CHECK_INT_EQ(rc, 0);
	if (rc) {
		fprintf(stderr, "  simulator: %s\n", err.msg);
		return;
	}
	struct gw_gpu *gpus = NULL;
	unsigned int count = 0;
	CHECK_INT_EQ(gw_nvml_gpus_list(nv, &gpus, &count, &err), 0);
	CHECK_INT_EQ(count, 1);
	if (count >= 1) {
		struct gw_read_ctx ctx = {.nv = nv, .gpu = &gpus[0], .gpu_count = count};
		clock_gettime(CLOCK_REALTIME, &ctx.now);
		char buf[256];
		struct gw_value v;
		for (size_t i = 0; i < gw_fields_count(); i++) {
			const struct gw_field *f = gw_field_at(i);
			CHECK_INT_EQ(gw_field_read(f, &ctx, &v), 0);
			gw_field_format(f, &v, 0, buf, sizeof(buf));
			if (f->read != gw_rd_none && v.state != GW_V_OK && v.state != GW_V_NA &&
			    v.state != GW_V_DEPRECATED)
				fprintf(stderr, "  %s: %s\n", f->name, buf);
		}
		CHECK(!gpus[0].lost);
		const struct {
			const char *name, *want;
		} checks[] = {
		    {"name", "NVIDIA H200"},
		    {"memory.total", "143771 MiB"},
		    {"compute_cap", "9.0"},
		    {"pci.device_id", "0x233510DE"},
		    {"power.limit", "700.00 W"},
		    {"clocks.max.sm", "1980 MHz"},
		    {"display_mode", "[Requested functionality has been deprecated]"},
		    {"count", "1"},
		};
		for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
			const struct gw_field *f = gw_field_find(checks[i].name);
			gw_field_read(f, &ctx, &v);
			gw_field_format(f, &v, 0, buf, sizeof(buf));
			CHECK_STR_EQ(buf, checks[i].want);
		}
		/* a whole row of all 212 fields: 212 cells, one line */
		const struct gw_field **fs = malloc(212 * sizeof(*fs));
		size_t n = 0;
		for (size_t i = 0; i < gw_fields_count() && fs; i++)
			if (!(gw_field_at(i)->flags & GW_FL_NOSMI))
				fs[n++] = gw_field_at(i);
		struct gw_smi_format fmt = {.csv = true};
		FILE *out = cap_open();
		CHECK_INT_EQ(gw_smi_query_row(out, fs, n, &fmt, &ctx), 0);
		fclose(out);
		size_t cells = 1, nl = 0;
		for (const char *p = captured; *p; p++) {
			if (p[0] == ',' && p[1] == ' ')
				cells++;
			if (*p == '\n')
				nl++;
		}
		CHECK_INT_EQ(cells, 212);
		CHECK_INT_EQ(nl, 1);
		free(fs);
	}
	free(gpus);
	gw_nvml_close(nv);
}

int main(void)
{
	RUN(test_format_parse);
	RUN(test_list_parse);
	RUN(test_header);
	RUN(test_row);
	RUN(test_help);
	RUN(test_simulated_h200);
	free(captured);
	return harness_done();
}
