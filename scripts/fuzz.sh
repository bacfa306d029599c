#!/usr/bin/env bash
# Fuzz every parser with libFuzzer under ASan + UBSan (clang from Debian).
# Usage: scripts/fuzz.sh [RUNS] [TARGET...]
#   RUNS     executions per target (default 10000000); "60s" runs each for
#            that long instead
#   TARGET   promql, api_params, import, counters, codec, jsonread, sim,
#            webcfg (default: all of tests/fuzz/fuzz_*.c)
# New inputs that reach new code are kept in build-fuzz/corpus/NAME; a
# crash leaves its input in build-fuzz/crash-NAME-* and fails the script.
# Inputs worth keeping as regressions go into tests/fuzz/corpus/NAME/
# (ctest runs those in every build). Prints one line per target: runs,
# seconds, executions per second, corpus size, result.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000000}
shift || true
scripts/deps.sh fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do t=${f##*/fuzz_}; targets+=("${t%.c}"); done
fi
# GW_FUZZ_NO_BUILD=1: run the targets already built (another campaign may be running them)
if [ -z "${GW_FUZZ_NO_BUILD:-}" ]; then
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGW_FUZZ=ON \
		-DGW_SANITIZE=ON -DGW_WERROR=OFF >/dev/null
	cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null
fi
limit=(-runs="$runs")
case $runs in *s) limit=(-max_total_time="${runs%s}") ;; esac
status=0
printf '%-12s %12s %8s %10s %8s  %s\n' target runs seconds exec/s corpus result
for t in "${targets[@]}"; do
	mkdir -p "build-fuzz/corpus/$t"
	log="build-fuzz/fuzz-$t.log"
	start=$(date +%s.%N)
	set +e
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"build-fuzz/tests/fuzz_$t" "${limit[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="build-fuzz/crash-$t-" -print_final_stats=1 \
		"build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	set -e
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
	done_runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
	corpus=$(ls "build-fuzz/corpus/$t" | wc -l)
	result=ok
	[ $rc -eq 0 ] || { result="FAILED (see $log)"; status=1; }
	printf '%-12s %12s %8.0f %10.0f %8s  %s\n' "$t" "$done_runs" "$secs" "$(awk -v r="$done_runs" -v s="$secs" 'BEGIN { print r / s }')" \
		"$corpus" "$result"
done
exit $status
