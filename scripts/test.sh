#!/usr/bin/env bash
# Build and run the whole test suite twice: a normal build with warnings as
# errors, then an AddressSanitizer + UndefinedBehaviorSanitizer build.
# Usage: scripts/test.sh            (what CI runs)
#        scripts/test.sh --quick    (normal build only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)

echo "== build (warnings are errors)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGW_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"

if [ "${1:-}" != --quick ]; then
	echo "== build with ASan + UBSan"
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGW_WERROR=ON -DGW_SANITIZE=ON >/dev/null
	cmake --build build-asan -j"$jobs"
	echo "== tests under ASan + UBSan"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir build-asan --output-on-failure -j"$jobs"
fi
