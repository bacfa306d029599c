#!/usr/bin/env bash
# `gpuwatch import` tells the formats apart by their first lines (from a
# file or a pipe): the default table, -q reports, dmon and pmon logs land
# in the store as the series /metrics has; what it cannot read gets one
# message saying what it looks like and what it takes, and nothing else.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
DATA=${GW_TEST_DATA:?GW_TEST_DATA must point at tests/}/data/import
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export TZ=UTC
T0=1796205600 # 2026-12-02 10:00:00 UTC
q() { "$BIN" query --storage.path "$tmp/$1" --time "$2" "$3" 2>&1; }

"$BIN" import --storage.path "$tmp/t" "$DATA/table_loop.txt" >"$tmp/t.out" 2>"$tmp/t.err"
[ $? = 3 ] || fail "table import exit status, want 3 (a bad line)"
grep -q "table_loop.txt: 48 lines, 3 rows, .* 1 bad lines, .* (table headers and MIG devices)" "$tmp/t.out" ||
	fail "table summary: $(cat "$tmp/t.out")"
grep -q 'table_loop.txt:38: "hot" is not a value of temperature.gpu' "$tmp/t.err" || fail "table bad line: $(cat "$tmp/t.err")"
q t $((T0 + 60)) 'DCGM_FI_DEV_GPU_TEMP{gpu="0"}' | grep -q '=> 54 @' || fail "table value: $(q t $((T0 + 60)) 'DCGM_FI_DEV_GPU_TEMP')"

# from a pipe: the lines read to tell the format are not lost
cat "$DATA/query_loop.txt" | "$BIN" import --storage.path "$tmp/q" - >"$tmp/q.out" 2>"$tmp/q.err"
grep -q -- "-: 65 lines, 3 rows, 50 samples imported, 1 bad lines" "$tmp/q.out" || fail "-q from a pipe: $(cat "$tmp/q.out" "$tmp/q.err")"
q q $T0 'DCGM_FI_DEV_FB_USED{gpu="0",instance="-"}' | grep -q '=> 40112 @' || fail "-q value: $(q q $T0 DCGM_FI_DEV_FB_USED)"
q q $((T0 + 60)) 'DCGM_FI_DEV_POWER_USAGE{gpu="0"}' | grep -q '=> 301.25 @' || fail "-q power of the second report"

"$BIN" import --storage.path "$tmp/d" "$DATA/dmon_dt.txt" >"$tmp/d.out" 2>"$tmp/d.err"
grep -q "dmon_dt.txt: 7 lines, 4 rows, .* 1 bad lines" "$tmp/d.out" || fail "dmon summary: $(cat "$tmp/d.out")"
q d $((T0 + 1)) 'DCGM_FI_DEV_POWER_USAGE{gpu="0"}' | grep -q '=> 301 @' || fail "dmon value"

# dmon without time columns: one message with what to do, nothing imported
"$BIN" import --storage.path "$tmp/p" "$DATA/dmon_plain.txt" >"$tmp/p.out" 2>"$tmp/p.err"
[ $? = 1 ] || fail "dmon without times: exit status, want 1"
[ "$(wc -l <"$tmp/p.err")" = 1 ] || fail "dmon without times: more than one message: $(cat "$tmp/p.err")"
grep -q "dmon output without time columns: log it with \`nvidia-smi dmon -o DT\`, or give --start" "$tmp/p.err" ||
	fail "dmon without times: $(cat "$tmp/p.err")"
"$BIN" import --storage.path "$tmp/p" --start "2026-12-02 10:00:00" --interval 5 "$DATA/dmon_plain.txt" >"$tmp/p.out" ||
	fail "dmon with --start: $(cat "$tmp/p.out")"
q p $((T0 + 10)) 'DCGM_FI_DEV_POWER_USAGE{gpu="0"}' | grep -q '=> 299 @' || fail "dmon --start/--interval value"

"$BIN" import --storage.path "$tmp/pm" --start 2026-12-01T23:00:00Z "$DATA/pmon_t.txt" >"$tmp/pm.out" ||
	fail "pmon: $(cat "$tmp/pm.out")"
q pm $((T0 - 36000)) 'gpuwatch_process_sm_utilization_ratio{pid="4242"}' | grep -q '=> 0.95 @' ||
	fail "pmon value: $(q pm $((T0 - 36000)) 'gpuwatch_process_sm_utilization_ratio')"

# What it cannot read: one line naming what it saw and what it takes.
"$BIN" --sim 2xL40S smi -L >"$tmp/list.txt" 2>/dev/null
printf '0, 55, 300.5\n1, 60, 301\n2, 61, 299\n' >"$tmp/noheader.csv"
printf '<?xml version="1.0" ?>\n<nvidia_smi_log>\n' >"$tmp/q.xml"
for f in list.txt:"nvidia-smi -L output" noheader.csv:"give --fields" q.xml:"XML"; do
	name=${f%%:*} want=${f#*:}
	"$BIN" import --storage.path "$tmp/u" "$tmp/$name" >"$tmp/u.out" 2>"$tmp/u.err"
	rc=$?
	[ "$rc" = 1 ] || fail "$name: exit status $rc, want 1"
	[ "$(wc -l <"$tmp/u.err")" = 1 ] || fail "$name: not one message: $(cat "$tmp/u.err")"
	grep -q "^gpuwatch import: .*$name: this looks like .*$want.*; gpuwatch imports nvidia-smi --query-gpu CSV logs, -q reports, the default table, dmon and pmon logs" \
		"$tmp/u.err" || fail "$name: $(cat "$tmp/u.err")"
done
# the same headerless log with --fields is read
"$BIN" import --storage.path "$tmp/u" --fields index,temperature.gpu,power.draw "$tmp/noheader.csv" >/dev/null 2>"$tmp/nf.err"
grep -q "no time for this row" "$tmp/nf.err" || fail "headerless with --fields went to the CSV importer: $(cat "$tmp/nf.err")"
"$BIN" import --storage.path "$tmp/u" --format xml "$tmp/q.xml" 2>"$tmp/fx.err" && fail "--format xml accepted"
grep -q "format is auto, csv, table, query, dmon, pmon or openmetrics" "$tmp/fx.err" || fail "--format message: $(cat "$tmp/fx.err")"

[ "$fails" = 0 ] && echo "ok: table, -q, dmon and pmon logs imported by their look; unknown input named in one line"
exit $((fails > 0))
