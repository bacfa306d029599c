/*
 * webcfg.h - the Prometheus exporter-toolkit web configuration file
 * (--web.config.file), which node_exporter, dcgm-exporter and Prometheus
 * itself read, so one file serves the whole fleet:
 *
 *   tls_server_config:
 *     cert_file: server.crt        # PEM; relative paths are from the file's folder
 *     key_file: server.key
 *     min_version: TLS12           # TLS10..TLS13; default TLS12
 *     max_version: TLS13
 *     cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...]   # Go's names
 *     curve_preferences: [X25519, CurveP256]
 *     prefer_server_cipher_suites: true
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: clients-ca.crt
 *   basic_auth_users:
 *     alice: $2y$10$...            # bcrypt hashes only, as the toolkit
 *
 * Both sections are optional; an empty file means plain HTTP, no auth. The
 * TLS keys keep the toolkit's meanings; versions, suites, curves and server
 * precedence become one GnuTLS priority string (priorities). GnuTLS chooses
 * key exchange, cipher and MAC separately, so a suite list is allowed as
 * the combinations of its parts, and TLS 1.3's suites stay on, as in Go.
 * Settings gpuwatch does not implement (client_allowed_sans,
 * http_server_config, ...) are refused by name rather than silently ignored.
 *
 * Passwords are checked with crypt_r(3) from libxcrypt ($2a$/$2b$/$2y$). A
 * bcrypt check costs milliseconds (cost 10: ~50 ms), so successful checks
 * are remembered in a small cache keyed by a keyed hash of user and
 * password: a correct password costs bcrypt once rather than on every
 * scrape; wrong ones are checked in full every time and never remembered.
 *
 * Ownership: gw_webcfg_load() fills a caller-embedded struct that owns the
 * PEM text, users and cache; gw_webcfg_release() frees them (the struct may
 * be copied by value before that; release one copy). Threading: a loaded
 * config is read-only but for the cache, which has its own lock;
 * gw_webcfg_check_basic() and gw_webcfg_check_client() may run on many
 * threads.
 */
#ifndef GW_HTTP_WEBCFG_H
#define GW_HTTP_WEBCFG_H

#include "core/err.h"

#include <stdbool.h>
#include <stddef.h>

struct gw_webcfg_user {
	char *name;
	char *hash; /* bcrypt, "$2y$10$..." */
};

/* client_auth_type, in the toolkit's (Go's crypto/tls) order of strictness. */
enum gw_webcfg_client_auth {
	GW_WEBCFG_NO_CLIENT_CERT,
	GW_WEBCFG_REQUEST_CLIENT_CERT,
	GW_WEBCFG_REQUIRE_ANY_CLIENT_CERT,
	GW_WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN,
	GW_WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

struct gw_webcfg_cache;

struct gw_webcfg {
	char *cert_pem; /* NUL-terminated PEM, or NULL: no TLS */
	char *key_pem;
	char *priorities;    /* GnuTLS priority string; set with cert_pem */
	char *client_ca_pem; /* client_ca_file's PEM, or NULL */
	/*
	 * PEM to hand the TLS library as client trust, or NULL. libmicrohttpd
	 * asks clients for a certificate only when it has one: client_ca_pem,
	 * or cert_pem when a mode wants a certificate but no CA checks it.
	 * Borrowed from one of the two.
	 */
	const char *trust_pem;
	enum gw_webcfg_client_auth client_auth;
	struct gw_webcfg_user *users;
	size_t nusers; /* 0: no authentication */
	struct gw_webcfg_cache *cache; /* successful basic-auth checks; NULL without users */
};

/* Parse and check path, reading the certificate and key it names. Errors
 * name the file and the problem ("web.yml: line 3: unknown key ..."). */
int gw_webcfg_load(struct gw_webcfg *cfg, const char *path, struct gw_err *err);
void gw_webcfg_release(struct gw_webcfg *cfg);

/* Whether an Authorization header value ("Basic base64(user:pw)", or NULL)
 * names a configured user with the right password. True when no users are
 * configured. */
bool gw_webcfg_check_basic(const struct gw_webcfg *cfg, const char *authorization);

/*
 * Whether a TLS client may go on under client_auth_type: session is the
 * connection's gnutls_session_t (NULL on plain HTTP). Returns 0, or
 * GW_EPERM with the reason in err ("no client certificate", "client
 * certificate not trusted: ..."). GnuTLS is the one libmicrohttpd loaded.
 */
int gw_webcfg_check_client(const struct gw_webcfg *cfg, void *session, struct gw_err *err);

/* The basic-auth cache, for the loader (webcfg_auth.c); _free(NULL) is a no-op. */
int gw_webcfg_cache_new(struct gw_webcfg_cache **out, struct gw_err *err);
void gw_webcfg_cache_free(struct gw_webcfg_cache *cache);

/* Decode base64 (standard alphabet, '=' padding) into out (NUL-terminated).
 * Returns the decoded length, or -1 when the input is malformed or too long. */
long gw_base64_decode(const char *in, char *out, size_t outlen);

#endif
