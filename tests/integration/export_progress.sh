#!/usr/bin/env bash
# `gpuwatch export` on a terminal shows its progress on standard error
# (series, samples and bytes written, ending with the totals); with stderr
# not a terminal it writes nothing there. The terminal is a pty from
# script(1) (util-linux); the export's own output goes to a file.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v script >/dev/null || { echo "skipped: script (util-linux) missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$BIN" --sim 2xH100:training sim record --duration 5m --storage.path "$tmp/data" >/dev/null 2>&1 ||
	{ echo "FAIL: sim record"; exit 1; }

# On a pty: progress, then the totals, on stderr; stdout (the file) has none of it.
script -qec "'$BIN' export --storage.path '$tmp/data' --match DCGM_FI_DEV_GPU_TEMP >'$tmp/tty.om'" /dev/null \
	>"$tmp/tty.log" 2>&1 </dev/null || fail "export on a pty exited $?"
samples=$(grep -c '^DCGM_FI_DEV_GPU_TEMP' "$tmp/tty.om")
bytes=$(wc -c <"$tmp/tty.om")
[ "$samples" -gt 500 ] || fail "exported samples: $samples"
last=$(tr '\r' '\n' <"$tmp/tty.log" | grep 'export:' | tail -1)
echo "$last" | grep -Eq "^export: 2/2 series, $samples samples, [0-9.]+ MiB written, [0-9.]+ s" ||
	fail "progress on the terminal: '$last' (want 2/2 series, $samples samples)"
mib=$(echo "$last" | sed -E 's/.* ([0-9.]+) MiB written.*/\1/')
want=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
[ "$mib" = "$want" ] || fail "bytes in the progress line: $mib MiB, file has $want MiB"
grep -q 'export:' "$tmp/tty.om" && fail "progress text in the exported data"

# Not a terminal: nothing on stderr, the same data.
"$BIN" export --storage.path "$tmp/data" --match DCGM_FI_DEV_GPU_TEMP >"$tmp/pipe.om" 2>"$tmp/pipe.err" ||
	fail "export to a file exited $?"
[ -s "$tmp/pipe.err" ] && fail "stderr not a terminal, yet: $(head -c 200 "$tmp/pipe.err")"
cmp -s "$tmp/pipe.om" "$tmp/tty.om" || fail "the data differs between the pty and the file run"

[ "$fails" = 0 ] && echo "ok: progress on a terminal ($samples samples, $want MiB), none when stderr is a file"
exit $((fails > 0))
