/* The NVML binding: loading, symbol resolution and its failure modes. */
#include "harness.h"
#include "nvml/binding.h"

#include <stdlib.h>

static void test_library_not_found(void)
{
	struct gw_nvml *nv = (struct gw_nvml *)1;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.library = "/nonexistent/libnvidia-ml.so.1"};
	CHECK_INT_EQ(gw_nvml_open(&nv, &opts, &err), GW_ENOLIB);
	CHECK(nv == NULL);
	CHECK(strstr(err.msg, "/nonexistent/libnvidia-ml.so.1") != NULL);
}

static void test_env_override(void)
{
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	setenv("GPUWATCH_NVML_LIBRARY", "/nonexistent/other.so", 1);
	CHECK_INT_EQ(gw_nvml_open(&nv, NULL, &err), GW_ENOLIB);
	CHECK(strstr(err.msg, "/nonexistent/other.so") != NULL);
	unsetenv("GPUWATCH_NVML_LIBRARY");
}

static void test_not_nvml(void)
{
	/* A real shared library that is not NVML: refused by name, not crashed on. */
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.library = "libm.so.6"};
	CHECK_INT_EQ(gw_nvml_open(&nv, &opts, &err), GW_ENOLIB);
	CHECK(strstr(err.msg, "is not an NVML library") != NULL);
	CHECK(strstr(err.msg, "nvmlInit_v2") != NULL);
}

static void test_sim_not_sim(void)
{
	/* Pointing the simulator path at another library is a clear error. */
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	const char *saved = getenv("GPUWATCH_SIM_LIBRARY");
	char *keep = saved ? strdup(saved) : NULL;
	setenv("GPUWATCH_SIM_LIBRARY", "libm.so.6", 1);
	struct gw_nvml_opts opts = {.sim = "1xH200"};
	CHECK_INT_EQ(gw_nvml_open(&nv, &opts, &err), GW_ENOLIB);
	CHECK(strstr(err.msg, "not the gpuwatch simulator") != NULL);
	if (keep) {
		setenv("GPUWATCH_SIM_LIBRARY", keep, 1);
		free(keep);
	}
}

static void test_sim_bad_spec(void)
{
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.sim = "3xNOSUCHGPU"};
	CHECK_INT_EQ(gw_nvml_open(&nv, &opts, &err), GW_EINVAL);
	CHECK(strstr(err.msg, "NOSUCHGPU") != NULL);
	CHECK(nv == NULL);
}

static void test_sim_open_and_list(void)
{
	struct gw_nvml *nv = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_nvml_opts opts = {.sim = "2xH200,1xL40S"};
	int rc = gw_nvml_open(&nv, &opts, &err);
	CHECK_INT_EQ(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "open: %s\n", err.msg);
		return;
	}
	CHECK(nv->simulated);
	/* Versioned symbols resolve (either name) and required ones are present. */
	CHECK(nv->nvmlInit_v2 != NULL);
	CHECK(nv->nvmlDeviceGetCount_v2 != NULL);
	CHECK(nv->nvmlDeviceGetMemoryInfo_v2 != NULL);
	struct gw_gpu *gpus = NULL;
	unsigned int n = 0;
	CHECK_INT_EQ(gw_nvml_gpus_list(nv, &gpus, &n, &err), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK_STR_EQ(gpus[0].name, "NVIDIA H200");
		CHECK_STR_EQ(gpus[2].name, "NVIDIA L40S");
		CHECK(strncmp(gpus[0].uuid, "GPU-", 4) == 0);
		CHECK(strcmp(gpus[0].uuid, gpus[1].uuid) != 0);
		CHECK(strcmp(gpus[0].bus_id, gpus[1].bus_id) != 0);
		CHECK_INT_EQ(strlen(gpus[0].bus_id), 16); /* 00000000:18:00.0 */
	}
	/* memory v2: the version word is size | 2 << 24 and used excludes reserved. */
	CHECK_INT_EQ(nvmlMemory_v2, 0x02000028);
	if (n > 0) {
		nvmlMemory_v2_t m2 = {.version = nvmlMemory_v2};
		nvmlMemory_t m1;
		CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo_v2(gpus[0].dev, &m2), NVML_SUCCESS);
		CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo(gpus[0].dev, &m1), NVML_SUCCESS);
		CHECK_INT_EQ(m2.total, m1.total);
		CHECK(m2.reserved > 0);
		/* v1 has no reserved field: it counts reserved memory as used. */
		CHECK_INT_EQ(m1.free, m2.free);
		CHECK_INT_EQ(m1.total, m1.free + m1.used);
		CHECK(m1.used > m2.used);
		nvmlMemory_v2_t bad = {.version = 2};
		CHECK_INT_EQ(nv->nvmlDeviceGetMemoryInfo_v2(gpus[0].dev, &bad),
			     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	}
	free(gpus);
	gw_nvml_close(nv);
}

/* Functions by index, for per-function counts; which answers are failures. */
static void test_fn_names_and_failures(void)
{
	CHECK_STR_EQ(gw_nvml_fn_name(GW_NVML_FN_nvmlInit_v2), "nvmlInit_v2");
	CHECK_STR_EQ(gw_nvml_fn_name(GW_NVML_FN_nvmlDeviceGetPowerUsage), "nvmlDeviceGetPowerUsage");
	CHECK_STR_EQ(gw_nvml_fn_name(GW_NVML_FN_nvmlGpmMetricsGet), "nvmlGpmMetricsGet");
	CHECK_STR_EQ(gw_nvml_fn_name(GW_NVML_FN__COUNT), "unknown");
	for (int i = 0; i < GW_NVML_FN__COUNT; i++) /* every name a Prometheus label can carry as is */
		CHECK(strncmp(gw_nvml_fn_name((enum gw_nvml_fn)i), "nvml", 4) == 0);
	const nvmlReturn_t answers[] = {NVML_SUCCESS,		    NVML_ERROR_NOT_SUPPORTED,
					NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_NO_PERMISSION,
					NVML_ERROR_NOT_FOUND,	    NVML_ERROR_NO_DATA,
					NVML_ERROR_DEPRECATED,	    NVML_ERROR_INSUFFICIENT_SIZE};
	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++)
		CHECK(!gw_nvml_failed(answers[i]));
	const nvmlReturn_t failures[] = {NVML_ERROR_TIMEOUT,	      NVML_ERROR_UNKNOWN,
					 NVML_ERROR_GPU_IS_LOST,      NVML_ERROR_RESET_REQUIRED,
					 NVML_ERROR_UNINITIALIZED,    NVML_ERROR_INVALID_ARGUMENT,
					 NVML_ERROR_IRQ_ISSUE,	      NVML_ERROR_MEMORY,
					 NVML_ERROR_CORRUPTED_INFOROM, 12345};
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		CHECK(gw_nvml_failed(failures[i]));
}

int main(void)
{
	RUN(test_library_not_found);
	RUN(test_env_override);
	RUN(test_not_nvml);
	RUN(test_sim_not_sim);
	RUN(test_sim_bad_spec);
	RUN(test_sim_open_and_list);
	RUN(test_fn_names_and_failures);
	return harness_done();
}
