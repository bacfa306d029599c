#!/usr/bin/env bash
# The agent with a counters file (-f) that has a field twice and a real DCGM
# field gpuwatch does not read: it starts, warns about the repeat naming the
# lines, says once at info which field it leaves out, and /metrics has each
# family once. A name no DCGM header defines (a typo), an unknown type, an
# empty file (tests/data/counters/) and a binary file stop it at start with
# the file, line and name, and no raw bytes in the log.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
DATA=${GW_TEST_DATA:?GW_TEST_DATA must point at tests/}/data/counters
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"

printf 'DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nDCGM_FI_DEV_NVSWITCH_FATAL_ERRORS, counter, x\nDCGM_FI_DEV_POWER_USAGE, gauge, Power draw (in W).\n# again\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n' >"$tmp/c.csv"
port=$(free_port)
"$BIN" --sim 1xH200 agent -a "127.0.0.1:$port" --storage.path "$tmp/data" -f "$tmp/c.csv" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "agent did not serve: $(cat -v "$tmp/agent.err")"
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/m"
[ "$(grep -c '^# HELP DCGM_FI_DEV_GPU_TEMP ' "$tmp/m")" = 1 ] || fail "GPU_TEMP's HELP not once: $(grep -c '^# HELP DCGM_FI_DEV_GPU_TEMP ' "$tmp/m")"
[ "$(grep -c '^# TYPE DCGM_FI_DEV_GPU_TEMP ' "$tmp/m")" = 1 ] || fail "GPU_TEMP's TYPE not once"
grep -q '^DCGM_FI_DEV_POWER_USAGE{' "$tmp/m" || fail "POWER_USAGE missing"
grep -q 'level=warn .*c.csv:5: DCGM_FI_DEV_GPU_TEMP repeats line 1; line 5 skipped' "$tmp/agent.err" ||
	fail "no warning for the repeated line: $(cat -v "$tmp/agent.err")"
[ "$(grep -c 'DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS' "$tmp/agent.err")" = 1 ] ||
	fail "the field left out is not logged once: $(cat -v "$tmp/agent.err")"
grep -q 'level=info msg="counters file: field left out" why=".*c.csv:2: DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS left out: gpuwatch does not read this DCGM field"' "$tmp/agent.err" ||
	fail "no info line for the field left out: $(cat -v "$tmp/agent.err")"
grep -q 'NVSWITCH' "$tmp/m" && fail "a field left out has a family"

# a scrape that accepts gzip (Prometheus' always does) gets the same exposition compressed: a sixth for one
# GPU, whose HELP and TYPE lines weigh most (8 GPUs: a fourteenth, bench/agent_metrics.sh)
curl -s -D "$tmp/zh" -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/metrics" >"$tmp/m.gz"
curl -s -D "$tmp/ph" "http://127.0.0.1:$port/metrics" >"$tmp/m2"
grep -qi '^Content-Encoding: gzip' "$tmp/zh" || fail "no Content-Encoding: gzip: $(cat "$tmp/zh")"
grep -qi '^Vary: Accept-Encoding' "$tmp/zh" || fail "gzip answer without Vary: Accept-Encoding"
grep -qi '^Content-Encoding' "$tmp/ph" && fail "a plain scrape was compressed"
grep -qi '^Vary: Accept-Encoding' "$tmp/ph" || fail "plain answer without Vary: Accept-Encoding"
gzip -dc "$tmp/m.gz" >"$tmp/mz" || fail "the gzip body does not decompress"
[ "$(sed 's/ [^ ]*$//' "$tmp/mz")" = "$(sed 's/ [^ ]*$//' "$tmp/m2")" ] || fail "the gzip body's series differ from the plain one's"
[ $(($(stat -c %s "$tmp/m.gz") * 5)) -le "$(stat -c %s "$tmp/m2")" ] ||
	fail "gzip body $(stat -c %s "$tmp/m.gz") bytes for $(stat -c %s "$tmp/m2") plain: not a fifth"
curl -s -D "$tmp/qh" -H 'Accept-Encoding: gzip;q=0, identity' "http://127.0.0.1:$port/metrics" >/dev/null
grep -qi '^Content-Encoding' "$tmp/qh" && fail "gzip;q=0 was answered compressed"

# Per-link NVLink rows, read because the file lists them, under DCGM 4.6's names as well as the older
# ones: five flow-control CRC errors on GPU 0's link 3 are on that link of that GPU only.
printf '[sim]\nfleet = 2xH200:training\n[gpu 0]\nfault = 1s nvlink-error crc-flit 5 3\n' >"$tmp/nl.scn"
printf 'DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTAL, counter, L3\nDCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0, counter, L0\nDCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL, counter, all\nDCGM_FI_DEV_GPU_BRAND, label, brand\n' >"$tmp/nl.csv"
port2=$(free_port)
"$BIN" --sim "$tmp/nl.scn" agent -a "127.0.0.1:$port2" --no-history -f "$tmp/nl.csv" 2>"$tmp/nl.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port2/metrics" 20 || fail "agent with per-link rows did not serve: $(cat -v "$tmp/nl.err")"
for _ in $(seq 30); do
	curl -s "http://127.0.0.1:$port2/metrics" >"$tmp/nl.prom"
	grep -q '^DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTAL{gpu="0",.*} 5$' "$tmp/nl.prom" && break
	sleep 0.2
done
grep -q '^DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTAL{gpu="0",.*DCGM_FI_DEV_GPU_BRAND="NVIDIA"} 5$' "$tmp/nl.prom" ||
	fail "GPU 0's link 3: $(grep '^DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3' "$tmp/nl.prom")"
grep -q '^DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_L3_TOTAL{gpu="1",.*} 0$' "$tmp/nl.prom" || fail "GPU 1's link 3 is not 0"
[ "$(grep -c '^DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0{.*} 0$' "$tmp/nl.prom")" = 2 ] || fail "link 0 is not 0 on both GPUs"
grep -Eq '^DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL\{gpu="0",.*\} [0-9]+$' "$tmp/nl.prom" || fail "no DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL"
grep -q 'left out' "$tmp/nl.err" && fail "a row left out: $(grep 'left out' "$tmp/nl.err")"

# refused_with FILE MESSAGE: the agent stops at start, saying MESSAGE (fixed string)
refused_with() {
	timeout 20 "$BIN" --sim 1xH200 agent -a "127.0.0.1:$(free_port)" --no-history -f "$1" 2>"$tmp/r.err"
	local rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$1: exit status $rc"
	grep -qF -- "$2" "$tmp/r.err" || fail "$1: not refused with '$2': $(cat -v "$tmp/r.err")"
}
refused_with "$DATA/typo.csv" "$DATA/typo.csv"':3: unknown DCGM field "DCGM_FI_DEV_GPU_TEMPP": not a name DCGM or dcgm-exporter defines (a typo?)'
refused_with "$DATA/unknown-type.csv" "$DATA/unknown-type.csv"':3: unknown metric type "gague" (gauge, counter, histogram, summary, label)'
refused_with "$DATA/empty.csv" "$DATA/empty.csv"':3: no counters: the file lists no DCGM field (expected lines of "FIELD, type, help")'
: >"$tmp/zero.csv"
refused_with "$tmp/zero.csv" "$tmp/zero.csv:1: no counters: the file lists no DCGM field"
printf 'DCGM_FI_DEV_NO_SUCH\033[31m, gauge, x\n' >"$tmp/esc.csv"
refused_with "$tmp/esc.csv" 'esc.csv:1: unknown DCGM field "DCGM_FI_DEV_NO_SUCH\x1b[31m"'
grep -q $'\033' "$tmp/r.err" && fail "a raw escape byte reached the log"

# The repo's duplicate fixture: the family once, with the first line's type and help
port=$(free_port)
"$BIN" --sim 1xH200 agent -a "127.0.0.1:$port" --no-history -f "$DATA/duplicate.csv" 2>"$tmp/dup.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "agent did not serve: $(cat -v "$tmp/dup.err")"
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/dup"
grep -qF "duplicate.csv:4: DCGM_FI_DEV_GPU_TEMP repeats line 2; line 4 skipped" "$tmp/dup.err" ||
	fail "duplicate fixture: $(cat -v "$tmp/dup.err")"
[ "$(grep -c '^# TYPE DCGM_FI_DEV_GPU_TEMP gauge$' "$tmp/dup")" = 1 ] || fail "duplicate fixture: TYPE not the first line's, once"

# DCGM's int64 fields print whole, as dcgm-exporter prints them; its doubles with six decimals
port=$(free_port)
"$BIN" --sim 1xH100:training agent -a "127.0.0.1:$port" --no-history 2>"$tmp/int.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "agent did not serve: $(cat -v "$tmp/int.err")"
sleep 1.2 # GPM rates need two samples
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/m2"
for f in DCGM_FI_PROF_PCIE_TX_BYTES DCGM_FI_PROF_PCIE_RX_BYTES DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_FB_USED; do
	grep -Eq "^$f\{[^}]*\} [0-9]+\$" "$tmp/m2" || fail "$f is not printed as an integer: $(grep "^$f{" "$tmp/m2")"
done
for f in DCGM_FI_DEV_POWER_USAGE DCGM_FI_PROF_PIPE_TENSOR_ACTIVE; do
	grep -Eq "^$f\{[^}]*\} [0-9]+\.[0-9]{6}\$" "$tmp/m2" || fail "$f is not printed as %f: $(grep "^$f{" "$tmp/m2")"
done

# DCGM_FI_DEV_XID_ERRORS carries err_code and err_msg, as dcgm-exporter 4.x
# gives them, after the label rows; the history keeps the same labels
cat >"$tmp/xid.scn" <<'SCN'
[sim]
fleet = 1xH200
[gpu 0]
fault = 1s xid 13
fault = 1200ms xid 13
fault = 1400ms xid 31
SCN
port=$(free_port)
printf 'DCGM_FI_DEV_XID_ERRORS, gauge, Value of the last XID error encountered.\nDCGM_EXP_XID_ERRORS_COUNT, counter, reported XIDs during last window\nDCGM_FI_DRIVER_VERSION, label, Driver Version\n' >"$tmp/xid.csv"
"$BIN" --sim "$tmp/xid.scn" agent -a "127.0.0.1:$port" --storage.path "$tmp/data-xid" -f "$tmp/xid.csv" 2>"$tmp/xid.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "agent did not serve: $(cat -v "$tmp/xid.err")"
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/x0"
grep -Eq '^DCGM_FI_DEV_XID_ERRORS\{gpu="0",UUID="[^"]+",pci_bus_id="[^"]+",device="nvidia0",modelName="NVIDIA H200",Hostname="[^"]+",DCGM_FI_DRIVER_VERSION="[^"]+",err_code="0",err_msg="No Error"\} 0$' "$tmp/x0" ||
	fail "XID before any: $(grep '^DCGM_FI_DEV_XID_ERRORS' "$tmp/x0")"
sleep 2.5
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/x1"
grep -Eq '^DCGM_FI_DEV_XID_ERRORS\{gpu="0",.*,DCGM_FI_DRIVER_VERSION="[^"]+",err_code="31",err_msg="GPU memory page fault"\} 31$' "$tmp/x1" ||
	fail "XID 31: $(grep '^DCGM_FI_DEV_XID_ERRORS' "$tmp/x1")"
grep -q '^DCGM_EXP_XID_ERRORS_COUNT' "$tmp/x0" && fail "an XID count before any XID: $(grep DCGM_EXP "$tmp/x0")"
# dcgm-exporter's window counts: one series per XID code seen, xid after the label rows
grep -Eq '^DCGM_EXP_XID_ERRORS_COUNT\{gpu="0",.*,DCGM_FI_DRIVER_VERSION="[^"]+",xid="13"\} 2$' "$tmp/x1" ||
	fail "XID 13 count: $(grep '^DCGM_EXP' "$tmp/x1")"
grep -Eq '^DCGM_EXP_XID_ERRORS_COUNT\{gpu="0",.*,xid="31"\} 1$' "$tmp/x1" || fail "XID 31 count: $(grep '^DCGM_EXP' "$tmp/x1")"
grep -q '^# TYPE DCGM_EXP_XID_ERRORS_COUNT counter$' "$tmp/x1" || fail "XID count TYPE"
curl -s -g "http://127.0.0.1:$port/api/v1/series?match[]=DCGM_FI_DEV_XID_ERRORS{err_code=\"31\",err_msg=\"GPU%20memory%20page%20fault\"}" >"$tmp/xs"
grep -q '"err_code":"31"' "$tmp/xs" || fail "the history has no XID 31 series: $(cat "$tmp/xs")"

# A binary file: refused at start, nothing raw in the log.
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000' >"$tmp/bin.csv"
timeout 20 "$BIN" --sim 1xH200 agent -a "127.0.0.1:$(free_port)" --storage.path "$tmp/data2" -f "$tmp/bin.csv" 2>"$tmp/bin.err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "a binary counters file: exit status $rc"
grep -q "counters file $tmp/bin.csv is not text (byte 0x7f at offset 0)" "$tmp/bin.err" ||
	fail "binary counters file: $(cat -v "$tmp/bin.err")"
LC_ALL=C grep -q $'[\001\002\177]' "$tmp/bin.err" && fail "raw bytes of the binary file reached the log"

[ "$fails" = 0 ] || exit 1
echo "ok"
