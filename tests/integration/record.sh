#!/usr/bin/env bash
# `gpuwatch record -- CMD`: CMD's exit code passes through (0, 3, 128+N on
# signal death, 127 not found), the JSON summary holds argv, exit code and a
# duration close to CMD's, SIGINT sent to record reaches CMD (which traps it
# and writes a file) and the summary is still written, and --help works.
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
echo ok
