#!/usr/bin/env bash
# The agent's page in a real headless Chromium: served from the binary,
# one tile per GPU (data-gpu, data-uuid) whose values are the scenario's
# pinned ones as /metrics shows them, the simulated banner, no console
# error, no request to any host but the agent (every other request goes to
# a recording proxy, which must see none), history charts whose range and
# step follow the URL's #range, a GPU's detail (#gpu=N: every stored series
# and its processes), the page over `gpuwatch serve` ending at the store's
# newest sample, #end= for a past moment, and an API error shown on the
# page rather than swallowed. Screenshots are kept next to the binary
# (web-overview.png, web-detail.png, web-fleet.png) for docs/WEB.md.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in chromium curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"

# shellcheck source=../lib/chromium.sh
. "$(dirname "$0")/../lib/chromium.sh"

cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 4xH200:training
[gpu *]
util_gpu = 37
temp_c = 61
[gpu 1]
fault = 1s throttle hw-thermal 600s
[gpu 2]
fault = 2s xid 13
[gpu 3]
fault = 1s ecc-dbe
SCN
port=$(free_port)
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" --storage.path "$tmp/data" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/health" 10 || { echo "FAIL: agent did not start: $(cat "$tmp/agent.err")"; exit 1; }
sleep 2

browse "http://127.0.0.1:$port/" "$tmp/dom.html" --dump-dom
n=$(grep -o '<article class="tile" data-gpu="[0-9]*" data-uuid="GPU-[0-9a-f-]*"' "$tmp/dom.html" | wc -l)
[ "$n" = 4 ] || fail "tiles: $n, want 4: $(head -c 600 "$tmp/dom.html")"
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/metrics"
for g in 0 1 2 3; do
	uuid=$(sed -n "s/^DCGM_FI_DEV_GPU_TEMP{gpu=\"$g\",UUID=\"\\([^\"]*\\)\".*/\\1/p" "$tmp/metrics" | head -1)
	grep -q "data-gpu=\"$g\" data-uuid=\"$uuid\"" "$tmp/dom.html" || fail "GPU $g's tile lacks its UUID $uuid"
done
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="0",.* 61$' "$tmp/metrics" || fail "the pinned temperature is not 61 in /metrics"
python3 - "$tmp/dom.html" >"$tmp/tiles.out" 2>&1 <<'PY' || fail "tile values: $(cat "$tmp/tiles.out")"
import re, sys
dom = open(sys.argv[1]).read()
tiles = re.findall(r'<article class="tile" data-gpu="(\d+)"(.*?)</article>', dom, re.S)
assert len(tiles) == 4, len(tiles)
for gpu, body in tiles:
    vals = dict(re.findall(r'<dd data-field="(\w+)"[^>]*>([^<]*)</dd>', body))
    assert vals.get("util") == "37 %", (gpu, vals)
    assert vals.get("temp") == "61 °C", (gpu, vals)
    assert vals.get("mem", "–") != "–" and vals.get("power", "–").endswith(" W"), (gpu, vals)
    assert vals.get("xid") == {"2": "13", "3": "94"}.get(gpu, "none"), (gpu, vals)
print("ok")
PY
grep -q 'id="simulated"' "$tmp/dom.html" || fail "no simulated banner"
grep -q '<div id="error" role="alert" hidden=""></div>' "$tmp/dom.html" || fail "an error is shown: $(grep -o '<div id="error"[^<]*<' "$tmp/dom.html")"
grep -Eq 'Uncaught|ERROR:CONSOLE' "$tmp/dom.html.console" && fail "console errors: $(grep -E 'Uncaught|CONSOLE' "$tmp/dom.html.console" | head -3)"
# Chromium's own calls (network time, component updates, accounts) are the browser's, not the page's.
other_requests >"$tmp/page-requests"
[ -s "$tmp/page-requests" ] && fail "requests to other hosts: $(head -3 "$tmp/page-requests")"
# Every file the page loads is built in and served by the agent.
# A browser that takes gzip gets each compressed at build time, the same bytes once decompressed; the
# page's weight on the wire stays under 200 KB.
weight=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "http://127.0.0.1:$port/")
for f in app.js style.css uPlot.iife.min.js uPlot.min.css; do
	code=$(curl -s -o "$tmp/plain.$f" -w '%{http_code}' "http://127.0.0.1:$port/static/$f")
	[ "$code" = 200 ] || fail "/static/$f answered $code"
	curl -s -D "$tmp/gzh" -H 'Accept-Encoding: gzip' -o "$tmp/gz.$f" "http://127.0.0.1:$port/static/$f"
	grep -qi '^Content-Encoding: gzip' "$tmp/gzh" || fail "/static/$f: not gzip'd for a browser that takes it"
	gzip -dc "$tmp/gz.$f" | cmp -s - "$tmp/plain.$f" || fail "/static/$f: the gzip'd file differs from the plain one"
	weight=$((weight + $(stat -c %s "$tmp/gz.$f")))
done
[ "$weight" -lt 204800 ] || fail "the page weighs $weight bytes compressed"
echo "page weight on the wire (gzip): $weight bytes"
# History: the range in the URL picks query_range's range and step (about 300 points), one chart per field
# with a series per GPU.
for r in 300:1 86400:288; do
	range=${r%%:*} step=${r##*:}
	browse "http://127.0.0.1:$port/#range=$range" "$tmp/hist.html" --dump-dom
	grep -q "<section id=\"history\" data-range=\"$range\" data-step=\"$step\" data-first-ms=\"[0-9]*\" data-drawn=" "$tmp/hist.html" ||
		fail "range $range: $(grep -o '<section id="history"[^>]*>' "$tmp/hist.html")"
	n=$(grep -o "<div class=\"chart\" data-chart=\"[a-z]*\" data-series=\"4\" data-points=\"$((range / step + 1))\" data-marks=\"[0-9]*\">" "$tmp/hist.html" | wc -l)
	[ "$n" = 4 ] || fail "range $range: $n charts of 4 GPUs and $((range / step + 1)) points, want 4: $(grep -o '<div class="chart"[^>]*>' "$tmp/hist.html")"
done
grep -Eq 'Uncaught|ERROR:CONSOLE' "$tmp/hist.html.console" && fail "console errors: $(grep -E 'Uncaught|CONSOLE' "$tmp/hist.html.console" | head -3)"
# Events on the charts: GPU 1's throttling (a span), GPU 2's XID 13 and GPU 3's XID 94 (instants), listed
# under them; no other GPU has an XID.
grep -q '<li class="throttle" data-kind="throttle" data-gpu="1">' "$tmp/hist.html" || fail "GPU 1's throttling is not among the events"
grep -q '<li class="xid" data-kind="xid" data-gpu="2">[^<]*XID 13' "$tmp/hist.html" ||
	fail "GPU 2's XID 13 is not among the events: $(grep -o '<ul id="events">.\{0,400\}' "$tmp/hist.html")"
grep -q '<li class="xid" data-kind="xid" data-gpu="3">[^<]*XID 94' "$tmp/hist.html" || fail "GPU 3's XID 94 (its contained ECC error) is not among the events"
grep -o '<li class="xid" data-kind="xid" data-gpu="[0-9]*"' "$tmp/hist.html" | grep -Eqv 'data-gpu="[23]"' && fail "an XID event on a GPU without one"
# A chosen set of GPUs (#gpus=0,2): the charts draw those two, the picker ticks those two.
browse "http://127.0.0.1:$port/#range=300&gpus=0,2" "$tmp/pick.html" --dump-dom
n=$(grep -o '<div class="chart" data-chart="[a-z]*" data-series="2"' "$tmp/pick.html" | wc -l)
[ "$n" = 4 ] || fail "#gpus=0,2: $n charts of 2 series, want 4: $(grep -o '<div class="chart"[^>]*>' "$tmp/pick.html")"
python3 - "$tmp/pick.html" >"$tmp/pick.out" 2>&1 <<'PY' || fail "GPU picker: $(cat "$tmp/pick.out")"
import re, sys
dom = open(sys.argv[1]).read()
boxes = re.findall(r'<input type="checkbox" value="(\d+)"', dom)
assert boxes == ["0", "1", "2", "3"], boxes
# Chromium's DOM dump shows the checked property only as set by the page: read what the page thinks
assert 'id="gpu-picker"' in dom and 'id="gpu-picker" hidden' not in dom, "picker hidden"
PY
grep -q '<li class="xid" data-kind="xid" data-gpu="2">' "$tmp/pick.html" || fail "#gpus=0,2 hides GPU 2's XID"
grep -q 'data-kind="throttle" data-gpu="1"' "$tmp/pick.html" && fail "#gpus=0,2 lists GPU 1's throttling"
# The heat-map (#view=heatmap; the default from 33 GPUs): a cell per GPU, tiles hidden.
browse "http://127.0.0.1:$port/#view=heatmap&refresh=5" "$tmp/heat.html" --dump-dom
n=$(grep -o '<button class="cell" type="button" data-gpu="[0-9]" data-uuid="GPU-[0-9a-f-]*"' "$tmp/heat.html" | wc -l)
[ "$n" = 4 ] || fail "heat-map: $n cells, want 4: $(grep -o '<div id="heatmap".\{0,300\}' "$tmp/heat.html")"
grep -q '<main id="tiles" aria-live="polite" hidden="">' "$tmp/heat.html" || fail "heat-map view still shows the tiles"
grep -q '<option value="5" selected' "$tmp/heat.html" || grep -q 'id="refresh"' "$tmp/heat.html" || fail "no refresh picker"
grep -Eq 'Uncaught|ERROR:CONSOLE' "$tmp/pick.html.console" "$tmp/heat.html.console" && fail "console errors in picker/heat-map views"

# Health from /api/v1/health on each tile: GPU 1 (thermal throttling) and GPU 3 (a contained ECC error)
# warn, GPU 0 passes; GPU 1's detail lists its thermal incident.
for g in 0:pass 1:warn 3:warn; do
	grep -Eq "<article class=\"tile\" data-gpu=\"${g%%:*}\" data-uuid=\"[^\"]*\" data-health=\"${g##*:}\"" "$tmp/dom.html" ||
		fail "GPU ${g%%:*}'s tile is not marked ${g##*:}: $(grep -o "<article class=\"tile\" data-gpu=\"${g%%:*}\"[^>]*>" "$tmp/dom.html")"
done
# One GPU in detail (#gpu=1): every series the history has for it, and its processes from /metrics.
browse "http://127.0.0.1:$port/#gpu=1" "$tmp/detail.html" --dump-dom
fields=$(sed -n 's/.*<section id="detail" data-gpu="1" data-fields="\([0-9]*\)" data-processes="[0-9]*">.*/\1/p' "$tmp/detail.html")
want=$(curl -s "http://127.0.0.1:$port/api/v1/query" --data-urlencode 'query=count({gpu="1"})' |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[ -n "$fields" ] && [ "$fields" -ge 50 ] && [ "$fields" -le "$want" ] ||
	fail "detail of GPU 1: '$fields' fields (the store has $want): $(grep -o '<section id="detail"[^>]*>' "$tmp/detail.html")"
pid=$(sed -n 's/^gpuwatch_process_memory_used_bytes{gpu="1",.*pid="\([0-9]*\)".*/\1/p' "$tmp/metrics" | head -1)
[ -n "$pid" ] && grep -q "<tr data-pid=\"$pid\">" "$tmp/detail.html" || fail "GPU 1's process $pid is not in its detail"
grep -q '<article class="tile selected" data-gpu="1"' "$tmp/detail.html" || fail "GPU 1's tile is not marked selected"
grep -q '<div id="detail-health" data-status="warn">' "$tmp/detail.html" || fail "GPU 1's detail does not say warn"
grep -q '<tr class="warn" data-system="thermal">' "$tmp/detail.html" || fail "GPU 1's thermal incident is not in its detail"

shot="$(dirname "$BIN")/web-overview.png"
browse "http://127.0.0.1:$port/#range=300" "$tmp/shot.out" --hide-scrollbars --window-size=1200,1100 --screenshot="$shot"
[ -s "$shot" ] || fail "no screenshot at $shot"
browse "http://127.0.0.1:$port/#range=300&gpu=3" "$tmp/shot2.out" --hide-scrollbars --window-size=1200,1400 \
	--screenshot="$(dirname "$BIN")/web-detail.png"
[ -s "$(dirname "$BIN")/web-detail.png" ] || fail "no screenshot of a GPU's detail"

# Fleet mode: the page pointed at a Prometheus scraping two agents (?source=), a node picker over
# `instance`, all nodes as one heat-map, one node's GPUs as tiles.
if command -v prometheus >/dev/null; then
	port3=$(free_port)
	"$BIN" --sim 2xH100 agent -a "127.0.0.1:$port3" --no-history 2>"$tmp/agent3.err" &
	pids+=($!)
	wait_http "http://127.0.0.1:$port3/metrics" 10 || fail "third agent did not start"
	pport=$(free_port)
	start_prometheus "$pport" "127.0.0.1:$port', '127.0.0.1:$port3" || fail "prometheus did not start: $(tail -3 "$tmp/prom.log")"
	for _ in $(seq 60); do
		c=$(curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=count(DCGM_FI_DEV_GPU_UTIL)' |
			python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
		[ "$c" = 6 ] && break
		sleep 0.5
	done
	src="http://127.0.0.1:$pport"
	browse "http://127.0.0.1:$port/?source=$src#node=*" "$tmp/fleet.html" --dump-dom
	grep -q "source: $src" "$tmp/fleet.html" || fail "fleet mode does not name its source"
	n=$(grep -o '<button class="cell" type="button" data-gpu="[0-9]" data-uuid="GPU-[0-9a-f-]*" data-instance="127.0.0.1:[0-9]*"' "$tmp/fleet.html" | wc -l)
	[ "$n" = 6 ] || fail "fleet heat-map: $n cells of two nodes, want 6: $(grep -o '<div id="heatmap".\{0,300\}' "$tmp/fleet.html")"
	grep -q "<option value=\"127.0.0.1:$port3\">" "$tmp/fleet.html" || fail "the node picker lacks 127.0.0.1:$port3"
	browse "http://127.0.0.1:$port/?source=$src#node=*" "$tmp/fleet.shot" --hide-scrollbars --window-size=1200,900 \
		--screenshot="$(dirname "$BIN")/web-fleet.png"
	[ -s "$(dirname "$BIN")/web-fleet.png" ] || fail "no screenshot of fleet mode"
	browse "http://127.0.0.1:$port/?source=$src#node=127.0.0.1:$port3" "$tmp/fleet1.html" --dump-dom
	n=$(grep -o '<article class="tile" data-gpu="[0-9]*"' "$tmp/fleet1.html" | wc -l)
	[ "$n" = 2 ] || fail "one node of the fleet: $n tiles, want 2"
	grep -Eq 'Uncaught|ERROR:CONSOLE' "$tmp/fleet.html.console" "$tmp/fleet1.html.console" && fail "console errors in fleet mode: $(grep -hE 'Uncaught|CONSOLE' "$tmp/fleet.html.console" "$tmp/fleet1.html.console" | head -3)"
else
	echo "note: prometheus not installed; fleet mode not checked"
fi

# The page over `gpuwatch serve`: a store whose history stopped long ago (half an hour ending
# 2026-01-10 12:00 UTC). The views end at its newest sample: tiles show that time's pinned values, the
# charts are full, the banner says no GPU is sampled, and the page says up to when it shows.
cat >"$tmp/old.scn" <<'SCN'
[sim]
fleet = 3xH100:training
[gpu *]
util_gpu = 42
SCN
"$BIN" --sim "$tmp/old.scn" sim record -q --end 2026-01-10T12:00:00Z --duration 30m --storage.path "$tmp/old" ||
	fail "sim record of the old store"
sport=$(free_port)
"$BIN" serve --storage.path "$tmp/old" -a "127.0.0.1:$sport" 2>"$tmp/serve.err" &
pids+=($!)
wait_http "http://127.0.0.1:$sport/-/ready" 10 || fail "serve did not start: $(cat "$tmp/serve.err")"
browse "http://127.0.0.1:$sport/#range=900" "$tmp/serve.html" --dump-dom
grep -q '<div class="banner stored" id="stored" data-end="1768046400000">STORED HISTORY' "$tmp/serve.html" ||
	fail "serve's banner: $(grep -o '<div class="banner[^>]*>[^<]*' "$tmp/serve.html")"
grep -q '<div id="ended" data-end="1768046400">' "$tmp/serve.html" ||
	fail "the page does not say where its views end: $(grep -o '<div id="ended"[^>]*>' "$tmp/serve.html")"
python3 - "$tmp/serve.html" >"$tmp/serve.out" 2>&1 <<'PY' || fail "serve's tiles: $(cat "$tmp/serve.out")"
import re, sys
dom = open(sys.argv[1]).read()
tiles = re.findall(r'<article class="tile" data-gpu="(\d+)"(.*?)</article>', dom, re.S)
assert len(tiles) == 3, len(tiles)
for gpu, body in tiles:
    vals = dict(re.findall(r'<dd data-field="(\w+)"[^>]*>([^<]*)</dd>', body))
    assert vals.get("util") == "42 %", (gpu, vals)
print("ok")
PY
n=$(grep -o '<div class="chart" data-chart="[a-z]*" data-series="3" data-points="301"' "$tmp/serve.html" | wc -l)
[ "$n" = 4 ] || fail "serve's charts: $n of 3 GPUs over 301 points, want 4: $(grep -o '<div class="chart"[^>]*>' "$tmp/serve.html")"
grep -q '<div id="error" role="alert" hidden=""></div>' "$tmp/serve.html" || fail "serve's page shows an error: $(grep -o '<div id="error"[^<]*<' "$tmp/serve.html")"
grep -Eq 'Uncaught|ERROR:CONSOLE' "$tmp/serve.html.console" && fail "console errors over serve: $(grep -E 'Uncaught|CONSOLE' "$tmp/serve.html.console" | head -3)"
curl -sf "http://127.0.0.1:$sport/static/app.js" -o /dev/null || fail "serve does not serve the page's script"
browse "http://127.0.0.1:$sport/#gpu=1" "$tmp/serve1.html" --dump-dom
grep -q '<section id="detail" data-gpu="1" data-fields="[1-9][0-9]*" data-processes="none">' "$tmp/serve1.html" ||
	fail "serve's GPU detail: $(grep -o '<section id="detail"[^>]*>' "$tmp/serve1.html")"
grep -q 'Process lists are not kept' "$tmp/serve1.html" || fail "serve's detail does not say why it lists no process"
# #end= on the agent: a shared view of a past moment ends there, with a way back to now.
past=$(($(date +%s) - 20))
browse "http://127.0.0.1:$port/#range=300&end=$past" "$tmp/end.html" --dump-dom
grep -q "<div id=\"ended\" data-end=\"$past\">" "$tmp/end.html" || fail "#end=$past: $(grep -o '<div id="ended"[^>]*>' "$tmp/end.html")"
grep -q '<button id="ended-live" type="button">back to now</button>' "$tmp/end.html" || fail "#end= offers no way back to now"
grep -q '<section id="history" data-range="300" data-step="1"' "$tmp/end.html" || fail "#end=: no history drawn"

# An agent without a query API: the page says why it has no tiles.
port2=$(free_port)
"$BIN" --sim 1xH200 agent -a "127.0.0.1:$port2" --no-history 2>"$tmp/agent2.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port2/health" 10 || fail "second agent did not start"
browse "http://127.0.0.1:$port2/" "$tmp/dom2.html" --dump-dom
grep -q '<div id="error" role="alert">/api/v1/query: HTTP 404' "$tmp/dom2.html" ||
	fail "no error shown for a missing query API: $(grep -o '<div id="error"[^<]*<' "$tmp/dom2.html")"

[ "$fails" = 0 ] || exit 1
echo "PASS: the page shows every GPU from the agent alone; screenshot at $shot"
