#!/usr/bin/env bash
# The agent with each of dcgm-exporter 4.x's own counters files, unchanged
# (default-counters.csv, dcp-metrics-included.csv and the 1.x names of
# 1.x-compatibility-metrics.csv), and the default file with every commented
# DCGM line uncommented: it starts; every row is exported under the file's
# name with the file's TYPE and HELP, or named once in the log (left out,
# repeated); DCGM series carry dcgm-exporter's labels then the file's label
# rows in file order, in /metrics and in the history alike; values print as
# dcgm-exporter prints them; /api/v1/metadata has the file's type and help;
# promtool accepts the exposition. The files are read from
# $GW_SHARED_DIR/reference/dcgm-exporter (not copied into the repository).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
REF=${GW_SHARED_DIR:-/nonexistent}/reference/dcgm-exporter
[ -r "$REF/default-counters.csv" ] || { echo "skipped: dcgm-exporter's counters files not found in $REF"; exit 77; }
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"

sed -E 's/^#[[:space:]]*(DCGM_)/\1/' "$REF/default-counters.csv" >"$tmp/all-uncommented.csv"
# the training fleet; GPU 0 is held at its power cap from 1 s on, so the
# window's clock-event count has an event to list whatever the run's pace
cat >"$tmp/capped.scn" <<'SCN'
[sim]
fleet = 2xH200:training
[gpu 0]
fault = 1s throttle sw-power 600s
SCN
grep -q '^# *DCGM_' "$tmp/all-uncommented.csv" && fail "sed left a commented DCGM line"

# check FILE TAG [SIM]: run the agent on FILE and check what it shows
check() {
	local file=$1 tag=$2 sim=${3:-2xH200:training} port
	port=$(free_port)
	"$BIN" --sim "$sim" agent -a "127.0.0.1:$port" --storage.path "$tmp/data-$tag" -f "$file" \
		2>"$tmp/$tag.err" &
	local pid=$!
	pids+=($pid)
	if ! wait_http "http://127.0.0.1:$port/metrics" 20; then
		fail "$tag: agent did not start: $(cat -v "$tmp/$tag.err")"
		return
	fi
	sleep 1.5 # a second sample: GPM ratios need two
	# fields no GPU answers are logged once the second sample is in: under
	# load that may come late, so look again for a while before failing
	local try ok=0
	for try in 1 2 3 4 5 6 7 8; do
		curl -s "http://127.0.0.1:$port/metrics" >"$tmp/$tag.prom"
		curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$port/metrics" >"$tmp/$tag.om"
		curl -s "http://127.0.0.1:$port/api/v1/metadata" >"$tmp/$tag.meta"
		curl -s -g "http://127.0.0.1:$port/api/v1/series?match[]={__name__=~\"DCGM.*|dcgm.*\"}" >"$tmp/$tag.series"
		if python3 - "$file" "$tmp/$tag.prom" "$tmp/$tag.om" "$tmp/$tag.err" "$tmp/$tag.meta" "$tmp/$tag.series" >"$tmp/$tag.bad" <<'PY'
import json, re, sys
csv, prom, om, log, meta, series = sys.argv[1:]
bad = []
rows, labels, seen = [], [], set()
for n, line in enumerate(open(csv), 1):
    line = line.strip()
    if not line or line.startswith('#'):
        continue
    name, typ, help_ = [x.strip() for x in line.split(',', 2)]
    if typ == 'label':
        labels.append((n, name))
    elif name in seen:
        if not re.search(r':%d: %s repeats line \d+; line %d skipped' % (n, re.escape(name), n), open(log).read()):
            bad.append('line %d: repeated %s not warned' % (n, name))
    else:
        seen.add(name)
        rows.append((n, name, typ, help_))
text, otext, logtext = open(prom).read(), open(om).read(), open(log).read()
md = json.load(open(meta))['data']
exported = 0
for n, name, typ, help_ in rows:
    left = re.findall(r'why="(?:[^"]*:%d: )?%s left out' % (n, re.escape(name)), logtext)
    has = re.search(r'^# TYPE %s ' % re.escape(name), text, re.M)
    if left and has:
        bad.append('%s: both exported and left out' % name)
    elif not left and not has and not name.startswith('DCGM_EXP_'):  # a window count with nothing counted has no series
        bad.append('%s (line %d): neither exported nor logged as left out' % (name, n))
    if len(left) > 1:
        bad.append('%s: left out logged %d times' % (name, len(left)))
    if not has:
        continue
    exported += 1
    if '# TYPE %s %s\n' % (name, typ) not in text:
        bad.append('%s: TYPE is not the file\'s %s' % (name, typ))
    if '# HELP %s %s\n' % (name, help_) not in text or '# HELP %s %s\n' % (name, help_) not in otext:
        bad.append('%s: HELP is not the file\'s' % name)
    if '# TYPE %s %s\n' % (name, typ if typ == 'gauge' else 'unknown') not in otext:
        bad.append('%s: OpenMetrics TYPE' % name)
    if not re.search(r'^%s\{' % re.escape(name), text, re.M):
        bad.append('%s: TYPE without samples' % name)
    if name.startswith('DCGM_EXP_'):
        continue  # window counts and P2P status: /metrics only, not stored
    if name not in md:
        bad.append('%s: not in /api/v1/metadata' % name)
    elif md[name][0]['help'] != help_ or md[name][0]['type'] != typ:
        bad.append('%s: metadata %s is not the file\'s type and help' % (name, md[name][0]))
if exported < 10:
    bad.append('only %d families exported' % exported)
# the label order: dcgm-exporter's, then the label rows in file order (those with a value)
std = ['gpu', 'UUID', 'pci_bus_id', 'device', 'modelName', 'Hostname']
want = [l for _, l in labels]
for m in re.finditer(r'^((?:DCGM|dcgm)[A-Za-z_0-9]*)\{([^}]*)\} (\S+)$', text, re.M):
    keys = re.findall(r'([A-Za-z_0-9]+)="', m.group(2))
    if keys[:6] != std:
        bad.append('%s: labels start %s' % (m.group(1), keys[:6])); break
    extra = keys[6:]
    if m.group(1) in ('DCGM_EXP_GPU_HEALTH_STATUS', 'DCGM_EXP_P2P_STATUS'):  # the two labels they add, last
        last = ['health_error_code', 'health_watch'] if 'HEALTH' in m.group(1) else ['link_status', 'peer_gpu']
        if extra[-2:] != last:
            bad.append('%s: no %s at the end: %s' % (m.group(1), ', '.join(last), extra)); break
        extra = extra[:-2]
    elif m.group(1).startswith('DCGM_EXP_'):  # dcgm-exporter's window counts: what was counted last
        if extra[-1:] not in (['xid'], ['clock_event']):
            bad.append('%s: no xid or clock_event at the end: %s' % (m.group(1), extra)); break
        extra = extra[:-1]
    if re.search(r'xid_errors', m.group(1), re.I):  # dcgm-exporter 4.x: the XID's code and text last
        if extra[-2:] != ['err_code', 'err_msg']:
            bad.append('%s: no err_code, err_msg at the end: %s' % (m.group(1), extra)); break
        extra = extra[:-2]
    if [k for k in want if k in extra] != extra:
        bad.append('%s: label rows %s not in file order %s' % (m.group(1), extra, want)); break
    if 'DCGM_FI_DRIVER_VERSION' in want and 'DCGM_FI_DRIVER_VERSION' not in extra:
        bad.append('%s: no DCGM_FI_DRIVER_VERSION label' % m.group(1)); break
    v = m.group(3)
    if not re.fullmatch(r'-?[0-9]+(\.[0-9]{6})?', v):
        bad.append('%s: value %s is not as dcgm-exporter prints' % (m.group(1), v)); break
# the history keeps the same label sets
stored = json.load(open(series))['data']
names = set()
for s in stored:
    lab = dict(s); name = lab.pop('__name__'); lab.pop('instance'); lab.pop('job')
    names.add(name)
    line = re.search(r'^%s\{([^}]*)\}' % re.escape(name), text, re.M)
    if line and dict(re.findall(r'([A-Za-z_0-9]+)="([^"]*)"', line.group(1))) != lab and lab.get('gpu') == '0':
        bad.append('%s: stored labels %s differ from /metrics' % (name, lab)); break
for _, name, _, _ in rows:
    if name.startswith('DCGM_EXP_'):
        continue
    if re.search(r'^%s\{' % re.escape(name), text, re.M) and name not in names:
        bad.append('%s: not in the history' % name)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
		then
			ok=1
			break
		fi
		sleep 1
	done
	[ "$ok" = 1 ] || { cat "$tmp/$tag.bad"; fail "$tag: see above"; }
	if command -v promtool >/dev/null; then
		# dcgm-exporter's names break promtool's style lints (camelCase
		# labels, counters without _total); a parse error is what fails
		promtool check metrics <"$tmp/$tag.prom" >"$tmp/$tag.promtool" 2>&1
		grep -v ' should ' "$tmp/$tag.promtool" | grep -q . &&
			fail "$tag: promtool: $(grep -v ' should ' "$tmp/$tag.promtool" | head -3)"
	fi
	# the window counts list GPU 0's power capping once a sample has seen
	# it: give it up to 15 s on a slow run
	if [ "$tag" = all ]; then
		for try in $(seq 30); do
			grep -q '^DCGM_EXP_CLOCK_EVENTS_COUNT{gpu="0",' "$tmp/$tag.prom" && break
			sleep 0.5
			curl -s "http://127.0.0.1:$port/metrics" >"$tmp/$tag.prom"
		done
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null
}

check "$REF/default-counters.csv" default
check "$REF/dcp-metrics-included.csv" dcp
check "$REF/1.x-compatibility-metrics.csv" legacy
check "$tmp/all-uncommented.csv" all "$tmp/capped.scn"

# the 1.x names, under the names the file gives
grep -q '^dcgm_sm_clock{gpu="0",UUID=' "$tmp/legacy.prom" || fail "legacy: no dcgm_sm_clock"
grep -q '^DCGM_FI_' "$tmp/legacy.prom" && fail "legacy: a DCGM_FI_ name where the file gives a 1.x one"
# every label row of the uncommented file that the simulated H200 answers, in file order
grep -Eq '^DCGM_FI_DEV_GPU_TEMP\{gpu="0",UUID="[^"]+",pci_bus_id="[^"]+",device="nvidia0",modelName="NVIDIA H200",Hostname="[^"]+",DCGM_FI_DRIVER_VERSION="[^"]+",DCGM_FI_NVML_VERSION="[^"]+",DCGM_FI_DEV_BRAND="NVIDIA",DCGM_FI_DEV_SERIAL="[^"]+",DCGM_FI_DEV_OEM_INFOROM_VER="[^"]+",DCGM_FI_DEV_ECC_INFOROM_VER="[^"]+",(DCGM_FI_DEV_POWER_INFOROM_VER="[^"]+",)?DCGM_FI_DEV_INFOROM_IMAGE_VER="[^"]+",DCGM_FI_DEV_VBIOS_VERSION="[^"]+"\} [0-9]+$' "$tmp/all.prom" ||
	fail "all: label rows: $(grep '^DCGM_FI_DEV_GPU_TEMP{' "$tmp/all.prom" | head -1)"
# what NVML answers on an H200 is exported: violations, ECC and NVLink error totals, profiling ratios
for f in POWER THERMAL SYNC_BOOST BOARD_LIMIT LOW_UTIL RELIABILITY; do
	grep -Eq "^DCGM_FI_DEV_${f}_VIOLATION\{.*\} [0-9]+\$" "$tmp/all.prom" || fail "all: DCGM_FI_DEV_${f}_VIOLATION not exported"
done
for f in DEV_ECC_SBE_VOL_TOTAL DEV_ECC_DBE_VOL_TOTAL DEV_ECC_SBE_AGG_TOTAL DEV_ECC_DBE_AGG_TOTAL PROF_SM_ACTIVE \
	PROF_SM_OCCUPANCY PROF_PIPE_FP64_ACTIVE PROF_PIPE_FP32_ACTIVE PROF_PIPE_FP16_ACTIVE \
	DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL \
	DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL; do
	grep -q "^DCGM_FI_$f{" "$tmp/all.prom" || fail "all: DCGM_FI_$f not exported"
done
grep -Eq '^DCGM_EXP_CLOCK_EVENTS_COUNT\{gpu="0",.*,DCGM_FI_DEV_VBIOS_VERSION="[^"]+",clock_event="[a-z_]+"\} [1-9][0-9]*$' "$tmp/all.prom" ||
	fail "all: no DCGM_EXP_CLOCK_EVENTS_COUNT: $(grep '^DCGM_EXP' "$tmp/all.prom" | head -2)"
# the default file's NVLink bandwidth (DCGM's rate: a whole number) and vGPU licence (0 on bare metal)
grep -Eq '^DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL\{gpu="0",.*\} [0-9]+$' "$tmp/default.prom" ||
	fail "default: DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL: $(grep '^DCGM_FI_DEV_NVLINK_BANDWIDTH' "$tmp/default.prom" | head -1)"
grep -Eq '^DCGM_FI_DEV_VGPU_LICENSE_STATUS\{gpu="0",.*\} 0$' "$tmp/default.prom" ||
	fail "default: DCGM_FI_DEV_VGPU_LICENSE_STATUS: $(grep '^DCGM_FI_DEV_VGPU' "$tmp/default.prom" | head -1)"
# dcgm-exporter's P2P status: each GPU towards each other one, over NVLink (both H200s have links)
for pair in '0 1' '1 0'; do
	set -- $pair
	grep -Eq "^DCGM_EXP_P2P_STATUS\{gpu=\"$1\",.*,DCGM_FI_DEV_VBIOS_VERSION=\"[^\"]+\",link_status=\"OK\",peer_gpu=\"$2\"\} 0\$" "$tmp/all.prom" ||
		fail "all: no DCGM_EXP_P2P_STATUS from $1 to $2: $(grep '^DCGM_EXP_P2P' "$tmp/all.prom" | head -2)"
done
[ "$(grep -c '^DCGM_EXP_P2P_STATUS{' "$tmp/all.prom")" = 2 ] || fail "all: DCGM_EXP_P2P_STATUS has a GPU towards itself"
# the per-link bandwidth the uncommented file lists, read because it lists it (an H200 has 18 links)
grep -Eq '^DCGM_FI_DEV_NVLINK_BANDWIDTH_L0\{gpu="1",.*\} [0-9]+$' "$tmp/all.prom" ||
	fail "all: DCGM_FI_DEV_NVLINK_BANDWIDTH_L0: $(grep '^DCGM_FI_DEV_NVLINK_BANDWIDTH_L0' "$tmp/all.prom" | head -1)"
grep -q '^DCGM_FI_DEV_NVLINK_BANDWIDTH_L0' "$tmp/default.prom" && fail "default: a per-link row the file does not list"

[ "$fails" = 0 ] || exit 1
echo "ok"
