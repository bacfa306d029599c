#!/usr/bin/env bash
# `gpuwatch record -- CMD`: CMD's exit code passes through (0, 3, 128+N on
# signal death, 127 not found), the JSON summary holds argv, exit code and a
# duration close to CMD's, SIGINT sent to record reaches CMD (which traps it
# and writes a file) and the summary is still written, and --help works.
# With --sim the GPUs are sampled while CMD runs: 2 GPUs with utilisation
# statistics, energy and peak memory in the JSON; the temporary store is
# removed (kept with --storage.path, where query reads it); without NVML a
# single warning and "gpus": []; SIGINT reaches CMD while the sampler's
# threads run. --assert: a true one passes, an empty
# result exits 30 after CMD ran, CMD's own code wins, one that does not
# parse exits 2 before CMD runs. --junit parses and lists the failures.
# --baseline: a busy run against an idle one's summary regresses in energy
# and peak memory (exit 31, listed), the same workload within a wide
# tolerance passes, an unreadable baseline exits 2 before CMD runs.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(json.dumps(v))' "$1" "$2"; }

"$BIN" record --help | grep -q 'usage: gpuwatch record' || fail "--help"
"$BIN" record -o "$T/x.json" >/dev/null 2>&1; [ $? = 2 ] || fail "no command must exit 2"

"$BIN" record -o "$T/ok.json" -- true; [ $? = 0 ] || fail "true must exit 0"
[ "$(field "$T/ok.json" exit_code)" = 0 ] || fail "exit_code 0 in JSON"
[ "$(field "$T/ok.json" argv)" = '["true"]' ] || fail "argv in JSON"

"$BIN" record -o "$T/three.json" -- sh -c 'exit 3'; [ $? = 3 ] || fail "exit 3 must pass through"
[ "$(field "$T/three.json" exit_code)" = 3 ] || fail "exit_code 3 in JSON"

"$BIN" record -o "$T/sig.json" -- sh -c 'kill -9 $$'; [ $? = 137 ] || fail "SIGKILL death must exit 137"
[ "$(field "$T/sig.json" signal)" = 9 ] || fail "signal 9 in JSON"

"$BIN" record -o "$T/nf.json" -- no-such-command-gw 2>"$T/nf.err"; [ $? = 127 ] || fail "not found must exit 127"
grep -q 'no-such-command-gw: command not found' "$T/nf.err" || fail "not-found message"

# Duration: a 1 s CMD is recorded as about 1 s, and record returns when it does.
s=$(date +%s%N)
"$BIN" record -o "$T/d.json" -- sleep 1 || fail "sleep 1"
el=$(( ($(date +%s%N) - s) / 1000000 ))
[ "$el" -lt 3000 ] || fail "record took ${el} ms for a 1 s command"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["duration_seconds"]; sys.exit(0 if 0.9 <= d <= 2.5 else 1)' "$T/d.json" || fail "duration $(field "$T/d.json" duration_seconds)"

# SIGINT to record reaches CMD: CMD traps it, writes a file and exits 5.
"$BIN" record -o "$T/int.json" -- sh -c "trap 'echo got > \"$T/trapped\"; kill \$! 2>/dev/null; exit 5' INT; echo up > \"$T/up\"; sleep 20 & wait" &
rp=$!
for _ in $(seq 100); do [ -e "$T/up" ] && break; sleep 0.05; done
[ -e "$T/up" ] || fail "CMD did not start"
kill -INT $rp
wait $rp; rc=$?
[ $rc = 5 ] || fail "SIGINT: record exited $rc, want CMD's 5"
[ -e "$T/trapped" ] || fail "SIGINT did not reach CMD"
[ "$(field "$T/int.json" exit_code)" = 5 ] || fail "summary after SIGINT"

# --- GPU sampling (--sim) ---
GPUJSON='import json,sys; d=json.load(open(sys.argv[1]))'
mkdir -p "$T/tmp"
TMPDIR="$T/tmp" "$BIN" --sim 2xH100:training record --interval 250ms -o "$T/sim.json" -- sleep 2 2>"$T/sim.err" \
	|| fail "sim record exited $? ($(cat "$T/sim.err"))"
python3 -c "$GPUJSON"'
g = d["gpus"]
assert len(g) == 2, g
for x in g:
    u = x["stats"]["utilization_ratio"]
    assert u["samples"] >= 4 and u["mean"] > 0 and u["max"] > 0, u
    assert x["energy_joules"] > 0, x
assert d["energy_joules"] > 0 and d["peak_memory_bytes"] > 1e9, d
assert d["report"]["gpus"] and "findings" in d["report"], d["report"].keys()
assert 1.8 <= d["duration_seconds"] <= 4 and d["exit_code"] == 0 and d["interval_seconds"] == 0.25
' "$T/sim.json" || fail "sim summary: $(head -c 600 "$T/sim.json")"
[ -z "$(ls -A "$T/tmp")" ] || fail "temporary store left behind: $(ls "$T/tmp")"

"$BIN" --sim 2xH100:training record --interval 200ms --storage.path "$T/store" -o "$T/kept.json" -- sleep 1 2>/dev/null \
	|| fail "--storage.path run"
"$BIN" query --storage.path "$T/store" 'count(DCGM_FI_DEV_GPU_UTIL)' | grep -q '=> 2 @' \
	|| fail "kept store does not hold 2 GPUs' DCGM_FI_DEV_GPU_UTIL"

GPUWATCH_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$BIN" record -o "$T/none.json" -- true 2>"$T/none.err" \
	|| fail "no NVML: CMD must still run and pass"
[ "$(grep -c 'no GPU is sampled' "$T/none.err")" = 1 ] || fail "no NVML: one warning, got: $(cat "$T/none.err")"
[ "$(field "$T/none.json" gpus)" = '[]' ] || fail "no NVML: gpus must be []"

"$BIN" --sim 2xNOSUCHGPU record -o "$T/x.json" -- touch "$T/sim-ran" 2>"$T/badsim.err"; rc=$?
[ $rc = 2 ] && [ ! -e "$T/sim-ran" ] || fail "a bad --sim SPEC must exit 2 before CMD runs (got $rc)"
grep -q 'NOSUCHGPU' "$T/badsim.err" || fail "bad --sim message: $(cat "$T/badsim.err")"
"$BIN" record --interval 50ms -o "$T/x.json" -- true 2>/dev/null; [ $? = 2 ] || fail "--interval 50ms must exit 2"

# SIGINT still reaches CMD while the sampler's threads run, and the GPUs are in the summary.
"$BIN" --sim 1xH100:training record --interval 200ms -o "$T/sint.json" -- sh -c "trap 'kill \$! 2>/dev/null; exit 6' INT; echo up > \"$T/sup\"; sleep 20 & wait" 2>/dev/null &
rp=$!
for _ in $(seq 100); do [ -e "$T/sup" ] && break; sleep 0.05; done
[ -e "$T/sup" ] || fail "sampled CMD did not start"
kill -INT $rp
wait $rp; rc=$?
[ $rc = 6 ] || fail "SIGINT while sampling: record exited $rc, want CMD's 6"
python3 -c "$GPUJSON"'; assert len(d["gpus"]) == 1 and d["exit_code"] == 6, d["exit_code"]' "$T/sint.json" \
	|| fail "summary after SIGINT while sampling"

# --- asserts and JUnit ---
"$BIN" --sim 2xH100:training record --interval 200ms -o "$T/as.json" --junit "$T/j.xml" \
	--assert 'DCGM_FI_DEV_GPU_UTIL > 0' --assert 'DCGM_FI_DEV_GPU_UTIL > 1000' \
	--assert 'DCGM_FI_DEV_GPU_UTIL < 1000 and DCGM_FI_DEV_GPU_UTIL >= 0' -- sh -c "sleep 1; touch '$T/ran'" 2>"$T/as.err"
rc=$?
[ $rc = 30 ] || fail "failed assert: exit $rc, want 30 ($(cat "$T/as.err"))"
[ -e "$T/ran" ] || fail "CMD did not run with asserts"
grep -q 'gpuwatch record: assert failed: DCGM_FI_DEV_GPU_UTIL > 1000 (empty result)' "$T/as.err" || fail "assert message: $(cat "$T/as.err")"
[ "$(grep -c 'assert failed' "$T/as.err")" = 1 ] || fail "only one assert fails: $(cat "$T/as.err")"
python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("name") == "gpuwatch record" and s.get("tests") == "4" and s.get("failures") == "1", s.attrib
cases = s.findall("testcase")
assert [c.get("name") for c in cases] == ["sh -c sleep 1; touch '"'"'%s/ran'"'"'" % sys.argv[2], "DCGM_FI_DEV_GPU_UTIL > 0",
    "DCGM_FI_DEV_GPU_UTIL > 1000", "DCGM_FI_DEV_GPU_UTIL < 1000 and DCGM_FI_DEV_GPU_UTIL >= 0"], [c.get("name") for c in cases]
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert failed == ["DCGM_FI_DEV_GPU_UTIL > 1000"], failed
assert "empty result" in cases[2].find("failure").get("message")
' "$T/j.xml" "$T" || fail "junit: $(cat "$T/j.xml")"
python3 -c "$GPUJSON"'
assert [a["passed"] for a in d["asserts"]] == [True, False, True], d["asserts"]
' "$T/as.json" || fail "asserts in the summary"

"$BIN" --sim 1xH100 record --interval 200ms -o "$T/own.json" --junit "$T/own.xml" --assert 'DCGM_FI_DEV_GPU_UTIL > 1000' -- sh -c 'exit 4' 2>/dev/null
rc=$?; [ $rc = 4 ] || fail "CMD's own code must win over a failed assert: got $rc"
python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("failures") == "2", s.attrib
assert "exit code 4" in s.findall("testcase")[0].find("failure").get("message")
' "$T/own.xml" || fail "junit with a failing command: $(cat "$T/own.xml")"

"$BIN" --sim 1xH100 record -o "$T/bad.json" --assert 'rate(' -- touch "$T/bad-ran" 2>"$T/bad.err"
rc=$?; [ $rc = 2 ] || fail "unparsable assert: exit $rc, want 2"
[ ! -e "$T/bad-ran" ] || fail "CMD ran despite an unparsable assert"
grep -q "assert 'rate(': " "$T/bad.err" || fail "parse error message: $(cat "$T/bad.err")"

# --- baseline ---
"$BIN" --sim 2xH100:idle record --interval 200ms -o "$T/idle.json" -- sleep 1 2>/dev/null || fail "idle run"
"$BIN" --sim 2xH100:training record --interval 200ms -o "$T/busy.json" --baseline "$T/idle.json" --junit "$T/b.xml" \
	-- sleep 1 2>"$T/b.err"
rc=$?; [ $rc = 31 ] || fail "busy vs idle baseline: exit $rc, want 31 ($(cat "$T/b.err"))"
grep -q 'baseline energy_joules: regression: ' "$T/b.err" || fail "energy regression not listed: $(cat "$T/b.err")"
grep -q 'baseline peak_memory_bytes: regression: ' "$T/b.err" || fail "memory regression not listed"
python3 -c "$GPUJSON"'
b = d["baseline"]
assert b["regressions"] == 2 and b["tolerance"] == 0.1, b
r = {m["metric"]: m["regression"] for m in b["metrics"]}
assert r == {"utilization_ratio_mean": False, "energy_joules": True, "peak_memory_bytes": True}, r
' "$T/busy.json" || fail "baseline in the summary: $(python3 -c "$GPUJSON"'; print(d.get("baseline"))' "$T/busy.json")"
python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
failed = [c.get("name") for c in s.findall("testcase") if c.find("failure") is not None]
assert failed == ["baseline energy_joules", "baseline peak_memory_bytes"], failed
' "$T/b.xml" || fail "baseline in junit: $(cat "$T/b.xml")"
"$BIN" --sim 2xH100:training record --interval 200ms -o "$T/same.json" --baseline "$T/busy.json" --tolerance 50% \
	-- sleep 1 2>"$T/same.err" || fail "same workload within 50%: exit $? ($(cat "$T/same.err"))"
"$BIN" record -o "$T/nb.json" --baseline "$T/missing.json" -- touch "$T/nb-ran" 2>"$T/nb.err"
rc=$?; [ $rc = 2 ] || fail "missing baseline: exit $rc, want 2"
[ ! -e "$T/nb-ran" ] || fail "CMD ran despite an unreadable baseline"
"$BIN" record --tolerance ten -- true 2>/dev/null; [ $? = 2 ] || fail "--tolerance ten must exit 2"
echo ok
