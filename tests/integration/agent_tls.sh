#!/usr/bin/env bash
# --web.config.file's TLS settings with real clients (curl, openssl s_client)
# against certificates made here: TLS 1.0/1.1 refused by default and 1.2/1.3
# accepted, min_version lets 1.1 back in (so the refusal is the server's, not
# the client's), cipher_suites, curve_preferences and max_version limit the
# handshake, and client_auth_type with client_ca_file accepts a client
# certificate signed by the CA and refuses none or one from elsewhere.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v openssl >/dev/null || {
	echo "skipped: curl or openssl not installed (scripts/deps.sh test installs them)"
	exit 77
}
. "$(dirname "$0")/../lib/common.sh"

d=$tmp/conf
mkdir -p "$d"
ec() { echo "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"; }
# shellcheck disable=SC2046
{
	openssl req -x509 $(ec) -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
		-keyout "$d/server.key" -out "$d/server.crt" &&
		openssl req -x509 $(ec) -days 1 -subj /CN=clients-ca -keyout "$d/ca.key" -out "$d/ca.crt" &&
		openssl req $(ec) -subj /CN=scraper -keyout "$d/client.key" -out "$d/client.csr" &&
		openssl x509 -req -in "$d/client.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 1 \
			-out "$d/client.crt" &&
		openssl req -x509 $(ec) -days 1 -subj /CN=rogue -keyout "$d/rogue.key" -out "$d/rogue.crt"
} 2>"$tmp/openssl.err" || { echo "skipped: openssl could not make certificates: $(cat "$tmp/openssl.err")"; exit 77; }

# start NAME EXTRA-YAML: an agent with that TLS config; its port in $port.
start() {
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n%b' "$2" >"$d/$1.yml"
	port=$(free_port)
	"$BIN" --sim 1xH200 agent -a "127.0.0.1:$port" --storage.path "$tmp/data-$1" \
		--web.config.file "$d/$1.yml" 2>"$tmp/$1.err" &
	pids+=($!)
	for _ in $(seq 100); do
		[ "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/health")" != 000 ] && return 0
		grep -q 'level=error' "$tmp/$1.err" && break
		sleep 0.1
	done
	fail "$1: agent did not start: $(cat "$tmp/$1.err")"
}
# code ARGS...: the HTTP status curl gets for /health (000: no TLS connection).
code() { curl -s --cacert "$d/server.crt" -o /dev/null -w '%{http_code}' "$@" "https://127.0.0.1:$port/health"; }
# proto ARGS...: the protocol openssl s_client negotiates, or "none"; its output in $tmp/s_client.
proto() {
	openssl s_client -connect "127.0.0.1:$port" "$@" </dev/null >"$tmp/s_client" 2>&1
	if grep -q '^New, (NONE)' "$tmp/s_client"; then
		echo none
	else
		sed -n 's/^ *Protocol *: *//p' "$tmp/s_client" | head -1 | grep . || echo none
	fi
}
old=(--ciphers 'DEFAULT@SECLEVEL=0') # OpenSSL 3 offers TLS 1.0/1.1 only at security level 0

# Defaults: TLS 1.2 and 1.3 only.
start default ''
c=$(code --tlsv1.1 --tls-max 1.1 "${old[@]}")
[ "$c" = 000 ] || fail "default config: TLS 1.1 answered $c"
c=$(code --tlsv1.0 --tls-max 1.0 "${old[@]}")
[ "$c" = 000 ] || fail "default config: TLS 1.0 answered $c"
p=$(proto -tls1_1 -cipher 'DEFAULT@SECLEVEL=0')
[ "$p" = none ] || fail "default config: s_client -tls1_1 negotiated $p"
[ "$(code --tlsv1.2 --tls-max 1.2)" = 200 ] || fail "default config: TLS 1.2 refused"
[ "$(code --tlsv1.3)" = 200 ] || fail "default config: TLS 1.3 refused"

# min_version: TLS10 lets the same clients in: they can speak 1.1, the server said no above.
start old '  min_version: TLS10\n'
c=$(code --tlsv1.1 --tls-max 1.1 "${old[@]}")
[ "$c" = 200 ] || fail "min_version TLS10: TLS 1.1 answered $c (the client cannot speak 1.1?)"
p=$(proto -tls1_1 -cipher 'DEFAULT@SECLEVEL=0')
[ "$p" = TLSv1.1 ] || fail "min_version TLS10: s_client -tls1_1 negotiated $p"

# max_version, cipher_suites, curve_preferences.
# (The client keeps P-256 on offer: in TLS 1.2 it also names the curves of
# certificates it accepts, and the server's is P-256.)
start narrow '  max_version: TLS12\n  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n  curve_preferences: [X25519]\n'
[ "$(code --tlsv1.3)" = 000 ] || fail "max_version TLS12: TLS 1.3 accepted"
p=$(proto -cipher ECDHE-ECDSA-AES128-GCM-SHA256 -curves X25519:P-256)
[ "$p" = TLSv1.2 ] || fail "narrow: the listed suite and curve negotiated $p"
grep -q 'Server Temp Key: X25519' "$tmp/s_client" || fail "narrow: key exchange not on X25519: $(cat "$tmp/s_client")"
p=$(proto -tls1_2 -cipher ECDHE-ECDSA-AES256-GCM-SHA384 -curves X25519:P-256)
[ "$p" = none ] || fail "narrow: an unlisted suite negotiated $p"
p=$(proto -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256 -curves P-256:P-384)
[ "$p" = none ] || fail "narrow: unlisted curves negotiated $p"

# mTLS: a certificate signed by the CA, none, and a self-signed one.
good=(--cert "$d/client.crt" --key "$d/client.key")
rogue=(--cert "$d/rogue.crt" --key "$d/rogue.key")
start mtls '  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n'
[ "$(code "${good[@]}")" = 200 ] || fail "RequireAndVerifyClientCert: the CA's client was refused"
[ "$(code "${good[@]}" --tls-max 1.2)" = 200 ] || fail "RequireAndVerifyClientCert: the CA's client refused on TLS 1.2"
[ "$(code)" = 403 ] || fail "RequireAndVerifyClientCert: no certificate answered $(code)"
[ "$(code "${rogue[@]}")" = 403 ] || fail "RequireAndVerifyClientCert: a self-signed certificate answered $(code "${rogue[@]}")"
start ifgiven '  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n'
[ "$(code)" = 200 ] || fail "VerifyClientCertIfGiven: no certificate refused"
[ "$(code "${good[@]}")" = 200 ] || fail "VerifyClientCertIfGiven: the CA's client refused"
[ "$(code "${rogue[@]}")" = 403 ] || fail "VerifyClientCertIfGiven: a self-signed certificate accepted"
start anycert '  client_auth_type: RequireAnyClientCert\n'
[ "$(code)" = 403 ] || fail "RequireAnyClientCert: no certificate accepted"
[ "$(code "${rogue[@]}")" = 200 ] || fail "RequireAnyClientCert: a certificate refused"

# A setting the agent cannot honour stops it at start, naming the file and the key.
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS9\n' >"$d/bad.yml"
"$BIN" --sim 1xH200 agent -a "127.0.0.1:$(free_port)" --storage.path "$tmp/data-bad" --web.config.file "$d/bad.yml" 2>"$tmp/bad.err" &&
	fail "an unknown min_version started the agent"
grep -q 'bad.yml: line 4: tls_server_config.min_version: unknown value' "$tmp/bad.err" ||
	fail "unknown min_version: $(cat "$tmp/bad.err")"

[ "$fails" = 0 ] || exit 1
echo "ok"
