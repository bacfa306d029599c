#!/usr/bin/env bash
# The HTML report in a real headless Chromium: a report of simulated
# history (a training node that also counts its tokens, one GPU heating
# into thermal slowdown) opened from a file renders its charts and
# sections, with no console error and no request to any host (the page is
# one file: every request would go to the recording proxy, which must see
# none). A screenshot is kept next to the binary (report.png).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in chromium python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/chromium.sh
. "$(dirname "$0")/../lib/chromium.sh"

cat >"$tmp/node.scn" <<'SCN'
[sim]
fleet = 4xH200:training
clock = manual
[gpu 3]
workload = thermal
SCN
"$BIN" --sim "$tmp/node.scn" sim record --start 2026-07-03T10:00:00Z --duration 1h --interval 5s \
	--storage.path "$tmp/d" >/dev/null 2>&1 || fail "sim record"
"$BIN" report --storage.path "$tmp/d" --from 2026-07-03T10:00:00Z --to 2026-07-03T11:00:00Z --format html \
	--price-per-kwh 0.25 --currency EUR -o "$tmp/report.html" 2>"$tmp/report.err" || fail "report: $(cat "$tmp/report.err")"
browse "file://$tmp/report.html" "$tmp/dom.html" --dump-dom
grep -q '<h1' "$tmp/dom.html" || fail "no report in the DOM: $(head -c 300 "$tmp/dom.html")"
n=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
[ "$n" -ge 4 ] || fail "$n charts drawn, want the four (utilisation, memory, power, temperature)"
for section in 'Findings' 'Training (1)' 'thermal_throttling' 'Node'; do
	grep -q "$section" "$tmp/dom.html" || fail "the rendered report lacks '$section'"
done
grep -Eq 'Uncaught|ERROR:CONSOLE' "$tmp/dom.html.console" &&
	fail "console errors: $(grep -E 'Uncaught|CONSOLE' "$tmp/dom.html.console" | head -3)"
other_requests >"$tmp/requests"
[ -s "$tmp/requests" ] && fail "the report asked other hosts: $(head -3 "$tmp/requests")"
shot=$(dirname "$BIN")/report.png
rm -f "$shot"
browse "file://$tmp/report.html" "$tmp/shot.out" --screenshot="$shot" --window-size=1200,1600 --hide-scrollbars
[ -s "$shot" ] || fail "no screenshot at $shot"

[ "$fails" = 0 ] || exit 1
echo ok
