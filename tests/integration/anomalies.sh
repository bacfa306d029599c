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

# the same findings as a section of `gpuwatch report`, in every format
"$BIN" report --storage.path "$tmp/f" --from $start --to $end --format json >"$tmp/r.json" || fail "report json: exit $?"
python3 - "$tmp/r.json" "$tmp/f.json" <<'PY' || fail "report's anomalies section: $(cat "$tmp/r.json")"
import json, sys
sec = json.load(open(sys.argv[1]))["anomalies"]
cli = json.load(open(sys.argv[2]))["anomalies"]
assert sec["sensitivity"] == 6 and sec["window_seconds"] == 3600, sec
# the command's findings, one for one, with times in RFC 3339 and the evidence in words
assert [(x["gpu"], x["metric"], x["kind"]) for x in sec["found"]] == [(int(x["gpu"]), x["metric"], x["kind"]) for x in cli]
spike = [x for x in sec["found"] if x["metric"] == "power_watts" and x["kind"] == "spike"][0]
assert spike["from"].startswith("2026-07-01T03:0") and spike["score"] >= 6, spike
assert spike["evidence"].startswith("1100 W against a baseline of "), spike
PY
for fmt in text md html; do
	"$BIN" report --storage.path "$tmp/f" --from $start --to $end --format $fmt >"$tmp/r.$fmt" || fail "report $fmt: exit $?"
done
grep -Eq '^  [0-9]+\. power spike  GPU 0  2026-07-01 03:0.* score [0-9.]+$' "$tmp/r.text" ||
	fail "report text: no power spike line: $(grep -A8 '^Anomalies' "$tmp/r.text")"
grep -A1 ' power spike  GPU 0 ' "$tmp/r.text" | grep -q '^     1100 W against a baseline of' || fail "report text: no evidence line"
grep -q '^## Anomalies ([1-9][0-9]*; window 3600 s' "$tmp/r.md" || fail "report md: no anomalies heading"
grep -q '\*\*power spike\*\* on GPU 1, 2026-07-01 03:0' "$tmp/r.md" || fail "report md: no power spike on GPU 1"
grep -q '<div class="tile anomaly"><span class="kind">power spike</span> on GPU 0' "$tmp/r.html" || fail "report html: no power spike tile"
"$BIN" report --storage.path "$tmp/c" --from $start --to $end >"$tmp/rc.text" || fail "clean report: exit $?"
grep -A1 '^Anomalies (0; window 3600 s' "$tmp/rc.text" | grep -q '^  none$' || fail "clean report: no 'none' line: $(cat "$tmp/rc.text")"

# the joint test: GPU 1 of three reads 0 % utilisation for 10 minutes while it
# keeps drawing full power; a power mismatch on it, against its utilisation,
# and none on the others
printf '[sim]\nfleet = 3xH200:training\nclock = manual\nseed = 4\nepoch = 2026-07-01 00:00:00\n\n[gpu 1]\nfault = 3h spike util_gpu 0 600\n' >"$tmp/m.scn"
"$BIN" --sim "$tmp/m.scn" sim record --start $start --end 2026-07-01T06:00:00Z --interval 10s \
	--storage.path "$tmp/m" -q 2>/dev/null || fail "sim record m"
"$BIN" anomalies --storage.path "$tmp/m" --from $start --to 2026-07-01T06:00:00Z --format json >"$tmp/m.json" ||
	fail "anomalies m: exit $?"
python3 - "$tmp/m.json" $t0 <<'PY' || fail "mismatch: $(cat "$tmp/m.json")"
import json, sys
a = json.load(open(sys.argv[1]))["anomalies"]
t0 = int(sys.argv[2])
m = [x for x in a if x["kind"] == "mismatch"]
assert [x["gpu"] for x in m] == ["1"], m
x = m[0]
assert x["metric"] == "power_watts" and x["against"] == "utilization_ratio" and x["against_value"] == 0, x
assert 10800 - 60 <= x["start"] - t0 <= 10800 + 300 and x["score"] >= 6, x
assert x["value"] > 600 and x["baseline"] < x["value"] - 6 * x["scale"], x
assert not [y for y in a if y["gpu"] != "1"], a
PY
"$BIN" anomalies --storage.path "$tmp/m" --from $start --to 2026-07-01T06:00:00Z |
	grep -Eq '  GPU 1  power mismatch: [0-9.]+ W at utilisation 0 %, where the last 3600 s give [0-9.]+ W \(' ||
	fail "no mismatch line in the text"

"$BIN" anomalies --help | grep -q 'usage: gpuwatch anomalies' || fail "--help"
"$BIN" anomalies --storage.path "$tmp/f" --format html 2>"$tmp/err"
[ $? = 2 ] && grep -q 'format html: not a format' "$tmp/err" || fail "bad --format: $(cat "$tmp/err")"
"$BIN" anomalies --storage.path "$tmp/f" --sensitivity -1 2>"$tmp/err"
[ $? = 2 ] && grep -q 'sensitivity -1' "$tmp/err" || fail "bad --sensitivity: $(cat "$tmp/err")"
"$BIN" anomalies --storage.path "$tmp/nowhere" >/dev/null 2>&1
[ $? = 1 ] || fail "a missing store is not exit 1"

[ "$fails" = 0 ] || exit 1
echo ok
