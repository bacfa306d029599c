# common.sh - what the integration scripts share. Source it:
#   . "$(dirname "$0")/../lib/common.sh"
# It makes $tmp (removed on exit with every pid in $pids killed), counts
# failures with fail(), and offers free_port, wait_http and start_prometheus.
tmp=$(mktemp -d)
pids=()
fails=0
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# A loopback TCP port nothing listens on right now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# wait_http URL SECONDS: until the URL answers 2xx; returns 1 on timeout.
wait_http() {
	for _ in $(seq $(($2 * 10))); do curl -sfk -o /dev/null "$1" && return 0; sleep 0.1; done
	return 1
}
# start_prometheus PORT TARGET: Debian's prometheus on 127.0.0.1:PORT scraping
# TARGET (host:port) every second as job "gpuwatch", data in $tmp/prom, log
# in $tmp/prom.log; its pid in $prom_pid (and $pids). Returns 1 if it is not
# ready within 30 s.
start_prometheus() {
	cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: 'gpuwatch'
    static_configs:
    - targets: ['$2']
YML
	prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom" \
		--web.listen-address="127.0.0.1:$1" --log.level=error >"$tmp/prom.log" 2>&1 &
	prom_pid=$!
	pids+=("$prom_pid")
	wait_http "http://127.0.0.1:$1/-/ready" 30
}
