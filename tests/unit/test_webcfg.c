/*
 * http/webcfg: base64, the basic-auth check against a bcrypt hash (cost 4
 * so the test stays fast) and its cache (cost 10, timed), the TLS keys as a
 * GnuTLS priority string and a client-certificate policy, and the loader's
 * refusals with file and line.
 */
#include "harness.h"
#include "http/webcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HASH "$2b$04$zd8xClEK7YVz9T8naRMv3uVpPHYymJOFfdiaIEqe7b/d/kzwH2qXa" /* "pw" */
#define HASH10 "$2b$10$6d2T6Q5jrUy/MQXl.9jPRO2huBn8K1sGQfr73XmhEiyluCBMhw7Im" /* "pw", cost 10 */
#define TLS_FILES "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"

static char dir[] = "/tmp/gw-webcfg-XXXXXX";

static void put(const char *name, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int load(const char *name, const char *text, struct gw_webcfg *c, struct gw_err *e)
{
	put(name, text);
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	gw_err_clear(e);
	return gw_webcfg_load(c, p, e);
}

static void test_base64(void)
{
	char out[16];
	CHECK_INT_EQ(gw_base64_decode("YWxpY2U6cHc=", out, sizeof(out)), 8);
	CHECK_STR_EQ(out, "alice:pw");
	CHECK_INT_EQ(gw_base64_decode("Ym9iOnB3", out, sizeof(out)), 6);
	CHECK_STR_EQ(out, "bob:pw");
	CHECK_INT_EQ(gw_base64_decode("", out, sizeof(out)), 0);
	CHECK_INT_EQ(gw_base64_decode("!!!", out, sizeof(out)), -1);
	CHECK_INT_EQ(gw_base64_decode("YWxpY2U6cHc=x", out, sizeof(out)), -1); /* data after padding */
	CHECK_INT_EQ(gw_base64_decode("Y", out, sizeof(out)), -1);             /* 6 bits: no byte */
	CHECK_INT_EQ(gw_base64_decode("YWxpY2U6cHdwd3B3cHdwdw==", out, 8), -1); /* does not fit */
}

static void test_check(void)
{
	struct gw_webcfg c;
	struct gw_err e;
	CHECK_INT_EQ(load("users.yml", "basic_auth_users:\n  alice: '" HASH "'\n", &c, &e), 0);
	CHECK_INT_EQ(c.nusers, 1);
	CHECK(c.cert_pem == NULL);
	CHECK(gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHc="));   /* alice:pw */
	CHECK(gw_webcfg_check_basic(&c, "basic  YWxpY2U6cHc=")); /* scheme is case-insensitive */
	CHECK(!gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHg=")); /* alice:px */
	CHECK(!gw_webcfg_check_basic(&c, "Basic Ym9iOnB3"));     /* bob:pw */
	CHECK(!gw_webcfg_check_basic(&c, "Basic YWxpY2U="));     /* no colon */
	CHECK(!gw_webcfg_check_basic(&c, "Bearer YWxpY2U6cHc="));
	CHECK(!gw_webcfg_check_basic(&c, NULL));
	/* the whole decoded credential counts: "alice:pw\0junk" is not "alice:pw" */
	CHECK(!gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHcAanVuaw=="));
	CHECK(gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHc=")); /* cached now */
	CHECK(!gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHcAanVuaw=="));
	gw_webcfg_release(&c);
	/* no users: everyone passes */
	CHECK_INT_EQ(load("empty.yml", "", &c, &e), 0);
	CHECK(gw_webcfg_check_basic(&c, NULL));
	gw_webcfg_release(&c);
}

static void test_refusals(void)
{
	const struct {
		const char *yaml, *msg;
	} cases[] = {
		{"tls_server_config:\n  cert_file: s.crt\n", "has cert_file but no key_file"},
		{"tls_server_config:\n  cert_file: nope.crt\n  key_file: k.pem\n", "cannot open"},
		{"tls_server_config:\n  cert_file: plain.txt\n  key_file: plain.txt\n", "is not a PEM file"},
		{"tls_server_config:\n  min_version: TLS13\n", "TLS settings but no cert_file and key_file"},
		{TLS_FILES "  min_version: TLS14\n", "line 4: tls_server_config.min_version: unknown value \"TLS14\""},
		{TLS_FILES "  min_version: TLS13\n  max_version: TLS12\n", "min_version is above max_version"},
		{TLS_FILES "  cipher_suites: [TLS_ECDHE_RSA_WITH_RC4_128_SHA]\n", "line 4: tls_server_config.cipher_suites"},
		{TLS_FILES "  cipher_suites: TLS_AES_128_GCM_SHA256\n", "cipher_suites wants a list"},
		{TLS_FILES "  cipher_suites: []\n", "cipher_suites is an empty list"},
		{TLS_FILES "  curve_preferences: [P256]\n", "curve_preferences: unknown value \"P256\""},
		{TLS_FILES "  prefer_server_cipher_suites: maybe\n", "unknown value \"maybe\" (true, false)"},
		{TLS_FILES "  client_auth_type: RequireCert\n", "client_auth_type: unknown value \"RequireCert\""},
		{TLS_FILES "  client_ca_file: s.crt\n", "client_ca_file is set but client_auth_type does not ask"},
		{TLS_FILES "  client_auth_type: RequireAndVerifyClientCert\n", "it needs client_ca_file"},
		{TLS_FILES "  client_auth_type: VerifyClientCertIfGiven\n", "it needs client_ca_file"},
		{TLS_FILES "  client_allowed_sans: [a]\n", "line 4: tls_server_config.client_allowed_sans is not supported"},
		{"tls_server_config: yes\n", "wants a mapping"},
		{"basic_auth_users:\n  alice: hunter2\n", "line 2: basic_auth_users values must be bcrypt"},
		{"basic_auth_users:\n  alice: '" HASH "'\n  alice: '" HASH "'\n", "appears twice"},
		{"basic_auth_users:\n  alice: '" HASH "'\nbasic_auth_users:\n  bob: '" HASH "'\n",
		 "line 4: basic_auth_users appears twice"},
		{"basic_auth_users:\n  'a:b': '" HASH "'\n", "without ':'"},
		{"http_server_config:\n  http2: false\n", "http_server_config is not supported"},
		{"web:\n", "line 1: unknown key web"},
		{"[1, 2]\n", "must be a mapping"},
		{"a: [\n", "line"},
	};
	put("plain.txt", "not a certificate\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gw_webcfg c;
		struct gw_err e;
		CHECK(load("bad.yml", cases[i].yaml, &c, &e) < 0);
		if (!strstr(e.msg, cases[i].msg) || !strstr(e.msg, "bad.yml"))
			fprintf(stderr, "case %zu: \"%s\" lacks \"%s\"\n", i, e.msg, cases[i].msg);
		CHECK(strstr(e.msg, cases[i].msg) != NULL);
		CHECK(strstr(e.msg, "bad.yml") != NULL);
		CHECK(c.users == NULL && c.cert_pem == NULL); /* released on failure */
	}
	struct gw_err e;
	struct gw_webcfg c;
	gw_err_clear(&e);
	CHECK_INT_EQ(gw_webcfg_load(&c, "/nonexistent/web.yml", &e), GW_EIO);
	CHECK(strstr(e.msg, "cannot open /nonexistent/web.yml") != NULL);
}

static void test_pem_relative(void)
{
	struct gw_webcfg c;
	struct gw_err e;
	CHECK_INT_EQ(load("tls.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n", &c, &e), 0);
	CHECK(c.cert_pem && strstr(c.cert_pem, "BEGIN CERTIFICATE"));
	CHECK(c.key_pem && strstr(c.key_pem, "BEGIN PRIVATE KEY"));
	gw_webcfg_release(&c);
}

/* The TLS keys as the GnuTLS priority string libmicrohttpd gets, and the client policy. */
static void test_tls_keys(void)
{
	struct gw_webcfg c;
	struct gw_err e;
	/* the toolkit's defaults: TLS 1.2 and 1.3 only, the server's order */
	CHECK_INT_EQ(load("tls.yml", TLS_FILES, &c, &e), 0);
	CHECK_STR_EQ(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3:%SERVER_PRECEDENCE");
	CHECK_INT_EQ(c.client_auth, GW_WEBCFG_NO_CLIENT_CERT);
	CHECK(c.trust_pem == NULL);
	gw_webcfg_release(&c);

	CHECK_INT_EQ(load("tls.yml",
			  TLS_FILES "  min_version: TLS10\n  max_version: TLS12\n  prefer_server_cipher_suites: false\n"
				    "  cipher_suites:\n  - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
				    "  - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256\n  - TLS_AES_128_GCM_SHA256\n"
				    "  curve_preferences: [X25519, CurveP256, X25519]\n",
			  &c, &e),
		     0);
	CHECK_STR_EQ(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.0:+VERS-TLS1.1:+VERS-TLS1.2:-KX-ALL:-CIPHER-ALL:"
				   "-MAC-ALL:+ECDHE-ECDSA:+AES-128-GCM:+AEAD:+ECDHE-RSA:-GROUP-ALL:+GROUP-X25519:"
				   "+GROUP-SECP256R1");
	gw_webcfg_release(&c);
	/* with TLS 1.3 on, a suite list keeps TLS 1.3's ciphers, as Go does */
	CHECK_INT_EQ(load("tls.yml", TLS_FILES "  cipher_suites: [TLS_RSA_WITH_AES_256_CBC_SHA]\n", &c, &e), 0);
	CHECK(strstr(c.priorities, ":+RSA:+AES-256-CBC:+SHA1:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AEAD"));
	gw_webcfg_release(&c);

	/* mTLS: the CA is the trust; without a CA, a mode that only asks still gets one to ask with */
	CHECK_INT_EQ(load("tls.yml", TLS_FILES "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: s.crt\n",
			  &c, &e),
		     0);
	CHECK_INT_EQ(c.client_auth, GW_WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT);
	CHECK(c.client_ca_pem && strstr(c.client_ca_pem, "BEGIN CERTIFICATE"));
	CHECK(c.trust_pem == c.client_ca_pem);
	CHECK_INT_EQ(gw_webcfg_check_client(&c, NULL, &e), GW_EPERM); /* plain HTTP: no certificate */
	gw_webcfg_release(&c);
	CHECK_INT_EQ(load("tls.yml", TLS_FILES "  client_auth_type: RequireClientCert\n", &c, &e), 0);
	CHECK_INT_EQ(c.client_auth, GW_WEBCFG_REQUIRE_ANY_CLIENT_CERT);
	CHECK(c.trust_pem == c.cert_pem);
	gw_webcfg_release(&c);
	CHECK_INT_EQ(load("tls.yml", TLS_FILES "  client_auth_type: RequestClientCert\n", &c, &e), 0);
	CHECK_INT_EQ(gw_webcfg_check_client(&c, NULL, &e), 0); /* asks, requires nothing */
	gw_webcfg_release(&c);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A right password costs bcrypt once: later checks come from the cache; wrong ones never do. */
static void test_cache(void)
{
	struct gw_webcfg c;
	struct gw_err e;
	CHECK_INT_EQ(load("users.yml", "basic_auth_users:\n  alice: '" HASH10 "'\n  bob: '" HASH10 "'\n", &c, &e), 0);
	double t0 = now_s();
	CHECK(!gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHg=")); /* alice:px, one bcrypt */
	double one = now_s() - t0;
	CHECK(gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHc=")); /* alice:pw, bcrypt, then cached */
	t0 = now_s();
	for (int i = 0; i < 20; i++)
		CHECK(gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHc="));
	double twenty = now_s() - t0;
	if (twenty >= one)
		fprintf(stderr, "20 cached checks took %.3f s, one bcrypt %.3f s\n", twenty, one);
	CHECK(twenty < one);
	/* the cache is keyed by user and password: neither alone lets anyone in */
	CHECK(!gw_webcfg_check_basic(&c, "Basic YWxpY2U6cHg="));
	CHECK(gw_webcfg_check_basic(&c, "Basic Ym9iOnB3")); /* bob:pw: a bcrypt of its own */
	CHECK(!gw_webcfg_check_basic(&c, "Basic Ym9iOnB4"));  /* bob:px */
	gw_webcfg_release(&c);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	put("s.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	put("s.key", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n");
	RUN(test_base64);
	RUN(test_check);
	RUN(test_refusals);
	RUN(test_pem_relative);
	RUN(test_tls_keys);
	RUN(test_cache);
	const char *files[] = {"users.yml", "empty.yml", "bad.yml", "plain.txt", "s.crt", "s.key", "tls.yml"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[256];
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
	return harness_done();
}
