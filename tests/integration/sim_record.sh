#!/usr/bin/env bash
# `gpuwatch sim record` writes simulated history through the virtual clock:
# one sample per interval over exactly the requested window, the agent's
# series and labels, pinned scenario values stored as pinned, a fault at
# virtual time 1h at START+1h, slow fields on their 10 s cadence and GPM
# metrics moving in virtual time. `query`, `export` and the agent read the
# store; bad arguments, a missing --sim, an unwritable path and a store
# already holding newer samples fail with clear messages; SIGINT keeps what
# was recorded.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
. "$(dirname "$0")/../lib/common.sh"

# rows DIR SELECTOR: the store's samples as "time,metric,labels,value" CSV rows.
rows() { "$BIN" export --storage.path "$1" --format csv --match "$2" | tail -n +2; }

cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 2xH100:training
clock = manual
[gpu 0]
temp_c = 44
[gpu 1]
temp_c = 71
fault = 3605s ecc-sbe 3
SCN
start=1783072800 # 2026-07-03T10:00:00Z
end=1783080000   # 2026-07-03T12:00:00Z
d="$tmp/data"

# --- help and argument errors ---------------------------------------------------
"$BIN" sim record --help >"$tmp/help" 2>&1 || fail "sim record --help exited $?"
grep -q '^usage: gpuwatch --sim SPEC sim record --duration D' "$tmp/help" || fail "sim record --help: $(head -1 "$tmp/help")"
grep -q -- '--storage.path DIR' "$tmp/help" || fail "sim record --help does not describe --storage.path"
"$BIN" sim --help | grep -q '^  record ' || fail "sim --help does not list record"
"$BIN" --help | grep -q '^  sim ' || fail "gpuwatch --help does not list sim"

# expect_err CODE PATTERN ARGS...: exits CODE (non-zero) with PATTERN on stderr.
expect_err() {
	local want=$1 pat=$2
	shift 2
	"$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want"
	grep -q -- "$pat" "$tmp/err" || fail "'$*': no \"$pat\" in: $(cat "$tmp/err")"
}
expect_err 2 'recording needs the simulator: give --sim SPEC' sim record --duration 1h --storage.path "$tmp/x"
[ -e "$tmp/x" ] && fail "a refused recording created its store"
expect_err 2 '--duration wants a positive duration like 24h.*"2x"' --sim 2xH100 sim record --duration 2x --storage.path "$tmp/x"
expect_err 2 'give --duration' --sim 2xH100 sim record --storage.path "$tmp/x"
expect_err 2 '--interval wants a duration of 10ms or more' --sim 2xH100 sim record --duration 1h --interval 5ms --storage.path "$tmp/x"
expect_err 2 '--end must be after --start' --sim 2xH100 sim record --start $end --end $start --storage.path "$tmp/x"
expect_err 2 'not all three' --sim 2xH100 sim record --start $start --end $end --duration 2h --storage.path "$tmp/x"
expect_err 2 "unknown argument '--frobnicate'" --sim 2xH100 sim record --duration 1h --frobnicate
expect_err 2 'unknown GPU model' --sim 2xH300 sim record --duration 1h --storage.path "$tmp/x"
[ -e "$tmp/x" ] && fail "a refused recording created its store"
touch "$tmp/file"
expect_err 1 "cannot open the store in $tmp/file/data: mkdir" --sim 2xH100 sim record --duration 1m --storage.path "$tmp/file/data"

# --- two hours of two GPUs --------------------------------------------------------
"$BIN" --sim "$tmp/fleet.scn" sim record --duration 2h --end 2026-07-03T12:00:00Z --storage.path "$d" \
	--instance node-a:9400 --job simrec >"$tmp/rec.out" 2>"$tmp/rec.err" || fail "sim record exited $?: $(cat "$tmp/rec.err")"
grep -q '^recorded 2h of 2 GPUs every 1s: 2026-07-03T10:00:00Z to 2026-07-03T12:00:00Z, 7201 frames$' "$tmp/rec.out" ||
	fail "summary: $(cat "$tmp/rec.out")"
grep -q 'samples in [0-9]* series {instance="node-a:9400", job="simrec"}' "$tmp/rec.out" || fail "summary: $(cat "$tmp/rec.out")"
grep -q 'bytes per sample' "$tmp/rec.out" || fail "summary has no size: $(cat "$tmp/rec.out")"

# q EXPR [TIME]: gpuwatch query over the store, at END by default.
q() { "$BIN" query --storage.path "$d" --time "${2:-$end}" "$1"; }
# duration / interval + 1 samples per series. Values computed from two driver
# readings (GPM metrics, the driver's sample windows) have none in the first frame.
"$BIN" export --storage.path "$d" | awk '!/^#/ {k = $0; sub(/ [^ ]+ [^ ]+$/, "", k); if (!c[k]++) f[k] = $NF}
	END {for (k in c) print c[k], f[k], k}' >"$tmp/counts"
n=$(grep -c "^7201 $start " "$tmp/counts")
[ "$n" -gt 150 ] || fail "only $n series with 7201 samples from $start"
# the DCGM families an agent's default counters show, not every field's: 12 native GPM
# families and 5 DCGM_FI_PROF_* ones a GPU
[ "$(grep -c -e '^7200 [0-9]* DCGM_FI_PROF_' -e '^7200 [0-9]* gpuwatch_gpm_' "$tmp/counts")" = 34 ] ||
	fail "GPM series with 7200 samples: want 2 GPUs x (12 + 5)"
[ "$(grep -c 'DCGM_FI_PROF_SM_ACTIVE' "$tmp/counts")" = 0 ] || fail "a DCGM family the default counters leave out was stored"
# A process's utilisation comes from the driver's per-process samples, which
# need a few seconds of them first: those series start later and end with END.
bad=$(grep -v -e "^7201 $start " -e "^7200 $((start + 1)) " "$tmp/counts" |
	awk -v s="$start" '!($3 ~ /^gpuwatch_process_(sm|memory)_utilization_ratio\{/ && $2 > s && $2 <= s + 10 && $1 == 7201 - ($2 - s))' | head -3)
[ -z "$bad" ] || fail "samples per series, want 7201 from $start (or 7200 from $((start + 1))): $bad"
[ "$(grep -c ' gpuwatch_process_memory_used_bytes{' "$tmp/counts")" = 2 ] || fail "the processes' memory series: $(grep -c gpuwatch_process_memory_used_bytes "$tmp/counts"), want 2"
# The window exactly: the first sample at START, the last at END, none outside.
times=$(rows "$d" 'DCGM_FI_DEV_GPU_TEMP' | cut -d, -f1 | sort -n | sed -n '1p;$p' | paste -sd' ')
[ "$times" = "$start $end" ] || fail "samples span $times, want $start $end"
n=$("$BIN" export --storage.path "$d" --format csv --end $((start - 1)).999 | wc -l)
m=$("$BIN" export --storage.path "$d" --format csv --start $end.001 | wc -l)
[ "$n$m" = 11 ] || fail "samples outside the window: $((n - 1)) before, $((m - 1)) after"
# Every series carries the agent's labels (the training job's tokens their
# own job, as the job would push them), and both families are stored.
all='__name__=~".+"'
got=$(q "count({$all}) - count({$all,instance=\"node-a:9400\",job=\"simrec\"}) - count({__name__=~\"gpuwatch_training_.+\",instance=\"node-a:9400\",job=\"sim-training\"})")
echo "$got" | grep -q '^{} => 0 @' || fail "series without instance and job labels: $got"
for m in DCGM_FI_DEV_GPU_TEMP gpuwatch_temperature_gpu_celsius DCGM_FI_DEV_POWER_USAGE gpuwatch_power_draw_watts; do
	q "$m" | grep -q 'gpu="1"' || fail "no $m stored"
done
# the labels /metrics gives the series (device and the driver too), plus instance and job
q 'DCGM_FI_DEV_GPU_TEMP{gpu="1"}' | grep -q '{DCGM_FI_DRIVER_VERSION="[0-9.]*", Hostname="[^"]*", UUID="GPU-[0-9a-f-]*", device="nvidia1", gpu="1", instance="node-a:9400", job="simrec", modelName="NVIDIA H100 80GB HBM3", pci_bus_id="00000000:2A:00.0"}' ||
	fail "labels of a stored series: $(q 'DCGM_FI_DEV_GPU_TEMP{gpu="1"}')"

# Pinned scenario values are stored as pinned, at every sample.
temps=$(rows "$d" 'DCGM_FI_DEV_GPU_TEMP' | awk -F, '{print $NF}' | sort | uniq -c | awk '{print $1 "x" $2}' | paste -sd' ')
[ "$temps" = "7201x44 7201x71" ] || fail "stored temperatures: $temps, want 7201x44 7201x71"
got=$(q 'DCGM_FI_DEV_GPU_TEMP{gpu="1",instance="node-a:9400",job="simrec"}' 2026-07-03T11:00:00Z)
echo "$got" | grep -q '=> 71 @\[1783076400\]' || fail "gpuwatch query of the recorded window: $got"

# Virtual time: the fault at 3605 s shows at START+3610 s, the first slow tick (10 s) after it.
ecc=$(rows "$d" 'gpuwatch_ecc_corrected_volatile_total{gpu="1"}' | awk -F, 'NR == 1 || $NF != p {print $1 "=" $NF; p = $NF}' | paste -sd' ')
[ "$ecc" = "$start=0 $((start + 3610))=3" ] || fail "ECC counter changes: $ecc, want $start=0 $((start + 3610))=3"
# GPM metrics are computed over virtual time: they move every sample, not every 100 ms of real time.
nv=$(rows "$d" 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0"}' | awk -F, '{print $NF}' | sort -u | wc -l)
[ "$nv" -gt 1000 ] || fail "tensor activity took $nv distinct values over 2 h"
avg=$(q 'avg_over_time(DCGM_FI_DEV_GPU_UTIL{gpu="0"}[2h])' | sed -n 's/.*=> \([0-9.]*\) @.*/\1/p')
awk -v a="${avg:-0}" 'BEGIN {exit !(a > 30 && a <= 100)}' || fail "training's average GPU utilisation: '$avg'"

# --- a store already holding newer samples ------------------------------------------
# A window starting inside what is stored has no room: refused, with the ways out.
expect_err 1 'already holds samples of instance "node-a:9400", job "simrec" up to 2026-07-03T12:00:00Z' \
	--sim "$tmp/fleet.scn" sim record --duration 30m --end 2026-07-03T11:00:00Z --storage.path "$d" --instance node-a:9400 --job simrec
grep -q 'another --storage.path' "$tmp/err" || fail "no way out offered: $(cat "$tmp/err")"
# ... is fine for another instance, and after its newest sample.
"$BIN" --sim "$tmp/fleet.scn" sim record -q --duration 10m --end 2026-07-03T11:00:00Z --storage.path "$d" \
	--instance node-b:9400 --job simrec 2>"$tmp/err" || fail "another instance in the same store: $(cat "$tmp/err")"
"$BIN" --sim "$tmp/fleet.scn" sim record -q --start $((end + 1)) --duration 1m --storage.path "$d" \
	--instance node-a:9400 --job simrec 2>"$tmp/err" || fail "continuing after the newest sample: $(cat "$tmp/err")"
n=$(rows "$d" 'DCGM_FI_DEV_GPU_TEMP{gpu="0",instance="node-a:9400"}' | wc -l)
[ "$n" = $((7201 + 61)) ] || fail "after continuing: $n samples, want $((7201 + 61))"
# A window reaching into the stored samples from before them (an agent ran
# first): the part before the first stored sample is recorded and merged
# into the same series, which stay one series per GPU, in time order.
"$BIN" --sim "$tmp/fleet.scn" sim record --duration 2h --end 2026-07-03T11:00:00Z --storage.path "$d" \
	--instance node-a:9400 --job simrec >"$tmp/back.out" 2>"$tmp/err" || fail "recording before stored samples: $(cat "$tmp/err")"
grep -q 'from 2026-07-03T10:00:00Z (up to 2026-07-03T12:01:01Z);' "$tmp/err" &&
	grep -q 'recording 2026-07-03T09:00:00Z to 2026-07-03T09:59:59Z, before them' "$tmp/err" ||
	fail "recording before stored samples does not say so: $(cat "$tmp/err")"
grep -q 'series {instance="node-a:9400", job="simrec"}' "$tmp/back.out" || fail "backfill summary: $(cat "$tmp/back.out")"
rows "$d" 'DCGM_FI_DEV_GPU_TEMP{gpu="0",instance="node-a:9400"}' | cut -d, -f1 >"$tmp/times"
n=$(wc -l <"$tmp/times")
[ "$n" = $((3600 + 7201 + 61)) ] || fail "after recording before: $n samples, want $((3600 + 7201 + 61))"
sort -n -c "$tmp/times" 2>/dev/null || fail "samples after recording before are not in time order"
[ "$(head -1 "$tmp/times")" = $((start - 3600)) ] || fail "first sample $(head -1 "$tmp/times"), want $((start - 3600))"
got=$(q 'count(count by (instance, UUID) (count_over_time(DCGM_FI_DEV_GPU_TEMP{job="simrec"}[4h])))')
echo "$got" | grep -q '^{} => 4 @' || fail "GPUs by instance and UUID after recording before: $got (want 2 of node-a, 2 of node-b)"
"$BIN" export --storage.path "$d" --format csv | grep -q 'backfill' && fail "the temporary instance name is left in the store"

# --- the agent serves the recorded history -------------------------------------------
if command -v curl >/dev/null && command -v python3 >/dev/null; then
	port=$(free_port)
	# (retention counts back from the newest sample, which the agent's own make "now")
	"$BIN" --sim 2xH100 agent -a "127.0.0.1:$port" --storage.path "$d" --storage.retention.time 3650d 2>"$tmp/agent.err" &
	pids+=($!)
	if wait_http "http://127.0.0.1:$port/health" 10; then
		got=$(curl -s --data-urlencode 'query=DCGM_FI_DEV_GPU_TEMP{job="simrec",instance="node-a:9400"}' \
			--data-urlencode 'time=2026-07-03T11:30:00Z' "http://127.0.0.1:$port/api/v1/query" |
			python3 -c 'import json,sys; print(",".join(sorted(r["value"][1] for r in json.load(sys.stdin)["data"]["result"])))')
		[ "$got" = "44,71" ] || fail "the agent's query API over the recorded window: '$got'"
	else
		fail "the agent did not start on the recorded store: $(cat "$tmp/agent.err")"
	fi
	kill "${pids[-1]}"
	wait "${pids[-1]}" 2>/dev/null
fi

# --- the default window ends now, aligned to the interval --------------------------------
before=$(date +%s)
"$BIN" --sim 1xH100 sim record -q --duration 1m --interval 2s --storage.path "$tmp/now" 2>"$tmp/err" || fail "default window: $(cat "$tmp/err")"
after=$(date +%s)
rows "$tmp/now" 'DCGM_FI_DEV_POWER_USAGE' | cut -d, -f1 | sort -n >"$tmp/times"
n=$(wc -l <"$tmp/times")
t1=$(head -1 "$tmp/times")
tn=$(tail -1 "$tmp/times")
[ "$n" = 31 ] || fail "1m every 2s: $n samples, want 31"
[ $((tn % 2)) = 0 ] && [ "$tn" -ge $((before - 2)) ] && [ "$tn" -le "$after" ] && [ $((tn - t1)) = 60 ] ||
	fail "default window $t1..$tn, want 60 s ending at a multiple of 2 s in $before..$after"

# --- SIGINT: stop between frames, keep what was recorded --------------------------------
"$BIN" --sim 2xH100:training sim record --duration 30d --end 2026-07-03T00:00:00Z --storage.path "$tmp/int" \
	>"$tmp/int.out" 2>"$tmp/int.err" &
rpid=$!
for _ in $(seq 100); do [ -e "$tmp/int/gpuwatch.db" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $rpid
wait $rpid
rc=$?
[ "$rc" = 130 ] || fail "interrupted recording exited $rc, want 130: $(cat "$tmp/int.err")"
grep -q '^interrupted (SIGINT) after [0-9]* of 2592001 frames; what was recorded is stored$' "$tmp/int.out" ||
	fail "interrupt summary: $(cat "$tmp/int.out")"
rows "$tmp/int" 'DCGM_FI_DEV_GPU_TEMP{gpu="0"}' | cut -d, -f1 >"$tmp/int.times"
n=$(wc -l <"$tmp/int.times")
frames=$(sed -n 's/^interrupted (SIGINT) after \([0-9]*\) of.*/\1/p' "$tmp/int.out")
[ "$n" -gt 0 ] && [ "$n" = "${frames:-x}" ] || fail "after SIGINT: $n samples stored, summary says ${frames:-?} frames"
[ "$(head -1 "$tmp/int.times")" = $((1783036800 - 30 * 86400)) ] || fail "interrupted recording starts at $(head -1 "$tmp/int.times")"

[ "$fails" = 0 ] || exit 1
echo ok
