#!/usr/bin/env bash
# Paths that hold no store, or cannot hold one, are said so at once:
# readers (query, export) never create a store where there is none, and the
# writers that start now (the agent, sim record, import) refuse a directory
# they cannot create instead of holding samples in memory. The agent's
# sample interval below its floor is refused too.
. "$(dirname "$0")/../lib/common.sh"
export GPUWATCH_SIM_LIBRARY=$GW_SIM_LIB
none="$tmp/none"
for cmd in "query up" "export"; do
	# shellcheck disable=SC2086
	out=$("$GW_BIN" $cmd --storage.path "$none" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "${cmd%% *} on a path without a store exited 0"
	echo "$out" | grep -q "no store in $none" || fail "${cmd%% *}: no clear error: $out"
	[ ! -e "$none" ] || fail "${cmd%% *} created $none"
done
# A file where the directory should be: mkdir fails, for root too.
touch "$tmp/file"
bad="$tmp/file/data"
out=$(timeout 10 "$GW_BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$bad" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "agent on an uncreatable store path exited $rc, want 1"
echo "$out" | grep -q "cannot open the history store $bad: mkdir" || fail "agent: no clear error: $out"
out=$("$GW_BIN" --sim 1xH200 sim record --duration 1m --storage.path "$bad" 2>&1)
[ $? -ne 0 ] || fail "sim record into an uncreatable path exited 0"
echo "$out" | grep -q "mkdir" || fail "sim record: no clear error: $out"
printf 'index, utilization.gpu [%%]\n0, 5 %%\n' >"$tmp/log.csv"
out=$("$GW_BIN" import --storage.path "$bad" "$tmp/log.csv" 2>&1)
[ $? -ne 0 ] || fail "import into an uncreatable path exited 0"
echo "$out" | grep -q "mkdir" || fail "import: no clear error: $out"
out=$("$GW_BIN" --sim 1xH200 agent -c 1 --no-history 2>&1)
[ $? -eq 2 ] || fail "agent -c 1 was not refused"
echo "$out" | grep -q -- '-c wants milliseconds (10..86400000), got "1"' || fail "agent -c 1: $out"
echo "$((9 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
