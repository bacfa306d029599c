#!/usr/bin/env bash
# A damaged history store must not stop the agent. An hour of history is
# recorded once; each case damages a copy of it, starts the agent on it and
# requires: /metrics answers 200 with DCGM_FI_DEV_GPU_UTIL within 10 s; the
# log says what was done; and either the store was moved aside (the
# .corrupt-<time> file exists, queries answer from a fresh store) or it was
# kept (queries answer, with the skipped chunks in "warnings").
#   header    the 100-byte SQLite header overwritten       -> moved aside
#   truncated the file cut to half its length             -> moved aside
#   flipN     200 bytes flipped at random in a 64 KiB window at 3 offsets,
#             seeds 1..3                                   -> either, said so
#   chunk     200 bytes flipped inside one sealed chunk    -> kept, warnings
#   count     chunks' count column damaged (huge, zero, negative)
#                                                          -> kept, all samples, warnings
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in curl python3; do
	command -v "$c" >/dev/null || { echo "skipped: $c missing"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"
SIM=8xH200:training
"$BIN" --sim "$SIM" sim record --duration 1h --storage.path "$tmp/base" >/dev/null 2>"$tmp/rec.err" ||
	{ echo "sim record failed: $(cat "$tmp/rec.err")"; exit 1; }
db=gpuwatch.db
apid=

# A recorded series of gpu 0 (sim record's instance, not the agent's): its
# utilisation, or for the chunk case its power, whose chunks are larger
# than a few runs of 100 %.
OLD='gpu="0",instance!~"127.0.0.1:.*"'

start_agent() { # dir
	port=$(free_port)
	"$BIN" --sim "$SIM" agent -a "127.0.0.1:$port" --instance "127.0.0.1:$port" --storage.path "$1" \
		2>"$1.log" &
	apid=$!
	pids+=("$apid")
	for _ in $(seq 100); do
		curl -s "http://127.0.0.1:$port/metrics" 2>/dev/null | grep -q '^DCGM_FI_DEV_GPU_UTIL{' && return 0
		sleep 0.1
	done
	return 1
}
stop_agent() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid" 2>/dev/null
	apid=
}
# query EXPR: the instant query's JSON answer at now, "" with its HTTP status if not 200
query() {
	curl -s -o "$tmp/q.json" -w '%{http_code}' --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query"
}
# summary of $tmp/q.json: "<samples counted> <warnings>" (count_over_time answers)
summary() {
	python3 - "$tmp/q.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(float(r["value"][1]) for r in d["data"]["result"])
print(int(n), len(d.get("warnings", [])))
PY
}

damage() { # case dir
	python3 - "$1" "$2/$db" <<'PY'
import os, random, sqlite3, sys
case, path = sys.argv[1], sys.argv[2]
size = os.path.getsize(path)
def flip(positions):
	with open(path, "r+b") as f:
		for p in positions:
			f.seek(p)
			b = f.read(1)
			f.seek(p)
			f.write(bytes([b[0] ^ 0xff]))
if case == "header":
	with open(path, "r+b") as f:
		f.write(b"\0" * 100)
elif case == "truncated":
	os.truncate(path, size // 2)
elif case.startswith("flip"):
	seed = int(case[4:])
	rnd = random.Random(seed)
	# a window near the start (schema and first pages), the middle, three quarters in
	off = [16384, size // 2, size * 3 // 4][seed - 1]
	flip(rnd.sample(range(off, min(off + 65536, size)), 200))
elif case == "chunk":
	c = sqlite3.connect(path)
	sid, data = c.execute(
		"SELECT c.series_id, c.data FROM chunks c JOIN series s ON s.id = c.series_id "
		"WHERE s.labels LIKE '{__name__=\"gpuwatch_power_draw_watts\",gpu=\"0\",%' "
		"AND c.same IS NULL AND length(c.data) > 600 ORDER BY c.mint LIMIT 1").fetchone()
	c.close()
	raw = open(path, "rb").read()
	at = raw.find(data)
	assert at > 0 and raw.find(data, at + 1) < 0, "chunk bytes not found once in the file"
	flip(range(at + 100, at + 300))
elif case == "count":
	c = sqlite3.connect(path)
	# every sealed chunk of the series: counts far too high, zero, negative
	c.execute("UPDATE chunks SET count = CASE id % 3 WHEN 0 THEN 1 << 40 WHEN 1 THEN 0 ELSE -5 END "
		  "WHERE series_id IN (SELECT id FROM series WHERE labels LIKE '%DCGM_FI_DEV_GPU_UTIL%' "
		  "AND labels LIKE '%gpu=\"0\"%')")
	c.commit()
	c.close()
PY
}

cases=(header truncated flip1 flip2 flip3 chunk count)
for case in "${cases[@]}"; do
	d="$tmp/$case"
	cp -r "$tmp/base" "$d"
	damage "$case" "$d" || { fail "$case: could not damage the store"; continue; }
	if ! start_agent "$d"; then
		fail "$case: no /metrics with DCGM_FI_DEV_GPU_UTIL within 10 s: $(tail -3 "$d.log")"
		stop_agent
		continue
	fi
	sel="DCGM_FI_DEV_GPU_UTIL{$OLD}"
	[ "$case" = chunk ] && sel="gpuwatch_power_draw_watts{$OLD}"
	code=$(query "count_over_time(${sel}[2h])")
	[ "$code" = 200 ] || fail "$case: query answered $code: $(head -c 300 "$tmp/q.json")"
	read -r n nwarn < <(summary)
	moved=$(ls "$d" | grep -c "^$db\.corrupt-[0-9]\{8\}T[0-9]\{6\}Z$" || true)
	if grep -q 'moved it aside and started a fresh one' "$d.log"; then
		outcome=moved
		grep 'moved it aside' "$d.log" | grep -q "moved_to=$d/$db\.corrupt-[0-9]\{8\}T[0-9]\{6\}Z " ||
			fail "$case: the log does not say where the old store went: $(grep 'moved it' "$d.log")"
		grep 'moved it aside' "$d.log" | grep -q 'why="[^"]' || fail "$case: the log does not say why"
		[ "$moved" = 1 ] || fail "$case: no moved-aside file in $d: $(ls "$d")"
		[ "$n" = 0 ] || fail "$case: moved aside, yet $n old samples answered"
		m=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "gpuwatch_store_moved_aside" { print $2 }')
		[ "$m" = 1 ] || fail "$case: gpuwatch_store_moved_aside '$m', want 1"
	elif grep -q 'the history store is damaged; kept it' "$d.log"; then
		outcome=kept
		grep 'damaged; kept it' "$d.log" | grep -q 'damaged_chunks=[1-9]' ||
			fail "$case: the log does not count the damaged chunks"
		[ "$moved" = 0 ] || fail "$case: kept, yet a moved-aside file exists"
		[ "$n" -gt 0 ] || fail "$case: kept, yet no old samples answered"
	else
		outcome=none
		fail "$case: the log says nothing of the damage: $(cat "$d.log")"
	fi
	case $case in
	header | truncated)
		[ "$outcome" = moved ] || fail "$case: not moved aside ($outcome)" ;;
	chunk)
		[ "$outcome" = kept ] || fail "$case: a damaged chunk was not kept ($outcome)"
		[ "$nwarn" -ge 1 ] && grep -q 'chunks of series .*gpuwatch_power_draw_watts.* skipped: crc mismatch' "$tmp/q.json" ||
			fail "$case: no crc warning in the answer: $(head -c 400 "$tmp/q.json")"
		# an hour at 1 s less one chunk: most of it still answers
		[ "$n" -gt 1800 ] || fail "$case: only $n samples answered" ;;
	count)
		[ "$nwarn" -ge 1 ] && grep -q 'damaged sample count' "$tmp/q.json" ||
			fail "$case: no count warning in the answer: $(head -c 400 "$tmp/q.json")"
		[ "$n" -ge 3500 ] || fail "$case: $n samples answered, want the whole hour" ;;
	flip*)
		# kept: what was skipped is said in the answer, unless the flips missed every chunk
		# (one query a metric name: over every name at once, count_over_time
		# drops the names and the series collide, as in Prometheus)
		if [ "$outcome" = kept ] && [ "$nwarn" = 0 ]; then
			names=$(curl -s "http://127.0.0.1:$port/api/v1/label/__name__/values" |
				python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["data"]))')
			nwarn=0
			for name in $names; do
				code=$(query "count_over_time(${name}{instance!~\"127.0.0.1:.*\"}[2h])")
				[ "$code" = 200 ] || { fail "$case: $name answered $code: $(head -c 300 "$tmp/q.json")"; break; }
				read -r _ w < <(summary)
				nwarn=$((nwarn + w))
			done
			[ "$nwarn" -ge 1 ] || fail "$case: kept a damaged store, but no query warns"
		fi ;;
	esac
	kill -0 "$apid" 2>/dev/null || fail "$case: the agent died"
	echo "$case: $outcome; $n old samples answered, $nwarn warnings"
	stop_agent
done

[ "$fails" = 0 ] && echo "ok: ${#cases[@]} damaged stores, the agent served /metrics on each and said what it did"
exit $((fails > 0))
