#!/usr/bin/env bash
# `gpuwatch import` of logs made to grow the store without bound: 20,000
# made-up GPU indexes (once a set of series each, 130 MiB for a 1.7 MB file)
# are bad lines, reported by number, and memory stays small; 12,000 made-up
# UUIDs (36,000 series) stop the import at the series cap with a message.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v python3 >/dev/null || { echo "skipped: python3 missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

asan=0
if [ -n "${GW_ASAN:-}" ] || ldd "$BIN" 2>/dev/null | grep -q libasan; then
	asan=1
fi
# Peak RSS bound (MiB) of the index file: 11 MiB measured (1,024 GPUs of
# 3 series at most), 130 MiB before indexes were bounded.
bound=$([ "$asan" = 1 ] && echo 160 || echo 40)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"

# import FILE NAME: the peak RSS (KiB) lands in NAME.rss, the exit status in NAME.rc.
import() {
	TZ=UTC python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[3:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
open(sys.argv[2], "w").write("%d\n" % r.returncode)' "$tmp/$2.rss" "$tmp/$2.rc" \
		"$BIN" import --storage.path "$tmp/$2" "$1" >"$tmp/$2.out" 2>"$tmp/$2.err"
}

# 49,509 rows of 20,000 GPU indexes, 1.7 MB; indexes 0..1023 are GPUs.
awk 'BEGIN { print "timestamp, index, temperature.gpu"
	for (r = 0; r < 49509; r++)
		printf "2026/07/03 %02d:%02d:%02d.%03d, %d, %d\n", 10 + int(r / 360000), int(r / 6000) % 60,
			int(r / 100) % 60, (r % 100) * 10, r % 20000, 40 + r % 30 }' >"$tmp/indexes.csv"
import "$tmp/indexes.csv" indexes
[ "$(cat "$tmp/indexes.rc")" = 3 ] || fail "index import exited $(cat "$tmp/indexes.rc"), want 3 (bad lines)"
grep -q "indexes.csv: 49510 lines, 3072 rows, [0-9]* samples imported, 46437 bad lines, 0 lines skipped" \
	"$tmp/indexes.out" || fail "index summary: $(cat "$tmp/indexes.out")"
grep -q 'indexes.csv:1026: GPU index "1024" is not 0..1023$' "$tmp/indexes.err" ||
	fail "first bad index not reported by line: $(head -3 "$tmp/indexes.err")"
rss=$(($(cat "$tmp/indexes.rss") >> 10))
echo "20,000 GPU indexes: peak RSS $rss MiB"
[ "$rss" -le "$bound" ] || fail "peak RSS $rss MiB over $bound MiB"

# 12,000 UUIDs on 8 GPUs: 36,000 series, over the cap of 32,768.
awk 'BEGIN { print "timestamp, index, uuid, temperature.gpu"
	for (r = 0; r < 12000; r++)
		printf "2026/07/03 %02d:%02d:%02d.000, %d, GPU-%08d, 40\n", 10 + int(r / 3600), int(r / 60) % 60,
			r % 60, r % 8, r }' >"$tmp/uuids.csv"
import "$tmp/uuids.csv" uuids
[ "$(cat "$tmp/uuids.rc")" = 1 ] || fail "UUID import exited $(cat "$tmp/uuids.rc"), want 1"
grep -q "^gpuwatch import: .*uuids.csv: more than 32768 new series in one import" "$tmp/uuids.err" ||
	fail "series cap message: $(tail -2 "$tmp/uuids.err")"
echo "12,000 UUIDs: stopped at the series cap, peak RSS $(($(cat "$tmp/uuids.rss") >> 10)) MiB"

# What came before the cap is in the store.
got=$("$BIN" query --storage.path "$tmp/uuids" --time 1783080000 'count(count by (uuid) (DCGM_FI_DEV_GPU_TEMP))' 2>&1)
echo "$got" | grep -q '=> [0-9]' || fail "store after the cap: $got"

[ "$fails" = 0 ] || exit 1
echo ok
