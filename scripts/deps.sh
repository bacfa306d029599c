#!/usr/bin/env bash
# Install the Debian packages gpuwatch needs to build and test, if missing.
# (libcairo2-dev is optional to build, for report --png; installed here so
# CI and the quick start always have it.)
# Usage: scripts/deps.sh [build|test|fuzz]   (test installs the test peers
# too; fuzz adds clang and its libFuzzer runtime for scripts/fuzz.sh)
set -euo pipefail
what=${1:-build}
pkgs=(gcc make cmake pkg-config libmicrohttpd-dev libpcre2-dev libsqlite3-dev libyaml-dev libcrypt-dev libncurses-dev
	libcurl4-openssl-dev libjansson-dev zlib1g-dev libprotobuf-c-dev protobuf-c-compiler libsnappy-dev libnghttp2-dev
	libcairo2-dev)
if [ "$what" = fuzz ]; then
	pkgs+=(clang libclang-rt-14-dev)
fi
if [ "$what" = test ]; then
	pkgs+=(valgrind python3 python3-yaml curl prometheus prometheus-alertmanager openssl tmux systemd libxml2-utils chromium python3-grpcio python3-prometheus-client shellcheck)
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
