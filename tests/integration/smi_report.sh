#!/usr/bin/env bash
# smi -q -d TYPES: nvidia-smi's header block, then per GPU its "GPU <bus id>"
# line and only the sections of those display types, each exactly as the
# full -q report prints it. The expected output is cut from the full report
# with the table below (display type -> top-level sections), so a -d that
# prints too much, too little or differently fails. An unknown type, or -d
# without -q, is nvidia-smi's "Invalid combination" error (exit 2).
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
for args in "-q -d BOGUS" "-q -d MEMORY,BOGUS" "-q -d" "-q -d ,MEMORY" "-d MEMORY" "--query-gpu=name --format=csv -d MEMORY"; do
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

[ "$fails" = 0 ] || exit 1
echo "ok"
