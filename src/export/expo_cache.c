#include "export/expo_cache.h"

#include "core/buf.h"
#include "core/err.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <zlib.h>

struct gw_expo_body {
	atomic_int refs;
	size_t len;
	char *data; /* malloc'd, owned */
};

void gw_expo_body_unref(void *ref)
{
	struct gw_expo_body *b = ref;
	if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) {
		free(b->data);
		free(b);
	}
}

void gw_expo_cache_init(struct gw_expo_cache *c, size_t limit)
{
	*c = (struct gw_expo_cache){.limit = limit};
	pthread_mutex_init(&c->mu, NULL);
}

void gw_expo_cache_clear(struct gw_expo_cache *c)
{
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < 2; i++)
		for (size_t z = 0; z < 2; z++) {
			gw_expo_body_unref(c->ent[i][z].body);
			c->ent[i][z].body = NULL;
			c->ent[i][z].seq = 0;
		}
	pthread_mutex_unlock(&c->mu);
}

void gw_expo_cache_release(struct gw_expo_cache *c)
{
	gw_expo_cache_clear(c);
	pthread_mutex_destroy(&c->mu);
}

static int render(struct gw_expo_cache *c, const struct gw_metrics *m, const struct gw_frame *f,
		  enum gw_expfmt_kind kind, size_t hint, struct gw_expo_body **out)
{
	struct gw_buf buf;
	gw_buf_init(&buf, c->limit);
	/* Start at the last size so a frame like the last renders without regrowing. */
	size_t want = hint + hint / 8;
	if (want > c->limit)
		want = c->limit;
	if (want && gw_buf_reserve(&buf, want) != 0) {
		gw_buf_release(&buf);
		return GW_ENOMEM;
	}
	int rc = gw_metrics_render(m, f, kind, &buf);
	struct gw_expo_body *b = rc ? NULL : malloc(sizeof(*b));
	if (!b) {
		gw_buf_release(&buf);
		return rc ? rc : GW_ENOMEM;
	}
	atomic_init(&b->refs, 1);
	b->len = buf.len;
	b->data = buf.data; /* taken over from the buffer */
	*out = b;
	return 0;
}

/* A gzip member of the plain body, deflated at the fastest level (made once per frame, sent to every gzip scrape). */
static int compress_body(const struct gw_expo_body *plain, struct gw_expo_body **out)
{
	z_stream z = {0};
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return GW_ENOMEM;
	uLong cap = deflateBound(&z, (uLong)plain->len);
	struct gw_expo_body *b = malloc(sizeof(*b));
	char *data = malloc(cap ? cap : 1);
	if (!b || !data) {
		deflateEnd(&z);
		free(b);
		free(data);
		return GW_ENOMEM;
	}
	z.next_in = (Bytef *)plain->data;
	z.avail_in = (uInt)plain->len;
	z.next_out = (Bytef *)data;
	z.avail_out = (uInt)cap;
	int zr = deflate(&z, Z_FINISH);
	size_t len = (size_t)z.total_out;
	deflateEnd(&z);
	if (zr != Z_STREAM_END) { /* cannot happen with deflateBound's room */
		free(b);
		free(data);
		return GW_ENOMEM;
	}
	atomic_init(&b->refs, 1);
	b->len = len;
	b->data = data;
	*out = b;
	return 0;
}

int gw_expo_cache_get(struct gw_expo_cache *c, const struct gw_metrics *m, const struct gw_frame *f,
		      enum gw_expfmt_kind kind, bool gzip, const char **data, size_t *len, void **ref)
{
	unsigned k = kind == GW_EXPFMT_OPENMETRICS ? 1 : 0;
	pthread_mutex_lock(&c->mu);
	int rc = 0;
	/* A request holding an older frame than the cached one gets the newer bytes. */
	if (!c->ent[k][0].body || f->seq > c->ent[k][0].seq) {
		size_t hint = c->ent[k][0].body ? c->ent[k][0].body->len : 0;
		struct gw_expo_body *b;
		rc = render(c, m, f, kind, hint, &b);
		if (rc == 0) {
			gw_expo_body_unref(c->ent[k][0].body);
			c->ent[k][0].body = b;
			c->ent[k][0].seq = f->seq;
			c->renders++;
		}
	}
	unsigned z = gzip ? 1 : 0;
	if (rc == 0 && z && (!c->ent[k][1].body || c->ent[k][1].seq != c->ent[k][0].seq)) {
		struct gw_expo_body *b;
		rc = compress_body(c->ent[k][0].body, &b);
		if (rc == 0) {
			gw_expo_body_unref(c->ent[k][1].body);
			c->ent[k][1].body = b;
			c->ent[k][1].seq = c->ent[k][0].seq;
			c->compressions++;
		}
	}
	if (rc == 0) {
		struct gw_expo_body *b = c->ent[k][z].body;
		atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
		*data = b->data ? b->data : "";
		*len = b->len;
		*ref = b;
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}
