/*
 * nvml_nvlink_errors.c - the simulator's NVLink error counters: as field
 * values (nvmlDeviceGetFieldValues), the totals over a GPU's links of
 * flow-control CRC, data CRC, replay and recovery errors, and per link
 * (nvmlDeviceGetNvLinkErrorCounter). Simulated links
 * are healthy, so every total stays 0 until an nvlink-error fault adds to
 * it; a GPU without NVLink does not have them (NOT_SUPPORTED), as a
 * PCIe-only board answers.
 */
#include "sim.h"

/* nvml.h's field ids: the totals after each counter's six per-link ids (L0..L5). */
#define FI_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL 38
#define FI_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL 45
#define FI_NVLINK_REPLAY_ERROR_COUNT_TOTAL 52
#define FI_NVLINK_RECOVERY_ERROR_COUNT_TOTAL 59

nvmlReturn_t gwsim_field_nvlink_errors(const struct gwsim_gpu *g, nvmlFieldValue_t *f)
{
	enum gwsim_nvlink_err which;
	switch (f->fieldId) {
	case FI_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL:
		which = GWSIM_NVL_CRC_FLIT;
		break;
	case FI_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL:
		which = GWSIM_NVL_CRC_DATA;
		break;
	case FI_NVLINK_REPLAY_ERROR_COUNT_TOTAL:
		which = GWSIM_NVL_REPLAY;
		break;
	case FI_NVLINK_RECOVERY_ERROR_COUNT_TOTAL:
		which = GWSIM_NVL_RECOVERY;
		break;
	default:
		return NVML_ERROR_NOT_SUPPORTED;
	}
	if (!g->st.nvlinks)
		return NVML_ERROR_NOT_SUPPORTED;
	f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
	f->value.ullVal = g->h.nvlink_err[which];
	return NVML_SUCCESS;
}

/* One link's counter; a link the board does not have is an invalid argument, as NVML answers. */
static nvmlReturn_t link_counter(const struct gwsim_gpu *g, unsigned int link, nvmlNvLinkErrorCounter_t c,
				 unsigned long long *value)
{
	static const enum gwsim_nvlink_err which[] = {
		[NVML_NVLINK_ERROR_DL_REPLAY] = GWSIM_NVL_REPLAY,
		[NVML_NVLINK_ERROR_DL_RECOVERY] = GWSIM_NVL_RECOVERY,
		[NVML_NVLINK_ERROR_DL_CRC_FLIT] = GWSIM_NVL_CRC_FLIT,
		[NVML_NVLINK_ERROR_DL_CRC_DATA] = GWSIM_NVL_CRC_DATA,
	};
	if (g->st.nvlinks + g->st.nvlink_inactive == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!value || c < NVML_NVLINK_ERROR_DL_REPLAY || c > NVML_NVLINK_ERROR_DL_CRC_DATA ||
	    link >= g->st.nvlinks + g->st.nvlink_inactive)
		return NVML_ERROR_INVALID_ARGUMENT;
	*value = g->h.nvlink_link_err[which[c]][link];
	return NVML_SUCCESS;
}

GWSIM_DEV(nvmlDeviceGetNvLinkErrorCounter,
	  (nvmlDevice_t d, unsigned int link, nvmlNvLinkErrorCounter_t counter, unsigned long long *value),
	  link_counter(g, link, counter, value))
