/* The field table: names and aliases against nvidia-smi's, formatting of
 * every format kind and state, readers against a fake NVML, cost. */
#include "nvml/dsamples.h"
#include "fields/fields_table.h"
#include "harness.h"
#include "nvml/tally.h"

#include <stdlib.h>
#include <time.h>

/* ---- the capture data of tests/unit/test_fields_h200.txt ---------------- */

static char header_line[16384];
static char row_line[16384];
static char names_lines[300][160];
static size_t n_names;

static void copy_line(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void load_data(void)
{
	const char *dir = getenv("GW_TEST_DATA");
	char path[1024];
	snprintf(path, sizeof(path), "%s/unit/test_fields_h200.txt", dir ? dir : "tests");
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	static char line[16384];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "header: ", 8) == 0)
			copy_line(header_line, sizeof(header_line), line + 8);
		else if (strncmp(line, "row: ", 5) == 0)
			copy_line(row_line, sizeof(row_line), line + 5);
		else if (strncmp(line, "names: ", 7) == 0 && n_names < 300)
			copy_line(names_lines[n_names++], sizeof(names_lines[0]), line + 7);
	}
	fclose(f);
}

/* The quoted names of a help line: "a" or "b" -> a, b. */
static size_t quoted(const char *s, char out[][96], size_t max)
{
	size_t n = 0;
	while (n < max && (s = strchr(s, '"')) != NULL) {
		const char *e = strchr(s + 1, '"');
		if (!e)
			break;
		snprintf(out[n++], 96, "%.*s", (int)(e - s - 1), s + 1);
		s = e + 1;
	}
	return n;
}

static size_t smi_count(void)
{
	size_t n = 0;
	for (size_t i = 0; i < gw_fields_count(); i++)
		if (!(gw_field_at(i)->flags & GW_FL_NOSMI))
			n++;
	return n;
}

static void test_every_capture_name_resolves(void)
{
	CHECK_INT_EQ(n_names, 212);
	CHECK_INT_EQ(smi_count(), 212);
	size_t aliases = 0;
	for (size_t i = 0; i < n_names; i++) {
		char q[3][96];
		size_t k = quoted(names_lines[i], q, 3);
		CHECK(k >= 1);
		const struct gw_field *canon = gw_field_find(q[0]);
		if (!canon) {
			fprintf(stderr, "  unknown field %s\n", q[0]);
			CHECK(canon != NULL);
			continue;
		}
		CHECK_STR_EQ(canon->name, q[0]);
		for (size_t a = 1; a < k; a++) {
			aliases++;
			if (gw_field_find(q[a]) != canon) {
				fprintf(stderr, "  alias %s does not lead to %s\n", q[a], q[0]);
				CHECK(gw_field_find(q[a]) == canon);
			}
		}
	}
	CHECK_INT_EQ(aliases, 42);
}

/* The table's smi rows, in order, give exactly the capture's header line. */
static void test_header_matches_capture(void)
{
	static char got[16384];
	size_t len = 0;
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->flags & GW_FL_NOSMI)
			continue;
		if (len) {
			memcpy(got + len, ", ", 2);
			len += 2;
		}
		len += gw_field_header(f, 0, got + len, sizeof(got) - len);
	}
	got[len] = '\0';
	CHECK_STR_EQ(got, header_line);
}

static void test_unknown_names(void)
{
	CHECK(gw_field_find("nope") == NULL);
	CHECK(gw_field_find("") == NULL);
	CHECK(gw_field_find("memory.used [MiB]") == NULL);
	CHECK(gw_field_find("Name") == NULL);
	/* extra metrics are not --query-gpu fields, but the table knows them */
	CHECK(gw_field_find("energy.total") == NULL);
	CHECK(gw_field_find_any("energy.total") != NULL);
}

/* ---- formatting -------------------------------------------------------- */

static const char *fmt(const char *name, const struct gw_value *v, unsigned flags)
{
	static char buf[256];
	const struct gw_field *f = gw_field_find_any(name);
	if (!f) {
		fprintf(stderr, "  no field %s\n", name);
		return "(no field)";
	}
	gw_field_format(f, v, flags, buf, sizeof(buf));
	return buf;
}

static struct gw_value ival(int64_t i)
{
	struct gw_value v;
	memset(&v, 0, sizeof(v));
	gw_value_int(&v, i);
	return v;
}

static struct gw_value sval(const char *s)
{
	struct gw_value v;
	memset(&v, 0, sizeof(v));
	gw_value_str(&v, s);
	return v;
}

static struct gw_value state(enum gw_vstate s)
{
	struct gw_value v;
	memset(&v, 0, sizeof(v));
	v.state = (uint8_t)s;
	return v;
}

static void test_format_numbers(void)
{
	struct gw_value v = ival(150754820096LL + 1048575); /* 143771 MiB and a bit */
	CHECK_STR_EQ(fmt("memory.total", &v, 0), "143771 MiB");
	CHECK_STR_EQ(fmt("memory.total", &v, GW_FMT_NOUNITS), "143771");
	v = ival(0);
	CHECK_STR_EQ(fmt("memory.used", &v, 0), "0 MiB");
	v = ival(700000);
	CHECK_STR_EQ(fmt("power.limit", &v, 0), "700.00 W");
	v = ival(77713);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "77.71 W");
	CHECK_STR_EQ(fmt("power.draw", &v, GW_FMT_NOUNITS), "77.71");
	v = ival(77715);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "77.72 W");
	v = ival(9);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "0.01 W");
	v = ival(100);
	CHECK_STR_EQ(fmt("utilization.gpu", &v, 0), "100 %");
	v = ival(28);
	CHECK_STR_EQ(fmt("temperature.gpu", &v, 0), "28");
	v = ival(1980);
	CHECK_STR_EQ(fmt("clocks.sm", &v, 0), "1980 MHz");
	v = ival(15814595384999LL); /* ns */
	CHECK_STR_EQ(fmt("clocks_event_reasons_counters.sw_power_cap", &v, 0), "15814595384 us");
	v = ival(4000);
	CHECK_STR_EQ(fmt("accounting.buffer_size", &v, GW_FMT_NOUNITS), "4000");
}

static void test_format_hex(void)
{
	struct gw_value v = ival(0);
	CHECK_STR_EQ(fmt("pci.domain", &v, 0), "0x0000");
	v = ival(0x83);
	CHECK_STR_EQ(fmt("pci.bus", &v, 0), "0x83");
	v = ival(0);
	CHECK_STR_EQ(fmt("pci.device", &v, 0), "0x00");
	v = ival(0x233510DE);
	CHECK_STR_EQ(fmt("pci.device_id", &v, 0), "0x233510DE");
	v = ival(0x18BE10DE);
	CHECK_STR_EQ(fmt("pci.sub_device_id", &v, GW_FMT_NOUNITS), "0x18BE10DE");
	v = ival(0x1FF);
	CHECK_STR_EQ(fmt("clocks_event_reasons.supported", &v, 0), "0x00000000000001FF");
	v = ival(1);
	CHECK_STR_EQ(fmt("clocks_throttle_reasons.active", &v, 0), "0x0000000000000001");
	v = ival((int64_t)0xFFFFFFFFFFFFFFFFULL);
	CHECK_STR_EQ(fmt("clocks_event_reasons.active", &v, 0), "0xFFFFFFFFFFFFFFFF");
}

static void test_format_words(void)
{
	struct gw_value on = ival(1), off = ival(0);
	CHECK_STR_EQ(fmt("persistence_mode", &on, 0), "Enabled");
	CHECK_STR_EQ(fmt("display_active", &off, 0), "Disabled");
	CHECK_STR_EQ(fmt("clocks_event_reasons.gpu_idle", &on, 0), "Active");
	CHECK_STR_EQ(fmt("clocks_event_reasons.sync_boost", &off, 0), "Not Active");
	CHECK_STR_EQ(fmt("display_attached", &on, 0), "Yes");
	CHECK_STR_EQ(fmt("remapped_rows.pending", &off, 0), "No");
	struct gw_value p = ival(0);
	CHECK_STR_EQ(fmt("pstate", &p, 0), "P0");
	p = ival(12);
	CHECK_STR_EQ(fmt("pstate", &p, 0), "P12");
	struct gw_value cm = ival(3);
	CHECK_STR_EQ(fmt("compute_mode", &cm, 0), "Exclusive_Process");
	cm = ival(0);
	CHECK_STR_EQ(fmt("compute_mode", &cm, 0), "Default");
	cm = ival(9);
	CHECK_STR_EQ(fmt("compute_mode", &cm, 0), "Unknown");
	struct gw_value g = ival(2);
	CHECK_STR_EQ(fmt("gom.current", &g, 0), "Low Double Precision");
	struct gw_value valid = ival(1);
	CHECK_STR_EQ(fmt("inforom.checksum_validation", &valid, 0), "valid");
	struct gw_value ra = ival(0);
	CHECK_STR_EQ(fmt("gpu_recovery_action", &ra, 0), "None");
	struct gw_value s = sval("NVIDIA H200");
	CHECK_STR_EQ(fmt("gpu_name", &s, GW_FMT_NOUNITS), "NVIDIA H200");
	s = sval("9.0");
	CHECK_STR_EQ(fmt("compute_cap", &s, 0), "9.0");
}

static void test_format_timestamp(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	/* 2026-07-03 22:10:46.109 UTC */
	struct gw_value v = ival(1783116646LL * 1000000000LL + 109999999LL);
	CHECK_STR_EQ(fmt("timestamp", &v, 0), "2026/07/03 22:10:46.109");
	v = ival(0);
	CHECK_STR_EQ(fmt("timestamp", &v, GW_FMT_NOUNITS), "1970/01/01 00:00:00.000");
}

static void test_format_states(void)
{
	struct gw_value v = state(GW_V_NA);
	CHECK_STR_EQ(fmt("fan.speed", &v, 0), "[N/A]");
	CHECK_STR_EQ(fmt("memory.used", &v, GW_FMT_NOUNITS), "[N/A]");
	/* fields nvidia-smi prints as plain N/A */
	CHECK_STR_EQ(fmt("temperature.memory", &v, 0), "N/A");
	CHECK_STR_EQ(fmt("fabric.health.summary", &v, 0), "N/A");
	/* fixed texts of fields without an NVML source, unit included */
	CHECK_STR_EQ(fmt("protected_memory.total", &v, 0), "0 MiB");
	CHECK_STR_EQ(fmt("protected_memory.total", &v, GW_FMT_NOUNITS), "0");
	CHECK_STR_EQ(fmt("edpp_multiplier", &v, 0), "100.00 %");
	CHECK_STR_EQ(fmt("platform.chassis_serial_number", &v, 0), "");
	v = state(GW_V_DEPRECATED);
	CHECK_STR_EQ(fmt("display_mode", &v, 0), "[Requested functionality has been deprecated]");
	v = state(GW_V_GPU_LOST);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "[GPU is lost]");
	v = state(GW_V_UNKNOWN_ERROR);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "[Unknown Error]");
	v = state(GW_V_NOT_SUPPORTED);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "[Not Supported]");
	v = state(GW_V_RESET_REQUIRED);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "[GPU requires reset]");
	v = state(GW_V_NO_PERMISSION);
	CHECK_STR_EQ(fmt("power.draw", &v, 0), "[Insufficient Permissions]");
}

static void test_format_truncates(void)
{
	char small[6];
	struct gw_value v = ival(700000);
	const struct gw_field *f = gw_field_find("power.limit");
	size_t n = gw_field_format(f, &v, 0, small, sizeof(small));
	CHECK_INT_EQ(n, 8); /* "700.00 W" wanted */
	CHECK_STR_EQ(small, "700.0");
	CHECK_INT_EQ(gw_field_header(f, 0, small, sizeof(small)), 15);
	CHECK_INT_EQ(gw_field_header(f, GW_FMT_NOUNITS, NULL, 0), 11);
}

/* ---- states from NVML return codes ------------------------------------- */

static void test_nvml_states(void)
{
	struct gw_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	struct gw_read_ctx c = {.gpu = &gpu};
	struct gw_value v;
	const struct {
		nvmlReturn_t r;
		enum gw_vstate s;
	} cases[] = {
	    {NVML_SUCCESS, GW_V_OK},
	    {NVML_ERROR_NOT_SUPPORTED, GW_V_NA},
	    {NVML_ERROR_FUNCTION_NOT_FOUND, GW_V_NA},
	    {NVML_ERROR_DEPRECATED, GW_V_DEPRECATED},
	    {NVML_ERROR_NO_PERMISSION, GW_V_NO_PERMISSION},
	    {NVML_ERROR_RESET_REQUIRED, GW_V_RESET_REQUIRED},
	    {NVML_ERROR_UNKNOWN, GW_V_UNKNOWN_ERROR},
	    {NVML_ERROR_TIMEOUT, GW_V_UNKNOWN_ERROR},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gw_field_set_nvml(&c, &v, cases[i].r);
		CHECK_INT_EQ(v.state, cases[i].s);
	}
	CHECK(!gpu.lost);
	gw_field_set_nvml(&c, &v, NVML_ERROR_GPU_IS_LOST);
	CHECK_INT_EQ(v.state, GW_V_GPU_LOST);
	CHECK(gpu.lost);
}

/* ---- readers against a fake NVML --------------------------------------- */

static int fake_calls;
static nvmlReturn_t fake_power(nvmlDevice_t d, unsigned int *mw)
{
	fake_calls++;
	*mw = 627400;
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_mem(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
	fake_calls++;
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	m->total = 143771ULL * 1048576 + 4096;
	m->reserved = 614ULL * 1048576;
	m->used = 32362ULL * 1048576;
	m->free = m->total - m->reserved - m->used;
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_lost(nvmlDevice_t d, nvmlTemperatureSensors_t sensor, unsigned int *t)
{
	fake_calls++;
	return NVML_ERROR_GPU_IS_LOST;
}
static nvmlReturn_t fake_pstate(nvmlDevice_t d, nvmlPstates_t *p)
{
	*p = NVML_PSTATE_UNKNOWN;
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_reasons(nvmlDevice_t d, unsigned long long *mask)
{
	*mask = nvmlClocksEventReasonGpuIdle | nvmlClocksEventReasonSwPowerCap;
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_fields(nvmlDevice_t d, int n, nvmlFieldValue_t *fv)
{
	for (int i = 0; i < n; i++) {
		fv[i].nvmlReturn =
		    fv[i].fieldId == NVML_FI_DEV_MEMORY_TEMP ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
		fv[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
		fv[i].value.ullVal = 5000;
	}
	return NVML_SUCCESS;
}

static const char *read_fmt(const char *name, const struct gw_read_ctx *c, unsigned flags)
{
	static char buf[256];
	struct gw_value v;
	const struct gw_field *f = gw_field_find(name);
	gw_field_read(f, c, &v);
	gw_field_format(f, &v, flags, buf, sizeof(buf));
	return buf;
}

static void test_readers_fake_nvml(void)
{
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv)); /* every function missing: all "not supported" */
	nv.nvmlDeviceGetPowerUsage = fake_power;
	nv.nvmlDeviceGetMemoryInfo_v2 = fake_mem;
	nv.nvmlDeviceGetPerformanceState = fake_pstate;
	nv.nvmlDeviceGetCurrentClocksEventReasons = fake_reasons;
	nv.nvmlDeviceGetFieldValues = fake_fields;
	struct gw_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	gpu.index = 3;
	snprintf(gpu.name, sizeof(gpu.name), "NVIDIA H200");
	snprintf(gpu.bus_id, sizeof(gpu.bus_id), "00000000:83:00.0");
	struct gw_read_ctx c = {.nv = &nv, .gpu = &gpu, .gpu_count = 8};

	CHECK_STR_EQ(read_fmt("power.draw", &c, 0), "627.40 W");
	CHECK_STR_EQ(read_fmt("memory.total", &c, 0), "143771 MiB");
	CHECK_STR_EQ(read_fmt("memory.reserved", &c, 0), "614 MiB");
	CHECK_STR_EQ(read_fmt("memory.used", &c, GW_FMT_NOUNITS), "32362");
	CHECK_STR_EQ(read_fmt("name", &c, 0), "NVIDIA H200");
	CHECK_STR_EQ(read_fmt("gpu_bus_id", &c, 0), "00000000:83:00.0");
	CHECK_STR_EQ(read_fmt("index", &c, 0), "3");
	CHECK_STR_EQ(read_fmt("count", &c, 0), "8");
	CHECK_STR_EQ(read_fmt("pstate", &c, 0), "[N/A]"); /* P-state "unknown" is not P32 */
	CHECK_STR_EQ(read_fmt("clocks_event_reasons.gpu_idle", &c, 0), "Active");
	CHECK_STR_EQ(read_fmt("clocks_event_reasons.sw_power_cap", &c, 0), "Active");
	CHECK_STR_EQ(read_fmt("clocks_event_reasons.hw_slowdown", &c, 0), "Not Active");
	CHECK_STR_EQ(read_fmt("clocks_event_reasons.active", &c, 0), "0x0000000000000005");
	CHECK_STR_EQ(read_fmt("power.draw.instant", &c, 0), "5.00 W");
	CHECK_STR_EQ(read_fmt("clocks_event_reasons_counters.sync_boost", &c, 0), "5 us");
	CHECK_STR_EQ(read_fmt("temperature.memory", &c, 0), "N/A");
	CHECK_STR_EQ(read_fmt("serial", &c, 0), "[N/A]"); /* NULL function */
	CHECK_STR_EQ(read_fmt("ecc.errors.corrected.volatile.total", &c, 0), "[N/A]");
	CHECK_STR_EQ(read_fmt("display_mode", &c, 0), "[Requested functionality has been deprecated]");

	/* a lost GPU: marked, and later fields no longer call the driver */
	nv.nvmlDeviceGetTemperature = fake_lost;
	fake_calls = 0;
	CHECK_STR_EQ(read_fmt("temperature.gpu", &c, 0), "[GPU is lost]");
	CHECK(gpu.lost);
	CHECK_STR_EQ(read_fmt("power.draw", &c, 0), "[GPU is lost]");
	CHECK_INT_EQ(fake_calls, 1);
	CHECK_STR_EQ(read_fmt("index", &c, 0), "3");
}

/* ---- failed calls counted in the context's tally ----------------------- */

static nvmlReturn_t fake_temp_timeout(nvmlDevice_t d, nvmlTemperatureSensors_t sensor, unsigned int *t)
{
	return NVML_ERROR_TIMEOUT;
}
static nvmlReturn_t fake_fan_unsupported(nvmlDevice_t d, unsigned int *speed)
{
	return NVML_ERROR_NOT_SUPPORTED;
}
static nvmlReturn_t fake_power_unknown(nvmlDevice_t d, unsigned int *mw)
{
	return NVML_ERROR_UNKNOWN;
}
static nvmlReturn_t fake_fields_failing(nvmlDevice_t d, int n, nvmlFieldValue_t *fv)
{
	for (int i = 0; i < n; i++)
		fv[i].nvmlReturn = NVML_ERROR_UNKNOWN; /* the call succeeds, each value fails */
	return NVML_SUCCESS;
}
static nvmlReturn_t fake_inforom_corrupt(nvmlDevice_t d)
{
	return NVML_ERROR_CORRUPTED_INFOROM;
}

static void test_readers_count_failures(void)
{
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv));
	nv.nvmlDeviceGetTemperature = fake_temp_timeout;
	nv.nvmlDeviceGetFanSpeed = fake_fan_unsupported;
	nv.nvmlDeviceGetPowerUsage = fake_power_unknown; /* read through the getter table */
	nv.nvmlDeviceGetFieldValues = fake_fields_failing;
	nv.nvmlDeviceValidateInforom = fake_inforom_corrupt;
	struct gw_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	gpu.index = 1;
	struct gw_nvml_tally t;
	CHECK_INT_EQ(gw_nvml_tally_init(&t, 2), 0);
	struct gw_read_ctx c = {.nv = &nv, .gpu = &gpu, .gpu_count = 2, .tally = &t};
	CHECK_STR_EQ(read_fmt("temperature.gpu", &c, 0), "[Unknown Error]");
	CHECK_STR_EQ(read_fmt("fan.speed", &c, 0), "[N/A]");
	CHECK_STR_EQ(read_fmt("power.draw", &c, 0), "[Unknown Error]");
	CHECK_STR_EQ(read_fmt("serial", &c, 0), "[N/A]"); /* a function the library lacks */
	read_fmt("power.draw.instant", &c, 0);
	read_fmt("inforom.checksum_validation", &c, 0);
	CHECK_INT_EQ(t.rows[1][GW_NVML_FN_nvmlDeviceGetTemperature], 1);
	CHECK_INT_EQ(t.last_ret[GW_NVML_FN_nvmlDeviceGetTemperature], NVML_ERROR_TIMEOUT);
	CHECK_INT_EQ(t.last_gpu[GW_NVML_FN_nvmlDeviceGetTemperature], 1);
	CHECK_INT_EQ(t.rows[1][GW_NVML_FN_nvmlDeviceGetPowerUsage], 1);
	CHECK_INT_EQ(t.rows[1][GW_NVML_FN_nvmlDeviceGetFieldValues], 1);
	CHECK_INT_EQ(t.rows[1][GW_NVML_FN_nvmlDeviceGetFanSpeed], 0);
	CHECK_INT_EQ(t.rows[1][GW_NVML_FN_nvmlDeviceGetSerial], 0);
	CHECK_INT_EQ(t.rows[1][GW_NVML_FN_nvmlDeviceValidateInforom], 0); /* its answer, not a failure */
	CHECK_INT_EQ(t.rows[0][GW_NVML_FN_nvmlDeviceGetTemperature], 0);
	CHECK_INT_EQ(t.total, 3);
	/* smi and other readers pass no tally: nothing counted, same values */
	c.tally = NULL;
	CHECK_STR_EQ(read_fmt("temperature.gpu", &c, 0), "[Unknown Error]");
	CHECK_INT_EQ(t.total, 3);
	gw_nvml_tally_release(&t);
}

/* The driver-sample fields read the sampler's window, in canonical units, and
 * are not available without one; none is an nvidia-smi field. */
static void test_dsample_fields(void)
{
	struct gw_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	struct gw_read_ctx c = {.gpu = &gpu, .gpu_count = 1};
	struct gw_value v;
	const struct gw_field *max = gw_field_find_any("samples.power.max");
	const struct gw_field *count = gw_field_find_any("samples.power.count");
	const struct gw_field *umax = gw_field_find_any("samples.utilization.gpu.max");
	CHECK(max && count && umax);
	if (!max || !count || !umax)
		return;
	CHECK(gw_field_find("samples.power.max") == NULL); /* not a --query-gpu name */
	CHECK(max->flags & GW_FL_NOSMI);
	gw_field_read(max, &c, &v);
	CHECK_INT_EQ(v.state, GW_V_NA);
	struct gw_dsamples d;
	memset(&d, 0, sizeof(d));
	gpu.dsamples = &d;
	gw_field_read(count, &c, &v);
	CHECK_INT_EQ(v.state, GW_V_NA); /* a kind the GPU does not sample */
	d.k[GW_DS_POWER].supported = true;
	d.k[GW_DS_POWER].total = 42;
	gw_field_read(count, &c, &v);
	CHECK(v.state == GW_V_OK && v.i == 42);
	gw_field_read(max, &c, &v);
	CHECK_INT_EQ(v.state, GW_V_NA); /* no window yet */
	d.k[GW_DS_POWER].valid = true;
	d.k[GW_DS_POWER].max = 612340;
	gw_field_read(max, &c, &v);
	CHECK_INT_EQ(v.state, GW_V_OK);
	CHECK(gw_field_prom_value(max, &v) == 612.34); /* exactly: W, as written */
	d.k[GW_DS_GPU_UTIL].supported = d.k[GW_DS_GPU_UTIL].valid = true;
	d.k[GW_DS_GPU_UTIL].max = 97;
	gw_field_read(umax, &c, &v);
	CHECK(gw_field_prom_value(umax, &v) == 0.97);
	CHECK_STR_EQ(umax->prom, "gpuwatch_utilization_gpu_max_ratio");
	CHECK_INT_EQ(count->ptype, GW_PT_COUNTER);
}

/* Every row reads and formats without crashing on an empty NVML, and a value
 * that is not there never prints as a number. */
static void test_all_rows_empty_nvml(void)
{
	struct gw_nvml nv;
	memset(&nv, 0, sizeof(nv));
	struct gw_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	struct gw_read_ctx c = {.nv = &nv, .gpu = &gpu, .gpu_count = 1};
	char buf[256];
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		struct gw_value v;
		CHECK_INT_EQ(gw_field_read(f, &c, &v), 0);
		gw_field_format(f, &v, 0, buf, sizeof(buf));
		if (v.state == GW_V_NA && !f->na)
			CHECK_STR_EQ(buf, "[N/A]");
		CHECK(f->desc != NULL && f->desc[0] != '\0');
		CHECK(f->read != NULL);
		if (f->fmt == GW_FMT_ENUM)
			CHECK(f->names != NULL && f->nnames > 0);
	}
}

static void test_prom_values(void)
{
	struct gw_value v = ival(627400);
	CHECK_DBL_NEAR(gw_field_prom_value(gw_field_find("power.draw"), &v), 627.4, 1e-9);
	v = ival(50);
	CHECK_DBL_NEAR(gw_field_prom_value(gw_field_find("utilization.gpu"), &v), 0.5, 1e-12);
	v = ival(1980);
	CHECK_DBL_NEAR(gw_field_prom_value(gw_field_find("clocks.sm"), &v), 1.98e9, 1);
	v = ival(1000);
	CHECK_DBL_NEAR(gw_field_prom_value(gw_field_find_any("energy.total"), &v), 1.0, 1e-12);
	const struct gw_field *f = gw_field_find("memory.used");
	CHECK_STR_EQ(f->prom, "gpuwatch_memory_used_bytes");
	CHECK_STR_EQ(f->dcgm, "DCGM_FI_DEV_FB_USED");
	CHECK_INT_EQ(f->dcgm_id, 252);
	CHECK_STR_EQ(f->dmon, "fb");
	CHECK_INT_EQ(gw_field_find("temperature.gpu")->dcgm_id, 150);
	CHECK_INT_EQ(gw_field_find("power.draw")->dcgm_id, 155);
	CHECK_INT_EQ(gw_field_find_any("energy.total")->ptype, GW_PT_COUNTER);
}

/* Table sanity: Prometheus names unique, DCGM ids unique, counters end in _total. */
static void test_table_invariants(void)
{
	size_t n = gw_fields_count();
	for (size_t i = 0; i < n; i++) {
		const struct gw_field *a = gw_field_at(i);
		if (a->prom && a->ptype == GW_PT_COUNTER) {
			size_t l = strlen(a->prom);
			CHECK(l > 6 && strcmp(a->prom + l - 6, "_total") == 0);
		}
		for (size_t j = i + 1; j < n; j++) {
			const struct gw_field *b = gw_field_at(j);
			CHECK(strcmp(a->name, b->name) != 0);
			if (a->prom && b->prom && strcmp(a->prom, b->prom) == 0) {
				fprintf(stderr, "  duplicate prom name %s\n", a->prom);
				CHECK(0);
			}
			if (a->dcgm_id && a->dcgm_id == b->dcgm_id) {
				fprintf(stderr, "  duplicate DCGM id %u (%s, %s)\n", a->dcgm_id, a->name,
					b->name);
				CHECK(0);
			}
		}
	}
}

/* Fields with no NVML source (or deprecated) print exactly the H200 capture's cell. */
static void test_fixed_cells_match_capture(void)
{
	static char row[16384];
	copy_line(row, sizeof(row), row_line);
	char *save = NULL, buf[256];
	size_t col = 0, checked = 0;
	for (size_t i = 0; i < gw_fields_count(); i++) {
		const struct gw_field *f = gw_field_at(i);
		if (f->flags & GW_FL_NOSMI)
			continue;
		/* cells are ", "-separated; the empty chassis serial makes ", , " */
		char *cell = col == 0 ? row : save;
		char *sep = strstr(cell, ", ");
		if (sep) {
			*sep = '\0';
			save = sep + 2;
		}
		col++;
		if (f->read != gw_rd_none && f->read != gw_rd_deprecated)
			continue;
		struct gw_value v;
		gw_field_read(f, &(struct gw_read_ctx){0}, &v);
		gw_field_format(f, &v, 0, buf, sizeof(buf));
		if (strcmp(buf, cell) != 0)
			fprintf(stderr, "  %s\n", f->name);
		CHECK_STR_EQ(buf, cell);
		checked++;
	}
	CHECK_INT_EQ(col, 212);
	CHECK(checked > 60);
}

int main(void)
{
	load_data();
	RUN(test_every_capture_name_resolves);
	RUN(test_header_matches_capture);
	RUN(test_unknown_names);
	RUN(test_format_numbers);
	RUN(test_format_hex);
	RUN(test_format_words);
	RUN(test_format_timestamp);
	RUN(test_format_states);
	RUN(test_format_truncates);
	RUN(test_nvml_states);
	RUN(test_readers_fake_nvml);
	RUN(test_readers_count_failures);
	RUN(test_dsample_fields);
	RUN(test_all_rows_empty_nvml);
	RUN(test_prom_values);
	RUN(test_table_invariants);
	RUN(test_fixed_cells_match_capture);
	return harness_done();
}
