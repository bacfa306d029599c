/*
 * smi_report.c - nvidia-smi -q's text, section by section, from NVML.
 *
 * Each section is a function printing its lines through kv() (label padded
 * to nvidia-smi's column, then ": value") and head() (a heading line);
 * the report is the list of them in nvidia-smi's order, each with the -d
 * display type that selects it (0: identity, only in the full report).
 * Values: vtext() turns an NVML answer into nvidia-smi's words: "N/A" for
 * not supported or an absent function, NVML's message for anything else.
 */
#include "cmd/smi_report.h"
#include "cmd/smi_report_int.h"
#include "cmd/smi_util.h"

#include "collect/procs.h"
#include "core/err.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const display_names[] = {
#define GW_SMI_D_NAME(name) #name,
	GW_SMI_DISPLAY_LIST(GW_SMI_D_NAME)
#undef GW_SMI_D_NAME
};

int gw_smi_display_parse(const char *list, unsigned int *mask)
{
	unsigned int m = 0;
	const char *p = list;
	if (!list || !*list)
		return GW_EINVAL;
	for (;;) {
		size_t n = strcspn(p, ",");
		unsigned int i;
		for (i = 0; i < GW_SMI_DB__COUNT; i++)
			if (n == strlen(display_names[i]) && strncasecmp(p, display_names[i], n) == 0)
				break;
		if (i == GW_SMI_DB__COUNT)
			return GW_EINVAL;
		m |= 1U << i;
		if (!p[n])
			break;
		p += n + 1;
	}
	*mask = m;
	return 0;
}

/* ---- output ----------------------------------------------------------------- */
void gw_smi_rep_kvw(struct gw_smi_rep *r, int depth, int width, const char *label, const char *fmt, ...)
{
	char v[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	if (r->xml) {
		gw_smi_rep_xml_kv(r, depth, label, v);
		return;
	}
	int pad = width - depth * 4 - (int)strlen(label);
	fprintf(r->out, "%*s%s%*s: %s\n", depth * 4, "", label, pad > 0 ? pad : 0, "", v);
}

void gw_smi_rep_head(struct gw_smi_rep *r, int depth, const char *label)
{
	if (r->xml) {
		gw_smi_rep_xml_head(r, depth, label);
		return;
	}
	fprintf(r->out, "%*s%s\n", depth * 4, "", label);
}

const char *gw_smi_rep_vtext(struct gw_smi_rep *r, nvmlReturn_t ret)
{
	if (ret == NVML_ERROR_GPU_IS_LOST)
		r->lost = true;
	if (ret == NVML_ERROR_NOT_SUPPORTED || ret == NVML_ERROR_FUNCTION_NOT_FOUND)
		return "N/A";
	return gw_nvml_strerror(r->nv, ret);
}

/* A gwsim_device_info() answer, or "N/A" (always on a real driver). */
const char *gw_smi_rep_info(struct gw_smi_rep *r, const char *key, char *buf, size_t n)
{
	if (!r->sim_info || r->sim_info(r->gpu->index, key, buf, (unsigned int)n) != 0)
		return "N/A";
	return buf;
}

static const char *enabled(unsigned int v)
{
	return v ? "Enabled" : "Disabled";
}

static const char *yes_no(unsigned int v)
{
	return v ? "Yes" : "No";
}

/* kv of an enable state, or the call's failure text. */
static void kv_state(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned int v)
{
	kv(r, depth, label, "%s", ret == NVML_SUCCESS ? enabled(v) : vtext(r, ret));
}

void gw_smi_rep_kv_uint(struct gw_smi_rep *r, int depth, const char *label, nvmlReturn_t ret, unsigned int v,
			const char *unit)
{
	if (ret == NVML_SUCCESS)
		kv(r, depth, label, "%u%s", v, unit);
	else
		kv(r, depth, label, "%s", vtext(r, ret));
}

/* A field value (nvmlDeviceGetFieldValues) as a signed integer. */
nvmlReturn_t gw_smi_rep_field(struct gw_smi_rep *r, unsigned int id, unsigned int scope, long long *v)
{
	nvmlFieldValue_t f;
	memset(&f, 0, sizeof(f));
	f.fieldId = id;
	f.scopeId = scope;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetFieldValues, r->d, 1, &f);
	if (ret == NVML_SUCCESS)
		ret = f.nvmlReturn;
	if (ret != NVML_SUCCESS)
		return ret;
	switch (f.valueType) {
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		*v = f.value.uiVal;
		break;
	case NVML_VALUE_TYPE_SIGNED_INT:
		*v = f.value.siVal;
		break;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		*v = f.value.sllVal;
		break;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		*v = (long long)f.value.ulVal;
		break;
	case NVML_VALUE_TYPE_DOUBLE:
		*v = (long long)f.value.dVal;
		break;
	default:
		*v = (long long)f.value.ullVal;
	}
	return NVML_SUCCESS;
}

/* ---- identity ----------------------------------------------------------------- */
static const char *const brands[] = {
	"Unknown",    "Quadro",     "Tesla",  "NVS",     "Grid",      "GeForce",    "Titan",
	"NVIDIA Virtual Applications", "NVIDIA Virtual PC", "NVIDIA Virtual Compute Server",
	"NVIDIA RTX Virtual Workstation", "NVIDIA Cloud Gaming", "Quadro RTX", "NVIDIA RTX", "NVIDIA",
	"GeForce RTX", "Titan RTX",
};

static const char *const arches[] = {
	[NVML_DEVICE_ARCH_KEPLER] = "Kepler", [NVML_DEVICE_ARCH_MAXWELL] = "Maxwell",
	[NVML_DEVICE_ARCH_PASCAL] = "Pascal", [NVML_DEVICE_ARCH_VOLTA] = "Volta",
	[NVML_DEVICE_ARCH_TURING] = "Turing", [NVML_DEVICE_ARCH_AMPERE] = "Ampere",
	[NVML_DEVICE_ARCH_ADA] = "Ada Lovelace", [NVML_DEVICE_ARCH_HOPPER] = "Hopper",
	[NVML_DEVICE_ARCH_BLACKWELL] = "Blackwell",
};

static const char *const addressing_modes[] = {"None", "HMM", "ATS"};
static const char *const virt_modes[] = {"None", "Pass-Through", "VGPU", "Host VGPU", "Host VSGA"};
static const char *const recovery_actions[] = {"None", "Reset", "Reboot", "Drain P2P", "Drain and Reset"};

/* name[v] when v is in the table, else "Unknown" */
#define NAMED(tab, v) ((unsigned int)(v) < sizeof(tab) / sizeof(tab[0]) && tab[v] ? tab[v] : "Unknown")

static void sec_product(struct gw_smi_rep *r)
{
	char s[256];
	nvmlBrandType_t brand = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetName, r->d, s, sizeof(s));
	kv(r, 1, "Product Name", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	ret = NV(r, nvmlDeviceGetBrand, r->d, &brand);
	kv(r, 1, "Product Brand", "%s", ret == NVML_SUCCESS ? NAMED(brands, brand) : vtext(r, ret));
	kv(r, 1, "Product Architecture", "%s", r->arch_ret == NVML_SUCCESS ? NAMED(arches, r->arch) : vtext(r, r->arch_ret));
	nvmlEnableState_t st = 0;
	ret = NV(r, nvmlDeviceGetDisplayMode, r->d, &st);
	kv_state(r, 1, "Display Mode", ret, (unsigned int)st);
	kv(r, 1, "Display Attached", "%s", info(r, "display_attached", s, sizeof(s)));
	ret = NV(r, nvmlDeviceGetDisplayActive, r->d, &st);
	kv_state(r, 1, "Display Active", ret, (unsigned int)st);
	ret = NV(r, nvmlDeviceGetPersistenceMode, r->d, &st);
	kv_state(r, 1, "Persistence Mode", ret, (unsigned int)st);
	nvmlDeviceAddressingMode_t am = {.version = GW_NVML_STRUCT_VERSION(nvmlDeviceAddressingMode_t, 1)};
	ret = NV(r, nvmlDeviceGetAddressingMode, r->d, &am);
	kv(r, 1, "Addressing Mode", "%s", ret == NVML_SUCCESS ? NAMED(addressing_modes, am.value) : vtext(r, ret));
	unsigned int cur = 0, pend = 0;
	ret = NV(r, nvmlDeviceGetMigMode, r->d, &cur, &pend);
	head(r, 1, "MIG Mode");
	kv_state(r, 2, "Current", ret, cur);
	kv_state(r, 2, "Pending", ret, pend);
}

static void sec_accounting(struct gw_smi_rep *r)
{
	nvmlEnableState_t st = 0;
	unsigned int n = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetAccountingMode, r->d, &st);
	kv_state(r, 1, "Accounting Mode", ret, (unsigned int)st);
	ret = NV(r, nvmlDeviceGetAccountingBufferSize, r->d, &n);
	kv_uint(r, 1, "Accounting Mode Buffer Size", ret, n, "");
}

static void sec_ids(struct gw_smi_rep *r)
{
	char s[256];
	nvmlReturn_t ret;
	/* Windows driver models (WDDM/TCC): nvmlDeviceGetDriverModel_v2, not bound; Linux has none */
	head(r, 1, "Driver Model");
	kv(r, 2, "Current", "N/A");
	kv(r, 2, "Pending", "N/A");
	ret = NV(r, nvmlDeviceGetSerial, r->d, s, sizeof(s));
	kv(r, 1, "Serial Number", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	ret = NV(r, nvmlDeviceGetUUID, r->d, s, sizeof(s));
	kv(r, 1, "GPU UUID", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	nvmlPdi_t pdi = {.version = GW_NVML_STRUCT_VERSION(nvmlPdi_t, 1)};
	ret = NV(r, nvmlDeviceGetPdi, r->d, &pdi);
	if (ret == NVML_SUCCESS)
		kv(r, 1, "GPU PDI", "0x%016llx", pdi.value);
	else
		kv(r, 1, "GPU PDI", "%s", vtext(r, ret));
	unsigned int u = 0;
	ret = NV(r, nvmlDeviceGetMinorNumber, r->d, &u);
	kv_uint(r, 1, "Minor Number", ret, u, "");
	ret = NV(r, nvmlDeviceGetVbiosVersion, r->d, s, sizeof(s));
	kv(r, 1, "VBIOS Version", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	ret = NV(r, nvmlDeviceGetMultiGpuBoard, r->d, &u);
	kv(r, 1, "MultiGPU Board", "%s", ret == NVML_SUCCESS ? yes_no(u) : vtext(r, ret));
	ret = NV(r, nvmlDeviceGetBoardId, r->d, &u);
	if (ret == NVML_SUCCESS)
		kv(r, 1, "Board ID", "0x%x", u);
	else
		kv(r, 1, "Board ID", "%s", vtext(r, ret));
	ret = NV(r, nvmlDeviceGetBoardPartNumber, r->d, s, sizeof(s));
	kv(r, 1, "Board Part Number", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	kv(r, 1, "GPU Part Number", "%s", info(r, "gpu_part_number", s, sizeof(s)));
	/* FRU part number and the platform block but the module id need
	 * nvmlDeviceGetPlatformInfo, which no board here answers: not bound */
	kv(r, 1, "FRU Part Number", "N/A");
	head(r, 1, "Platform Info");
	static const char *const platform[] = {"Chassis Serial Number", "Slot Number", "Tray Index", "Host ID",
					      "Peer Type"};
	for (size_t i = 0; i < sizeof(platform) / sizeof(platform[0]); i++)
		kv(r, 2, platform[i], "N/A");
	ret = NV(r, nvmlDeviceGetModuleId, r->d, &u);
	kv_uint(r, 2, "Module Id", ret, u, "");
	kv(r, 2, "GPU Fabric GUID", "N/A");
}

static void sec_inforom(struct gw_smi_rep *r)
{
	char s[64];
	nvmlReturn_t ret;
	head(r, 1, "Inforom Version");
	ret = NV(r, nvmlDeviceGetInforomImageVersion, r->d, s, sizeof(s));
	kv(r, 2, "Image Version", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	static const struct {
		nvmlInforomObject_t obj;
		const char *label;
	} objs[] = {{NVML_INFOROM_OEM, "OEM Object"},
		    {NVML_INFOROM_ECC, "ECC Object"},
		    {NVML_INFOROM_POWER, "Power Management Object"}};
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		ret = NV(r, nvmlDeviceGetInforomVersion, r->d, objs[i].obj, s, sizeof(s));
		kv(r, 2, objs[i].label, "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
	}
	/* nvmlDeviceGetLastBBXFlushTime: not bound, unsupported on these boards */
	head(r, 1, "Inforom BBX Object Flush");
	kv(r, 2, "Latest Timestamp", "N/A");
	kv(r, 2, "Latest Duration", "N/A");
}

static void sec_modes(struct gw_smi_rep *r)
{
	nvmlGpuOperationMode_t cur = 0, pend = 0;
	nvmlReturn_t ret = NV(r, nvmlDeviceGetGpuOperationMode, r->d, &cur, &pend);
	static const char *const gom[] = {"All On", "Compute", "Low Double Precision"};
	head(r, 1, "GPU Operation Mode");
	kv(r, 2, "Current", "%s", ret == NVML_SUCCESS ? NAMED(gom, cur) : vtext(r, ret));
	kv(r, 2, "Pending", "%s", ret == NVML_SUCCESS ? NAMED(gom, pend) : vtext(r, ret));
	nvmlC2cModeInfo_v1_t c2c = {0};
	ret = NV(r, nvmlDeviceGetC2cModeInfoV, r->d, &c2c);
	kv_state(r, 1, "GPU C2C Mode", ret, c2c.isC2cEnabled);
	nvmlGpuVirtualizationMode_t vm = 0;
	ret = NV(r, nvmlDeviceGetVirtualizationMode, r->d, &vm);
	head(r, 1, "GPU Virtualization Mode");
	kv(r, 2, "Virtualization Mode", "%s", ret == NVML_SUCCESS ? NAMED(virt_modes, vm) : vtext(r, ret));
	/* host vGPU and heterogeneous vGPU modes exist only under a vGPU host driver */
	kv(r, 2, "Host VGPU Mode", "N/A");
	kv(r, 2, "vGPU Heterogeneous Mode", "N/A");
	long long v = 0;
	ret = gw_smi_rep_field(r, GW_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0, &v);
	kv(r, 1, "GPU Recovery Action", "%s", ret == NVML_SUCCESS ? NAMED(recovery_actions, v) : vtext(r, ret));
}

static void sec_gsp(struct gw_smi_rep *r)
{
	char s[NVML_GSP_FIRMWARE_VERSION_BUF_SIZE];
	nvmlReturn_t ret = NV(r, nvmlDeviceGetGspFirmwareVersion, r->d, s);
	kv(r, 1, "GSP Firmware Version", "%s", ret == NVML_SUCCESS ? s : vtext(r, ret));
}

static void sec_ibmnpu(struct gw_smi_rep *r)
{
	/* IBM POWER9 NVLink-to-CPU only */
	head(r, 1, "IBMNPU");
	kv(r, 2, "Relaxed Ordering Mode", "N/A");
}

/* ---- the report ------------------------------------------------------------------ */
static const struct {
	void (*fn)(struct gw_smi_rep *r);
	unsigned int display; /* 0: the full report only */
} sections[] = {
	{sec_product, 0},
	{gw_smi_rep_mig, 0},
	{sec_accounting, GW_SMI_D(ACCOUNTING)},
	{sec_ids, 0},
	{sec_inforom, 0},
	{sec_modes, 0},
	{sec_gsp, GW_SMI_D(GSP_FIRMWARE_VERSION)},
	{sec_ibmnpu, 0},
	{gw_smi_rep_pci, 0},
	{gw_smi_rep_perf, GW_SMI_D(PERFORMANCE)},
	{gw_smi_rep_sparse, 0},
	{gw_smi_rep_memory, GW_SMI_D(MEMORY)},
	{gw_smi_rep_compute, GW_SMI_D(COMPUTE)},
	{gw_smi_rep_util, GW_SMI_D(UTILIZATION)},
	{gw_smi_rep_encoder, GW_SMI_D(ENCODER_STATS)},
	{gw_smi_rep_fbc, GW_SMI_D(FBC_STATS)},
	{gw_smi_rep_dram_encryption, 0},
	{gw_smi_rep_ecc, GW_SMI_D(ECC)},
	{gw_smi_rep_retired, GW_SMI_D(PAGE_RETIREMENT)},
	{gw_smi_rep_remapped, GW_SMI_D(ROW_REMAPPER)},
	{gw_smi_rep_temperature, GW_SMI_D(TEMPERATURE)},
	{gw_smi_rep_power, GW_SMI_D(POWER)},
	{gw_smi_rep_power_smoothing, GW_SMI_D(POWER_SMOOTHING)},
	{gw_smi_rep_power_profiles, GW_SMI_D(POWER_PROFILES)},
	{gw_smi_rep_edpp, 0},
	{gw_smi_rep_clocks, GW_SMI_D(CLOCK)},
	{gw_smi_rep_fabric, 0},
	{gw_smi_rep_processes, GW_SMI_D(PIDS)},
	{gw_smi_rep_capabilities, 0},
};

void gw_smi_report_head(FILE *out, struct gw_nvml *nv, const struct timespec *now, unsigned int attached, bool xml)
{
	struct gw_smi_rep r = {.out = out, .nv = nv, .xml = xml};
	char stamp[64], drv[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	struct tm tm = gw_smi_localtime(now);
	strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S %Y", &tm);
	if (xml)
		fputs("<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n<nvidia_smi_log>\n",
		      out);
	else
		fputs("\n==============NVSMI LOG==============\n\n", out);
	kv(&r, 0, "Timestamp", "%s", stamp);
	nvmlReturn_t ret = NV(&r, nvmlSystemGetDriverVersion, drv, sizeof(drv));
	kv(&r, 0, "Driver Version", "%s", ret == NVML_SUCCESS ? drv : vtext(&r, ret));
	int cuda = 0;
	ret = NV(&r, nvmlSystemGetCudaDriverVersion_v2, &cuda);
	if (ret == NVML_SUCCESS) /* 13010 -> 13.1 */
		kv(&r, 0, "CUDA Version", "%d.%d", cuda / 1000, cuda % 1000 / 10);
	else
		kv(&r, 0, "CUDA Version", "%s", vtext(&r, ret));
	if (!xml)
		fputc('\n', out);
	kv(&r, 0, "Attached GPUs", "%u", attached);
}

int gw_smi_report_gpu(FILE *out, struct gw_nvml *nv, const struct gw_gpu *gpu, unsigned int display, bool xml)
{
	struct gw_smi_rep r = {.out = out, .nv = nv, .gpu = gpu, .d = gpu->dev, .xml = xml};
	char drv[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	if (nv->simulated && nv->lib)
		*(void **)&r.sim_info = dlsym(nv->lib, "gwsim_device_info");
	if (NV(&r, nvmlSystemGetDriverVersion, drv, sizeof(drv)) == NVML_SUCCESS)
		r.driver_major = (unsigned int)strtoul(drv, NULL, 10);
	r.arch_ret = NV(&r, nvmlDeviceGetArchitecture, r.d, &r.arch);
	if (xml) {
		fputs("\t<gpu id=\"", out);
		gw_smi_rep_xml_text(out, gpu->bus_id);
		fputs("\">\n", out);
	} else {
		fprintf(out, "GPU %s\n", gpu->bus_id);
	}
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (display == GW_SMI_D_ALL || (sections[i].display & display))
			sections[i].fn(&r);
	if (xml) {
		gw_smi_rep_xml_close(&r, 0);
		fputs("\t</gpu>\n", out);
	} else {
		fputc('\n', out);
	}
	return r.lost ? GW_EGPULOST : 0;
}

void gw_smi_report_tail(FILE *out, bool xml)
{
	if (xml)
		fputs("</nvidia_smi_log>\n", out);
}
