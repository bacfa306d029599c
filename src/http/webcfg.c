#include "http/webcfg.h"

#include <crypt.h>
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
static const char *const unsupported_tls[] = {"client_auth_type", "client_ca_file", "cipher_suites",
					      "curve_preferences", "min_version", "max_version",
					      "prefer_server_cipher_suites", "client_allowed_sans", NULL};

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

static int tls_section(const struct ctx *c, yaml_node_t *m, struct gw_webcfg *cfg)
{
	if (m->type != YAML_MAPPING_NODE)
		return bad(c, m, "tls_server_config wants a mapping (cert_file, key_file)");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
		const char *name = scalar(k);
		char msg[200];
		if (!name)
			return bad(c, k, "tls_server_config keys must be names");
		int rc;
		if (strcmp(name, "cert_file") == 0)
			rc = load_pem(c, v, &cfg->cert_pem, name);
		else if (strcmp(name, "key_file") == 0)
			rc = load_pem(c, v, &cfg->key_pem, name);
		else {
			bool known = false;
			for (size_t i = 0; unsupported_tls[i]; i++)
				known = known || strcmp(unsupported_tls[i], name) == 0;
			snprintf(msg, sizeof(msg), known ? "tls_server_config.%s is not supported by gpuwatch"
							 : "unknown key tls_server_config.%s",
				 name);
			rc = bad(c, k, msg);
		}
		if (rc)
			return rc;
	}
	if (!cfg->cert_pem != !cfg->key_pem)
		return bad(c, m, cfg->cert_pem ? "tls_server_config has cert_file but no key_file"
					       : "tls_server_config has key_file but no cert_file");
	return 0;
}

static int users_section(const struct ctx *c, yaml_node_t *m, struct gw_webcfg *cfg)
{
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
	for (size_t i = 0; i < cfg->nusers; i++) {
		free(cfg->users[i].name);
		free(cfg->users[i].hash);
	}
	free(cfg->users);
	memset(cfg, 0, sizeof(*cfg));
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long gw_base64_decode(const char *in, char *out, size_t outlen)
{
	size_t n = 0;
	unsigned int acc = 0, bits = 0;
	const char *p = in;
	for (; *p && *p != '='; p++) {
		int v = b64val(*p);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n + 1 >= outlen)
				return -1;
			out[n++] = (char)((acc >> bits) & 0xFF);
		}
	}
	while (*p == '=')
		p++;
	if (*p || bits >= 6)
		return -1;
	out[n] = '\0';
	return (long)n;
}

/* Compare without an early exit, so timing does not tell how much matched. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;
	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

bool gw_webcfg_check_basic(const struct gw_webcfg *cfg, const char *authorization)
{
	if (!cfg || !cfg->nusers)
		return true;
	if (!authorization || strncasecmp(authorization, "Basic ", 6) != 0)
		return false;
	const char *b64 = authorization + 6;
	while (*b64 == ' ')
		b64++;
	char cred[512];
	if (gw_base64_decode(b64, cred, sizeof(cred)) < 0 || strlen(cred) == 0)
		return false;
	char *colon = strchr(cred, ':');
	if (!colon)
		return false;
	*colon = '\0';
	const struct gw_webcfg_user *u = NULL;
	for (size_t i = 0; i < cfg->nusers; i++)
		if (strcmp(cfg->users[i].name, cred) == 0)
			u = &cfg->users[i];
	/* An unknown user still pays for one bcrypt, so timing does not reveal which names exist. */
	const char *hash = u ? u->hash : cfg->users[0].hash;
	struct crypt_data *cd = calloc(1, sizeof(*cd)); /* ~32 KiB: too big for a worker's stack */
	if (!cd)
		return false;
	const char *got = crypt_r(colon + 1, hash, cd);
	bool ok = u && got && got[0] != '*' && same(got, hash);
	explicit_bzero(cred, sizeof(cred));
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}
