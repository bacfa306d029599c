#!/usr/bin/env bash
# End to end: the real binary on every simulator scenario must print exactly
# the golden files the repository carries, tests/golden/e2e/<scenario>.<what>.txt,
# for the default table (date line dropped), -L, a fixed --query-gpu list and
# --query-compute-apps (timestamp column dropped), -q (Timestamp line
# dropped), dmon -c 3 -s pucvmet and pmon -c 3. Needs nothing outside the repository.
#
# Scenarios on the real clock (clock = real) are skipped: what they print
# depends on when the loop happens to sample.
#
# GW_GOLDEN_UPDATE=1 rewrites the golden files from this build's output
# instead of comparing; review every changed file before committing it.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
TD=${GW_TEST_DATA:-tests}
SCN=$TD/data/scenarios
GOLD=$TD/golden/e2e
update=${GW_GOLDEN_UPDATE:-0}
ls "$SCN"/*.scn >/dev/null 2>&1 || { echo "skipped: no scenarios in $SCN"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

QUERY_GPU=timestamp,driver_version,count,name,serial,uuid,pci.bus_id,pci.device_id,pci.sub_device_id,\
pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,index,display_mode,display_active,\
persistence_mode,accounting.mode,vbios_version,fan.speed,pstate,clocks_event_reasons.supported,\
clocks_event_reasons.active,clocks_event_reasons_counters.sw_power_cap,memory.total,memory.reserved,\
memory.used,memory.free,compute_mode,compute_cap,utilization.gpu,utilization.memory,utilization.encoder,\
utilization.decoder,encoder.stats.sessionCount,ecc.mode.current,ecc.errors.corrected.volatile.total,\
retired_pages.pending,remapped_rows.pending,temperature.gpu,temperature.memory,power.draw,\
power.draw.average,power.draw.instant,power.limit,enforced.power.limit,clocks.current.graphics,\
clocks.current.sm,clocks.current.memory,clocks.current.video,clocks.max.graphics,mig.mode.current
QUERY_APPS=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory

run_one() { # SCENARIO OUTDIR
	local s=$1 d=$2
	"$BIN" --sim "$s" smi 2>/dev/null | tail -n +2 >"$d/table.txt"
	"$BIN" --sim "$s" smi -L >"$d/list.txt" 2>/dev/null
	"$BIN" --sim "$s" smi --query-gpu="$QUERY_GPU" --format=csv 2>/dev/null | sed 's/^[^,]*, //' >"$d/query-gpu.txt"
	"$BIN" --sim "$s" smi --query-compute-apps="$QUERY_APPS" --format=csv 2>/dev/null |
		sed 's/^[^,]*, //' >"$d/query-apps.txt"
	# -q makes ~150 NVML calls: on a step clock a slow run (sanitizers, a
	# loaded machine) can pause 200 ms among them and read two seconds
	if grep -Eq '^[[:space:]]*clock[[:space:]]*=[[:space:]]*step' "$s"; then
		: >"$d/q.skip"
	else
		"$BIN" --sim "$s" smi -q 2>/dev/null | grep -v '^Timestamp  ' >"$d/q.txt"
	fi
	"$BIN" --sim "$s" dmon -c 3 -s pucvmet >"$d/dmon.txt" 2>/dev/null &
	"$BIN" --sim "$s" pmon -c 3 >"$d/pmon.txt" 2>/dev/null &
	wait
}

n=0
for s in "$SCN"/*.scn; do
	name=$(basename "$s" .scn)
	if grep -Eq '^[[:space:]]*clock[[:space:]]*=[[:space:]]*real' "$s"; then
		echo "skip $name (real clock)"
		continue
	fi
	mkdir -p "$tmp/$name"
	run_one "$s" "$tmp/$name" &
	n=$((n + 1))
done
wait
[ "$n" -gt 0 ] || { echo "skipped: only real-clock scenarios"; exit 77; }

fails=0
checked=0
for d in "$tmp"/*/; do
	name=$(basename "$d")
	for what in table list query-gpu query-apps q dmon pmon; do
		got=$d$what.txt
		[ -e "$d$what.skip" ] && continue
		want=$GOLD/$name.$what.txt
		if [ "$update" = 1 ]; then
			mkdir -p "$GOLD"
			cmp -s "$got" "$want" 2>/dev/null || { cp "$got" "$want" && echo "wrote $want"; }
			continue
		fi
		checked=$((checked + 1))
		if [ ! -f "$want" ]; then
			echo "FAIL $name $what: no golden file $want (GW_GOLDEN_UPDATE=1 writes it)"
			fails=$((fails + 1))
		elif ! cmp -s "$want" "$got"; then
			echo "FAIL $name $what"
			diff -u "$want" "$got" | head -30
			fails=$((fails + 1))
		fi
	done
done
[ "$update" = 1 ] && exit 0
echo "$((checked - fails)) of $checked outputs match tests/golden/e2e"
[ "$fails" = 0 ] || exit 1
