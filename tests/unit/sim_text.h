/*
 * sim_text.h - for unit tests: a simulator scenario given as text, written
 * to a temporary file, opened through the binding (the file is removed
 * again). sim_open_text_gpus() also lists the GPUs and reports a failure on
 * stderr.
 */
#ifndef GW_TEST_SIM_TEXT_H
#define GW_TEST_SIM_TEXT_H

#include "nvml/binding.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline struct gw_nvml *sim_open_text(const char *text, struct gw_err *err)
{
	const char *t = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/gwsim_scenario_XXXXXX", t && *t ? t : "/tmp");
	gw_err_clear(err);
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return NULL;
	}
	fputs(text, f);
	fclose(f);
	struct gw_nvml *nv = NULL;
	struct gw_nvml_opts o = {.sim = path};
	int rc = gw_nvml_open(&nv, &o, err);
	unlink(path);
	return rc == 0 ? nv : NULL;
}

static inline struct gw_nvml *sim_open_text_gpus(const char *text, struct gw_gpu **gpus, unsigned int *n)
{
	struct gw_err err;
	struct gw_nvml *nv = sim_open_text(text, &err);
	if (nv && gw_nvml_gpus_list(nv, gpus, n, &err) != 0) {
		gw_nvml_close(nv);
		nv = NULL;
	}
	if (!nv)
		fprintf(stderr, "open %s: %s\n", text, err.msg);
	return nv;
}

#endif
