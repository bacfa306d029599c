#!/usr/bin/env bash
# gpuwatch on the simulator's scenario for each real nvidia-smi capture must
# print what nvidia-smi printed: the default table (date line aside), the
# query-compute-apps, query-accounted-apps and query-retired-pages CSV
# (timestamps aside), the full -q report (Timestamp line aside), the dmon
# and pmon sections, and from the idle scenario the capabilities: topo -m,
# nvlink -s and the help texts of --query-accounted-apps and
# --query-retired-pages. The MIG captures (<model>mig-<idle|load>.scn) are
# compared on the default table with its "MIG devices" block, on -L with
# the MIG devices under the GPU, and on -q's "MIG Device" sections and
# process list (GPU and compute instance ids). Each capture maps to the simulator scenario written for it,
#   $GW_TEST_DATA/data/scenarios/<model>-<idle|load>.scn
# nvidia-smi took each section at its own moment, so a section may have an
# overlay that includes the base and pins what changed by then:
#   <model>-<idle|load>.<table|apps|q|mon>.scn    (q: smi -q; mon: dmon and pmon)
# The mon overlays use the simulator's step clock (one virtual second
# per poll) and per-second pinned sequences (docs/SIMULATOR.md).
# Skips (77) when the captures or the scenarios are not there.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
CAP=${GW_SHARED_DIR:-/nonexistent}/reference/nvidia-smi-captures
SCN=${GW_TEST_DATA:-tests}/data/scenarios
if [ ! -d "$CAP" ]; then
	echo "skipped: nvidia-smi captures not present ($CAP)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# section FILE TITLE: the text under "# TITLE" up to the next banner, without trailing blank lines
section() {
	awk -v want="# $2" '
		/^#+$/ && length($0) == 80 { if (body) exit; if (hdr) { body = 1; next } next }
		index($0, want) == 1 { hdr = 1; next }
		body { print }
	' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

compare() { # NAME WANT_FILE GOT_FILE
	if cmp -s "$2" "$3"; then
		echo "ok   $1"
	else
		echo "FAIL $1"
		diff "$2" "$3" | head -20
		fails=$((fails + 1))
	fi
}

# scn BASE WHAT: the overlay for that section when there is one, else the base
scn() {
	local o=${1%.scn}.$2.scn
	if [ -f "$o" ]; then echo "$o"; else echo "$1"; fi
}

check_state() { # CAPTURE STATE SCENARIO OUTDIR
	local cap=$1 st=$2 base=$3 d=$4
	section "$cap" "$st :: nvidia-smi (default table)" | tail -n +2 >"$d/table.want"
	"$BIN" --sim "$(scn "$base" table)" smi 2>/dev/null | tail -n +2 >"$d/table.got"
	section "$cap" "$st :: query-compute-apps" | sed 's/^[^,]*, //' >"$d/apps.want"
	"$BIN" --sim "$(scn "$base" apps)" smi --format=csv \
		--query-compute-apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory \
		2>/dev/null | sed 's/^[^,]*, //' >"$d/apps.got"
	section "$cap" "$st :: query (-q)" | grep -v '^Timestamp  ' >"$d/q.want"
	"$BIN" --sim "$(scn "$base" q)" smi -q 2>/dev/null | grep -v '^Timestamp  ' |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$d/q.got"
	section "$cap" "$st :: pmon" >"$d/pmon.want"
	"$BIN" --sim "$(scn "$base" mon)" pmon -c 5 >"$d/pmon.got" 2>/dev/null &
	section "$cap" "$st :: dmon" >"$d/dmon.want"
	"$BIN" --sim "$(scn "$base" mon)" dmon -c 5 >"$d/dmon.got" 2>/dev/null &
	wait
}

# mig_q: from -q, the MIG Device sections (up to Accounting Mode) and the
# process list (up to Capabilities)
mig_q() {
	awk '/^    MIG Device$/ { f = 1 } /^    Accounting Mode / { f = 0 }
		/^    Processes/ { p = 1 } /^    Capabilities/ { p = 0 } f || p'
}

# A MIG capture: the default table, -q's MIG parts and, from the idle scenario, -L.
check_mig() { # CAPTURE STATE SCENARIO OUTDIR
	local cap=$1 st=$2 base=$3 d=$4
	touch "$d/mig"
	section "$cap" "$st :: nvidia-smi (default table)" | tail -n +2 >"$d/table.want"
	"$BIN" --sim "$(scn "$base" table)" smi 2>/dev/null | tail -n +2 >"$d/table.got"
	section "$cap" "$st :: query (-q)" | mig_q >"$d/q-mig.want"
	"$BIN" --sim "$(scn "$base" q)" smi -q 2>/dev/null | mig_q >"$d/q-mig.got"
	if [ "$st" = idle ]; then
		section "$cap" "capabilities :: list (-L)" >"$d/list.want"
		"$BIN" --sim "$base" smi -L 2>/dev/null >"$d/list.got"
	fi
}

# The record queries and capabilities, after every dmon/pmon has finished:
# those run on the step clock, which reads a poll as 200 ms of silence, so
# they are kept clear of other load.
check_more() { # CAPTURE STATE SCENARIO OUTDIR
	local cap=$1 st=$2 base=$3 d=$4
	section "$cap" "$st :: query-accounted-apps" | sed 's/^[^,]*, //' >"$d/acct.want"
	"$BIN" --sim "$(scn "$base" apps)" smi --format=csv \
		--query-accounted-apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,gpu_util,mem_util,max_memory_usage,time \
		2>/dev/null | sed 's/^[^,]*, //' >"$d/acct.got"
	section "$cap" "$st :: query-retired-pages" | sed 's/^[^,]*, //' >"$d/pages.want"
	"$BIN" --sim "$base" smi --format=csv \
		--query-retired-pages=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,retired_pages.address,retired_pages.timestamp,retired_pages.cause \
		2>/dev/null | sed 's/^[^,]*, //' >"$d/pages.got"
	if [ "$st" = idle ]; then
		section "$cap" "capabilities :: topo -m" >"$d/topo.want"
		"$BIN" --sim "$base" smi topo -m 2>/dev/null >"$d/topo.got"
		section "$cap" "capabilities :: nvlink -s" >"$d/nvlink.want"
		"$BIN" --sim "$base" smi nvlink -s 2>/dev/null >"$d/nvlink.got"
		for h in accounted-apps retired-pages; do
			section "$cap" "capabilities :: help-query-$h" >"$d/help-$h.want"
			"$BIN" smi --help-query-$h | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$d/help-$h.got"
		done
	fi
}

fails=0
checked=0
for cap in "$CAP"/*.txt; do
	name=$(basename "$cap" .txt)
	case "$name" in
	*nvidia-h200__590.48.01) model=h200 ;;
	*nvidia-h100-80gb-hbm3__590.48.01) model=h100 ;;
	*nvidia-l40s__595.80) model=l40s ;;
	*nvidia-geforce-rtx-4080-super__595.71.05) model=rtx4080 ;;
	*nvidia-geforce-rtx-2080-super__595.71.05) model=rtx2080 ;;
	*nvidia-h200-mig__590.48.01) model=h200mig ;;
	*nvidia-h100-mig__590.48.01) model=h100mig ;;
	*) continue ;; # the 610 driver capture: no scenario yet
	esac
	for st in idle load; do
		scn="$SCN/$model-$st.scn"
		[ -f "$scn" ] || continue
		d="$tmp/$name.$st"
		mkdir -p "$d"
		echo "$model" >"$d/model"
		case "$model" in
		*mig) check_mig "$cap" "$st" "$scn" "$d" & ;;
		*) check_state "$cap" "$st" "$scn" "$d" & ;;
		esac
	done
done
wait
for d in "$tmp"/*; do
	[ -d "$d" ] || continue
	[ -f "$d/mig" ] && continue
	cap="$CAP/$(basename "$d" | sed 's/\.[a-z]*$//').txt"
	st=${d##*.}
	model=$(cat "$d/model")
	check_more "$cap" "$st" "$SCN/$model-$st.scn" "$d" &
done
wait
for d in "$tmp"/*; do
	[ -d "$d" ] || continue
	for want in "$d"/*.want; do
		what=$(basename "$want" .want)
		compare "$(basename "$d") $what" "$want" "$d/$what.got"
		checked=$((checked + 1))
	done
done
if [ "$checked" = 0 ]; then
	echo "skipped: no scenarios named <capture>.<idle|load>.* in $SCN"
	exit 77
fi
[ "$fails" = 0 ] || exit 1
