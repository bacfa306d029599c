#!/usr/bin/env bash
# Crash safety of the history store: a writer appends and flushes without
# end and is killed with SIGKILL at random moments, 100 times (ROUNDS). After
# each kill the store must open, and every sample up to the last flush the
# writer reported must be there, gap-free and with the right values.
# Needs GW_STORE_CRASH (the store_crash tool; ctest sets it).
set -euo pipefail
tool=${GW_STORE_CRASH:?set GW_STORE_CRASH to the store_crash binary}
rounds=${ROUNDS:-100}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
RANDOM=${SEED:-$$}
echo "store_crash: $rounds kills, seed $RANDOM, dir $dir"
last=0
for ((i = 1; i <= rounds; i++)); do
	"$tool" write "$dir/db" >"$dir/out" 2>"$dir/err" &
	pid=$!
	# 20..219 ms: through open, appends, flushes and cuts alike
	sleep "0.$(printf '%03d' $((20 + RANDOM % 200)))"
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ -s "$dir/err" ]; then
		echo "round $i: writer failed:"; cat "$dir/err"; exit 1
	fi
	t=$(awk '/^flushed/ { t = $2 } END { print t + 0 }' "$dir/out")
	[ "$t" -gt "$last" ] && last=$t
	if ! res=$("$tool" check "$dir/db" "$last" 2>&1); then
		echo "round $i: check failed after flush $last:"; echo "$res"; exit 1
	fi
done
echo "store_crash: $rounds kills survived; last flushed t=$last, $res"
