#include "export/xid.h"

#include <stddef.h>

/* Sorted by code; our wording of the catalogue's descriptions. */
static const struct {
	unsigned int code;
	const char *text;
} xids[] = {
	{8, "GPU stopped processing (timeout)"},
	{13, "Graphics Engine Exception"},
	{31, "GPU memory page fault"},
	{32, "Invalid or corrupted push buffer stream"},
	{38, "Driver firmware error"},
	{43, "GPU stopped processing"},
	{44, "Graphics Engine fault during context switch"},
	{45, "Preemptive cleanup, due to previous errors"},
	{46, "GPU stopped processing"},
	{48, "Double Bit ECC Error"},
	{56, "Display Engine error"},
	{57, "Error programming video memory interface"},
	{58, "Unstable video memory interface detected"},
	{61, "Internal micro-controller breakpoint/warning"},
	{62, "Internal micro-controller halt"},
	{63, "ECC page retirement or row remapping recording event"},
	{64, "ECC page retirement or row remapper recording failure"},
	{65, "Video processor exception"},
	{68, "NVDEC0 Exception"},
	{69, "Graphics Engine class error"},
	{74, "NVLINK Error"},
	{79, "GPU has fallen off the bus"},
	{80, "Corrupted data sent to GPU"},
	{81, "VGA Subsystem Error"},
	{92, "High single-bit ECC error rate"},
	{94, "Contained ECC error"},
	{95, "Uncontained ECC error"},
	{109, "Context Switch Timeout Error"},
	{119, "GSP RPC Timeout"},
	{120, "GSP Error"},
	{121, "C2C Link Error"},
	{140, "Unrecovered ECC Error"},
	{143, "GPU Initialization Failure"},
};

const char *gw_xid_text(unsigned int code)
{
	if (code == 0)
		return "No Error";
	size_t lo = 0, hi = sizeof(xids) / sizeof(xids[0]);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (xids[mid].code == code)
			return xids[mid].text;
		if (xids[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "Unknown XID";
}
