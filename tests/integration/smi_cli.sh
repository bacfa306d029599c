#!/usr/bin/env bash
# smi/dmon/pmon end to end: nvidia-smi's messages and exit codes for each
# error, -i selection, -l/-lms looping with the CSV header once, -f, Ctrl-C.
# Needs GW_BIN; the parts that need GPUs run on the simulator (skipped, not
# failed, while it cannot serve 2xH200).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect CODE WANT_STDOUT_SUBSTRING -- command...
expect() {
	local code=$1 want=$2
	shift 3
	local out rc
	out=$("$@" 2>"$tmp/err"); rc=$?
	[ "$rc" = "$code" ] || fail "$* -> exit $rc, want $code (stdout: $out; stderr: $(cat "$tmp/err"))"
	case "$out" in *"$want"*) ;; *) fail "$* -> stdout lacks '$want': $out" ;; esac
}

# ---- no GPU needed -----------------------------------------------------------
expect 2 'Field "bogus" is not a valid field to query.' -- "$BIN" smi --query-gpu=bogus --format=csv
out=$("$BIN" smi --query-gpu=bogus --format=csv)
[ "$out" = 'Field "bogus" is not a valid field to query.' ] || fail "bad-field text: $out"
[ "$("$BIN" smi --query-gpu=bogus --format=csv | wc -l)" = 2 ] || fail "bad field: blank line missing"
expect 2 'Field "nope" is not a valid field to query.' -- "$BIN" smi --query-compute-apps=pid,nope --format=csv
expect 2 'Invalid combination of input arguments' -- "$BIN" smi --query-gpu=name
expect 2 'Invalid combination of input arguments' -- "$BIN" smi --no-such-option
expect 2 'Invalid combination of input arguments' -- "$BIN" smi -L --query-gpu=name --format=csv
expect 2 'Invalid combination of input arguments' -- "$BIN" smi --query-gpu=name --format=xml
expect 2 'Invalid combination of input arguments' -- "$BIN" smi -l 1 -lms 100
expect 2 'Invalid combination of input arguments' -- "$BIN" dmon -s pz
expect 2 'Invalid combination of input arguments' -- "$BIN" dmon -o X
expect 2 'Invalid combination of input arguments' -- "$BIN" pmon -s p
expect 0 'usage: gpuwatch smi' -- "$BIN" smi --help
expect 0 'usage: gpuwatch dmon' -- "$BIN" dmon -h
expect 0 'usage: gpuwatch pmon' -- "$BIN" pmon --help
expect 0 '"used_gpu_memory" or "used_memory"' -- "$BIN" smi --help-query-compute-apps
expect 12 "couldn't find libnvidia-ml.so" -- env GPUWATCH_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$BIN" smi
expect 12 "couldn't find libnvidia-ml.so" -- env GPUWATCH_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$BIN" dmon -c 1

# ---- on the simulator ----------------------------------------------------------
SIM=(--sim 2xH200)
if ! "$BIN" "${SIM[@]}" smi -L >/dev/null 2>&1; then
	echo "simulator cannot serve 2xH200 yet; GPU parts skipped"
	[ "$fails" = 0 ] || exit 1
	exit 77
fi

[ "$("$BIN" "${SIM[@]}" smi -L | grep -c '^GPU [01]: ')" = 2 ] || fail "-L does not list 2 GPUs"
uuid1=$("$BIN" "${SIM[@]}" smi -L | sed -n 's/^GPU 1: .*(UUID: \(.*\))$/\1/p')
bus1=$("$BIN" "${SIM[@]}" smi --query-gpu=pci.bus_id --format=csv,noheader -i 1)
for sel in 1 "$uuid1" "$bus1"; do
	got=$("$BIN" "${SIM[@]}" smi --query-gpu=index --format=csv,noheader -i "$sel")
	[ "$got" = 1 ] || fail "-i $sel selects '$got', want 1"
done
[ "$("$BIN" "${SIM[@]}" smi --query-gpu=index --format=csv,noheader -i 1,0)" = "$(printf '0\n1')" ] ||
	fail "-i 1,0 does not select both GPUs"
expect 6 'No devices were found' -- "$BIN" "${SIM[@]}" smi -i 7
expect 6 'No devices were found' -- "$BIN" "${SIM[@]}" smi -i GPU-ffffffff-0000-0000-0000-000000000000
expect 6 'No devices were found' -- "$BIN" "${SIM[@]}" dmon -c 1 -i 9

# default table: one block per GPU and the process table
"$BIN" "${SIM[@]}" smi >"$tmp/table" || fail "table exit $?"
grep -q '^| NVIDIA-SMI ' "$tmp/table" || fail "table has no version line"
[ "$(grep -c '^|   [01]  ' "$tmp/table")" = 2 ] || fail "table does not show 2 GPUs"
grep -q '^| Processes:' "$tmp/table" || fail "table has no process section"

# -l: the CSV header once, rows every second, Ctrl-C ends with 0
"$BIN" "${SIM[@]}" smi --query-gpu=index,name --format=csv -l 1 >"$tmp/loop" &
pid=$!
sleep 2.5
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" = 0 ] || fail "-l ended by SIGINT exits $rc, want 0"
[ "$(grep -c '^index, name$' "$tmp/loop")" = 1 ] || fail "-l header not printed exactly once"
rows=$(grep -c '^[01], ' "$tmp/loop")
[ "$rows" -ge 4 ] || fail "-l 1 for 2.5 s printed $rows rows, want >= 4"

# -lms with timeout (the way scripts bound it)
timeout --preserve-status -s INT 1 "$BIN" "${SIM[@]}" smi --query-gpu=index --format=csv,noheader -lms 200 >"$tmp/lms"
rc=$?
[ "$rc" = 0 ] || fail "-lms under timeout -s INT exits $rc"
[ "$(wc -l <"$tmp/lms")" -ge 6 ] || fail "-lms 200 for 1 s printed $(wc -l <"$tmp/lms") lines"

# -f writes the file, not stdout
out=$("$BIN" "${SIM[@]}" smi --query-gpu=index --format=csv -f "$tmp/out.csv")
[ -z "$out" ] || fail "-f still printed to stdout: $out"
[ "$(cat "$tmp/out.csv")" = "$(printf 'index\n0\n1')" ] || fail "-f file: $(cat "$tmp/out.csv")"

# query-compute-apps: header with unit, nounits drops it
"$BIN" "${SIM[@]}" smi --query-compute-apps=pid,used_memory --format=csv >"$tmp/apps" || fail "apps exit $?"
[ "$(head -1 "$tmp/apps")" = "pid, used_gpu_memory [MiB]" ] || fail "apps header: $(head -1 "$tmp/apps")"
[ "$("$BIN" "${SIM[@]}" smi --query-compute-apps=pid,used_memory --format=csv,nounits | head -1)" = \
	"pid, used_gpu_memory" ] || fail "apps nounits header"

# dmon / pmon: two header lines, then a line per GPU (or process) per sample
"$BIN" "${SIM[@]}" dmon -c 2 >"$tmp/dmon" || fail "dmon exit $?"
[ "$(head -1 "$tmp/dmon")" = "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk " ] ||
	fail "dmon header: $(head -1 "$tmp/dmon")"
[ "$(grep -c '^    [01] ' "$tmp/dmon")" = 4 ] || fail "dmon -c 2 on 2 GPUs: not 4 rows"
"$BIN" "${SIM[@]}" dmon -c 1 -s pt -o DT -i 0 >"$tmp/dmondt" || fail "dmon -o DT exit $?"
grep -q '^#Date        Time         gpu    pwr  gtemp  mtemp  rxpci  txpci $' "$tmp/dmondt" ||
	fail "dmon -s pt -o DT header: $(head -1 "$tmp/dmondt")"
"$BIN" "${SIM[@]}" pmon -c 1 >"$tmp/pmon" || fail "pmon exit $?"
grep -q '^# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command $' "$tmp/pmon" ||
	fail "pmon header: $(head -1 "$tmp/pmon")"

[ "$fails" = 0 ] || exit 1
echo "ok"
