/*
 * readers_dev.c - readers for identity, PCI, modes, clocks, memory,
 * utilisation, power and temperature fields.
 *
 * Each reader makes at most one NVML call and stores the raw value in the
 * field's canonical unit (bytes, mW, mJ, MHz, C, %, ns); no conversion here.
 * Calls whose one answer several fields share are made once per round when
 * the context keeps a memo (fields.h: struct gw_read_memo).
 * A NULL function pointer (the library lacks the symbol) reads as
 * not supported. The meaning of the row's arg[] is given at each reader.
 */
#include "fields/fields_table.h"
#include "nvml/tally.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* One NVML call on the context's GPU, its failure counted in the context's tally. */
#define CALL(c, fn, ...) GW_NVML_CALL((c)->tally, (c)->gpu, (c)->nv, fn, __VA_ARGS__)

/* The round's answer to a call several fields share (struct gw_read_memo), if it was made. */
static bool memo_get(const struct gw_read_ctx *c, enum gw_read_memo_call k, nvmlReturn_t *r)
{
	if (!c->memo || !(c->memo->have & (1u << k)))
		return false;
	*r = c->memo->ret[k];
	return true;
}

static nvmlReturn_t memo_put(const struct gw_read_ctx *c, enum gw_read_memo_call k, nvmlReturn_t r)
{
	if (c->memo) {
		c->memo->ret[k] = r;
		c->memo->have |= 1u << k;
	}
	return r;
}

/* A shared call: made once per round with a memo (its answer copied in and out), else every time. */
#define SHARED(c, k, member, out, call)                                                                      \
	do {                                                                                                 \
		if (memo_get(c, k, &r)) {                                                                    \
			memcpy(out, &(c)->memo->member, sizeof((c)->memo->member));                          \
			break;                                                                               \
		}                                                                                            \
		r = memo_put(c, k, call);                                                                    \
		if ((c)->memo)                                                                               \
			memcpy(&(c)->memo->member, out, sizeof((c)->memo->member));                          \
	} while (0)

void gw_rd_none(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	gw_value_na(v);
}

void gw_rd_deprecated(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	v->state = GW_V_DEPRECATED;
}

/* Value: ns since the epoch of the query (one time for the whole row). */
void gw_rd_timestamp(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	gw_value_int(v, (int64_t)c->now.tv_sec * 1000000000 + c->now.tv_nsec);
}

/* arg0: 0 driver version, 1 GPU count, 2 GPU index. */
void gw_rd_sysinfo(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	nvmlReturn_t r;
	switch (f->arg[0]) {
	case 0:
		r = GW_NVML_CALL(c->tally, NULL, c->nv, nvmlSystemGetDriverVersion, buf, sizeof(buf)); /* no GPU's */
		gw_field_set_nvml(c, v, r);
		if (r == NVML_SUCCESS) {
			buf[sizeof(buf) - 1] = '\0';
			gw_value_str(v, buf);
		}
		return;
	case 1:
		gw_value_int(v, c->gpu_count);
		return;
	default:
		gw_value_int(v, c->gpu->index);
		return;
	}
}

/* arg0: 0 name, 1 serial, 2 UUID, 3 VBIOS version, 4 inforom image, 5 PCI bus id.
 * Name, UUID and bus id were read at open time; the copies save a call. */
void gw_rd_ident(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	char buf[GW_VALUE_STR_MAX];
	const char *cached[] = {c->gpu->name, NULL, c->gpu->uuid, NULL, NULL, c->gpu->bus_id};
	nvmlDevice_t d = c->gpu->dev;
	nvmlReturn_t r;
	if (cached[f->arg[0]] && cached[f->arg[0]][0]) {
		gw_value_str(v, cached[f->arg[0]]);
		return;
	}
	switch (f->arg[0]) {
	case 0:
		r = CALL(c, nvmlDeviceGetName, d, buf, sizeof(buf));
		break;
	case 1:
		r = CALL(c, nvmlDeviceGetSerial, d, buf, sizeof(buf));
		break;
	case 2:
		r = CALL(c, nvmlDeviceGetUUID, d, buf, sizeof(buf));
		break;
	case 3:
		r = CALL(c, nvmlDeviceGetVbiosVersion, d, buf, sizeof(buf));
		break;
	case 4:
		r = CALL(c, nvmlDeviceGetInforomImageVersion, d, buf, sizeof(buf));
		break;
	default: {
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof(pci));
		r = CALL(c, nvmlDeviceGetPciInfo_v3, d, &pci);
		memcpy(buf, pci.busId, sizeof(pci.busId));
		buf[sizeof(pci.busId) - 1] = '\0';
		break;
	}
	}
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		gw_value_str(v, buf);
	}
}

/* arg0: 0 domain, 1 bus, 2 device, 3 device id (device << 16 | vendor), 4 subsystem id. */
void gw_rd_pci(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlPciInfo_t pci;
	memset(&pci, 0, sizeof(pci));
	nvmlReturn_t r = CALL(c, nvmlDeviceGetPciInfo_v3, c->gpu->dev, &pci);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	const unsigned int parts[] = {pci.domain, pci.bus, pci.device, pci.pciDeviceId, pci.pciSubSystemId};
	gw_value_int(v, parts[f->arg[0] % 5]);
}

/*
 * The NVML getters of shape (device, one int out): a table of member
 * offsets into struct gw_nvml, so one reader serves them all. arg0 is the
 * GW_U_* index; values above max read as not available (e.g. pstate 32 is
 * "unknown").
 */
struct uint_getter {
	size_t off;
	enum gw_nvml_fn fn; /* the same function, for the tally */
	bool is_signed; /* the out parameter is int (nvmlEnableState_t, ...) */
	int64_t max;
};
typedef nvmlReturn_t (*get_u)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*get_i)(nvmlDevice_t, int *);

#define U(member, sgn, max)                                                                                  \
	{                                                                                                    \
		offsetof(struct gw_nvml, member), GW_NVML_FN_##member, sgn, max                              \
	}
static const struct uint_getter uint_getters[] = {
    U(nvmlDeviceGetCurrPcieLinkGeneration, false, INT64_MAX),	   /* 0 */
    U(nvmlDeviceGetMaxPcieLinkGeneration, false, INT64_MAX),	   /* 1 */
    U(nvmlDeviceGetGpuMaxPcieLinkGeneration, false, INT64_MAX),	   /* 2 */
    U(nvmlDeviceGetCurrPcieLinkWidth, false, INT64_MAX),	   /* 3 */
    U(nvmlDeviceGetMaxPcieLinkWidth, false, INT64_MAX),		   /* 4 */
    U(nvmlDeviceGetDisplayMode, true, 1),			   /* 5 */
    U(nvmlDeviceGetDisplayActive, true, 1),			   /* 6 */
    U(nvmlDeviceGetPersistenceMode, true, 1),			   /* 7 */
    U(nvmlDeviceGetAccountingMode, true, 1),			   /* 8 */
    U(nvmlDeviceGetAccountingBufferSize, false, INT64_MAX),	   /* 9 */
    U(nvmlDeviceGetFanSpeed, false, INT64_MAX),			   /* 10 */
    U(nvmlDeviceGetPerformanceState, true, 15),			   /* 11 */
    U(nvmlDeviceGetComputeMode, true, 3),			   /* 12 */
    U(nvmlDeviceGetPowerUsage, false, INT64_MAX),		   /* 13 mW */
    U(nvmlDeviceGetPowerManagementLimit, false, INT64_MAX),	   /* 14 mW */
    U(nvmlDeviceGetEnforcedPowerLimit, false, INT64_MAX),	   /* 15 mW */
    U(nvmlDeviceGetPowerManagementDefaultLimit, false, INT64_MAX), /* 16 mW */
    U(nvmlDeviceGetPcieReplayCounter, false, INT64_MAX),	   /* 17 */
    U(nvmlDeviceGetRetiredPagesPendingStatus, true, 1),		   /* 18 */
};
#undef U

void gw_rd_uint(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	const struct uint_getter *g = &uint_getters[f->arg[0]];
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	int64_t x = 0;
	if (g->is_signed) {
		get_i fn;
		memcpy(&fn, (const char *)c->nv + g->off, sizeof(fn));
		int val = 0;
		if (fn)
			r = fn(c->gpu->dev, &val);
		x = val;
	} else {
		get_u fn;
		memcpy(&fn, (const char *)c->nv + g->off, sizeof(fn));
		unsigned int val = 0;
		if (fn)
			r = fn(c->gpu->dev, &val);
		x = val;
	}
	gw_nvml_tally_note(c->tally, c->gpu, g->fn, r);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	if (x < 0 || x > g->max)
		gw_value_na(v);
	else
		gw_value_int(v, x);
}

/* arg0: pair getter (0 ECC mode, 1 MIG mode, 2 GSP firmware mode, 3 GPU
 * operation mode, 4 power limit constraints); arg1: 0 first out, 1 second. */
void gw_rd_pair(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlDevice_t d = c->gpu->dev;
	unsigned int u[2] = {0, 0};
	int s[2] = {0, 0};
	bool is_signed = false;
	nvmlReturn_t r;
	switch (f->arg[0]) {
	case 0:
		SHARED(c, GW_MEMO_ECC_MODE, ecc_mode, s, CALL(c, nvmlDeviceGetEccMode, d, &s[0], &s[1]));
		is_signed = true;
		break;
	case 1:
		r = CALL(c, nvmlDeviceGetMigMode, d, &u[0], &u[1]);
		break;
	case 2:
		r = CALL(c, nvmlDeviceGetGspFirmwareMode, d, &u[0], &u[1]);
		break;
	case 3:
		r = CALL(c, nvmlDeviceGetGpuOperationMode, d, &s[0], &s[1]);
		is_signed = true;
		break;
	default:
		r = CALL(c, nvmlDeviceGetPowerManagementLimitConstraints, d, &u[0], &u[1]);
		break;
	}
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, is_signed ? s[f->arg[1] & 1] : (int64_t)u[f->arg[1] & 1]);
}

/* arg0: nvmlInforomObject_t. */
void gw_rd_inforom(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	char buf[NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE];
	nvmlReturn_t r = CALL(c, nvmlDeviceGetInforomVersion, c->gpu->dev, f->arg[0], buf, sizeof(buf));
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		gw_value_str(v, buf);
	}
}

/* 1 when the inforom checksums verify, 0 when the inforom is corrupted. */
void gw_rd_inforom_valid(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	/* CORRUPTED_INFOROM is this call's answer, not its failure: not counted. */
	nvmlReturn_t r = c->nv->nvmlDeviceValidateInforom ? c->nv->nvmlDeviceValidateInforom(c->gpu->dev)
							  : NVML_ERROR_FUNCTION_NOT_FOUND;
	if (r == NVML_ERROR_CORRUPTED_INFOROM) {
		gw_value_int(v, 0);
		return;
	}
	gw_nvml_tally_note(c->tally, c->gpu, GW_NVML_FN_nvmlDeviceValidateInforom, r);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, 1);
}

void gw_read_prefetch(const struct gw_read_ctx *c, const bool *reading)
{
	struct gw_read_memo *m = c->memo;
	if (!m)
		return;
	m->nfv = 0;
	for (size_t i = 0, n = gw_fields_count(); i < n; i++) {
		const struct gw_field *f = gw_field_at(i);
		unsigned int ids[2], scope, nid = 0;
		if (!reading[i])
			continue;
		if (f->read == gw_rd_field_value) {
			ids[nid++] = (unsigned int)f->arg[0];
			scope = (unsigned int)f->arg[1];
		} else if (f->read == gw_rd_nvlink_kib) {
			ids[nid++] = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
			ids[nid++] = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
			scope = gw_rd_nvlink_scope(f);
		} else {
			continue;
		}
		if (m->nfv + nid > GW_READ_FV_MAX)
			break;
		for (unsigned int j = 0; j < nid; j++) {
			nvmlFieldValue_t *fv = &m->fv[m->nfv];
			memset(fv, 0, sizeof(*fv));
			fv->fieldId = m->fv_id[m->nfv] = ids[j];
			fv->scopeId = m->fv_scope[m->nfv] = scope;
			m->nfv++;
		}
	}
	if (m->nfv)
		m->fv_ret = CALL(c, nvmlDeviceGetFieldValues, c->gpu->dev, (int)m->nfv, m->fv);
}

nvmlReturn_t gw_read_field_value(const struct gw_read_ctx *c, unsigned int id, unsigned int scope, nvmlFieldValue_t *fv)
{
	nvmlReturn_t r = gw_read_field_value_raw(c, id, scope, fv);
	if (r == NVML_SUCCESS) /* the value's own answer: a failure there counts against the call too */
		r = gw_nvml_tally_note(c->tally, c->gpu, GW_NVML_FN_nvmlDeviceGetFieldValues, fv->nvmlReturn);
	return r;
}

nvmlReturn_t gw_read_field_value_raw(const struct gw_read_ctx *c, unsigned int id, unsigned int scope,
				     nvmlFieldValue_t *fv)
{
	nvmlReturn_t r;
	const struct gw_read_memo *m = c->memo;
	unsigned int k = 0;
	while (m && k < m->nfv && (m->fv_id[k] != id || m->fv_scope[k] != scope))
		k++;
	if (m && k < m->nfv) { /* asked for with the round's other field values */
		*fv = m->fv[k];
		r = m->fv_ret;
	} else {
		memset(fv, 0, sizeof(*fv));
		fv->fieldId = id;
		fv->scopeId = scope;
		r = CALL(c, nvmlDeviceGetFieldValues, c->gpu->dev, 1, fv);
	}
	return r;
}

/* arg0: NVML field id, arg1: scope id. The value is kept as NVML gives it. */
void gw_rd_field_value(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlFieldValue_t fv;
	nvmlReturn_t r = gw_read_field_value(c, (unsigned int)f->arg[0], (unsigned int)f->arg[1], &fv);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	switch (fv.valueType) {
	case NVML_VALUE_TYPE_DOUBLE:
		gw_value_int(v, (int64_t)fv.value.dVal);
		break;
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		gw_value_int(v, fv.value.uiVal);
		break;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		gw_value_int(v, (int64_t)fv.value.ulVal);
		break;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		gw_value_int(v, fv.value.sllVal);
		break;
	case NVML_VALUE_TYPE_SIGNED_INT:
		gw_value_int(v, fv.value.siVal);
		break;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT:
		gw_value_int(v, fv.value.usVal);
		break;
	default:
		gw_value_int(v, (int64_t)fv.value.ullVal);
		break;
	}
}

/* arg0: 0 supported mask, 1 active mask, 2 one reason (arg1 = its bit): 1 when active. */
void gw_rd_clock_events(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned long long mask = 0;
	nvmlReturn_t r = f->arg[0] == 0
			     ? CALL(c, nvmlDeviceGetSupportedClocksEventReasons, c->gpu->dev, &mask)
			     : CALL(c, nvmlDeviceGetCurrentClocksEventReasons, c->gpu->dev, &mask);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	if (f->arg[0] == 2)
		gw_value_int(v, (mask & (unsigned long long)(unsigned)f->arg[1]) != 0);
	else
		gw_value_int(v, (int64_t)mask);
}

/* arg0: 0 total, 1 reserved, 2 used, 3 free; bytes. v2 first: its "used"
 * excludes reserved memory, as nvidia-smi shows it. */
void gw_rd_memory(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlMemory_v2_t m2;
	memset(&m2, 0, sizeof(m2));
	m2.version = nvmlMemory_v2;
	nvmlReturn_t r;
	SHARED(c, GW_MEMO_MEMORY, memory, &m2, CALL(c, nvmlDeviceGetMemoryInfo_v2, c->gpu->dev, &m2));
	if (r == NVML_SUCCESS) {
		const unsigned long long x[] = {m2.total, m2.reserved, m2.used, m2.free};
		gw_value_int(v, (int64_t)x[f->arg[0] & 3]);
		return;
	}
	if (r == NVML_ERROR_GPU_IS_LOST || f->arg[0] == 1) {
		gw_field_set_nvml(c, v, r);
		return;
	}
	nvmlMemory_t m1;
	memset(&m1, 0, sizeof(m1));
	r = CALL(c, nvmlDeviceGetMemoryInfo, c->gpu->dev, &m1);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS) {
		const unsigned long long x[] = {m1.total, 0, m1.used, m1.free};
		gw_value_int(v, (int64_t)x[f->arg[0] & 3]);
	}
}

/* arg0: 0 gpu, 1 memory; percent. */
void gw_rd_utilization(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlUtilization_t u = {0, 0};
	nvmlReturn_t r;
	SHARED(c, GW_MEMO_UTILIZATION, utilization, &u, CALL(c, nvmlDeviceGetUtilizationRates, c->gpu->dev, &u));
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, f->arg[0] ? u.memory : u.gpu);
}

/* arg0: 0 encoder, 1 decoder, 2 JPEG, 3 OFA; percent. */
void gw_rd_engine_util(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int util = 0, period = 0;
	nvmlDevice_t d = c->gpu->dev;
	nvmlReturn_t r;
	switch (f->arg[0]) {
	case 0:
		r = CALL(c, nvmlDeviceGetEncoderUtilization, d, &util, &period);
		break;
	case 1:
		r = CALL(c, nvmlDeviceGetDecoderUtilization, d, &util, &period);
		break;
	case 2:
		r = CALL(c, nvmlDeviceGetJpgUtilization, d, &util, &period);
		break;
	default:
		r = CALL(c, nvmlDeviceGetOfaUtilization, d, &util, &period);
		break;
	}
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, util);
}

/* arg0: 0 session count, 1 average FPS, 2 average latency (us). */
void gw_rd_encoder_stats(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int x[3] = {0, 0, 0};
	nvmlReturn_t r;
	SHARED(c, GW_MEMO_ENCODER_STATS, encoder_stats, x,
	       CALL(c, nvmlDeviceGetEncoderStats, c->gpu->dev, &x[0], &x[1], &x[2]));
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, x[f->arg[0] % 3]);
}

/* "major.minor", e.g. "9.0". */
void gw_rd_compute_cap(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	int major = 0, minor = 0;
	nvmlReturn_t r = CALL(c, nvmlDeviceGetCudaComputeCapability, c->gpu->dev, &major, &minor);
	gw_field_set_nvml(c, v, r);
	if (r != NVML_SUCCESS)
		return;
	char buf[32];
	snprintf(buf, sizeof(buf), "%d.%d", major, minor);
	gw_value_str(v, buf);
}

/* arg0: 0 current (GetClockInfo), 1 max (GetMaxClockInfo); arg1: nvmlClockType_t; MHz. */
void gw_rd_clock(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int mhz = 0;
	nvmlReturn_t r = f->arg[0] ? CALL(c, nvmlDeviceGetMaxClockInfo, c->gpu->dev, f->arg[1], &mhz)
				   : CALL(c, nvmlDeviceGetClockInfo, c->gpu->dev, f->arg[1], &mhz);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, mhz);
}

/* arg0: 0 sensor reading (arg1 = sensor), 1 threshold (arg1 = threshold type); C. */
void gw_rd_temperature(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int t = 0;
	nvmlReturn_t r = f->arg[0] ? CALL(c, nvmlDeviceGetTemperatureThreshold, c->gpu->dev, f->arg[1], &t)
				   : CALL(c, nvmlDeviceGetTemperature, c->gpu->dev, f->arg[1], &t);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, t);
}

/* arg0: nvmlPcieUtilCounter_t; KB/s over NVML's 20 ms window (a slow call). */
void gw_rd_pcie_throughput(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned int kbps = 0;
	nvmlReturn_t r = CALL(c, nvmlDeviceGetPcieThroughput, c->gpu->dev, f->arg[0], &kbps);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, kbps);
}

/* arg0: 0 total, 1 used, 2 free; bytes. */
void gw_rd_bar1(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	nvmlBAR1Memory_t b;
	memset(&b, 0, sizeof(b));
	nvmlReturn_t r;
	SHARED(c, GW_MEMO_BAR1, bar1, &b, CALL(c, nvmlDeviceGetBAR1MemoryInfo, c->gpu->dev, &b));
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS) {
		const unsigned long long x[] = {b.bar1Total, b.bar1Used, b.bar1Free};
		gw_value_int(v, (int64_t)x[f->arg[0] % 3]);
	}
}

/* Total energy since the driver loaded, mJ. */
void gw_rd_energy(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v)
{
	unsigned long long mj = 0;
	nvmlReturn_t r = CALL(c, nvmlDeviceGetTotalEnergyConsumption, c->gpu->dev, &mj);
	gw_field_set_nvml(c, v, r);
	if (r == NVML_SUCCESS)
		gw_value_int(v, (int64_t)mj);
}
