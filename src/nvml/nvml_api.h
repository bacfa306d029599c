/*
 * nvml_api.h - our own declarations of the parts of NVML gpuwatch uses.
 *
 * There is no build dependency on NVIDIA's nvml.h: the types, constants and
 * function signatures below are declared from NVML's documented ABI, and only
 * those gpuwatch calls. Two parties read this file:
 *
 *   - the binding (binding.c) dlopens libnvidia-ml.so.1 and looks every
 *     function of GW_NVML_FUNCS up by name, newest versioned symbol first;
 *   - the simulator (src/sim/, libgpuwatch-sim.so) exports the same symbols
 *     with exactly these signatures, so real and simulated GPUs run through
 *     one code path.
 *
 * Adding a function: one X() line here; the binding picks it up, the
 * simulator implements it (or leaves it out to be "function not found").
 * Layouts that have versions carry the version in the name (_v1/_v2) and
 * a GW_NVML_STRUCT_VERSION() helper where NVML wants size|version<<24.
 */
#ifndef GW_NVML_API_H
#define GW_NVML_API_H

#include <stdint.h>

/* ---- return codes (nvmlReturn_t) ---------------------------------------- */
typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_ALREADY_INITIALIZED 5
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_INSUFFICIENT_POWER 8
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_IRQ_ISSUE 11
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_CORRUPTED_INFOROM 14
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_RESET_REQUIRED 16
#define NVML_ERROR_OPERATING_SYSTEM 17
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_MEMORY 20
#define NVML_ERROR_NO_DATA 21
#define NVML_ERROR_VGPU_ECC_NOT_SUPPORTED 22
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_FREQ_NOT_SUPPORTED 24
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_DEPRECATED 26
#define NVML_ERROR_NOT_READY 27
#define NVML_ERROR_GPU_NOT_FOUND 28
#define NVML_ERROR_INVALID_STATE 29
#define NVML_ERROR_UNKNOWN 999

/* ---- handles and small enums -------------------------------------------- */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

typedef int nvmlEnableState_t; /* NVML_FEATURE_DISABLED 0, ENABLED 1 */
#define NVML_FEATURE_DISABLED 0
#define NVML_FEATURE_ENABLED 1

typedef int nvmlPstates_t; /* 0..15 = P0..P15 */
#define NVML_PSTATE_UNKNOWN 32

typedef int nvmlComputeMode_t;
#define NVML_COMPUTEMODE_DEFAULT 0
#define NVML_COMPUTEMODE_EXCLUSIVE_THREAD 1
#define NVML_COMPUTEMODE_PROHIBITED 2
#define NVML_COMPUTEMODE_EXCLUSIVE_PROCESS 3

typedef int nvmlGpuOperationMode_t; /* ALL_ON 0, COMPUTE 1, LOW_DP 2 */

typedef int nvmlTemperatureSensors_t;
#define NVML_TEMPERATURE_GPU 0

typedef int nvmlTemperatureThresholds_t;
#define NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0
#define NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1
#define NVML_TEMPERATURE_THRESHOLD_MEM_MAX 2
#define NVML_TEMPERATURE_THRESHOLD_GPU_MAX 3
#define NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN 4
#define NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR 5
#define NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX 6
#define NVML_TEMPERATURE_THRESHOLD_GPS_CURR 7

typedef int nvmlClockType_t;
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_CLOCK_VIDEO 3

typedef int nvmlClockId_t;
#define NVML_CLOCK_ID_CURRENT 0
#define NVML_CLOCK_ID_APP_CLOCK_TARGET 1
#define NVML_CLOCK_ID_APP_CLOCK_DEFAULT 2
#define NVML_CLOCK_ID_CUSTOMER_BOOST_MAX 3

typedef int nvmlPcieUtilCounter_t;
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1

typedef int nvmlMemoryErrorType_t;
#define NVML_MEMORY_ERROR_TYPE_CORRECTED 0
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1

typedef int nvmlEccCounterType_t;
#define NVML_VOLATILE_ECC 0
#define NVML_AGGREGATE_ECC 1

typedef int nvmlMemoryLocation_t;
#define NVML_MEMORY_LOCATION_L1_CACHE 0
#define NVML_MEMORY_LOCATION_L2_CACHE 1
#define NVML_MEMORY_LOCATION_DRAM 2 /* also DEVICE_MEMORY */
#define NVML_MEMORY_LOCATION_DEVICE_MEMORY 2
#define NVML_MEMORY_LOCATION_REGISTER_FILE 3
#define NVML_MEMORY_LOCATION_TEXTURE_MEMORY 4
#define NVML_MEMORY_LOCATION_TEXTURE_SHM 5
#define NVML_MEMORY_LOCATION_CBU 6
#define NVML_MEMORY_LOCATION_SRAM 7

typedef int nvmlPageRetirementCause_t;
#define NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS 0
#define NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR 1

typedef int nvmlSamplingType_t;
#define NVML_TOTAL_POWER_SAMPLES 0
#define NVML_GPU_UTILIZATION_SAMPLES 1
#define NVML_MEMORY_UTILIZATION_SAMPLES 2
#define NVML_ENC_UTILIZATION_SAMPLES 3
#define NVML_DEC_UTILIZATION_SAMPLES 4
#define NVML_PROCESSOR_CLK_SAMPLES 5
#define NVML_MEMORY_CLK_SAMPLES 6
#define NVML_MODULE_POWER_SAMPLES 7
#define NVML_JPG_UTILIZATION_SAMPLES 8
#define NVML_OFA_UTILIZATION_SAMPLES 9

typedef int nvmlValueType_t;
#define NVML_VALUE_TYPE_DOUBLE 0
#define NVML_VALUE_TYPE_UNSIGNED_INT 1
#define NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define NVML_VALUE_TYPE_SIGNED_INT 5
#define NVML_VALUE_TYPE_UNSIGNED_SHORT 6

typedef int nvmlPerfPolicyType_t;
#define NVML_PERF_POLICY_POWER 0
#define NVML_PERF_POLICY_THERMAL 1
#define NVML_PERF_POLICY_SYNC_BOOST 2
#define NVML_PERF_POLICY_BOARD_LIMIT 3
#define NVML_PERF_POLICY_LOW_UTILIZATION 4
#define NVML_PERF_POLICY_RELIABILITY 5
#define NVML_PERF_POLICY_TOTAL_APP_CLOCKS 10
#define NVML_PERF_POLICY_TOTAL_BASE_CLOCKS 11

typedef int nvmlInforomObject_t;
#define NVML_INFOROM_OEM 0
#define NVML_INFOROM_ECC 1
#define NVML_INFOROM_POWER 2

typedef int nvmlDeviceArchitecture_t; /* unsigned int in NVML; same size */
#define NVML_DEVICE_ARCH_KEPLER 2
#define NVML_DEVICE_ARCH_MAXWELL 3
#define NVML_DEVICE_ARCH_PASCAL 4
#define NVML_DEVICE_ARCH_VOLTA 5
#define NVML_DEVICE_ARCH_TURING 6
#define NVML_DEVICE_ARCH_AMPERE 7
#define NVML_DEVICE_ARCH_ADA 8
#define NVML_DEVICE_ARCH_HOPPER 9
#define NVML_DEVICE_ARCH_BLACKWELL 10

/* Clock event ("throttle") reasons, a bit mask. */
#define nvmlClocksEventReasonGpuIdle 0x1ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x2ULL
#define nvmlClocksEventReasonSwPowerCap 0x4ULL
#define nvmlClocksThrottleReasonHwSlowdown 0x8ULL
#define nvmlClocksEventReasonSyncBoost 0x10ULL
#define nvmlClocksEventReasonSwThermalSlowdown 0x20ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x40ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x80ULL
#define nvmlClocksEventReasonDisplayClockSetting 0x100ULL

/* Event types for nvmlDeviceRegisterEvents. */
#define nvmlEventTypeSingleBitEccError 0x1ULL
#define nvmlEventTypeDoubleBitEccError 0x2ULL
#define nvmlEventTypePState 0x4ULL
#define nvmlEventTypeXidCriticalError 0x8ULL
#define nvmlEventTypeClock 0x10ULL

/* Field ids for nvmlDeviceGetFieldValues. */
#define NVML_FI_DEV_PERF_POLICY_POWER 74
#define NVML_FI_DEV_PERF_POLICY_THERMAL 75
#define NVML_FI_DEV_PERF_POLICY_SYNC_BOOST 76
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
#define NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX 140
#define NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX 141
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90 /* MBps of every active link (older drivers) */
#define NVML_FI_DEV_NVLINK_GET_SPEED 164 /* MBps of the link in scopeId */
#define NVML_FI_DEV_POWER_AVERAGE 185
#define NVML_FI_DEV_POWER_INSTANT 186
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP NVML_FI_DEV_PERF_POLICY_POWER
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST NVML_FI_DEV_PERF_POLICY_SYNC_BOOST
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN 251
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 252
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 253
#define NVML_FI_MAX 512

/* GPM metric ids (nvmlGpmMetricId_t). */
#define NVML_GPM_METRIC_GRAPHICS_UTIL 1
#define NVML_GPM_METRIC_SM_UTIL 2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
#define NVML_GPM_METRIC_INTEGER_UTIL 4
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5
#define NVML_GPM_METRIC_DFMA_TENSOR_UTIL 6
#define NVML_GPM_METRIC_HMMA_TENSOR_UTIL 7
#define NVML_GPM_METRIC_IMMA_TENSOR_UTIL 9
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10
#define NVML_GPM_METRIC_FP64_UTIL 11
#define NVML_GPM_METRIC_FP32_UTIL 12
#define NVML_GPM_METRIC_FP16_UTIL 13
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21
#define NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC 60
#define NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC 61
/* Header versions disagree (98, 210, 333): allocate for the largest. */
#define GW_NVML_GPM_METRIC_MAX 333
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION 1

/* Topology and NVLink. */
typedef int nvmlGpuTopologyLevel_t;
/* nvmlDeviceGetNvLinkErrorCounter: one link's data-link-layer error counters */
typedef int nvmlNvLinkErrorCounter_t;
#define NVML_NVLINK_ERROR_DL_REPLAY 0
#define NVML_NVLINK_ERROR_DL_RECOVERY 1
#define NVML_NVLINK_ERROR_DL_CRC_FLIT 2
#define NVML_NVLINK_ERROR_DL_CRC_DATA 3
/* nvmlDeviceGetP2PStatus: what a GPU-to-GPU path supports */
typedef int nvmlGpuP2PCapsIndex_t;
#define NVML_P2P_CAPS_INDEX_READ 0
#define NVML_P2P_CAPS_INDEX_WRITE 1
#define NVML_P2P_CAPS_INDEX_NVLINK 2
#define NVML_P2P_CAPS_INDEX_ATOMICS 3
#define NVML_P2P_CAPS_INDEX_PCI 4
typedef int nvmlGpuP2PStatus_t;
#define NVML_P2P_STATUS_OK 0
#define NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED 1
#define NVML_P2P_STATUS_GPU_NOT_SUPPORTED 2
#define NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED 3
#define NVML_P2P_STATUS_DISABLED_BY_REGKEY 4
#define NVML_P2P_STATUS_NOT_SUPPORTED 5
#define NVML_P2P_STATUS_UNKNOWN 6
#define NVML_TOPOLOGY_INTERNAL 0   /* the same board */
#define NVML_TOPOLOGY_SINGLE 10    /* one PCIe switch between them */
#define NVML_TOPOLOGY_MULTIPLE 20  /* several PCIe switches, no host bridge */
#define NVML_TOPOLOGY_HOSTBRIDGE 30
#define NVML_TOPOLOGY_NODE 40      /* host bridges within one NUMA node */
#define NVML_TOPOLOGY_SYSTEM 50    /* across NUMA nodes (QPI/UPI) */
typedef int nvmlAffinityScope_t;
#define NVML_AFFINITY_SCOPE_NODE 0
#define NVML_AFFINITY_SCOPE_SOCKET 1
typedef int nvmlIntNvLinkDeviceType_t;
#define NVML_NVLINK_DEVICE_TYPE_GPU 0x00
#define NVML_NVLINK_DEVICE_TYPE_IBMNPU 0x01
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 0x02
#define NVML_NVLINK_DEVICE_TYPE_UNKNOWN 0xFF
#define NVML_NVLINK_MAX_LINKS 18

/* ---- structures ---------------------------------------------------------- */
#define GW_NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((ver) << 24U)))

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE 80

typedef struct {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;    /* device id << 16 | vendor id */
	unsigned int pciSubSystemId; /* subsystem id << 16 | subvendor */
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

/* nvmlDeviceGetMemoryInfo (v1): "used" includes reserved memory. */
typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2: version must be nvmlMemory_v2 (0x02000028). */
typedef struct {
	unsigned int version;
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 GW_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2)

typedef struct {
	unsigned long long bar1Total;
	unsigned long long bar1Free;
	unsigned long long bar1Used;
} nvmlBAR1Memory_t;

typedef struct {
	unsigned int gpu;    /* % of the sample period a kernel ran */
	unsigned int memory; /* % of the period device memory was read/written */
} nvmlUtilization_t;

/* Records of nvmlDeviceGet{Compute,Graphics}RunningProcesses (v1 symbol). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* bytes */
} nvmlProcessInfo_v1_t;

/* Records of the _v2 and _v3 symbols: 24 bytes. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;     /* 0xFFFFFFFF without MIG */
	unsigned int computeInstanceId; /* 0xFFFFFFFF without MIG */
} nvmlProcessInfo_t;
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL
#define NVML_VALUE_NOT_AVAILABLE_UINT 0xFFFFFFFFU

typedef struct {
	unsigned int pid;
	unsigned long long timeStamp; /* us since epoch */
	unsigned int smUtil;
	unsigned int memUtil;
	unsigned int encUtil;
	unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef union {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
} nvmlValue_t;

typedef struct {
	unsigned long long timeStamp; /* us since epoch */
	nvmlValue_t sampleValue;
} nvmlSample_t;

typedef struct {
	unsigned int fieldId;
	unsigned int scopeId; /* e.g. NVLink index; 0 otherwise */
	long long timestamp;  /* us since epoch */
	long long latencyUsec;
	nvmlValueType_t valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct {
	unsigned long long referenceTime; /* us since epoch */
	unsigned long long violationTime; /* ns of violation */
} nvmlViolationTime_t;

typedef struct {
	unsigned int max;
	unsigned int high;
	unsigned int partial;
	unsigned int low;
	unsigned int none;
} nvmlRowRemapperHistogramValues_t;

/* nvmlDeviceGetAccountingStats: one process's life on a GPU. */
typedef struct {
	unsigned int gpuUtilization;      /* % of the time a kernel of the process ran */
	unsigned int memoryUtilization;   /* % of the time memory was read/written */
	unsigned long long maxMemoryUsage; /* bytes */
	unsigned long long time;           /* ms the context lived; 0 while it runs */
	unsigned long long startTime;      /* us since epoch */
	unsigned int isRunning;
	unsigned int reserved[5];
} nvmlAccountingStats_t;

typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData; /* the XID for XID events */
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct {
	unsigned int version; /* NVML_GPM_SUPPORT_VERSION */
	unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

typedef struct {
	unsigned int metricId;
	nvmlReturn_t nvmlReturn;
	double value;
	struct {
		char *shortName;
		char *longName;
		char *unit;
	} metricInfo;
} nvmlGpmMetric_t;

typedef struct {
	unsigned int version; /* NVML_GPM_METRICS_GET_VERSION */
	unsigned int numMetrics;
	nvmlGpmSample_t sample1;
	nvmlGpmSample_t sample2;
	nvmlGpmMetric_t metrics[GW_NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;

/* ---- what `smi -q` reads beyond the monitoring calls -------------------- */
typedef int nvmlBrandType_t;
#define NVML_BRAND_UNKNOWN 0
#define NVML_BRAND_QUADRO 1
#define NVML_BRAND_TESLA 2
#define NVML_BRAND_NVS 3
#define NVML_BRAND_GRID 4
#define NVML_BRAND_GEFORCE 5
#define NVML_BRAND_TITAN 6
#define NVML_BRAND_NVIDIA_VAPPS 7
#define NVML_BRAND_NVIDIA_VPC 8
#define NVML_BRAND_NVIDIA_VCS 9
#define NVML_BRAND_NVIDIA_VWS 10
#define NVML_BRAND_NVIDIA_CLOUD_GAMING 11
#define NVML_BRAND_QUADRO_RTX 12
#define NVML_BRAND_NVIDIA_RTX 13
#define NVML_BRAND_NVIDIA 14
#define NVML_BRAND_GEFORCE_RTX 15
#define NVML_BRAND_TITAN_RTX 16

typedef int nvmlGpuVirtualizationMode_t;
#define NVML_GPU_VIRTUALIZATION_MODE_NONE 0
#define NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH 1
#define NVML_GPU_VIRTUALIZATION_MODE_VGPU 2
#define NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU 3
#define NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA 4

/* vGPU software licensing (nvmlDeviceGetGridLicensableFeatures_v4's layout) */
#define NVML_GRID_LICENSE_BUFFER_SIZE 128
#define NVML_GRID_LICENSE_FEATURE_MAX_COUNT 3
#define NVML_GRID_LICENSE_FEATURE_CODE_UNKNOWN 0
#define NVML_GRID_LICENSE_FEATURE_CODE_VGPU 1
typedef int nvmlGridLicenseFeatureCode_t;
typedef struct {
	unsigned int year;
	unsigned short month, day, hour, min, sec;
	unsigned char status;
} nvmlGridLicenseExpiry_t;
typedef struct {
	nvmlGridLicenseFeatureCode_t featureCode;
	unsigned int featureState; /* non-zero: licensed now */
	char licenseInfo[NVML_GRID_LICENSE_BUFFER_SIZE];
	char productName[NVML_GRID_LICENSE_BUFFER_SIZE];
	unsigned int featureEnabled;
	nvmlGridLicenseExpiry_t licenseExpiry;
} nvmlGridLicensableFeature_t;
typedef struct {
	int isGridLicenseSupported; /* non-zero on a vGPU guest */
	unsigned int licensableFeaturesCount;
	nvmlGridLicensableFeature_t gridLicensableFeatures[NVML_GRID_LICENSE_FEATURE_MAX_COUNT];
} nvmlGridLicensableFeatures_t;

#define NVML_DEVICE_ADDRESSING_MODE_NONE 0
#define NVML_DEVICE_ADDRESSING_MODE_HMM 1
#define NVML_DEVICE_ADDRESSING_MODE_ATS 2
typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlDeviceAddressingMode_t, 1) */
	unsigned int value;   /* NVML_DEVICE_ADDRESSING_MODE_* */
} nvmlDeviceAddressingMode_t;

typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlPdi_t, 1) */
	unsigned long long value; /* per-device identifier, stable across boots */
} nvmlPdi_t;

typedef struct {
	unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;

typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlPciInfoExt_t, 1) */
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	unsigned int baseClass; /* 0x3: display controller */
	unsigned int subClass;  /* 0x0: VGA, 0x2: 3D */
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfoExt_t;

typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlMarginTemperature_t, 1) */
	int marginTemperature; /* C below the slowdown point ("T.Limit") */
} nvmlMarginTemperature_t;

typedef struct {
	unsigned int sessionsCount;
	unsigned int averageFPS;
	unsigned int averageLatency; /* us */
} nvmlFBCStats_t;

typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlEccSramErrorStatus_t, 1) */
	unsigned long long aggregateUncParity;
	unsigned long long aggregateUncSecDed;
	unsigned long long aggregateCor;
	unsigned long long volatileUncParity;
	unsigned long long volatileUncSecDed;
	unsigned long long volatileCor;
	unsigned long long aggregateUncBucketL2;
	unsigned long long aggregateUncBucketSm;
	unsigned long long aggregateUncBucketPcie;
	unsigned long long aggregateUncBucketMcu;
	unsigned long long aggregateUncBucketOther;
	unsigned int bThresholdExceeded;
} nvmlEccSramErrorStatus_t;

typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlRepairStatus_t, 1) */
	unsigned int bChannelRepairPending;
	unsigned int bTpcRepairPending;
} nvmlRepairStatus_t;

#define NVML_GPU_FABRIC_UUID_LEN 16
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define NVML_GPU_FABRIC_STATE_COMPLETED 3
typedef struct {
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status; /* of the registration, once COMPLETED */
	unsigned int cliqueId;
	unsigned char state; /* NVML_GPU_FABRIC_STATE_* */
} nvmlGpuFabricInfo_t;

#define NVML_DEV_CAP_EGM 0x1U /* extended GPU memory */
typedef struct {
	unsigned int version; /* GW_NVML_STRUCT_VERSION(nvmlDeviceCapabilities_t, 1) */
	unsigned int capMask;
} nvmlDeviceCapabilities_t;

/* MIG. A MIG device handle stands for one compute instance of one GPU
 * instance; it answers identity, memory and the attributes below, and its
 * parent handle answers the rest. */
#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1
typedef struct {
	unsigned int multiprocessorCount;
	unsigned int sharedCopyEngineCount; /* shared by the compute instances of a GPU instance */
	unsigned int sharedDecoderCount;
	unsigned int sharedEncoderCount;
	unsigned int sharedJpegCount;
	unsigned int sharedOfaCount;
	unsigned int gpuInstanceSliceCount;
	unsigned int computeInstanceSliceCount;
	unsigned long long memorySizeMB; /* MiB, despite the name */
} nvmlDeviceAttributes_t;

/* GPU-instance profile ids (nvmlDeviceGetGpuInstanceProfileInfoV). */
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE 0
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE 1
#define NVML_GPU_INSTANCE_PROFILE_3_SLICE 2
#define NVML_GPU_INSTANCE_PROFILE_4_SLICE 3
#define NVML_GPU_INSTANCE_PROFILE_7_SLICE 4
#define NVML_GPU_INSTANCE_PROFILE_8_SLICE 5
#define NVML_GPU_INSTANCE_PROFILE_6_SLICE 6
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 7 /* 1g with the media engines */
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1 8
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 9 /* 1g with twice the memory */
#define NVML_GPU_INSTANCE_PROFILE_COUNT 10
typedef struct {
	unsigned int version; /* nvmlGpuInstanceProfileInfo_v2 */
	unsigned int id;
	unsigned int isP2pSupported;
	unsigned int sliceCount;
	unsigned int instanceCount;
	unsigned int multiprocessorCount;
	unsigned int copyEngineCount;
	unsigned int decoderCount;
	unsigned int encoderCount;
	unsigned int jpegCount;
	unsigned int ofaCount;
	unsigned long long memorySizeMB;
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE]; /* "MIG 3g.40gb" */
} nvmlGpuInstanceProfileInfo_v2_t;
#define nvmlGpuInstanceProfileInfo_v2 GW_NVML_STRUCT_VERSION(nvmlGpuInstanceProfileInfo_v2_t, 2)

#define NVML_GSP_FIRMWARE_VERSION_BUF_SIZE 0x40

/* Power scopes: the scopeId of NVML_FI_DEV_POWER_* field values. */
#define NVML_POWER_SCOPE_GPU 0
#define NVML_POWER_SCOPE_MODULE 1
#define NVML_POWER_SCOPE_MEMORY 2

/* Temperature thresholds relative to T.Limit (signed, C), and the PCIe
 * atomic operations the link supports (a mask). */
#define NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT 192
#define NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT 193
#define NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT 194
#define NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT 195
#define NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK 228
#define NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK 229

/* ---- the functions ------------------------------------------------------- *
 * X(need, name, params, fallback)
 *   need:     REQ (the library is not NVML without it) or OPT
 *   name:     newest symbol, also the binding's member name
 *   params:   parenthesised parameter list
 *   fallback: older symbol with the same signature, or NULL
 */
#define GW_NVML_FUNCS(X)                                                                                    \
	/* library and system */                                                                            \
	X(REQ, nvmlInit_v2, (void), "nvmlInit")                                                             \
	X(REQ, nvmlShutdown, (void), NULL)                                                                  \
	X(OPT, nvmlSystemGetDriverVersion, (char *version, unsigned int length), NULL)                     \
	X(OPT, nvmlSystemGetNVMLVersion, (char *version, unsigned int length), NULL)                       \
	X(OPT, nvmlSystemGetCudaDriverVersion_v2, (int *cudaDriverVersion), "nvmlSystemGetCudaDriverVersion") \
	X(OPT, nvmlSystemGetProcessName, (unsigned int pid, char *name, unsigned int length), NULL)         \
	X(REQ, nvmlDeviceGetCount_v2, (unsigned int *deviceCount), "nvmlDeviceGetCount")                    \
	X(REQ, nvmlDeviceGetHandleByIndex_v2, (unsigned int index, nvmlDevice_t *device),                    \
	  "nvmlDeviceGetHandleByIndex")                                                                     \
	X(OPT, nvmlDeviceGetHandleByUUID, (const char *uuid, nvmlDevice_t *device), NULL)                   \
	X(OPT, nvmlDeviceGetHandleByPciBusId_v2, (const char *pciBusId, nvmlDevice_t *device),               \
	  "nvmlDeviceGetHandleByPciBusId")                                                                  \
	/* identity */                                                                                      \
	X(OPT, nvmlDeviceGetName, (nvmlDevice_t d, char *name, unsigned int length), NULL)                  \
	X(OPT, nvmlDeviceGetSerial, (nvmlDevice_t d, char *serial, unsigned int length), NULL)              \
	X(OPT, nvmlDeviceGetUUID, (nvmlDevice_t d, char *uuid, unsigned int length), NULL)                  \
	X(OPT, nvmlDeviceGetIndex, (nvmlDevice_t d, unsigned int *index), NULL)                             \
	X(OPT, nvmlDeviceGetMinorNumber, (nvmlDevice_t d, unsigned int *minor), NULL)                       \
	X(OPT, nvmlDeviceGetPciInfo_v3, (nvmlDevice_t d, nvmlPciInfo_t *pci), "nvmlDeviceGetPciInfo_v2")    \
	X(OPT, nvmlDeviceGetBoardPartNumber, (nvmlDevice_t d, char *part, unsigned int length), NULL)       \
	X(OPT, nvmlDeviceGetVbiosVersion, (nvmlDevice_t d, char *version, unsigned int length), NULL)       \
	X(OPT, nvmlDeviceGetInforomImageVersion, (nvmlDevice_t d, char *version, unsigned int length), NULL) \
	X(OPT, nvmlDeviceGetInforomVersion,                                                                 \
	  (nvmlDevice_t d, nvmlInforomObject_t object, char *version, unsigned int length), NULL)           \
	X(OPT, nvmlDeviceValidateInforom, (nvmlDevice_t d), NULL)                                           \
	X(OPT, nvmlDeviceGetArchitecture, (nvmlDevice_t d, nvmlDeviceArchitecture_t *arch), NULL)           \
	X(OPT, nvmlDeviceGetCudaComputeCapability, (nvmlDevice_t d, int *major, int *minor), NULL)          \
	/* PCIe */                                                                                          \
	X(OPT, nvmlDeviceGetCurrPcieLinkGeneration, (nvmlDevice_t d, unsigned int *gen), NULL)              \
	X(OPT, nvmlDeviceGetMaxPcieLinkGeneration, (nvmlDevice_t d, unsigned int *gen), NULL)               \
	X(OPT, nvmlDeviceGetGpuMaxPcieLinkGeneration, (nvmlDevice_t d, unsigned int *gen), NULL)            \
	X(OPT, nvmlDeviceGetCurrPcieLinkWidth, (nvmlDevice_t d, unsigned int *width), NULL)                 \
	X(OPT, nvmlDeviceGetMaxPcieLinkWidth, (nvmlDevice_t d, unsigned int *width), NULL)                  \
	X(OPT, nvmlDeviceGetPcieThroughput, (nvmlDevice_t d, nvmlPcieUtilCounter_t counter, unsigned int *kbps), NULL) \
	X(OPT, nvmlDeviceGetPcieReplayCounter, (nvmlDevice_t d, unsigned int *value), NULL)                 \
	/* modes */                                                                                         \
	X(OPT, nvmlDeviceGetDisplayMode, (nvmlDevice_t d, nvmlEnableState_t *mode), NULL)                   \
	X(OPT, nvmlDeviceGetDisplayActive, (nvmlDevice_t d, nvmlEnableState_t *active), NULL)               \
	X(OPT, nvmlDeviceGetPersistenceMode, (nvmlDevice_t d, nvmlEnableState_t *mode), NULL)               \
	X(OPT, nvmlDeviceGetAccountingMode, (nvmlDevice_t d, nvmlEnableState_t *mode), NULL)                \
	X(OPT, nvmlDeviceGetAccountingBufferSize, (nvmlDevice_t d, unsigned int *size), NULL)               \
	X(OPT, nvmlDeviceGetComputeMode, (nvmlDevice_t d, nvmlComputeMode_t *mode), NULL)                   \
	X(OPT, nvmlDeviceGetGpuOperationMode,                                                               \
	  (nvmlDevice_t d, nvmlGpuOperationMode_t *current, nvmlGpuOperationMode_t *pending), NULL)         \
	X(OPT, nvmlDeviceGetEccMode, (nvmlDevice_t d, nvmlEnableState_t *current, nvmlEnableState_t *pending), NULL) \
	X(OPT, nvmlDeviceGetMigMode, (nvmlDevice_t d, unsigned int *current, unsigned int *pending), NULL)  \
	X(OPT, nvmlDeviceGetGspFirmwareMode, (nvmlDevice_t d, unsigned int *enabled, unsigned int *defaultMode), NULL) \
	/* MIG devices (a MIG handle answers identity, memory and attributes) */                            \
	X(OPT, nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t d, unsigned int *count), NULL)                  \
	X(OPT, nvmlDeviceGetMigDeviceHandleByIndex, (nvmlDevice_t d, unsigned int index, nvmlDevice_t *migDevice), \
	  NULL)                                                                                             \
	X(OPT, nvmlDeviceIsMigDeviceHandle, (nvmlDevice_t d, unsigned int *isMigDevice), NULL)              \
	X(OPT, nvmlDeviceGetDeviceHandleFromMigDeviceHandle, (nvmlDevice_t migDevice, nvmlDevice_t *device), \
	  NULL)                                                                                             \
	X(OPT, nvmlDeviceGetGpuInstanceId, (nvmlDevice_t d, unsigned int *id), NULL)                        \
	X(OPT, nvmlDeviceGetComputeInstanceId, (nvmlDevice_t d, unsigned int *id), NULL)                    \
	X(OPT, nvmlDeviceGetAttributes_v2, (nvmlDevice_t d, nvmlDeviceAttributes_t *attributes),             \
	  "nvmlDeviceGetAttributes")                                                                        \
	X(OPT, nvmlDeviceGetGpuInstanceProfileInfoV,                                                        \
	  (nvmlDevice_t d, unsigned int profile, nvmlGpuInstanceProfileInfo_v2_t *info), NULL)              \
	/* fan, performance state, clock events */                                                         \
	X(OPT, nvmlDeviceGetFanSpeed, (nvmlDevice_t d, unsigned int *speed), NULL)                          \
	X(OPT, nvmlDeviceGetNumFans, (nvmlDevice_t d, unsigned int *numFans), NULL)                         \
	X(OPT, nvmlDeviceGetFanSpeed_v2, (nvmlDevice_t d, unsigned int fan, unsigned int *speed), NULL)     \
	X(OPT, nvmlDeviceGetPerformanceState, (nvmlDevice_t d, nvmlPstates_t *pState), NULL)                \
	X(OPT, nvmlDeviceGetCurrentClocksEventReasons, (nvmlDevice_t d, unsigned long long *reasons),       \
	  "nvmlDeviceGetCurrentClocksThrottleReasons")                                                      \
	X(OPT, nvmlDeviceGetSupportedClocksEventReasons, (nvmlDevice_t d, unsigned long long *reasons),     \
	  "nvmlDeviceGetSupportedClocksThrottleReasons")                                                    \
	X(OPT, nvmlDeviceGetViolationStatus,                                                                \
	  (nvmlDevice_t d, nvmlPerfPolicyType_t policy, nvmlViolationTime_t *time), NULL)                   \
	/* memory */                                                                                        \
	X(OPT, nvmlDeviceGetMemoryInfo_v2, (nvmlDevice_t d, nvmlMemory_v2_t *memory), NULL)                 \
	X(OPT, nvmlDeviceGetMemoryInfo, (nvmlDevice_t d, nvmlMemory_t *memory), NULL)                       \
	X(OPT, nvmlDeviceGetBAR1MemoryInfo, (nvmlDevice_t d, nvmlBAR1Memory_t *bar1), NULL)                 \
	/* utilisation */                                                                                   \
	X(OPT, nvmlDeviceGetUtilizationRates, (nvmlDevice_t d, nvmlUtilization_t *util), NULL)              \
	X(OPT, nvmlDeviceGetEncoderUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs), NULL) \
	X(OPT, nvmlDeviceGetDecoderUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs), NULL) \
	X(OPT, nvmlDeviceGetJpgUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs), NULL) \
	X(OPT, nvmlDeviceGetOfaUtilization, (nvmlDevice_t d, unsigned int *util, unsigned int *periodUs), NULL) \
	X(OPT, nvmlDeviceGetEncoderStats,                                                                   \
	  (nvmlDevice_t d, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency), NULL) \
	X(OPT, nvmlDeviceGetSamples,                                                                        \
	  (nvmlDevice_t d, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp,                   \
	   nvmlValueType_t *sampleValType, unsigned int *sampleCount, nvmlSample_t *samples), NULL)         \
	X(OPT, nvmlDeviceGetProcessUtilization,                                                             \
	  (nvmlDevice_t d, nvmlProcessUtilizationSample_t *utilization, unsigned int *processSamplesCount,  \
	   unsigned long long lastSeenTimeStamp), NULL)                                                     \
	/* temperature */                                                                                   \
	X(OPT, nvmlDeviceGetTemperature, (nvmlDevice_t d, nvmlTemperatureSensors_t sensor, unsigned int *temp), NULL) \
	X(OPT, nvmlDeviceGetTemperatureThreshold,                                                           \
	  (nvmlDevice_t d, nvmlTemperatureThresholds_t type, unsigned int *temp), NULL)                     \
	/* power and energy */                                                                              \
	X(OPT, nvmlDeviceGetPowerManagementMode, (nvmlDevice_t d, nvmlEnableState_t *mode), NULL)           \
	X(OPT, nvmlDeviceGetPowerUsage, (nvmlDevice_t d, unsigned int *milliwatts), NULL)                   \
	X(OPT, nvmlDeviceGetPowerManagementLimit, (nvmlDevice_t d, unsigned int *milliwatts), NULL)         \
	X(OPT, nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t d, unsigned int *milliwatts), NULL)           \
	X(OPT, nvmlDeviceGetPowerManagementDefaultLimit, (nvmlDevice_t d, unsigned int *milliwatts), NULL)  \
	X(OPT, nvmlDeviceGetPowerManagementLimitConstraints,                                                \
	  (nvmlDevice_t d, unsigned int *minLimit, unsigned int *maxLimit), NULL)                           \
	X(OPT, nvmlDeviceGetTotalEnergyConsumption, (nvmlDevice_t d, unsigned long long *millijoules), NULL) \
	/* clocks */                                                                                        \
	X(OPT, nvmlDeviceGetClockInfo, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), NULL)     \
	X(OPT, nvmlDeviceGetMaxClockInfo, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), NULL)  \
	X(OPT, nvmlDeviceGetApplicationsClock, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), NULL) \
	X(OPT, nvmlDeviceGetDefaultApplicationsClock, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), NULL) \
	X(OPT, nvmlDeviceGetClock, (nvmlDevice_t d, nvmlClockType_t type, nvmlClockId_t id, unsigned int *mhz), NULL) \
	/* ECC, retired pages, row remapping */                                                             \
	X(OPT, nvmlDeviceGetTotalEccErrors,                                                                 \
	  (nvmlDevice_t d, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,               \
	   unsigned long long *eccCounts), NULL)                                                            \
	X(OPT, nvmlDeviceGetMemoryErrorCounter,                                                             \
	  (nvmlDevice_t d, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,               \
	   nvmlMemoryLocation_t locationType, unsigned long long *count), NULL)                             \
	X(OPT, nvmlDeviceGetRetiredPages,                                                                   \
	  (nvmlDevice_t d, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses), NULL) \
	X(OPT, nvmlDeviceGetRetiredPages_v2,                                                                \
	  (nvmlDevice_t d, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses, \
	   unsigned long long *timestamps), NULL)                                                           \
	X(OPT, nvmlDeviceGetRetiredPagesPendingStatus, (nvmlDevice_t d, nvmlEnableState_t *isPending), NULL) \
	X(OPT, nvmlDeviceGetRemappedRows,                                                                   \
	  (nvmlDevice_t d, unsigned int *corrRows, unsigned int *uncRows, unsigned int *isPending,          \
	   unsigned int *failureOccurred), NULL)                                                            \
	X(OPT, nvmlDeviceGetRowRemapperHistogram, (nvmlDevice_t d, nvmlRowRemapperHistogramValues_t *values), NULL) \
	/* processes */                                                                                     \
	X(OPT, nvmlDeviceGetComputeRunningProcesses_v3,                                                     \
	  (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos),                              \
	  "nvmlDeviceGetComputeRunningProcesses_v2")                                                        \
	X(OPT, nvmlDeviceGetComputeRunningProcesses,                                                        \
	  (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos), NULL)                     \
	X(OPT, nvmlDeviceGetGraphicsRunningProcesses_v3,                                                    \
	  (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos),                              \
	  "nvmlDeviceGetGraphicsRunningProcesses_v2")                                                       \
	X(OPT, nvmlDeviceGetGraphicsRunningProcesses,                                                       \
	  (nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos), NULL)                     \
	/* accounting (per-process statistics kept by the driver) */                                       \
	X(OPT, nvmlDeviceGetAccountingPids, (nvmlDevice_t d, unsigned int *count, unsigned int *pids), NULL) \
	X(OPT, nvmlDeviceGetAccountingStats, (nvmlDevice_t d, unsigned int pid, nvmlAccountingStats_t *stats), NULL) \
	/* topology, affinity and NVLink */                                                                 \
	X(OPT, nvmlDeviceGetTopologyCommonAncestor,                                                         \
	  (nvmlDevice_t d, nvmlDevice_t d2, nvmlGpuTopologyLevel_t *pathInfo), NULL)                        \
	X(OPT, nvmlDeviceGetP2PStatus,                                                                      \
	  (nvmlDevice_t d, nvmlDevice_t d2, nvmlGpuP2PCapsIndex_t index, nvmlGpuP2PStatus_t *status), NULL) \
	X(OPT, nvmlDeviceGetCpuAffinity, (nvmlDevice_t d, unsigned int cpuSetSize, unsigned long *cpuSet), NULL) \
	X(OPT, nvmlDeviceGetMemoryAffinity,                                                                 \
	  (nvmlDevice_t d, unsigned int nodeSetSize, unsigned long *nodeSet, nvmlAffinityScope_t scope), NULL) \
	X(OPT, nvmlDeviceGetNumaNodeId, (nvmlDevice_t d, unsigned int *node), NULL)                         \
	X(OPT, nvmlDeviceGetNvLinkState, (nvmlDevice_t d, unsigned int link, nvmlEnableState_t *isActive), NULL) \
	X(OPT, nvmlDeviceGetNvLinkErrorCounter,                                                             \
	  (nvmlDevice_t d, unsigned int link, nvmlNvLinkErrorCounter_t counter, unsigned long long *value), NULL) \
	X(OPT, nvmlDeviceGetNvLinkVersion, (nvmlDevice_t d, unsigned int link, unsigned int *version), NULL) \
	X(OPT, nvmlDeviceGetNvLinkRemotePciInfo_v2, (nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci), \
	  "nvmlDeviceGetNvLinkRemotePciInfo")                                                               \
	X(OPT, nvmlDeviceGetNvLinkRemoteDeviceType,                                                         \
	  (nvmlDevice_t d, unsigned int link, nvmlIntNvLinkDeviceType_t *type), NULL)                       \
	/* field values (NVLink, memory temperature, average/instant power) */                             \
	X(OPT, nvmlDeviceGetFieldValues, (nvmlDevice_t d, int valuesCount, nvmlFieldValue_t *values), NULL) \
	/* what `smi -q` reads beyond the monitoring calls */                                             \
	X(OPT, nvmlDeviceGetBrand, (nvmlDevice_t d, nvmlBrandType_t *type), NULL)                           \
	X(OPT, nvmlDeviceGetPdi, (nvmlDevice_t d, nvmlPdi_t *pdi), NULL)                                    \
	X(OPT, nvmlDeviceGetMultiGpuBoard, (nvmlDevice_t d, unsigned int *multiGpuBool), NULL)              \
	X(OPT, nvmlDeviceGetBoardId, (nvmlDevice_t d, unsigned int *boardId), NULL)                         \
	X(OPT, nvmlDeviceGetModuleId, (nvmlDevice_t d, unsigned int *moduleId), NULL)                       \
	X(OPT, nvmlDeviceGetAddressingMode, (nvmlDevice_t d, nvmlDeviceAddressingMode_t *mode), NULL)       \
	X(OPT, nvmlDeviceGetC2cModeInfoV, (nvmlDevice_t d, nvmlC2cModeInfo_v1_t *c2c), NULL)                \
	X(OPT, nvmlDeviceGetVirtualizationMode, (nvmlDevice_t d, nvmlGpuVirtualizationMode_t *mode), NULL)  \
	X(OPT, nvmlDeviceGetGridLicensableFeatures_v4, (nvmlDevice_t d, nvmlGridLicensableFeatures_t *f), NULL) \
	X(OPT, nvmlDeviceGetGspFirmwareVersion, (nvmlDevice_t d, char *version), NULL)                      \
	X(OPT, nvmlDeviceGetPciInfoExt, (nvmlDevice_t d, nvmlPciInfoExt_t *pci), NULL)                      \
	X(OPT, nvmlDeviceGetMarginTemperature, (nvmlDevice_t d, nvmlMarginTemperature_t *margin), NULL)     \
	X(OPT, nvmlDeviceGetConfComputeProtectedMemoryUsage, (nvmlDevice_t d, nvmlMemory_t *memory), NULL)  \
	X(OPT, nvmlDeviceGetFBCStats, (nvmlDevice_t d, nvmlFBCStats_t *fbcStats), NULL)                     \
	X(OPT, nvmlDeviceGetSramEccErrorStatus, (nvmlDevice_t d, nvmlEccSramErrorStatus_t *status), NULL)   \
	X(OPT, nvmlDeviceGetRepairStatus, (nvmlDevice_t d, nvmlRepairStatus_t *repairStatus), NULL)         \
	X(OPT, nvmlDeviceGetMaxCustomerBoostClock, (nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz), NULL) \
	X(OPT, nvmlDeviceGetGpuFabricInfo, (nvmlDevice_t d, nvmlGpuFabricInfo_t *info), NULL)               \
	X(OPT, nvmlDeviceGetCapabilities, (nvmlDevice_t d, nvmlDeviceCapabilities_t *caps), NULL)           \
	/* events (XID, ECC) */                                                                             \
	X(OPT, nvmlEventSetCreate, (nvmlEventSet_t *set), NULL)                                             \
	X(OPT, nvmlDeviceRegisterEvents, (nvmlDevice_t d, unsigned long long eventTypes, nvmlEventSet_t set), NULL) \
	X(OPT, nvmlDeviceGetSupportedEventTypes, (nvmlDevice_t d, unsigned long long *eventTypes), NULL)    \
	X(OPT, nvmlEventSetWait_v2, (nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms),     \
	  "nvmlEventSetWait")                                                                               \
	X(OPT, nvmlEventSetFree, (nvmlEventSet_t set), NULL)                                                \
	/* GPM (Hopper and newer) */                                                                        \
	X(OPT, nvmlGpmQueryDeviceSupport, (nvmlDevice_t d, nvmlGpmSupport_t *support), NULL)                \
	X(OPT, nvmlGpmSampleAlloc, (nvmlGpmSample_t *sample), NULL)                                         \
	X(OPT, nvmlGpmSampleFree, (nvmlGpmSample_t sample), NULL)                                           \
	X(OPT, nvmlGpmSampleGet, (nvmlDevice_t d, nvmlGpmSample_t sample), NULL)                            \
	X(OPT, nvmlGpmMetricsGet, (nvmlGpmMetricsGet_t *metricsGet), NULL)

/* Prototypes, so the simulator's definitions are checked against them. */
#define GW_NVML_PROTO(need, name, params, fallback) nvmlReturn_t name params;
GW_NVML_FUNCS(GW_NVML_PROTO)
#undef GW_NVML_PROTO
const char *nvmlErrorString(nvmlReturn_t result);

#endif
