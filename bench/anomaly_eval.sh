#!/bin/sh
# anomaly_eval.sh - precision, recall and false alarms of gpuwatch anomalies
# on simulated history: training runs with faults injected at known times
# (the simulator's `fault = TIME WHAT` under `clock = manual`, which
# `sim record` places at START + TIME) and clean training runs.
#
# usage: bench/anomaly_eval.sh [BUILD_DIR] [SEEDS]  (default build, 3 seeds)
# Each seed: one faulty and one clean day of 2xH200:training at 10 s.
set -eu
BUILD=${1:-build}
SEEDS=${2:-3}
G=$(cd "$BUILD" && pwd)/gpuwatch
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
START=2026-07-01T00:00:00Z
END=2026-07-02T00:00:00Z

# The injected events: TIME(s) SECONDS WHAT. Every GPU gets each one.
cat >"$W/events" <<'EOT'
10800 120 spike power_mw 1100000 120
21600 900 throttle hw-thermal 900
32400 300 spike util_gpu 0 300
43200 600 spike power_mw 150000 600
54000 1200 throttle sw-power 1200
64800 120 spike util_gpu 0 120
75600 60 spike power_mw 1200000 60
EOT

scenario() { # SEED FAULTS(0|1) > scn
	printf '[sim]\nfleet = 2xH200:training\nclock = manual\nseed = %s\nepoch = 2026-07-01 00:00:00\n' "$1"
	if [ "$2" = 1 ]; then
		while read -r t d what; do printf 'fault = %ss %s\n' "$t" "$what"; done <"$W/events"
	fi
}

for s in $(seq 1 "$SEEDS"); do
	for f in 0 1; do
		scenario "$s" "$f" >"$W/s$s-$f.scn"
		"$G" --sim "$W/s$s-$f.scn" sim record --start "$START" --end "$END" --interval 10s \
			--storage.path "$W/d$s-$f" -q 2>/dev/null
		"$G" anomalies --storage.path "$W/d$s-$f" --from "$START" --to "$END" --format json \
			>"$W/a$s-$f.json"
	done
done

python3 - "$W" "$SEEDS" <<'EOT'
import json, sys
w, seeds = sys.argv[1], int(sys.argv[2])
t0 = 1782864000  # 2026-07-01T00:00:00Z
events = [(t0 + int(l.split()[0]), int(l.split()[1])) for l in open(w + "/events")]
SLACK = 300  # a finding up to 5 min after an event's end still belongs to it
tp_find = fp_find = hit = total = clean_fa = clean_gpudays = 0
for s in range(1, seeds + 1):
    for faulty in (0, 1):
        a = json.load(open("%s/a%d-%d.json" % (w, s, faulty)))["anomalies"]
        gpus = 2
        if not faulty:
            clean_fa += len(a)
            clean_gpudays += gpus
            for x in a:
                print("clean seed %d: gpu %s %s %s at %d s" % (s, x["gpu"], x["metric"], x["kind"], x["start"] - t0))
            continue
        for g in range(gpus):
            mine = [x for x in a if x["gpu"] == str(g)]
            for (t, d) in events:
                total += 1
                if any(x["start"] <= t + d + SLACK and x["end"] >= t - 60 for x in mine):
                    hit += 1
                else:
                    print("faulty seed %d: missed gpu %d event at %d s" % (s, g, t - t0))
            for x in mine:
                if any(x["start"] <= t + d + SLACK and x["end"] >= t - 60 for (t, d) in events):
                    tp_find += 1
                else:
                    fp_find += 1
                    print("faulty seed %d: unmatched gpu %s %s %s at %d s" % (s, x["gpu"], x["metric"], x["kind"], x["start"] - t0))
print("events %d, found %d: recall %.3f" % (total, hit, hit / total))
print("findings in faulty runs %d, matching an event %d: precision %.3f" % (tp_find + fp_find, tp_find, tp_find / max(1, tp_find + fp_find)))
print("clean runs: %d findings over %d GPU-days: %.2f false alarms per GPU-day" % (clean_fa, clean_gpudays, clean_fa / clean_gpudays))
EOT
