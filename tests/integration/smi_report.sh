#!/usr/bin/env bash
# smi -q -d TYPES: nvidia-smi's header block, then per GPU its "GPU <bus id>"
# line and only the sections of those display types, each exactly as the
# full -q report prints it. The expected output is cut from the full report
# with the table below (display type -> top-level sections), so a -d that
# prints too much, too little or differently fails. An unknown type, or -d
# without -q, is nvidia-smi's "Invalid combination" error (exit 2).
#
# smi -q -x: nvidia-smi's XML of the same report. xmllint (libxml2-utils)
# checks it is well-formed; it must hold one element per value line of the
# text report, and the values of a set of fields must equal the text's.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
SCN=${GW_TEST_DATA:-tests}/data/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# display type -> the depth-1 labels of its sections ("|" separated)
sections() {
	case $1 in
	MEMORY) echo "FB Memory Usage|BAR1 Memory Usage|Conf Compute Protected Memory Usage" ;;
	UTILIZATION) echo "Utilization" ;;
	ECC) echo "ECC Mode|ECC Errors" ;;
	TEMPERATURE) echo "Temperature" ;;
	POWER) echo "GPU Power Readings|GPU Memory Power Readings|Module Power Readings" ;;
	CLOCK) echo "Clocks|Applications Clocks|Default Applications Clocks|Deferred Clocks|Max Clocks|Max Customer Boost Clocks|Clock Policy" ;;
	COMPUTE) echo "Compute Mode" ;;
	PIDS) echo "Processes" ;;
	PERFORMANCE) echo "Fan Speed|Performance State|Clocks Event Reasons|Clocks Event Reasons Counters" ;;
	PAGE_RETIREMENT) echo "Retired Pages" ;;
	ACCOUNTING) echo "Accounting Mode|Accounting Mode Buffer Size" ;;
	ENCODER_STATS) echo "Encoder Stats" ;;
	FBC_STATS) echo "FBC Stats" ;;
	ROW_REMAPPER) echo "Remapped Rows" ;;
	GSP_FIRMWARE_VERSION) echo "GSP Firmware Version" ;;
	POWER_SMOOTHING) echo "Power Smoothing" ;;
	POWER_PROFILES) echo "Workload Power Profiles" ;;
	*) echo "" ;; # SUPPORTED_CLOCKS, SUPPORTED_GPU_TARGET_TEMP, VOLTAGE: not in the report
	esac
}

# cut FULL LABELS: the header and GPU lines, and the depth-1 blocks named in LABELS
cut_report() {
	awk -v want="$2" '
		BEGIN { n = split(want, w, "|"); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		/^GPU / { gpu = 1; print; on = 0; next }
		!gpu { print; next }
		/^    [^ ]/ {
			label = substr($0, 5); sub(/ *(: .*)?$/, "", label); on = (label in keep)
		}
		/^$/ { print; on = 0; next }
		on { print }
	' "$1"
}

check_scenario() { # SPEC NAME
	local spec=$1 name=$2
	"$BIN" --sim "$spec" smi -q 2>/dev/null | grep -v '^Timestamp  ' >"$tmp/$name.full"
	[ -s "$tmp/$name.full" ] || { fail "$name: smi -q printed nothing"; return; }
	for types in MEMORY UTILIZATION ECC TEMPERATURE POWER CLOCK COMPUTE PIDS PERFORMANCE SUPPORTED_CLOCKS \
		PAGE_RETIREMENT ACCOUNTING ENCODER_STATS SUPPORTED_GPU_TARGET_TEMP VOLTAGE FBC_STATS ROW_REMAPPER \
		GSP_FIRMWARE_VERSION POWER_SMOOTHING POWER_PROFILES MEMORY,ECC,PIDS power,clock; do
		local labels="" t
		for t in $(echo "$types" | tr 'a-z,' 'A-Z '); do
			labels="$labels${labels:+|}$(sections "$t")"
		done
		cut_report "$tmp/$name.full" "$labels" >"$tmp/want"
		"$BIN" --sim "$spec" smi -q -d "$types" 2>/dev/null | grep -v '^Timestamp  ' >"$tmp/got"
		if ! cmp -s "$tmp/want" "$tmp/got"; then
			fail "$name -d $types"
			diff "$tmp/want" "$tmp/got" | head -10
		fi
	done
	# the cut is not empty where the type has sections
	"$BIN" --sim "$spec" smi -q --display=MEMORY 2>/dev/null | grep -q '^    FB Memory Usage$' ||
		fail "$name --display=MEMORY has no FB Memory Usage"
	[ "$("$BIN" --sim "$spec" smi -q -d TEMPERATURE 2>/dev/null | grep -c 'GPU Current Temp')" = \
		"$(grep -c '^GPU ' "$tmp/$name.full")" ] || fail "$name -d TEMPERATURE: one GPU Current Temp per GPU"
}

check_scenario "$SCN/h200-load.q.scn" h200-load
check_scenario "$SCN/rtx2080-idle.q.scn" rtx2080-idle
check_scenario "2xH200:training,1xL40S:inference,clock=manual,seed=3" fleet

# errors: nvidia-smi's message and exit code 2
want="Invalid combination of input arguments. Please run 'gpuwatch smi -h' for help."
for args in "-q -d BOGUS" "-q -d MEMORY,BOGUS" "-q -d" "-q -d ,MEMORY" "-d MEMORY" "--query-gpu=name --format=csv -d MEMORY" \
	"-x" "-L -x" "-q -x -d MEMORY"; do
	# shellcheck disable=SC2086
	out=$("$BIN" --sim 1xH200 smi $args 2>/dev/null)
	rc=$?
	[ "$rc" = 2 ] || fail "smi $args: exit $rc, want 2"
	[ "$out" = "$want" ] || fail "smi $args printed: $out"
done

# -q on one GPU (-i) reports that GPU only; Attached GPUs still counts all
"$BIN" --sim 2xH200,clock=manual smi -q -i 1 2>/dev/null >"$tmp/one"
grep -q '^Attached GPUs  *: 2$' "$tmp/one" || fail "-q -i 1: Attached GPUs is not 2"
[ "$(grep -c '^GPU ' "$tmp/one")" = 1 ] || fail "-q -i 1: not exactly one GPU block"

# failing and unsupported calls: nvidia-smi's words for them, the rest of the report intact
cat >"$tmp/fail.scn" <<SCN
include = $(cd "$SCN" && pwd)/h200-idle.q.scn

[gpu 0]
fault = 0 fail nvmlDeviceGetPdi UNKNOWN
fault = 0 fail nvmlDeviceGetFieldValues UNKNOWN
unsupported = nvmlDeviceGetBrand
SCN
"$BIN" --sim "$tmp/fail.scn" smi -q >"$tmp/fail.txt" 2>/dev/null || fail "-q with failing calls: exit $?"
grep -q '^    GPU PDI  *: Unknown Error$' "$tmp/fail.txt" || fail "-q: a failing nvmlDeviceGetPdi is not 'Unknown Error'"
grep -q '^    Product Brand  *: N/A$' "$tmp/fail.txt" || fail "-q: an unsupported nvmlDeviceGetBrand is not N/A"
grep -q '^        SW Power Capping  *: Unknown Error$' "$tmp/fail.txt" || fail "-q: failing field values are not 'Unknown Error'"
grep -q '^    VBIOS Version  *: 96.00.A5.00.03$' "$tmp/fail.txt" || fail "-q: one failing call lost the other values"

# ---- -x -q ----
# text value of PATH ("Temperature/GPU Current Temp") in the first GPU of a -q report
text_value() {
	awk -v want="$2" '
		/^GPU / { gpu++; next }
		gpu != 1 { next }
		{
			match($0, /^ */); d = RLENGTH / 4
			line = substr($0, RLENGTH + 1)
			label = line; sub(/ *: .*$/, "", label); sub(/ *$/, "", label)
			path[d] = label
			p = path[1]; for (i = 2; i <= d; i++) p = p "/" path[i]
			if (p == want && index(line, ": ")) { sub(/^[^:]*: /, "", line); print line; exit }
		}
	' "$1"
}

check_xml() { # SPEC NAME
	local spec=$1 name=$2
	"$BIN" --sim "$spec" smi -q 2>/dev/null >"$tmp/$name.txt"
	"$BIN" --sim "$spec" smi -q -x 2>/dev/null >"$tmp/$name.xml"
	if ! xmllint --noout "$tmp/$name.xml"; then
		fail "$name: -x -q is not well-formed XML"
		return
	fi
	head -3 "$tmp/$name.xml" | tr '\n' '|' | grep -q '^<?xml version="1.0" ?>|<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">|<nvidia_smi_log>|$' ||
		fail "$name: XML prolog differs from nvidia-smi's"
	# one element per "label : value" line (Processes: None is an empty element)
	local nt nx
	nt=$(grep -c ' : ' "$tmp/$name.txt")
	nt=$((nt - $(grep -c '^    Processes  *: None$' "$tmp/$name.txt")))
	nx=$(grep -Ec '^'$'\t''*<([a-zA-Z0-9_]+)>[^<]*</\1>$' "$tmp/$name.xml")
	[ "$nt" = "$nx" ] || fail "$name: $nt value lines in -q, $nx value elements in -x"
	local pair path xp want got
	for pair in \
		"Driver Version|/nvidia_smi_log/driver_version" \
		"Attached GPUs|/nvidia_smi_log/attached_gpus" \
		"Product Name|//gpu[1]/product_name" \
		"Product Architecture|//gpu[1]/product_architecture" \
		"GPU UUID|//gpu[1]/uuid" \
		"GPU PDI|//gpu[1]/pdi" \
		"VBIOS Version|//gpu[1]/vbios_version" \
		"Board ID|//gpu[1]/board_id" \
		"MIG Mode/Current|//gpu[1]/mig_mode/current_mig" \
		"PCI/Bus Id|//gpu[1]/pci/pci_bus_id" \
		"PCI/Device Id|//gpu[1]/pci/pci_device_id" \
		"PCI/GPU Link Info/PCIe Generation/Max|//gpu[1]/pci/pci_gpu_link_info/pcie_gen/max_link_gen" \
		"PCI/GPU Link Info/Link Width/Current|//gpu[1]/pci/pci_gpu_link_info/link_widths/current_link_width" \
		"PCI/Tx Throughput|//gpu[1]/pci/tx_util" \
		"Performance State|//gpu[1]/performance_state" \
		"Clocks Event Reasons/Idle|//gpu[1]/clocks_event_reasons/clocks_event_reason_gpu_idle" \
		"FB Memory Usage/Total|//gpu[1]/fb_memory_usage/total" \
		"FB Memory Usage/Used|//gpu[1]/fb_memory_usage/used" \
		"BAR1 Memory Usage/Free|//gpu[1]/bar1_memory_usage/free" \
		"Utilization/GPU|//gpu[1]/utilization/gpu_util" \
		"Utilization/Memory|//gpu[1]/utilization/memory_util" \
		"ECC Mode/Current|//gpu[1]/ecc_mode/current_ecc" \
		"Retired Pages/Double Bit ECC|//gpu[1]/retired_pages/double_bit_retirement/retired_count" \
		"Temperature/GPU Current Temp|//gpu[1]/temperature/gpu_temp" \
		"GPU Power Readings/Average Power Draw|//gpu[1]/gpu_power_readings/average_power_draw" \
		"GPU Power Readings/Max Power Limit|//gpu[1]/gpu_power_readings/max_power_limit" \
		"Clocks/Graphics|//gpu[1]/clocks/graphics_clock" \
		"Max Clocks/Memory|//gpu[1]/max_clocks/mem_clock" \
		"Capabilities/EGM|//gpu[1]/capabilities/egm"; do
		path=${pair%%|*}
		xp=${pair#*|}
		case $path in
		"Driver Version" | "Attached GPUs") want=$(sed -n "s/^$path  *: //p" "$tmp/$name.txt") ;;
		*) want=$(text_value "$tmp/$name.txt" "$path") ;;
		esac
		got=$(xmllint --xpath "string($xp)" "$tmp/$name.xml" 2>/dev/null)
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$name -x $xp: \"$got\", -q $path: \"$want\""
	done
	[ "$(xmllint --xpath 'count(//gpu[1]/processes/process_info)' "$tmp/$name.xml")" = \
		"$(awk '/^GPU /{g++} g==1 && /^        Process ID /' "$tmp/$name.txt" | wc -l)" ] ||
		fail "$name: -x process_info count differs from -q's processes"
}

if command -v xmllint >/dev/null; then
	check_xml "$SCN/h200-load.q.scn" h200-load
	check_xml "$SCN/rtx2080-idle.q.scn" rtx2080-idle
	check_xml "$SCN/l40s-idle.q.scn" l40s-idle
	check_xml "2xH200:training,1xL40S:inference,clock=manual,seed=3" fleet
else
	echo "skipped -x: xmllint not installed (scripts/deps.sh installs libxml2-utils)"
fi

[ "$fails" = 0 ] || exit 1
echo "ok"
