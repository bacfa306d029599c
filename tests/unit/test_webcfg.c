/*
 * http/webcfg: base64, the basic-auth check against a bcrypt hash (cost 4
 * so the test stays fast), and the loader's refusals with file and line.
 */
#include "harness.h"
#include "http/webcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HASH "$2b$04$zd8xClEK7YVz9T8naRMv3uVpPHYymJOFfdiaIEqe7b/d/kzwH2qXa" /* "pw" */

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
		{"tls_server_config:\n  min_version: TLS13\n", "line 2: tls_server_config.min_version is not supported"},
		{"tls_server_config: yes\n", "wants a mapping"},
		{"basic_auth_users:\n  alice: hunter2\n", "line 2: basic_auth_users values must be bcrypt"},
		{"basic_auth_users:\n  alice: '" HASH "'\n  alice: '" HASH "'\n", "appears twice"},
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
	const char *files[] = {"users.yml", "empty.yml", "bad.yml", "plain.txt", "s.crt", "s.key", "tls.yml"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[256];
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
	return harness_done();
}
