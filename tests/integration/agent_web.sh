#!/usr/bin/env bash
# --web.config.file with real clients: curl over TLS (a self-signed
# certificate made here with the openssl CLI) and basic auth (a bcrypt hash
# made here), 401 with WWW-Authenticate for missing or wrong credentials,
# auth without TLS (POST /-/reload behind it too), relative paths, and bad
# files refused at start with the file and the problem named.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v openssl >/dev/null || {
	echo "skipped: curl or openssl not installed (scripts/deps.sh test installs them)"
	exit 77
}
# bcrypt at cost 4 keeps the test fast; htpasswd when apache2-utils is there, else Python's crypt.
if command -v htpasswd >/dev/null; then
	hash=$(htpasswd -bnBC 4 "" 's3cret pw' | tr -d ':\n')
else
	hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))' 2>/dev/null)
fi
case $hash in
'$2'*) ;;
*) echo "skipped: no way to make a bcrypt hash (htpasswd or python3 crypt)"; exit 77 ;;
esac
. "$(dirname "$0")/../lib/common.sh"

mkdir -p "$tmp/conf"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/conf/server.key" -out "$tmp/conf/server.crt" 2>"$tmp/openssl.err" ||
	{ echo "skipped: openssl could not make a certificate: $(cat "$tmp/openssl.err")"; exit 77; }
# Relative paths: from the config file's folder.
cat >"$tmp/conf/web.yml" <<YML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  alice: '$hash'
YML

# Each agent its own store: a store another agent holds is refused at start (docs/STORE.md).
port=$(free_port)
"$BIN" --sim 1xH200 agent -a "127.0.0.1:$port" --storage.path "$tmp/data1" --web.config.file "$tmp/conf/web.yml" 2>"$tmp/agent.err" &
pids+=($!)
url="https://127.0.0.1:$port"
for _ in $(seq 100); do
	c=$(curl -s --cacert "$tmp/conf/server.crt" -o /dev/null -w '%{http_code}' "$url/health")
	[ "$c" = 401 ] && break
	sleep 0.1
done
[ "$c" = 401 ] || fail "TLS agent never answered 401 (got $c): $(cat "$tmp/agent.err")"
grep -q 'tls=true basic_auth_users=1' "$tmp/agent.err" || fail "start-up log: $(cat "$tmp/agent.err")"

code=$(curl -s --cacert "$tmp/conf/server.crt" -D "$tmp/h" -o /dev/null -w '%{http_code}' "$url/metrics")
[ "$code" = 401 ] || fail "no credentials answered $code"
grep -qi '^WWW-Authenticate: Basic realm="gpuwatch"' "$tmp/h" || fail "401 without WWW-Authenticate: $(cat "$tmp/h")"
code=$(curl -s --cacert "$tmp/conf/server.crt" -u 'alice:s3cret pw' -o "$tmp/m" -w '%{http_code}' "$url/metrics")
[ "$code" = 200 ] || fail "right password answered $code"
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="0"' "$tmp/m" || fail "metrics over TLS lack DCGM_FI_DEV_GPU_TEMP"
code=$(curl -s --cacert "$tmp/conf/server.crt" -u 'alice:wrong' -o /dev/null -w '%{http_code}' "$url/metrics")
[ "$code" = 401 ] || fail "wrong password answered $code"
code=$(curl -s --cacert "$tmp/conf/server.crt" -u 'mallory:s3cret pw' -o /dev/null -w '%{http_code}' "$url/")
[ "$code" = 401 ] || fail "unknown user answered $code"
code=$(curl -s --cacert "$tmp/conf/server.crt" -H 'Authorization: Basic !!!' -o /dev/null -w '%{http_code}' "$url/")
[ "$code" = 401 ] || fail "malformed Authorization answered $code"
# The certificate is verified by the client (--cacert), and plain HTTP gets no metrics.
curl -s -o /dev/null "$url/health" && fail "curl accepted the self-signed certificate without --cacert"
code=$(curl -s -u 'alice:s3cret pw' -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
[ "$code" = 200 ] && fail "plain HTTP served metrics on the TLS port"

# Basic auth without TLS, absolute paths, an empty users map elsewhere.
printf 'basic_auth_users:\n  bob: "%s"\n' "$hash" >"$tmp/auth.yml"
port2=$(free_port)
"$BIN" --sim 1xH200 agent -a "127.0.0.1:$port2" --storage.path "$tmp/data2" --web-config-file="$tmp/auth.yml" 2>"$tmp/agent2.err" &
pids+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port2/health" && break; sleep 0.1; done
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port2/health")
[ "$code" = 401 ] || fail "auth-only agent answered $code without credentials"
code=$(curl -s -u 'bob:s3cret pw' -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port2/health")
[ "$code" = 200 ] || fail "auth-only agent answered $code with credentials"
# POST /-/reload (counters and rule files) is behind the same credentials.
code=$(curl -s -X POST -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port2/-/reload")
[ "$code" = 401 ] || fail "/-/reload answered $code without credentials"
code=$(curl -s -X POST -u 'bob:s3cret pw' -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port2/-/reload")
[ "$code" = 200 ] || fail "/-/reload answered $code with credentials"

# Bad files: the agent exits non-zero at start, naming the file and the problem.
bad() { # name yaml expected-message
	printf '%b' "$2" >"$tmp/conf/$1.yml"
	timeout 10 "$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$tmp/data-bad" --web.config.file "$tmp/conf/$1.yml" 2>"$tmp/bad.err" &
	local p=$! rc
	wait "$p"
	rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$1: agent exit status $rc"
	grep -q "$tmp/conf/$1.yml" "$tmp/bad.err" || fail "$1: error does not name the file: $(cat "$tmp/bad.err")"
	grep -qF "$3" "$tmp/bad.err" || fail "$1: error lacks \"$3\": $(cat "$tmp/bad.err")"
}
bad unknown 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_user:\n  a: b\n' 'line 4: unknown key basic_auth_user'
bad nokey 'tls_server_config:\n  cert_file: server.crt\n' 'has cert_file but no key_file'
bad nocert 'tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n' 'cannot open'
bad notpem 'tls_server_config:\n  cert_file: web.yml\n  key_file: server.key\n' 'is not a PEM file'
bad plainpw 'basic_auth_users:\n  alice: hunter2\n' 'line 2: basic_auth_users values must be bcrypt hashes'
bad yaml 'basic_auth_users: [a, b\n' 'line'
bad clientca 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n' 'it needs client_ca_file'
bad sans 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_allowed_sans: [a]\n' 'client_allowed_sans is not supported'
bad notmap '- a\n- b\n' 'must be a mapping'
timeout 10 "$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$tmp/data-bad" --web.config.file "$tmp/none.yml" 2>"$tmp/bad.err"
rc=$?
[ "$rc" != 0 ] && grep -q "cannot open $tmp/none.yml" "$tmp/bad.err" || fail "missing web config: rc $rc, $(cat "$tmp/bad.err")"
# A key that does not match the certificate fails when the server starts.
openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out "$tmp/conf/other.key" 2>/dev/null
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n' >"$tmp/conf/mismatch.yml"
timeout 10 "$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$tmp/data-bad" --web.config.file "$tmp/conf/mismatch.yml" 2>"$tmp/bad.err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q 'TLS certificate and key' "$tmp/bad.err" || fail "mismatched key: rc $rc, $(cat "$tmp/bad.err")"

[ "$fails" = 0 ] && echo "agent web config: ok"
exit $((fails > 0))
