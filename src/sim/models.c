/*
 * models.c - the boards the simulator knows, with the static values of real
 * cards.
 *
 * Sources: shared/reference/nvidia-smi-captures (H200, H100 80GB HBM3, L40S,
 * RTX 4080 SUPER, RTX 2080 SUPER: names, ids, VBIOS/InfoROM, limits, clocks,
 * idle/load power and temperatures) and NVIDIA's public A100 80GB SXM data
 * sheet for the A100. Thermal constants (ambient, C/W) are fitted to each
 * capture's idle and load rows so the simulated die lands where the real one
 * did. The throughput model's tokens a second (a training step at full
 * clocks) are those of an 8B-parameter model (6.1e10 FLOPs a token) at 45 %
 * MFU of the board's dense BF16 peak (FP16 on the RTX 2080 SUPER); the
 * memory-bound shares are guesses that grow as bandwidth per FLOP falls.
 * What a board does not support is expressed here as data (fans = 0,
 * ecc = 0, serial "" ...) and the getters answer NOT_SUPPORTED from it.
 */
#include "sim.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define ALL_REASONS 0x1FFULL

static const struct gwsim_model models[] = {
	{"H200", ",h200,h200-141gb,h200-sxm,nvidia h200,", "",
	 {.name = "NVIDIA H200",
	  .vbios = "96.00.A5.00.03",
	  .board_part = "695-2G520-0280-001",
	  .inforom_img = "G520.0280.02.02",
	  .inforom_oem = "2.1",
	  .inforom_ecc = "7.16",
	  .arch = NVML_DEVICE_ARCH_HOPPER, .cc_major = 9, .cc_minor = 0,
	  .pci_device_id = 0x233510DE, .pci_subsys_id = 0x18BE10DE,
	  .pcie_gen = 5, .pcie_gen_idle = 5, .pcie_gen_max = 5, .pcie_width = 16, .pcie_width_max = 16,
	  .mem_total_mib = 143771, .mem_reserved_mib = 614, .bar1_total_mib = 262144, .bar1_used_mib = 1,
	  .power_default_mw = 700000, .power_min_mw = 200000, .power_max_mw = 700000,
	  .power_idle_mw = 77700, .power_full_mw = 760000,
	  .tokens_per_s = 7300, .mem_bound = 0.25,
	  .clk_max_sm = 1980, .clk_max_mem = 3201, .clk_max_video = 1545,
	  .clk_idle_sm = 345, .clk_idle_mem = 3201, .clk_idle_video = 765,
	  .clk_busy_video = 1545, .clk_busy_mem = 3201, .clk_app_sm = 1980, .clk_app_mem = 3201,
	  .pstate_idle = 0, .pstate_busy = 0,
	  .temp_shutdown = 95, .temp_slowdown = 89, .temp_gpu_max = 87, .temp_mem_max = 95,
	  .temp_ambient = 24.6, .thermal_r = 0.0436, .thermal_tau = 25.0,
	  .mem_temp_base = 30.7, .mem_temp_r = 0.0164, .has_mem_temp = 1,
	  .nvlinks = 18, .nvlink_gbps = 26.562,
	  .ecc = 1, .mig_capable = 1, .gpm = 1, .persistence = 1, .accounting_buffer = 4000, .gsp = 1,
	  .remap = 1, .remap_banks = 3072, .supported_reasons = ALL_REASONS, .enc_supported = 1,
	  .brand = NVML_BRAND_NVIDIA, .module_id = 1, .virt_mode = NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH, .c2c = 1,
	  .pci_base_class = 3, .pci_sub_class = 2, .gpu_part = "2335-895-A1", .tlimit = 1, .mem_power = 1, .fabric = 1,
	  .sparse = 1, .edpp = 1, .repair = 1, .unrepairable = 1}},
	{"H100", ",h100,h100-80gb,h100-80gb-hbm3,h100-sxm,h100 80gb hbm3,nvidia h100 80gb hbm3,", "",
	 {.name = "NVIDIA H100 80GB HBM3",
	  .vbios = "96.00.A5.00.01",
	  .board_part = "692-2G520-0200-000",
	  .inforom_img = "G520.0200.00.05",
	  .inforom_oem = "2.1",
	  .inforom_ecc = "7.16",
	  .arch = NVML_DEVICE_ARCH_HOPPER, .cc_major = 9, .cc_minor = 0,
	  .pci_device_id = 0x233010DE, .pci_subsys_id = 0x16C110DE,
	  .pcie_gen = 5, .pcie_gen_idle = 5, .pcie_gen_max = 5, .pcie_width = 16, .pcie_width_max = 16,
	  .mem_total_mib = 81559, .mem_reserved_mib = 479, .bar1_total_mib = 131072, .bar1_used_mib = 1,
	  .power_default_mw = 700000, .power_min_mw = 200000, .power_max_mw = 700000,
	  .power_idle_mw = 69850, .power_full_mw = 770000,
	  .tokens_per_s = 7300, .mem_bound = 0.30,
	  .clk_max_sm = 1980, .clk_max_mem = 2619, .clk_max_video = 1545,
	  .clk_idle_sm = 345, .clk_idle_mem = 2619, .clk_idle_video = 765,
	  .clk_busy_video = 1545, .clk_busy_mem = 2619, .clk_app_sm = 1980, .clk_app_mem = 2619,
	  .temp_shutdown = 95, .temp_slowdown = 89, .temp_gpu_max = 87, .temp_mem_max = 95,
	  .temp_ambient = 38.8, .thermal_r = 0.032, .thermal_tau = 25.0,
	  .mem_temp_base = 47.3, .mem_temp_r = 0.0107, .has_mem_temp = 1,
	  .nvlinks = 18, .nvlink_gbps = 26.562,
	  .ecc = 1, .mig_capable = 1, .gpm = 1, .persistence = 1, .accounting_buffer = 4000, .gsp = 1,
	  .remap = 1, .remap_banks = 2560, .supported_reasons = ALL_REASONS, .enc_supported = 1,
	  .brand = NVML_BRAND_NVIDIA, .module_id = 1, .virt_mode = NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH, .c2c = 1,
	  .pci_base_class = 3, .pci_sub_class = 2, .gpu_part = "2330-885-A1", .tlimit = 1, .mem_power = 1, .fabric = 1,
	  .sparse = 1, .edpp = 1, .repair = 1, .unrepairable = 1}},
	{"A100", ",a100,a100-80gb,a100-sxm4-80gb,a100 80gb,nvidia a100-sxm4-80gb,", "",
	 {.name = "NVIDIA A100-SXM4-80GB",
	  .vbios = "92.00.36.00.02",
	  .board_part = "692-2G506-0210-002",
	  .inforom_img = "G506.0210.00.02",
	  .inforom_oem = "2.1",
	  .inforom_ecc = "6.16",
	  .arch = NVML_DEVICE_ARCH_AMPERE, .cc_major = 8, .cc_minor = 0,
	  .pci_device_id = 0x20B210DE, .pci_subsys_id = 0x147F10DE,
	  .pcie_gen = 4, .pcie_gen_idle = 4, .pcie_gen_max = 4, .pcie_width = 16, .pcie_width_max = 16,
	  .mem_total_mib = 81920, .mem_reserved_mib = 0, .bar1_total_mib = 131072, .bar1_used_mib = 1,
	  .power_default_mw = 400000, .power_min_mw = 100000, .power_max_mw = 400000,
	  .power_idle_mw = 62000, .power_full_mw = 440000,
	  .tokens_per_s = 2300, .mem_bound = 0.30,
	  .clk_max_sm = 1410, .clk_max_mem = 1593, .clk_max_video = 1290,
	  .clk_idle_sm = 210, .clk_idle_mem = 1593, .clk_idle_video = 795,
	  .clk_busy_video = 1290, .clk_busy_mem = 1593, .clk_app_sm = 1275, .clk_app_mem = 1593,
	  .temp_shutdown = 92, .temp_slowdown = 89, .temp_gpu_max = 87, .temp_mem_max = 95,
	  .temp_ambient = 28.0, .thermal_r = 0.075, .thermal_tau = 25.0,
	  .mem_temp_base = 30.0, .mem_temp_r = 0.05, .has_mem_temp = 1,
	  .nvlinks = 12, .nvlink_gbps = 25.0,
	  .ecc = 1, .mig_capable = 1, .persistence = 1, .accounting_buffer = 4000, .gsp = 0,
	  .remap = 1, .remap_banks = 640, .supported_reasons = ALL_REASONS, .enc_supported = 1,
	  .brand = NVML_BRAND_NVIDIA, .module_id = 1, .virt_mode = NVML_GPU_VIRTUALIZATION_MODE_NONE,
	  .pci_base_class = 3, .pci_sub_class = 2, .gpu_part = "20B2-895-A1", .tlimit = 1, .mem_power = 1, .sparse = 1,
	  .repair = 1}},
	{"L40S", ",l40s,l40-s,nvidia l40s,", "",
	 {.name = "NVIDIA L40S",
	  .vbios = "95.02.66.00.02",
	  .board_part = "900-2G133-0080-000",
	  .inforom_img = "G133.0242.00.03",
	  .inforom_oem = "2.1",
	  .inforom_ecc = "6.16",
	  .arch = NVML_DEVICE_ARCH_ADA, .cc_major = 8, .cc_minor = 9,
	  .pci_device_id = 0x26B910DE, .pci_subsys_id = 0x185110DE,
	  .pcie_gen = 4, .pcie_gen_idle = 4, .pcie_gen_max = 4, .pcie_width = 16, .pcie_width_max = 16,
	  .mem_total_mib = 46068, .mem_reserved_mib = 609, .bar1_total_mib = 65536, .bar1_used_mib = 1,
	  .power_default_mw = 350000, .power_min_mw = 100000, .power_max_mw = 350000,
	  .power_idle_mw = 33000, .power_full_mw = 390000,
	  .tokens_per_s = 2700, .mem_bound = 0.35,
	  .clk_max_sm = 2520, .clk_max_mem = 9001, .clk_max_video = 1965,
	  .clk_idle_sm = 210, .clk_idle_mem = 405, .clk_idle_video = 1185,
	  .clk_busy_video = 1965, .clk_busy_mem = 9001, .clk_app_sm = 2520, .clk_app_mem = 9001,
	  .pstate_idle = 8, .pstate_busy = 0,
	  .temp_shutdown = 93, .temp_slowdown = 90, .temp_gpu_max = 88,
	  .temp_ambient = 30.0, .thermal_r = 0.12, .thermal_tau = 20.0,
	  .ecc = 1, .accounting = 1, .accounting_buffer = 4000, .gsp = 1,
	  .remap = 1, .remap_banks = 192, .supported_reasons = ALL_REASONS, .enc_supported = 1,
	  .brand = NVML_BRAND_NVIDIA, .module_id = 1, .addressing = NVML_DEVICE_ADDRESSING_MODE_HMM,
	  .virt_mode = NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH, .pci_base_class = 3, .pci_sub_class = 2,
	  .gpu_part = "26B9-896-A1", .tlimit = 1, .repair = 1}},
	{"RTX4080S", ",rtx4080s,rtx4080super,rtx-4080-super,rtx 4080 super,4080s,geforce rtx 4080 super,"
		     "nvidia geforce rtx 4080 super,", "",
	 {.name = "NVIDIA GeForce RTX 4080 SUPER",
	  .vbios = "95.03.44.00.B2",
	  .inforom_img = "G002.0000.00.03",
	  .inforom_oem = "2.0",
	  .arch = NVML_DEVICE_ARCH_ADA, .cc_major = 8, .cc_minor = 9,
	  .pci_device_id = 0x270210DE, .pci_subsys_id = 0x51101462,
	  .pcie_gen = 4, .pcie_gen_idle = 1, .pcie_gen_max = 4, .pcie_width = 16, .pcie_width_max = 16,
	  .mem_total_mib = 16376, .mem_reserved_mib = 434, .bar1_total_mib = 16384, .bar1_used_mib = 1,
	  .power_default_mw = 320000, .power_min_mw = 150000, .power_max_mw = 400000,
	  .power_idle_mw = 26200, .power_full_mw = 340000,
	  .tokens_per_s = 770, .mem_bound = 0.35,
	  .clk_max_sm = 3165, .clk_max_mem = 11501, .clk_max_video = 2415,
	  .clk_idle_sm = 210, .clk_idle_mem = 405, .clk_idle_video = 1185,
	  .clk_busy_video = 2145, .clk_busy_mem = 11251, .clk_app_sm = 2610, .clk_app_mem = 11501,
	  .pstate_idle = 8, .pstate_busy = 2,
	  .temp_shutdown = 101, .temp_slowdown = 96, .temp_gpu_max = 90, .temp_target = 84,
	  .temp_ambient = 39.5, .thermal_r = 0.12, .thermal_tau = 15.0,
	  .fans = 2, .fan_min_pct = 0,
	  .display_active = 1, .accounting_buffer = 4000, .gsp = 1,
	  .supported_reasons = ALL_REASONS, .mem_base_mib = 0, .enc_supported = 1,
	  .brand = NVML_BRAND_GEFORCE, .module_id = 1, .addressing = NVML_DEVICE_ADDRESSING_MODE_HMM,
	  .pci_base_class = 3, .pci_sub_class = 0, .gpu_part = "2702-400-A1", .pcie_gen_host_max = 5, .repair = 1}},
	{"RTX2080S", ",rtx2080s,rtx2080super,rtx-2080-super,rtx 2080 super,2080s,geforce rtx 2080 super,"
		     "nvidia geforce rtx 2080 super,", "",
	 {.name = "NVIDIA GeForce RTX 2080 SUPER",
	  .vbios = "90.04.7A.40.73",
	  .inforom_img = "G001.0000.02.04",
	  .inforom_oem = "1.1",
	  .arch = NVML_DEVICE_ARCH_TURING, .cc_major = 7, .cc_minor = 5,
	  .pci_device_id = 0x1E8110DE, .pci_subsys_id = 0x40051458,
	  .pcie_gen = 3, .pcie_gen_idle = 1, .pcie_gen_max = 3, .pcie_width = 16, .pcie_width_max = 16,
	  .mem_total_mib = 8192, .mem_reserved_mib = 400, .bar1_total_mib = 256, .bar1_used_mib = 3,
	  .power_default_mw = 250000, .power_min_mw = 105000, .power_max_mw = 350000,
	  .power_idle_mw = 37600, .power_full_mw = 270000,
	  .tokens_per_s = 600, .mem_bound = 0.35,
	  .clk_max_sm = 2145, .clk_max_mem = 7751, .clk_max_video = 1995,
	  .clk_idle_sm = 300, .clk_idle_mem = 405, .clk_idle_video = 540,
	  .clk_busy_video = 1920, .clk_busy_mem = 7500, .clk_app_sm = 1650, .clk_app_mem = 7751,
	  .pstate_idle = 8, .pstate_busy = 2,
	  .temp_shutdown = 100, .temp_slowdown = 97, .temp_gpu_max = 89, .temp_target = 84,
	  .temp_ambient = 29.0, .thermal_r = 0.09, .thermal_tau = 15.0,
	  .fans = 2, .fan_min_pct = 38, .nvlink_inactive = 1, /* TU104's NVLink x8, no bridge fitted */
	  .display_active = 1, .accounting_buffer = 4000, .gsp = 1,
	  .supported_reasons = ALL_REASONS, .enc_supported = 1,
	  .brand = NVML_BRAND_GEFORCE, .module_id = 1, .addressing = NVML_DEVICE_ADDRESSING_MODE_HMM,
	  .pci_base_class = 3, .pci_sub_class = 0, .gpu_part = "1E81-450-A1", .pcie_gen_host_max = 4}},
};

#define NMODELS (sizeof(models) / sizeof(models[0]))

const struct gwsim_model *gwsim_model_find(const char *name)
{
	char key[96];
	size_t n = 0;
	key[n++] = ',';
	for (const char *p = name; *p && n < sizeof(key) - 2; p++)
		key[n++] = (char)tolower((unsigned char)*p);
	key[n++] = ',';
	key[n] = '\0';
	for (size_t i = 0; i < NMODELS; i++) {
		if (strstr(models[i].aliases, key))
			return &models[i];
	}
	return NULL;
}

void gwsim_model_list(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NMODELS && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", models[i].key);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}
