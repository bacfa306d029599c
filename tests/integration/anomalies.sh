#!/usr/bin/env bash
# `gpuwatch anomalies` over simulated history: a power spike injected at
# START+3h and a power-capping throttle at START+5h are found on both GPUs
# at those times (text and JSON); a clean run of the same workload, with
# its eval pauses and checkpoints, gives none; bad arguments fail with
# exit 2 and say what is wrong.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
. "$(dirname "$0")/../lib/common.sh"

scn() { # SEED FAULTS...
	printf '[sim]\nfleet = 2xH200:training\nclock = manual\nseed = %s\nepoch = 2026-07-01 00:00:00\n' "$1"
	shift
	for f in "$@"; do printf 'fault = %s\n' "$f"; done
}
start=2026-07-01T00:00:00Z
end=2026-07-01T08:00:00Z
t0=1782864000
scn 2 "3h spike power_mw 1100000 120" "5h throttle sw-power 900" >"$tmp/f.scn"
scn 2 >"$tmp/c.scn"
for k in f c; do
	"$BIN" --sim "$tmp/$k.scn" sim record --start $start --end $end --interval 10s \
		--storage.path "$tmp/$k" -q 2>/dev/null || fail "sim record $k"
done

"$BIN" anomalies --storage.path "$tmp/f" --from $start --to $end >"$tmp/f.txt" || fail "anomalies: exit $?"
grep -q '^  2026-07-01T03:0.* GPU 0  power spike: 1100 W' "$tmp/f.txt" || fail "no power spike at 03:00 on GPU 0: $(cat "$tmp/f.txt")"
grep -q '^  2026-07-01T03:0.* GPU 1  power spike: 1100 W' "$tmp/f.txt" || fail "no power spike at 03:00 on GPU 1"
grep -q '^  2026-07-01T05:0.* GPU 1  ' "$tmp/f.txt" || fail "no anomaly at the 05:00 throttle on GPU 1"

"$BIN" anomalies --storage.path "$tmp/f" --from $start --to $end --format json >"$tmp/f.json" || fail "json: exit $?"
python3 - "$tmp/f.json" $t0 <<'PY' || fail "json findings: $(cat "$tmp/f.json")"
import json, sys
a = json.load(open(sys.argv[1]))["anomalies"]
t0 = int(sys.argv[2])
spikes = [x for x in a if x["metric"] == "power_watts" and x["kind"] == "spike" and abs(x["start"] - t0 - 10800) < 120]
assert sorted(x["gpu"] for x in spikes) == ["0", "1"], spikes
for x in spikes:
    assert x["value"] == 1100 and 500 < x["baseline"] < 800 and x["score"] >= 6, x
PY

"$BIN" anomalies --storage.path "$tmp/c" --from $start --to $end >"$tmp/c.txt" || fail "clean: exit $?"
grep -q '^  none$' "$tmp/c.txt" || fail "clean run has anomalies: $(cat "$tmp/c.txt")"

"$BIN" anomalies --help | grep -q 'usage: gpuwatch anomalies' || fail "--help"
"$BIN" anomalies --storage.path "$tmp/f" --format html 2>"$tmp/err"
[ $? = 2 ] && grep -q 'format html: not a format' "$tmp/err" || fail "bad --format: $(cat "$tmp/err")"
"$BIN" anomalies --storage.path "$tmp/f" --sensitivity -1 2>"$tmp/err"
[ $? = 2 ] && grep -q 'sensitivity -1' "$tmp/err" || fail "bad --sensitivity: $(cat "$tmp/err")"
"$BIN" anomalies --storage.path "$tmp/nowhere" >/dev/null 2>&1
[ $? = 1 ] || fail "a missing store is not exit 1"

[ "$fails" = 0 ] || exit 1
echo ok
