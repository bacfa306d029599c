/*
 * smi_report_xml.c - the -x form of the -q report: the same lines, written
 * as nvidia-smi's XML (nvsmi_device_v12.dtd element names, one tab per
 * level). Each text label maps to its element through one table, looked up
 * with the heading it sits under, since the DTD reuses names ("total" under
 * every memory block) and the text reuses labels ("Current" under several
 * modes). A label the table lacks becomes its lower-cased words joined by
 * '_'. Section headings open an element that the next line at their depth
 * or above closes.
 */
#include "cmd/smi_report_int.h"

#include <ctype.h>
#include <string.h>

static const struct {
	const char *parent; /* heading the label sits under; NULL: anywhere */
	const char *label;
	const char *tag; /* "a/b": the value goes in <b> inside <a> */
} tags[] = {
	{NULL, "Product Name", "product_name"},
	{NULL, "Product Brand", "product_brand"},
	{NULL, "Product Architecture", "product_architecture"},
	{"MIG Mode", "Current", "current_mig"},
	{"MIG Mode", "Pending", "pending_mig"},
	{"Driver Model", "Current", "current_dm"},
	{"Driver Model", "Pending", "pending_dm"},
	{NULL, "Serial Number", "serial"},
	{NULL, "GPU UUID", "uuid"},
	{NULL, "GPU PDI", "pdi"},
	{NULL, "MultiGPU Board", "multigpu_board"},
	{NULL, "GPU Part Number", "gpu_part_number"},
	{NULL, "FRU Part Number", "gpu_fru_part_number"},
	{NULL, "Platform Info", "platformInfo"},
	{NULL, "Inforom Version", "inforom_version"},
	{"Inforom Version", "Image Version", "img_version"},
	{"Inforom Version", "Power Management Object", "pwr_object"},
	{NULL, "Inforom BBX Object Flush", "inforom_bbx_flush"},
	{"GPU Operation Mode", "Current", "current_gom"},
	{"GPU Operation Mode", "Pending", "pending_gom"},
	{NULL, "GPU C2C Mode", "c2c_mode"},
	{NULL, "vGPU Heterogeneous Mode", "vgpu_heterogeneous_mode"},
	{NULL, "IBMNPU", "ibmnpu"},
	{"PCI", "Bus", "pci_bus"},
	{"PCI", "Device", "pci_device"},
	{"PCI", "Domain", "pci_domain"},
	{"PCI", "Base Classcode", "pci_base_class"},
	{"PCI", "Sub Classcode", "pci_sub_class"},
	{"PCI", "Device Id", "pci_device_id"},
	{"PCI", "Bus Id", "pci_bus_id"},
	{"PCI", "Sub System Id", "pci_sub_system_id"},
	{NULL, "GPU Link Info", "pci_gpu_link_info"},
	{NULL, "PCIe Generation", "pcie_gen"},
	{"PCIe Generation", "Max", "max_link_gen"},
	{"PCIe Generation", "Current", "current_link_gen"},
	{"PCIe Generation", "Device Current", "device_current_link_gen"},
	{"PCIe Generation", "Device Max", "max_device_link_gen"},
	{"PCIe Generation", "Host Max", "max_host_link_gen"},
	{NULL, "Link Width", "link_widths"},
	{"Link Width", "Max", "max_link_width"},
	{"Link Width", "Current", "current_link_width"},
	{NULL, "Bridge Chip", "pci_bridge_chip"},
	{"Bridge Chip", "Type", "bridge_chip_type"},
	{"Bridge Chip", "Firmware", "bridge_chip_fw"},
	{NULL, "Replays Since Reset", "replay_counter"},
	{NULL, "Replay Number Rollovers", "replay_rollover_counter"},
	{NULL, "Tx Throughput", "tx_util"},
	{NULL, "Rx Throughput", "rx_util"},
	{"Clocks Event Reasons", "Idle", "clocks_event_reason_gpu_idle"},
	{"Clocks Event Reasons", "Applications Clocks Setting", "clocks_event_reason_applications_clocks_setting"},
	{"Clocks Event Reasons", "SW Power Cap", "clocks_event_reason_sw_power_cap"},
	{"Clocks Event Reasons", "HW Slowdown", "clocks_event_reason_hw_slowdown"},
	{"Clocks Event Reasons", "HW Thermal Slowdown", "clocks_event_reason_hw_thermal_slowdown"},
	{"Clocks Event Reasons", "HW Power Brake Slowdown", "clocks_event_reason_hw_power_brake_slowdown"},
	{"Clocks Event Reasons", "Sync Boost", "clocks_event_reason_sync_boost"},
	{"Clocks Event Reasons", "SW Thermal Slowdown", "clocks_event_reason_sw_thermal_slowdown"},
	{"Clocks Event Reasons", "Display Clock Setting", "clocks_event_reason_display_clocks_setting"},
	{"Clocks Event Reasons Counters", "SW Power Capping", "clocks_event_reasons_counters_sw_power_cap"},
	{"Clocks Event Reasons Counters", "Sync Boost", "clocks_event_reasons_counters_sync_boost"},
	{"Clocks Event Reasons Counters", "SW Thermal Slowdown", "clocks_event_reasons_counters_sw_thermal_slowdown"},
	{"Clocks Event Reasons Counters", "HW Thermal Slowdown", "clocks_event_reasons_counters_hw_thermal_slowdown"},
	{"Clocks Event Reasons Counters", "HW Power Braking", "clocks_event_reasons_counters_hw_power_braking"},
	{NULL, "Conf Compute Protected Memory Usage", "cc_protected_memory_usage"},
	{"Utilization", "GPU", "gpu_util"},
	{"Utilization", "Memory", "memory_util"},
	{"Utilization", "Encoder", "encoder_util"},
	{"Utilization", "Decoder", "decoder_util"},
	{"Utilization", "JPEG", "jpeg_util"},
	{"Utilization", "OFA", "ofa_util"},
	{NULL, "Active Sessions", "session_count"},
	{NULL, "Average FPS", "average_fps"},
	{NULL, "Average Latency", "average_latency"},
	{"DRAM Encryption Mode", "Current", "current_dram_encryption"},
	{"DRAM Encryption Mode", "Pending", "pending_dram_encryption"},
	{"ECC Mode", "Current", "current_ecc"},
	{"ECC Mode", "Pending", "pending_ecc"},
	{NULL, "SRAM Uncorrectable SEC-DED", "sram_uncorrectable_secded"},
	{"Retired Pages", "Single Bit ECC", "multiple_single_bit_retirement/retired_count"},
	{"Retired Pages", "Double Bit ECC", "double_bit_retirement/retired_count"},
	{"Retired Pages", "Pending Page Blacklist", "pending_blacklist"},
	{"Remapped Rows", "Correctable Error", "remapped_row_corr"},
	{"Remapped Rows", "Inactive Correctable Error", "remapped_row_corr_inactive"},
	{"Remapped Rows", "Uncorrectable Error", "remapped_row_unc"},
	{"Remapped Rows", "Inactive Uncorrectable Error", "remapped_row_unc_inactive"},
	{"Remapped Rows", "Pending", "remapped_row_pending"},
	{"Remapped Rows", "Remapping Failure Occurred", "remapped_row_failure"},
	{NULL, "Bank Remap Availability Histogram", "row_remapper_histogram"},
	{"Bank Remap Availability Histogram", "Max", "row_remapper_histogram_max"},
	{"Bank Remap Availability Histogram", "High", "row_remapper_histogram_high"},
	{"Bank Remap Availability Histogram", "Partial", "row_remapper_histogram_partial"},
	{"Bank Remap Availability Histogram", "Low", "row_remapper_histogram_low"},
	{"Bank Remap Availability Histogram", "None", "row_remapper_histogram_none"},
	{"Temperature", "GPU Current Temp", "gpu_temp"},
	{"Temperature", "GPU T.Limit Temp", "gpu_temp_tlimit"},
	{"Temperature", "GPU Shutdown T.Limit Temp", "gpu_temp_max_tlimit_threshold"},
	{"Temperature", "GPU Slowdown T.Limit Temp", "gpu_temp_slow_tlimit_threshold"},
	{"Temperature", "GPU Max Operating T.Limit Temp", "gpu_temp_max_gpu_tlimit_threshold"},
	{"Temperature", "GPU Shutdown Temp", "gpu_temp_max_threshold"},
	{"Temperature", "GPU Slowdown Temp", "gpu_temp_slow_threshold"},
	{"Temperature", "GPU Max Operating Temp", "gpu_temp_max_gpu_threshold"},
	{"Temperature", "GPU Target Temperature", "gpu_target_temperature"},
	{"Temperature", "Memory Current Temp", "memory_temp"},
	{"Temperature", "Memory Max Operating T.Limit Temp", "gpu_temp_max_mem_tlimit_threshold"},
	{"Temperature", "Memory Max Operating Temp", "gpu_temp_max_mem_threshold"},
	{NULL, "Instantaneous Power Draw", "instant_power_draw"},
	{NULL, "Workload Power Profiles", "power_profiles"},
	{"Workload Power Profiles", "Requested Profiles", "power_profile_requested_profiles"},
	{"Workload Power Profiles", "Enforced Profiles", "power_profile_enforced_profiles"},
	{"Clocks", "Graphics", "graphics_clock"},
	{NULL, "Graphics", "graphics_clock"},
	{NULL, "SM", "sm_clock"},
	{NULL, "Memory", "mem_clock"},
	{NULL, "Video", "video_clock"},
	{"Fabric", "CliqueId", "cliqueId"},
	{"Fabric", "ClusterUUID", "clusterUuid"},
	{"Health", "Summary", "summary"},
	{"Health", "Route Recovery in progress", "route_recovery_in_progress"},
	{NULL, "GPU instance ID", "gpu_instance_id"},
	{NULL, "Compute instance ID", "compute_instance_id"},
	{NULL, "Process ID", "pid"},
	{NULL, "Type", "type"},
	{NULL, "Name", "process_name"},
	{NULL, "Used GPU Memory", "used_memory"},
};

/* lower-cased words joined by '_', other characters dropped */
static void auto_tag(const char *label, char *tag, size_t n)
{
	size_t j = 0;
	bool sep = false;
	for (const char *c = label; *c && j + 2 < n; c++) {
		if (isalnum((unsigned char)*c)) {
			if (sep && j)
				tag[j++] = '_';
			tag[j++] = (char)tolower((unsigned char)*c);
			sep = false;
		} else {
			sep = true;
		}
	}
	tag[j] = '\0';
}

static void tag_of(const struct gw_smi_rep *r, int depth, const char *label, char *tag, size_t n)
{
	const char *parent = depth > 1 ? r->xml_open[depth - 1] : "";
	const char *any = NULL;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (strcmp(tags[i].label, label) != 0)
			continue;
		if (tags[i].parent && strcmp(tags[i].parent, parent) == 0) {
			snprintf(tag, n, "%s", tags[i].tag);
			return;
		}
		if (!tags[i].parent && !any)
			any = tags[i].tag;
	}
	if (any)
		snprintf(tag, n, "%s", any);
	else
		auto_tag(label, tag, n);
}

static void indent(const struct gw_smi_rep *r, int depth)
{
	for (int i = 0; i <= depth; i++)
		fputc('\t', r->out);
}

/* Close the open headings at depth and deeper, innermost first. */
void gw_smi_rep_xml_close(struct gw_smi_rep *r, int depth)
{
	for (int d = GW_SMI_REP_MAX_DEPTH - 1; d >= depth && d >= 0; d--) {
		if (!r->xml_open[d][0])
			continue;
		indent(r, d);
		fprintf(r->out, "</%s>\n", r->xml_tag[d]);
		r->xml_open[d][0] = '\0';
	}
}

void gw_smi_rep_xml_text(FILE *out, const char *v)
{
	for (; *v; v++) {
		switch (*v) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		default:
			fputc(*v, out);
		}
	}
}

void gw_smi_rep_xml_head(struct gw_smi_rep *r, int depth, const char *label)
{
	char tag[96];
	if (depth >= GW_SMI_REP_MAX_DEPTH)
		return;
	gw_smi_rep_xml_close(r, depth);
	tag_of(r, depth, label, tag, sizeof(tag));
	/* a heading's own trailing blank ("GPU Memory Power Readings ") is no part of its name */
	size_t n = strlen(label);
	while (n && label[n - 1] == ' ')
		n--;
	snprintf(r->xml_open[depth], sizeof(r->xml_open[depth]), "%.*s", (int)n, label);
	snprintf(r->xml_tag[depth], sizeof(r->xml_tag[depth]), "%s", tag);
	indent(r, depth);
	fprintf(r->out, "<%s>\n", tag);
}

void gw_smi_rep_xml_kv(struct gw_smi_rep *r, int depth, const char *label, const char *value)
{
	char tag[96];
	if (depth >= GW_SMI_REP_MAX_DEPTH)
		return;
	/* text indents some lines under a value line ("HW Slowdown"); XML keeps them siblings */
	while (depth > 1 && !r->xml_open[depth - 1][0])
		depth--;
	gw_smi_rep_xml_close(r, depth);
	tag_of(r, depth, label, tag, sizeof(tag));
	indent(r, depth);
	char *inner = strchr(tag, '/');
	if (inner) {
		*inner++ = '\0';
		fprintf(r->out, "<%s>\n", tag);
		indent(r, depth + 1);
		fprintf(r->out, "<%s>", inner);
		gw_smi_rep_xml_text(r->out, value);
		fprintf(r->out, "</%s>\n", inner);
		indent(r, depth);
		fprintf(r->out, "</%s>\n", tag);
		return;
	}
	fprintf(r->out, "<%s>", tag);
	gw_smi_rep_xml_text(r->out, value);
	fprintf(r->out, "</%s>\n", tag);
}
