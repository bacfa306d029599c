#!/usr/bin/env bash
# Build the agent's container image from a build directory, offline: the
# binary, libgpuwatch-sim.so and every shared library the agent loads
# (found by running it on the simulator with remote write on and reading
# /proc/PID/maps, then ldd of each), staged into a rootfs that
# deploy/container/Containerfile copies into a scratch image. podman or
# docker builds it; nothing is fetched from a registry.
#
# Usage: scripts/image.sh [BUILD_DIR] [--tag NAME:TAG] [--rootfs DIR]
#   BUILD_DIR  default build/
#   --tag      default gpuwatch:VERSION (the project's version)
#   --rootfs   only stage the rootfs into DIR; build no image
set -euo pipefail
cd "$(dirname "$0")/.."
b=build tag="" stage=""
while [ $# -gt 0 ]; do
	case $1 in
	--tag) tag=${2:?--tag wants NAME:TAG}; shift 2 ;;
	--rootfs) stage=${2:?--rootfs wants a directory}; shift 2 ;;
	-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "image.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) b=$1; shift ;;
	esac
done
[ -x "$b/gpuwatch" ] || { echo "image.sh: no $b/gpuwatch: build first (cmake --build $b)" >&2; exit 1; }
[ -f "$b/libgpuwatch-sim.so" ] || { echo "image.sh: no $b/libgpuwatch-sim.so in $b" >&2; exit 1; }
version=$(sed -n 's/^project(gpuwatch VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
tag=${tag:-gpuwatch:$version}
tool=""
if [ -z "$stage" ]; then
	for t in podman docker; do command -v $t >/dev/null && { tool=$t; break; }; done
	[ -n "$tool" ] || { echo "image.sh: neither podman nor docker is installed (apt-get install podman)" >&2; exit 1; }
fi
work=$(mktemp -d)
agent=""
trap '[ -n "$agent" ] && kill "$agent" 2>/dev/null; rm -rf "$work"' EXIT
root=${stage:-$work/rootfs}
mkdir -p "$root/usr/bin" "$root/usr/lib/gpuwatch/deps" "$root/etc" "$root/tmp" "$root/var/lib/gpuwatch"
chmod 1777 "$root/tmp"
cp "$b/gpuwatch" "$root/usr/bin/"
cp "$b/libgpuwatch-sim.so" "$root/usr/lib/gpuwatch/" # the binary looks in ../lib/gpuwatch/

# What the agent loads: run it briefly on the simulator with remote write (curl,
# snappy) and TLS-capable HTTP (libmicrohttpd, GnuTLS), and read its maps.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
GPUWATCH_SIM_LIBRARY=$b/libgpuwatch-sim.so "$b/gpuwatch" --sim 1xH100 agent -a "127.0.0.1:$port" \
	--storage.path "$work/data" --remote-write.url "http://127.0.0.1:1/api/v1/write" >"$work/agent.log" 2>&1 &
agent=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break; sleep 0.1; done
curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" || { echo "image.sh: the agent did not start: $(tail -3 "$work/agent.log")" >&2; exit 1; }
sleep 1
libs=$(awk '$6 ~ /\.so/ { print $6 }' "/proc/$agent/maps" | sort -u | grep -v -e libgpuwatch-sim.so -e 'libnvidia-ml')
kill "$agent"
wait "$agent" 2>/dev/null || true
agent=""
# (cairo, for report --png, is left out: it would bring fonts and X libraries for a
# feature the agent does not use; report --png in the image says PNG is unavailable)
all=$(for l in $libs; do echo "$l"; ldd "$l" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }'; done | sort -u)
for l in $all; do
	case $l in
	*/ld-linux*) mkdir -p "$root$(dirname "$l")"; cp -L "$l" "$root$l" ;; # the loader at its fixed path
	*) # under its SONAME, the name dlopen and the loader ask for (maps show the file's own name)
		so=$(readelf -d "$l" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
		cp -L "$l" "$root/usr/lib/gpuwatch/deps/${so:-$(basename "$l")}" ;;
	esac
done
# the loader the binary names, where it names it (and /lib64 -> its directory)
interp=$(readelf -l "$b/gpuwatch" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
mkdir -p "$root$(dirname "$interp")"
cp -L "$interp" "$root$interp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
[ -f /etc/ssl/certs/ca-certificates.crt ] && mkdir -p "$root/etc/ssl/certs" &&
	cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/" # remote write over HTTPS
chown -R 65534:65534 "$root/var/lib/gpuwatch" 2>/dev/null || chmod 0777 "$root/var/lib/gpuwatch"
n=$(find "$root/usr/lib/gpuwatch/deps" -type f | wc -l)
echo "staged: gpuwatch $version, the simulator and $n libraries ($(du -sh "$root" | cut -f1))"
[ -n "$stage" ] && exit 0
cp deploy/container/Containerfile "$work/"
"$tool" build -q -f "$work/Containerfile" -t "$tag" \
	--label "org.opencontainers.image.version=$version" \
	--label "org.opencontainers.image.revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$work" >/dev/null
echo "built $tag with $tool"
