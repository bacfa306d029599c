# common.sh - what the integration scripts share. Source it:
#   . "$(dirname "$0")/../lib/common.sh"
# It makes $tmp (removed on exit with every pid in $pids killed), counts
# failures with fail(), and offers free_port and wait_http.
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
