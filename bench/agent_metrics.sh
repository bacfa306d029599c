#!/usr/bin/env bash
# /metrics throughput: the agent on an 8-GPU simulated fleet against the
# same exposition text served by prometheus-node-exporter's textfile
# collector (its other collectors disabled; it still adds a few of its own
# metrics and re-parses the file on every scrape) and by nginx as a static
# file, all in one run on loopback, each under `wrk -t2 -c8 -d30s`; then
# the compressed scrape Prometheus makes (Accept-Encoding: gzip) against
# nginx serving the same exposition pre-compressed (gzip_static, the file
# gzip'd at the agent's level, -1), with the bytes each puts on the wire.
#
# Needs wrk, nginx and prometheus-node-exporter. When one is missing this
# script apt-get installs it (wrk, nginx-light, prometheus-node-exporter);
# nothing is started system-wide: each server runs from a temp dir and is
# stopped at the end. Usage: bench/agent_metrics.sh [build-dir]
# Env: SIM (default 8xH200:training), DUR (default 30s), THREADS/CONNS (2/8).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
BIN=$PWD/$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$PWD/$b/libgpuwatch-sim.so
sim=${SIM:-8xH200:training}
dur=${DUR:-30s}
threads=${THREADS:-2}
conns=${CONNS:-8}

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || need+=(nginx-light)
command -v prometheus-node-exporter >/dev/null || need+=(prometheus-node-exporter)
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]} with apt-get (benchmark peers)"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }

ap=$(free_port)
"$BIN" --sim "$sim" agent -a "127.0.0.1:$ap" -c 1000 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$ap/metrics"
curl -s "http://127.0.0.1:$ap/metrics" >"$tmp/metrics.prom"

mkdir -p "$tmp/textfile" "$tmp/www" "$tmp/nginx"
cp "$tmp/metrics.prom" "$tmp/textfile/gpu.prom"
cp "$tmp/metrics.prom" "$tmp/www/metrics"
gzip -1 -k -c "$tmp/metrics.prom" >"$tmp/www/metrics.gz"
np=$(free_port)
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/textfile" --web.listen-address="127.0.0.1:$np" 2>"$tmp/ne.err" &
pids+=($!)
wait_http "http://127.0.0.1:$np/metrics"

xp=$(free_port)
cat >"$tmp/nginx/nginx.conf" <<NGINX
worker_processes 2;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $tmp/nginx; proxy_temp_path $tmp/nginx; fastcgi_temp_path $tmp/nginx;
	uwsgi_temp_path $tmp/nginx; scgi_temp_path $tmp/nginx;
	types { text/plain metrics; }
	gzip_static on;
	server { listen 127.0.0.1:$xp; root $tmp/www; }
}
NGINX
nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" -g 'daemon off;' &
pids+=($!)
wait_http "http://127.0.0.1:$xp/metrics"

bytes=$(wc -c <"$tmp/metrics.prom")
lines=$(grep -vc '^#' "$tmp/metrics.prom")
ne_bytes=$(curl -s "http://127.0.0.1:$np/metrics" | wc -c)
echo "exposition: $bytes bytes, $lines samples ($sim); node_exporter's answer: $ne_bytes bytes"
echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "load: wrk -t$threads -c$conns -d$dur --latency (client on the same machine)"

declare -A rps p99
for who in gpuwatch node_exporter nginx; do
	case $who in
	gpuwatch) url="http://127.0.0.1:$ap/metrics" ;;
	node_exporter) url="http://127.0.0.1:$np/metrics" ;;
	nginx) url="http://127.0.0.1:$xp/metrics" ;;
	esac
	out=$(wrk -t"$threads" -c"$conns" -d"$dur" --latency "$url")
	echo "$out" >"$tmp/wrk.$who"
	rps[$who]=$(echo "$out" | awk '/^Requests\/sec:/ { print $2 }')
	# wrk prints 99% as e.g. "99%    1.23ms"; convert to ms
	p99[$who]=$(echo "$out" | awk '$1 == "99%" { v=$2; u=v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
		f = u == "us" ? 0.001 : u == "s" ? 1000 : 1; printf "%.3f", v * f }')
	errs=$(echo "$out" | awk '/Non-2xx|Socket errors/ { $1=$1; print }')
	printf "%-14s %10s req/s   p99 %8s ms   %s\n" "$who" "${rps[$who]}" "${p99[$who]}" "$errs"
done
awk -v g="${rps[gpuwatch]}" -v n="${rps[node_exporter]}" -v x="${rps[nginx]}" 'BEGIN {
	printf "ratios (req/s): gpuwatch/node_exporter %.2f, gpuwatch/nginx %.2f\n", g / n, g / x }'

# The compressed scrape: what each sends for Accept-Encoding: gzip, and how fast.
gz_agent=$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$ap/metrics" | wc -c)
gz_nginx=$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$xp/metrics" | wc -c)
echo "gzip: gpuwatch sends $gz_agent bytes ($(awk -v a="$gz_agent" -v b="$bytes" 'BEGIN { printf "1/%.1f", b / a }') of the plain text), nginx gzip_static $gz_nginx"
declare -A zrps
for who in gpuwatch nginx; do
	case $who in
	gpuwatch) url="http://127.0.0.1:$ap/metrics" ;;
	nginx) url="http://127.0.0.1:$xp/metrics" ;;
	esac
	out=$(wrk -t"$threads" -c"$conns" -d"$dur" --latency -H 'Accept-Encoding: gzip' "$url")
	zrps[$who]=$(echo "$out" | awk '/^Requests\/sec:/ { print $2 }')
	p99=$(echo "$out" | awk '$1 == "99%" { v=$2; u=v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
		f = u == "us" ? 0.001 : u == "s" ? 1000 : 1; printf "%.3f", v * f }')
	errs=$(echo "$out" | awk '/Non-2xx|Socket errors/ { $1=$1; print }')
	printf "%-14s %10s req/s   p99 %8s ms   %s  (gzip)\n" "$who" "${zrps[$who]}" "$p99" "$errs"
done
awk -v g="${zrps[gpuwatch]}" -v x="${zrps[nginx]}" 'BEGIN { printf "ratio (req/s, gzip): gpuwatch/nginx gzip_static %.2f\n", g / x }'
