/*
 * webcfg_auth.c - who may talk to the server under a web config: the
 * basic-auth check with its cache of successful checks, and the TLS
 * client-certificate policy (client_auth_type) checked on a connection's
 * GnuTLS session.
 */
#include "http/webcfg.h"

#include <crypt.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define CACHE_SLOTS 64

/*
 * Successful basic-auth checks. A slot holds a 128-bit SipHash of
 * "user\0password" under a key drawn at load, so the table keeps no password
 * and an entry cannot be forged without the key; slots are reused round
 * robin, so the table stays bounded whatever clients send.
 */
struct gw_webcfg_cache {
	pthread_mutex_t lock;
	uint64_t key[4];
	uint64_t tag[CACHE_SLOTS][2];
	size_t used, next;
};

int gw_webcfg_cache_new(struct gw_webcfg_cache **out, struct gw_err *err)
{
	struct gw_webcfg_cache *k = calloc(1, sizeof(*k));
	if (!k)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (getrandom(k->key, sizeof(k->key), 0) != (ssize_t)sizeof(k->key)) {
		free(k);
		return gw_err_set(err, GW_EIO, "cannot draw a random key: %s", strerror(errno));
	}
	pthread_mutex_init(&k->lock, NULL);
	*out = k;
	return 0;
}

void gw_webcfg_cache_free(struct gw_webcfg_cache *k)
{
	if (!k)
		return;
	pthread_mutex_destroy(&k->lock);
	explicit_bzero(k, sizeof(*k));
	free(k);
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                   \
	do {                                                                                       \
		v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32);                          \
		v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                                             \
		v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                                             \
		v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32);                          \
	} while (0)

/* SipHash-2-4 of p[0..n) under the 128-bit key k. */
static uint64_t siphash(const uint64_t k[2], const unsigned char *p, size_t n)
{
	uint64_t v0 = k[0] ^ 0x736f6d6570736575ull, v1 = k[1] ^ 0x646f72616e646f6dull;
	uint64_t v2 = k[0] ^ 0x6c7967656e657261ull, v3 = k[1] ^ 0x7465646279746573ull;
	uint64_t b = (uint64_t)n << 56;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t m = 0;
		for (int j = 7; j >= 0; j--)
			m = (m << 8) | p[i + (size_t)j];
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t j = 0; i + j < n; j++)
		b |= (uint64_t)p[i + j] << (8 * j);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	for (int r = 0; r < 4; r++)
		SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
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

/* Whether the cache holds tag; with add, remember it. */
static bool cache_has(struct gw_webcfg_cache *k, const uint64_t tag[2], bool add)
{
	bool hit = false;
	pthread_mutex_lock(&k->lock);
	for (size_t i = 0; i < k->used && !hit; i++)
		hit = k->tag[i][0] == tag[0] && k->tag[i][1] == tag[1];
	if (!hit && add) {
		memcpy(k->tag[k->next], tag, sizeof(k->tag[0]));
		k->next = (k->next + 1) % CACHE_SLOTS;
		if (k->used < CACHE_SLOTS)
			k->used++;
	}
	pthread_mutex_unlock(&k->lock);
	return hit;
}

/* bcrypt: the costly part, done once per user and password that the cache has not seen. */
static bool bcrypt_ok(const struct gw_webcfg_user *u, const char *hash, const char *pw)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd)); /* ~32 KiB: too big for a worker's stack */
	if (!cd)
		return false;
	const char *got = crypt_r(pw, hash, cd);
	bool ok = u && got && got[0] != '*' && same(got, hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
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
	long n = gw_base64_decode(b64, cred, sizeof(cred));
	/* The whole credential counts: a NUL inside would cut the password short for crypt_r. */
	char *colon = n > 0 ? memchr(cred, ':', (size_t)n) : NULL;
	if (!colon || memchr(cred, '\0', (size_t)n)) {
		explicit_bzero(cred, sizeof(cred));
		return false;
	}
	*colon = '\0';
	const struct gw_webcfg_user *u = NULL;
	for (size_t i = 0; i < cfg->nusers; i++)
		if (strcmp(cfg->users[i].name, cred) == 0)
			u = &cfg->users[i];
	/* "user\0password" under two keys: 128 bits, so no collision stands in for a password */
	uint64_t tag[2] = {siphash(cfg->cache->key, (const unsigned char *)cred, (size_t)n),
			   siphash(cfg->cache->key + 2, (const unsigned char *)cred, (size_t)n)};
	bool ok = u && cache_has(cfg->cache, tag, false);
	/* An unknown user still pays for one bcrypt, so timing does not reveal which names exist. */
	if (!ok && bcrypt_ok(u, u ? u->hash : cfg->users[0].hash, colon + 1)) {
		ok = true;
		cache_has(cfg->cache, tag, true);
	}
	explicit_bzero(cred, sizeof(cred));
	explicit_bzero(tag, sizeof(tag));
	return ok;
}

/*
 * GnuTLS is not linked: libmicrohttpd brought it in when it was loaded, and
 * the session to check is that copy's, so the symbols are looked up in the
 * library already loaded (RTLD_NOLOAD) rather than a second one.
 */
#define GNUTLS_SONAME "libgnutls.so.30"
struct gnutls_fns {
	const void *(*get_peers)(void *session, unsigned int *n); /* gnutls_certificate_get_peers */
	int (*verify_peers2)(void *session, unsigned int *status); /* gnutls_certificate_verify_peers2 */
	const char *(*strerror)(int code);                         /* gnutls_strerror */
	char error[160];
};
static struct gnutls_fns gnutls; /* read-only once gnutls_once has run */
static pthread_once_t gnutls_once = PTHREAD_ONCE_INIT;

static void gnutls_load(void)
{
	void *h = dlopen(GNUTLS_SONAME, RTLD_NOW | RTLD_NOLOAD);
	if (!h) {
		snprintf(gnutls.error, sizeof(gnutls.error), "%s is not loaded", GNUTLS_SONAME);
		return;
	}
	*(void **)&gnutls.get_peers = dlsym(h, "gnutls_certificate_get_peers");
	*(void **)&gnutls.verify_peers2 = dlsym(h, "gnutls_certificate_verify_peers2");
	*(void **)&gnutls.strerror = dlsym(h, "gnutls_strerror");
	if (!gnutls.get_peers || !gnutls.verify_peers2 || !gnutls.strerror)
		snprintf(gnutls.error, sizeof(gnutls.error), "%s lacks the certificate functions", GNUTLS_SONAME);
}

int gw_webcfg_check_client(const struct gw_webcfg *cfg, void *session, struct gw_err *err)
{
	if (!cfg || cfg->client_auth <= GW_WEBCFG_REQUEST_CLIENT_CERT)
		return 0;
	if (!session)
		return gw_err_set(err, GW_EPERM, "no TLS session");
	pthread_once(&gnutls_once, gnutls_load);
	if (gnutls.error[0])
		return gw_err_set(err, GW_EPERM, "cannot check the client certificate: %s", gnutls.error);
	unsigned int n = 0;
	bool given = gnutls.get_peers(session, &n) && n > 0;
	if (!given)
		return cfg->client_auth == GW_WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN
			       ? 0
			       : gw_err_set(err, GW_EPERM, "no client certificate");
	if (cfg->client_auth == GW_WEBCFG_REQUIRE_ANY_CLIENT_CERT)
		return 0;
	unsigned int status = 0;
	int rc = gnutls.verify_peers2(session, &status);
	if (rc < 0)
		return gw_err_set(err, GW_EPERM, "client certificate not checked: %s", gnutls.strerror(rc));
	if (status)
		return gw_err_set(err, GW_EPERM, "client certificate not trusted (status 0x%x)", status);
	return 0;
}
