/*
 * fields_tab_ident.c - rows for identity, PCI/PCIe, modes, inforom and GOM
 * (the first part of nvidia-smi's --help-query-gpu order), and the section
 * texts of --help-query-gpu.
 */
#include "fields/fields_rows.h"

const struct gw_field_section gw_field_sections[GW_SEC__COUNT] = {
	[GW_SEC_NONE] = {NULL, NULL},
	[GW_SEC_VGPU_DRIVER] = {"vgpu_driver_capability", "Capabilities the vGPU driver reports for the whole system."},
	[GW_SEC_VGPU_DEVICE] = {"vgpu_device_capability", "Capabilities the vGPU driver reports for each GPU."},
	[GW_SEC_DRIVER_MODEL] = {"driver_model",
				 "The Windows driver model (TCC, WDDM or MCDM). Linux has a single driver model, so "
				 "these fields are always not available there."},
	[GW_SEC_INFOROM] = {"inforom",
			    "Versions of the objects stored in the board's inforom, a small persistent store of "
			    "configuration and error data. Some features need a minimum object version."},
	[GW_SEC_GOM] = {"gom",
			"GPU Operation Mode: turns GPU features off to save power or favour throughput. \"All On\" "
			"runs everything, \"Compute\" allows compute work only, \"Low Double Precision\" limits "
			"FP64 for graphics use. Changed with --gom."},
	[GW_SEC_CLOCK_EVENTS] = {"clocks_event_reasons",
				 "Why the clocks are currently lowered. When every reason reads \"Not Active\" the "
				 "clocks run as fast as allowed. The older name clocks_throttle_reasons is accepted."},
	[GW_SEC_CLOCK_EVENT_COUNTERS] = {"clocks_event_reasons_counters",
					 "Accumulated time, in microseconds, that each reason has held the clocks "
					 "down since the driver loaded."},
	[GW_SEC_MEMORY] = {"memory",
			   "Device (framebuffer) memory. The total shrinks a little when ECC is enabled, and the "
			   "driver keeps part of it reserved even when nothing runs."},
	[GW_SEC_UTILIZATION] = {"utilization",
				"How busy the GPU's engines were over the last sample period (between 1/6 s and 1 s "
				"depending on the product). Not available per engine on MIG-enabled GPUs."},
	[GW_SEC_ENCODER_STATS] = {"encoder.stats", "Video encoder sessions running on the GPU."},
	[GW_SEC_DRAM_ENCRYPTION] = {"dramEncryption.mode",
				    "Whether device memory encryption is on (\"Enabled\"/\"Disabled\"). A change "
				    "takes effect after a reboot."},
	[GW_SEC_ECC_MODE] = {"ecc.mode",
			     "Whether ECC protection of memory is on (\"Enabled\"/\"Disabled\"). A change takes "
			     "effect after a reboot."},
	[GW_SEC_ECC_ERRORS] = {"ecc.errors",
			       "ECC error counts by kind and place. Corrected errors were fixed by the hardware; "
			       "uncorrected errors were detected but not fixed. Volatile counts restart at driver "
			       "load; aggregate counts persist for the life of the board."},
	[GW_SEC_RETIRED_PAGES] = {"retired_pages",
				  "Pages of device memory the driver stopped using because they produced repeated "
				  "single-bit or any double-bit ECC errors (older GPUs; newer ones remap rows)."},
	[GW_SEC_REMAPPED_ROWS] = {"remapped_rows",
				  "Memory rows replaced by spare rows after ECC errors. A pending remap needs a GPU "
				  "reset to complete."},
	[GW_SEC_REMAP_HISTOGRAM] = {"remapped_rows.histogram",
				    "Memory banks grouped by how many spare rows they have left."},
	[GW_SEC_CLOCKS_APP] = {"clocks.applications",
			       "Clocks requested for applications with --applications-clocks (deprecated in "
			       "current drivers)."},
	[GW_SEC_CLOCKS_DEFAULT_APP] = {"clocks.default_applications",
				       "Default application clocks, restored by --reset-applications-clocks "
				       "(deprecated in current drivers)."},
	[GW_SEC_CLOCKS_MAX] = {"clocks.max", "Highest clock each domain is designed to reach."},
	[GW_SEC_MIG_MODE] = {"mig.mode",
			     "Whether Multi-Instance GPU partitioning is on (\"Enabled\"/\"Disabled\"). A change "
			     "needs a GPU reset."},
	[GW_SEC_GSP_MODE] = {"gsp.mode", "Whether the GSP firmware runs the GPU (\"Enabled\"/\"Disabled\")."},
	[GW_SEC_PROTECTED_MEMORY] = {"protected_memory", "Device memory set aside for confidential computing."},
	[GW_SEC_PLATFORM] = {"platform", "Where the GPU sits in its chassis, as the platform reports it."},
};

static const char *const gom_names[] = {"All On", "Compute", "Low Double Precision"};
static const char *const valid_names[] = {"invalid", "valid"};
static const char *const recovery_names[] = {"None", "Reset", "Reboot", "Drain P2P", "Drain and Reset"};

const struct gw_field gw_fields_ident[] = {
	{F("timestamp"), FMT(TIMESTAMP), RD(timestamp, 0), CU(NS), DESC("Time of the query, local time, as \"YYYY/MM/DD HH:MM:SS.mmm\".")},
	{F("driver_version"), FMT(STR), RD(sysinfo, 0), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DRIVER_VERSION, 1),
	 PROM("driver_version", INFO, "Version of the NVIDIA driver."), DESC("Version string of the loaded NVIDIA driver.")},
	{F("vgpu_driver_capability.heterogenous_multivGPU"), FMT(YESNO), NOSRC(NULL), SEC(VGPU_DRIVER),
	 DESC("Whether the driver can run vGPUs of different types on one VM.")},
	{F("count"), FMT(UINT), RD(sysinfo, 1), CU(COUNT), DCGM(DCGM_FI_DEV_COUNT, 4),
	 PROM("gpuwatch_gpus", GAUGE, "Number of NVIDIA GPUs in the system."), DESC("Number of NVIDIA GPUs in the system.")},
	{F("name"), AKA("gpu_name"), FMT(STR), RD(ident, 0), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_NAME, 50),
	 PROM("name", INFO, "Product name of the GPU."), DESC("Product name of the GPU.")},
	{F("dcgm.brand"), FMT(STR), RD(brand, 0), FLAGS(GW_FL_NOSMI | GW_FL_STATIC), DCGM(DCGM_FI_DEV_BRAND, 51),
	 DESC("The board's brand as DCGM names it (\"NVIDIA\", \"GeForce RTX\", \"Tesla\", ...), for the counters file's label row.")},
	{F("vgpu.license_status"), FMT(UINT), RD(vgpu_license, 0), CU(COUNT), FLAGS(GW_FL_NOSMI | GW_FL_SLOW),
	 DCGM(DCGM_FI_DEV_VGPU_LICENSE_STATUS, 526),
	 DESC("1 while a vGPU guest holds its vGPU licence; 0 where licensing does not apply (bare metal, pass-through) or none is held.")},
	{F("serial"), AKA("gpu_serial"), FMT(STR), RD(ident, 1), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_SERIAL, 53),
	 PROM("serial", INFO, "Board serial number."), DESC("Serial number printed on the board; unique per board.")},
	{F("uuid"), AKA("gpu_uuid"), FMT(STR), RD(ident, 2), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_UUID, 54),
	 PROM("uuid", INFO, "Globally unique GPU identifier."), DESC("Globally unique identifier of the GPU (not printed on the board).")},
	{F("pci.bus_id"), AKA("gpu_bus_id"), FMT(STR), RD(ident, 5), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_PCI_BUSID, 57),
	 PROM("pci_bus_id", INFO, "PCI bus id of the GPU."), DESC("PCI address as domain:bus:device.function, in hex.")},
	{F("pci.domain"), HEX(4), RD(pci, 0), FLAGS(GW_FL_STATIC), DESC("PCI domain, in hex.")},
	{F("pci.bus"), HEX(2), RD(pci, 1), FLAGS(GW_FL_STATIC), DESC("PCI bus, in hex.")},
	{F("pci.device"), HEX(2), RD(pci, 2), FLAGS(GW_FL_STATIC), DESC("PCI device, in hex.")},
	/* nvmlDeviceGetPciInfoExt is not declared: the class codes of the capture (3D controller). */
	{F("pci.baseClass"), HEX(1), NOSRC("0x3"), FLAGS(GW_FL_STATIC), DESC("PCI base class code, in hex.")},
	{F("pci.subClass"), HEX(1), NOSRC("0x2"), FLAGS(GW_FL_STATIC), DESC("PCI sub-class code, in hex.")},
	{F("pci.device_id"), HEX(8), RD(pci, 3), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_PCI_COMBINED_ID, 58),
	 DESC("PCI device id and vendor id combined, in hex.")},
	{F("pci.sub_device_id"), HEX(8), RD(pci, 4), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_PCI_SUBSYS_ID, 59),
	 DESC("PCI subsystem id, in hex.")},
	{F("vgpu_device_capability.fractional_multiVgpu"), FMT(YESNO), NOSRC(NULL), SEC(VGPU_DEVICE),
	 DESC("Whether fractional vGPU profiles can be combined on one VM.")},
	{F("vgpu_device_capability.heterogeneous_timeSlice_profile"), FMT(YESNO), NOSRC(NULL), SEC(VGPU_DEVICE),
	 DESC("Whether time-sliced vGPUs of different profiles can run at once.")},
	{F("vgpu_device_capability.heterogeneous_timeSlice_sizes"), FMT(YESNO), NOSRC(NULL), SEC(VGPU_DEVICE),
	 DESC("Whether time-sliced vGPUs of different memory sizes can run at once.")},
	{F("vgpu_device_capability.homogeneous_placements"), FMT(YESNO), NOSRC(NULL), SEC(VGPU_DEVICE),
	 DESC("Whether placements of same-size time-sliced vGPUs are reported.")},
	{F("vgpu_device_capability.mig_timeSlicing"), FMT(YESNO), NOSRC(NULL), SEC(VGPU_DEVICE),
	 DESC("Whether time-sliced vGPUs can run on MIG instances.")},
	{F("vgpu_device_capability.mig_timeSlicing_mode"), FMT(ENABLED), NOSRC(NULL), SEC(VGPU_DEVICE),
	 DESC("Whether time-sliced vGPU on MIG is switched on.")},
	{F("pcie.link.gen.current"), FMT(UINT), RD(uint, GW_U_PCIE_GEN_CUR), CU(COUNT), DCGM(DCGM_FI_DEV_PCIE_LINK_GEN, 237),
	 PROM("gpuwatch_pcie_link_gen", GAUGE, "Current PCIe link generation."),
	 DESC("Current PCIe link generation; drops when idle. Same as pcie.link.gen.gpucurrent, kept for old scripts.")},
	{F("pcie.link.gen.gpucurrent"), FMT(UINT), RD(uint, GW_U_PCIE_GEN_CUR), CU(COUNT),
	 DESC("Current PCIe link generation; drops when idle.")},
	{F("pcie.link.gen.max"), FMT(UINT), RD(uint, GW_U_PCIE_GEN_MAX), CU(COUNT), FLAGS(GW_FL_STATIC),
	 DCGM(DCGM_FI_DEV_PCIE_MAX_LINK_GEN, 235), PROM("gpuwatch_pcie_link_gen_max", GAUGE, "Highest PCIe generation GPU and system allow."),
	 DESC("Highest PCIe generation this GPU can reach in this system (the lower of GPU and host).")},
	{F("pcie.link.gen.gpumax"), FMT(UINT), RD(uint, GW_U_PCIE_GEN_GPU_MAX), CU(COUNT), FLAGS(GW_FL_STATIC),
	 DESC("Highest PCIe generation the GPU itself supports.")},
	/* Needs the host root port's max speed; no declared NVML function gives it. */
	{F("pcie.link.gen.hostmax"), FMT(UINT), NOSRC(NULL), DESC("Highest PCIe generation of the host root port the GPU hangs off.")},
	{F("pcie.link.width.current"), FMT(UINT), RD(uint, GW_U_PCIE_WIDTH_CUR), CU(COUNT), DCGM(DCGM_FI_DEV_PCIE_LINK_WIDTH, 238),
	 PROM("gpuwatch_pcie_link_width", GAUGE, "Current PCIe link width in lanes."), DESC("Current PCIe link width in lanes; may drop when idle.")},
	{F("pcie.link.width.max"), FMT(UINT), RD(uint, GW_U_PCIE_WIDTH_MAX), CU(COUNT), FLAGS(GW_FL_STATIC),
	 DCGM(DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH, 236), PROM("gpuwatch_pcie_link_width_max", GAUGE, "Widest PCIe link possible in this system."),
	 DESC("Widest PCIe link possible for this GPU in this system.")},
	{F("index"), FMT(UINT), RD(sysinfo, 2), CU(COUNT), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_NVML_INDEX, 52),
	 DESC("Zero-based NVML index of the GPU; may change across reboots.")},
	{F("display_mode"), FMT(ENABLED), RD(deprecated, 0), DESC("Deprecated by NVIDIA; use display_attached.")},
	{F("display_attached"), FMT(YESNO), RD(uint, GW_U_DISPLAY_MODE), DESC("\"Yes\" when a monitor is connected to one of the GPU's outputs.")},
	{F("display_active"), FMT(ENABLED), RD(uint, GW_U_DISPLAY_ACTIVE),
	 DESC("\"Enabled\" when a display is initialised on the GPU, monitor or not.")},
	{F("persistence_mode"), FMT(ENABLED), RD(uint, GW_U_PERSISTENCE), CU(COUNT), DCGM(DCGM_FI_DEV_PERSISTENCE_MODE, 66),
	 PROM("gpuwatch_persistence_mode", GAUGE, "1 when persistence mode is enabled."),
	 DESC("\"Enabled\" when the driver stays loaded without clients, which avoids slow start-up of each CUDA program (Linux).")},
	/* nvmlDeviceGetAddressingMode is not declared: the capture's value. */
	{F("addressing_mode"), FMT(STR), NOSRC("None"),
	 DESC("How the GPU reaches system memory allocated with malloc/mmap: \"HMM\" (software page-table mirroring), \"ATS\" (shared page tables) or \"None\" (Linux).")},
	{F("accounting.mode"), FMT(ENABLED), RD(uint, GW_U_ACCOUNTING),
	 DESC("\"Enabled\" when per-process accounting statistics are being kept; see --help-query-accounted-apps.")},
	{F("accounting.buffer_size"), FMT(UINT), RD(uint, GW_U_ACCOUNTING_BUF), CU(COUNT),
	 DESC("How many processes the accounting ring buffer holds before the oldest are overwritten.")},
	{F("driver_model.current"), FMT(STR), NOSRC(NULL), SEC(DRIVER_MODEL), DESC("Driver model in use (Windows only).")},
	{F("driver_model.pending"), FMT(STR), NOSRC(NULL), SEC(DRIVER_MODEL), DESC("Driver model after the next reboot (Windows only).")},
	{F("vbios_version"), FMT(STR), RD(ident, 3), FLAGS(GW_FL_STATIC), DCGM(DCGM_FI_DEV_VBIOS_VERSION, 85),
	 PROM("vbios_version", INFO, "VBIOS version of the board."), DESC("Version of the board's VBIOS.")},
	{F("inforom.img"), AKA("inforom.image"), FMT(STR), RD(ident, 4), FLAGS(GW_FL_STATIC), SEC(INFOROM),
	 DCGM(DCGM_FI_DEV_INFOROM_IMAGE_VER, 82), DESC("Version of the whole inforom image; identifies exactly what was flashed.")},
	{F("inforom.oem"), FMT(STR), RD(inforom, NVML_INFOROM_OEM), FLAGS(GW_FL_STATIC), SEC(INFOROM),
	 DCGM(DCGM_FI_DEV_OEM_INFOROM_VER, 56), DESC("Version of the OEM configuration object.")},
	{F("inforom.ecc"), FMT(STR), RD(inforom, NVML_INFOROM_ECC), FLAGS(GW_FL_STATIC), SEC(INFOROM),
	 DCGM(DCGM_FI_DEV_ECC_INFOROM_VER, 80), DESC("Version of the ECC record object.")},
	{F("inforom.pwr"), AKA("inforom.power"), FMT(STR), RD(inforom, NVML_INFOROM_POWER), FLAGS(GW_FL_STATIC), SEC(INFOROM),
	 DCGM(DCGM_FI_DEV_POWER_INFOROM_VER, 81), DESC("Version of the power management object.")},
	{F("inforom.checksum_validation"), ENUM(valid_names), RD(inforom_valid, 0),
	 SEC(INFOROM), DCGM(DCGM_FI_DEV_INFOROM_CONFIG_VALID, 84), DESC("\"valid\" when the inforom's checksums verify.")},
	{F("gpu_recovery_action"), ENUM(recovery_names), RD(field_value, GW_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0),
	 PROM("gpuwatch_gpu_recovery_action", GAUGE, "Recovery the driver asks for: 0 none, 1 reset, 2 reboot, 3 drain P2P, 4 drain and reset."),
	 DESC("What the driver says is needed to bring the GPU back to a good state (None, Reset, Reboot, Drain P2P, Drain and Reset).")},
	{F("gom.current"), AKA("gpu_operation_mode.current"), ENUM(gom_names), RD(pair, GW_P_GOM, 0), SEC(GOM),
	 DESC("GPU operation mode in use.")},
	{F("gom.pending"), AKA("gpu_operation_mode.pending"), ENUM(gom_names), RD(pair, GW_P_GOM, 1), SEC(GOM),
	 DESC("GPU operation mode after the next reboot.")},
};
const size_t gw_fields_ident_n = sizeof(gw_fields_ident) / sizeof(gw_fields_ident[0]);
