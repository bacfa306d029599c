#!/usr/bin/env bash
# The agent's container image (scripts/image.sh, deploy/container/Containerfile):
# the staged root file system holds everything the agent loads, so the
# binary runs inside it alone (chroot, as user nobody, with /proc mounted as
# a container has it): smi on the simulator, and the agent serving /metrics
# and its query API with remote write on. With podman, the image builds and
# says what the DaemonSet expects (entrypoint, user, port, default command).
# Needs root (chroot, mount); skipped otherwise.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
root_dir=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$BIN")" && pwd)
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (chroot)"; exit 77; }
for c in unshare chroot readelf ldd; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done

"$root_dir/scripts/image.sh" --help | grep -q 'Usage: scripts/image.sh' || fail "image.sh --help"
"$root_dir/scripts/image.sh" "$build" --rootfs "$tmp/rootfs" >"$tmp/stage.out" 2>&1 || fail "staging: $(cat "$tmp/stage.out")"
rf=$tmp/rootfs
for f in usr/bin/gpuwatch usr/lib/gpuwatch/libgpuwatch-sim.so usr/lib/gpuwatch/deps/libmicrohttpd.so.12 \
	usr/lib/gpuwatch/deps/libcurl.so.4 usr/lib/gpuwatch/deps/libsnappy.so.1 etc/passwd; do
	[ -e "$rf/$f" ] || fail "the rootfs has no $f"
done
ls "$rf/usr/lib/gpuwatch/deps" | grep -q nvidia-ml && fail "the rootfs carries NVML (the container toolkit mounts the driver's)"
mkdir -p "$rf/proc"
chroot=$(command -v chroot) unshare=$(command -v unshare)
# inside IMAGE_ARGS...: the binary in the rootfs alone, as nobody, with the image's environment
inside() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	env -i PATH=/usr/bin LD_LIBRARY_PATH=/usr/lib/gpuwatch/deps:/usr/lib/gpuwatch ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
		"$unshare" --mount --fork /bin/sh -c 'r=$0 c=$1; shift; mount -t proc proc "$r/proc" && exec "$c" --userspec=65534:65534 "$r" /usr/bin/gpuwatch "$@"' \
		"$rf" "$chroot" "$@"
}
inside --sim 2xH100 smi -L >"$tmp/smi.out" 2>"$tmp/smi.err" || fail "smi -L in the rootfs: $(cat "$tmp/smi.err")"
[ "$(grep -c '^GPU [01]: NVIDIA H100 80GB HBM3' "$tmp/smi.out")" = 2 ] || fail "smi -L in the rootfs: $(cat "$tmp/smi.out")"

port=$(free_port)
inside --sim 2xH100:training agent -a "127.0.0.1:$port" --storage.path /tmp/data \
	--remote-write.url http://127.0.0.1:1/api/v1/write >"$tmp/agent.out" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$port/health" 30 || fail "the agent in the rootfs did not start: $(tail -5 "$tmp/agent.out")"
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/metrics"
[ "$(grep -c '^DCGM_FI_DEV_GPU_UTIL{' "$tmp/metrics")" = 2 ] || fail "/metrics from the rootfs: $(head -5 "$tmp/metrics")"
sleep 2
curl -s "http://127.0.0.1:$port/api/v1/query" --data-urlencode 'query=count(DCGM_FI_DEV_GPU_TEMP)' |
	grep -q '"value":\[[0-9.]*,"2"\]' || fail "the query API in the rootfs"
grep -q 'remote' "$tmp/agent.out" || true # remote write is on; its failures are counted, not fatal
[ -d "$rf/tmp/data" ] && [ "$(stat -c %u "$rf/tmp/data")" = 65534 ] || fail "the store is not nobody's"

if command -v podman >/dev/null; then
	tag=gpuwatch-test:$$
	"$root_dir/scripts/image.sh" "$build" --tag "$tag" >"$tmp/build.out" 2>&1 || fail "image build: $(cat "$tmp/build.out")"
	podman image inspect "$tag" --format '{{json .Config}}' >"$tmp/config.json" 2>&1 || fail "inspect: $(cat "$tmp/config.json")"
	python3 - "$tmp/config.json" <<'PY' || fail "image config (above)"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["Entrypoint"] == ["/usr/bin/gpuwatch"], c["Entrypoint"]
assert c["Cmd"][0] == "agent", c["Cmd"]
assert c["User"] == "65534:65534", c["User"]
assert "9400/tcp" in c["ExposedPorts"], c["ExposedPorts"]
assert any(e.startswith("LD_LIBRARY_PATH=/usr/lib/gpuwatch/deps") for e in c["Env"]), c["Env"]
PY
	# Running containers needs cgroups this machine may not offer: try, and say so when it cannot.
	if podman run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$tag" --version >"$tmp/run.out" 2>&1; then
		grep -q '^gpuwatch ' "$tmp/run.out" || fail "podman run --version: $(cat "$tmp/run.out")"
	else
		echo "note: podman cannot run containers here ($(tail -1 "$tmp/run.out")); the rootfs ran under chroot above"
	fi
	podman rmi -f "$tag" >/dev/null 2>&1
else
	echo "note: podman not installed; the image build was not tried (scripts/deps.sh test installs it)"
fi

[ "$fails" = 0 ] || exit 1
echo ok
