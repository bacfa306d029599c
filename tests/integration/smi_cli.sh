#!/usr/bin/env bash
# smi/dmon/pmon end to end: nvidia-smi's messages and exit codes for each
# error (and our line naming the argument on stderr), options nvidia-smi
# has and gpuwatch refuses by name, -i selection, -l/-lms looping with the
# CSV header once, -f, Ctrl-C, the record queries (accounted apps, retired
# pages, remapped rows), topo -m and nvlink -s on multi-GPU fleets.
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

# our line after nvidia-smi's: stderr names the argument and why; stdout keeps nvidia-smi's text alone
# experr CODE STDOUT_EXACT STDERR_EXACT -- command...
experr() {
	local code=$1 want_out=$2 want_err=$3
	shift 4
	local out rc
	out=$("$@" 2>"$tmp/err"); rc=$?
	[ "$rc" = "$code" ] || fail "$* -> exit $rc, want $code"
	[ "$out" = "$want_out" ] || fail "$* -> stdout '$out', want '$want_out'"
	[ "$(cat "$tmp/err")" = "$want_err" ] || fail "$* -> stderr '$(cat "$tmp/err")', want '$want_err'"
}
INV="Invalid combination of input arguments. Please run 'gpuwatch smi -h' for help."
experr 2 "$INV" '-l abc: not a number of seconds' -- "$BIN" smi -l abc
experr 2 "$INV" '-l 0: the interval must be at least 1' -- "$BIN" smi -l 0
experr 2 "$INV" '-lms x: not a number of milliseconds' -- "$BIN" smi -lms x
experr 2 "$INV" '-lms: needs a number of milliseconds' -- "$BIN" smi -lms
experr 2 "$INV" '-lms: one interval only (-l or -lms, once)' -- "$BIN" smi -l 1 -lms 100
experr 2 'Field "foo" is not a valid field to query.' '--query-gpu=foo: no such field (see --help-query-gpu)' -- \
	"$BIN" smi --query-gpu=foo --format=csv
experr 2 'Field "addr" is not a valid field to query.' \
	'--query-retired-pages=addr: no such field (see --help-query-retired-pages)' -- \
	"$BIN" smi --query-retired-pages=addr --format=csv
experr 2 "$INV" '--format is needed with --query-gpu' -- "$BIN" smi --query-gpu=name
experr 2 "$INV" '--format is needed with --query-accounted-apps' -- "$BIN" smi --query-accounted-apps=pid
experr 2 "$INV" '--format is only for --query-gpu and the other --query-* options' -- "$BIN" smi -L --format=csv
experr 2 "$INV" '--format=xml: "xml" is not a format option (csv, noheader, nounits)' -- \
	"$BIN" smi --query-gpu=name --format=xml
experr 2 "$INV" '--format=noheader: csv is mandatory' -- "$BIN" smi --query-gpu=name --format=noheader
experr 2 "$INV" '--query-gpu with -L: one of -L, -q, --query-gpu and --query-* at a time' -- \
	"$BIN" smi -L --query-gpu=name --format=csv
experr 2 "$INV" '--no-such-option: no such option (see gpuwatch smi -h)' -- "$BIN" smi --no-such-option
experr 2 "$INV" '-i: needs a GPU index, UUID or PCI bus id' -- "$BIN" smi -i
experr 2 "$INV" '-l/-lms do not apply to -L' -- "$BIN" smi -L -l 1
# nvidia-smi's options gpuwatch lacks: refused by name, exit 3 (not available), nothing on stdout
experr 3 '' '-r/--gpu-reset: not implemented by gpuwatch smi (it only reads)' -- "$BIN" smi -r
experr 3 '' '-pm/--persistence-mode: not implemented by gpuwatch smi (it only reads)' -- "$BIN" smi -pm 1
experr 3 '' '-pl/--power-limit: not implemented by gpuwatch smi (it only reads)' -- "$BIN" smi --power-limit=300
experr 3 '' '-B/--list-excluded-gpus: not implemented by gpuwatch smi (not yet)' -- "$BIN" smi -B
experr 3 '' 'mig: not implemented by gpuwatch smi (not yet)' -- "$BIN" smi mig -lgi
experr 3 '' '-p2p: not implemented by gpuwatch smi topo (only -m is)' -- "$BIN" smi topo -p2p r
experr 2 "$INV" 'topo: -m is needed (the only view gpuwatch prints)' -- "$BIN" smi topo
experr 2 "$INV" 'nvlink -x: no such option (see gpuwatch smi nvlink -h)' -- "$BIN" smi nvlink -x
expect 0 '"gpu_utilization" or "gpu_util"' -- "$BIN" smi --help-query-accounted-apps
expect 0 '"retired_pages.cause"' -- "$BIN" smi --help-query-retired-pages
expect 0 '"remapped_rows.uncorrectable" or "remapped_rows.dbe"' -- "$BIN" smi --help-query-remapped-rows
expect 0 '--query-remapped-rows=' -- "$BIN" smi -h
expect 0 'topo -m' -- "$BIN" smi -h

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

# -lms with timeout (the way scripts bound it): 2 s at 200 ms is up to ten
# rounds of the 2 GPUs; at least three, whatever start-up costs (ASan, load)
timeout --preserve-status -s INT 2 "$BIN" "${SIM[@]}" smi --query-gpu=index --format=csv,noheader -lms 200 >"$tmp/lms"
rc=$?
[ "$rc" = 0 ] || fail "-lms under timeout -s INT exits $rc"
[ "$(wc -l <"$tmp/lms")" -ge 6 ] || fail "-lms 200 for 2 s printed $(wc -l <"$tmp/lms") lines"

# -f writes the file, not stdout
out=$("$BIN" "${SIM[@]}" smi --query-gpu=index --format=csv -f "$tmp/out.csv")
[ -z "$out" ] || fail "-f still printed to stdout: $out"
[ "$(cat "$tmp/out.csv")" = "$(printf 'index\n0\n1')" ] || fail "-f file: $(cat "$tmp/out.csv")"

# query-compute-apps: header with unit, nounits drops it
"$BIN" "${SIM[@]}" smi --query-compute-apps=pid,used_memory --format=csv >"$tmp/apps" || fail "apps exit $?"
[ "$(head -1 "$tmp/apps")" = "pid, used_gpu_memory [MiB]" ] || fail "apps header: $(head -1 "$tmp/apps")"
[ "$("$BIN" "${SIM[@]}" smi --query-compute-apps=pid,used_memory --format=csv,nounits | head -1)" = \
	"pid, used_gpu_memory" ] || fail "apps nounits header"

# topo -m on an HGX H200 box: NV18 between every pair, half the GPUs on each socket
"$BIN" --sim 8xH200 smi topo -m >"$tmp/topo" 2>/dev/null || fail "topo -m exit $?"
ESC=$(printf '\033')
T=$(printf '\t')
[ "$(head -1 "$tmp/topo")" = "$T${ESC}[4mGPU0${T}GPU1${T}GPU2${T}GPU3${T}GPU4${T}GPU5${T}GPU6${T}GPU7${T}CPU Affinity${T}NUMA Affinity${T}GPU NUMA ID${ESC}[0m" ] ||
	fail "topo 8xH200 header: $(head -1 "$tmp/topo" | cat -A)"
[ "$(sed -n 2p "$tmp/topo")" = "GPU0$T X ${T}NV18${T}NV18${T}NV18${T}NV18${T}NV18${T}NV18${T}NV18${T}0-55,112-167${T}0$T${T}N/A" ] ||
	fail "topo 8xH200 GPU0 row: $(sed -n 2p "$tmp/topo" | cat -A)"
[ "$(sed -n 9p "$tmp/topo")" = "GPU7${T}NV18${T}NV18${T}NV18${T}NV18${T}NV18${T}NV18${T}NV18$T X ${T}56-111,168-223${T}1$T${T}N/A" ] ||
	fail "topo 8xH200 GPU7 row: $(sed -n 9p "$tmp/topo" | cat -A)"
grep -q '^  NV#  = Connection traversing a bonded set of # NVLinks$' "$tmp/topo" || fail "topo legend missing"
# no NVLink: the PCIe path (workstation cards share a host bridge; datacenter ones cross the sockets)
"$BIN" --sim 2xRTX4080S smi topo -m 2>/dev/null | grep -q "^GPU0$T X ${T}PHB$T" || fail "2xRTX4080S: not PHB"
"$BIN" --sim 2xL40S smi topo -m 2>/dev/null | grep -q "^GPU1${T}SYS$T X $T" || fail "2xL40S: not SYS"
# nvlink -s -i: that GPU's 18 links at NVLink 4's 26.562 GB/s
"$BIN" "${SIM[@]}" smi nvlink -s -i 1 >"$tmp/nvl" || fail "nvlink -s exit $?"
[ "$(head -1 "$tmp/nvl")" = "GPU 1: NVIDIA H200 (UUID: $uuid1)" ] || fail "nvlink -s -i 1 names $(head -1 "$tmp/nvl")"
[ "$(grep -c "^$T Link [0-9]*: 26.562 GB/s$" "$tmp/nvl")" = 18 ] || fail "nvlink -s: not 18 links"

# record queries: accounted apps from a scenario's buffer, retired pages after a DBE, remapped rows
cat >"$tmp/acct.scn" <<'SCN'
[sim]
clock = manual
epoch = 2026-07-03 22:00:00
fault = 0s ecc-dbe
[gpu 0]
model = A100
accounting = enabled
retired_pages = yes
remap = no
process = 4242 ./train C 1000 sm=50 mem=10
accounted = 4100 sm=97 mem=7 max=14410 time=41397
SCN
[ "$("$BIN" --sim "$tmp/acct.scn" smi --query-accounted-apps=pid,gpu_util,mem_util,max_memory_usage,time \
	--format=csv,noheader 2>/dev/null)" = "$(printf '4100, 97 %%, 7 %%, 14410 MiB, 41397 ms\n4242, 50 %%, 10 %%, 1000 MiB, 0 ms')" ] ||
	fail "accounted apps: $("$BIN" --sim "$tmp/acct.scn" smi --query-accounted-apps=pid,gpu_util,mem_util,max_memory_usage,time --format=csv,noheader 2>&1)"
[ "$("$BIN" --sim "$tmp/acct.scn" smi --query-accounted-apps=pid,time --format=csv,noheader,nounits 2>/dev/null)" = \
	"$(printf '4100, 41397\n4242, 0')" ] || fail "accounted apps nounits"
pages=$(TZ=UTC "$BIN" --sim "$tmp/acct.scn" smi --query-retired-pages=retired_pages.address,retired_pages.timestamp,retired_pages.cause \
	--format=csv,noheader 2>/dev/null)
case "$pages" in
0x????????????????", 2026/07/03 22:00:00, Double Bit ECC") ;;
*) fail "retired page after ecc-dbe: '$pages'" ;;
esac
[ "$("$BIN" "${SIM[@]}" smi --query-remapped-rows=gpu_bus_id,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure \
	--format=csv,noheader -i 0 2>/dev/null)" = "$("$BIN" "${SIM[@]}" smi --query-gpu=pci.bus_id --format=csv,noheader -i 0), 0, 0, No, No" ] ||
	fail "remapped rows on a healthy H200"
printf '[sim]\nclock = manual\n[gpu 0]\nmodel = H200\nremap_corr = 3\nremap_pending = yes\n' >"$tmp/remap.scn"
[ "$("$BIN" --sim "$tmp/remap.scn" smi --query-remapped-rows=remapped_rows.sbe,remapped_rows.dbe,remapped_rows.pending --format=csv 2>/dev/null)" = \
	"$(printf 'remapped_rows.correctable, remapped_rows.uncorrectable, remapped_rows.pending\n3, 0, Yes')" ] ||
	fail "remapped rows pinned: $("$BIN" --sim "$tmp/remap.scn" smi --query-remapped-rows=remapped_rows.sbe,remapped_rows.dbe,remapped_rows.pending --format=csv 2>&1)"

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
