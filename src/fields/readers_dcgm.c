/*
 * readers_dcgm.c - readers for fields only DCGM publishes, read the way
 * DCGM's cache manager reads them: the brand as DCGM names it, the vGPU
 * licence status, and the NVLink data counters its bandwidth fields are
 * computed from.
 */
#include "fields/fields_table.h"
#include "nvml/tally.h"

#include <limits.h>
#include <string.h>

#define CALL(c, fn, ...) GW_NVML_CALL((c)->tally, (c)->gpu, (c)->nv, fn, __VA_ARGS__)

/* DCGM's names of NVML's brands (not nvidia-smi's: "NVIDIA vGaming", no "Cloud Gaming"). */
static const char *dcgm_brand(nvmlBrandType_t b)
{
	static const char *const names[] = {
		[NVML_BRAND_QUADRO] = "Quadro",
		[NVML_BRAND_TESLA] = "Tesla",
		[NVML_BRAND_NVS] = "NVS",
		[NVML_BRAND_GRID] = "Grid",
		[NVML_BRAND_GEFORCE] = "GeForce",
		[NVML_BRAND_TITAN] = "Titan",
		[NVML_BRAND_NVIDIA_VAPPS] = "NVIDIA Virtual Applications",
		[NVML_BRAND_NVIDIA_VPC] = "NVIDIA Virtual PC",
		[NVML_BRAND_NVIDIA_VCS] = "NVIDIA Virtual Compute Server",
		[NVML_BRAND_NVIDIA_VWS] = "NVIDIA RTX Virtual Workstation",
		[NVML_BRAND_NVIDIA_CLOUD_GAMING] = "NVIDIA vGaming",
		[NVML_BRAND_QUADRO_RTX] = "Quadro RTX",
		[NVML_BRAND_NVIDIA_RTX] = "NVIDIA RTX",
		[NVML_BRAND_NVIDIA] = "NVIDIA",
		[NVML_BRAND_GEFORCE_RTX] = "GeForce RTX",
		[NVML_BRAND_TITAN_RTX] = "Titan RTX",
	};
	if (b > 0 && (size_t)b < sizeof(names) / sizeof(names[0]) && names[b])
		return names[b];
	return "Unknown";
}

/* DCGM_FI_DEV_BRAND: a string, as DCGM names the brand. */
void gw_rd_brand(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	(void)f;
	nvmlBrandType_t b = 0;
	nvmlReturn_t r = CALL(c, nvmlDeviceGetBrand, c->gpu->dev, &b);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_str(v, dcgm_brand(b));
}

/*
 * DCGM_FI_DEV_VGPU_LICENSE_STATUS: 1 while the vGPU feature is licensed, 0
 * where licensing does not apply (bare metal, pass-through) or no licence
 * is held; a GPU whose driver cannot answer has no value.
 */
void gw_rd_vgpu_license(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	(void)f;
	nvmlGridLicensableFeatures_t lf;
	memset(&lf, 0, sizeof(lf));
	nvmlReturn_t r = CALL(c, nvmlDeviceGetGridLicensableFeatures_v4, c->gpu->dev, &lf);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	int64_t licensed = 0;
	unsigned int n = lf.licensableFeaturesCount;
	if (n > NVML_GRID_LICENSE_FEATURE_MAX_COUNT)
		n = NVML_GRID_LICENSE_FEATURE_MAX_COUNT;
	for (unsigned int i = 0; lf.isGridLicenseSupported && i < n; i++)
		if (lf.gridLicensableFeatures[i].featureCode == NVML_GRID_LICENSE_FEATURE_CODE_VGPU) {
			licensed = lf.gridLicensableFeatures[i].featureState > 0;
			break;
		}
	gw_value_int(v, licensed);
}

unsigned int gw_rd_nvlink_scope(const struct gw_field *f)
{
	return f->arg[0] < 0 ? UINT_MAX : (unsigned int)f->arg[0];
}

/*
 * NVLink data received plus sent, KiB since the driver loaded: arg0 the
 * link, -1 every link. DCGM's bandwidth fields are this counter's rate
 * (the sampler turns rows flagged GW_FL_KIB_RATE into it). Both counters
 * come with the round's other field values (gw_read_prefetch).
 */
/* One counter; a link the GPU does not have (a per-link scope NVML refuses) is no value, not a failure. */
static nvmlReturn_t nvlink_counter(const struct gw_read_ctx *c, unsigned int id, unsigned int scope, nvmlFieldValue_t *fv)
{
	nvmlReturn_t r = gw_read_field_value_raw(c, id, scope, fv);
	if (r != NVML_SUCCESS)
		return r;
	r = fv->nvmlReturn;
	if (scope != UINT_MAX && (r == NVML_ERROR_INVALID_ARGUMENT || r == NVML_ERROR_NOT_FOUND))
		return NVML_ERROR_NOT_SUPPORTED;
	return gw_nvml_tally_note(c->tally, c->gpu, GW_NVML_FN_nvmlDeviceGetFieldValues, r);
}

void gw_rd_nvlink_kib(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlFieldValue_t rx, tx;
	unsigned int scope = gw_rd_nvlink_scope(f);
	nvmlReturn_t r = nvlink_counter(c, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, scope, &rx);
	if (r == NVML_SUCCESS)
		r = nvlink_counter(c, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, scope, &tx);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, (int64_t)(rx.value.ullVal + tx.value.ullVal));
}

/*
 * One link's NVLink error counter (DCGM's per-link error fields): arg0
 * NVML's counter (NVML_NVLINK_ERROR_DL_*), arg1 the link. A link the GPU
 * does not have is no value, not a failure.
 */
void gw_rd_nvlink_err(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned long long n = 0;
	nvmlReturn_t r = c->nv->nvmlDeviceGetNvLinkErrorCounter
				 ? c->nv->nvmlDeviceGetNvLinkErrorCounter(c->gpu->dev, (unsigned int)f->arg[1], f->arg[0], &n)
				 : NVML_ERROR_FUNCTION_NOT_FOUND;
	if (r == NVML_ERROR_INVALID_ARGUMENT || r == NVML_ERROR_NOT_FOUND)
		r = NVML_ERROR_NOT_SUPPORTED;
	gw_nvml_tally_note(c->tally, c->gpu, GW_NVML_FN_nvmlDeviceGetNvLinkErrorCounter, r);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, (int64_t)n);
}
