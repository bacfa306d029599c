# shellcheck shell=bash
# chromium.sh - headless Chromium for the page tests, after common.sh:
#   . "$(dirname "$0")/../lib/chromium.sh"
# starts a recording proxy ($proxy; every request Chromium sends elsewhere
# than loopback lands there, answered 502, its request line in
# $tmp/proxy.log) and offers browse URL OUT [args] (the DOM after the
# page's scripts ran in OUT, the console in OUT.console) and
# other_requests (the proxy's lines, less Chromium's own background calls).
proxy=$(free_port)
python3 - "$proxy" "$tmp/proxy.log" >/dev/null 2>&1 <<'PY' &
import socketserver, sys
port, log = int(sys.argv[1]), sys.argv[2]
class H(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline().decode("latin-1").strip()
        if not line:  # a connection opened ahead of need and closed unused: no request
            return
        with open(log, "a") as f:
            f.write(line + "\n")
        self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
socketserver.ThreadingTCPServer(("127.0.0.1", port), H).serve_forever()
PY
pids+=($!)
: >"$tmp/proxy.log"

browse() { # URL OUT [extra chromium args]: the DOM after the page's scripts ran, console on stderr
	local url=$1 out=$2
	shift 2
	timeout 90 chromium --headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-default-apps --user-data-dir="$tmp/profile" \
		--disable-features=NetworkTimeServiceQuerying \
		--proxy-server="http://127.0.0.1:$proxy" --enable-logging=stderr --v=0 \
		--virtual-time-budget=10000 "$@" "$url" >"$out" 2>"$out.console"
}

other_requests() { grep -Ev '(clients[0-9]*|accounts)\.google\.com|[a-z0-9.-]*\.googleapis\.com|\.gvt1\.com' "$tmp/proxy.log"; }
