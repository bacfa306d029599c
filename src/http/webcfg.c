#include "http/webcfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* PEM files and the config itself are small; a cap keeps a wrong path
 * (a log file, /dev/zero) from eating memory. */
#define FILE_MAX (1u << 20)
#define USERS_MAX 1024

/* Exporter-toolkit keys gpuwatch knows but does not implement: refused by name. */
static const char *const unsupported_tls[] = {"client_allowed_sans", NULL};

/* min_version / max_version: the toolkit's names and GnuTLS's. */
static const struct {
	const char *name, *gnutls;
} versions[] = {
	{"TLS10", "VERS-TLS1.0"}, {"TLS11", "VERS-TLS1.1"}, {"TLS12", "VERS-TLS1.2"}, {"TLS13", "VERS-TLS1.3"},
};
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

/* client_auth_type, as the toolkit spells it (RequireClientCert: its old name). */
static const struct {
	const char *name;
	enum gw_webcfg_client_auth v;
} client_auths[] = {
	{"NoClientCert", GW_WEBCFG_NO_CLIENT_CERT},
	{"RequestClientCert", GW_WEBCFG_REQUEST_CLIENT_CERT},
	{"RequireAnyClientCert", GW_WEBCFG_REQUIRE_ANY_CLIENT_CERT},
	{"RequireClientCert", GW_WEBCFG_REQUIRE_ANY_CLIENT_CERT},
	{"VerifyClientCertIfGiven", GW_WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN},
	{"RequireAndVerifyClientCert", GW_WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT},
};

/*
 * cipher_suites: Go's names and the GnuTLS key exchange, cipher and MAC
 * each stands for. TLS 1.3 suites have no key exchange of their own and are
 * always on (Go does not let them be configured either). RC4 suites are
 * gone from GnuTLS, so they are refused.
 */
static const struct {
	const char *name, *kx, *cipher, *mac;
} suites[] = {
	{"TLS_RSA_WITH_3DES_EDE_CBC_SHA", "RSA", "3DES-CBC", "SHA1"},
	{"TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1"},
	{"TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1"},
	{"TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256"},
	{"TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD"},
	{"TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC", "SHA1"},
	{"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC", "SHA1"},
	{"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA", "AES-128-CBC", "SHA256"},
	{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA", "3DES-CBC", "SHA1"},
	{"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1"},
	{"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1"},
	{"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC", "SHA256"},
	{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
	{"TLS_AES_128_GCM_SHA256", NULL, NULL, NULL},
	{"TLS_AES_256_GCM_SHA384", NULL, NULL, NULL},
	{"TLS_CHACHA20_POLY1305_SHA256", NULL, NULL, NULL},
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))
/* What TLS 1.3 needs back after a suite list cleared ciphers and MACs. */
#define TLS13_ITEMS ":+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AEAD"

/* curve_preferences: Go's names and GnuTLS's groups. */
static const struct {
	const char *name, *gnutls;
} curves[] = {
	{"CurveP256", "GROUP-SECP256R1"},
	{"CurveP384", "GROUP-SECP384R1"},
	{"CurveP521", "GROUP-SECP521R1"},
	{"X25519", "GROUP-X25519"},
};
#define NCURVES (sizeof(curves) / sizeof(curves[0]))

/* The TLS keys besides the files, collected before they become a priority string. */
struct tls_opts {
	size_t min, max; /* index into versions */
	bool suite[NSUITES], any_suite;
	size_t curve[NCURVES], ncurves; /* in preference order */
	bool prefer_server;
	bool any; /* a TLS key other than the files */
};

static int read_file(const char *path, char **out, struct gw_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gw_err_set(err, GW_EIO, "cannot open %s: %s", path, strerror(errno));
	char *buf = malloc(FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	size_t n = fread(buf, 1, FILE_MAX + 1, f);
	int bad = ferror(f);
	fclose(f);
	if (bad || n > FILE_MAX) {
		free(buf);
		return gw_err_set(err, GW_EIO, bad ? "cannot read %s" : "%s is larger than 1 MiB", path);
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* A path from the config, relative to the config file's folder (as the toolkit does). */
static void resolve(const char *cfg_path, const char *p, char *out, size_t len)
{
	const char *slash = strrchr(cfg_path, '/');
	if (p[0] == '/' || !slash)
		snprintf(out, len, "%s", p);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - cfg_path), cfg_path, p);
}

struct ctx {
	yaml_document_t *doc;
	const char *path;
	struct gw_err *err;
};

static int bad(const struct ctx *c, const yaml_node_t *n, const char *what)
{
	return gw_err_set(c->err, GW_EPARSE, "%s: line %lu: %s", c->path, (unsigned long)n->start_mark.line + 1,
			  what);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int load_pem(const struct ctx *c, const yaml_node_t *v, char **out, const char *key)
{
	const char *p = scalar(v);
	char msg[160];
	if (!p || !p[0]) {
		snprintf(msg, sizeof(msg), "tls_server_config.%s wants a file name", key);
		return bad(c, v, msg);
	}
	char full[4096];
	resolve(c->path, p, full, sizeof(full));
	struct gw_err inner;
	gw_err_clear(&inner);
	int rc = read_file(full, out, &inner);
	if (rc)
		return gw_err_set(c->err, rc, "%s: tls_server_config.%s: %s", c->path, key, inner.msg);
	if (!strstr(*out, "-----BEGIN "))
		return gw_err_set(c->err, GW_EPARSE, "%s: tls_server_config.%s: %s is not a PEM file", c->path, key,
				  full);
	return 0;
}

/* The index of a scalar's value in a table of names, or n when it names none. */
#define LOOKUP(tab, n, v, out)                                                                     \
	do {                                                                                       \
		for ((out) = 0; (out) < (n) && (!(v) || strcmp((tab)[out].name, (v)) != 0); (out)++) \
			;                                                                          \
	} while (0)

static int want_name(const struct ctx *c, const yaml_node_t *v, const char *key, const char *choices)
{
	char msg[300];
	const char *got = scalar(v);
	snprintf(msg, sizeof(msg), "tls_server_config.%s: unknown value \"%.60s\" (%s)", key, got ? got : "",
		 choices);
	return bad(c, v, msg);
}

static int tls_version(const struct ctx *c, const yaml_node_t *v, const char *key, size_t *out)
{
	size_t i;
	LOOKUP(versions, NVERSIONS, scalar(v), i);
	if (i == NVERSIONS)
		return want_name(c, v, key, "TLS10, TLS11, TLS12, TLS13");
	*out = i;
	return 0;
}

/* cipher_suites and curve_preferences: a YAML sequence of names. */
static int tls_list(const struct ctx *c, const yaml_node_t *v, const char *key, struct tls_opts *o)
{
	bool is_suites = strcmp(key, "cipher_suites") == 0;
	if (v->type != YAML_SEQUENCE_NODE) {
		char msg[120];
		snprintf(msg, sizeof(msg), "tls_server_config.%s wants a list", key);
		return bad(c, v, msg);
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		const yaml_node_t *e = yaml_document_get_node(c->doc, *it);
		size_t i;
		if (is_suites) {
			LOOKUP(suites, NSUITES, scalar(e), i);
			if (i == NSUITES)
				return want_name(c, e, key, "Go's names, as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
			o->suite[i] = o->any_suite = true;
		} else {
			LOOKUP(curves, NCURVES, scalar(e), i);
			if (i == NCURVES)
				return want_name(c, e, key, "CurveP256, CurveP384, CurveP521, X25519");
			bool seen = false;
			for (size_t j = 0; j < o->ncurves; j++)
				seen = seen || o->curve[j] == i;
			if (!seen)
				o->curve[o->ncurves++] = i;
		}
	}
	if (is_suites && !o->any_suite)
		return bad(c, v, "tls_server_config.cipher_suites is an empty list");
	return 0;
}

static int tls_bool(const struct ctx *c, const yaml_node_t *v, const char *key, bool *out)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "on"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "off"};
	const char *s = scalar(v);
	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
			*out = strcmp(s, yes[i]) == 0;
			return 0;
		}
	}
	return want_name(c, v, key, "true, false");
}

/* One key of tls_server_config. */
static int tls_key(const struct ctx *c, const char *name, const yaml_node_t *k, const yaml_node_t *v,
		   struct gw_webcfg *cfg, struct tls_opts *o)
{
	if (strcmp(name, "cert_file") == 0)
		return load_pem(c, v, &cfg->cert_pem, name);
	if (strcmp(name, "key_file") == 0)
		return load_pem(c, v, &cfg->key_pem, name);
	o->any = true;
	if (strcmp(name, "client_ca_file") == 0)
		return load_pem(c, v, &cfg->client_ca_pem, name);
	if (strcmp(name, "min_version") == 0)
		return tls_version(c, v, name, &o->min);
	if (strcmp(name, "max_version") == 0)
		return tls_version(c, v, name, &o->max);
	if (strcmp(name, "cipher_suites") == 0 || strcmp(name, "curve_preferences") == 0)
		return tls_list(c, v, name, o);
	if (strcmp(name, "prefer_server_cipher_suites") == 0)
		return tls_bool(c, v, name, &o->prefer_server);
	if (strcmp(name, "client_auth_type") == 0) {
		size_t i;
		LOOKUP(client_auths, sizeof(client_auths) / sizeof(client_auths[0]), scalar(v), i);
		if (i == sizeof(client_auths) / sizeof(client_auths[0]))
			return want_name(c, v, name,
					 "NoClientCert, RequestClientCert, RequireAnyClientCert, "
					 "VerifyClientCertIfGiven, RequireAndVerifyClientCert");
		cfg->client_auth = client_auths[i].v;
		return 0;
	}
	bool known = false;
	for (size_t i = 0; unsupported_tls[i]; i++)
		known = known || strcmp(unsupported_tls[i], name) == 0;
	char msg[200];
	snprintf(msg, sizeof(msg),
		 known ? "tls_server_config.%s is not supported by gpuwatch" : "unknown key tls_server_config.%s",
		 name);
	return bad(c, k, msg);
}

/* Append ":+item" (or ":-item" for sign '-') unless the string has it already. */
static void prio_add(char *p, size_t n, char sign, const char *item)
{
	char want[64];
	snprintf(want, sizeof(want), ":%c%s", sign, item);
	size_t len = strlen(want);
	for (const char *at = strstr(p, want); at; at = strstr(at + 1, want))
		if (at[len] == ':' || at[len] == '\0')
			return;
	size_t used = strlen(p);
	snprintf(p + used, n - used, "%s", want);
}

/* The GnuTLS priority string for the collected options (the toolkit's defaults: TLS 1.2+, server order). */
static int tls_priorities(struct gw_webcfg *cfg, const struct tls_opts *o)
{
	char p[1024] = "NORMAL";
	prio_add(p, sizeof(p), '-', "VERS-ALL");
	for (size_t v = o->min; v <= o->max; v++)
		prio_add(p, sizeof(p), '+', versions[v].gnutls);
	if (o->any_suite) {
		prio_add(p, sizeof(p), '-', "KX-ALL");
		prio_add(p, sizeof(p), '-', "CIPHER-ALL");
		prio_add(p, sizeof(p), '-', "MAC-ALL");
		for (size_t i = 0; i < NSUITES; i++) {
			if (!o->suite[i] || !suites[i].kx)
				continue;
			prio_add(p, sizeof(p), '+', suites[i].kx);
			prio_add(p, sizeof(p), '+', suites[i].cipher);
			prio_add(p, sizeof(p), '+', suites[i].mac);
		}
		if (o->max == NVERSIONS - 1)
			snprintf(p + strlen(p), sizeof(p) - strlen(p), "%s", TLS13_ITEMS);
	}
	if (o->ncurves) {
		prio_add(p, sizeof(p), '-', "GROUP-ALL");
		for (size_t i = 0; i < o->ncurves; i++)
			prio_add(p, sizeof(p), '+', curves[o->curve[i]].gnutls);
	}
	if (o->prefer_server)
		snprintf(p + strlen(p), sizeof(p) - strlen(p), ":%%SERVER_PRECEDENCE");
	cfg->priorities = strdup(p);
	return cfg->priorities ? 0 : GW_ENOMEM;
}

static int tls_section(const struct ctx *c, yaml_node_t *m, struct gw_webcfg *cfg)
{
	if (m->type != YAML_MAPPING_NODE)
		return bad(c, m, "tls_server_config wants a mapping (cert_file, key_file, ...)");
	struct tls_opts o = {.min = 2, .max = NVERSIONS - 1, .prefer_server = true};
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
		const char *name = scalar(k);
		if (!name)
			return bad(c, k, "tls_server_config keys must be names");
		int rc = tls_key(c, name, k, v, cfg, &o);
		if (rc)
			return rc;
	}
	if (!cfg->cert_pem != !cfg->key_pem)
		return bad(c, m, cfg->cert_pem ? "tls_server_config has cert_file but no key_file"
					       : "tls_server_config has key_file but no cert_file");
	if (!cfg->cert_pem && o.any)
		return bad(c, m, "tls_server_config has TLS settings but no cert_file and key_file");
	if (o.min > o.max)
		return bad(c, m, "tls_server_config.min_version is above max_version");
	if (cfg->client_ca_pem && cfg->client_auth == GW_WEBCFG_NO_CLIENT_CERT)
		return bad(c, m, "tls_server_config.client_ca_file is set but client_auth_type does not ask for "
				 "client certificates");
	if (cfg->client_auth >= GW_WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN && !cfg->client_ca_pem)
		return bad(c, m, "tls_server_config.client_auth_type verifies client certificates: it needs "
				 "client_ca_file");
	if (cfg->client_auth != GW_WEBCFG_NO_CLIENT_CERT)
		cfg->trust_pem = cfg->client_ca_pem ? cfg->client_ca_pem : cfg->cert_pem;
	if (cfg->cert_pem && tls_priorities(cfg, &o))
		return gw_err_set(c->err, GW_ENOMEM, "out of memory");
	return 0;
}

static int users_section(const struct ctx *c, yaml_node_t *m, struct gw_webcfg *cfg)
{
	if (cfg->users)
		return bad(c, m, "basic_auth_users appears twice");
	if (m->type == YAML_SCALAR_NODE && !m->data.scalar.length)
		return 0; /* "basic_auth_users:" with nothing under it */
	if (m->type != YAML_MAPPING_NODE)
		return bad(c, m, "basic_auth_users wants a mapping of user: bcrypt-hash");
	size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	if (n > USERS_MAX)
		return bad(c, m, "more than 1024 basic_auth_users");
	cfg->users = calloc(n ? n : 1, sizeof(*cfg->users));
	if (!cfg->users)
		return gw_err_set(c->err, GW_ENOMEM, "out of memory");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
		const char *name = scalar(k), *hash = scalar(v);
		if (!name || !name[0] || strchr(name, ':'))
			return bad(c, k, "a basic_auth_users name must be a non-empty string without ':'");
		/* bcrypt only, as the exporter toolkit: "$2a$", "$2b$" or "$2y$", cost, 53 characters */
		if (!hash || strlen(hash) != 60 || hash[0] != '$' || hash[1] != '2' || hash[3] != '$')
			return bad(c, v, "basic_auth_users values must be bcrypt hashes ($2y$...)");
		for (size_t i = 0; i < cfg->nusers; i++)
			if (strcmp(cfg->users[i].name, name) == 0)
				return bad(c, k, "a basic_auth_users name appears twice");
		struct gw_webcfg_user *u = &cfg->users[cfg->nusers];
		u->name = strdup(name);
		u->hash = strdup(hash);
		cfg->nusers++;
		if (!u->name || !u->hash)
			return gw_err_set(c->err, GW_ENOMEM, "out of memory");
	}
	return 0;
}

static int walk(const struct ctx *c, struct gw_webcfg *cfg)
{
	yaml_node_t *root = yaml_document_get_root_node(c->doc);
	if (!root || (root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
		return 0; /* an empty file: plain HTTP, no auth */
	if (root->type != YAML_MAPPING_NODE)
		return bad(c, root, "the file must be a mapping (tls_server_config, basic_auth_users)");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
		const char *name = scalar(k);
		char msg[200];
		int rc;
		if (!name)
			return bad(c, k, "top-level keys must be names");
		if (strcmp(name, "tls_server_config") == 0)
			rc = tls_section(c, v, cfg);
		else if (strcmp(name, "basic_auth_users") == 0)
			rc = users_section(c, v, cfg);
		else {
			snprintf(msg, sizeof(msg),
				 strcmp(name, "http_server_config") == 0 ? "%s is not supported by gpuwatch"
									  : "unknown key %s (tls_server_config, basic_auth_users)",
				 name);
			rc = bad(c, k, msg);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int gw_webcfg_load(struct gw_webcfg *cfg, const char *path, struct gw_err *err)
{
	memset(cfg, 0, sizeof(*cfg));
	char *text = NULL;
	int rc = read_file(path, &text, err);
	if (rc)
		return rc;
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &doc)) {
		rc = gw_err_set(err, GW_EPARSE, "%s: line %lu: %s", path, (unsigned long)parser.problem_mark.line + 1,
				parser.problem ? parser.problem : "not valid YAML");
	} else {
		struct ctx c = {&doc, path, err};
		rc = walk(&c, cfg);
		yaml_document_delete(&doc);
		if (rc == 0 && cfg->nusers)
			rc = gw_webcfg_cache_new(&cfg->cache, err);
	}
	yaml_parser_delete(&parser);
	free(text);
	if (rc)
		gw_webcfg_release(cfg);
	return rc;
}

void gw_webcfg_release(struct gw_webcfg *cfg)
{
	free(cfg->cert_pem);
	free(cfg->key_pem);
	free(cfg->priorities);
	free(cfg->client_ca_pem);
	gw_webcfg_cache_free(cfg->cache);
	for (size_t i = 0; i < cfg->nusers; i++) {
		free(cfg->users[i].name);
		free(cfg->users[i].hash);
	}
	free(cfg->users);
	memset(cfg, 0, sizeof(*cfg));
}

