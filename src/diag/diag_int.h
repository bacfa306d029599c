/*
 * diag_int.h - what the diag module's files share and nothing outside does.
 */
#ifndef GW_DIAG_INT_H
#define GW_DIAG_INT_H

#include "diag/diag.h"

void gw_diag_env_checks(struct gw_diag_run *r, const struct gw_diag_env *env, const struct gw_gpu *gpus,
			unsigned int n);

#endif
