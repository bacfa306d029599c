#!/usr/bin/env bash
# A GPU that falls off the bus mid-loop: its values become unavailable, the
# loop keeps printing the other GPUs, and the exit code at the end is 15.
# Needs a simulator scenario with the fault: $GW_TEST_DATA/data/scenarios/gpu-lost.*
# (GPU 1 of 2 lost about one second in); skipped (77) while there is none.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
scn=$(ls "${GW_TEST_DATA:-tests}"/data/scenarios/gpu-lost.* 2>/dev/null | head -1)
if [ -z "$scn" ]; then
	echo "skipped: no gpu-lost scenario in ${GW_TEST_DATA:-tests}/data/scenarios"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --preserve-status: without it timeout answers 124 whatever gpuwatch exits with
timeout --preserve-status -s INT 3 "$BIN" --sim "$scn" smi --query-gpu=index,temperature.gpu --format=csv,noheader -lms 250 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 15 ] || fail "exit $rc after a lost GPU, want 15"
last0=$(grep -n '^0, ' "$tmp/out" | tail -1 | cut -d: -f1)
lost1=$(grep -n '^1, \[' "$tmp/out" | head -1 | cut -d: -f1)
[ -n "$lost1" ] || fail "GPU 1 never shows an unavailable value: $(cat "$tmp/out")"
[ -n "$last0" ] && [ -n "$lost1" ] && [ "$last0" -gt "$lost1" ] || fail "GPU 0 stopped printing after GPU 1 was lost"

"$BIN" --sim "$scn" dmon -c 3 >"$tmp/dmon" 2>/dev/null
rc=$?
[ "$rc" = 15 ] || fail "dmon exit $rc after a lost GPU, want 15"
[ "$fails" = 0 ] || exit 1
echo ok
