#!/usr/bin/env bash
# `gpuwatch report` over simulated history and over nvidia-smi logs: each
# simulator workload and fault that has a finding produces it, on the right
# GPUs and at the right times; the log formats of the article (date blocks,
# --query-gpu CSV with time stamps) report the same way; the formats are
# what they say (JSON parses, HTML is one file without scripts or external
# assets); bad input fails with one clear line and a non-zero exit.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
. "$(dirname "$0")/../lib/common.sh"
export TZ=UTC
# --png under ASan: fontconfig's caches are not leaks of ours (ctest sets this too)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(dirname "$0")/../lsan_fontconfig.supp:print_suppressions=0}

# findings FILE: "kind gpus from to" per finding of a JSON report (gpus comma-separated, times HH:MM:SS).
findings() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    print(f["kind"], ",".join(str(g) for g in f["gpus"]), f["from"][11:19], f["to"][11:19])
' "$1"
}
# has FILE PATTERN WHAT: a finding line matching the extended regex PATTERN.
has() { grep -Eq "$2" "$1" || fail "$3: no finding matching '$2' in: $(tr '\n' ';' <"$1")"; }
# expect_err CODE PATTERN ARGS...
expect_err() {
	local want=$1 pat=$2
	shift 2
	"$BIN" report "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "report $*: exit $rc, want $want ($(cat "$tmp/err"))"
	grep -q -- "$pat" "$tmp/err" || fail "report $*: stderr lacks '$pat': $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "report $*: wrote a report: $(head -2 "$tmp/out")"
}

# --- help -------------------------------------------------------------------------
"$BIN" report --help >"$tmp/help" || fail "report --help exited $?"
grep -q '^usage: gpuwatch report' "$tmp/help" || fail "report --help: $(head -1 "$tmp/help")"
for opt in --storage.path --from --to --format --output --price-per-kwh --currency --png; do
	grep -q -- "$opt" "$tmp/help" || fail "report --help does not describe $opt"
done
"$BIN" --help | grep -q '^  report ' || fail "gpuwatch --help does not list report"

# --- a node of every workload (one hour at 1 s, starting 10:00) ------------------------
cat >"$tmp/zoo.scn" <<'SCN'
[sim]
clock = manual
epoch = 2026-07-03 10:00:00
[gpu 0]
model = H200
workload = thermal
[gpu 1]
model = H200
workload = powercap
[gpu 2]
model = H200
workload = leak
[gpu 3]
model = H200
workload = inference
[gpu 4]
model = H200
workload = idle
process = 4242 python C 60000 sm=0 mem=0
[gpu 5]
model = H200
workload = training
process = 5000 python C 139000
fault = 40m ecc-sbe 3
SCN
"$BIN" --sim "$tmp/zoo.scn" sim record --start 2026-07-03T10:00:00Z --duration 1h --storage.path "$tmp/zoo" \
	>/dev/null 2>&1 || fail "sim record zoo"
"$BIN" report --storage.path "$tmp/zoo" --format json >"$tmp/zoo.json" || fail "report zoo exited $?"
findings "$tmp/zoo.json" >"$tmp/zoo.f"
has "$tmp/zoo.f" '^thermal_throttling 0 10:0[0-2]:[0-9]{2} 11:00:00$' "thermal workload"
has "$tmp/zoo.f" '^power_capped 1 10:00:00 11:00:00$' "powercap workload"
has "$tmp/zoo.f" '^memory_leak 2 10:00:00 11:00:00$' "leak workload"
has "$tmp/zoo.f" '^input_bound 3 ' "inference workload (low utilisation, memory held)"
has "$tmp/zoo.f" '^unstable_utilization 3 ' "inference workload (bursts)"
has "$tmp/zoo.f" '^idle_allocated 4 10:00:00 11:00:00$' "idle GPU with a process holding memory"
has "$tmp/zoo.f" '^memory_pressure 5 10:00:00 11:00:00$' "a process holding 97% of the memory"
has "$tmp/zoo.f" '^hardware 5 10:40:00 10:40:00$' "ecc-sbe fault at 40m"
grep -Eq '^(thermal_throttling|power_capped|memory_leak|input_bound|hardware) 4 ' "$tmp/zoo.f" &&
	fail "the idle GPU has more than idle_allocated: $(grep ' 4 ' "$tmp/zoo.f")"
grep -q '^thermal_throttling [1-5]' "$tmp/zoo.f" && fail "thermal throttling outside the thermal GPU"
python3 - "$tmp/zoo.json" <<'PY' || fail "zoo JSON shape"
import json, sys
d = json.load(open(sys.argv[1]))
g = {x["index"]: x for x in d["gpus"]}
assert sorted(g) == [0, 1, 2, 3, 4, 5], sorted(g)
assert g[0]["throttle_seconds"]["sw_thermal"] > 3000, g[0]["throttle_seconds"]
assert g[4]["idle_seconds"] >= 3600, g[4]["idle_seconds"]
assert 100 < g[1]["stats"]["power_watts"]["mean"] < 456, g[1]["stats"]["power_watts"]
assert abs(d["energy_joules"] - sum(x["energy_joules"] for x in d["gpus"])) < 1e-6 * d["energy_joules"]
assert d["from"] == "2026-07-03T10:00:00.000Z" and d["to"] == "2026-07-03T11:00:00.000Z", (d["from"], d["to"])
for f in d["findings"]:
    assert f["evidence"] and f["advice"] and f["uuids"], f
PY

# --- one training job over four GPUs, GPU 3 at half load, faults --------------------------
cat >"$tmp/job.scn" <<'SCN'
[sim]
clock = manual
epoch = 2026-07-03 10:00:00
fleet = 4xH200:training
fault = 30m pcie-replay 5
[gpu 1]
fault = 50m ecc-dbe 2
[gpu 3]
load = 0.5
SCN
"$BIN" --sim "$tmp/job.scn" sim record --start 2026-07-03T10:00:00Z --duration 1h --storage.path "$tmp/job" \
	>/dev/null 2>&1 || fail "sim record job"
"$BIN" report --storage.path "$tmp/job" --format json -o "$tmp/job.json" || fail "report job exited $?"
findings "$tmp/job.json" >"$tmp/job.f"
has "$tmp/job.f" '^sync_stall 0,1,2,3 10:00:[0-5][0-9] 1[01]:[0-5][0-9]:[0-9]{2}$' "training dips together"
has "$tmp/job.f" '^imbalance 0,3 ' "GPU 3 at half load"
has "$tmp/job.f" '^power_capped 0' "training at full power"
has "$tmp/job.f" '^hardware 1 10:30:00 10:50:00$' "pcie-replay then ecc-dbe on GPU 1"
has "$tmp/job.f" '^hardware 0,2,3 10:30:00 10:30:00$' "pcie-replay on every GPU"
# a range: the second half hour only
"$BIN" report --storage.path "$tmp/job" --from 2026-07-03T10:35:00Z --to 2026-07-03T11:00:00Z --format json \
	>"$tmp/half.json" || fail "report --from/--to exited $?"
findings "$tmp/half.json" >"$tmp/half.f"
has "$tmp/half.f" '^hardware 1 10:50:00 10:50:00$' "ecc-dbe inside --from/--to"
grep -q '^hardware 0,2,3' "$tmp/half.f" && fail "a replay before --from reported: $(grep hardware "$tmp/half.f")"

# text, Markdown, HTML
"$BIN" report --storage.path "$tmp/job" --price-per-kwh 0.25 --currency EUR >"$tmp/job.txt" || fail "text report"
grep -q '^Findings (' "$tmp/job.txt" || fail "text: no Findings heading"
grep -Eq '^energy +[0-9.]+ kWh .*cost [0-9.]+ EUR' "$tmp/job.txt" || fail "text: no energy cost: $(grep energy "$tmp/job.txt" | head -1)"
"$BIN" report --storage.path "$tmp/job" --format md | grep -q '^## Findings' || fail "md: no Findings heading"
"$BIN" report --storage.path "$tmp/job" -o "$tmp/job.html" || fail "html report"
grep -q '^<!doctype html>' "$tmp/job.html" || fail "-o x.html is not HTML"
[ "$(grep -o '<svg' "$tmp/job.html" | wc -l)" = 4 ] || fail "html: want 4 charts"
grep -Eiq '<script|<link|src=|url\(' "$tmp/job.html" && fail "html refers to something outside itself"
python3 -c 'import sys, html.parser; html.parser.HTMLParser().feed(open(sys.argv[1]).read())' "$tmp/job.html" ||
	fail "html does not parse"
# the lines have the agent page's colours (web/src/app.js), GPU for GPU
ROOT=${GW_TEST_DATA:-$(dirname "$0")/..}/..
web=$(grep -o 'const COLORS = \[[^]]*\]' "$ROOT/web/src/app.js" | grep -o '#[0-9a-f]\{6\}' | head -6 | tr '\n' ' ')
ours=$("$BIN" report --storage.path "$tmp/zoo" --format html | grep -o 'background:#[0-9a-f]\{6\}' | cut -d: -f2 | tr '\n' ' ')
if [ -z "$web" ] || [ "$web" != "$ours" ]; then
	fail "html line colours '$ours' are not the web page's '$web'"
fi

# --- --png DIR: the HTML's four charts as PNG files ----------------------------------------
# cairo is optional to build; scripts/deps.sh installs it, so CI always has it.
if grep -q 'this build: with PNG support' "$tmp/help"; then
	pngdir=$tmp/png/charts # its parent is missing too
	"$BIN" report --storage.path "$tmp/job" --png "$pngdir" --format json -o "$tmp/png.json" 2>"$tmp/png.err" ||
		fail "report --png exited $?: $(cat "$tmp/png.err")"
	[ "$(find "$pngdir" -type f | wc -l)" = 4 ] || fail "--png: want 4 files: $(ls "$pngdir" 2>&1)"
	python3 - "$tmp/png.json" "$pngdir" >"$tmp/png.list" <<'PY' || fail "--png: JSON charts: $(cat "$tmp/png.list")"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [c["id"] for c in d["charts"]]
assert ids == ["utilisation", "memory", "power", "temperature"], ids
for c in d["charts"]:
    assert c["file"] == sys.argv[2] + "/" + c["id"] + ".png", c
    # four GPUs: one legend row over the 800 x 220 plot
    assert (c["width"], c["height"]) == (800, 264), c
    print(c["file"], c["width"], c["height"])
PY
	while read -r file w h; do
		python3 "$ROOT/tests/lib/png_check.py" "$file" "$w" "$h" '#1565c0' '#c62828' '#2e7d32' '#ef6c00' ||
			fail "--png: $file is not the chart it should be"
	done <"$tmp/png.list"
	# the PNGs come from the same description as the SVGs: one title each
	for t in 'Utilisation (%)' 'Memory used (GiB)' 'Power (W)' 'Temperature (C)'; do
		grep -qF "<h3>$t</h3>" "$tmp/job.html" || fail "html has no chart '$t' for its PNG"
	done
	"$BIN" report --storage.path "$tmp/job" --png "$pngdir" >"$tmp/png.txt" || fail "text report --png exited $?"
	grep -q "^  Utilisation  *$pngdir/utilisation.png  800x264$" "$tmp/png.txt" ||
		fail "text report does not list the PNGs: $(grep -A5 '^Charts' "$tmp/png.txt")"
	"$BIN" report --storage.path "$tmp/job" --png "$pngdir" --format md | grep -qF "![Power (W)](<$pngdir/power.png>)" ||
		fail "md report does not show the PNGs"
	"$BIN" report --storage.path "$tmp/job" --png "$pngdir" --format html | grep -qF "As PNG files: $pngdir/utilisation.png," ||
		fail "html report does not list the PNGs"
	# unwritable: under a file, in a read-only directory, a cairo that cannot be loaded
	: >"$tmp/afile"
	expect_err 1 "--png $tmp/afile/charts: cannot create $tmp/afile/charts: Not a directory" --storage.path "$tmp/job" --png "$tmp/afile/charts"
	expect_err 1 "--png $tmp/afile: not a directory" --storage.path "$tmp/job" --png "$tmp/afile"
	mkdir -p "$tmp/taken/power.png" # a file that cannot be written, even by root
	expect_err 1 "--png: cannot write $tmp/taken/power.png: Is a directory" --storage.path "$tmp/job" --png "$tmp/taken"
	if [ "$(id -u)" != 0 ]; then
		mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
		expect_err 1 "cannot create $tmp/ro/charts: Permission denied" --storage.path "$tmp/job" --png "$tmp/ro/charts"
	fi
	GPUWATCH_CAIRO_LIBRARY=/nonexistent/libcairo.so.2 expect_err 1 "cannot load /nonexistent/libcairo.so.2 (install libcairo2)" \
		--storage.path "$tmp/job" --png "$tmp/png2"
else
	[ "${CI:-}" = true ] && fail "CI: this build has no PNG support; scripts/deps.sh installs libcairo2-dev for it"
	expect_err 2 "--png: this gpuwatch was built without PNG support; install libcairo2-dev" --storage.path "$tmp/job" --png "$tmp/png"
	echo "note: built without cairo: --png's error checked, its PNGs not"
fi

# through the query API of `serve` on the same store: the same report
port=$(free_port)
"$BIN" serve --storage.path "$tmp/job" -a "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 &
pids+=($!)
if wait_http "http://127.0.0.1:$port/-/ready" 20; then
	"$BIN" report --url "http://127.0.0.1:$port/" --from 2026-07-03T10:00:00Z --to 2026-07-03T11:00:00Z \
		--format json >"$tmp/url.json" || fail "report --url exited $?"
	findings "$tmp/url.json" | cmp -s - "$tmp/job.f" ||
		fail "report --url differs from the store's: $(findings "$tmp/url.json" | tr '\n' ';')"
	python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["energy_joules"] == b["energy_joules"] and a["node"] == b["node"], "url and store stats differ"
' "$tmp/url.json" "$tmp/job.json" || fail "report --url statistics differ from the store's"
	"$BIN" report --url "http://127.0.0.1:$port" >/dev/null 2>"$tmp/err"
	[ $? = 1 ] && grep -q "no GPU utilisation sample in the last 5 minutes; give --from and --to" "$tmp/err" ||
		fail "report --url without a recent sample: $(cat "$tmp/err")"
else
	fail "serve did not start: $(cat "$tmp/serve.log")"
fi

# a Prometheus holding only dcgm-exporter's names (the DCGM families of the same store,
# backfilled with promtool): the DCGM twins are read in DCGM's units
if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
	"$BIN" export --storage.path "$tmp/job" \
		--match '{__name__=~"DCGM_FI_DEV_(GPU_UTIL|FB_USED|FB_FREE|POWER_USAGE|GPU_TEMP|PCIE_REPLAY_COUNTER)"}' \
		>"$tmp/dcgm.om" 2>/dev/null || fail "export of the DCGM families"
	promtool tsdb create-blocks-from openmetrics "$tmp/dcgm.om" "$tmp/promdata" >/dev/null 2>&1 ||
		fail "promtool could not backfill the DCGM families"
	: >"$tmp/empty.yml"
	pport=$(free_port)
	prometheus --config.file="$tmp/empty.yml" --storage.tsdb.path="$tmp/promdata" --storage.tsdb.retention.time=100y \
		--web.listen-address="127.0.0.1:$pport" --log.level=error >"$tmp/prom.log" 2>&1 &
	pids+=($!)
	if wait_http "http://127.0.0.1:$pport/-/ready" 30; then
		"$BIN" report --url "http://127.0.0.1:$pport" --from 2026-07-03T10:00:00Z --to 2026-07-03T11:00:00Z \
			--format json >"$tmp/prom.json" || fail "report --url Prometheus exited $?"
		findings "$tmp/prom.json" >"$tmp/prom.f"
		has "$tmp/prom.f" '^sync_stall 0,1,2,3 ' "Prometheus with DCGM names: training dips together"
		has "$tmp/prom.f" '^imbalance 0,3 ' "Prometheus with DCGM names: GPU 3 at half load"
		has "$tmp/prom.f" '^hardware 0,1,2,3 10:30:00 10:30:00$' "Prometheus with DCGM names: PCIe replays (no ECC families exported)"
		python3 - "$tmp/prom.json" "$tmp/job.json" <<'PY' || fail "DCGM statistics differ from the native ones"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for ga, gb in zip(a["gpus"], b["gpus"]):
    assert ga["name"] == gb["name"] and ga["uuid"] == gb["uuid"], (ga["name"], ga["uuid"])
    for k in ("utilization_ratio", "power_watts", "temperature_celsius"):
        assert abs(ga["stats"][k]["mean"] - gb["stats"][k]["mean"]) < 1e-9 * max(1, gb["stats"][k]["mean"]), k
    # MiB in DCGM: the same bytes to the MiB
    assert abs(ga["stats"]["memory_used_bytes"]["max"] - gb["stats"]["memory_used_bytes"]["max"]) < 1048576
PY
	else
		fail "prometheus did not start: $(cat "$tmp/prom.log")"
	fi
fi

# --- nvidia-smi logs given directly ------------------------------------------------------
# The article's loop: a `date` line, then --query-gpu CSV with its header, every minute.
# GPU 0 trains with a dip every tenth minute while its memory grows; GPU 1 holds memory idle.
for k in $(seq 0 89); do
	t=$((1783072800 + 60 * k))
	echo "======= $(date -u -d "@$t" '+%a %b %e %H:%M:%S UTC %Y') ======="
	echo "index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W]"
	u=95
	[ $((k % 10)) = 0 ] && u=20
	echo "0, NVIDIA A100-SXM4-80GB, $u %, $((30000 + 300 * k)) MiB, 81920 MiB, 60, 350.50 W"
	echo "1, NVIDIA A100-SXM4-80GB, 0 %, 40000 MiB, 81920 MiB, 35, 60.25 W"
	echo
done >"$tmp/gpu_monitor.log"
"$BIN" report "$tmp/gpu_monitor.log" --format json >"$tmp/log.json" 2>"$tmp/log.err" || fail "report LOG exited $?: $(cat "$tmp/log.err")"
findings "$tmp/log.json" >"$tmp/log.f"
has "$tmp/log.f" '^idle_allocated 1 10:00:00 11:29:00$' "log: idle GPU holding memory"
has "$tmp/log.f" '^memory_leak 0 10:00:00 11:29:00$' "log: growing memory"
has "$tmp/log.f" '^input_bound 0 10:00:00 11:20:00$' "log: a dip every ten minutes"
python3 - "$tmp/log.json" <<'PY' || fail "log JSON values"
import json, sys
d = json.load(open(sys.argv[1]))
g0 = d["gpus"][0]
assert d["gpus"][0]["name"] == "NVIDIA A100-SXM4-80GB"
assert g0["stats"]["utilization_ratio"]["max"] == 0.95 and g0["stats"]["utilization_ratio"]["min"] == 0.2
# power integrated: 350.5 W + 60.25 W for 90 minutes
assert abs(d["energy_joules"] - (350.5 + 60.25) * 5400) < 1, d["energy_joules"]
assert d["from"] == "2026-07-03T10:00:00.000Z" and d["to"] == "2026-07-03T11:29:00.000Z", (d["from"], d["to"])
PY
# every format of it against tests/golden/report (GW_GOLDEN_UPDATE=1 rewrites them, to be
# reviewed before commit): what a reader sees changes only on purpose
GOLD=${GW_TEST_DATA:-$(dirname "$0")/..}/golden/report
for fmt in text md json html; do
	got=$tmp/golden.$fmt
	(cd "$tmp" && "$BIN" report gpu_monitor.log --price-per-kwh 0.3 --currency EUR --format $fmt) >"$got" 2>/dev/null ||
		fail "golden $fmt: report exited $?"
	if [ $fmt = json ]; then # one line: indented, so a difference reads as one
		python3 -m json.tool "$got" >"$got.i" && mv "$got.i" "$got" || fail "golden json does not parse"
	fi
	if [ "${GW_GOLDEN_UPDATE:-0}" = 1 ]; then
		mkdir -p "$GOLD"
		cmp -s "$got" "$GOLD/gpu_monitor.$fmt" || { cp "$got" "$GOLD/gpu_monitor.$fmt" && echo "wrote $GOLD/gpu_monitor.$fmt"; }
	elif ! cmp -s "$GOLD/gpu_monitor.$fmt" "$got"; then
		fail "golden $fmt differs from $GOLD/gpu_monitor.$fmt: $(diff -u "$GOLD/gpu_monitor.$fmt" "$got" | head -20)"
	fi
done
# the same from standard input
"$BIN" report --format json - <"$tmp/gpu_monitor.log" >"$tmp/stdin.json" 2>/dev/null || fail "report - exited $?"
findings "$tmp/stdin.json" | cmp -s - "$tmp/log.f" || fail "report from standard input differs from the file's"
# --query-gpu CSV with a timestamp column, as `nvidia-smi ... -l 1` logs it
python3 -c '
import time
print("timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]")
for s in range(1201):
    ts = time.strftime("%Y/%m/%d %H:%M:%S.000", time.gmtime(1783072800 + s))
    print(ts + ", 0, NVIDIA H200, 0 %, 81000 MiB, 143771 MiB, 120.00 W")
' >"$tmp/query.csv"
"$BIN" report "$tmp/query.csv" --format json >"$tmp/q.json" || fail "report CSV exited $?"
findings "$tmp/q.json" >"$tmp/q.f"
has "$tmp/q.f" '^idle_allocated 0 10:00:00 10:20:00$' "CSV log: idle, memory held"

# the repository's nvidia-smi fixtures (the default table and -q reports in loops, dmon): each
# reports over all of its samples, bad lines skipped and counted
DATA=${GW_TEST_DATA:-$(dirname "$0")/..}/data/import
for f in table_loop.txt:10:01:00 query_loop.txt:10:01:00 dmon_dt.txt:10:00:01; do
	name=${f%%:*} last=${f#*:}
	"$BIN" report "$DATA/$name" --format json >"$tmp/fx.json" 2>"$tmp/fx.err" || fail "$name: exit $?: $(cat "$tmp/fx.err")"
	grep -q "$name: 1 bad lines skipped" "$tmp/fx.err" || fail "$name: bad line not counted: $(cat "$tmp/fx.err")"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpus"] and d["from"] == "2026-12-02T10:00:00.000Z" and d["to"] == "2026-12-02T" + sys.argv[2] + ".000Z", (d["from"], d["to"])
assert any("utilization_ratio" in g["stats"] for g in d["gpus"]), d["gpus"]
' "$tmp/fx.json" "$last" || fail "$name: range or statistics"
done
"$BIN" report "$DATA/dmon_plain.txt" --start "2026-12-02 10:00:00" --interval 5 --format json >"$tmp/dp.json" 2>/dev/null ||
	fail "dmon without times, --start and --interval: exit $?"
grep -q '"to":"2026-12-02T10:00:10.000Z"' "$tmp/dp.json" || fail "dmon --start/--interval range: $(head -c 200 "$tmp/dp.json")"

# --- bad input: one clear line, non-zero exit ----------------------------------------------
expect_err 1 "no GPU samples in the range" --storage.path "$tmp/job" --from 2020-01-01T00:00:00Z --to 2020-01-02T00:00:00Z
expect_err 2 "--from yesterday: not a time" --storage.path "$tmp/job" --from yesterday
expect_err 2 "--from must be before --to" --storage.path "$tmp/job" --from 2026-07-03T11:00:00Z --to 2026-07-03T10:00:00Z
expect_err 2 "--format pdf: not a format" --storage.path "$tmp/job" --format pdf
expect_err 2 "--price-per-kwh cheap: not a price" --storage.path "$tmp/job" --price-per-kwh cheap
expect_err 2 "unknown option '--bogus'" --bogus
expect_err 2 "--interval is seconds between samples" "$DATA/dmon_plain.txt" --start "2026-12-02 10:00:00" --interval fast
expect_err 1 "dmon output without time columns" "$DATA/dmon_plain.txt"
expect_err 1 "$tmp/nothing" --storage.path "$tmp/nothing"
expect_err 2 "--url ftp://x: not an http" --url ftp://x
expect_err 1 "cannot reach http://127.0.0.1:1" --url http://127.0.0.1:1 --from 0 --to 3600
expect_err 2 "--url and log files" --url http://127.0.0.1:1 "$tmp/query.csv"
expect_err 1 "missing.log: No such file or directory" "$tmp/missing.log"
printf 'hello\nworld\n' >"$tmp/prose.txt"
expect_err 1 "prose.txt: this looks like" "$tmp/prose.txt"
: >"$tmp/empty.log"
expect_err 1 "empty.log" "$tmp/empty.log"
chmod 000 "$tmp/gpu_monitor.log"
if [ "$(id -u)" != 0 ]; then
	expect_err 1 "gpu_monitor.log: Permission denied" "$tmp/gpu_monitor.log"
fi
expect_err 1 "-o $tmp/no/such/dir/r.html" --storage.path "$tmp/job" -o "$tmp/no/such/dir/r.html"

# --- pcie_bound: the offload workload streams near the link's capacity ------------------
"$BIN" --sim 'clock=manual,2xH200:offload' sim record --start 2026-07-03T10:00:00Z --duration 30m --interval 5s \
	--storage.path "$tmp/off" >/dev/null 2>&1 || fail "sim record offload"
"$BIN" report --storage.path "$tmp/off" --from 2026-07-03T10:00:00Z --to 2026-07-03T10:30:00Z --format json \
	>"$tmp/off.json" || fail "report offload exited $?"
findings "$tmp/off.json" >"$tmp/off.f"
has "$tmp/off.f" '^pcie_bound 0,1 10:00:00 10:30:00$' "offload workload (PCIe near capacity)"
grep -q '^pcie_bound' "$tmp/zoo.f" && fail "pcie_bound outside the offload workload: $(grep '^pcie_bound' "$tmp/zoo.f")"

[ "$fails" = 0 ] || exit 1
echo ok
