/*
 * webcfg.h - the Prometheus exporter-toolkit web configuration file
 * (--web.config.file), which node_exporter, dcgm-exporter and Prometheus
 * itself read, so one file serves the whole fleet:
 *
 *   tls_server_config:
 *     cert_file: server.crt        # PEM; relative paths are from the file's folder
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...            # bcrypt hashes only, as the toolkit
 *
 * Both sections are optional; an empty file means plain HTTP, no auth.
 * Settings of the toolkit gpuwatch does not implement (client_auth_type,
 * client_ca_file, min_version, cipher_suites, http_server_config, ...) are
 * refused by name rather than silently ignored: a file meant to require
 * client certificates must not start an agent that accepts anyone.
 *
 * Passwords are checked with crypt_r(3) from libxcrypt ($2a$/$2b$/$2y$),
 * and successful checks are not cached: a bcrypt check costs milliseconds
 * (cost 10: ~50 ms), so scrapers should use a low cost or TLS client-side
 * keep-alive.
 *
 * Ownership: gw_webcfg_load() fills a caller-embedded struct that owns the
 * PEM text and users; gw_webcfg_release() frees them. Threading: a loaded
 * config is read-only; gw_webcfg_check_basic() may run on many threads.
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

struct gw_webcfg {
	char *cert_pem; /* NUL-terminated PEM, or NULL: no TLS */
	char *key_pem;
	struct gw_webcfg_user *users;
	size_t nusers; /* 0: no authentication */
};

/* Parse and check path, reading the certificate and key it names. Errors
 * name the file and the problem ("web.yml: line 3: unknown key ..."). */
int gw_webcfg_load(struct gw_webcfg *cfg, const char *path, struct gw_err *err);
void gw_webcfg_release(struct gw_webcfg *cfg);

/* Whether an Authorization header value ("Basic base64(user:pw)", or NULL)
 * names a configured user with the right password. True when no users are
 * configured. */
bool gw_webcfg_check_basic(const struct gw_webcfg *cfg, const char *authorization);

/* Decode base64 (standard alphabet, '=' padding) into out (NUL-terminated).
 * Returns the decoded length, or -1 when the input is malformed or too long. */
long gw_base64_decode(const char *in, char *out, size_t outlen);

#endif
