/*
 * mig.h - the MIG devices of one GPU, as NVML reports them.
 *
 * With MIG mode on, a GPU is split into GPU instances (memory, copy and
 * media engines) and those into compute instances (SMs); each compute
 * instance is a MIG device with a handle of its own. gw_mig_list() walks
 * nvmlDeviceGetMigDeviceHandleByIndex up to the GPU's maximum and reads each
 * device's ids, attributes, memory and profile name ("3g.40gb", or
 * "1c.3g.71gb" for a compute instance smaller than its GPU instance, the
 * name nvidia-smi -L prints). Values NVML does not give keep their validity
 * bit cleared.
 *
 * Ownership: the caller owns struct gw_migs and calls gw_migs_release.
 * Threading: reentrant; no state outside the arguments.
 */
#ifndef GW_COLLECT_MIG_H
#define GW_COLLECT_MIG_H

#include "nvml/binding.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw_mig {
	nvmlDevice_t dev;
	unsigned int index; /* MIG device index under its GPU */
	unsigned int gi, ci;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE]; /* "" if unknown */
	char profile[48];			    /* "3g.40gb", "1c.3g.71gb"; "" if unknown */
	char gi_profile[48];			    /* its GPU instance's: "3g.71gb"; "" if unknown */
	bool attrs_valid;
	nvmlDeviceAttributes_t attrs;
	bool mem_valid, bar1_valid, ecc_valid;
	uint64_t mem_used, mem_total, mem_free, mem_reserved; /* bytes */
	uint64_t bar1_used, bar1_total, bar1_free;	      /* bytes */
	uint64_t ecc_unc_volatile; /* uncorrected ECC errors since the driver loaded */
};

struct gw_migs {
	struct gw_mig *v;
	size_t n;
};

/*
 * Fill *out with the MIG devices of gpu. Returns 0 (empty when NVML has no
 * MIG calls or MIG mode is off), GW_EGPULOST or GW_ENOMEM.
 */
int gw_mig_list(struct gw_nvml *nv, nvmlDevice_t gpu, struct gw_migs *out);
void gw_migs_release(struct gw_migs *m);

#endif
